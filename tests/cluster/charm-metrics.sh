#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Metrics (issue 31 §2): each controller unit's exporter serves the cluster's figures from
# libslurm, the values match what Slurm's own commands say (nodes, CPUs, jobs by state,
# partition and user, a held job counted as one that cannot start, a held array of 31 tasks
# whose task list libslurm cuts; PrivateData=jobs said as a hidden part, users as no per-user
# figures), the text is what
# Prometheus' promtool takes, a real Prometheus (Debian's, the prometheus test charm) scrapes
# every controller unit through the metrics-endpoint relation with the Juju topology labels and
# loads the charm's alert rules; the port moves with metrics-port, a bad port is refused and
# changes nothing, a port another process holds is said in the status, 0 stops the exporter,
# the relation says why nothing is scraped and carries
# no alert rules; a
# takeover is counted by both units' exporters; a controller unit leaving leaves the other
# serving (control back: counted again); a frozen controller costs a scrape seconds,
# not its answer (the pings say it). Prints the scrape's time and its RPCs.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
PROM=${TOP_SRCDIR:?}/tests/charms/prometheus
for prog in /usr/bin/prometheus /usr/bin/promtool; do
        [ -x "$BASE_ROOT$prog" ] || die "$BASE_ROOT$prog missing (./dev installs prometheus)"
done

addr_of() {
        js status --format=json | python3 -c '
import json, sys
u = sys.argv[1]
print(json.load(sys.stdin)["applications"][u.split("/")[0]]["units"][u]["public-address"])' "$1"
}
# get UNIT HOST PORT PATH: an HTTP GET from inside UNIT's machine (bash's /dev/tcp: no curl on
# the machines), the body on stdout; fails when the answer is not 200
get() {
        js exec "$1" -- bash -c '
exec 3<>"/dev/tcp/$0/$1" || exit 7
printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$2" "$0" >&3
IFS= read -r status <&3
case $status in "HTTP/1."?" 200"*) ;; *) echo "$status" >&2; exit 8 ;; esac
while IFS= read -r h <&3 && [ "${h%$'"'"'\r'"'"'}" != "" ]; do :; done
cat <&3' "$2" "$3" "$4"
}
# value TEXT SAMPLE: the value of the exposition line "SAMPLE VALUE" (empty when absent)
value() { awk -v s="$2" '$1 == s { print $2; exit }' <<<"$1"; }
# want TEXT SAMPLE EXPECTED
want() {
        local v
        v=$(value "$1" "$2")
        [ "$v" = "$3" ] || die "$2 = \"$v\", want $3"
}

log "deploy two controllers, two compute nodes and Prometheus; integrate"
mkdir -p "$T/state"
js deploy "$CTL_CHARM" -n 2 --share "$T/state:/srv/slurm-state" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=20 >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js deploy "$PROM" >/dev/null
js integrate slurmctld cpu >/dev/null
js integrate slurmctld:metrics-endpoint prometheus >/dev/null
settle 300
expect_status slurmctld/0 '^active primary, in charge; 2 nodes in 1 partition$'
expect_status slurmctld/1 '^active backup 1, [^ ]+ in charge; 2 nodes in 1 partition$'
expect_status prometheus/0 '^active prometheus on '
c0=$(addr_of slurmctld/0)
c1=$(addr_of slurmctld/1)
p0=$(addr_of prometheus/0)

log "every controller unit serves the cluster at :9092/metrics (opened port, no status note)"
t0=$(get prometheus/0 "$c0" 9092 /metrics) || die "no metrics from slurmctld/0 at $c0:9092"
t1=$(get prometheus/0 "$c1" 9092 /metrics) || die "no metrics from slurmctld/1 at $c1:9092"
js status --format=json | grep -q '"9092/tcp"' || die "9092/tcp is not among the opened ports"
for t in "$t0" "$t1"; do
        want "$t" slurm_nodes 2
        want "$t" slurm_nodes_idle 2
        want "$t" 'slurm_partitions' 1
        want "$t" 'slurm_partition_nodes{partition="cpu"}' 2
        want "$t" 'slurm_scrape_error{what="jobs"}' 0
        want "$t" 'slurm_scrape_error{what="nodes"}' 0
        want "$t" 'slurm_scrape_error{what="statistics"}' 0
