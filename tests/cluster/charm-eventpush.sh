#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The node event log's consumer (issue 29, charm/slurmctld/evpush.h) with real daemons: two
# controller units sharing their state, and a receiver (tests/cluster/event-receiver) on a
# compute unit's machine. Node changes are made throughout. event-endpoint set: the records made
# before it arrive too. Then the receiver answers 503 for a while (the status says records wait;
# all arrive once it is back), its answers are lost (the same records come again), slurmctld
# restarts, the pushing unit's service is killed, each unit's in turn (the other goes on from
# the same cursor), and another endpoint gets every record kept. After each step the receiver holds, once duplicate ids are dropped,
# every record node-events has, each first arrival in seq order. A refused value (https) keeps
# the pushing in place; empty stops it on every unit. The metrics exporter of the pushing unit
# serves the push's figures (seq, waiting, failing). Prints the log -> receiver latency.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
PORT=8765

# mx UNIT CMD…: CMD on the unit's machine, outside any hook, 60 s cap.
mx() {
        local m
        m=$(machine_of "$1")
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 60 -- "$@"
}
ctl() { mx slurmctld/0 "$@"; }
RX=$T/recv/got
mkdir -p "$T/recv"
cp "$TOP_BUILDDIR/tests/cluster/event-receiver" "$T/event-receiver"

mkdir -p "$T/state"
js deploy "$CTL_CHARM" -n 2 --share "$T/state:/srv/slurm-state" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=20 >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js integrate slurmctld cpu >/dev/null
settle 240
expect_status cpu/1 '^active idle$'

# change N: N drains of cpu-0, each with its resume, each waited for in the log (node-events
# reconciles first): two records each, whatever the trigger timing
LOGF=$T/state/charm-events/node-events.jsonl
n_changes=0
in_log() {
        js run slurmctld/0 node-events limit=1 >/dev/null
        [ "$(grep -c "$1" "$LOGF" 2>/dev/null)" -ge "$2" ]
}
change() {
        local k
        for k in $(seq "$1"); do
                n_changes=$((n_changes + 1))
                ctl scontrol update nodename=cpu-0 state=drain reason="evpush-$n_changes" >/dev/null
                until_true 30 "drain $n_changes not in the log" in_log "\"reason\":\"evpush-$n_changes\"" 1
                ctl scontrol update nodename=cpu-0 state=resume >/dev/null
                until_true 30 "resume $n_changes not in the log" in_log '"event":"resumed","node":"cpu-0"' "$n_changes"
        done
}
change 1

