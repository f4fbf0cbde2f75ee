#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A change a reconfigure does not take is applied by a safe restart, never left silently
# different (issue "harden the core", item 2), and a file slurmctld refuses is rolled back: with a
# job running and one pending, SchedulerType=sched/builtin (a reconfigure keeps the old plugin:
# "SchedulerType change requires restart") makes the running slurmctld use builtin, the jobs
# survive, the status says when the compute nodes get the file; partition TRES weights that Slurm's
# reader accepts but slurmctld refuses at start brings the previous file back (jobs intact,
# status blocked, and the same candidate is not tried again); fixed, all is active again.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

deploy_cpu 2
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
starts() { grep -c 'slurmctld version .* started' "$ctl_log" || true; }
jobs_intact() {
        [ "$(job_field "$running" JobState)" = RUNNING ] || die "$1: job $running $(job_field "$running" JobState)"
        [ "$(job_field "$pending" JobState)" = PENDING ] || die "$1: job $pending $(job_field "$pending" JobState)"
}

# ends when told to (a file on its machine): a slow machine must not end it early
running=$(submit -w cpu-0 -o /dev/null --wrap "while [ ! -e /tmp/gate-first ]; do sleep 1; done")
pending=$(submit -p cpu --begin=now+1hour -o /dev/null --wrap true)
wait_job_state "$running" RUNNING 30

# fetched_on UNIT LINE: the unit's slurmd fetched a slurm.conf with that line
fetched_on() { js exec "$1" -- grep -qx "$2" /run/slurm/conf/slurm.conf; }
slurmd_pid() { js exec "$1" -- systemctl show -p MainPID --value slurmd; }
# same_as_ctl UNIT: the unit's slurmd fetched the very file slurmctld runs (the charm's)
same_as_ctl() { js exec "$1" -- cat /run/slurm/conf/slurm.conf | cmp -s - "$conf"; }

log "SchedulerType=sched/builtin: applied by a restart, the jobs survive; the idle compute node"
log "gets the file at once, the busy one once its job ended (issue 26, atk8 G6: charm/common/confpush.h)"
pid0=$(slurmd_pid cpu/0)
s=$(starts)
js config slurmctld slurm-conf-parameters="SchedulerType=sched/builtin" >/dev/null
settle
[ "$(running_value SchedulerType)" = sched/builtin ] || die "running SchedulerType: $(running_value SchedulerType)"
[ "$(starts)" = $((s + 1)) ] || die "$(($(starts) - s)) slurmctld starts, want 1"
jobs_intact "SchedulerType"
expect_status slurmctld/0 '^active 2 nodes in 1 partition; slurm.conf reaches each busy compute node once its jobs end \(1 job holding nodes\)$'
! unit_status slurmctld/0 | grep -q 'running slurmctld has' || die "running and file differ: $(unit_status slurmctld/0)"
until_true 30 "the idle node cpu-1 did not fetch the new slurm.conf" fetched_on cpu/1 "SchedulerType=sched/builtin"
! fetched_on cpu/0 "SchedulerType=sched/builtin" || die "the busy node cpu-0 fetched the file under its job"
[ "$(slurmd_pid cpu/0)" = "$pid0" ] || die "cpu-0's slurmd restarted while its job ran"
expect_status cpu/0 'slurmctld runs a new slurm.conf: slurmd fetches it once no job runs here \(the node is drained for it after 10 min\)$'
# cpu-1 was drained for its restart and put back
until_true 20 "cpu-1 not back to idle after its push: $(ctl scontrol -o show node cpu-1)" \
        eval '[[ $(ctl scontrol -o show node cpu-1) == *State=IDLE* && $(ctl scontrol -o show node cpu-1) != *DRAIN* ]]'
js debug-log --replay | grep -q 'slurmd restarted to fetch the slurm.conf slurmctld runs .*, its node drained for the restart and put back' ||
        die "no debug-log line of cpu-1's push"
