#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The controller's operator actions (issue 11) on a real cluster: two controller units (the
# second one a non-leader backup), two compute units, SlurmUser=slurm as the charm's template
# sets it (checked, not assumed). Every action with good and bad parameters; a bad parameter
# fails with its message and changes nothing (node table and reservations compared); drain ->
# resume visible in sinfo; a reservation keeps a new job off its node and unreserve lets it
# run; job-find finds a running job by node and user; arrays, het jobs and every step of a job;
# node-down says which jobs it killed or requeued and keeps the node out until node-resume; no
# job is lost; a stopped slurmctld is named at once. Prints action latencies.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

# the controllers share StateSaveLocation, so that a second unit can join later (charm/slurmctld/ha.h)
mkdir -p "$T/state"
js deploy "$CTL_CHARM" --share "$T/state:/srv/slurm-state" --config state-save-location=/srv/slurm-state >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js integrate slurmctld cpu >/dev/null
settle 180
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'

# act UNIT ACTION ARGS…: runs the action (must succeed); its results as JSON in $T/res.
act() {
        js run "$@" --format=json >"$T/res" 2>"$T/err" || die "$2 ${*:3}: failed: $(cat "$T/err")"
}
# r KEY: one result of the last act ("" when absent); KEY dotted ("nodes.cpu-0.state").
r() {
        python3 - "$T/res" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = list(d.values())[0]["results"]
for k in sys.argv[2].split("."):
    v = v.get(k, "") if isinstance(v, dict) else ""
print(v if not isinstance(v, dict) else ",".join(sorted(v)))
PY
}
# snap: what a refused action must not change (node states, reasons, weights, features,
# comments, gres; reservations).
# With SNAP_JOBS set (the read-only job-* actions, while the test's jobs start and end) a node's
# State is left out: the scheduler changes it between two snapshots (seen: IDLE -> MIXED).
# +PLANNED is always left out: the backfill scheduler marks the nodes it plans a pending job on
# at each pass (seen in a fresh-clone run: +PLANNED added between two snapshots around a
# refused node-reserve), which is the scheduler's, not an action's, change.
snap() {
        ctl scontrol -o show node | tr ' ' '\n' |
                grep -E '^(NodeName|State|Reason|Weight|AvailableFeatures|ActiveFeatures|Comment|Gres)=' |
                sed 's/+PLANNED//' |
                { if [ -n "${SNAP_JOBS:-}" ]; then grep -v '^State='; else cat; fi; } || true
        ctl scontrol -o show reservation 2>/dev/null | sed 's/ TRES=.*//' || true
        # the triggers (issue 29), sorted: slurmctld re-queues a permanent trigger when it fires
        ctl strigger --get 2>/dev/null | sort || true
}
# fails PATTERN UNIT ACTION ARGS…: the action fails, its message matches PATTERN (extended
# regex), and nothing changed.
fails() {
        local pat=$1 before after
        shift
        before=$(snap)
        if js run "$@" >"$T/out" 2>&1; then
                die "$2 ${*:3}: succeeded: $(cat "$T/out")"
        fi
        grep -Eq -- "$pat" "$T/out" || die "$2 ${*:3}: message \"$(cat "$T/out")\", want /$pat/"
        after=$(snap)
        [ "$before" = "$after" ] || die "$2 ${*:3} failed but changed: $(diff <(echo "$before") <(echo "$after"))"
}
sinfo_state() { ctl sinfo -h -N -n "$1" -o %t; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed NAME UNIT ACTION ARGS…: act, and record its wall time for the figures.
FIGURES=()
timed() {
        local name=$1 t0
        shift
        t0=$(now_ms)
        act "$@"
        FIGURES+=("$name $(($(now_ms) - t0)) ms")
}
JOBS=() # every job this test submits; checked at the end (none lost)
sub() {
        local j
        j=$(submit "$@")
        JOBS+=("$j")
        echo "$j"
}

log "slurm-config: SlurmUser=slurm as in production, items in any spelling"
timed "slurm-config (all keys)" slurmctld/0 slurm-config
[ "$(r config.slurm-user)" = "slurm(64030)" ] || [[ "$(r config.slurm-user)" == slurm\(* ]] ||
        die "SlurmUser: \"$(r config.slurm-user)\" (the cluster must run as in production)"
[ "$(r count)" -gt 150 ] || die "slurm-config: only $(r count) keys"
[ "$(r config.select-type)" = select/cons_tres ] || die "select-type: $(r config.select-type)"
# Slurm's default topology plugin: topology/none (22.05), topology/default (24.11)
topo=topology/none
[ -z "$CHARM_BASE" ] || topo=topology/default
for item in TopologyPlugin topology_plugin topology-plugin TOPOLOGYPLUGIN; do
        act slurmctld/0 slurm-config item="$item"
        [ "$(r item)" = TopologyPlugin ] && [ "$(r config.topology-plugin)" = "$topo" ] ||
                die "item=$item: $(cat "$T/res")"
done
act slurmctld/0 slurm-config item=boot_time
[[ "$(r config.boot-time)" == 20* ]] || die "BOOT_TIME: $(cat "$T/res")"
fails 'slurm-config: unknown item "NoSuchKey"' slurmctld/0 slurm-config item=NoSuchKey
fails 'slurm-config: item: "a b" is not a configuration key' slurmctld/0 slurm-config item="a b"
fails 'additional property "foo"' slurmctld/0 slurm-config foo=1

log "node-get: every field, applications expanded, unknown names under missing"
timed "node-get (2 nodes)" slurmctld/0 node-get nodes=cpu-[0-1],nope-3,cpu
[ "$(r count)" = 2 ] && [ "$(r missing)" = nope-3 ] || die "node-get: $(cat "$T/res")"
for f in name state cpus alloc-cpus memory alloc-memory features active-features partitions weight \
        boot-time slurmd-start-time version address hostname; do
        [ -n "$(r "nodes.cpu-0.$f")" ] || die "node-get: no $f: $(cat "$T/res")"
done
[ "$(r nodes.cpu-0.state)" = IDLE+DYNAMIC_NORM ] || die "state: $(r nodes.cpu-0.state)"
[ "$(r nodes.cpu-1.partitions)" = cpu ] && [ "$(r nodes.cpu-1.features)" = cpu ] || die "node-get: $(cat "$T/res")"
[ "$(r nodes.cpu-0.version)" = "$SLURM_VERSION" ] || die "version: $(r nodes.cpu-0.version)"
act slurmctld/0 node-get nodes=ghost-[1-2]
[ "$(r count)" = 0 ] && [ "$(r missing)" = ghost-1,ghost-2 ] || die "all missing: $(cat "$T/res")"
fails 'node-get: nodes: "cpu-\[0-" is not a hostlist expression' slurmctld/0 node-get 'nodes=cpu-[0-'
fails 'node-get: nodes: "ALL" names every node' slurmctld/0 node-get nodes=ALL
fails 'node-get: nodes: more than|names more than 4096' slurmctld/0 node-get 'nodes=n[0-99999]'
fails '"nodes" property is missing and required' slurmctld/0 node-get
fails 'additional property "reason"' slurmctld/0 node-get nodes=cpu-0 reason=x

log "node-drain -> node-resume round trip, visible in sinfo"
timed "node-drain (1 node)" slurmctld/0 node-drain nodes=cpu-0 reason="swap the PSU (ticket 42)"
[ "$(r changed)" = cpu-0 ] && [ "$(r nodes.cpu-0.reason)" = "swap the PSU (ticket 42)" ] || die "drain: $(cat "$T/res")"
[ "$(sinfo_state cpu-0)" = drain ] || die "sinfo after drain: $(sinfo_state cpu-0)"
[ "$(sinfo_state cpu-1)" = idle ] || die "cpu-1 changed: $(sinfo_state cpu-1)"
act slurmctld/0 node-get nodes=cpu-0
[ "$(r nodes.cpu-0.reason-user)" = root ] && [[ "$(r nodes.cpu-0.reason-time)" == 20* ]] || die "reason: $(cat "$T/res")"
act slurmctld/0 node-drain nodes=cpu-1
[ "$(r nodes.cpu-1.reason)" = "node-drain action" ] || die "default reason: $(cat "$T/res")"
timed "node-resume (2 nodes)" slurmctld/0 node-resume nodes=cpu-[0-1]
[ "$(r changed)" = "cpu-[0-1]" ] || die "resume: $(cat "$T/res")"
[ "$(sinfo_state cpu-0)" = idle ] && [ "$(sinfo_state cpu-1)" = idle ] || die "sinfo after resume: $(ctl sinfo -N)"
[ "$(r nodes.cpu-0.state)" = IDLE+DYNAMIC_NORM ] || die "resume result: $(cat "$T/res")"
# issue 29: the node event log says who changed the nodes (one "action" record per node, in
# the log's one sequence), beside the state changes it records itself
ctl cat /var/lib/slurm/charm/events/node-events.jsonl >"$T/events"
python3 - "$T/events" <<'PY' || die "action records: $(tail -n 8 "$T/events")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
seqs = [r["seq"] for r in recs]
assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
acts = [(r["action"], r["node"], r.get("reason"), r["by"], r["source"]) for r in recs if r["event"] == "action"]
want = [("node-drain", "cpu-0", "swap the PSU (ticket 42)"), ("node-drain", "cpu-1", "node-drain action"),
        ("node-resume", "cpu-0", None), ("node-resume", "cpu-1", None)]
got = [a[:3] for a in acts]
assert got == want, got
assert all(a[3].startswith("slurmctld/0 action ") and a[4] == "action" for a in acts), acts
PY
act slurmctld/0 node-resume nodes=cpu-0
[ "$(r unchanged)" = cpu-0 ] && [ "$(r changed)" = none ] || die "resume of an idle node: $(cat "$T/res")"
fails 'node-drain: unknown node "cpu-9": nothing changed' slurmctld/0 node-drain nodes=cpu-1,cpu-9
fails 'node-drain: unknown nodes "x-1", "x-2": nothing changed' slurmctld/0 node-drain nodes=x-[1-2]
fails 'node-drain: nodes: "cpu" is an application .*allow-application=true' slurmctld/0 node-drain nodes=cpu
fails 'node-drain: reason: give 1 to 128 characters' slurmctld/0 node-drain nodes=cpu-0 reason=
fails 'node-drain: reason: give 1 to 128 characters' slurmctld/0 node-drain nodes=cpu-0 reason="$(printf 'x%.0s' {1..129})"
fails 'node-drain: reason: only printable ASCII' slurmctld/0 node-drain nodes=cpu-0 reason="$(printf 'a\tb')"
fails 'node-drain: nodes: "ALL"' slurmctld/0 node-drain nodes=all
fails '\(root\)\.allow-application : must be of type boolean' slurmctld/0 node-drain nodes=cpu-0 allow-application=maybe
fails 'node-resume: unknown node "cpu-5"' slurmctld/0 node-resume nodes=cpu-5
fails 'additional property "reason"' slurmctld/0 node-resume nodes=cpu-0 reason=x
act slurmctld/0 node-drain nodes=cpu allow-application=true reason=app
[ "$(r changed)" = "cpu-[0-1]" ] || die "drain of the application: $(cat "$T/res")"
[ "$(sinfo_state cpu-0)" = drain ] && [ "$(sinfo_state cpu-1)" = drain ] || die "sinfo: $(ctl sinfo -N)"
act slurmctld/0 node-resume nodes=cpu allow-application=true
[ "$(sinfo_state cpu-0)" = idle ] && [ "$(sinfo_state cpu-1)" = idle ] || die "sinfo: $(ctl sinfo -N)"

log "node-update: weight, features (the application's kept), comment; refusals change nothing"
node_field() { ctl scontrol -o show node "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
timed "node-update (1 node)" slurmctld/0 node-update nodes=cpu-0 weight=7 features=big,ssd comment="rack 3"
[ "$(node_field cpu-0 Weight)" = 7 ] || die "Weight: $(node_field cpu-0 Weight)"
[ "$(node_field cpu-0 AvailableFeatures)" = cpu,big,ssd ] || die "features: $(node_field cpu-0 AvailableFeatures)"
[ "$(node_field cpu-0 ActiveFeatures)" = cpu,big,ssd ] || die "active: $(node_field cpu-0 ActiveFeatures)"
ctl scontrol show node cpu-0 | grep -q 'Comment=rack 3$' || die "comment: $(ctl scontrol show node cpu-0)"
[ "$(r nodes.cpu-0.kept-features)" = cpu ] || die "kept-features: $(cat "$T/res")"
[[ "$(r warning)" == *node-config*replaces* ]] || die "no node-config warning: $(cat "$T/res")"
[ "$(ctl sinfo -h -N -n cpu-0 -o %P)" = 'cpu*' ] || die "cpu-0 left its partition"
act slurmctld/0 node-update nodes=cpu-0 active-features=big
[ "$(node_field cpu-0 ActiveFeatures)" = cpu,big ] || die "active features: $(node_field cpu-0 ActiveFeatures)"
fails 'node-update: active-features: "cpu,huge" on node "cpu-0" is not a subset' slurmctld/0 node-update nodes=cpu-0 active-features=huge
fails 'node-update: give at least one of weight' slurmctld/0 node-update nodes=cpu-0
fails 'node-update: features: Features: "a b" is not a feature name' slurmctld/0 node-update nodes=cpu-0 features="a b"
fails 'node-update: gres: Gres: "gpu::2"' slurmctld/0 node-update nodes=cpu-0 gres="gpu::2"
# hardware the node has not proven (issue 26, item 2: slurmctld takes any count, and a
# --gres=gpu:1 job then ran on a node without GPUs)
fails 'node-update: gres: node "cpu-0" would have 8 gpu, and it has proven 0 .*node-config' \
        slurmctld/0 node-update nodes=cpu-0 gres=gpu:8
fails 'node-update: gres: node "cpu-0" would have 1 gpu, and it has proven 0' slurmctld/0 node-update nodes=cpu-[0-1] gres=gpu:1
fails 'node-update: gres: node "cpu-0" would share its gpu among any number of jobs \(no_consume\)' \
        slurmctld/0 node-update nodes=cpu-0 gres=gpu:no_consume:0
# the action's schema (minimum: 1) refuses it before the charm runs, as Juju's controller does
fails '\(root\)\.weight : must be greater than or equal to 1, given 0' slurmctld/0 node-update nodes=cpu-0 weight=0
fails '\(root\)\.weight : must be of type integer' slurmctld/0 node-update nodes=cpu-0 weight=heavy
# juju run parses values as YAML (a newline folds to a space): --string-args keeps it raw
fails 'node-update: comment: give 0 to 256 printable' slurmctld/0 node-update nodes=cpu-0 comment="$(printf 'a\nb')" --string-args
fails 'node-update: unknown node "cpu-4": nothing changed' slurmctld/0 node-update nodes=cpu-[0-1],cpu-4 weight=3
act slurmctld/0 node-update nodes=cpu-0 weight=1 features= comment= gres=
[ "$(node_field cpu-0 AvailableFeatures)" = cpu ] && [ "$(node_field cpu-0 Weight)" = 1 ] ||
        die "reset: $(ctl scontrol -o show node cpu-0)"

log "node-reserve: a new job waits for the reserved node; node-unreserve lets it run"
timed "node-reserve (create)" slurmctld/0 node-reserve nodes=cpu-0 duration=30
[ "$(r created)" = true ] && [ "$(r reservation.nodes)" = cpu-0 ] && [ "$(r reservation.duration)" = 30 ] ||
        die "reserve: $(cat "$T/res")"
[ "$(r reservation.flags)" = MAINT,OVERLAP,IGNORE_JOBS,SPEC_NODES ] || die "flags: $(r reservation.flags)"
[ "$(r reservation.users)" = root ] || die "users: $(r reservation.users)"
blocked=$(sub -w cpu-0 -o /dev/null --wrap "sleep 1")
sleep 3
[ "$(job_field "$blocked" JobState)" = PENDING ] || die "job $blocked on a reserved node: $(job_field "$blocked" JobState)"
log "job $blocked pending: $(job_field "$blocked" Reason)"
timed "node-reserve (merge)" slurmctld/0 node-reserve nodes=cpu-[0-1]
[ "$(r created)" = false ] && [ "$(r added)" = cpu-1 ] && [ "$(r already-reserved)" = cpu-0 ] &&
        [ "$(r reservation.nodes)" = "cpu-[0-1]" ] || die "merge: $(cat "$T/res")"
fails 'node-reserve: reservation "maintenance" exists with another duration' slurmctld/0 node-reserve nodes=cpu-1 duration=60
fails 'node-reserve: reservation "maintenance" exists with another users' slurmctld/0 node-reserve nodes=cpu-1 users=slurm
fails 'node-reserve: start: "yesterday" is not "now" or an ISO-8601 time' slurmctld/0 node-reserve nodes=cpu-1 start=yesterday
fails 'node-reserve: start: "2001-01-01T00:00" is in the past' slurmctld/0 node-reserve nodes=cpu-1 start=2001-01-01T00:00 name=r2
fails 'node-reserve: start: "2031-02-30T00:00" is not' slurmctld/0 node-reserve nodes=cpu-1 start=2031-02-30T00:00 name=r2
fails '\(root\)\.duration : must be greater than or equal to 1, given 0' slurmctld/0 node-reserve nodes=cpu-1 duration=0 name=r2
fails 'node-reserve: flags: unknown reservation flag "FAST"' slurmctld/0 node-reserve nodes=cpu-1 flags=MAINT,FAST name=r2
fails 'node-reserve: flags: "ANY_NODES" is not offered here' slurmctld/0 node-reserve nodes=cpu-1 flags=ANY_NODES name=r2
fails 'node-reserve: name: "a b" is not a reservation name' slurmctld/0 node-reserve nodes=cpu-1 name="a b"
fails 'node-reserve: users: "a b" is not a name' slurmctld/0 node-reserve nodes=cpu-1 users="a b" name=r2
fails 'node-reserve: unknown node "cpu-7"' slurmctld/0 node-reserve nodes=cpu-7
# overlap: Slurm lets a reservation overlap one with MAINT or OVERLAP; two without both clash
act slurmctld/0 node-reserve nodes=cpu-1 name=r2 flags=IGNORE_JOBS duration=10
fails 'node-reserve: .*overlaps.* add OVERLAP' slurmctld/0 node-reserve nodes=cpu-1 name=r3 flags=IGNORE_JOBS
act slurmctld/0 node-unreserve nodes=cpu-1 name=r2
[ "$(r deleted)" = true ] || die "r2: $(cat "$T/res")"
# deleting r2 clears cpu-1's MAINTENANCE+RESERVED flags, and slurmctld sets them again for the
# "maintenance" reservation only at a later pass of its own: a refusal's snapshots must not fall
# around that (seen in a whole run: State=IDLE+DYNAMIC_NORM before, +MAINTENANCE+RESERVED after)
until_true 120 "cpu-1 not back in the maintenance reservation: $(node_field cpu-1 State)" \
        eval '[[ "$(node_field cpu-1 State)" == *MAINTENANCE* ]]'
fails 'node-reserve: .*(Invalid user|User).*check users' slurmctld/0 node-reserve nodes=cpu-1 name=r2 users=nosuchuser
start=$(date -d '+2 hours' +%Y-%m-%dT%H:%M:00)
act slurmctld/0 node-reserve nodes=cpu-1 name=later start="$start" duration=15 flags=MAINT,OVERLAP users=root,slurm
[ "$(r reservation.start)" = "$start" ] && [ "$(r reservation.users)" = root,slurm ] || die "later: $(cat "$T/res")"
timed "node-unreserve" slurmctld/0 node-unreserve nodes=cpu-0
[ "$(r removed)" = cpu-0 ] && [ "$(r deleted)" = false ] && [ "$(r reservation.nodes)" = cpu-1 ] ||
        die "unreserve: $(cat "$T/res")"
wait_job_state "$blocked" COMPLETED 30
log "job $blocked ran once its node left the reservation"
act slurmctld/0 node-unreserve nodes=cpu-[0-1]
[ "$(r deleted)" = true ] && [ "$(r removed)" = cpu-1 ] && [ "$(r not-reserved)" = cpu-0 ] || die "last node: $(cat "$T/res")"
ctl scontrol show reservation maintenance >/dev/null 2>&1 && die "reservation maintenance still there"
fails 'node-unreserve: no reservation "maintenance" \(reservations: later\): nothing changed' slurmctld/0 node-unreserve nodes=cpu-0
fails 'additional property "duration"' slurmctld/0 node-unreserve nodes=cpu-0 duration=5
act slurmctld/0 node-unreserve nodes=cpu-1 name=later
[ "$(r deleted)" = true ] || die "later: $(cat "$T/res")"

log "busy: a reservation without IGNORE_JOBS on a node that runs a job"
busy=$(sub -w cpu-1 -o /dev/null --wrap "sleep 20")
wait_job_state "$busy" RUNNING 30
fails 'node-reserve: .*busy.*IGNORE_JOBS' slurmctld/0 node-reserve nodes=cpu-1 name=r3 flags=MAINT

log "job-find: a running job by node and user; criteria AND-ed"
timed "job-find (node, user)" slurmctld/0 job-find node=cpu-1 user=root
[ "$(r job-ids)" = "$busy" ] && [ "$(r "jobs.$busy.state")" = RUNNING ] && [ "$(r "jobs.$busy.batch-host")" = cpu-1 ] ||
        die "job-find: $(cat "$T/res")"
act slurmctld/0 job-find node=cpu-1 user=slurm
[ "$(r count)" = 0 ] && [ "$(r job-ids)" = none ] || die "job-find user=slurm: $(cat "$T/res")"
act slurmctld/0 job-find state=running,pending partition=cpu
[ "$(r job-ids)" = "$busy" ] || die "job-find state: $(cat "$T/res")"
act slurmctld/0 job-find user=0 batch-host=cpu-1 name=wrap
[ "$(r job-ids)" = "$busy" ] || die "job-find uid: $(cat "$T/res")"
SNAP_JOBS=1
fails 'job-find: give at least one criterion' slurmctld/0 job-find
fails 'job-find: state: "RUNNIN" is not a job state' slurmctld/0 job-find state=RUNNIN
fails 'job-find: node: "cpu-\[" is not a hostlist' slurmctld/0 job-find 'node=cpu-['
fails 'job-find: user: "a b" is not a name' slurmctld/0 job-find user="a b"
fails 'additional property "jobid"' slurmctld/0 job-find jobid=1
SNAP_JOBS=

log "job-get: plain, array, het; unknown ids under missing"
arr=$(sub -a 0-3 -o /dev/null --wrap "sleep 2")
het=$(sub -o /dev/null --wrap "sleep 2" : -o /dev/null --wrap "sleep 2")
sleep 1
timed "job-get (array, het, missing)" slurmctld/0 job-get jobids="$busy,${arr}_1 ${het}+1,999999"
[ "$(r count)" = 3 ] && [ "$(r missing)" = 999999 ] || die "job-get: $(cat "$T/res")"
[ "$(r "jobs.$busy.job-id")" = "$busy" ] && [ "$(r "jobs.$busy.user")" = root ] &&
        [ "$(r "jobs.$busy.nodes")" = cpu-1 ] && [ "$(r "jobs.$busy.exit-code")" = 0:0 ] || die "job-get: $(cat "$T/res")"
python3 - "$T/res" "$arr" "$het" <<'PY' || die "job-get: array task / het component: $(cat "$T/res")"
import json, sys
d = list(json.load(open(sys.argv[1])).values())[0]["results"]["jobs"]
ids = {v["job-id"] for v in d.values()}
arr, het = sys.argv[2], sys.argv[3]
assert f"{het}+1" in ids, ids
assert f"{arr}_1" in ids or any(i.startswith(f"{arr}_[") for i in ids), ids
PY
act slurmctld/0 job-get jobids="$arr"
[ "$(r count)" -ge 1 ] || die "job-get of an array: $(cat "$T/res")"
act slurmctld/0 job-get jobids="$het"
[ "$(r count)" = 2 ] || die "job-get of a het job: $(cat "$T/res")"
act slurmctld/0 job-get jobids=999998
[ "$(r count)" = 0 ] && [ "$(r missing)" = 999998 ] || die "only missing: $(cat "$T/res")"
SNAP_JOBS=1
fails 'job-get: jobids: "12x" is not a job id' slurmctld/0 job-get jobids=12x
fails 'job-get: jobids: "0" is not a job id' slurmctld/0 job-get jobids=0
fails 'job-get: jobids: give job ids' slurmctld/0 job-get jobids=, --string-args # "," alone is no YAML
fails '"jobids" property is missing and required' slurmctld/0 job-get

log "job-steps: every step of a job, as Slurm names them"
steps=$(sub -n 2 -o /dev/null --wrap 'srun -n1 --overlap sleep 15 & srun -n1 --overlap sleep 15 & wait')
wait_job_state "$steps" RUNNING 60
for ((i = 0; i < 50; i++)); do
        [ "$(ctl squeue -h -s -j "$steps" | wc -l)" -ge 3 ] && break
        sleep 0.2
done
timed "job-steps (3 steps)" slurmctld/0 job-steps jobids="$steps,999997"
[ "$(r "jobs.$steps.step-count")" = 3 ] && [ "$(r missing)" = 999997 ] || die "job-steps: $(cat "$T/res")"
[ "$(r "jobs.$steps.steps.batch.step-id")" = "$steps.batch" ] && [ "$(r "jobs.$steps.steps.0.step-id")" = "$steps.0" ] &&
        [ "$(r "jobs.$steps.steps.1.step-id")" = "$steps.1" ] && [ "$(r "jobs.$steps.steps.1.name")" = sleep ] ||
        die "job-steps: $(cat "$T/res")"
fails 'job-steps: jobids: "1.batch" is not a job id' slurmctld/0 job-steps jobids=1.batch
fails 'additional property "steps"' slurmctld/0 job-steps jobids=1 steps=all
SNAP_JOBS=

log "node-down: the result names the jobs it killed or requeued; the node stays out until resume"
wait_job_state "$busy" COMPLETED 40
wait_job_state "$steps" COMPLETED 40
requeue=$(sub -w cpu-1 --mem=100 -o /dev/null --wrap "sleep 60")
wait_job_state "$requeue" RUNNING 30
norequeue=$(sub -w cpu-1 --mem=100 --no-requeue -o /dev/null --wrap "sleep 60")
wait_job_state "$norequeue" RUNNING 30
elsewhere=$(sub -w cpu-0 --mem=100 -o /dev/null --wrap "sleep 8")
wait_job_state "$elsewhere" RUNNING 30
fails 'node-down: unknown node "cpu-3": nothing changed' slurmctld/0 node-down nodes=cpu-1,cpu-3
fails 'node-down: reason: give 1 to 128' slurmctld/0 node-down nodes=cpu-1 reason=
[ "$(job_field "$requeue" JobState)" = RUNNING ] || die "a refused node-down touched job $requeue"
timed "node-down (2 jobs)" slurmctld/0 node-down nodes=cpu-1 reason="bad DIMM"
[ "$(r "jobs.$requeue.outcome")" = requeued ] && [ "$(r "jobs.$norequeue.outcome")" = killed ] &&
        [ "$(r jobs-killed)" = "$norequeue" ] && [ "$(r jobs-requeued)" = "$requeue" ] ||
        die "node-down result: $(cat "$T/res")"
[[ "$(r warning)" == *kills* ]] || die "node-down: no warning: $(cat "$T/res")"
[ -z "$(r "jobs.$elsewhere.outcome")" ] || die "node-down reported a job of another node"
sleep 5 # ReturnToService=2: slurmd registers again; the drain keeps the node out
[[ "$(sinfo_state cpu-1)" == drain || "$(sinfo_state cpu-1)" == down ]] || die "cpu-1 back in service: $(sinfo_state cpu-1)"
[ "$(job_field "$requeue" JobState)" = PENDING ] || die "requeued job $requeue: $(job_field "$requeue" JobState)"
wait_job_state "$elsewhere" COMPLETED 30
act slurmctld/0 node-resume nodes=cpu-1
[ "$(sinfo_state cpu-1)" != drain ] || die "cpu-1 still drained after resume"
ctl scancel "$requeue"

log "a non-leader controller unit (slurmctld/1) runs the actions the same"
js add-unit slurmctld --share "$T/state:/srv/slurm-state" >/dev/null
settle 180
act slurmctld/1 slurm-config item=SlurmctldHost
[[ "$(r config.slurmctld-host)" == *,* ]] || die "two controllers: $(cat "$T/res")"
act slurmctld/1 node-drain nodes=cpu-0 reason=from-unit-1
[ "$(sinfo_state cpu-0)" = drain ] || die "drain from slurmctld/1: $(sinfo_state cpu-0)"
act slurmctld/1 node-get nodes=cpu-0
[ "$(r nodes.cpu-0.reason)" = from-unit-1 ] || die "node-get on slurmctld/1: $(cat "$T/res")"
act slurmctld/1 node-resume nodes=cpu-0
[ "$(sinfo_state cpu-0)" = idle ] || die "resume from slurmctld/1: $(sinfo_state cpu-0)"

log "a stopped slurmctld is named at once, and nothing changes"
js remove-unit slurmctld/1 >/dev/null
settle 180
js run slurmctld/0 pause reason=ops-test >/dev/null
ctl systemctl stop slurmctld
t0=$(now_ms)
js run slurmctld/0 node-drain nodes=cpu-0 >"$T/out" 2>&1 && die "node-drain with slurmctld stopped succeeded"
grep -q 'node-drain: slurmctld does not answer (.*): nothing changed' "$T/out" || die "message: $(cat "$T/out")"
FIGURES+=("node-drain refused, slurmctld stopped $(($(now_ms) - t0)) ms")
js run slurmctld/0 job-get jobids=1 >"$T/out" 2>&1 && die "job-get with slurmctld stopped succeeded"
grep -q 'job-get: slurmctld does not answer' "$T/out" || die "message: $(cat "$T/out")"
js run slurmctld/0 resume >/dev/null
ctl scontrol ping >/dev/null || die "slurmctld not back"
[ "$(sinfo_state cpu-0)" = idle ] || die "cpu-0 changed while slurmctld was stopped: $(sinfo_state cpu-0)"

log "triggers (issue 29): a site trigger fires, the charm's own stay, refusals change nothing"
ctl sh -c 'printf "#!/bin/sh\necho \"\$*\" >>/var/log/slurm/trig-note.out\n" >/etc/slurm/scripts/trig-note &&
        chmod 0755 /etc/slurm/scripts/trig-note && cp /etc/slurm/scripts/trig-note /etc/slurm/scripts/trig-private &&
        chmod 0700 /etc/slurm/scripts/trig-private && rm -f /var/log/slurm/trig-note.out'
act slurmctld/0 trigger-list
n_before=$(r count)
charm_ids=$(python3 -c 'import json,sys; d=list(json.load(open(sys.argv[1])).values())[0]["results"]
print(",".join(sorted((k for k, t in d.get("triggers", {}).items() if t["owner"] == "charm"), key=int)))' "$T/res")
[ -n "$charm_ids" ] || die "trigger-list: no charm trigger: $(cat "$T/res")"
one_charm=${charm_ids%%,*}
[ "$(r "triggers.$one_charm.user")" = slurm ] || die "charm trigger $one_charm: $(cat "$T/res")"
fails 'never fires' slurmctld/0 trigger-set event=fail program=/etc/slurm/scripts/trig-note
fails 'unknown event "nope"' slurmctld/0 trigger-set event=nope program=/etc/slurm/scripts/trig-note
fails 'only "\*"' slurmctld/0 trigger-set event=down nodes=cpu-0 program=/etc/slurm/scripts/trig-note
fails 'program:' slurmctld/0 trigger-set event=down program=/tmp/x
fails 'program:' slurmctld/0 trigger-set event=down program=/etc/slurm/scripts/missing
fails 'not executable by SlurmUser' slurmctld/0 trigger-set event=down program=/etc/slurm/scripts/trig-private
fails 'single spaces' slurmctld/0 trigger-set event=down "program=/etc/slurm/scripts/trig-note  x"
fails 'job-id: give' slurmctld/0 trigger-set event=fini program=/etc/slurm/scripts/trig-note
fails 'whether or not a node is idle' slurmctld/0 trigger-set event=idle program=/etc/slurm/scripts/trig-note
arr=$(sub --hold --array=1-2 --wrap 'sleep 1' -o /dev/null) # held: the nodes stay as they are
fails "job-id: job $arr is an array" slurmctld/0 trigger-set event=fini job-id="$arr" program=/etc/slurm/scripts/trig-note
ctl scontrol release "$arr" >/dev/null
# its two tasks run at once and end a second later: the next refusals' before and after snapshots
# must not fall around them (seen concurrently, 24.11: IDLE -> MIXED between the two)
until_true 60 "array job $arr still in the queue" eval '[ -z "$(ctl squeue -h -j "$arr" 2>/dev/null)" ]'
fails 'only for time' slurmctld/0 trigger-set event=down offset=-5 program=/etc/slurm/scripts/trig-note
fails 'job-id: job 999999 is not known to slurmctld' slurmctld/0 trigger-set event=fini job-id=999999 \
        program=/etc/slurm/scripts/trig-note
fails "trigger $one_charm is the charm's own" slurmctld/0 trigger-unset ids="$one_charm"
fails 'trigger 999999 does not exist' slurmctld/0 trigger-unset ids=999999
timed "trigger-set" slurmctld/0 trigger-set event=drained "program=/etc/slurm/scripts/trig-note drained" permanent=true
tid=$(r id)
[ "$(r trigger.owner)" = site ] && [ "$(r trigger.event)" = drained ] && [ "$(r trigger.resource)" = '*' ] &&
        [ "$(r trigger.permanent)" = true ] || die "trigger-set: $(cat "$T/res")"
# the same trigger again: the one that exists, nothing added
act slurmctld/0 trigger-set event=drained "program=/etc/slurm/scripts/trig-note drained" permanent=true
[ "$(r id)" = "$tid" ] && [ "$(r existing)" = true ] || die "trigger-set again: $(cat "$T/res")"
t0=$(now_ms)
act slurmctld/0 node-drain nodes=cpu-1 reason=trigger-test
trig_fired() { ctl grep -q "^drained cpu-1\$" /var/log/slurm/trig-note.out 2>/dev/null; }
until_true 45 "the drained trigger did not run for cpu-1" trig_fired
FIGURES+=("drain -> site trigger program run $(($(now_ms) - t0)) ms")
act slurmctld/0 node-resume nodes=cpu-1
tj=$(sub --wrap 'sleep 4' -w cpu-0 -o /dev/null)
act slurmctld/0 trigger-set event=fini "program=/etc/slurm/scripts/trig-note fini" job-id="$tj"
[ "$(r trigger.resource-type)" = job ] && [ "$(r trigger.resource)" = "$tj" ] || die "fini trigger: $(cat "$T/res")"
fini_fired() { ctl grep -q "^fini $tj\$" /var/log/slurm/trig-note.out 2>/dev/null; }
until_true 60 "the fini trigger did not run for job $tj" fini_fired
# a fired trigger that is not permanent is purged at slurmctld's next trigger pass (15 s)
fini_purged() { act slurmctld/0 trigger-list && [ "$(r count)" = $((n_before + 1)) ]; }
until_true 45 "trigger-list after a fired fini: $(r count), want $((n_before + 1))" fini_purged
[ "$(r "triggers.$tid.owner")" = site ] || die "trigger $tid not listed: $(cat "$T/res")"
act slurmctld/0 trigger-unset user=slurm
kept=$(r kept | tr , '\n' | sort -n | paste -sd,)
[ "$(r removed)" = "$tid" ] && [ "$kept" = "$charm_ids" ] || die "trigger-unset user=slurm: $(cat "$T/res")"
act slurmctld/0 trigger-list
[ "$(r count)" = "$n_before" ] || die "trigger-list after unset: $(r count), want $n_before"
act slurmctld/0 trigger-set event=down "program=/etc/slurm/scripts/trig-note down"
tid=$(r id)
# a program gone from a controller machine is named in that unit's status at its next hook
expect_status slurmctld/0 '^active [^;]*$'
ctl mv /etc/slurm/scripts/trig-note /etc/slurm/scripts/trig-note.away
js trigger slurmctld/0 update-status >/dev/null
settle 120
expect_status slurmctld/0 "; trigger $tid: program: .*trig-note.*install it on every controller machine"
ctl mv /etc/slurm/scripts/trig-note.away /etc/slurm/scripts/trig-note
timed "trigger-unset" slurmctld/0 trigger-unset ids="$tid"
[ "$(r removed)" = "$tid" ] && [ "$(r removed-count)" = 1 ] || die "trigger-unset ids=$tid: $(cat "$T/res")"
js trigger slurmctld/0 update-status >/dev/null
settle 120
expect_status slurmctld/0 '^active [^;]*$'
ctl scontrol ping >/dev/null || die "slurmctld down after the trigger actions"

log "no job lost: every job ended as its test said"
for j in "${JOBS[@]}"; do
        st=$(job_field "$j" JobState)
        case $j in
        "$norequeue") [ "$st" = NODE_FAIL ] || die "job $j (killed by node-down): $st" ;;
        "$requeue") [ "$st" = CANCELLED ] || die "job $j (requeued, then cancelled): $st" ;;
        *) [[ $st == COMPLETED || $st == RUNNING || $st == PENDING || $st == COMPLETING || $st == "" ]] ||
                die "job $j: $st" ;;
        esac
done
for f in "${FIGURES[@]}"; do log "figure: $f"; done
log "ok"
