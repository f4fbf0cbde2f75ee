#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A compute unit's status follows its jobs with no hook run. node-config with real daemons: Weight
# and Features change (scontrol show node) while a job runs on the node, which finishes normally;
# the admin's drain and reason are put back; the setting survives upgrade-charm and update-status
# unchanged; reset=true goes back to the hardware;
# forbidden keys are refused and change nothing. partition-config on a live cluster: only that
# partition's line changes, set on the running slurmctld (no reconfigure), visible in
# `scontrol show partition`.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
expect_status slurmd/0 '^active idle$'
r=$(root_of slurmd/0)
node_field() { ctl scontrol -o show node slurmd-0 | tr ' ' '\n' | sed -n "s/^$1=//p"; }

log "the unit's status follows its job with no hook (issue 26, item 6: the service watcher looks at the jobs)"
n_hooks=$(hooks_of slurmd/0)
# (longer than the watcher's gap between two runs for jobs, 10 s (charm/slurmd/nodefollow.h): its
# first-look run may come just before the job starts, and a 6 s job then ended unseen, CI-like
# fresh-clone run, 24.11)
job=$(submit -w slurmd-0 -o /dev/null --mem=100 --wrap "sleep 15")
wait_job_state "$job" RUNNING 30
t0=$SECONDS
dump() { js status >&2 || true; }
until_true 15 "slurmd/0 not shown busy while job $job runs" status_is slurmd/0 '^active (allocated|mixed)$'
log "  busy shown $((SECONDS - t0)) s after the job ran"
wait_job_state "$job" COMPLETED 30
t0=$SECONDS
until_true 25 "slurmd/0 not shown idle after job $job ended" status_is slurmd/0 '^active idle$'
log "  idle shown $((SECONDS - t0)) s after the job ended"
[ "$(hooks_of slurmd/0)" = "$n_hooks" ] || die "a hook ran on slurmd/0: the watcher's runs were to do it"

log "a job whose slurmstepd is killed (SIGKILL: its socket file stays) ends in the status too"
job=$(submit -w slurmd-0 -o /dev/null --mem=100 --wrap "sleep 300")
wait_job_state "$job" RUNNING 30
until_true 15 "slurmd/0 not shown busy while job $job runs" status_is slurmd/0 '^active (allocated|mixed)$'
wlog=$r/var/log/juju-sim/juju-service-watcher-slurmd.service.log
n0=$(wc -l <"$wlog")
js exec slurmd/0 -- pkill -KILL -f "^slurmstepd: \\[$job\\.batch\\]"
# the watcher sees the job gone at its next look (every 2 s; its socket file stays), not at its
# 30 s read of the node
until_true 8 "slurmd's watcher did not see job $job gone" eval 'tail -n +$((n0 + 1)) "$wlog" | grep -q "jobs of slurmd-0: 0, were 1"'
ctl scancel "$job"
until_true 30 "job $job not over after its slurmstepd was killed" eval \
        '[[ $(job_field "$job" JobState) =~ ^(CANCELLED|FAILED|NODE_FAIL|COMPLETED)$ ]]'
ls "$r/var/lib/slurm/slurmd" | grep -q "^slurmd-0_${job}\\." || die "job $job's slurmstepd left no socket file: nothing tested"
# (slurmctld held the job RUNNING until the scancel: nothing changes on the machine after it,
# so the watcher's 30 s read of the node tells)
t0=$SECONDS
until_true 40 "slurmd/0 not shown idle after job $job's slurmstepd was killed" status_is slurmd/0 '^active idle$'
log "  idle shown $((SECONDS - t0)) s after"
[ "$(hooks_of slurmd/0)" = "$n_hooks" ] || die "a hook ran on slurmd/0: the watcher's runs were to do it"

log "an admin's drain and resume at the controller are followed (the watcher reads the node's state)"
ctl scontrol update nodename=slurmd-0 state=drain reason="admin: bench"
t0=$SECONDS
until_true 45 "slurmd/0 not shown drained after the admin's drain" status_is slurmd/0 '^active drained \(admin: bench\)$'
log "  drained shown $((SECONDS - t0)) s after"
ctl scontrol update nodename=slurmd-0 state=resume
t0=$SECONDS
until_true 45 "slurmd/0 not shown idle after the admin's resume" status_is slurmd/0 '^active idle$'
log "  idle shown $((SECONDS - t0)) s after"
[ "$(hooks_of slurmd/0)" = "$n_hooks" ] || die "a hook ran on slurmd/0: the watcher's runs were to do it"
follow_settled slurmd/0