jobs_intact "the idle node's push"
js exec cpu/0 -- touch /tmp/gate-first
wait_job_state "$running" COMPLETED 40
until_true 30 "cpu-0 did not fetch the new slurm.conf after its job's end" fetched_on cpu/0 "SchedulerType=sched/builtin"
[ "$(job_field "$running" ExitCode)" = 0:0 ] || die "job $running: exit $(job_field "$running" ExitCode)"
until_true 20 "cpu-0's status still waits: $(unit_status cpu/0)" eval '! status_is cpu/0 "slurmd fetches it"'
running=$(submit -w cpu-0 -o /dev/null --wrap "sleep 300")
wait_job_state "$running" RUNNING 30

log "a file slurmctld refuses at start: rolled back, jobs intact, not tried again"
before=$(fingerprint "$conf")
s=$(starts)
js config cpu partition-config="TRESBillingWeights=CPU=1.0,gres/gpu=2" >/dev/null
settle
# (under Juju's concurrency the watcher's reconcile after the rollback's restart may come before
# this look: it says the candidate was refused before, with slurmctld's reason; the file checks
# below tell the rollback)
expect_status slurmctld/0 "^blocked (slurmctld refused the new slurm.conf \\(fatal: .*[Tt][Rr][Ee][Ss].*\\): the previous one is back|relation with \"cpu\": slurm.conf refused by slurmctld before \\(fatal: .*[Tt][Rr][Ee][Ss].*\\))"
[ "$(fingerprint "$conf" | cut -d' ' -f1)" = "$(cut -d' ' -f1 <<<"$before")" ] || die "slurm.conf not the previous one"
! grep -q gres/gpu "$conf" || die "the refused weights are in slurm.conf"
ctl sinfo -h >/dev/null || die "sinfo fails after the rollback"
jobs_intact "rollback"
[ "$(running_value SchedulerType)" = sched/builtin ] || die "the rollback lost the earlier change"
s=$(starts)
js trigger slurmctld update-status >/dev/null
settle
[ "$(starts)" = "$s" ] || die "the refused candidate was tried again"
expect_status slurmctld/0 'slurm.conf refused by slurmctld before'
js config cpu --reset partition-config >/dev/null
settle
expect_status slurmctld/0 '^active 2 nodes in 1 partition'
jobs_intact "reset"

log "a file slurmctld takes but never answers with: rolled back within a few seconds, jobs intact"
# JobCompType=jobcomp/lua runs /etc/slurm/jobcomp.lua's top level at slurmctld's start, inside
# read_slurm_conf: before 22.05 answers any RPC, after 24.11's READY=1. A site script that blocks
# (here: for 5 minutes) keeps the daemon alive and silent. The bound comes from the record of
# good starts (lib/charm/slurmctld/ctlstart.h), the ceiling (20 s) when there is none.
js exec slurmctld/0 -- sh -c 'printf "%s\n" "for i = 1, 300 do os.execute(\"sleep 1\") end" \
        "function slurm_jobcomp_log_record(job) return 0 end" >/etc/slurm/jobcomp.lua &&
        chmod 0644 /etc/slurm/jobcomp.lua'
