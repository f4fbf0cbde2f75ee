#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A returning controller never wins with stale state (issue 25, item 1). Two controllers on a
# shared state directory, SlurmctldTimeout=20 (22.05 HA: see HACKING), jobs running, pending and in an array throughout:
#  A. the primary's slurmctld stopped (SIGSTOP) right after submissions it has not saved yet,
#     and its machine's link down: the primary's sentinel tells the stopped process to save
#     its state and exit before the backup may take over (the relief: a kill lost those jobs),
#     the backup takes over and accepts jobs, the unit says "fenced"; after the heal (link up, SIGCONT) the sentinel lifts
#     the fence once the backup answers, the backup in charge is made the primary, and the old
#     primary waits as its standby: never in charge again with what it had in memory, and (22.05)
#     held down while job steps that started with it first run; one such job, told to end then,
#     ends COMPLETED on the new primary;
#  B. the new primary's whole machine frozen (its v1 freezer cgroup: the sentinel too) and its
#     link down: the held standby starts once no controller is in charge (its sentinel ends the
#     hold) and takes over; thawed (the link still down for 3 s, so that the stale process's
#     request for control cannot reach the other first: the race fence.h describes), the
#     sentinel sees its own oversleep and kills the stale slurmctld; the one in charge is made
#     the primary again.
# After each: every job known, the new ones included, none re-run (start times unchanged), job
# ids not handed out twice, exactly one controller in charge, and no standby refused a job's
# completion. Without the fence the continued process wins with its memory from before and the
# jobs submitted meanwhile vanish (issue 25's measurement).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
T_OUT=20

mkdir -p "$T/state"
SHARE="$T/state:/srv/slurm-state"
js deploy "$CTL_CHARM" -n 2 --share "$SHARE" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=$T_OUT >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js integrate slurmctld cpu >/dev/null
settle 180
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active primary, in charge; 2 nodes in 1 partition$'
expect_status slurmctld/1 '^active backup 1, [^ ]+ in charge; 2 nodes in 1 partition$'
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
# made_primary UNIT OTHER: after a heal, UNIT (in charge) is made the primary: the order lists it
# first, it answers as the one in charge, OTHER does not; prints the figure
made_primary() {
        local i t0
        t0=$(now_ms)
        order_is "$1" "$(host_of "$1")" "$(host_of "$2")"
        for ((i = 0; i < 240; i++)); do
                ! fenced && answers "$1" && break
                sleep 0.25
        done
        answers "$1" || die "$1 does not answer as the primary after the heal"
        ! answers "$2" || die "$2 answers as in charge too"
        log "figure: heal -> $1 answers as the primary: $(($(now_ms) - t0)) ms"
}
start_of() { on "$1" scontrol -o show job "$2" | tr ' ' '\n' | sed -n 's/^StartTime=//p'; }

# intact UNIT NEW…: the controller UNIT reaches knows every job (the ones the backup took, NEW, last), the
# running ones were not started again, and the next job id comes after NEW's
intact() {
        local u=$1
        shift
        no_job_lost "$u" "$run1" "${array}_1" "${array}_2" "$pend1" "$@"
        [ "$(start_of "$u" "$run1")" = "$run1_start" ] || die "job $run1 started again"
        [ "$(start_of "$u" "${array}_1")" = "$arr1_start" ] || die "job ${array}_1 started again"
        local next last=${*: -1}
        next=$(sub "$u" --mem=100 --wrap true)
        [ "$next" -gt "$last" ] || die "job id $next handed out again (the backup gave up to $last)"
}

run1=$(sub slurmctld/0 --mem=100 -w cpu-0 --wrap "sleep 600")
midA=$(gate_job cpu/1 midA)
array=$(sub slurmctld/0 --mem=100 -w cpu-0 -a 1-3 --wrap "sleep 600")
pend1=$(sub slurmctld/0 --mem=100 --begin=now+3600 --wrap true)
wait_job_state "$run1" RUNNING 30
wait_job_state "${array}_1" RUNNING 30
run1_start=$(start_of slurmctld/0 "$run1")
arr1_start=$(start_of slurmctld/0 "${array}_1")
quiet

