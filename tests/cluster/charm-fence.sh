#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A returning controller never wins with stale state (issue 25, item 1). Two controllers on a
# shared state directory, SlurmctldTimeout=10, jobs running, pending and in an array throughout:
#  A. the primary's slurmctld stopped (SIGSTOP) and its machine's link down: the backup takes
#     over and accepts jobs; the primary's sentinel kills the stopped process before anything
#     continues it, its unit says "fenced"; after the heal (link up, SIGCONT) the sentinel
#     starts slurmctld once the backup answers, and the fresh start takes control with the
#     state the backup saved;
#  B. the primary's whole machine frozen (its v1 freezer cgroup: the sentinel too) and its link
#     down: the backup takes over and accepts jobs; thawed (the link still down for 3 s, so
#     that the stale process's request for control cannot reach the backup first: the race
#     fence.h describes), the sentinel sees its own oversleep and kills the stale slurmctld.
# After each: every job known, the new ones included, none re-run (start times unchanged), job
# ids not handed out twice. Without the fence the continued process wins with its memory from
# before and the jobs submitted meanwhile vanish (issue 25's measurement).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
T_OUT=10

mkdir -p "$T/state"
SHARE="$T/state:/srv/slurm-state"
js deploy "$CTL_CHARM" -n 2 --share "$SHARE" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=$T_OUT >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js integrate slurmctld cpu >/dev/null
settle 180
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active primary, in charge; 1 node in 1 partition$'
expect_status slurmctld/1 '^active backup 1, [^ ]+ in charge; 1 node in 1 partition$'
# shellcheck source=tests/cluster/ha-lib.sh
source "$(dirname "$0")/ha-lib.sh"

# freezer UNIT STATE: the unit's machine's v1 freezer cgroup set to FROZEN or THAWED (every
# process of the machine: its systemd, the sentinel, slurmctld)
freezer() {
        local m d pid cg
        m=$(machine_of "$1")
        for d in /sys/fs/cgroup/unified/jsim-*/m"$m"; do
                pid=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | head -n1 || true)
                if [ -z "$pid" ] || ! grep -qF "${T##*/}" "/proc/$pid/mountinfo" 2>/dev/null; then
                        continue
                fi
                cg=$(sed -n 's/^[0-9]*:freezer://p' "/proc/$pid/cgroup")
                cg=${cg%%/m"$m"/*}
                cg=${cg%/m"$m"}/m$m
                echo "$2" >"/sys/fs/cgroup/freezer$cg/freezer.state"
                return 0
        done
        die "no freezer cgroup for $1's machine $m"
}
fence_file=/var/lib/slurm/charm/fenced
fenced() { mx slurmctld/0 test -e "$fence_file"; }
# wait_fenced PATTERN: the primary's sentinel wrote a fence record matching PATTERN (20 s)
wait_fenced() {
        local i
        for ((i = 0; i < 80; i++)); do
                fenced && break
                sleep 0.25
        done
        fenced || die "the primary was not fenced"
        mx slurmctld/0 cat "$fence_file" | grep -qE "$1" || die "fence record: $(mx slurmctld/0 cat "$fence_file")"
        [ "$(mx slurmctld/0 systemctl is-active slurmctld || true)" != active ] || die "slurmctld still active after the fence"
}
# back_in_charge: the sentinel lifted the fence and the primary's fresh slurmctld took control
back_in_charge() {
        local i t0
        t0=$(now_ms)
        for ((i = 0; i < 360; i++)); do
                ! fenced && answers slurmctld/0 && break
                sleep 0.25
        done
        answers slurmctld/0 || die "the primary did not take control again after the heal"
        log "figure: heal -> the primary answers, in charge: $(($(now_ms) - t0)) ms"
}
start_of() { on "$1" scontrol -o show job "$2" | tr ' ' '\n' | sed -n 's/^StartTime=//p'; }

# intact NEW…: the primary in charge knows every job (the ones the backup took, NEW, last), the
# running ones were not started again, and the next job id comes after NEW's
intact() {
        no_job_lost slurmctld/0 "$run1" "${array}_1" "${array}_2" "$pend1" "$@"
        [ "$(start_of slurmctld/0 "$run1")" = "$run1_start" ] || die "job $run1 started again"
        [ "$(start_of slurmctld/0 "${array}_1")" = "$arr1_start" ] || die "job ${array}_1 started again"
        local next last=${*: -1}
        next=$(sub slurmctld/0 --mem=100 --wrap true)
        [ "$next" -gt "$last" ] || die "job id $next handed out again (the backup gave up to $last)"
}

run1=$(sub slurmctld/0 --mem=100 --wrap "sleep 600")
array=$(sub slurmctld/0 --mem=100 -a 1-3 --wrap "sleep 600")
pend1=$(sub slurmctld/0 --mem=100 --begin=now+3600 --wrap true)
wait_job_state "$run1" RUNNING 30
wait_job_state "${array}_1" RUNNING 30
run1_start=$(start_of slurmctld/0 "$run1")
arr1_start=$(start_of slurmctld/0 "${array}_1")
quiet

log "A: the primary's slurmctld stopped and its link down"
mx slurmctld/0 ip link set eth0 down
t0=$(now_ms)
mx slurmctld/0 systemctl kill -s STOP slurmctld
fail_over "$t0" slurmctld/1
newA=()
for i in 1 2 3; do newA+=("$(sub slurmctld/1 --mem=100 --wrap true)"); done
wait_fenced 'stopped while controller 1 took charge'
log "figure: stopped -> fenced (the record's time, whole seconds): $(($(mx slurmctld/0 cut -d' ' -f1 "$fence_file") - t0 / 1000)) s"
js trigger slurmctld/0 update-status >/dev/null
settle
expect_status slurmctld/0 '^waiting fenced: slurmctld \(pid [0-9]+\) stopped while controller 1 took charge'
log "A: healed (link up, SIGCONT): the sentinel starts slurmctld once the backup answers"
mx slurmctld/0 ip link set eth0 up
mx slurmctld/0 systemctl kill -s CONT slurmctld >/dev/null 2>&1 || true
back_in_charge
intact "${newA[@]}"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active primary, in charge; '
expect_status slurmctld/1 '^active backup 1, [^ ]+ in charge; '

log "B: the primary's whole machine frozen and its link down"
quiet
mx slurmctld/0 ip link set eth0 down
t0=$(now_ms)
freezer slurmctld/0 FROZEN
trap 'freezer slurmctld/0 THAWED || true; charm_cleanup' EXIT
fail_over "$t0" slurmctld/1
newB=()
for i in 1 2; do newB+=("$(sub slurmctld/1 --mem=100 --wrap true)"); done
t1=$(now_ms)
freezer slurmctld/0 THAWED
trap charm_cleanup EXIT
wait_fenced 'this machine was frozen [0-9]+ s'
log "figure: thawed -> fenced (the record's time, whole seconds): $(($(mx slurmctld/0 cut -d' ' -f1 "$fence_file") - t1 / 1000)) s"
sleep 3
mx slurmctld/0 ip link set eth0 up
back_in_charge
intact "${newA[@]}" "${newB[@]}"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active primary, in charge; '
log "ok"
