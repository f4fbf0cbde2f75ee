#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Re-integration fails no job of a leaving partition (issue "harden the core", item 4): two
# pending jobs of partition big (one --no-requeue), remove-relation (big leaving: kept INACTIVE),
# integrate again: the partition never leaves slurm.conf while the application publishes its
# data again, slurmctld never logs "Invalid partition", both jobs stay pending in an UP
# partition and run there. Also with a running job, and with the default partition.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js deploy "$SLURMD_CHARM" big >/dev/null
js integrate slurmctld cpu >/dev/null
js integrate slurmctld big >/dev/null
settle 180
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
# a watcher on slurm.conf: every version the controller writes, so that no intermediate file
# without PartitionName=big goes unseen
: >"$T/versions"
( while sleep 0.05; do grep -c '^PartitionName=big ' "$conf" >>"$T/versions" 2>/dev/null || echo 0 >>"$T/versions"; done ) &
watch_pid=$!
# (charm_cleanup reads the test's status from $?: keep it across the kill)
trap 'rc=$?; trap - ERR; set +e; kill $watch_pid 2>/dev/null; (exit $rc); charm_cleanup' EXIT

for round in pending running; do
        log "round $round: remove-relation and integrate again"
        j1=$(submit -p big --begin=now+1hour -o /dev/null --wrap true)
        j2=$(submit -p big --no-requeue --begin=now+1hour -o /dev/null --wrap true)
        run=
        if [ $round = running ]; then
                run=$(submit -p big -o /dev/null --wrap "sleep 8")
                wait_job_state "$run" RUNNING 30
        fi
        js remove-relation slurmctld big >/dev/null
        settle 60
        expect_status slurmctld/0 'partition big leaving: [01] running, 2 pending jobs'
        ctl scontrol -o show partition big | grep -q 'State=INACTIVE' || die "big not INACTIVE: $(ctl scontrol -o show partition big)"
        : >"$T/versions"
        js integrate slurmctld big >/dev/null
        settle 120
        grep -qx 0 "$T/versions" && die "slurm.conf was written without PartitionName=big"
        ! grep -q 'Invalid partition (big)' "$ctl_log" || die "slurmctld: $(grep 'Invalid partition' "$ctl_log" | head -2)"
        for j in $j1 $j2; do
                [ "$(job_field "$j" JobState)" = PENDING ] || die "job $j: $(job_field "$j" JobState) $(job_field "$j" Reason)"
        done
        [ -z "$run" ] || { wait_job_state "$run" COMPLETED 30; [ "$(job_field "$run" ExitCode)" = 0:0 ] || die "job $run failed"; }
        ctl scontrol -o show partition big | grep -q 'State=UP' || die "big not UP again: $(ctl scontrol -o show partition big)"
        expect_status slurmctld/0 '^active 2 nodes in 2 partitions$'
        # the jobs run in the re-integrated partition
        for j in $j1 $j2; do
                ctl scontrol update jobid="$j" starttime=now
                wait_job_state "$j" COMPLETED 30
        done
done
log "ok"