mx cpu/1 systemd-run -q -u evrecv "$T/event-receiver" "$PORT" "$RX" || die "receiver not started"
addr=$(js status --format=json | python3 -c 'import json, sys
print(json.load(sys.stdin)["applications"]["cpu"]["units"]["cpu/1"]["public-address"])')
URL="http://$addr:$PORT/events"

# received: "ok RAW UNIQUE LATEST" when the receiver holds every record node-events has (after
# dropping duplicate ids), each first arrival in seq order; else why not
received() {
        python3 - "$JS" "$RX" <<'PY'
import json, subprocess, sys
js, rx = sys.argv[1], sys.argv[2]
ids, since = [], 0
while True:
    out = subprocess.run([js, "run", "slurmctld/0", "node-events", f"since={since}", "limit=1000",
                          "--format=json"], capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    res = r[next(iter(r))]["results"]
    ids += [json.loads(l)["id"] for l in res["events"].splitlines() if l.strip()]
    if res.get("more") != "true":
        latest = int(res["latest-seq"])
        break
    since = int(res["next-since"])
try:
    got = [json.loads(l) for l in open(rx) if l.strip()]
except FileNotFoundError:
    got = []
seen, order = set(), []
for g in got:
    if g["id"] not in seen:
        seen.add(g["id"])
        order.append(g["seq"])
missing = [i for i in ids if i not in seen]
if missing:
    print(f"missing {len(missing)} of {len(ids)} (first {missing[0]}); got {len(got)} lines")
    sys.exit(1)
if order != sorted(order):
    print(f"out of order: {order}")
    sys.exit(1)
if len(ids) != latest or len(seen) != len(ids):
    print(f"log holds {len(ids)} records, latest seq {latest}; receiver has {len(seen)} ids")
    sys.exit(1)
print(f"ok {len(got)} {len(seen)} {latest}")
PY
}
all_arrive() {
        local why
        until_true "$1" "records missing at the receiver: $(received || true)" eval 'received >/dev/null'
        why=$(received)
        log "  receiver: ${why#ok } (raw lines, unique ids, latest seq)"
}
push_active() { [ "$(mx "$1" systemctl is-active juju-node-event-push.service)" = active ]; }
# evm NAME: the sample NAME from both controller units' metrics exporters (metrics-port 9092),
# one value per line: only the unit that pushes serves the push's figures
evm() {
        local u
        for u in slurmctld/0 slurmctld/1; do
                mx "$u" bash -c 'exec 3<>/dev/tcp/127.0.0.1/9092 || exit 7
printf "GET /metrics HTTP/1.0\r\n\r\n" >&3
cat <&3' 2>/dev/null | awk -v s="$1" '$1 == s { print $2 }'
        done
}

log "event-endpoint set: the records kept arrive, and every change after"
js config slurmctld event-endpoint="$URL" >/dev/null
settle 120
push_active slurmctld/0 || die "slurmctld/0: pusher not active"
push_active slurmctld/1 || die "slurmctld/1: pusher not active"
all_arrive 60
first_new=$(($(received | cut -d' ' -f4) + 1))
change 3
all_arrive 60
# the figure: each record's time in the log (when a reconcile or trigger wrote it) to its first
# arrival at the receiver, for the records of the last step (the receiver up throughout)
python3 - "$RX" "$first_new" <<'PY' || die "latency"
import datetime, json, sys
rx, first = sys.argv[1], int(sys.argv[2])
recs = [json.loads(l) for l in open(rx) if l.strip()]
arr = []
for l in open(rx + ".arrivals"):
    ms, n = map(int, l.split())
    arr += [ms] * n
assert len(arr) == len(recs), (len(arr), len(recs))
seen, lat = set(), []
for r, ms in zip(recs, arr):
    if r["id"] in seen or r["seq"] < first:
        continue
    seen.add(r["id"])
    t = datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    lat.append(ms - t.timestamp() * 1000)
lat.sort()
assert lat, "no record of the step"
print(f"charm-eventpush.sh: figure: log -> receiver, {len(lat)} records: median {lat[len(lat) // 2]:.0f} ms, "
      f"max {lat[-1]:.0f} ms (the pusher looks at the log every second)")
PY

latest=$(received | cut -d' ' -f4)
until_true 30 "the exporter's event figures: last $(evm slurm_events_last_seq), delivered $(evm slurm_events_delivered_seq), want $latest" \
        eval '[ "$(evm slurm_events_last_seq)" = "$latest" ] && [ "$(evm slurm_events_delivered_seq)" = "$latest" ]'
[ "$(evm slurm_events_waiting)" = 0 ] || die "slurm_events_waiting: $(evm slurm_events_waiting)"
[ "$(evm slurm_events_push_failing_seconds)" = 0 ] || die "failing: $(evm slurm_events_push_failing_seconds)"
log "  the exporter: slurm_events_last_seq = delivered = $latest, on one unit (the pusher)"

log "the receiver answers 503: the cursor stays, the status says so, all arrive once it is back"
touch "$RX.fail"
change 2
sleep 32
js trigger slurmctld update-status >/dev/null
settle 60
expect_status slurmctld/0 '; event push: [0-9]+ records? waiting, failing for [0-9]+ s \(.*answered 503'
until_true 30 "the exporter does not say the push fails" eval \
        '[ "$(evm slurm_events_waiting)" -gt 0 ] && [ "$(evm slurm_events_push_failing_seconds)" -ge 30 ]'
log "  the exporter: $(evm slurm_events_waiting) waiting, failing for $(evm slurm_events_push_failing_seconds) s"
rm -f "$RX.fail"
all_arrive 90
js trigger slurmctld update-status >/dev/null
settle 60
! status_is slurmctld/0 'event push' || die "slurmctld/0 still says: $(unit_status slurmctld/0)"

log "answers lost: the same records come again (duplicates, no gap)"
before=$(received)
touch "$RX.drop"
change 1
until_true 60 "no record sent twice" eval '[ "$(python3 -c "import json,sys; l=[json.loads(x)[\"id\"] for x in open(sys.argv[1]) if x.strip()]; print(len(l)-len(set(l)))" "$RX")" -gt 0 ]'
rm -f "$RX.drop"
all_arrive 90
after=$(received)
read -r _ raw0 uniq0 _ <<<"$before"
read -r _ raw1 uniq1 _ <<<"$after"
[ $((raw1 - raw0)) -gt $((uniq1 - uniq0)) ] || die "no duplicate seen: $before -> $after"

log "slurmctld restarts: its records arrive"
ctl systemctl restart slurmctld
change 1
all_arrive 90
grep -q '"event":"slurmctld-started"' "$RX" || die "no slurmctld-started record at the receiver"

log "the pushing service killed on each unit in turn: the other goes on from the same cursor"
for u in slurmctld/0 slurmctld/1; do
        mx "$u" systemctl kill -s KILL juju-node-event-push.service || true
        mx "$u" systemctl stop juju-node-event-push.service
        change 1
        all_arrive 60
        mx "$u" systemctl start juju-node-event-push.service
done

log "another endpoint: it gets every record kept, nothing counted lost"
before=$(received)
js config slurmctld event-endpoint="$URL?second=1" >/dev/null
settle 60
all_arrive 60
after=$(received)
read -r _ raw0 uniq0 _ <<<"$before"
read -r _ raw1 uniq1 _ <<<"$after"
[ $((raw1 - raw0)) -ge "$uniq1" ] || die "the new endpoint did not get every record: $before -> $after"
js trigger slurmctld update-status >/dev/null
settle 60
! status_is slurmctld/0 'event push' || die "slurmctld/0 says: $(unit_status slurmctld/0)"
URL="$URL?second=1"

log "a refused value keeps the pushing in place; empty stops it"
js config slurmctld event-endpoint="https://$addr/x" >/dev/null
settle 60
expect_status slurmctld/0 '^blocked event-endpoint: .*https is not supported'
grep -qx "$URL" "$(root_of slurmctld/0)/var/lib/slurm/charm/event-endpoint" || die "endpoint file changed"
change 1
all_arrive 60
js config slurmctld event-endpoint= >/dev/null
settle 60
for u in slurmctld/0 slurmctld/1; do
        ! push_active "$u" || die "$u: pusher still active"
        [ ! -e "$(root_of "$u")/etc/systemd/system/juju-node-event-push.service" ] || die "$u: unit file left"
        [ ! -e "$(root_of "$u")/var/lib/slurm/charm/event-endpoint" ] || die "$u: endpoint file left"
done
expect_status slurmctld/0 '^active '
until_true 30 "event figures still served: $(evm slurm_events_last_seq)" eval '[ -z "$(evm slurm_events_last_seq)" ]'
mx cpu/1 systemctl stop evrecv || true
log "ok"
