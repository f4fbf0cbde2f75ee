#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Accounting on a standby controller that cannot reach slurmdbd (issue 25; accounting.h,
# struct acct_standby): two controllers on shared state, a compute unit, slurmdbd on MariaDB,
# a job running throughout. slurmctld/1's machine cannot reach slurmdbd (a prohibit route).
#  1. accounting turned on while the state files a takeover needs are the ones the primary saved
#     without accounting (at its stop just before; their later writes made to fail): the
#     primary takes slurmdbd; the standby waits, says for what, and keeps its file without
#     accounting (a takeover on those files: no users or associations; with
#     AccountingStorageEnforce=associations slurmctld crashed at every try, 22.05, a helper's
#     attack on the first version, which took any such file);
#  2. the primary saves its state (its slurmctld restarted: it saves every 5 minutes and at its
#     stop): the standby's service watcher sees the state and its run takes accounting, no hook,
#     although slurmdbd still does not answer there (before: the standby rendered no accounting
#     for as long as it could not reach slurmdbd, and a takeover ran the cluster without it);
#  3. the running job cancelled, takeover onto the standby: jobs run and end there while
#     slurmdbd does not answer, its status says so and how many records slurmctld holds; the
#     route back: every job is in sacct, none lost, the job that ran across 1 and 2 included.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
# shellcheck source=tests/cluster/ha-lib.sh
source "$(dirname "$0")/ha-lib.sh"

DBD_CHARM=${DBD_CHARM:-${BASE_BUILDDIR:-$TOP_BUILDDIR}/slurmdbd.charm}
MARIADB=${TOP_SRCDIR:?}/tests/charms/mariadb
for prog in /usr/sbin/slurmdbd /usr/sbin/mariadbd /usr/bin/mariadb-install-db; do
        [ -x "$BASE_ROOT$prog" ] || skip "$BASE_ROOT$prog missing"
done
[ -f "$DBD_CHARM" ] || die "no slurmdbd charm at $DBD_CHARM"