done
hosts=$(ctl scontrol show config | sed -n 's/^SlurmctldHost\[\([0-9]\)\] *= *\([^(]*\).*/\1 \2/p')
first=$(awk '$1 == 0 { print $2 }' <<<"$hosts")
second=$(awk '$1 == 1 { print $2 }' <<<"$hosts")
want "$t0" "slurm_controller_up{host=\"$first\"}" 1
want "$t0" "slurm_controller_up{host=\"$second\"}" 1
want "$t0" "slurm_controller_in_charge{host=\"$first\"}" 1
want "$t0" "slurm_controller_in_charge{host=\"$second\"}" 0
cpus=$(ctl scontrol -o show node cpu-0 | tr ' ' '\n' | sed -n 's/^CPUTot=//p')
mem=$(ctl scontrol -o show node cpu-0 | tr ' ' '\n' | sed -n 's/^RealMemory=//p')
want "$t0" 'slurm_node_cpus{node="cpu-0"}' "$cpus"
want "$t0" 'slurm_node_memory_bytes{node="cpu-0"}' "$((mem * 1024 * 1024))"
want "$t0" 'slurm_node_up{node="cpu-1"}' 1
printf '%s\n' "$t0" >"$T/metrics.txt"
promtool check metrics <"$T/metrics.txt" >"$T/promtool.out" 2>&1 || {
        cat "$T/promtool.out" >&2
        die "promtool check metrics refused the exposition"
}
log "  $(grep -c '^slurm_' "$T/metrics.txt") samples, $(wc -c <"$T/metrics.txt") bytes; promtool: well formed"

log "jobs: one running, one held, one drained node: the figures follow"
gate=$T/gate-metrics
run=$(submit -p cpu -n1 -w cpu-0 -o /dev/null --wrap "while [ ! -e $gate ]; do sleep 1; done")
held=$(submit -p cpu -n1 -H -o /dev/null --wrap true)
# a held array of 31 tasks whose list libslurm's text cuts at 64 bytes ("1,4,9,…,961")
tasks=$(for i in $(seq 1 31); do printf '%d,' $((i * i)); done)
tasks=${tasks%,}
array=$(submit -p cpu -n1 -H --array="$tasks" -o /dev/null --wrap true)
wait_job_state "$run" RUNNING 30
ctl scontrol update nodename=cpu-1 state=drain reason=metrics-test
sleep 6 # past the exporter's 5 s cache
t0=$(get prometheus/0 "$c0" 9092 /metrics)
want "$t0" slurm_jobs_running 1
want "$t0" slurm_jobs_pending 32
want "$t0" slurm_jobs_hold 32
want "$t0" slurm_jobs_pending_blocked 32
want "$t0" 'slurm_jobs_pending_reason{reason="JobHeldUser"}' 32
want "$t0" 'slurm_user_jobs_pending{username="root"}' 32
want "$t0" 'slurm_partition_jobs_running{partition="cpu"}' 1
want "$t0" 'slurm_user_jobs_running{username="root"}' 1
want "$t0" 'slurm_node_cpus_alloc{node="cpu-0"}' 1
want "$t0" slurm_jobs_cpus_alloc 1
want "$t0" slurm_nodes_drain 1
want "$t0" 'slurm_node_up{node="cpu-1"}' 0
want "$t0" 'slurm_node_up{node="cpu-0"}' 1
dur=$(value "$t0" slurm_scrape_duration_seconds)
rpcs=$(value "$t0" slurm_scrape_rpcs)
log "  scrape: ${dur} s, $rpcs RPCs (4 to the controller in charge, a ping per controller)"
[ "$rpcs" = 6 ] || die "slurm_scrape_rpcs = $rpcs, want 6 (4 + 2 pings)"
# what slurmctld itself counted between two scrapes (its RPC statistics, read by the scrape)
n1=$(value "$t0" 'slurm_rpc_type_calls_total{type="REQUEST_NODE_INFO"}')
sleep 6
t0=$(get prometheus/0 "$c0" 9092 /metrics)
n2=$(value "$t0" 'slurm_rpc_type_calls_total{type="REQUEST_NODE_INFO"}')
log "  REQUEST_NODE_INFO between two scrapes: $((n2 - n1)) (the scrape's own and the charms' meanwhile)"
[ "$((n2 - n1))" -ge 1 ] || die "REQUEST_NODE_INFO did not move between two scrapes ($n1 -> $n2)"
ctl scontrol update nodename=cpu-1 state=resume

