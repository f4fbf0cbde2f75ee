#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs one charm: pack.sh OUT.charm CHARM SRCDIR CHARM_PACK DEST=FILE…
# Splits SRCDIR/{metadata,config,actions}.yaml (section CHARM), writes manifest.yaml from this
# build host, copies each FILE to DEST inside the charm (executables stripped, mode 0755;
# templates/* 0644) and zips it all into OUT.charm (zip -X: no extra attributes).
set -euo pipefail
out=$(realpath -m "$1") charm=$2 src=$3 pack=$4
shift 4
stage=$(mktemp -d "${TMPDIR:-/tmp}/charm-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
for y in metadata config actions; do
        "$pack" split "$src/$y.yaml" "$charm" "$stage/$y.yaml"
done
"$pack" manifest "$stage/manifest.yaml"
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
