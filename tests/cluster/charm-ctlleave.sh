#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A leaving controller keeps serving the jobs only it can take (attack 3, F4; Slurm 22.05, whose
# job steps keep the controller list they started with): a pair sharing its state directory, a
# job running across every change. Removing the backup leaves the job's first controller: the
# backup goes at once. A third controller joins; removing the primary (the job's last listed
# controller) waits while the job runs, then, past leave-timeout, its hook fails naming the job,
# the primary still in charge; the job ends and its end reaches that primary; resolve, and the
# unit goes. Every job known afterwards, the job COMPLETED 0:0, no standby refused a completion.
# 24.11 hands running steps the new list: nothing to wait for there (not run on that base).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

mkdir -p "$T/state"
SHARE="$T/state:/srv/slurm-state"
js deploy "$CTL_CHARM" -n 2 --share "$SHARE" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=10 >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js integrate slurmctld cpu >/dev/null
settle 180
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active primary, in charge; 2 nodes in 1 partition$'
# shellcheck source=tests/cluster/ha-lib.sh
source "$(dirname "$0")/ha-lib.sh"
if [ -n "$STEPD_PUSH" ]; then
        log "skip: this Slurm hands running steps the new controller list"
        exit 77
fi
h0=$(host_of slurmctld/0)
h1=$(host_of slurmctld/1)
# the controller set history in the shared directory (charm/ctlleave.h): its last line
last_set() { tail -n1 "$T/state/charm-markers/controller-lists" 2>/dev/null | cut -d' ' -f2; }
sorted() { printf '%s\n' "$@" | sort | paste -sd,; }
[ "$(last_set)" = "$(sorted "$h0" "$h1")" ] || die "history: $(cat "$T/state/charm-markers/controller-lists" 2>&1)"

j1=$(gate_job cpu/0 j1)
wait_job_state "$j1" RUNNING 30
pend=$(sub slurmctld/0 --mem=100 --begin=now+3600 --wrap true)
leaving_logs() { grep -h '"unit":"'"$1"'"' "$MODEL/debug-log.jsonl" | grep -o 'leaving: [^"]*' || true; }

log "remove the backup: the job's first controller stays"
t0=$(now_ms)
js remove-unit slurmctld/1 >/dev/null
settle 120
log "figure: backup removed in $(($(now_ms) - t0)) ms"
# it may wait while a node it needs has not registered since slurmctld restarted (its slurmd
# start time unknown), never for the job itself, which still runs
st=$(mx slurmctld/0 scontrol -o show job "$j1" | tr ' ' '\n' | sed -n 's/^JobState=//p')
[ "$st" = RUNNING ] || die "job $j1: $st after the backup left"
if [[ $(leaving_logs slurmctld/1) == *"waiting for"* ]]; then
        [[ $(leaving_logs slurmctld/1) == *"not registered yet"* ]] || die "slurmctld/1 waited for the job: $(leaving_logs slurmctld/1)"
        [[ $(leaving_logs slurmctld/1) == *"no job left"* ]] || die "slurmctld/1's wait: $(leaving_logs slurmctld/1)"
fi
[ "$(last_set)" = "$h0" ] || die "history after the removal: $(cat "$T/state/charm-markers/controller-lists")"

log "a third controller joins"
js add-unit slurmctld --share "$SHARE" >/dev/null
settle 120
[ "$(ctl_hosts slurmctld/0 | wc -w)" = 2 ] || die "slurmctld/0's list: $(ctl_hosts slurmctld/0)"
[ "$(last_set)" = "$(sorted "$h0" "$(host_of slurmctld/2)")" ] || die "history after the join: $(cat "$T/state/charm-markers/controller-lists")"

log "remove the primary while the job that lists only it runs: held, then the hook fails"
js config slurmctld leave-timeout=12 >/dev/null
settle
js remove-unit slurmctld/0 >/dev/null
if js wait --timeout 90 >"$T/wait.out" 2>&1; then
        die "the leaving primary's hook did not fail: $(leaving_logs slurmctld/0)"
fi
msg=$(js debug-log --replay --format=json | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin if l.strip()]
print([r for r in recs if r["unit"] == "slurmctld/0"][-1].get("output", ""))')
[[ $msg == *"leave-timeout: 1 job still runs after 12 s whose steps may list no controller that stays (Slurm 22.05 steps keep their list): $j1;"* ]] || die "hook message: $msg"
[[ $(leaving_logs slurmctld/0) == *"waiting for 1 job whose steps may list no controller that stays (leave-timeout 12 s): $j1"* ]] || die "no wait logged: $(leaving_logs slurmctld/0)"
[ "$(mx slurmctld/0 systemctl is-active slurmctld || true)" = active ] || die "slurmctld/0 stopped while the job needs it"
answers slurmctld/0 || die "slurmctld/0 is no longer in charge"

log "the job ends: its end reaches the primary; resolve, the unit leaves"
gate_open cpu/0 j1
for ((i = 0; i < 120; i++)); do
        st=$(mx slurmctld/0 scontrol -o show job "$j1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
        [ "$st" = COMPLETED ] && break
        sleep 0.5
done
[ "$st" = COMPLETED ] || die "job $j1: $st"
js resolve slurmctld/0 >/dev/null
settle 180
[[ $(js status --format=json) != *'"slurmctld/0"'* ]] || die "slurmctld/0 still in the model"
ran=$(python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(" ".join(r["status"] for r in recs if r["unit"] == "slurmctld/0" and r["hook"] == "slurmctld-peer-relation-departed" and r.get("departing-unit") == "slurmctld/0"))' "$MODEL/debug-log.jsonl")
[ "$ran" = "failed ok" ] || die "slurmctld/0's departing hook runs: $ran (want: failed, then ok after resolve)"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/2 '^active (primary, in charge; )?2 nodes in 1 partition'
completed_ok slurmctld/2 "$j1" 30
no_job_lost slurmctld/2 "$j1" "$pend"
next=$(sub slurmctld/2 --mem=100 --wrap true)
wait_done slurmctld/2 "$next" 60
no_standby_refusal
log "ok"