log "deploy two controllers, a compute unit, slurmdbd and MariaDB"
mkdir -p "$T/state"
SDIR=$T/state # the shared StateSaveLocation, as this host sees it
js deploy "$CTL_CHARM" -n 2 --share "$SDIR:/srv/slurm-state" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=20 >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js deploy "$DBD_CHARM" >/dev/null
js deploy "$MARIADB" >/dev/null
js integrate slurmdbd mariadb >/dev/null
js integrate slurmctld cpu >/dev/null
settle 300
expect_status slurmctld/0 '^active primary, in charge; '
expect_status slurmctld/1 '^active backup 1, '
dbd_addr=$(js exec slurmdbd/0 -- ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
[ -n "$dbd_addr" ] || die "no slurmdbd address"
has_acct() { grep -q '^AccountingStorageType=accounting_storage/slurmdbd' "$(root_of "$1")/etc/slurm/slurm.conf"; }

log "1. accounting on, the standby cannot reach slurmdbd and the state lacks what a takeover needs"
jrun=$(sub slurmctld/0 --mem=100 --wrap "sleep 900")
wait_on slurmctld/0 "$jrun" RUNNING 60
mx slurmctld/1 ip route add prohibit "$dbd_addr/32"
# the files of a run without accounting: saved by the primary's stop, then no more saves
mx slurmctld/0 systemctl restart slurmctld.service
until_true 60 "the primary's restart saved no state" eval '[ -s "$SDIR/last_tres" ] && [ -s "$SDIR/assoc_mgr_state" ]'
(cd "$SDIR" && mkdir last_tres.new assoc_mgr_state.new)
pid1=$(mx slurmctld/1 systemctl show -P MainPID slurmctld.service)
js integrate slurmctld slurmdbd >/dev/null
settle 300
expect_status slurmdbd/0 '^active slurmdbd primary'
has_acct slurmctld/0 || die "the primary took no accounting"
expect_status slurmctld/1 "accounting waits: slurmdbd $dbd_addr:6819 does not answer here, and slurmctld/0, which runs with it, has not saved what this standby needs to take control without it \\(last_tres, assoc_mgr_state in StateSaveLocation, saved since it took slurmdbd"
! has_acct slurmctld/1 || die "the standby took accounting it could not take control with"
[ -f "$(root_of slurmctld/1)/var/lib/slurm/charm/accounting.waiting" ] || die "no wait file on the standby"

log "2. the primary saves its state: the standby takes accounting, no hook"
rmdir "$SDIR/last_tres.new" "$SDIR/assoc_mgr_state.new"
mx slurmctld/0 systemctl restart slurmctld.service
t0=$(now_ms)
until_true 120 "the standby took no accounting within 120 s of the saved state: $(unit_status slurmctld/1)" \
        has_acct slurmctld/1
FIG_TAKE=$(($(now_ms) - t0))
log "figure: the primary's state saved -> the standby's slurm.conf has accounting, no hook: $FIG_TAKE ms"
mx slurmctld/1 grep -q 'accounting waits and can be taken now' \
        /var/log/juju-sim/juju-service-watcher-slurmctld.service.log ||
        die "the standby took accounting, but not by its service watcher's run"
[ -f "$SDIR/last_tres" ] && [ -f "$SDIR/assoc_mgr_state" ] || die "no state saved by the primary's stop"
# (the file is written before the restart that takes it)
until_true 60 "the standby's slurmctld was not restarted with accounting" \
        eval '[ "$(mx slurmctld/1 systemctl show -P MainPID slurmctld.service)" != "$pid1" ]'
settle 240
! status_is slurmctld/1 'accounting waits' || die "slurmctld/1 still waits: $(unit_status slurmctld/1)"
expect_status slurmctld/1 '^active backup 1, '
if [ -n "${CHARM_BASE:-}" ]; then
        grep -qE '\|[1-9][0-9]*$' "$SDIR/clustername" || die "the ClusterID went from clustername: $(cat "$SDIR/clustername")"
fi

log "3. takeover onto the standby, which cannot reach slurmdbd; jobs end there"
# the running job ended first: on 22.05 the takeover refuses while a job runs whose steps may
# not list slurmctld/1 (charm-ha covers that; every job here starts within 300 s of its join)
no_job_lost slurmctld/0 "$jrun"
on slurmctld/0 scancel "$jrun"
until_true 60 "job $jrun not ended after its cancel" \
        eval '[ "$(on slurmctld/0 scontrol -o show job "$jrun" | tr " " "\n" | sed -n "s/^JobState=//p")" = CANCELLED ]'
out=$(js run slurmctld/1 takeover 2>&1) || die "takeover failed: $out (slurmctld/1: $(unit_status slurmctld/1))"
settle 240
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/1 '^active primary, in charge; '
expect_status slurmctld/1 "accounting: slurmdbd $dbd_addr:6819 not answering, [0-9]+ records? held by slurmctld"
jobs=()
for i in 1 2 3; do
        jobs+=("$(sub slurmctld/1 --mem=100 --wrap "sleep $i")")
done
for j in "${jobs[@]}"; do
        wait_done slurmctld/1 "$j" 120
done
no_job_lost slurmctld/1 "${jobs[@]}"
held=$(on slurmctld/1 sdiag | sed -n 's/^ *DBD Agent queue size: *//p')
log "figure: records held by slurmctld/1 while slurmdbd does not answer: $held"
[ "${held:-0}" -gt 0 ] || die "slurmctld/1 holds no records for slurmdbd: did it run without accounting?"
mx slurmctld/1 ip route del prohibit "$dbd_addr/32"
ids=$(IFS=,; echo "$jrun,${jobs[*]}")
acct_states() { on slurmctld/1 sacct -n -X -j "$ids" -o JobID,State 2>/dev/null | awk '{print $2}' | sort | uniq -c | tr -s ' \n' ' '; }
t0=$(now_ms)
# every job with its end: the cancelled one and the three that completed
until_true 180 "not every job's end in sacct within 180 s of slurmdbd in reach: $(acct_states)" \
        eval '[[ $(acct_states) =~ ^\ ?1\ CANCELLED[^\ ]*\ 3\ COMPLETED\ ?$ ]]'
log "figure: slurmdbd in reach -> the 4 jobs' ends in sacct: $(($(now_ms) - t0)) ms"
log "PASS"