log "node-config Weight=7 Features=big while a job runs on the drained node"
job=$(submit -w slurmd-0 -o /dev/null --mem=100 --wrap "sleep 4")
wait_job_state "$job" RUNNING 30
ctl scontrol update nodename=slurmd-0 state=drain reason=maintenance
# JSON: the YAML form folds a long value over lines, as Juju's does
out=$(js run slurmd/0 node-config parameters="Weight=7 Features=big" --format=json)
[ "$(job_field "$job" JobState)" = COMPLETED ] || die "job $job: $(job_field "$job" JobState)"
[ "$(job_field "$job" ExitCode)" = 0:0 ] || die "job $job: exit $(job_field "$job" ExitCode)"
python3 -c 'import json, sys; r = json.loads(sys.argv[1])["slurmd/0"]["results"]; sys.exit("Weight=7 Features=slurmd,big" not in r["conf"])' "$out" ||
        die "node-config result: $out"
[ "$(node_field Weight)" = 7 ] || die "Weight: $(node_field Weight)"
[ "$(node_field AvailableFeatures)" = slurmd,big ] || die "features: $(node_field AvailableFeatures)"
[[ $(node_field State) == *DRAIN* ]] || die "state not restored: $(node_field State)"
ctl scontrol -o show node slurmd-0 | grep -q 'Reason=maintenance ' || die "reason not restored: $(ctl scontrol -o show node slurmd-0)"
grep -qx 'Weight=7 Features=big' "$r/var/lib/slurm/charm/node-config" || die "not stored"
ctl scontrol update nodename=slurmd-0 state=resume

log "the setting survives upgrade-charm and update-status"
before=$(fingerprint "$r/etc/default/slurmd")
pid=$(js exec slurmd/0 -- systemctl show -p MainPID --value slurmd)
js trigger slurmd upgrade-charm >/dev/null
js trigger slurmd update-status >/dev/null
settle
[ "$(fingerprint "$r/etc/default/slurmd")" = "$before" ] || die "/etc/default/slurmd changed"
[ "$(js exec slurmd/0 -- systemctl show -p MainPID --value slurmd)" = "$pid" ] || die "slurmd restarted"
[ "$(node_field Weight)" = 7 ] || die "Weight after upgrade: $(node_field Weight)"
expect_status slurmd/0 '^active idle$'

log "node-config refused, nothing changed, while a pending job names the node (re-registering it could fail that job)"
jp=$(submit -w slurmd-0 -o /dev/null --hold --wrap true)
if js run slurmd/0 node-config parameters="Weight=5" --format=json >"$T/nc.out" 2>&1; then
        die "node-config accepted with job $jp pending on slurmd-0: $(cat "$T/nc.out")"
fi
grep -q "jobs $jp name node slurmd-0 in their node list" "$T/nc.out" || die "node-config refusal: $(cat "$T/nc.out")"
[ "$(node_field Weight)" = 7 ] || die "Weight changed by a refused node-config: $(node_field Weight)"
[[ $(node_field State) != *DRAIN* ]] || die "slurmd-0 left drained by a refused node-config: $(node_field State)"
grep -qx 'Weight=7 Features=big' "$r/var/lib/slurm/charm/node-config" || die "the refused parameters stored"
ctl scancel "$jp"

# (attack atk8 G11: the drain of an action that died stayed for ever, the status "draining")
log "an interrupted node-config: its drain undone by the next reconcile, no job touched"
job=$(submit -w slurmd-0 -o /dev/null --mem=100 --wrap "sleep 300")
wait_job_state "$job" RUNNING 30
# while the action runs, juju-sim's commands wait for it (one at a time, as Juju's machine lock):
# the node is read on the controller's machine directly
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
ctl_m=$(machine_of slurmctld/0)
reason_now() { "$JSM" exec "$MODEL" "$ctl_m" --timeout 30 -- scontrol -o show node slurmd-0 | tr ' ' '\n' | sed -n 's/^Reason=//p'; }
js run slurmd/0 node-config parameters="Weight=9" >/dev/null 2>&1 &
apid=$!
until_true 60 "node-config did not drain slurmd-0" eval '[[ $(reason_now) == node-config* ]]'
# the action waits for the job; it dies there (as when the agent restarts, the machine reboots
# or the OOM killer picks it: a client that goes away leaves it running, as in Juju)
pkill -KILL -f "$MODEL/charms/slurmd/actions/node-config" || die "no node-config process to kill"
wait "$apid" || true
js trigger slurmd update-status >/dev/null
settle
until_true 30 "slurmd-0 still drained by the dead action: $(node_field State) $(node_field Reason)" \
        eval '[[ $(node_field State) != *DRAIN* ]]'
[ ! -e "$r/var/lib/slurm/charm/node-config.drain" ] || die "the record of the dead action stays"
js debug-log --replay | grep -q 'node-config was interrupted: node slurmd-0 is back as it was before it (its drain lifted)' ||
        die "nothing said of the interrupted node-config: $(js debug-log --replay | tail -5)"
