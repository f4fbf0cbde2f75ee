#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bad values never reach a Slurm file, and one application's bad value never stops another's
# change (issue "harden the core", item 1): partition-config values Slurm refuses block the
# application that set them and change nothing on the controller while another application's
# change in the same round applies; slurm-conf-parameters values Slurm refuses (and sub-options
# it would ignore, misread or exit on, per generation: slurmconf/subopts.h) block the
# controller, slurm.conf stays byte for byte, sinfo keeps working; a fixed value returns unit
# AND application to active; node-config values Slurm refuses change nothing; a node that does
# not register with its new parameters is rolled back and registers with the old ones.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js deploy "$SLURMD_CHARM" big >/dev/null
js integrate slurmctld cpu >/dev/null
js integrate slurmctld big >/dev/null
settle 180
expect_status slurmctld/0 '^active 3 nodes in 2 partitions$'
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf

app_status() {
        js status --format=json | python3 -c '
import json, sys
a = json.load(sys.stdin)["applications"][sys.argv[1]]["application-status"]
print(a["current"], a.get("message", ""))' "$1"
}
expect_app() {
        local got
        got=$(app_status "$1")
        [[ $got =~ $2 ]] || die "application $1: status \"$got\", want /$2/"
}
# cluster_works: the controller's clients read the live file and the daemon answers
cluster_works() {
        ctl sinfo -h -o '%P' >/dev/null || die "$1: sinfo fails"
        ctl squeue -h >/dev/null || die "$1: squeue fails"
}

log "partition-config values Slurm refuses: blocked on the application, nothing written"
for bad in "MaxTime=forever" "PriorityTier=99999999999999" "MaxNodes=-3" "OverSubscribe=SOMETIMES" \
        "DefMemPerCPU=lots" "State=ASLEEP" "MaxTime=1-25:00:00x"; do
        before=$(fingerprint "$conf")
        js config cpu partition-config="$bad" >/dev/null
        # in the same round, another application's good change
        # (a value that differs from the last round's, so that slurm.conf must change)
        round=$((${round:-0} + 1))
        js config big partition-config="MaxTime=$((RANDOM % 500 * 10 + round))" >/dev/null
        want=$(js config big partition-config)
        settle
        expect_status cpu/0 "^blocked partition-config: "
        expect_app cpu "^blocked partition-config: "
        key=${bad%%=*}
        unit_status cpu/0 | grep -q "$key" || die "cpu/0 status does not name $key: $(unit_status cpu/0)"
        nomemdef <"$conf" | grep -q "^PartitionName=cpu Nodes=cpu Default=YES$" || die "$bad: cpu line changed: $(grep PartitionName=cpu "$conf")"
        nomemdef <"$conf" | grep -q "^PartitionName=big Nodes=big $want$" || die "$bad: big's change ($want) not applied: $(grep PartitionName=big "$conf")"
        [ "$(fingerprint "$conf" | cut -d' ' -f1)" != "$(cut -d' ' -f1 <<<"$before")" ] || die "$bad: nothing applied"
        ! grep -q "$bad" "$conf" || die "$bad written"
        cluster_works "$bad"
        expect_status slurmctld/0 '^active 3 nodes in 2 partitions$'
done
log "fixed: unit and application active again"
js config cpu partition-config="MaxTime=100" >/dev/null
settle
expect_status cpu/0 '^active idle$'
expect_app cpu '^active'
nomemdef <"$conf" | grep -q "^PartitionName=cpu Nodes=cpu MaxTime=100 Default=YES$" || die "fixed value not applied"

log "a live change stays live: no restart at the next update-status (issue 26, item 5)"
ctld_pid() { js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld; }
pid=$(ctld_pid)
js config cpu partition-config="MaxTime=500" >/dev/null
settle
ctl scontrol -o show partition cpu | grep -q ' MaxTime=08:20:00 ' || die "MaxTime=500 not live: $(ctl scontrol -o show partition cpu)"
[ "$(ctld_pid)" = "$pid" ] || die "slurmctld restarted for a live change"
for i in 1 2; do
        js trigger slurmctld update-status >/dev/null
        settle
        [ "$(ctld_pid)" = "$pid" ] || die "update-status $i restarted slurmctld after a live change"
done
js config cpu partition-config="MaxTime=100" >/dev/null
settle
[ "$(ctld_pid)" = "$pid" ] || die "slurmctld restarted for a live change back"