log "PrivateData=jobs,users: the jobs part said hidden (not zeros), no per-user figures"
js config slurmctld slurm-conf-parameters="PrivateData=jobs,users" >/dev/null
settle
until_true 30 "the exporter does not say the jobs are hidden" eval \
        '[ "$(value "$(get prometheus/0 "$c0" 9092 /metrics)" "slurm_scrape_error{what=\"jobs\"}")" = 1 ]'
t0=$(get prometheus/0 "$c0" 9092 /metrics)
[ -z "$(value "$t0" slurm_jobs_running)" ] || die "slurm_jobs_running served with PrivateData=jobs"
! grep -qE '^slurm_(user|account)_jobs|^slurm_rpc_user' <<<"$t0" || die "per-user figures served with PrivateData=users"
js config slurmctld slurm-conf-parameters= >/dev/null
settle
until_true 30 "the jobs part did not come back" eval \
        '[ "$(value "$(get prometheus/0 "$c0" 9092 /metrics)" slurm_jobs_running)" = 1 ]'
ctl scancel "$held" "$array"
touch "$gate"
wait_job_state "$run" COMPLETED 30

log "Prometheus scrapes both units through the relation, with the Juju topology, and loads the rules"
query() { get prometheus/0 "$p0" 9090 "/api/v1/query?query=$1"; }
until_true 60 "Prometheus has no slurm_nodes from both units" eval \
        '[ "$(query slurm_nodes | jq "[.data.result[] | select(.value[1] == \"2\")] | length")" = 2 ]'
r=$(query slurm_nodes)
for u in slurmctld/0 slurmctld/1; do
        jq -e --arg u "$u" '.data.result[] | select(.metric.juju_unit == $u and .metric.juju_application == "slurmctld"
                and .metric.juju_charm == "slurmctld" and (.metric.juju_model | length > 0))' <<<"$r" >/dev/null ||
                die "no slurm_nodes sample of $u with the Juju topology: $r"
done
up=$(query up)
[ "$(jq '[.data.result[] | select(.value[1] == "1")] | length' <<<"$up")" = 2 ] || die "targets up: $up"
rules=$(get prometheus/0 "$p0" 9090 /api/v1/rules)
for a in SlurmNoControllerAnswering SlurmNodeNotUp SlurmdbdNotTakingRecords SlurmControllerFailover; do
        jq -e --arg a "$a" '.data.groups[].rules[] | select(.name == $a)' <<<"$rules" >/dev/null ||
                die "alert rule $a not loaded: $(jq -c '[.data.groups[].name]' <<<"$rules")"
done
until_true 30 "the rules were not evaluated without error" eval \
        '[ "$(get prometheus/0 "$p0" 9090 /api/v1/rules | jq "[.data.groups[].rules[] | select(.health != \"ok\")] | length")" = 0 ]'
log "  2 targets up, $(jq '[.data.groups[].rules[]] | length' <<<"$rules") alert rules loaded and evaluated"

log "metrics-port=9100: the exporter moves, the relation and Prometheus follow"
js config slurmctld metrics-port=9100 >/dev/null
settle
get prometheus/0 "$c0" 9100 /metrics >/dev/null || die "no exporter on :9100"
if get prometheus/0 "$c0" 9092 /metrics >/dev/null 2>&1; then die "still an exporter on :9092"; fi
js status --format=json | grep -q '"9100/tcp"' || die "9100/tcp is not opened"
! js status --format=json | grep -q '"9092/tcp"' || die "9092/tcp is still opened"
until_true 60 "Prometheus does not scrape :9100" eval \
        '[ "$(query up | jq "[.data.result[] | select(.value[1] == \"1\" and (.metric.instance | endswith(\":9100\")))] | length")" = 2 ]'

log "a bad port is refused in the status and changes nothing"
for bad in 6817 80 70000; do
        js config slurmctld metrics-port=$bad >/dev/null
        settle
        expect_status slurmctld/0 "metrics-port: $bad"
        get prometheus/0 "$c0" 9100 /metrics >/dev/null || die "metrics-port=$bad: the exporter left :9100"
done
js config slurmctld metrics-port=9100 >/dev/null
settle
if unit_status slurmctld/0 | grep -q 'metrics-port'; then die "refusal still shown: $(unit_status slurmctld/0)"; fi

