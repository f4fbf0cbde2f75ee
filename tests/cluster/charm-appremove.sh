#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A slurmd application leaves (remove-application) with two units while one of its nodes runs a
# job and a job of its partition is queued: the running job finishes normally (slurmctld 22.05
# would fail it if the partition left slurm.conf first), the nodes are deleted, the partition
# stays INACTIVE while its queued job exists and goes on the next controller hook once it is
# gone; the controller's hooks stay short (figure). Then a machine vanishes without hooks
# (remove-unit --force): once its node is not responding, update-status deletes the record.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

# SlurmdTimeout short enough to see a vanished node stop responding within the test
js deploy "$CTL_CHARM" --config slurm-conf-parameters="SlurmdTimeout=10" >/dev/null
js deploy "$SLURMD_CHARM" -n 2 >/dev/null
js deploy "$SLURMD_CHARM" gpu -n 2 >/dev/null
js integrate slurmctld slurmd >/dev/null
js integrate slurmctld gpu >/dev/null
settle 180
expect_status slurmctld/0 '^active 4 nodes in 2 partitions$'
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf

log "remove-application gpu (two units) with a running and a queued job"
run=$(submit -p gpu -w gpu-0 -o /dev/null --mem=100 --wrap "sleep 6")
queued=$(submit -p gpu -o /dev/null --mem=100 --begin=now+3600 --wrap true)
wait_job_state "$run" RUNNING 30
lines=$(wc -l <"$MODEL/debug-log.jsonl")
t0=$(date +%s%N)
js remove-application gpu >/dev/null
settle 120
t1=$(date +%s%N)
[ "$(job_field "$run" JobState)" = COMPLETED ] || die "job $run: $(job_field "$run" JobState)"
[ "$(job_field "$run" ExitCode)" = 0:0 ] || die "job $run: exit code $(job_field "$run" ExitCode)"
[ "$(job_field "$queued" JobState)" = PENDING ] || die "queued job $queued: $(job_field "$queued" JobState)"
node_exists gpu-0 && die "node gpu-0 still there"
node_exists gpu-1 && die "node gpu-1 still there"
nomemdef <"$conf" | grep -qx 'PartitionName=gpu Nodes=gpu State=INACTIVE' || die "partition gpu: $(grep gpu "$conf")"
ctl scontrol -o show partition gpu | grep -q ' State=INACTIVE ' || die "slurmctld: $(ctl scontrol -o show partition gpu)"
expect_status slurmctld/0 'partition gpu leaving: 0 running, 1 pending job$'
ctl_max=$(hooks_since "$lines" | awk '$1 ~ /^slurmctld/ && $2 != "exec" { if ($4 > m) { m = $4; h = $2 } } END { print m " ms (" h ")" }')
log "figure: remove-application gpu with a running job: settled in $(((t1 - t0) / 1000000)) ms; controller's longest hook $ctl_max"
hooks_since "$lines" | grep '^slurmctld' | grep -v " exec " | while read -r u h s d; do log "  $u $h $s $d ms"; done

log "the queued job goes: the next controller hook drops the partition"
ctl scancel "$queued"
js trigger slurmctld update-status >/dev/null
settle
grep -q 'gpu' <(grep -E '^(NodeSet|PartitionName)' "$conf") && die "gpu still in slurm.conf: $(grep gpu "$conf")"
ctl scontrol show partition gpu >/dev/null 2>&1 && die "slurmctld still has partition gpu"
[ ! -e "$(root_of slurmctld/0)/var/lib/slurm/charm/leaving" ] || die "leaving list not emptied"
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'

log "a machine vanishes without its hooks"
js remove-unit --force slurmd/1 >/dev/null
settle
[[ $(js status --format=json) != *'"slurmd/1"'* ]] || die "unit slurmd/1 still in the model" # (not grep -q on a pipe: pipefail would hide a match)
node_exists slurmd-1 || die "the record of slurmd-1 should still be there"
for ((i = 0; i < 300; i++)); do
        st=$(ctl sinfo -h -n slurmd-1 -o '%T')
        [[ $st == *'*'* || $st == down* ]] && break
        sleep 0.2
done
[[ $st == *'*'* || $st == down* ]] || die "slurmd-1 still \"$st\" after 60 s"
js trigger slurmctld update-status >/dev/null
settle
node_exists slurmd-1 && die "stale record slurmd-1 not deleted"
node_exists slurmd-0 || die "slurmd-0 deleted too"
expect_status slurmctld/0 '^active 1 node in 1 partition$'
log "ok"
