#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Application names Slurm treats specially (issue "harden the core", item 5): a slurmd
# application named "all" (Nodes=ALL is every node) or "default" (PartitionName=DEFAULT and
# NodeSet=DEFAULT set defaults) is refused for that application alone with a clear status; it
# never reaches slurm.conf, and the controller and another application keep working and
# applying changes. juju-sim, like Juju, refuses application names whose last part is a number.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js integrate slurmctld cpu >/dev/null
settle 180
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf

for name in all default; do
        log "an application named $name"
        js deploy "$SLURMD_CHARM" "$name" >/dev/null
        js integrate slurmctld "$name" >/dev/null
        js config cpu partition-config="MaxTime=$((RANDOM % 100 + 10))" >/dev/null
        want=$(js config cpu partition-config)
        settle 120
        expect_status "$name/0" "^blocked application name \"$name\" is a Slurm keyword"
        app=$(js status --format=json | python3 -c 'import json,sys; a=json.load(sys.stdin)["applications"][sys.argv[1]]["application-status"]; print(a["current"], a.get("message",""))' "$name")
        [[ $app == "blocked application name \"$name\" is a Slurm keyword"* ]] || die "application $name: $app"
        ! grep -qi "^PartitionName=$name\|^NodeSet=$name\|Nodes=$name\b" "$conf" || die "$name in slurm.conf: $(grep -i "$name" "$conf")"
        nomemdef <"$conf" | grep -q "^PartitionName=cpu Nodes=cpu $want Default=YES$" || die "cpu's change not applied with $name related"
        expect_status slurmctld/0 "^active 1 node in 1 partition; application \"$name\" left out: its name is a Slurm keyword$"
        ! ctl sbatch -p "$name" -o /dev/null --wrap true 2>/dev/null || die "a job was accepted in partition $name"
        ctl scontrol -o show node cpu-0 | grep -q 'Partitions=cpu ' || die "cpu-0: $(ctl scontrol -o show node cpu-0)"
        js remove-application "$name" >/dev/null
        settle 60
done

log "juju-sim refuses what Juju refuses"
for bad in cpu-1 a--b a- 9lives Cpu; do
        if js deploy "$SLURMD_CHARM" "$bad" >"$T/out" 2>&1; then
                die "deploy as \"$bad\" succeeded"
        fi
        grep -q 'invalid application name' "$T/out" || die "deploy as \"$bad\": $(cat "$T/out")"
done
log "ok"