log "a port another process holds: the status says the exporter does not run"
bin=$(js exec slurmctld/0 -- systemctl show -p ExecStart --value juju-slurm-metrics.service | sed -n 's/.*path=\([^ ;]*\).*/\1/p')
[ -n "$bin" ] || die "no ExecStart path for juju-slurm-metrics.service"
js exec slurmctld/0 -- systemd-run --quiet --unit=squat9200 "$bin" --unit squatter --port 9200
js config slurmctld metrics-port=9200 >/dev/null
settle
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '; metrics exporter not running \(.*port 9200 taken by another process'
log "  $(unit_status slurmctld/0 | grep -o 'metrics exporter not running[^;]*')"
js exec slurmctld/0 -- systemctl stop squat9200

log "metrics-port=0: no exporter, no port, the relation says why nothing is scraped"
js config slurmctld metrics-port=0 >/dev/null
settle
if get prometheus/0 "$c0" 9100 /metrics >/dev/null 2>&1; then die "an exporter still on :9100"; fi
expect_status slurmctld/0 'metrics-endpoint related but metrics-port is 0'
! js status --format=json | grep -q '"9100/tcp"' || die "9100/tcp is still opened"
# (-1 while Prometheus reloads: it answers 503 for a moment)
nrules() {
        local n
        n=$(get prometheus/0 "$p0" 9090 /api/v1/rules 2>/dev/null | jq '[.data.groups[].rules[]] | length')
        echo "${n:--1}"
}
until_true 30 "alert rules still loaded with no exporter ($(nrules))" eval '[ "$(nrules)" = 0 ]'
js config slurmctld metrics-port=9092 >/dev/null
settle
get prometheus/0 "$c1" 9092 /metrics >/dev/null || die "slurmctld/1: no exporter back on :9092"
until_true 30 "no alert rules back with the exporter" eval '[ "$(nrules)" -gt 0 ]'

log "the takeover action: each exporter counts the change of the controller in charge"
# (after the last port change: a restarted exporter counts from 0)
failovers() { value "$(get prometheus/0 "$1" 9092 /metrics)" slurm_controller_failovers_total; }
f0=$(failovers "$c0")
f1=$(failovers "$c1")
[ "$f0" = 0 ] && [ "$f1" = 0 ] || die "failovers before any: $f0, $f1"
[ "$(js exec slurmctld/0 -- hostname)" = "$first" ] || die "slurmctld/0 is not $first"
out=$(js run slurmctld/1 takeover 2>&1) || die "takeover failed: $out"
grep -q "in-charge: $second" <<<"$out" || die "takeover: $out"
until_true 30 "slurmctld/0's exporter did not count the takeover" eval '[ "$(failovers "$c0")" = 1 ]'
until_true 30 "slurmctld/1's exporter did not count the takeover" eval '[ "$(failovers "$c1")" = 1 ]'
want "$(get prometheus/0 "$c0" 9092 /metrics)" "slurm_controller_in_charge{host=\"$second\"}" 1
settle

log "a controller unit leaves: the other one serves on, with one controller"
js remove-unit slurmctld/1 >/dev/null
settle 300
until_true 60 "slurmctld/0 still names two controllers" eval \
        '[ "$(get prometheus/0 "$c0" 9092 /metrics | grep -c "^slurm_controller_up{")" = 1 ]'
t0=$(get prometheus/0 "$c0" 9092 /metrics)
want "$t0" "slurm_controller_in_charge{host=\"$first\"}" 1
want "$t0" slurm_controller_failovers_total 2
log "the controller frozen (SIGSTOP): the scrape answers within seconds with the ping's verdict"
pid=$(js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld.service)
[ "${pid:-0}" -gt 0 ] || die "no slurmctld main PID"
js exec slurmctld/0 -- kill -STOP "$pid"
sleep 6 # past the cache
s0=$SECONDS
t0=$(get prometheus/0 "$c0" 9092 /metrics) || die "no answer while slurmctld is frozen"
log "  answered in $((SECONDS - s0)) s"
[ $((SECONDS - s0)) -le 12 ] || die "the scrape took $((SECONDS - s0)) s with the controller frozen"
want "$t0" "slurm_controller_up{host=\"$first\"}" 0
want "$t0" 'slurm_scrape_error{what="nodes"}' 1
[ -z "$(value "$t0" slurm_nodes)" ] || die "slurm_nodes served while no controller answers"
js exec slurmctld/0 -- kill -CONT "$pid" # (a failure before: the model's destruction ends it)
sleep 6
t0=$(get prometheus/0 "$c0" 9092 /metrics)
until_true 30 "the figures did not come back" eval '[ "$(value "$(get prometheus/0 "$c0" 9092 /metrics)" slurm_nodes)" = 2 ]'
log "PASS"