log "slurm-conf-parameters values Slurm refuses: blocked controller, slurm.conf unchanged"
# sub-options Slurm ignores, misreads or exits on (issue 26 item 3), the generation's own list:
# 24.11 has no TimeCray, 22.05 no AuditRPCs (every Slurm program exits on an unknown DebugFlag)
gen_flag=DebugFlags=AuditRPCs
[ -z "${CHARM_BASE:-}" ] || gen_flag=DebugFlags=TimeCray
for bad in "SlurmctldDebug=loud" "SlurmdTimeout=abc" "SchedulerType=sched/nosuch" "MessageTimeout=99999999" \
        "PreemptMode=SOMETIMES" "ReturnToService=7" "TaskPlugin=task/affinity" \
        "SchedulerParameters=bf_continue,bf_interval=abc" "LaunchParameters=Use_Interactive_Step" "$gen_flag" \
        "TopologyPlugin=topology/tree"; do
        # (topology/tree without topology.conf: slurmctld would exit at its start; judged before
        # the live daemon is touched, issue 26 item 4: no restart, no outage)
        before=$(fingerprint "$conf")
        pid0=$(ctld_pid)
        js config slurmctld slurm-conf-parameters="$bad" >/dev/null
        js config big partition-config="MaxTime=77" >/dev/null
        settle
        expect_status slurmctld/0 "^blocked slurm-conf-parameters: "
        expect_app slurmctld "^blocked slurm-conf-parameters: "
        ! grep -q "^${bad%%=*}=${bad#*=}$" "$conf" || die "$bad written"
        nomemdef <"$conf" | grep -q "^PartitionName=big Nodes=big MaxTime=77$" || die "$bad: big's change not applied"
        cluster_works "$bad"
        js exec slurmctld/0 -- systemctl is-active slurmctld >/dev/null || die "$bad: slurmctld not active"
        [ "$(ctld_pid)" = "$pid0" ] || die "$bad: slurmctld restarted for a refused value"
        js config big partition-config="MaxTime=78" >/dev/null
        settle
done
js config slurmctld slurm-conf-parameters="SlurmctldDebug=verbose" >/dev/null
settle
expect_status slurmctld/0 '^active 3 nodes in 2 partitions$'
expect_app slurmctld '^active'
grep -q "^SlurmctldDebug=verbose$" "$conf" || die "good parameter not applied"
# the quick status refresh of a compute unit event keeps a refusal in front
js config slurmctld slurm-conf-parameters="SlurmctldDebug=loud" >/dev/null
settle
js add-unit cpu >/dev/null
settle
expect_status slurmctld/0 '^blocked slurm-conf-parameters: .*4 nodes in 2 partitions'
js config slurmctld --reset slurm-conf-parameters >/dev/null
settle
expect_status slurmctld/0 '^active 4 nodes in 2 partitions$'

log "node-config values Slurm refuses change nothing"
r=$(root_of cpu/0)
defaults=$(fingerprint "$r/etc/default/slurmd")
for bad in "Weight=abc" "CPUs=0x" "RealMemory=-5" "Weight=99999999999"; do
        if js run cpu/0 node-config parameters="$bad" >"$T/out" 2>&1; then
                die "node-config $bad succeeded: $(cat "$T/out")"
        fi
        grep -q "node-config: " "$T/out" || die "node-config $bad: no message: $(cat "$T/out")"
        [ "$(fingerprint "$r/etc/default/slurmd")" = "$defaults" ] || die "node-config $bad: /etc/default/slurmd changed"
        node_exists cpu-0 || die "node-config $bad: node cpu-0 lost"
done
[[ $(ctl scontrol -o show node cpu-0) == *State=IDLE* ]] || die "cpu-0 not idle: $(ctl scontrol -o show node cpu-0)"

log "a node stays in its own application's partition (issue 26, item 2)"
for bad in "Features=big" "Features=ssd,big" "Weight=3 Features=big"; do
        if js run cpu/0 node-config parameters="$bad" >"$T/out" 2>&1; then
                die "node-config $bad succeeded: $(cat "$T/out")"
        fi
        grep -q 'node-config: nothing changed: Features: "big" is the feature by which partition nodes of another application are chosen' "$T/out" ||
                die "node-config $bad: $(cat "$T/out")"
        [ "$(fingerprint "$r/etc/default/slurmd")" = "$defaults" ] || die "node-config $bad: /etc/default/slurmd changed"
