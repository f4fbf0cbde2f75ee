#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Jobs share nodes (issue 30 §4): with default-mem-per-cpu=auto each partition's DefMemPerCPU is
# its smallest node's (RealMemory - MemSpecLimit) / CPUs as slurmctld registered it, set live on
# a running cluster (no slurmctld start, a job running); two 1-CPU jobs then run at once on a
# 2-CPU node and a third waits; a job asking more memory than a node has is refused at
# submission; the admin's DefMemPerNode in partition-config wins, a global one is named; a bad
# option value blocks only itself (the partition keeps its value); a second unit of the same
# size changes nothing, one whose data is bad is not counted and named, and the record of a
# removed unit goes with it.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js integrate slurmctld cpu >/dev/null
settle 180
expect_status slurmctld/0 '^active 1 node in 1 partition$'
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
starts() { grep -c 'slurmctld version .* started' "$ctl_log" || true; }
part_field() { ctl scontrol -o show partition cpu | tr ' ' '\n' | sed -n "s/^$1=//p"; }
node_field() { ctl scontrol -o show node cpu-0 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
cpus=$(node_field CPUTot)
mem=$(node_field RealMemory)
spec=$(node_field MemSpecLimit)
want=$(((mem - ${spec:-0}) / cpus))
log "cpu-0: CPUs=$cpus RealMemory=$mem MemSpecLimit=${spec:-0}: DefMemPerCPU=$want expected"
[ "$cpus" -ge 2 ] || die "this test needs a node of 2 CPUs or more (cpu-0 has $cpus)"
record() { js exec slurmctld/0 -- cat /var/lib/slurm/charm/memdef-units 2>/dev/null || true; }

log "default-mem-per-cpu=none (the default): Slurm's default, a job takes its node's memory"
[ "$(part_field DefMemPerCPU)" = UNLIMITED ] || [ -z "$(part_field DefMemPerCPU)" ] ||
        die "DefMemPerCPU without auto: $(part_field DefMemPerCPU)"
[[ $(record) == "cpu/0 cpu $cpus $mem ${spec:-0}" ]] || die "the controller's record of cpu/0: $(record)"
gate=/tmp/gate-memdef
first=$(submit -p cpu -n1 -o /dev/null --wrap "while [ ! -e $gate ]; do sleep 1; done")
wait_job_state "$first" RUNNING 30
[ "$(job_field "$first" MinMemoryNode)" = "${mem}M" ] || [ "$(job_field "$first" MinMemoryNode)" = 0 ] ||
        log "  (job $first MinMemoryNode=$(job_field "$first" MinMemoryNode))"

log "auto on a running cluster: DefMemPerCPU set live, no slurmctld start, the job runs on"
s=$(starts)
js config slurmctld default-mem-per-cpu=auto >/dev/null
settle
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU), want $want"
[ "$(starts)" = "$s" ] || die "$(($(starts) - s)) slurmctld starts for default-mem-per-cpu=auto, want 0"
[ "$(job_field "$first" JobState)" = RUNNING ] || die "job $first: $(job_field "$first" JobState)"
grep -qx "PartitionName=cpu .*DefMemPerCPU=$want.*" "$(root_of slurmctld/0)/etc/slurm/slurm.conf" ||
        die "slurm.conf's partition line has no DefMemPerCPU=$want: $(grep PartitionName "$(root_of slurmctld/0)/etc/slurm/slurm.conf")"
expect_status slurmctld/0 '^active 1 node in 1 partition'
js exec cpu/0 -- touch "$gate"
wait_job_state "$first" COMPLETED 30
until_true 30 "cpu-0 still completing" eval '[[ $(ctl sinfo -h -n cpu-0 -o %T) != comp* ]]'

log "two 1-CPU jobs run at once on the 2-CPU node, the next one waits"
gate2=/tmp/gate-memdef-2
jobs=()
for _ in $(seq "$cpus"); do
        jobs+=("$(submit -p cpu -n1 -o /dev/null --wrap "while [ ! -e $gate2 ]; do sleep 1; done")")
done
extra=$(submit -p cpu -n1 -o /dev/null --wrap true)
for j in "${jobs[@]}"; do wait_job_state "$j" RUNNING 30; done
[ "$(job_field "${jobs[0]}" NodeList)" = cpu-0 ] || die "job ${jobs[0]} on $(job_field "${jobs[0]}" NodeList)"
[ "$(job_field "${jobs[0]}" MinMemoryCPU)" = "${want}M" ] ||
        die "job ${jobs[0]}: MinMemoryCPU=$(job_field "${jobs[0]}" MinMemoryCPU), want ${want}M"