record=$(root_of slurmctld/0)/var/lib/slurm/charm/slurmctld.starts
[ -s "$record" ] || die "no record of slurmctld's good starts"
worst=$(sort -n "$record" | tail -1)
bound=$((worst * 3 + 2000))
[ $bound -ge 10000 ] || bound=10000
[ $bound -le 20000 ] || bound=20000
bound_s=$(awk -v b=$bound 'BEGIN { printf "%.1f", b / 1000 }') # as the charm prints it
log "good starts on record (ms): $(tr '\n' ' ' <"$record"); bound $bound ms"
running2=$(submit -w cpu-1 -o /dev/null --wrap "while [ ! -e /tmp/gate-second ]; do sleep 1; done")
wait_job_state "$running2" RUNNING 30
before=$(fingerprint "$conf")
s=$(starts)
t0=$(date +%s%N)
js config slurmctld slurm-conf-parameters="SchedulerType=sched/builtin JobCompType=jobcomp/lua" >/dev/null
settle
# (under Juju's concurrency the watcher's reconcile after the rollback's restart may come before
# this look: it says the candidate was refused before, and when it is tried once more)
expect_status slurmctld/0 "^blocked (slurmctld refused the new slurm.conf \\(no answer within ${bound_s//./\\.} s of its start.*tried once more, with the full 20 s, in 10 minutes|slurm-conf-parameters: slurm.conf refused by slurmctld before \\(no answer within ${bound_s//./\\.} s of its start.*tried once more, with the full start time, in (10|9) minutes)"
[ "$(fingerprint "$conf" | cut -d' ' -f1)" = "$(cut -d' ' -f1 <<<"$before")" ] || die "slurm.conf not the previous one"
[ "$(running_value JobCompType)" != jobcomp/lua ] || die "the running slurmctld has jobcomp/lua"
# the outage: from the silent daemon's start to the answering one's (both log their version)
outage=$(grep 'slurmctld version .* started' "$ctl_log" | tail -2 |
        sed -n 's/^\[\([^]]*\)\].*/\1/p' | while read -r t; do date -d "$t" +%s%3N; done |
        awk 'NR == 1 { a = $1 } NR == 2 { print $1 - a }')
log "silent start to the rolled-back start: ${outage:-?} ms (bound $bound ms; killed: it never logged \"Running as primary controller\")"
[ "$(starts)" = $((s + 2)) ] || die "$(($(starts) - s)) slurmctld starts, want 2 (the silent one, the rollback)"
[ -n "$outage" ] && [ "$outage" -lt $((bound + 15000)) ] ||
        die "the silent slurmctld was given ${outage:-?} ms, bound $bound ms"
