#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The node event log (charm/slurmctld/nodeevents.h) on a real cluster with SlurmUser=slurm: the triggers
# are SlurmUser's (root is refused), the spool is SlurmUser's alone; a scripted sequence (drain,
# resume, down, up by a slurmd restart, drains just before a slurmctld restart whose triggers are
# lost, resumes after it, a unit removed, a unit added) must show in node-events once each, with
# contiguous increasing seqs, the source of each (trigger or reconcile), the controller's status
# following the removal and the addition without update-status, bad parameters refused with
# nothing changed, and the log going on across upgrade-charm. Prints the latency figures (node
# state change -> record in the log).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
[ -x "$JSM" ] || die "no juju-sim-machine at $JSM"
WAIT_S=${WAIT_S:-60}

# mx UNIT CMD…: CMD on the unit's machine, outside any hook (no model lock), 60 s cap.
mx() {
        local m
        m=$(machine_of "$1")
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 60 -- "$@"
}

# The log of the controller unit, read on the host (the machine's files are there).
LOG=
# last_seq: the seq of the log's last record (0 when none).
last_seq() {
        [ -s "$LOG" ] || { echo 0; return; }
        tail -n 1 "$LOG" | python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["seq"])'
}

# wait_record NODE EVENT AFTER T0_MS: waits (WAIT_S) for a record of EVENT for NODE (NODE "-":
# no node) with seq > AFTER; prints "SEQ SOURCE LATENCY_MS" (latency from T0_MS, the time the
# change was made, to the record's time).
wait_record() {
        python3 - "$LOG" "$@" "$WAIT_S" <<'PY'
import datetime, json, sys, time
log, node, event, after, t0, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
end = time.monotonic() + limit
while time.monotonic() < end:
    try:
        lines = open(log).read().splitlines()
    except OSError:
        lines = []
    for l in lines:
        r = json.loads(l)
        if r["seq"] > after and r["event"] == event and r.get("node", "-") == node:
            t = datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
            print(r["seq"], r["source"] + (":transient" if r.get("transient") else ""), int(t.timestamp() * 1000) - t0)
            sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
}

# step NODE EVENT AFTER T0 WHAT: wait_record or die; logs the figure; sets SEQ and SRC.
step() {
        local out
        out=$(wait_record "$1" "$2" "$3" "$4") || {
                tail -n 5 "$LOG" >&2 || true
                die "$5: no \"$2\" record for $1 after seq $3 within $WAIT_S s"
        }
        read -r SEQ SRC LAT <<<"$out"
        log "figure: $5 -> record in the log: $LAT ms (seq $SEQ, source $SRC)"
}

now_ms() { mx slurmctld/0 date +%s%3N; }

# The watcher's safety poll (every 30 s) may see a change before its trigger fires (up to 16 s
# after it): the record's source is who saw it first. poll_off/poll_on run the watcher without
# its poll for the steps whose source must be the trigger (a test-only drop-in).
DROPIN=/etc/systemd/system/juju-node-events.service.d/50-test-no-poll.conf
poll_off() {
        local exec
        exec=$(grep '^ExecStart=' "$CR/etc/systemd/system/juju-node-events.service")
        mx slurmctld/0 sh -c "mkdir -p ${DROPIN%/*} && printf '[Service]\nExecStart=\n%s --poll-s 0\n' '$exec' >$DROPIN &&
                systemctl daemon-reload && systemctl restart juju-node-events.service"
}
poll_on() {
        mx slurmctld/0 sh -c "rm -f $DROPIN && systemctl daemon-reload && systemctl restart juju-node-events.service"
}

log "deploy slurmctld, 2 slurmd, integrate"
# the controllers share StateSaveLocation, so that a second unit can join later (charm/slurmctld/ha.h)
mkdir -p "$T/state"
js deploy "$CTL_CHARM" --share "$T/state:/srv/slurm-state" --config state-save-location=/srv/slurm-state >/dev/null
js deploy "$SLURMD_CHARM" -n 2 >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 240
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
CR=$(root_of slurmctld/0)
# the log lives in the state save location the controllers share (charm/slurmctld/evshare.h): here the host's
# $T/state, which the units see as /srv/slurm-state
EVDIR=$T/state/charm-events
LOG=$EVDIR/node-events.jsonl