done
for args in "features=big" "features=ssd,big" "active-features=big"; do
        if js run slurmctld/0 node-update nodes=cpu-0 "$args" >"$T/out" 2>&1; then
                die "node-update $args succeeded: $(cat "$T/out")"
        fi
        grep -q 'features: "big" is the feature by which partition nodes of another application are chosen' "$T/out" ||
                die "node-update $args: $(cat "$T/out")"
done
[ "$(ctl sinfo -h -N -n cpu-0 -o %P)" = 'cpu*' ] || [ "$(ctl sinfo -h -N -n cpu-0 -o %P)" = cpu ] ||
        die "cpu-0's partitions: $(ctl sinfo -h -N -n cpu-0 -o %P)"
# a feature that is no application's stays the admin's to give
js run cpu/0 node-config parameters="Features=ssd" >/dev/null
[[ $(ctl scontrol -o show node cpu-0) == *AvailableFeatures=cpu,ssd* ]] || die "cpu-0: $(ctl scontrol -o show node cpu-0)"
js run cpu/0 node-config reset=true >/dev/null

log "a node that does not register with its new parameters is rolled back"
js run cpu/0 node-config parameters="Weight=5" >/dev/null
ctl scontrol -o show node cpu-0 | grep -q ' Weight=5 ' || die "Weight=5 not applied"
defaults=$(fingerprint "$r/etc/default/slurmd")
if js run cpu/0 node-config parameters="Weight=6 RealMemory=99999999" >"$T/out" 2>&1; then
        die "node-config RealMemory=99999999 succeeded: $(cat "$T/out")"
fi
grep -q "did not register" "$T/out" || die "no rollback message: $(cat "$T/out")"
grep -q "previous configuration is back" "$T/out" || die "not rolled back: $(cat "$T/out")"
[ "$(fingerprint "$r/etc/default/slurmd" | cut -d' ' -f1)" = "$(cut -d' ' -f1 <<<"$defaults")" ] || die "/etc/default/slurmd not restored"
grep -qx 'Weight=5' "$r/var/lib/slurm/charm/node-config" || die "stored parameters not restored: $(cat "$r/var/lib/slurm/charm/node-config")"
ctl scontrol -o show node cpu-0 | grep -q ' Weight=5 ' || die "cpu-0 not back with Weight=5: $(ctl scontrol -o show node cpu-0)"
[[ $(ctl scontrol -o show node cpu-0) == *State=IDLE* ]] || die "cpu-0 not idle after the rollback"
# CPU layouts Slurm's reader takes and slurmctld then resets (CPUs=1000, CoreSpecCount that
# leaves no core), exits on (22.05: Boards=2, CPUs=1 on a 2-core node, "doesn't match neither",
# attack atk7 F2) or that claim more than the machine has (ThreadsPerCore=2), or that leave no
# CPU for jobs (CpuSpecList of every CPU): refused before anything changes, slurmctld untouched
# (issue 26, item 3)
pid=$(js exec slurmctld/0 -- systemctl show -P MainPID slurmctld)
slurmd_pid=$(js exec cpu/0 -- systemctl show -P MainPID slurmd)
ncpu=$(ctl scontrol -o show node cpu-0 | sed -n 's/.* CPUTot=\([0-9]*\) .*/\1/p')
for bad in "CPUs=1000" "Boards=2" "CPUs=$((ncpu - 1))" "ThreadsPerCore=$((ncpu + 1))" \
        "CoreSpecCount=$ncpu" "CpuSpecList=0-$((ncpu - 1))"; do
        if js run cpu/0 node-config parameters="Weight=6 $bad" >"$T/out" 2>&1; then
                die "node-config $bad succeeded: $(cat "$T/out")"
        fi
        grep -q "nothing changed" "$T/out" || die "$bad: $(cat "$T/out")"
        [ "$(fingerprint "$r/etc/default/slurmd" | cut -d' ' -f1)" = "$(cut -d' ' -f1 <<<"$defaults")" ] || die "/etc/default/slurmd changed for $bad"
done
ctl scontrol -o show node cpu-0 | grep -q ' Weight=5 ' || die "cpu-0 not with Weight=5: $(ctl scontrol -o show node cpu-0)"
[ "$(js exec slurmctld/0 -- systemctl show -P MainPID slurmctld)" = "$pid" ] || die "slurmctld restarted by a node-config"
[ "$(js exec cpu/0 -- systemctl show -P MainPID slurmd)" = "$slurmd_pid" ] || die "slurmd restarted for a refused node-config"
job=$(submit -w cpu-0 -o /dev/null --wrap true)
wait_job_state "$job" COMPLETED 30
log "ok"
