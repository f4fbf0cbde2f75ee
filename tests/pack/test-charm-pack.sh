#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The built charms: each .charm unpacks, its YAML files parse and are that charm's sections, every
# hook metadata.yaml implies and every action of actions.yaml is an executable, the service watcher
# and its handler are in bin/ with their unit template, the install hook needs nothing but libc
# (and at most libsystemd): it runs before the packages are installed.
# Usage: test-charm-pack.sh CHARM_PACK SLURMCTLD.charm SLURMD.charm [B_SANITIZE]
set -euo pipefail
pack=$1 ctl=$2 sd=$3 sanitize=${4:-none}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-charm-pack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

for pair in "slurmctld=$ctl" "slurmd=$sd"; do
        name=${pair%%=*} file=${pair#*=}
        dir=$tmp/$name
        mkdir -p "$dir"
        [ -s "$file" ] || { bad "$file missing or empty"; continue; }
        unzip -q "$file" -d "$dir" || { bad "$file: not a zip"; continue; }
        "$pack" check "$dir" "$name" || bad "$name: charm-pack check"
        [ -x "$dir/bin/install-stage2" ] || bad "$name: bin/install-stage2 missing"
        # the service watcher (charm/common/watcher.h): its executable, its handler and its unit template
        for exe in bin/service-watcher bin/service-changed; do
                [ -x "$dir/$exe" ] || bad "$name: $exe missing"
        done
        grep -q '^ExecStart=@WATCHER@ ' "$dir/templates/juju-service-watcher.service" 2>/dev/null ||
                bad "$name: templates/juju-service-watcher.service missing or without ExecStart"
        # the split sections are this charm's: a key only the other charm has must be absent
        case $name in
        slurmctld) grep -q '^  slurmd:' "$dir/metadata.yaml" || bad "slurmctld: requires slurmd missing"
                grep -q 'show-current-config' "$dir/actions.yaml" || bad "slurmctld: action missing"
                grep -q 'partition-config' "$dir/config.yaml" && bad "slurmctld: has slurmd's config"
                [ -f "$dir/templates/slurm.conf" ] || bad "slurmctld: templates/slurm.conf missing"
                grep -q '^Restart=on-failure' "$dir/templates/slurmctld.service.d/20-charm-restart.conf" 2>/dev/null ||
                        bad "slurmctld: restart drop-in template missing" ;;
        slurmd) grep -q 'limit: 1' "$dir/metadata.yaml" || bad "slurmd: limit missing"
                grep -q 'cluster-name' "$dir/config.yaml" && bad "slurmd: has slurmctld's config"
                [ -f "$dir/templates/slurmd.service.d/10-slurmd-charm.conf" ] || bad "slurmd: drop-in template missing" ;;
        esac
        # install: libc (+ libsystemd) only; sanitizer runtimes allowed in a sanitized build
        needed=$(readelf -d "$dir/hooks/install" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
        for lib in $needed; do
                case $lib in
                libc.so.*|libsystemd.so.*) ;;
                libasan.so.*|libubsan.so.*|libm.so.*|libgcc_s.so.*|libstdc++.so.*|libpthread.so.*|libdl.so.*|librt.so.*)
                        [ "$sanitize" != none ] || bad "$name: hooks/install needs $lib" ;;
                *) bad "$name: hooks/install needs $lib (not installed before the install hook runs)" ;;
                esac
        done
        echo "$name: hooks/install needs: $(echo $needed)"
        # every other hook is the full executable (it links libslurm): proves the split is real
        readelf -d "$dir/hooks/config-changed" | grep -q 'libslurm' || bad "$name: config-changed without libslurm?"
        grep -q '^  channel:' "$dir/manifest.yaml" || bad "$name: manifest without channel"
        # a base Juju 3.x deploys machine charms on (tools/juju-sim/bases.h; issue 13)
        base="$(sed -n 's/^- name: //p' "$dir/manifest.yaml")@$(sed -n 's/^  channel: "\(.*\)"/\1/p' "$dir/manifest.yaml")"
        case $base in
        ubuntu@20.04|ubuntu@22.04|ubuntu@24.04|centos@7|centos@9) echo "$name: base $base" ;;
        *) bad "$name: manifest base $base: a Juju 3.x controller refuses it" ;;
        esac
        # the base the executables were built on (juju-sim runs the charm on machines of it)
        built=$(sed -n 's/^built-on: //p' "$dir/manifest.yaml")
        . /etc/os-release
        [ "$built" = "$ID@$VERSION_ID" ] || bad "$name: built-on \"$built\", this build host is $ID@$VERSION_ID"
        echo "$name: built on $built"
        cc="$(dirname "$file")/charmcraft/$name/charmcraft.yaml"
        grep -qx "base: $base" "$cc" && grep -qx "name: $name" "$cc" || bad "$name: $cc missing or not for base $base"
        # charmcraft's project model forbids keys it does not know: metadata.yaml's display-name
        # is title there, and every top-level key is one of its fields
        keys=$(grep -o '^[a-z][a-z-]*:' "$cc" | tr -d : | sort -u | tr '\n' ' ')
        for k in $keys; do
                case $k in
                type | base | platforms | parts | name | title | summary | description | provides | requires | peers | config | actions) ;;
                *) bad "$name: charmcraft.yaml key \"$k\" is not one charmcraft takes" ;;
                esac
        done
        grep -q '^title: ' "$cc" || bad "$name: no title in $cc"
        # meson >= 1.0 for this tree: where the base's own is older (22.04: 0.61) the part takes it from PyPI
        if [ "$base" = ubuntu@22.04 ]; then
                grep -q "pip\" install 'meson>=1.0" "$cc" || bad "$name: $base builds with its meson 0.61"
        fi
done
exit $fail