log "SlurmUser=slurm: the triggers are slurm's, root may not set one, the spool is slurm's alone"
grep -qx 'SlurmUser=slurm' "$CR/etc/slurm/slurm.conf" || die "slurm.conf has no SlurmUser=slurm"
trig=$(mx slurmctld/0 strigger --get)
for t in 'node +\* down' 'node +\* drained' 'node +\* up' 'node +\* reconfig' \
        'slurmctld +\* primary_slurmctld_resumed_control' 'slurmctld +\* backup_slurmctld_assumed_control'; do
        grep -Eq "^ +[0-9]+ $t +0 slurm +PERM +/var/lib/slurm/charm-events/node-event-trigger " <<<"$trig" ||
                die "no permanent trigger /$t/ of slurm: $trig"
done
[ "$(grep -c PERM <<<"$trig")" = 6 ] || die "not 6 triggers: $trig"
if out=$(mx slurmctld/0 strigger --set --node --down --program=/bin/true 2>&1); then
        die "root set a trigger: $out"
fi
grep -q 'Access/permission denied' <<<"$out" || die "root's trigger refused with: $out"
[ "$(stat -c '%U:%G %a' "$CR/var/lib/slurm/charm-events/spool")" = "slurm:slurm 700" ] || die "spool: $(stat -c '%U:%G %a' "$CR/var/lib/slurm/charm-events/spool")"
[ "$(stat -c '%U:%G %a' "$CR/var/lib/slurm/charm-events/node-event-trigger")" = "root:root 755" ] || die "program owner/mode"
# the log lives in the state save location (one for every controller unit, charm/slurmctld/evshare.h)
ssl=$(sed -n 's/^StateSaveLocation=//p' "$CR/etc/slurm/slurm.conf")
[ -n "$ssl" ] || die "no StateSaveLocation in slurm.conf"
[ "$(mx slurmctld/0 readlink -f /var/lib/slurm/charm/events)" = "$ssl/charm-events" ] ||
        die "log dir is not the link to $ssl/charm-events: $(ls -ld "$CR/var/lib/slurm/charm/events")"
[ "$(stat -c '%U:%G %a' "$EVDIR")" = "root:root 700" ] || die "log dir owner/mode"
if mx slurmctld/0 runuser -u nobody -- touch /var/lib/slurm/charm-events/spool/ev-x 2>/dev/null; then
        die "nobody wrote into the spool"
fi
[ "$(mx slurmctld/0 systemctl is-active juju-node-events.service)" = active ] || die "watcher not active"

# the baseline: the log's snapshot knows both nodes (their arrival may be logged, depending on
# when they registered) before the sequence starts
for ((i = 0; i < 600; i++)); do
        python3 -c '
import json, sys
n = [x[0] for x in json.load(open(sys.argv[1]))["nodes"]]
sys.exit(0 if "slurmd-0" in n and "slurmd-1" in n else 1)' "$EVDIR/state.json" 2>/dev/null && break
        sleep 0.1