log "A: the primary's slurmctld stopped and its link down, right after three submissions"
# slurmctld saves job state at most every 5 s (SAVE_MAX_WAIT): after quiet's 6 s the first
# submission is saved at once, the next two wait for the next save, and the stop comes first.
# The sentinel tells the stopped slurmctld to save its state and exit before the backup takes
# over (fence.h, the relief); a kill there lost those two (attack 4, F-C)
ctl0_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
saves0=$(grep -c 'Saving all slurm state' "$ctl0_log" || true)
unsavedA=()
for i in 1 2 3; do unsavedA+=("$(sub slurmctld/0 --mem=100 --begin=now+3600 --wrap true)"); done
mx slurmctld/0 ip link set eth0 down
t0=$(now_ms)
mx slurmctld/0 systemctl kill -s STOP slurmctld
fail_over "$t0" slurmctld/1
newA=()
for i in 1 2 3; do newA+=("$(sub slurmctld/1 --mem=100 --wrap true)"); done
wait_fenced 'stopped while in charge, its heartbeat [0-9]+ s old \(SlurmctldTimeout [0-9]+ s\): told to save its state and exit'
log "figure: stopped -> fenced (the record's time, whole seconds): $(($(mx slurmctld/0 cut -d' ' -f1 "$fence_file") - t0 / 1000)) s"
[ "$(grep -c 'Saving all slurm state' "$ctl0_log" || true)" -gt "$saves0" ] || die "the stopped slurmctld did not save its state on its way out"
sentinel0_log=$(root_of slurmctld/0)/var/log/juju-sim/juju-slurmctld-sentinel.service.log
grep -E 'fence' "$sentinel0_log" | tail -n 3 | sed 's/^/  sentinel: /' || true
grep -q 'saved its state and exited within [0-9]* s; its heartbeat put back' "$sentinel0_log" ||
        die "the sentinel did not see the stopped slurmctld exit, or did not put its heartbeat back"
js trigger slurmctld/0 update-status >/dev/null
settle
expect_status slurmctld/0 '^waiting fenced: slurmctld \(pid [0-9]+\) stopped while in charge, its heartbeat [0-9]+ s old'
# the controller in charge says so while the other's link is down (its hooks pinged that one
# first and called their own slurmctld silent: attack 53 F5)
js trigger slurmctld/1 update-status >/dev/null
settle
expect_status slurmctld/1 '^active (backup 1|primary), in charge; '
log "A: healed (link up, SIGCONT): the fence lifted, slurmctld/1 made the primary, slurmctld/0 its standby"
mx slurmctld/0 ip link set eth0 up
mx slurmctld/0 systemctl kill -s CONT slurmctld >/dev/null 2>&1 || true
made_primary slurmctld/1 slurmctld/0
intact slurmctld/1 "${unsavedA[@]}" "${newA[@]}"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/1 '^active primary, in charge; '
held_or_backup slurmctld/0 slurmctld/1
gate_open cpu/1 midA
completed_ok slurmctld/1 "$midA" 30

