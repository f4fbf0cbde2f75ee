#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs one charm: pack.sh OUT.charm CHARM SRCDIR CHARM_PACK BASE DEST=FILE…
# Splits SRCDIR/{metadata,config,actions}.yaml (section CHARM), writes manifest.yaml (BASE: a
# Juju machine base "ubuntu@22.04", or "auto": this build host's when Juju takes it) and, beside
# OUT, charmcraft/CHARM/charmcraft.yaml (charm-pack charmcraft), copies each FILE to DEST inside the charm (executables stripped, mode 0755;
# templates/* 0644) and zips it all into OUT.charm (zip -X: no extra attributes).
set -euo pipefail
out=$(realpath -m "$1") charm=$2 src=$3 pack=$4 base=$5
shift 5
stage=$(mktemp -d "${TMPDIR:-/tmp}/charm-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
for y in metadata config actions; do
        "$pack" split "$src/$y.yaml" "$charm" "$stage/$y.yaml"
done
"$pack" manifest "$stage/manifest.yaml" /etc/os-release "$base"
# beside the .charm: charmcraft/CHARM/charmcraft.yaml for `charmcraft pack` on the manifest's base
resolved="$(sed -n 's/^- name: //p' "$stage/manifest.yaml")@$(sed -n 's/^  channel: "\(.*\)"/\1/p' "$stage/manifest.yaml")"
mkdir -p "$(dirname "$out")/charmcraft/$charm"
"$pack" charmcraft "$(dirname "$out")/charmcraft/$charm/charmcraft.yaml" "$stage" "$(realpath "$src")" "$resolved"
for pair in "$@"; do
        dest=${pair%%=*} file=${pair#*=}
        mkdir -p "$stage/$(dirname "$dest")"
        case $dest in
        templates/*) install -m 0644 "$file" "$stage/$dest" ;;
        *)
                install -m 0755 "$file" "$stage/$dest"
                strip --strip-unneeded "$stage/$dest" 2>/dev/null || true
                ;;
        esac
done
rm -f "$out.tmp"
(cd "$stage" && zip -q -X -r "$out.tmp" .)
mv -f "$out.tmp" "$out"