done
[ "$i" -lt 600 ] || die "the log's snapshot never knew both nodes"
# a trigger's node name counts once the node is known for the trigger window (20 s; events.h:
# slurmctld names pending events by node index)
wait_s=$(python3 -c '
import json, sys, time
since = max(x[8] for x in json.load(open(sys.argv[1]))["nodes"]) / 1000
print(max(0, int(since + 21 - time.time()) + 1))' "$EVDIR/state.json")
sleep "$wait_s"
L0=$(last_seq)
log "log at seq $L0; the scripted sequence starts (the watcher's poll off: triggers see first)"
poll_off

# 1. drain (no job: drained), 2. resume
t0=$(now_ms)
mx slurmctld/0 scontrol update nodename=slurmd-0 state=drain reason=events-test-1
step slurmd-0 drained "$L0" "$t0" "drain"
[ "$SRC" = trigger ] || die "drained: source $SRC, want trigger"
t0=$(now_ms)
mx slurmctld/0 scontrol update nodename=slurmd-0 state=resume
step slurmd-0 resumed "$SEQ" "$t0" "resume (no trigger but reconfig)"

# 3. down, 4. up again by a slurmd restart (ReturnToService=2). Each after a 2 s pause: a
# watcher round still open for the record before (a reconfig round waits 1 s for the rest of its
# trigger pass) reconciles once more and would see the next change first (seen twice, stop 62,
# on a loaded machine: "down: source reconcile"; the change recorded all the same)
sleep 2
t0=$(now_ms)
mx slurmctld/0 scontrol update nodename=slurmd-1 state=down reason=events-test-3
step slurmd-1 down "$SEQ" "$t0" "down"
[[ $SRC == trigger* ]] || die "down: source $SRC, want trigger"
sleep 2
t0=$(now_ms)
mx slurmd/1 systemctl restart slurmd
step slurmd-1 up "$SEQ" "$t0" "up (slurmd restart)"
[[ $SRC == trigger* ]] || die "up: source $SRC, want trigger"
poll_on

# 5. drains just before a slurmctld restart: their trigger bits die with slurmctld (not
# saved), the reconcile still logs them; then resumes once it is back
log "slurmctld restart right after two drains"
t0=$(now_ms)
mx slurmctld/0 sh -c 'scontrol update nodename=slurmd-0 state=drain reason=before-restart &&
        scontrol update nodename=slurmd-1 state=drain reason=before-restart && systemctl restart slurmctld'
A=$SEQ
step - slurmctld-started "$A" "$t0" "slurmctld restart"
step slurmd-0 drained "$A" "$t0" "drain before the restart"
[ "$SRC" = reconcile ] || die "drained before the restart: source $SRC (its trigger bit died with slurmctld)"
step slurmd-1 drained "$A" "$t0" "drain before the restart"
for ((i = 0; i < 100; i++)); do mx slurmctld/0 scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
t0=$(now_ms)
mx slurmctld/0 scontrol update nodename=slurmd-0,slurmd-1 state=resume
step slurmd-0 resumed "$A" "$t0" "resume after the restart"
step slurmd-1 resumed "$A" "$t0" "resume after the restart"
[ "$(mx slurmctld/0 strigger --get | grep -c PERM)" = 6 ] || die "triggers not restored by the restart"

# 6. a unit removed: its node leaves; the status follows without update-status
log "remove-unit slurmd/1"
B=$(last_seq)
t0=$(now_ms)
js remove-unit slurmd/1 >/dev/null
settle 180
step slurmd-1 removed "$B" "$t0" "unit removed (node deleted)"
end=$((SECONDS + 40))
until [[ $(unit_status slurmctld/0) =~ ^active\ 1\ node\ in\ 1\ partition$ ]]; do
        [ $SECONDS -lt $end ] || die "slurmctld/0 status after the removal: \"$(unit_status slurmctld/0)\""
        sleep 0.2
done
log "figure: unit removed -> controller status \"$(unit_status slurmctld/0)\": $(($(now_ms) - t0)) ms"

# 7. a unit added: a registration fires no trigger; the watcher's poll finds it
log "add-unit slurmd"
B=$(last_seq)
t0=$(now_ms)
js add-unit slurmd >/dev/null
settle 180
new=$(all_units | grep '^slurmd/' | grep -v '^slurmd/0$')
node=${new/\//-}
step "$node" added "$B" "$t0" "unit added (registration, no trigger)"
end=$((SECONDS + 60))
until [[ $(unit_status slurmctld/0) =~ ^active\ 2\ nodes\ in\ 1\ partition$ ]]; do
        [ $SECONDS -lt $end ] || die "slurmctld/0 status after the addition: \"$(unit_status slurmctld/0)\""
        sleep 0.2
done

# 8. node-events: paged (limit 4) from L0; every change once, seqs contiguous, sources noted
log "node-events since=$L0, pages of 4"
python3 - "$JS" "$L0" "$node" <<'PY' || die "node-events does not tell the sequence"
import json, subprocess, sys
js, since, new = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs, pages = [], 0
while True:
    out = subprocess.run([js, "run", "slurmctld/0", "node-events", f"since={since}", "limit=4", "--format=json"],
                         capture_output=True, text=True, check=True).stdout
    res = json.loads(out)["slurmctld/0"]["results"]
    lines = [l for l in res["events"].splitlines() if l]
    assert len(lines) == int(res["count"]) <= 4, res
    recs += [json.loads(l) for l in lines]
    pages += 1
    since = int(res["next-since"])
    if res["more"] != "true":
        break
    assert pages < 50
seqs = [r["seq"] for r in recs]
assert seqs == list(range(int(sys.argv[2]) + 1, int(sys.argv[2]) + 1 + len(seqs))), f"seqs not contiguous: {seqs}"
ids = [r["id"] for r in recs]
assert len(set(ids)) == len(ids) and all(i.endswith(f"-{r['seq']}") for i, r in zip(ids, recs)), ids
# issue 29: the departure is also a record of who asked for it (source "action"), before the
# node's removal; the charm's actions are the only other "action" records, and none ran here
acts = [r for r in recs if r["event"] == "action"]
assert [(a["action"], a["node"], a["source"]) for a in acts] == [("departure", "slurmd-1", "action")], acts
assert acts[0]["by"].startswith("juju: slurmd/1 leaves relation "), acts[0]
gone = [r["seq"] for r in recs if r["event"] == "removed" and r.get("node") == "slurmd-1"]
assert gone and acts[0]["seq"] < gone[0], (acts, gone)
per = {}
for r in recs:
    if r["event"] != "action":
        per.setdefault(r.get("node", "-"), []).append(r["event"])
print("records: " + "; ".join(f"{r['seq']} {r['event']} {r.get('node', '-')} {r['source']}{' transient' if r.get('transient') else ''} ({r.get('cause', '')})" for r in recs), file=sys.stderr)
want0 = ["drained", "resumed", "drained", "resumed"]
assert per.get("slurmd-0") == want0, f"slurmd-0: {per.get('slurmd-0')}, want {want0}"
s1 = per.get("slurmd-1", [])
# leaving: the departing unit drains its node before deleting it (a drained record may come first)
want1 = ["down", "up", "drained", "resumed"]
assert s1[:4] == want1 and s1[4:] in (["removed"], ["drained", "removed"]), f"slurmd-1: {s1}"
assert per.get(new) == ["added"], f"{new}: {per.get(new)}"
assert per.get("-", []) and set(per["-"]) == {"slurmctld-started"}, per.get("-")
assert set(per) == {"slurmd-0", "slurmd-1", new, "-"}, sorted(per)
srcs = {r["source"] for r in recs}
assert srcs == {"trigger", "reconcile", "action"}, srcs
print(f"{len(recs)} records in {pages} pages", file=sys.stderr)
PY

# 9. bad parameters: a clear failure, nothing changes (the log and its snapshot)
log "node-events with bad parameters"
fp=$(fingerprint "$LOG" "$EVDIR/state.json")
for bad in limit=0 limit=1001 since=-3 since=abc foo=1 limit=2.5; do
        if out=$(js run slurmctld/0 node-events "$bad" 2>&1); then
                die "node-events $bad succeeded: $out"
        fi
        grep -Eq 'node-events: (since|limit) must be an integer|validation failed' <<<"$out" ||
                die "node-events $bad: unclear failure: $out"
done
[ "$(fingerprint "$LOG" "$EVDIR/state.json")" = "$fp" ] || die "a refused call changed the log"
out=$(js run slurmctld/0 node-events limit=1 --format=json)
python3 -c '
import json, sys
r = json.loads(sys.argv[1])["slurmctld/0"]["results"]
assert r["count"] == "1" and r["more"] == "true" and r["last-seq"] == r["latest-seq"], r
assert r["nodes"] == "2 nodes: 0 down, 0 drained, 0 draining", r["nodes"]' "$out" || die "node-events limit=1: $out"

# 10. upgrade-charm: the watcher restarts, the log goes on where it was
B=$(last_seq)
js trigger slurmctld upgrade-charm >/dev/null
settle
[ "$(last_seq)" -ge "$B" ] || die "the log lost records over upgrade-charm"
t0=$(now_ms)
mx slurmctld/0 scontrol update nodename=slurmd-0 state=drain reason=after-upgrade
step slurmd-0 drained "$B" "$t0" "drain after upgrade-charm"
[ "$SEQ" = $((B + 1)) ] || die "seq after upgrade-charm: $SEQ, want $((B + 1))"

# 11. a second controller unit (not the leader): the same log, and node-events answers the same
# there (it reconciles first: the change made just before is in the answer at once; a watcher
# or another unit's hook may have recorded it a moment before, then the cause is theirs), with
# the same id as on the first unit
# the log's directory lies in the state save location, SlurmUser's: a link that user puts in its
# place leads root nowhere (attack atk8 G1: the watcher wrote its lock and state.json into the
# link's target, a root-only directory, before any hook noticed)
log "a link the slurm user puts in place of the log's directory: nothing is written through it"
mx slurmctld/0 mkdir -m 700 /etc/default/atk-ev
# no hook in flight: one that places the log between the move and the link makes the directory
# again (CI, 24.11: the swap failed once)
js wait --timeout 120 >/dev/null 2>&1 || true
mx slurmctld/0 runuser -u slurm -- sh -c "cd $ssl && mv charm-events charm-events.mine && ln -sT /etc/default/atk-ev charm-events" ||
        die "the slurm user's swap failed: $(mx slurmctld/0 ls -la "$ssl" 2>&1)"
mx slurmctld/0 scontrol update nodename=slurmd-0 state=drain reason=atk-ev
sleep 8
js trigger slurmctld/0 update-status >/dev/null
js wait --timeout 120 >/dev/null 2>&1 || true
inside=$(mx slurmctld/0 ls -A /etc/default/atk-ev)
mx slurmctld/0 sh -c "cd $ssl && rm charm-events && mv charm-events.mine charm-events && rmdir /etc/default/atk-ev"
[ -z "$inside" ] || die "root wrote through the slurm user's link: $inside"
# (slurmd-0 stays drained: the next step resumes it)
js trigger slurmctld/0 update-status >/dev/null
settle
[ "$(mx slurmctld/0 systemctl is-active juju-node-events.service)" = active ] || die "watcher not active after the link"

log "add-unit slurmctld: node-events on the non-leader"
js add-unit slurmctld --share "$T/state:/srv/slurm-state" >/dev/null
settle 240
expect_status slurmctld/1 '^active backup 1, [^ ]+ in charge; 2 nodes in 1 partition$'
mx slurmctld/1 scontrol update nodename=slurmd-0 state=resume
out=$(js run slurmctld/1 node-events limit=1 --format=json)
python3 -c '
import json, sys
r = json.loads(sys.argv[1])["slurmctld/1"]["results"]
last = json.loads(r["events"])
assert last["event"] == "resumed" and last["node"] == "slurmd-0", last
assert last["cause"], last  # whichever reconcile of either unit saw it first (one log)
assert r["nodes"] == "2 nodes: 0 down, 0 drained, 0 draining", r["nodes"]' "$out" || die "node-events on slurmctld/1: $out"
out0=$(js run slurmctld/0 node-events limit=1 since=$(($(last_seq) - 1)) --format=json)
id1=$(python3 -c 'import json,sys; print(json.loads(json.loads(sys.argv[1])["slurmctld/1"]["results"]["events"])["id"])' "$out")
id0=$(python3 -c 'import json,sys; print(json.loads(json.loads(sys.argv[1])["slurmctld/0"]["results"]["events"])["id"])' "$out0")
[ "$id0" = "$id1" ] || die "the two units do not hold one log: $id0 on slurmctld/0, $id1 on slurmctld/1"

# 12. a compute unit's own actions (issue 29: pause, resume, node-config, with who asked): the
# unit publishes them in its relation data, the controller leader records each once, at the
# relation-changed the action's relation-set gives the controllers (Juju's rule; juju-sim runs
# it at the next wait, as its agent would at once)
log "a compute unit's own actions in the log: pause, resume, node-config"
B=$(last_seq)
js run slurmd/0 pause reason=disk-swap >"$T/out" || die "pause: $(cat "$T/out")"
js run slurmd/0 resume >"$T/out" || die "resume: $(cat "$T/out")"
js run slurmd/0 node-config parameters="Weight=7" >"$T/out" || die "node-config: $(cat "$T/out")"
! grep -q event-log "$T/out" || die "node-config could not note itself: $(cat "$T/out")"
settle
check_unit_actions() {
        python3 - "$LOG" "$B" <<'PY'
import json, sys
log, after = sys.argv[1], int(sys.argv[2])
recs = [json.loads(l) for l in open(log).read().splitlines()]
acts = [r for r in recs if r["seq"] > after and r["event"] == "action" and r["by"].startswith("slurmd/0 action ")]
got = [(a["action"], a["node"], a["source"]) for a in acts]
want = [("pause", "slurmd-0", "action"), ("resume", "slurmd-0", "action"), ("node-config", "slurmd-0", "action")]
if got != want:
    print(got, file=sys.stderr)
    sys.exit(1)
assert acts[0]["reason"] == "disk-swap", acts[0]
assert "Weight=7" in acts[2].get("detail", ""), acts[2]
assert len({a["by"] for a in acts}) == 3, acts
PY
}
check_quiet() { check_unit_actions 2>/dev/null; }
until_true 30 "the compute unit's actions not recorded once each, in order" check_quiet
# every later hook (the unit's own publication, the leader's sweep: hourly, made due here by
# removing its stamp) records nothing twice
mx slurmctld/0 rm -f /var/lib/slurm/charm/node-actions.swept
js trigger slurmd/0 update-status >/dev/null
js trigger slurmctld update-status >/dev/null
settle
mx slurmctld/0 test -s /var/lib/slurm/charm/node-actions.swept || die "the leader's update-status made no sweep"
check_unit_actions || die "the compute unit's actions after more hooks: $(check_unit_actions 2>&1)"
js run slurmd/0 node-config reset=true >"$T/out" || die "node-config reset: $(cat "$T/out")"
settle
log "ok"
