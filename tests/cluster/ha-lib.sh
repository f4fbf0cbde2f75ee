# SPDX-License-Identifier: Apache-2.0
# Helpers of the tests with several controllers (charm-ha, charm-fence), sourced after
# charm-lib.sh: commands on a unit's machine as an admin, who is in charge, jobs not lost.
# shellcheck shell=bash
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}

# mx UNIT CMD…: CMD on the unit's machine outside any hook (an admin there)
mx() {
        local m
        m=$(machine_of "$1")
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 30 -- "$@"
}
# on UNIT CMD…: a Slurm client command on that controller's machine (no hook lock)
on() { mx "$@"; }
ctl_hosts() { grep '^SlurmctldHost=' "$(root_of "$1")/etc/slurm/slurm.conf" | sed 's/^SlurmctldHost=\([^(]*\).*/\1/' | tr '\n' ' '; }
host_of() { js exec "$1" -- hostname; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# answers UNIT: that unit's slurmctld is the one in charge: squeue through a client list naming
# only it (a standby answers "Slurm backup controller in standby mode")
answers() {
        mx "$1" sh -c 'grep -v "^SlurmctldHost=" /etc/slurm/slurm.conf >/tmp/one.conf &&
                echo "SlurmctldHost=$(hostname)" >>/tmp/one.conf &&
                SLURM_CONF=/tmp/one.conf timeout 5 squeue -h >/dev/null 2>&1'
}
# no_job_lost UNIT JOB…: every job is known to the controller UNIT reaches, none FAILED/NODE_FAIL
no_job_lost() {
        local u=$1 j st
        shift
        for j in "$@"; do
                # a read can fail while a client on that machine lists a standby first (libslurm
                # retries it for 1.5 x SlurmctldTimeout, not traced): read again, 3 times at most
                for _ in 1 2 3; do
                        st=$(on "$u" scontrol -o show job "$j" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' || true)
                        [ -n "$st" ] && break
                        sleep 2
                done
                case "$st" in
                RUNNING | PENDING | COMPLETED | COMPLETING | CONFIGURING) ;;
                *) die "job $j: \"$st\" (lost or failed)" ;;
                esac
        done
}
sub() { on "$1" sbatch --parsable -o /dev/null "${@:2}" | cut -d';' -f1; }
# quiet: slurmctld saves job state at most every 5 s; a kill -9 inside that window loses what
# changed (Slurm's behaviour, HACKING.md "High availability")
quiet() { sleep 6; }
wait_done() { # UNIT JOB SECONDS
        local i st
        for ((i = 0; i < $3 * 2; i++)); do
                st=$(on "$1" scontrol -o show job "$2" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
                [ "$st" = COMPLETED ] && return 0
                sleep 0.5
        done
        die "job $2: $st after $3 s, want COMPLETED ($(on "$1" scontrol -o show job "$2" 2>&1 | tr ' ' '\n' |
                grep -E '^(Reason|RunTime|StartTime|NodeList|Requeue|Restarts|BatchHost)=' | tr '\n' ' '))"
}
# fail_over DOWN UP: waits until UP's slurmctld answers as the one in charge; prints the figure
fail_over() {
        local t0=$1 up=$2 t
        for ((t = 0; t < (T_OUT + 20) * 4; t++)); do
                if answers "$up"; then
                        log "figure: primary lost -> $up answers: $(($(now_ms) - t0)) ms (SlurmctldTimeout ${T_OUT} s)"
                        return 0
                fi
                sleep 0.25
        done
        die "$up did not take over within $((T_OUT + 20)) s"
}
# STEPD_PUSH: set on a base whose slurmd hands running job steps its controller list at its
# start (24.11; charm/slurmctld/standby.h): a displaced controller is held only until the compute nodes'
# slurmd restarted with the new order, where on 22.05 it is held until the old jobs end
STEPD_PUSH=${CHARM_BASE:+1}
# gate_job UNIT NAME: a job on UNIT's node that ends (exit 0) when gate_open UNIT NAME is called
# (a file in the compute machine's private /tmp); its id printed
gate_job() { sub slurmctld/0 --mem=100 -w "${1/\//-}" --wrap "while [ ! -e /tmp/gate-$2 ]; do sleep 1; done"; }
gate_open() { mx "$1" touch "/tmp/gate-$2"; }
# completed_ok UNIT JOB SECONDS: JOB ended COMPLETED with exit 0:0 (its end reached the
# controller in charge: a step asking a standby first leaves it RUNNING, issue 25 item 2)
completed_ok() {
        wait_done "$1" "$2" "$3"
        local ec
        ec=$(on "$1" scontrol -o show job "$2" | tr ' ' '\n' | sed -n 's/^ExitCode=//p')
        [ "$ec" = 0:0 ] || die "job $2: ExitCode=$ec"
}
# order_is UNIT HOST… : waits until UNIT's slurm.conf lists the controllers HOST… in order: the
# hooks queued meanwhile run (juju-sim runs queued hooks only while it waits; the sentinels' runs
# of the charm through juju-exec come at once), at most 8 rounds. A round allows 120 s: a compute
# unit's restart of slurmd may wait out slurmd's TimeoutStopSec (60 s) before its SIGKILL (CI
# saw a 24.11 slurmd that logged no SIGTERM in that window)
order_is() {
        local u=$1 want i
        shift
        want="$* "
        for ((i = 0; i < 8; i++)); do
                [ "$(ctl_hosts "$u")" = "$want" ] && return 0
                settle 120
                sleep 2
        done
        [ "$(ctl_hosts "$u")" = "$want" ] || die "$u's controller order: $(ctl_hosts "$u"), want $want"
}
# held_or_backup UNIT FIRST: a displaced controller: on 22.05 held as a standby while an old job
# runs (its slurmctld stopped), on 24.11 a running backup once the compute nodes' slurmd took the
# new order
held_or_backup() {
        if [ -n "$STEPD_PUSH" ]; then
                expect_status "$1" "^active backup 1, $(host_of "$2") in charge; "
        else
                expect_status "$1" '^waiting held as a standby until [0-9]+ jobs? that started under the old controller order ends? \(job [0-9]+\)'
                [ "$(mx "$1" systemctl is-active slurmctld || true)" != active ] || die "$1: slurmctld runs while held"
        fi
}
# wait_on UNIT JOB STATE SECONDS: JOB reaches STATE as seen from UNIT's machine (outside any hook:
# `ctl` runs through the unit's hook lock and waits behind its hooks; a deadline, not a count)
wait_on() {
        local end=$(($(date +%s) + $4)) st=
        while [ "$(date +%s)" -lt "$end" ]; do
                st=$(on "$1" scontrol -o show job "$2" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' || true)
                [ "$st" = "$3" ] && return 0
                sleep 0.5
        done
        die "job $2: \"$st\" after $4 s, want $3"
}
# no_standby_refusal: no controller refused a job step's completion as a standby (22.05, where
# the step takes that answer as final; 24.11's client goes on to the next controller, so a
# refusal there is logged and harmless: completed_ok checks the jobs themselves)
no_standby_refusal() {
        local f
        [ -z "$STEPD_PUSH" ] || return 0
        for f in "$MODEL"/machines/*/root/var/log/slurm/slurmctld.log; do
                ! grep -qE 'Invalid RPC received (REQUEST_COMPLETE_BATCH_SCRIPT|REQUEST_STEP_COMPLETE|MESSAGE_EPILOG_COMPLETE)' "$f" ||
                        die "a standby refused a job's completion: ${f#"$MODEL"/machines/}: $(grep -E 'Invalid RPC received' "$f" | tail -3)"
        done
}

# app_message APP: the application status message
app_message() { js status --format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["applications"][sys.argv[1]]["application-status"].get("message", ""))' "$1"; }

# event_log_same IDS_FILE UNIT…: every unit's node-events answers one log (charm/slurmctld/evshare.h):
# seqs contiguous from its oldest, ids unique, each unit's records a prefix of the longest (a
# later reconcile may have added some), no unit's empty. The longest's "seq id event node
# controller" lines go to IDS_FILE; when IDS_FILE already holds lines (an earlier step's), they
# must be the start of the log now (nothing lost, nothing renumbered: a removal or an add-unit
# changes nothing of it). EV_CONTROLLER=HOST: a control-moved record must name HOST.
event_log_same() {
        python3 - "$JS" "$@" <<'PY' || die "the controller units do not hold one node event log"
import json, os, subprocess, sys
js, ids_file, units = sys.argv[1], sys.argv[2], sys.argv[3:]
logs = {}
for u in units:
    recs, since, oldest = [], 0, None
    for _ in range(100):
        out = subprocess.run([js, "run", u, "node-events", f"since={since}", "limit=1000", "--format=json"],
                             capture_output=True, text=True, check=True).stdout
        res = json.loads(out)[u]["results"]
        oldest = int(res["oldest-seq"]) if oldest is None else oldest
        recs += [json.loads(l) for l in res.get("events", "").splitlines() if l]
        since = int(res["next-since"])
        if res["more"] != "true":
            break
    seqs = [r["seq"] for r in recs]
    assert recs, f"{u}: an empty log"
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"{u}: seqs not contiguous: {seqs}"
    assert seqs[0] == oldest, f"{u}: starts at {seqs[0]}, oldest-seq {oldest}"
    assert len({r['id'] for r in recs}) == len(recs), f"{u}: duplicate ids"
    logs[u] = recs
longest = max(logs.values(), key=len)
lines = [f"{r['seq']} {r['id']} {r['event']} {r.get('node', '-')} {r.get('controller', '-')}" for r in longest]
for u, recs in logs.items():
    mine = [r["id"] for r in recs]
    assert mine == [r["id"] for r in longest[:len(mine)]], f"{u} differs: {mine} vs {[r['id'] for r in longest]}"
if os.path.exists(ids_file) and os.path.getsize(ids_file):
    before = open(ids_file).read().splitlines()
    assert lines[:len(before)] == before, f"the log changed under an earlier step's: {before} -> {lines}"
want = os.environ.get("EV_CONTROLLER")
if want:
    assert any(r["event"] == "control-moved" and r.get("controller") == want for r in longest), \
        f"no control-moved record names {want}: " + "; ".join(lines)
open(ids_file, "w").write("".join(l + "\n" for l in lines))
print(f"event log: {len(longest)} records, the same on {' '.join(units)}", file=sys.stderr)
PY
}
