#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No job killed and run again after a controller is lost (issue 25, item 3). slurmctld saves its
# job state only when asked, at most every 5 s, and a job the backfill scheduler starts asks for
# no save (lib/slurm/ctlstats.h): a controller lost before the next save leaves its successor a
# state in which the job is PENDING, and the successor kills the running job and runs it again.
# The controller sentinel (charm/slurmctld/sentinel.h) asks for a save after each start.
#  1. A job only the backfill scheduler can start (one ahead of it, blocked, needs both nodes)
#     is on disk (job_state's save time after its start) within seconds: the figure is printed.
#  2. kill -9 of slurmctld a few seconds after that start, systemd starts it again: the job is
#     RUNNING with its start time, its batch step was launched once, slurmctld logged no
#     "Registered PENDING" or "Orphan" for it; the blocking and the blocked jobs are intact.
#  3. A steady stream of jobs (one submitted each second for 30 s): the worst time from a job's
#     start to a job_state saved after it (figure).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

deploy_cpu 2
[ "$(ctl systemctl is-active juju-slurmctld-sentinel.service)" = active ] || die "no sentinel runs on slurmctld/0"
state=$(root_of slurmctld/0)/var/lib/slurm/slurmctld
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log

# saved_at: the time in job_state's header (Slurm's pack: a 17-byte "PROTOCOL_VERSION" string,
# uint16 version, then the int64 save time, big-endian), as a Unix time
saved_at() {
        python3 - "$state" <<'PY'
import os, struct, sys
for name in ("job_state", "job_state.old"):
    try:
        with open(os.path.join(sys.argv[1], name), "rb") as f:
            head = f.read(31)
    except OSError:
        continue
    if len(head) == 31 and head[4:20] == b"PROTOCOL_VERSION":
        print(struct.unpack(">q", head[23:31])[0])
        sys.exit(0)
print(0)
PY
}
start_of() { date -d "$(job_field "$1" StartTime)" +%s; }
backfilled() { ctl sdiag | sed -n 's/^[[:space:]]*Total backfilled jobs (since last slurm start):[[:space:]]*//p'; }

log "a job only the backfill scheduler starts"
hold=$(submit -w cpu-0 -t 10 -o /dev/null --wrap 'sleep 600')
wait_job_state "$hold" RUNNING 30
blocked=$(submit -N 2 -t 60 -o /dev/null --wrap true)
bf0=$(backfilled)
job=$(submit -N 1 -t 3 -o /dev/null --wrap 'sleep 150')
wait_job_state "$job" RUNNING 60
[ "$(backfilled)" -gt "$bf0" ] || die "job $job was not started by the backfill scheduler (sdiag: $(backfilled) backfilled, was $bf0)"
[ "$(job_field "$blocked" JobState)" = PENDING ] || die "job $blocked: $(job_field "$blocked" JobState)"
started=$(start_of "$job")
t=0
until [ "$(saved_at)" -ge "$started" ]; do
        t=$((t + 1))
        [ $t -le 100 ] || die "job $job (started $started) not in the saved job state after 20 s: saved at $(saved_at)"
        sleep 0.2
done
log "figure: backfill start -> job_state saved after it: $(($(saved_at) - started)) s (polled every 0.2 s: $((t * 200)) ms after the start was seen)"

log "kill -9 of slurmctld after the save: the job is not run again"
# the save a job start asks for lands within slurmctld's 5 s spacing: kill after that, as a
# machine lost a little later would
sleep 1
ctl systemctl kill -s KILL slurmctld.service
ok=0
for ((i = 0; i < 100; i++)); do
        ctl scontrol ping 2>/dev/null | grep -q 'is UP' && { ok=1; break; }
        sleep 0.2
done
[ $ok = 1 ] || die "slurmctld did not come back after kill -9"
log "slurmctld back (NRestarts $(ctl systemctl show -P NRestarts slurmctld.service))"
# the orphan check runs when a node registers: make both register now (22.05 pushes the
# reconfigure to every slurmd; 24.11 re-executes slurmctld, whose nodes register again)
sleep 2
ctl scontrol reconfigure >/dev/null 2>&1 || true
sleep 5
[ "$(job_field "$job" JobState)" = RUNNING ] || die "job $job after the kill: $(job_field "$job" JobState)"
[ "$(start_of "$job")" = "$started" ] || die "job $job started again: $(job_field "$job" StartTime), was $started"
! grep -E "Registered PENDING JobId=$job |Orphan (StepId|JobId)=$job[ .]" "$ctl_log" ||
        die "slurmctld killed job $job as pending or orphaned at registration"
node=$(job_field "$job" BatchHost)
launches=$(grep -c "Launching batch job $job " "$(root_of "cpu/${node#cpu-}")/var/log/slurm/slurmd.log" || true)
[ "$launches" = 1 ] || die "job $job's batch step launched $launches times on $node"
[ "$(job_field "$hold" JobState)" = RUNNING ] || die "job $hold after the kill: $(job_field "$hold" JobState)"
[ "$(job_field "$blocked" JobState)" = PENDING ] || die "job $blocked after the kill: $(job_field "$blocked" JobState)"
ctl scancel "$hold" "$job" "$blocked"

log "a steady stream: one job a second for 30 s"
: >"$T/samples"
(for ((i = 0; i < 400; i++)); do echo "$(date +%s.%N) $(saved_at)"; sleep 0.1; done >>"$T/samples") &
sampler=$!
ids=()
for ((i = 0; i < 30; i++)); do
        ids+=("$(submit -N 1 -t 1 -o /dev/null --wrap 'sleep 2')")
        sleep 1
done
for id in "${ids[@]}"; do wait_job_state "$id" COMPLETED 60; done
sleep 8
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
for id in "${ids[@]}"; do start_of "$id"; done >"$T/starts"
worst=$(python3 - "$T/samples" "$T/starts" <<'PY'
import sys
samples = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
worst = 0.0
for s in open(sys.argv[2]):
    start = float(s)
    # the first sample whose saved time is at or after the start: when the start was on disk
    seen = next((t for t, saved in samples if saved >= start), None)
    if seen is None:
        print("unsaved")
        sys.exit(0)
    worst = max(worst, seen - start)
print(f"{worst:.1f}")
PY
)
[ "$worst" != unsaved ] || die "a job of the stream was never in the saved job state"
log "figure: steady stream of ${#ids[@]} jobs: worst start -> saved job_state: $worst s"
log "ok"