a2_from=9999 a2_to=0000
if [ -z "$STEPD_PUSH" ]; then
        # A2 (22.05, slurmctld/0 held): the controller in charge late, not lost. Its heartbeat
        # stops (slurmctld cannot create heartbeat.new while a directory of that name is there)
        # while it answers. slurmctld/0's sentinel ends the hold ahead of T (standby_release_s:
        # 10 s here), records it (standby-early) and its slurmctld starts as a standby; midL,
        # started on cpu-1 whose slurmd still has the old list (slurmctld/0 first), ends then and
        # its completion meets that standby. The heartbeat is let through: it comes back about
        # 15 s old (the next beat of the 5 s period), short of T: no takeover, the record voided,
        # slurmctld/0 stopped and held again at once, and midL's retry completes on /1.
        log "A2: slurmctld/1's heartbeat late, not lost (T = $T_OUT s): no takeover, slurmctld/0 held again"
        midL=$(gate_job cpu/1 midL)
        wait_job_state "$midL" RUNNING 30
        ctl0_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
        early=$(root_of slurmctld/0)/var/lib/slurm/charm/standby-early
        starts0=$(grep -c 'slurmctld version' "$ctl0_log" || true)
        takes0=$(grep -c 'taking over' "$ctl0_log" || true)
        refused0=$(grep -c 'Invalid RPC received REQUEST_COMPLETE_BATCH_SCRIPT' "$ctl0_log" || true)
        hb=$T/state/heartbeat
        m0=$(stat -c %Y "$hb")
        for ((i = 0; i < 60; i++)); do [ "$(stat -c %Y "$hb")" != "$m0" ] && break; sleep 0.1; done
        mkdir "$hb.new"
        trap 'rc=$?; trap - ERR; set +e; rmdir "$T/state/heartbeat.new"; (exit $rc); charm_cleanup' EXIT
        t2=$(now_ms)
        a2_from=$(date -u +%Y-%m-%dT%H:%M:%S)
        # (until T - 4 s at most: the heartbeat must come back short of T)
        while (($(now_ms) - t2 < (T_OUT - 4) * 1000)); do
                [ "$(mx slurmctld/0 systemctl is-active slurmctld || true)" = active ] && break
                sleep 0.25
        done
        if [ "$(mx slurmctld/0 systemctl is-active slurmctld || true)" != active ]; then
                rmdir "$hb.new"
                die "slurmctld/0 did not start ahead of SlurmctldTimeout ($(($(now_ms) - t2)) ms without a heartbeat)"
        fi
        [ -e "$early" ] || { rmdir "$hb.new"; die "slurmctld/0 runs, but no early end was recorded"; }
        log "figure: heartbeat stopped -> slurmctld/0 started ahead of T: $(($(now_ms) - t2)) ms"
        gate_open cpu/1 midL
        sleep 2
        rmdir "$hb.new"
        trap charm_cleanup EXIT
        for ((i = 0; i < 60; i++)); do [ "$(stat -c %Y "$hb")" -gt "$m0" ] && break; sleep 0.25; done
        [ "$(stat -c %Y "$hb")" -gt "$m0" ] || die "slurmctld/1's heartbeat not written again"
        t3=$(now_ms)
        for ((i = 0; i < 120; i++)); do
                [ ! -e "$early" ] && [ "$(mx slurmctld/0 systemctl is-active slurmctld || true)" != active ] && break
                sleep 0.25
        done
        [ ! -e "$early" ] || die "slurmctld/0's early end not voided 30 s after the heartbeat came back"
        [ "$(mx slurmctld/0 systemctl is-active slurmctld || true)" != active ] ||
                die "slurmctld/0 still runs 30 s after slurmctld/1's heartbeat came back (old steps ask it first)"
        log "figure: heartbeat back -> slurmctld/0 held again: $(($(now_ms) - t3)) ms"
        completed_ok slurmctld/1 "$midL" 60
        a2_to=$(date -u +%Y-%m-%dT%H:%M:%S)
        [ "$(grep -c 'Invalid RPC received REQUEST_COMPLETE_BATCH_SCRIPT' "$ctl0_log" || true)" -gt "$refused0" ] ||
                die "job $midL's completion never met slurmctld/0 as a standby: the case was not exercised"
        [ "$(($(grep -c 'slurmctld version' "$ctl0_log" || true) - starts0))" -ge 1 ] || die "slurmctld/0 never started"
        answers slurmctld/1 || die "slurmctld/1 no longer in charge after a late heartbeat"
        [ "$(grep -c 'taking over' "$ctl0_log" || true)" = "$takes0" ] || die "slurmctld/0 took control from a late controller"
        js trigger slurmctld update-status >/dev/null
        settle
        expect_status slurmctld/1 '^active primary, in charge; '
        held_or_backup slurmctld/0 slurmctld/1
fi