[ "$(job_field "$extra" JobState)" = PENDING ] || die "job $extra (a CPU more than the node has): $(job_field "$extra" JobState)"
js exec cpu/0 -- touch "$gate2"
for j in "${jobs[@]}" "$extra"; do wait_job_state "$j" COMPLETED 60; done

log "a job asking more memory than a node has is refused at submission"
if out=$(ctl sbatch --parsable -p cpu --mem=$((mem + 1)) -o /dev/null --wrap true 2>&1); then
        die "sbatch --mem=$((mem + 1)) accepted: $out"
fi
log "  sbatch: $out"

log "the admin's DefMemPerNode in partition-config wins (the charm's DefMemPerCPU leaves)"
js config cpu partition-config="DefMemPerNode=1000" >/dev/null
settle
[ "$(part_field DefMemPerNode)" = 1000 ] || die "DefMemPerNode=$(part_field DefMemPerNode)"
[ "$(part_field DefMemPerCPU)" != "$want" ] || die "DefMemPerCPU still $want beside the admin's DefMemPerNode"
js config cpu partition-config="" >/dev/null
settle
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU) after partition-config was cleared, want $want"

log "a bad value blocks only itself: the partition keeps its DefMemPerCPU"
js config slurmctld default-mem-per-cpu=lots >/dev/null
settle
expect_status slurmctld/0 'default-mem-per-cpu: "lots" is neither auto nor none \(auto stays\)'
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU) after a bad value"
js config slurmctld default-mem-per-cpu=auto >/dev/null
settle
expect_status slurmctld/0 '^active 1 node in 1 partition$'

log "a second unit of the same size: the same value, no slurmctld start"
s=$(starts)
js add-unit cpu >/dev/null
settle 180
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU) with two units"
[ "$(record | wc -l)" = 2 ] || die "the controller's record with two units: $(record)"

log "a compute unit's bad node-resources: that unit is not counted, named in the status; its next hook mends it"
# cpu/1's watcher catches up once after its start, a hook run that writes its node-resources
# again: the bad data below must come after that run, or that run mends it before slurmctld reads it
follow_settled cpu/1
rid=$(js exec cpu/1 -- relation-ids slurmctld)
js exec cpu/1 -- relation-set -r "$rid" 'node-resources={"cpus":0,"real-memory":5}'
settle
expect_status slurmctld/0 "^active 2 nodes in 1 partition; unit cpu/1's node-resources refused: node-resources: cpus is not a whole number in range$"
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU) after cpu/1's bad data"
[ "$(record)" = "cpu/0 cpu $cpus $mem ${spec:-0}" ] || die "the record with cpu/1's bad data: $(record)"
js trigger cpu/1 update-status >/dev/null
settle
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
[ "$(record | wc -l)" = 2 ] || die "the record after cpu/1 mended its data: $(record)"

log "the admin's global DefMemPerNode beside auto: named in the status (the partition's own wins in Slurm)"
js config slurmctld slurm-conf-parameters="DefMemPerNode=500" >/dev/null
settle
expect_status slurmctld/0 "^active 2 nodes in 1 partition; slurm-conf-parameters' DefMemPerNode: each partition's DefMemPerCPU from default-mem-per-cpu=auto comes first \(none: yours applies\)$"
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU) beside a global DefMemPerNode"
js config slurmctld slurm-conf-parameters="" >/dev/null
settle
# (its restart: on 24.11 a restart and then a reconfigure, which is a start there too, the last
# one may follow the settle by a moment: counted once the count holds for 3 s)
until_true 30 "slurmctld still runs DefMemPerNode=500" eval '[ "$(running_value DefMemPerNode)" != 500 ]'
for _ in $(seq 10); do s=$(starts); sleep 3; [ "$(starts)" = "$s" ] && break; done

log "cpu/1 removed: its record goes, the value stays"
js remove-unit cpu/1 >/dev/null
settle 180
[ "$(record)" = "cpu/0 cpu $cpus $mem ${spec:-0}" ] || die "the record after cpu/1 left: $(record)"
[ "$(part_field DefMemPerCPU)" = "$want" ] || die "DefMemPerCPU=$(part_field DefMemPerCPU) after cpu/1 left"
[ "$(starts)" = "$s" ] || die "$(($(starts) - s)) slurmctld starts for the unit's arrival and departure, want 0"
expect_status slurmctld/0 '^active 1 node in 1 partition$'

log "none again: the key leaves the file (a removed key: by a restart)"
js config slurmctld default-mem-per-cpu=none >/dev/null
settle
! grep -q "DefMemPerCPU" "$(root_of slurmctld/0)/etc/slurm/slurm.conf" || die "DefMemPerCPU still in slurm.conf"
[ "$(part_field DefMemPerCPU)" != "$want" ] || die "slurmctld still runs DefMemPerCPU=$want"
expect_status slurmctld/0 '^active 1 node in 1 partition$'
log ok