[ "$(job_field "$running2" JobState)" = RUNNING ] || die "job $running2 $(job_field "$running2" JobState) after the rollback"
[ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending $(job_field "$pending" JobState) after the rollback"
# refused for 10 minutes (the watcher's reconcile right after the rollback does not try it)…
s=$(starts)
js trigger slurmctld update-status >/dev/null
settle
[ "$(starts)" = "$s" ] || die "the silent candidate was tried again at once"
expect_status slurmctld/0 "slurm.conf refused by slurmctld before"
# …then, a slow machine not being a hang for good, once more with the ceiling (20 s); missed
# again, the candidate is refused from then on (the refusal aged by hand)
touch -d '-11 minutes' "$(root_of slurmctld/0)"/var/lib/slurm/charm/slurm.conf.refused.d/*
js trigger slurmctld update-status >/dev/null
settle
[ "$(starts)" = $((s + 2)) ] || die "$(($(starts) - s)) slurmctld starts at the retry, want 2"
# (the watcher's reconcile after the rollback's restart may come before this look, as above: it
# says the candidate was refused before, with the same reason)
expect_status slurmctld/0 "^blocked (slurmctld refused the new slurm.conf|slurm-conf-parameters: slurm.conf refused by slurmctld before) \\(no answer within 20\\.0 s of its start"
! status_is slurmctld/0 "once more" || die "refused at the ceiling, still to be tried again: $(unit_status slurmctld/0)"
[ "$(job_field "$running2" JobState)" = RUNNING ] || die "job $running2 $(job_field "$running2" JobState) after the retry"
s=$(starts)
js trigger slurmctld update-status >/dev/null
settle
[ "$(starts)" = "$s" ] || die "the silent candidate was tried a third time"
expect_status slurmctld/0 "slurm.conf refused by slurmctld before"
# another input's good change while the silent value stays configured: it applies (live: no
# start at all, since the refused value stays out), the value keeps its own refusal, and nothing
# restarts slurmctld afterwards (attack atk7 F1: the remembered refusal was replaced by the new
# candidate's, and the two took turns through the watcher's runs, no controller for minutes)
log "a good partition-config change while the silent value is refused: applied, no loop"
s=$(starts)
js config cpu partition-config="MaxTime=500" >/dev/null
settle
[[ $(ctl scontrol -o show partition cpu) == *MaxTime=08:20:00* ]] ||
        die "MaxTime=500 not applied: $(ctl scontrol -o show partition cpu)"
expect_status slurmctld/0 "^blocked slurm-conf-parameters: slurm.conf refused by slurmctld before"
! status_is slurmctld/0 'relation with "cpu"' || die "the partition's good change was blamed: $(unit_status slurmctld/0)"
n=$(starts)
sleep 15
[ "$(starts)" = "$n" ] || die "slurmctld started $(($(starts) - n)) times on its own in 15 s: a loop"
log "  slurmctld starts for the change: $((n - s))"
# the value's refusal holds for its settings whatever the partitions (ctlrefused.h): no new file
# with the value in it is tried, and the hook itself applies the change (CI: a test that read the
# partition right after the settle raced the watcher's run that applied it after a rollback)
[ $((n - s)) -eq 0 ] || die "$((n - s)) slurmctld starts for a live partition change, want 0"
js config cpu --reset partition-config >/dev/null
settle

# the cause fixed (the script no longer blocks), the admin asks for the value again (attack atk8
# G4: a refusal for good had no way back but deleting the charm's records by hand)
log "the cause fixed: the action retry-refused applies the value"
js exec slurmctld/0 -- sh -c 'printf "%s\n" "function slurm_jobcomp_log_record(job) return 0 end" >/etc/slurm/jobcomp.lua'
# cpu-0 idle and set DOWN by an admin: its slurmd is not restarted for the new file (its
# registration would put it back in service) until it is up again (charm/common/confpush.h)
ctl scancel "$running"
wait_job_state "$running" CANCELLED 30
until_true 30 "cpu-0 still completing job $running" eval '[[ $(ctl sinfo -h -n cpu-0 -o %T) != comp* ]]'
mark=$(($(wc -l <"$ctl_log") + 1))
ctl scontrol update nodename=cpu-0 state=down reason="admin: bad dimm"
pid0=$(slurmd_pid cpu/0)
s=$(starts)
out=$(js run slurmctld/0 retry-refused)
log "  $(tr '\n' ' ' <<<"$out")"
grep -Eq 'forgotten: "?[1-9]' <<<"$out" || die "retry-refused forgot nothing: $out"
settle
[ "$(running_value JobCompType)" = jobcomp/lua ] || die "jobcomp/lua not running after retry-refused: $(running_value JobCompType)"
[ "$(starts)" = $((s + 1)) ] || die "$(($(starts) - s)) slurmctld starts for retry-refused, want 1"
expect_status slurmctld/0 '^active 2 nodes in 1 partition'
[ "$(job_field "$running2" JobState)" = RUNNING ] || die "job $running2 $(job_field "$running2" JobState) after retry-refused"
[ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending $(job_field "$pending" JobState) after retry-refused"
js trigger cpu update-status >/dev/null
settle
! fetched_on cpu/1 "JobCompType=jobcomp/lua" || die "cpu-1 fetched the new file under its job"
# Slurm itself may end the admin's DOWN: with ReturnToService=2 any registration of a DOWN node
# puts it back in service, and slurmctld's ping asks one node in turn for one every ping interval
# (ping_nodes.c; CI saw it 0.5 s after the DOWN). Then the charm's only duty is to wait for
# that return: its push (the drain with the push's reason) comes after it, never before.
since_down() { sed -n "$mark,\$p" "$ctl_log" | { grep -n "$1" || true; } | head -1 | cut -d: -f1; }
down_held() {
        [ "$(slurmd_pid cpu/0)" = "$pid0" ] || { echo "cpu-0's slurmd restarted while DOWN"; return; }
        ! fetched_on cpu/0 "JobCompType=jobcomp/lua" || { echo "cpu-0 fetched the new file while DOWN"; return; }
        [[ $(ctl scontrol -o show node cpu-0) == *State=DOWN*"Reason=admin: bad dimm"* ]] ||
                echo "cpu-0 no longer DOWN by the admin: $(ctl scontrol -o show node cpu-0)"
}
wrong=$(down_held)
returned=$(since_down 'node cpu-0 returned to service')
if [ -n "$returned" ]; then
        log "  Slurm's own registration returned cpu-0 to service (ReturnToService=2, slurmctld.log"
        log "  line $((mark + returned - 1))): checked instead that the push's drain came after it"
        pushed=$(since_down 'reason set to: slurm.conf push: restarting slurmd (unit cpu/0)')
        [ -z "$pushed" ] || [ "$pushed" -gt "$returned" ] ||
                die "cpu-0's push began (slurmctld.log line $((mark + pushed - 1))) while the node was DOWN"
else
        [ -z "$wrong" ] || die "$wrong"
        expect_status cpu/0 'slurmctld runs a new slurm.conf: slurmd fetches it once node cpu-0 is up$'
        # up again: its watcher sees the state word change and the push follows, with no hook
        ctl scontrol update nodename=cpu-0 state=resume ||
                [ -n "$(since_down 'node cpu-0 returned to service')" ] || die "cpu-0 could not be resumed"
fi
until_true 90 "cpu-0 did not fetch the new slurm.conf once it was up" fetched_on cpu/0 "JobCompType=jobcomp/lua"
until_true 20 "cpu-0 not idle after its push: $(ctl scontrol -o show node cpu-0)" \
        eval '[[ $(ctl scontrol -o show node cpu-0) == *State=IDLE* && $(ctl scontrol -o show node cpu-0) != *DRAIN* ]]'
# (a file neither node fetched before: without JobCompType, with MinJobAge)
js config slurmctld slurm-conf-parameters="SchedulerType=sched/builtin MinJobAge=299" >/dev/null
settle
expect_status slurmctld/0 '^active 2 nodes in 1 partition'
log "a busy node behind for 10 minutes is drained for the file, and restarts once its job ended"
! same_as_ctl cpu/1 || die "cpu-1 has the file slurmctld runs already, under its job"
# (its record of being behind aged by hand: CONFPUSH_DRAIN_AFTER_S is 10 minutes)
behind=$(root_of cpu/1)/var/lib/slurm/charm/slurm-conf-behind
[ -s "$behind" ] || die "cpu/1 keeps no record of being behind the controller's file"
printf '%s %s\n' "$(cut -d' ' -f1 "$behind")" $(($(date +%s) - 601)) >"$behind"
js trigger cpu/1 update-status >/dev/null
settle
[[ $(ctl scontrol -o show node cpu-1) == *DRAIN*"Reason=slurm.conf push: restarting slurmd (unit cpu/1)"* ]] ||
        die "cpu-1 not drained for the push: $(ctl scontrol -o show node cpu-1)"
[ "$(job_field "$running2" JobState)" = RUNNING ] || die "job $running2 $(job_field "$running2" JobState) after the drain"
expect_status cpu/1 'slurmctld runs a new slurm.conf: the node is drained for it, slurmd restarts once its jobs ended$'
! same_as_ctl cpu/1 || die "cpu-1 fetched the file under its job"
ctl scancel "$running2"
wait_job_state "$running2" CANCELLED 30
until_true 60 "cpu-1 did not fetch the slurm.conf slurmctld runs after its job's end" same_as_ctl cpu/1
until_true 20 "cpu-1 not put back after its push: $(ctl scontrol -o show node cpu-1)" \
        eval '[[ $(ctl scontrol -o show node cpu-1) == *State=IDLE* && $(ctl scontrol -o show node cpu-1) != *DRAIN* ]]'
# (cpu-0's wave may come after cpu-1's: then it waits for cpu-1's restart to come back, and
# restarts at its next look, CONFPUSH_WAVE_S later: the canary, confpush.h)
until_true 30 "cpu-0 (idle) does not have the slurm.conf slurmctld runs" same_as_ctl cpu/0
until_true 30 "a node still completing a job" eval '[[ $(ctl sinfo -h -o %T) != *comp* ]]'
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
[ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending: $(job_field "$pending" JobState)"

# a slurmctld that runs but does not answer (a plugin that hangs in the rolled-back file too:
# attack atk7 F7, where the status said active for 5 minutes): the status says so, then not
log "a running slurmctld that does not answer: the status says so"
pid=$(js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld.service)
[ "${pid:-0}" -gt 0 ] || die "no slurmctld main pid"
js exec slurmctld/0 -- kill -STOP "$pid"
js trigger slurmctld update-status >/dev/null
settle || { js exec slurmctld/0 -- kill -CONT "$pid"; die "no settle with slurmctld stopped"; }
got=$(unit_status slurmctld/0)
js exec slurmctld/0 -- kill -CONT "$pid"
log "  status: $got"
# the ping says so and the hook ends there: every later call would wait for the daemon
# (MessageTimeout each on 22.05; for ever on 24.11, on slurmctld's sack socket for a credential)
[ "$got" = "maintenance slurmctld here runs but does not answer (no reply to a ping within 2 s)" ] ||
        die "status with slurmctld silent: $got"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
[ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending: $(job_field "$pending" JobState)"

# a change that would be set live while slurmctld does not answer (review R4: the live update
# waited for the daemon, for ever on 24.11, and every later hook of the unit behind it): the
# hook ends, the change comes by a restart (a stopped daemon gets SIGTERM then SIGCONT from
# systemd and saves its state), and no job is lost
log "a partition change while slurmctld does not answer: applied by a restart, the hook ends"
running3=$(submit -p cpu -o /dev/null --wrap "sleep 300")
wait_job_state "$running3" RUNNING 30
pid=$(js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld.service)
js exec slurmctld/0 -- kill -STOP "$pid"
t0=$(date +%s)
js config cpu partition-config="MaxTime=600" >/dev/null
settle || { js exec slurmctld/0 -- kill -CONT "$pid" || true; die "no settle: a partition change, slurmctld stopped"; }
log "  settled in $(($(date +%s) - t0)) s"
js exec slurmctld/0 -- kill -CONT "$pid" >/dev/null 2>&1 || true
pid2=$(js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld.service)
[ "$pid2" != "$pid" ] || die "slurmctld $pid not restarted for the change"
[[ $(ctl scontrol -o show partition cpu) == *MaxTime=10:00:00* ]] ||
        die "MaxTime=600 not applied: $(ctl scontrol -o show partition cpu)"
[ "$(job_field "$running3" JobState)" = RUNNING ] || die "job $running3: $(job_field "$running3" JobState)"
[ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending: $(job_field "$pending" JobState)"
ctl scancel "$running3"
wait_job_state "$running3" CANCELLED 30
js config cpu --reset partition-config >/dev/null
settle

# 24.11.5's reconfigure can wait for ever after its state save: slurmscriptd_flush() loses the
# reply's wakeup (fixed in 24.11.6; lib/charm/slurmctld/ctlhang.h). A stopped slurmscriptd makes
# slurmctld wait at that very call. 22.05 reconfigures in place (no save, no flush): not tried.
if [ "${CHARM_BASE:-}" = debian@13 ]; then
        ctl_main() { js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld.service; }
        # stop_scriptd: stops the running slurmctld's slurmscriptd, prints its pid (a failure
        # leaves it stopped: the model's cleanup kills the machine's processes, stopped or not)
        stop_scriptd() {
                local sd
                sd=$(js exec slurmctld/0 -- pgrep -P "$(ctl_main)" -x slurmscriptd) || die "no slurmscriptd"
                js exec slurmctld/0 -- kill -STOP "$sd"
                echo "$sd"
        }
        hung_line='slurmctld hung in a reconfigure after saving its state'
        hung_count() { js debug-log --replay | grep -c "$hung_line" || true; }
        log "24.11: an admin's reconfigure stuck after its state save: killed and started again with"
        log "no hook (the sentinel asks the charm to run); the running and pending jobs intact"
        running4=$(submit -p cpu -o /dev/null --wrap "sleep 600")
        wait_job_state "$running4" RUNNING 30
        main=$(ctl_main)
        sd=$(stop_scriptd)
        t0=$(date +%s)
        mark=$(wc -l <"$ctl_log")
        # (it gets no reply: the reply comes from the new process)
        ctl timeout 5 scontrol reconfigure >/dev/null 2>&1 || true
        until_true 10 "no state save after the reconfigure" \
                eval 'sed -n "$mark,\$p" "$ctl_log" | grep -q "Saving all slurm state"'
        ! sed -n "$mark,\$p" "$ctl_log" | grep -q 'Attempting to reconfigure' || die "the reconfigure went on"
        # before CTL_HANG_QUIET_S: only silent, nothing killed
        js trigger slurmctld update-status >/dev/null
        settle
        [ "$(ctl_main)" = "$main" ] || die "slurmctld killed before the log was quiet for 30 s"
        expect_status slurmctld/0 '^maintenance slurmctld here runs but does not answer'
        # (the sentinel's look: the log quiet for 30 s after the save; a minute's slack)
        until_true 90 "the hung reconfigure was not cured with no hook (debug-log: \"$hung_line\")" \
                eval '[ "$(hung_count)" -gt 0 ]'
        until_true 30 "slurmctld not answering after the cure" eval "ctl scontrol ping >/dev/null 2>&1"
        [ "$(ctl_main)" != "$main" ] || die "slurmctld $main still runs"
        log "  controller back $(($(date +%s) - t0)) s after the reconfigure"
        [ "$(job_field "$running4" JobState)" = RUNNING ] || die "job $running4: $(job_field "$running4" JobState)"
        [ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending: $(job_field "$pending" JobState)"
        until_true 30 "slurmctld/0 not active after the cure: $(unit_status slurmctld/0)" \
                eval 'unit_status slurmctld/0 | grep -q "^active 2 nodes in 1 partition"'
        ctl scancel "$running4"
        wait_job_state "$running4" CANCELLED 30
        until_true 30 "a node still completing a job" eval '[[ $(ctl sinfo -h -o %T) != *comp* ]]'

        log "24.11: the charm's own push stuck the same way: cured between hooks (the push's follower)"
        push=$(root_of slurmctld/0)/var/lib/slurm/charm/slurm.conf.push-pending
        main=$(ctl_main)
        sd=$(stop_scriptd)
        h=$(hung_count)
        t0=$(date +%s)
        mark=$(wc -l <"$ctl_log")
        # the push a restart leaves (ctlapply.h), no job holding a node: slurmctld's watcher runs it
        js exec slurmctld/0 -- touch /var/lib/slurm/charm/slurm.conf.push-pending
        until_true 60 "the push's reconfigure did not come" \
                eval 'sed -n "$mark,\$p" "$ctl_log" | grep -q "Saving all slurm state"'
        until_true 120 "the hung reconfigure was not cured between hooks" eval '[ "$(hung_count)" -gt "$h" ]'
        until_true 30 "slurmctld not answering after the cure" eval "ctl scontrol ping >/dev/null 2>&1"
        [ "$(ctl_main)" != "$main" ] || die "slurmctld $main still runs"
        until_true 60 "the push did not end after the cure" eval '[ ! -e "$push" ]'
        log "  push done $(($(date +%s) - t0)) s after it was asked"
        [ "$(job_field "$pending" JobState)" = PENDING ] || die "job $pending: $(job_field "$pending" JobState)"
fi
log "ok"