log "B: the new primary's whole machine frozen and its link down"
# a job that ends while no controller is in charge: its end reaches slurmctld/0 only if that
# one takes control as soon as its standby hold ends (attack 3, F6); as a standby for another
# SlurmctldTimeout it refuses the completion, which the step gives up after 1.5 x that
midB=$(gate_job cpu/1 midB)
wait_job_state "$midB" RUNNING 30
quiet
mx slurmctld/1 ip link set eth0 down
t0=$(now_ms)
freezer slurmctld/1 FROZEN
trap 'rc=$?; trap - ERR; set +e; freezer slurmctld/1 THAWED; (exit $rc); charm_cleanup' EXIT
gate_open cpu/1 midB
b_from=$(date -u +%Y-%m-%dT%H:%M:%S)
# the standby hold (22.05) ends once no controller is in charge for SlurmctldTimeout; the
# backup's sentinel then has it take control as soon as it answers (24.11: no hold, the backup
# takes over after SlurmctldTimeout)
# (the first answer counts: right after it the unit asks the leader to be made the primary,
# claim_first, and the restart that applies the new order may already be under way, a few
# seconds without an answer; seen in a whole run: a second look 0.2 s later met it)
took=
for ((i = 0; i < 90 * 4; i++)); do answers slurmctld/0 && took=1 && break; sleep 0.25; done
[ -n "$took" ] || die "slurmctld/0 did not take over within 90 s"
log "figure: primary frozen -> slurmctld/0 answers: $(($(now_ms) - t0)) ms"
# midB's slurmstepd gives its completion up 1.5 x SlurmctldTimeout after its call began (at the
# job's end) once a standby answered it: the held standby starts ahead of SlurmctldTimeout
# (standby_release_s) so that its takeover lands inside that window (before: it started at T,
# answered as a standby ~15 s after the call began and took control ~19 s after the freeze; the
# job stayed RUNNING for good, 3 runs of 3). 24.11 hands running steps the new list (no hold).
completed_ok slurmctld/0 "$midB" 60
log "figure: primary frozen -> job $midB completed on slurmctld/0: $(($(now_ms) - t0)) ms (at most)"
b_to=$(date -u +%Y-%m-%dT%H:%M:%S)
newB=()
for i in 1 2; do newB+=("$(sub slurmctld/0 --mem=100 --wrap true)"); done
t1=$(now_ms)
freezer slurmctld/1 THAWED
trap charm_cleanup EXIT
fence_file_of() { mx "$1" cat "$fence_file" 2>/dev/null; }
for ((i = 0; i < 80; i++)); do fence_file_of slurmctld/1 >/dev/null && break; sleep 0.25; done
fence_file_of slurmctld/1 | grep -qE 'this machine was frozen [0-9]+ s' || die "slurmctld/1 not fenced: $(fence_file_of slurmctld/1)"
log "figure: thawed -> fenced (the record's time, whole seconds): $(($(fence_file_of slurmctld/1 | cut -d' ' -f1) - t1 / 1000)) s"
sleep 3
mx slurmctld/1 ip link set eth0 up
made_primary slurmctld/0 slurmctld/1
intact slurmctld/0 "$midB" "${newA[@]}" "${newB[@]}"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active primary, in charge; '
held_or_backup slurmctld/1 slurmctld/0
# midB ended while no controller was in charge: the held standby may refuse its first
# completion tries until its takeover lands (seconds); what counts is that a retry reached it
# (completed_ok above). Outside that window, no standby refuses a completion.
# (and A2's, where slurmctld/0 was a standby on purpose while midL ended)
b_window() { awk -v a="[$b_from" -v b="[$b_to~" -v c="[$a2_from" -v d="[$a2_to~" '!($1 >= a && $1 <= b) && !($1 >= c && $1 <= d)' "$@"; }
for f in "$MODEL"/machines/*/root/var/log/slurm/slurmctld.log; do
        [ -z "$STEPD_PUSH" ] || break # (24.11 hands running steps the new list: no_standby_refusal)
        ! b_window "$f" | grep -qE 'Invalid RPC received (REQUEST_COMPLETE_BATCH_SCRIPT|REQUEST_STEP_COMPLETE|MESSAGE_EPILOG_COMPLETE)' ||
                die "a standby refused a job's completion outside B's no-controller window: ${f#"$MODEL"/machines/}"
done
log "ok"