[ "$(job_field "$job" JobState)" = RUNNING ] || die "job $job: $(job_field "$job" JobState)"
grep -qx 'Weight=7 Features=big' "$r/var/lib/slurm/charm/node-config" || die "the dead action's parameters stored"
[ "$(node_field Weight)" = 7 ] || die "Weight: $(node_field Weight)"
ctl scancel "$job"
wait_job_state "$job" CANCELLED 30
settle
# interrupted again, and node-config run again before any hook: whichever comes first (the
# action, or the watcher's run after the drain it saw) undoes the dead one's drain
log "an interrupted node-config, then node-config again: the node as it was before both"
job=$(submit -w slurmd-0 -o /dev/null --mem=100 --wrap "sleep 300")
wait_job_state "$job" RUNNING 30
js run slurmd/0 node-config parameters="Weight=9" >/dev/null 2>&1 &
apid=$!
until_true 60 "node-config did not drain slurmd-0" eval '[[ $(reason_now) == node-config* ]]'
pkill -KILL -f "$MODEL/charms/slurmd/actions/node-config" || die "no node-config process to kill"
wait "$apid" || true
ctl scancel "$job"
wait_job_state "$job" CANCELLED 30
out=$(js run slurmd/0 node-config parameters="Weight=7 Features=big" 2>&1) || die "node-config after the interrupted one: $out"
settle
until_true 30 "slurmd-0 drained after node-config: $(node_field State) $(node_field Reason)" \
        eval '[[ $(node_field State) != *DRAIN* ]]'
[ ! -e "$r/var/lib/slurm/charm/node-config.drain" ] || die "the record stays after node-config"
[ "$(node_field Weight)" = 7 ] || die "Weight: $(node_field Weight)"

log "forbidden keys are refused"
for bad in "NodeName=x" "NodeAddr=10.0.0.1" "Port=7000" "State=DOWN" "Reason=x" "Weight=1 Foo=2" "Weight=\$(reboot)"; do
        if js run slurmd/0 node-config parameters="$bad" >"$T/out" 2>&1; then
                die "node-config parameters=\"$bad\" succeeded"
        fi
        grep -q 'node-config: ' "$T/out" || die "no message for \"$bad\": $(cat "$T/out")"
done
[ "$(fingerprint "$r/etc/default/slurmd")" = "$before" ] || die "/etc/default/slurmd changed by a refused call"
grep -qx 'Weight=7 Features=big' "$r/var/lib/slurm/charm/node-config" || die "stored parameters changed"

log "reset=true"
js run slurmd/0 node-config reset=true >"$T/out"
[ "$(node_field Weight)" = 1 ] || die "Weight after reset: $(node_field Weight)"
[ "$(node_field AvailableFeatures)" = slurmd ] || die "features after reset: $(node_field AvailableFeatures)"
[ ! -e "$r/var/lib/slurm/charm/node-config" ] || die "node-config file left after reset"
[[ $(node_field State) == IDLE* ]] || die "state after reset: $(node_field State)"
# the node was neither drained nor down before: nothing to resume after (issue 26, item 6: a
# RESUME to an IDLE node is refused by slurmctld with this error)
! grep -q 'Invalid node state transition' "$(root_of slurmctld/0)/var/log/slurm/slurmctld.log" ||
        die "a RESUME was sent to a node that was not drained: $(grep 'Invalid node state transition' "$(root_of slurmctld/0)/var/log/slurm/slurmctld.log" | tail -2)"

log "partition-config on a live cluster"
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
cp "$conf" "$T/conf.before"
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
reconf_before=$(grep -c 'Processing Reconfiguration Request' "$ctl_log" || true)
starts_before=$(grep -c 'slurmctld version .* started' "$ctl_log" || true)
js config slurmd partition-config="MaxTime=30 DefaultTime=5" >/dev/null
settle
d=$(diff <(nomemdef <"$T/conf.before") <(nomemdef <"$conf") | grep '^[<>]' || true)
[ "$d" = "< PartitionName=slurmd Nodes=slurmd Default=YES
> PartitionName=slurmd Nodes=slurmd MaxTime=30 DefaultTime=5 Default=YES" ] || die "slurm.conf diff: $d"
# partition parameters go to the running slurmctld over RPC: no reconfigure, no restart
# (charm/slurmctld/ctlapply.h)
[ "$(grep -c 'Processing Reconfiguration Request' "$ctl_log")" = "$reconf_before" ] || die "reconfigured"
[ "$(grep -c 'slurmctld version .* started' "$ctl_log")" = "$starts_before" ] || die "slurmctld restarted"
ctl scontrol -o show partition slurmd | grep -q 'MaxTime=00:30:00 ' || die "partition: $(ctl scontrol -o show partition slurmd)"
ctl scontrol -o show partition slurmd | grep -q 'DefaultTime=00:05:00 ' || die "partition: $(ctl scontrol -o show partition slurmd)"
log "ok"
