#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Accounting end to end on real daemons: slurmctld + slurmd + slurmdbd (its own machine) on a
# real MariaDB (the mariadb test charm, tests/charms/mariadb, on a third machine).
#  1. integrate (first with slurmdbd out of the controller's reach and no TRES in its state
#     files: the new hosts wait, no restart, said in the status, no refusal remembered, a
#     running job kept; applied by the service watcher's run, no hook, once slurmdbd is in
#     reach): the controller
#     gets AccountingStorageType/Host/Port, the cluster registers
#     itself, sacct shows a finished job; StoragePass is in slurmdbd.conf (0600 slurm) only; the
#     database password rotated by the provider reaches slurmdbd, jobs across it all in sacct; the
#     database stopped: slurmdbd's status says so; an accounting action while it restarts
#     succeeds (the action waits it out).
#  2. kill -9 of slurmdbd: systemd restarts it (the charm's drop-in), the unit's status follows
#     it (its service watcher), the job that ended meanwhile is in sacct. slurmdbd stopped
#     (SIGSTOP): the unit's status says it is stopped (blocked) with no hook (its watcher sees
#     the stop; figure printed), the exporter says slurm_dbd_up 0, a job runs meanwhile and is
#     in sacct after SIGCONT, when the status is back, no hook either. Frozen in a freezer
#     cgroup (it runs and answers nothing): blocked "runs but does not answer" with no
#     hook (wedgefollow.h), active again after the thaw, the job meanwhile in sacct. Outage: the slurmdbd
#     machine's link down while jobs run and more are submitted and finish; slurmctld keeps
#     scheduling, the controller's status says slurmdbd is not answering and how many records
#     slurmctld holds, and its metrics exporter says slurm_dbd_up 0 (1 before and after); link
#     up: sacct shows every job (counts before/after, none lost).
#  3. bad credentials from the database side: slurmdbd blocked with the database's own reason.
#  4. a second slurmdbd unit: the controllers get AccountingStorageBackupHost; the primary's
#     primary's slurmdbd stopped with its service watcher (which would start it again at once),
#     the backup serves: jobs that ran meanwhile are in sacct. (A primary *machine* lost is
#     not covered: with its address unreachable, by a prohibit route or its link down, the
#     backup slurmdbd took control only after 123 s on 22.05, and 3 jobs that ended meanwhile
#     were still not in sacct 300 s later: HACKING.md, accounting.)
#  5. the accounting actions (libslurmdb): an account, a user in it, a QOS; seen by sacctmgr on
#     the controller; a duplicate, a missing account and a bad name refused, nothing changed.
#     accounting-enforce (charm/slurmctld/enforce.h): a bad value refused with nothing changed;
#     associations enforced: a user without one is refused at submission, the job he submitted
#     before waits (counted in the status) and runs once he is added, a running job goes through
#     the restart; slurm-conf-parameters' AccountingStorageEnforce applies alone, the option
#     comes first beside it.
#  6. the relation removed: accounting off again in slurm.conf; accounting-enforce set then
#     waits, and is applied after the first start with the relation back.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
DBD_CHARM=${DBD_CHARM:-$TOP_BUILDDIR/slurmdbd.charm}
MARIADB=${TOP_SRCDIR:?}/tests/charms/mariadb
# the programs of the machines' base (this host's, or the CHARM_BASE tree's)
for prog in /usr/sbin/slurmdbd /usr/sbin/mariadbd /usr/bin/mariadb-install-db; do
        [ -x "$BASE_ROOT$prog" ] || skip "$BASE_ROOT$prog missing"
done
[ -f "$DBD_CHARM" ] || die "no slurmdbd charm at $DBD_CHARM"

log "deploy slurmctld, slurmd, slurmdbd, mariadb; integrate"
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" >/dev/null
js deploy "$DBD_CHARM" >/dev/null
js deploy "$MARIADB" >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
expect_status slurmdbd/0 '^blocked no database'
js integrate slurmdbd mariadb >/dev/null
settle 180
expect_status slurmdbd/0 '^blocked no controller: integrate with slurmctld$'
# accounting turned on while slurmctld cannot reach slurmdbd (a prohibit route on the controller
# machine), on a controller whose state files hold no TRES (those only a clean stop writes taken
# away, and their writes made to fail): a start with slurmdbd out of reach would exit (22.05: "we
# have no TRES from it … the database is down") or wait for slurmdbd without answering anyone
# (24.11: "Retrying initial connection to slurmdbd", every 2 s, for ever). The charm takes the
# new slurmdbd hosts only once one answers: no restart meanwhile (the same slurmctld process, a
# running job on), a note in the status, never a refusal remembered (the unit was "blocked:
# Slurm refuses even the last good settings" for good: found on 22.05 when a first start met
# slurmdbd before its database, and on 24.11 after a 20 s wait); once slurmdbd is in reach, the
# service watcher notices within seconds and its run applies accounting (acctfollow.h)
jrun=$(submit --wrap "sleep 300")
wait_job_state "$jrun" RUNNING 60
sdir=$(running_value StateSaveLocation)
dbd_addr=$(js exec slurmdbd/0 -- ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
[ -n "$sdir" ] && [ -n "$dbd_addr" ] || die "no StateSaveLocation ($sdir) or slurmdbd address ($dbd_addr)"
ctl sh -c "cd $sdir && rm -f last_tres last_tres.old assoc_mgr_state assoc_mgr_state.old &&
        mkdir last_tres.new assoc_mgr_state.new"
ctl ip route add prohibit "$dbd_addr/32"
ctl_pid=$(ctl systemctl show -P MainPID slurmctld.service)
js integrate slurmctld slurmdbd >/dev/null
settle 240
expect_status slurmdbd/0 '^active slurmdbd primary: database slurm_acct_db on [0-9.]+:3306$'
expect_status slurmctld/0 "^active .*accounting waits: slurmdbd $dbd_addr:6819 does not answer here, and slurmctld cannot start with it until it does; no accounting until then"
[ "$(ctl systemctl show -P MainPID slurmctld.service)" = "$ctl_pid" ] ||
        die "slurmctld restarted for a slurmdbd it cannot reach"
ctl grep -q '^AccountingStorageType=accounting_storage/slurmdbd' /etc/slurm/slurm.conf &&
        die "slurm.conf has accounting that slurmctld cannot start with"
ctl sh -c "ls /var/lib/slurm/charm/slurm.conf.refused.d 2>/dev/null" | grep -q . &&
        die "a refusal remembered: $(ctl sh -c "head -qn1 /var/lib/slurm/charm/slurm.conf.refused.d/*")"
[ "$(job_field "$jrun" JobState)" = RUNNING ] || die "job $jrun not running: $(job_field "$jrun" JobState)"
# slurmdbd in reach again: slurmctld's service watcher sees it answer (acctfollow.h) and runs
# the reconcile, which applies accounting: no hook
ctl ip route del prohibit "$dbd_addr/32"
ctl sh -c "cd $sdir && rmdir last_tres.new assoc_mgr_state.new"
t0=$(date +%s%N)
until_true 60 "accounting not on within 60 s of slurmdbd in reach, with no hook" \
        ctl grep -q '^AccountingStorageType=accounting_storage/slurmdbd' /etc/slurm/slurm.conf
until_true 60 "slurmctld/0 still waits for slurmdbd: $(unit_status slurmctld/0)" eval '! status_is slurmctld/0 "accounting waits"'
log "figure: slurmdbd in reach -> accounting on, no hook: $((($(date +%s%N) - t0) / 1000000)) ms"
ctl grep -q 'accounting waits and can be taken now' \
        /var/log/juju-sim/juju-service-watcher-slurmctld.service.log ||
        die "accounting came on, but not by the service watcher's run"
settle 240
expect_status slurmctld/0 '^active '
! status_is slurmctld/0 'accounting waits' || die "slurmctld/0 still waits for slurmdbd: $(unit_status slurmctld/0)"
ctl grep -q '^AccountingStorageType=accounting_storage/slurmdbd' /etc/slurm/slurm.conf ||
        die "no accounting in slurm.conf once slurmdbd answers"
[ "$(job_field "$jrun" JobState)" = RUNNING ] || die "job $jrun not running after accounting came on: $(job_field "$jrun" JobState)"
ctl scancel "$jrun"
# an action while the database restarts (slurmdbd answers, and cannot reach it: seen at once
# after the relations settle together, when the test charm's MariaDB restarts on its address):
# the action waits it out instead of failing with libslurm's "Unexpected message received"
js exec mariadb/0 -- systemctl stop juju-mariadb.service
# the unit's status says so at its next hook (slurmdbd itself keeps serving)
js trigger slurmdbd/0 update-status >/dev/null
settle
expect_status slurmdbd/0 '^active slurmdbd primary: database slurm_acct_db on [0-9.]+:3306 not answering \(accounting requests fail until it does\)$'
t0=$(date +%s%N)
js run slurmdbd/0 account-add name=early >"$T/out" 2>&1 &
add=$!
sleep 3
js exec mariadb/0 -- systemctl start juju-mariadb.service
wait "$add" || die "account-add while the database restarted: $(cat "$T/out")"
log "figure: account-add with the database down its first 3 s: $((($(date +%s%N) - t0) / 1000000)) ms"
js trigger slurmdbd/0 update-status >/dev/null
settle
expect_status slurmdbd/0 '^active slurmdbd primary: database slurm_acct_db on [0-9.]+:3306$'
js run slurmdbd/0 account-remove name=early >"$T/out" || die "account-remove: $(cat "$T/out")"
! js run slurmdbd/0 account-remove name=early >"$T/out" 2>&1 || die "a second account-remove of early succeeded"
grep -q 'account early does not exist' "$T/out" || die "a second account-remove: $(cat "$T/out")"
! grep -qE '(^|: )error: ' "$T/out" || die "libslurm's stderr in a refused action's output: $(cat "$T/out")"

# a stalled database (MariaDB stopped with SIGSTOP: the kernel still accepts connects, nothing
# answers, slurmdbd waits on it without a word): the status says so at the next hook, and an
# action fails within its bound with one clear message (libslurm's stderr kept out) instead of
# waiting as long as the stall
dbpid=$(js exec mariadb/0 -- systemctl show -P MainPID juju-mariadb.service)
[ "${dbpid:-0}" -gt 0 ] || die "no MariaDB process"
js exec mariadb/0 -- kill -STOP "$dbpid"
t0=$(date +%s%N)
if js run slurmdbd/0 account-add name=stalled >"$T/out" 2>&1; then
        js exec mariadb/0 -- kill -CONT "$dbpid"
        die "account-add with the database stalled succeeded: $(cat "$T/out")"
fi
ms=$((($(date +%s%N) - t0) / 1000000))
js trigger slurmdbd/0 update-status >/dev/null
settle
st=$(unit_status slurmdbd/0)
js exec mariadb/0 -- kill -CONT "$dbpid"
log "figure: account-add with the database stalled failed after $ms ms: $(tr '\n' ' ' <"$T/out")"
grep -q 'slurmdbd did not answer within 25.0 s: its database does not answer either' "$T/out" ||
        die "account-add with the database stalled: $(cat "$T/out")"
[ "$ms" -lt 60000 ] || die "account-add with the database stalled took $ms ms"
! grep -qE '(^|: )error: ' "$T/out" || die "libslurm's stderr in the action's output: $(cat "$T/out")"
grep -qE '^active slurmdbd primary: database slurm_acct_db on [0-9.]+:3306 not answering' <<<"$st" ||
        die "slurmdbd/0's status with the database stalled: $st"
# once it answers, the held request may have been committed: the admin's next look tells
js run slurmdbd/0 accounting-show >"$T/out" || die "accounting-show after the stall: $(cat "$T/out")"
if grep -qw stalled "$T/out"; then
        js run slurmdbd/0 account-remove name=stalled >"$T/out" || die "account-remove stalled: $(cat "$T/out")"
fi
js trigger slurmdbd/0 update-status >/dev/null
settle
expect_status slurmdbd/0 '^active slurmdbd primary: database slurm_acct_db on [0-9.]+:3306$'

dbd_addr=$(js exec slurmdbd/0 -- unit-get private-address 2>/dev/null || true)
conf=$(js exec slurmctld/0 -- cat /etc/slurm/slurm.conf)
grep -qx 'AccountingStorageType=accounting_storage/slurmdbd' <<<"$conf" || die "no AccountingStorageType in slurm.conf"
grep -qE '^AccountingStorageHost=[0-9.]+$' <<<"$conf" || die "no AccountingStorageHost in slurm.conf"
grep -qx 'AccountingStoragePort=6819' <<<"$conf" || die "no AccountingStoragePort in slurm.conf"
! grep -q '^AccountingStorageBackupHost' <<<"$conf" || die "a backup host with one slurmdbd unit"

# StoragePass: in slurmdbd.conf (0600, slurm) and nowhere else the test can look
dbd_root=$(root_of slurmdbd/0)
st=$(stat -c '%a %U' "$dbd_root/etc/slurm/slurmdbd.conf")
[ "$st" = "600 slurm" ] || die "slurmdbd.conf is $st, want 600 slurm"
pass=$(sed -n 's/^StoragePass=//p' "$dbd_root/etc/slurm/slurmdbd.conf")
[ ${#pass} -ge 8 ] || die "no StoragePass in slurmdbd.conf"
if grep -rqF -- "$pass" "$MODEL/state" "$dbd_root/var/log" 2>/dev/null; then
        die "the database password is in the model's state or a log"
fi
for p in /proc/[0-9]*; do
        if { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF -- "$pass"; then
                die "the database password is in the argv of $(tr '\0' ' ' <"$p/cmdline")"
        fi
done

# the cluster registered itself in the database
cluster=$(sed -n 's/^ClusterName=//p' <<<"$conf")
wait_for_cluster() {
        local i
        for ((i = 0; i < 60; i++)); do
                js exec slurmctld/0 -- sacctmgr -nP show cluster format=cluster 2>/dev/null | grep -qx "$cluster" && return 0
                sleep 1
        done
        return 1
}
wait_for_cluster || die "cluster $cluster not registered in the database"

# sacct shows a finished job
j=$(submit -o /dev/null --wrap 'true')
wait_job_state "$j" COMPLETED 60 || die "job $j did not complete"
seen() { # seen ID…: every job id is in sacct (allocations, -X)
        local out id
        out=$(js exec slurmctld/0 -- sacct -nP -X -a -o jobid,state -S now-1hours 2>/dev/null)
        for id in "$@"; do
                grep -q "^$id|" <<<"$out" || return 1
        done
}
ok=0
for ((i = 0; i < 60; i++)); do seen "$j" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "sacct does not show job $j"
log "sacct shows job $j"

# the database password rotated by the provider (the mariadb test charm's password-serial: the
# user altered first, then a new revision of the credentials secret): slurmdbd takes the new
# one at its secret-changed, the old one logs in nowhere, and every job that ran across the
# rotation is in sacct (slurmctld queues its records while slurmdbd restarts)
log "the database password rotated: slurmdbd takes it, no record lost"
dbd_conf=$dbd_root/etc/slurm/slurmdbd.conf
db_user=$(sed -n 's/^StorageUser=//p' "$dbd_conf")
db_host=$(sed -n 's/^StorageHost=//p' "$dbd_conf")
dbd_log=$dbd_root/var/log/slurm/slurmdbd.log
log_from=$(stat -c %s "$dbd_log")
rot_ids=()
for k in 1 2 3 4; do rot_ids+=("$(submit -o /dev/null --wrap "sleep $k")"); done
rot_long=$(submit -o /dev/null --wrap 'sleep 15')
t0=$(date +%s%N)
js config mariadb password-serial=1
settle 120
log "figure: database password rotated -> slurmdbd settled on the new one: $((($(date +%s%N) - t0) / 1000000)) ms"
new_pass=$(sed -n 's/^StoragePass=//p' "$dbd_conf")
[ ${#new_pass} -ge 8 ] && [ "$new_pass" != "$pass" ] || die "slurmdbd.conf kept the old StoragePass after the rotation"
expect_status slurmdbd/0 '^active slurmdbd primary: database slurm_acct_db on [0-9.]+:3306$'
# the database's own word on both passwords (through MYSQL_PWD: no password in argv)
js exec mariadb/0 -- env MYSQL_PWD="$new_pass" mariadb -h "$db_host" -u "$db_user" -e 'SELECT 1' >/dev/null ||
        die "the new password does not log in"
! js exec mariadb/0 -- env MYSQL_PWD="$pass" mariadb -h "$db_host" -u "$db_user" -e 'SELECT 1' >"$T/out" 2>&1 ||
        die "the old password still logs in after the rotation"
grep -q 'ERROR 1045 .*Access denied' "$T/out" || die "the old password's login failed otherwise: $(cat "$T/out")"
for id in "${rot_ids[@]}" "$rot_long"; do wait_job_state "$id" COMPLETED 90; done
ok=0
for ((i = 0; i < 60; i++)); do seen "${rot_ids[@]}" "$rot_long" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "jobs that ran across the password rotation missing in sacct: $(ctl sacct -nP -X -a -o jobid,state -S now-1hours)"
denied=$(tail -c +$((log_from + 1)) "$dbd_log" | grep -c 'Access denied' || true)
log "figure: password rotation: ${#rot_ids[@]} + 1 jobs across it all in sacct; slurmdbd logged $denied 'Access denied' meanwhile"
pass=$new_pass
# metric UNIT SAMPLE: the sample's value in the unit's own exporter (metrics-port 9092), empty
# when absent
metric() {
        js exec "$1" -- bash -c 'exec 3<>/dev/tcp/127.0.0.1/9092 || exit 7
printf "GET /metrics HTTP/1.0\r\n\r\n" >&3
cat <&3' 2>/dev/null | awk -v s="$2" '$1 == s { print $2; exit }'
}
until_true 30 "the exporter does not say slurmdbd answers" eval '[ "$(metric slurmctld/0 slurm_dbd_up)" = 1 ]'
log "the exporter: slurm_dbd_up 1"

log "slurmdbd runs as SlurmUser from its start: a link SlurmUser puts in its log directory hands it no root file"
# (the bait in /etc/default, which is each machine's own: the host's /etc is not written)
pid=$(js exec slurmdbd/0 -- systemctl show -P MainPID slurmdbd.service)
[ "$(js exec slurmdbd/0 -- stat -c %U "/proc/$pid")" = slurm ] ||
        die "slurmdbd (pid $pid) runs as $(js exec slurmdbd/0 -- stat -c %U "/proc/$pid")"
js exec slurmdbd/0 -- sh -c 'umask 077; printf "bait\n" >/etc/default/charm-bait'
js exec slurmdbd/0 -- runuser -u slurm -- sh -c \
        'mv /var/log/slurm/slurmdbd.log /var/log/slurm/slurmdbd.log.kept && ln -s /etc/default/charm-bait /var/log/slurm/slurmdbd.log'
js exec slurmdbd/0 -- systemctl restart slurmdbd.service || true
sleep 3
bait=$(js exec slurmdbd/0 -- stat -c '%U %a %s' /etc/default/charm-bait)
[ "$bait" = "root 600 5" ] || die "/etc/default/charm-bait, linked as slurmdbd.log: $bait (want root 600 5): $(js exec slurmdbd/0 -- head -c 300 /etc/default/charm-bait)"
js exec slurmdbd/0 -- runuser -u slurm -- sh -c \
        'rm /var/log/slurm/slurmdbd.log && mv /var/log/slurm/slurmdbd.log.kept /var/log/slurm/slurmdbd.log'
js exec slurmdbd/0 -- rm -f /etc/default/charm-bait
js exec slurmdbd/0 -- systemctl reset-failed slurmdbd.service || true
js exec slurmdbd/0 -- systemctl restart slurmdbd.service
settle 120
expect_status slurmdbd/0 '^active slurmdbd primary'
log "the linked root file untouched; slurmdbd serves again"

log "kill -9 of slurmdbd: restarted by systemd, the status follows, no record lost"
running=$(submit -o /dev/null --wrap 'sleep 3')
wait_job_state "$running" RUNNING 30 || die "job $running did not start"
[ "$(js exec slurmdbd/0 -- systemctl is-active juju-service-watcher-slurmdbd.service)" = active ] ||
        die "no service watcher follows slurmdbd on slurmdbd/0"
[ "$(js exec slurmdbd/0 -- systemctl show -P Restart slurmdbd.service)" = on-failure ] ||
        die "slurmdbd.service is not restarted by systemd on failure"
pid0=$(js exec slurmdbd/0 -- systemctl show -P MainPID slurmdbd.service)
t0=$(date +%s%N)
js exec slurmdbd/0 -- systemctl kill -s KILL slurmdbd.service
ok=0
for ((i = 0; i < 100; i++)); do
        # (systemctl show prints properties in its own order: one at a time)
        act=$(js exec slurmdbd/0 -- systemctl show -P ActiveState slurmdbd.service)
        pid=$(js exec slurmdbd/0 -- systemctl show -P MainPID slurmdbd.service)
        nr=$(js exec slurmdbd/0 -- systemctl show -P NRestarts slurmdbd.service)
        st="$act pid $pid NRestarts $nr"
        [ "$act" = active ] && [ "$pid" != "$pid0" ] && [ "$pid" != 0 ] && [ "$nr" -ge 1 ] && { ok=1; break; }
        sleep 0.2
done
[ $ok = 1 ] || die "slurmdbd not restarted after kill -9: $st"
log "figure: slurmdbd killed -> active again: $((($(date +%s%N) - t0) / 1000000)) ms (NRestarts $nr)"
settle 120
expect_status slurmdbd/0 '^active slurmdbd primary'
wait_job_state "$running" COMPLETED 60 || die "job $running did not complete"
ok=0
for ((i = 0; i < 60; i++)); do seen "$running" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "job $running, which ran across the kill, is not in sacct"

log "slurmdbd stopped (SIGSTOP; systemd sees it running): the unit says it does not answer, jobs run on, their records arrive after"
# a paused VM or a frozen cgroup: it takes connections into its backlog and answers none
# (issue 25, F3: the status said "active … primary" and nothing noticed)
dpid=$(js exec slurmdbd/0 -- systemctl show -P MainPID slurmdbd.service)
[ "${dpid:-0}" -gt 0 ] || die "no slurmdbd process"
t_stop=$(date +%s%N)
js exec slurmdbd/0 -- kill -STOP "$dpid"
frozen=$(submit -o /dev/null --wrap 'sleep 1')
# no hook: slurmdbd's service watcher sees the stop (charm/common/stopfollow.h: a look every 2 s,
# then the reconcile's probe, 5 s) and runs the reconcile, which says so
for ((i = 0; i < 200; i++)); do
        [[ $(unit_status slurmdbd/0) =~ ^blocked\ slurmdbd\ is\ stopped ]] && break
        sleep 0.2
done
log "figure: slurmdbd stopped -> slurmdbd/0 status: $((($(date +%s%N) - t_stop) / 1000000)) ms, no hook"
st=$(unit_status slurmdbd/0)
for ((i = 0; i < 30; i++)); do
        up=$(metric slurmctld/0 slurm_dbd_up)
        [ "$up" = 0 ] && break
        sleep 1
done
done_ok=0
wait_job_state "$frozen" COMPLETED 60 && done_ok=1
t_cont=$(date +%s%N)
js exec slurmdbd/0 -- kill -CONT "$dpid"
log "slurmdbd/0 stopped: \"$st\"; the exporter's slurm_dbd_up ${up:-(none)}"
[[ $st =~ ^blocked\ slurmdbd\ is\ stopped\ \(process\ $dpid\ in\ state\ T ]] || die "slurmdbd/0 with slurmdbd stopped: \"$st\""
[ "$up" = 0 ] || die "the exporter said slurm_dbd_up ${up:-(none)} with slurmdbd stopped"
[ $done_ok = 1 ] || die "job $frozen did not complete while slurmdbd was stopped"
# SIGCONT: the watcher sees it run again and the reconcile says so, no hook either
back_said() { [[ $(unit_status slurmdbd/0) =~ ^active\ slurmdbd\ primary:\ database\ slurm_acct_db\ on\ [0-9.]+:3306$ ]]; }
until_true 40 "slurmdbd/0 not active again after SIGCONT" back_said
log "figure: slurmdbd continued -> slurmdbd/0 status: $((($(date +%s%N) - t_cont) / 1000000)) ms, no hook"
ok=0
for ((i = 0; i < 60; i++)); do seen "$frozen" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "job $frozen, which ran while slurmdbd was stopped, is not in sacct"

log "slurmdbd frozen (a v1 freezer cgroup of its own: its threads read D, not T): the unit says it does not answer, no hook"
# a daemon that runs and answers nothing (a deadlock looks the same): nothing systemd or /proc
# shows as stopped; slurmdbd's service watcher asks it every 30 s (charm/slurmdbd/wedgefollow.h).
# The machines run systemd on cgroup v1 (this host's), where `systemctl freeze` is not supported:
# the daemon is moved into a freezer cgroup of the test's, in the machine's own v1 hierarchy
fz=/sys/fs/cgroup/freezer/charm-test-wedge
freeze() { js exec slurmdbd/0 -- sh -c "echo $1 >$fz/freezer.state"; }
js exec slurmdbd/0 -- sh -c "mkdir -p $fz && echo \$(systemctl show -P MainPID slurmdbd.service) >$fz/cgroup.procs"
freeze FROZEN
# (juju-sim thaws what it destroys; a kept model (KEEP) or a failed step's hands-on look wants it running)
trap 'rc=$?; trap - ERR; set +e; freeze THAWED; (exit $rc); charm_cleanup' EXIT
until_true 10 "slurmdbd not frozen: $(js exec slurmdbd/0 -- cat "$fz/freezer.state")" \
        eval '[ "$(js exec slurmdbd/0 -- cat "$fz/freezer.state")" = FROZEN ]'
t_fr=$(date +%s%N)
iced=$(submit -o /dev/null --wrap 'sleep 1')
silent_said() { [[ $(unit_status slurmdbd/0) =~ ^blocked\ slurmdbd\ runs\ but\ does\ not\ answer ]]; }
until_true 120 "slurmdbd/0 does not say its frozen slurmdbd is silent" silent_said
log "figure: slurmdbd frozen -> slurmdbd/0 status: $((($(date +%s%N) - t_fr) / 1000000)) ms, no hook"
t_th=$(date +%s%N)
freeze THAWED
trap charm_cleanup EXIT
until_true 90 "slurmdbd/0 not active again after the thaw: $(unit_status slurmdbd/0)" back_said
log "figure: slurmdbd thawed -> slurmdbd/0 status: $((($(date +%s%N) - t_th) / 1000000)) ms, no hook"
js exec slurmdbd/0 -- grep -q 'slurmdbd.service runs but does not answer' \
        /var/log/juju-sim/juju-service-watcher-slurmdbd.service.log || die "the status changed, but not by the watcher's run"
wait_job_state "$iced" COMPLETED 60 || die "job $iced did not complete"
ok=0
for ((i = 0; i < 60; i++)); do seen "$iced" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "job $iced, which ran while slurmdbd was frozen, is not in sacct"

log "outage: the slurmdbd machine's link down while jobs run and more are submitted"
running=$(submit -o /dev/null --wrap 'sleep 8')
wait_job_state "$running" RUNNING 30 || die "job $running did not start"
js exec slurmdbd/0 -- ip link set eth0 down
ids=("$running")
for n in 1 2 3 4 5; do
        ids+=("$(submit -o /dev/null --wrap 'sleep 1')")
done
for id in "${ids[@]}"; do
        wait_job_state "$id" COMPLETED 90 || die "job $id did not complete while slurmdbd was down"
done
log "${#ids[@]} jobs ran and completed with slurmdbd down"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '; accounting: slurmdbd [^ ]+:6819 not answering, [0-9]+ records? held by slurmctld'
log "controller: $(unit_status slurmctld/0)"
until_true 30 "the exporter does not say slurmdbd is away" eval '[ "$(metric slurmctld/0 slurm_dbd_up)" = 0 ]'
log "the exporter: slurm_dbd_up 0, slurm_dbd_agent_queue_size $(metric slurmctld/0 slurm_dbd_agent_queue_size)"
js exec slurmdbd/0 -- ip link set eth0 up
ok=0
for ((i = 0; i < 120; i++)); do seen "${ids[@]}" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "after the outage sacct lacks some of ${ids[*]}"
total=$(js exec slurmctld/0 -- sacct -nP -X -a -o jobid -S now-1hours | grep -c '^[0-9]')
log "after the outage sacct shows all ${#ids[@]} jobs of it ($total in all)"
[ "$total" -ge $((${#ids[@]} + 1)) ] || die "sacct shows $total jobs, want at least $((${#ids[@]} + 1))"
until_true 30 "the exporter does not say slurmdbd is back" eval '[ "$(metric slurmctld/0 slurm_dbd_up)" = 1 ]'

log "bad credentials from the database side: slurmdbd blocked, with the database's reason"
js config mariadb break-password=true >/dev/null
settle 180
expect_status slurmdbd/0 '^blocked slurmdbd does not serve: .*[Aa]ccess denied'
js config mariadb break-password=false >/dev/null
settle 180
expect_status slurmdbd/0 '^active slurmdbd primary'

log "a second slurmdbd unit: the backup serves when the primary is gone"
js add-unit slurmdbd >/dev/null
settle 240
expect_status slurmdbd/1 '^active slurmdbd backup: database slurm_acct_db on '
# (the slurmdbd leader publishes the two hosts when its own restart for DbdBackupHost is done: a
# run the service watcher may hold past the settle, 30 s once for a slow slurmdbd stop)
backup_host() { js exec slurmctld/0 -- sed -n 's/^AccountingStorageBackupHost=//p' /etc/slurm/slurm.conf; }
until_true 60 "no AccountingStorageBackupHost with two slurmdbd units" eval '[ -n "$(backup_host)" ]'
backup=$(backup_host)
[ "$backup" = "$(js exec slurmdbd/1 -- unit-get private-address)" ] || die "AccountingStorageBackupHost=$backup is not slurmdbd/1's address"
grep -q "^DbdBackupHost=" "$(root_of slurmdbd/1)/etc/slurm/slurmdbd.conf" || die "no DbdBackupHost in slurmdbd/1's slurmdbd.conf"
# an action on the BACKUP unit while the database restarts: the request goes to the primary's
# slurmdbd, whose log this unit cannot read, so it asks the database itself (a login) and waits
# it out (a helper's attack, stop 62: it failed at once, "Connection refused")
js exec mariadb/0 -- systemctl stop juju-mariadb.service
js run slurmdbd/1 account-add name=backupside >"$T/out" 2>&1 &
add=$!
sleep 3
js exec mariadb/0 -- systemctl start juju-mariadb.service
wait "$add" || die "account-add on the backup unit while the database restarted: $(cat "$T/out")"
js run slurmdbd/1 account-remove name=backupside >"$T/out" || die "account-remove on the backup unit: $(cat "$T/out")"
# the admin's way to keep slurmdbd down (a database backup): the unit paused, its daemon stopped
out=$(js run slurmdbd/0 pause reason="db backup")
grep -q 'paused: "true"' <<<"$out" || die "slurmdbd pause: $out"
js exec slurmdbd/0 -- systemctl stop slurmdbd.service
t0=$(date +%s%N)
ids=()
for n in 1 2 3; do
        ids+=("$(submit -o /dev/null --wrap 'true')")
done
for id in "${ids[@]}"; do
        wait_job_state "$id" COMPLETED 60
done
ok=0
for ((i = 0; i < 120; i++)); do seen "${ids[@]}" && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || die "with the primary slurmdbd stopped, sacct lacks some of ${ids[*]}"
log "figure: primary stopped: the backup recorded all ${#ids[@]} jobs, in sacct after $((($(date +%s%N) - t0) / 1000000)) ms"
grep -q "Taking Control" "$(root_of slurmdbd/1)/var/log/slurm/slurmdbd.log" || die "the backup slurmdbd never took control"
# paused: neither its service watcher nor a hook started it again, and the status says so
js trigger slurmdbd/0 update-status >/dev/null
settle
[ "$(js exec slurmdbd/0 -- systemctl is-active slurmdbd.service || true)" != active ] ||
        die "slurmdbd started again while its unit was paused"
expect_status slurmdbd/0 '^maintenance paused by admin: db backup \(resume: juju run slurmdbd/0 resume\); slurmdbd (inactive|failed \(Result=[a-z-]+\))$'
if js run slurmdbd/0 pause reason="$(printf 'a\tb')" >/dev/null 2>&1; then die "a pause reason with a tab was taken"; fi
expect_status slurmdbd/0 '^maintenance paused by admin: db backup '
out=$(js run slurmdbd/0 resume)
grep -q 'was-paused: "true"' <<<"$out" || die "slurmdbd resume: $out"
[ "$(js exec slurmdbd/0 -- systemctl is-active slurmdbd.service || true)" = active ] || die "resume did not start slurmdbd"
# the backup hands control back (an action during the change-over fails cleanly: try again)
ok=0
for ((i = 0; i < 120; i++)); do
        grep -q "Backup has given up control" "$(root_of slurmdbd/1)/var/log/slurm/slurmdbd.log" && { ok=1; break; }
        sleep 0.5
done
[ $ok = 1 ] || die "the backup slurmdbd did not give control back to the primary"

log "accounting actions: account-add, user-add, qos-add, accounting-show"
js run slurmdbd/0 account-add name=physics description="Physics dept" >"$T/out" || die "account-add: $(cat "$T/out")"
js run slurmdbd/0 user-add name=alice account=physics >"$T/out" || die "user-add: $(cat "$T/out")"
js run slurmdbd/0 qos-add name=high priority=100 >"$T/out" || die "qos-add: $(cat "$T/out")"
assoc=$(js exec slurmctld/0 -- sacctmgr -nP show assoc format=account,user)
grep -qx 'physics|alice' <<<"$assoc" || die "sacctmgr on the controller does not show alice in physics: $assoc"
grep -qx 'physics|' <<<"$assoc" || die "no account association for physics: $assoc"
js exec slurmctld/0 -- sacctmgr -nP show qos format=name,priority | grep -qx 'high|100' || die "sacctmgr does not show QOS high with priority 100"
js run slurmdbd/1 accounting-show --format=json >"$T/show.json" || die "accounting-show: $(cat "$T/show.json")"
show=$(jq -r '.[].results | "\(.accounts)/\(.users)/\(.qos)"' "$T/show.json")
grep -q 'physics' <<<"$show" && grep -q 'alice:physics' <<<"$show" && grep -q 'high:100' <<<"$show" ||
        die "accounting-show (on the backup unit): $show"
before=$(js exec slurmctld/0 -- sacctmgr -nP show assoc format=account,user | sort)
! js run slurmdbd/0 account-add name=physics >"$T/out" 2>&1 || die "a second physics accepted"
grep -q 'account physics exists already' "$T/out" || die "duplicate account: $(cat "$T/out")"
! js run slurmdbd/0 user-add name=bob account=nosuch >"$T/out" 2>&1 || die "a user in a missing account accepted"
grep -q 'account nosuch does not exist' "$T/out" || die "missing account: $(cat "$T/out")"
! js run slurmdbd/0 account-add name="Bad Name" >"$T/out" 2>&1 || die "a bad account name accepted"
after=$(js exec slurmctld/0 -- sacctmgr -nP show assoc format=account,user | sort)
[ "$before" = "$after" ] || die "a refused action changed the associations"
log "account physics, user alice, QOS high added; 3 bad requests refused, nothing changed"

log "accounting-enforce: only users with an association submit; others' jobs wait, counted; none lost"
for u in slurmctld/0 slurmd/0; do
        js exec "$u" -- sh -c 'useradd -u 2001 -U -m -s /bin/sh alice && useradd -u 2002 -U -m -s /bin/sh bob'
done
# as USER CMD…: CMD as that local user on the controller's machine
as() { as_user slurmctld/0 "$@"; }
# bob's running job ends only when the test says so (/tmp/gate on the compute machine), after the
# restart that applies the option
# (--mem: without default-mem-per-cpu a job takes its node's whole memory, and alice's below
# would wait for it)
run=$(as bob sbatch --parsable -o /dev/null --mem=100 --wrap 'while [ ! -e /tmp/gate ]; do sleep 1; done')
pend=$(as bob sbatch --parsable -o /dev/null --begin=now+600 --wrap true)
wait_job_state "$run" RUNNING 30
starts0=$(ctl grep -c 'slurmctld version .* started' /var/log/slurm/slurmctld.log || true)
js config slurmctld accounting-enforce=associations,bogus >/dev/null
settle
expect_status slurmctld/0 'accounting-enforce: "bogus" is not one of Slurm.s words .*\(nothing changed\)'
[ "$(running_value AccountingStorageEnforce)" = none ] || die "a refused accounting-enforce applied: $(running_value AccountingStorageEnforce)"
js config slurmctld accounting-enforce=Associations >/dev/null
settle
[ "$(running_value AccountingStorageEnforce)" = associations ] || die "AccountingStorageEnforce after accounting-enforce=Associations: $(running_value AccountingStorageEnforce)"
grep -qx 'AccountingStorageEnforce=associations' "$(root_of slurmctld/0)/etc/slurm/slurm.conf" ||
        die "slurm.conf: $(grep AccountingStorageEnforce "$(root_of slurmctld/0)/etc/slurm/slurm.conf")"
expect_status slurmctld/0 "; 1 pending job of bob has no association \(accounting-enforce=associations\): it runs once the user is added \(slurmdbd's user-add\)"
[ "$(job_field "$pend" Reason)" = InvalidAccount ] || die "bob's pending job: reason $(job_field "$pend" Reason)"
as bob sbatch --parsable -o /dev/null --wrap true >"$T/out" 2>&1 && die "bob without an association submitted: $(cat "$T/out")"
grep -q 'Invalid account' "$T/out" || die "bob's refusal: $(cat "$T/out")"
j=$(as alice sbatch --parsable -o /dev/null --mem=100 --wrap true)
wait_job_state "$j" COMPLETED 60
# the running job went through the restart that applied the option, and ends as it should
[ "$(ctl grep -c 'slurmctld version .* started' /var/log/slurm/slurmctld.log || true)" -gt "$starts0" ] ||
        die "no slurmctld start applied accounting-enforce (the running job crossed none)"
[ "$(job_field "$run" JobState)" = RUNNING ] || die "bob's running job after the restart: $(job_field "$run" JobState)"
js exec slurmd/0 -- touch /tmp/gate
wait_job_state "$run" COMPLETED 60
until_true 60 "bob's running job COMPLETED in sacct" eval '[ "$(ctl sacct -nX -j "$run" -o state | tr -d " ")" = COMPLETED ]'
# bob added: his held job runs once slurmctld tries it again (here: its begin time moved up; a
# whole run saw 24.11 start it at once after the user-add, 590 s before its begin time, and a
# run of stop 62 saw 22.05 do the same, so the update may find it running or ended; COMPLETED is
# what counts, below)
js run slurmdbd/0 user-add name=bob account=physics >"$T/out" || die "user-add bob: $(cat "$T/out")"
until_true 30 "bob's association at the controller" eval 'ctl sacctmgr -nP show assoc user=bob format=user | grep -qx bob'
ctl scontrol update jobid="$pend" StartTime=now >"$T/out" 2>&1 ||
        grep -Eq 'Job has already finished|Job is no longer pending execution' "$T/out" ||
        die "moving bob's held job up: $(cat "$T/out")"
wait_job_state "$pend" COMPLETED 60
js trigger slurmctld/0 update-status >/dev/null
settle
expect_status slurmctld/0 '^active 1 node in 1 partition$'
log "bob's held job ran once added, alice's ran, bob's new one was refused; the running job kept"
js config slurmctld accounting-enforce= slurm-conf-parameters="AccountingStorageEnforce=limits" >/dev/null
settle
[ "$(running_value AccountingStorageEnforce)" = associations,limits ] || die "slurm-conf-parameters' AccountingStorageEnforce=limits without the option: $(running_value AccountingStorageEnforce)"
js config slurmctld accounting-enforce=qos >/dev/null
settle
expect_status slurmctld/0 "slurm-conf-parameters' AccountingStorageEnforce: accounting-enforce comes first \(yours is left out\)"
[ "$(running_value AccountingStorageEnforce)" = associations,qos ] || die "accounting-enforce=qos over the parameters' limits: $(running_value AccountingStorageEnforce)"
# nojobs turns job accounting off (Slurm's meaning): said in the status, not taken silently
js config slurmctld accounting-enforce=associations,nojobs slurm-conf-parameters= >/dev/null
settle
expect_status slurmctld/0 '; accounting-enforce=associations,nojobs: slurmdbd records no jobs and no steps \(nojobs\)'
js config slurmctld accounting-enforce= slurm-conf-parameters= >/dev/null
settle
[ "$(running_value AccountingStorageEnforce)" = none ] || die "AccountingStorageEnforce after both were cleared: $(running_value AccountingStorageEnforce)"
js run slurmdbd/0 user-remove name=bob >"$T/out" || die "user-remove bob: $(cat "$T/out")"
js run slurmdbd/0 user-remove name=alice >"$T/out" || die "user-remove: $(cat "$T/out")"
js run slurmdbd/0 qos-remove name=high >"$T/out" || die "qos-remove: $(cat "$T/out")"
js run slurmdbd/0 account-remove name=physics >"$T/out" || die "account-remove: $(cat "$T/out")"
! js run slurmdbd/0 account-remove name=root >"$T/out" 2>&1 || die "the root account removed"
! js run slurmdbd/0 user-remove name=alice >"$T/out" 2>&1 || die "a second user-remove succeeded"
grep -q 'user alice does not exist' "$T/out" || die "user-remove of a removed user: $(cat "$T/out")"
assoc=$(js exec slurmctld/0 -- sacctmgr -nP show assoc format=account,user)
! grep -q 'physics' <<<"$assoc" || die "physics still has associations after account-remove: $assoc"
js exec slurmctld/0 -- sacctmgr -nP show qos format=name | grep -qx high && die "QOS high still there after qos-remove"
log "user alice, QOS high, account physics removed; root kept, a second removal refused"

log "relation removed: accounting off"
js remove-relation slurmctld slurmdbd >/dev/null
settle 180
conf=$(js exec slurmctld/0 -- cat /etc/slurm/slurm.conf)
! grep -q '^AccountingStorage' <<<"$conf" || die "accounting keys left in slurm.conf after the relation went"
expect_status slurmctld/0 '^active '
j=$(submit -o /dev/null --wrap 'true')
wait_job_state "$j" COMPLETED 60 || die "job $j did not complete without accounting"

log "accounting-enforce set without slurmdbd waits; the relation back: applied after the first start with it"
js config slurmctld accounting-enforce=associations >/dev/null
settle
expect_status slurmctld/0 '^active .*; accounting-enforce=associations waits for slurmdbd \(integrate with slurmdbd\)'
[ "$(running_value AccountingStorageEnforce)" = none ] || die "AccountingStorageEnforce without slurmdbd: $(running_value AccountingStorageEnforce)"
js integrate slurmctld slurmdbd >/dev/null
settle 240
# the first file with slurmdbd goes without it; the charm run after that start adds it
until_true 60 "accounting-enforce not applied after the relation came back" eval '[ "$(running_value AccountingStorageEnforce)" = associations ]'
settle
expect_status slurmctld/0 '^active 1 node in 1 partition$'
j=$(submit -o /dev/null --wrap 'true')
wait_job_state "$j" COMPLETED 60
log "ok"
