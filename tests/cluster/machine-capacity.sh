#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# juju-sim knows how many namespace machines fit (`juju-sim capacity`) and refuses more before it
# makes anything; a deploy/add-unit whose machine fails to come up partway removes every machine,
# cgroup, veth, unit and state entry it made, also when stopped by SIGTERM. Uses the noop test charm;
# at most 7 machines at once.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
[ -x "$JSM" ] || die "no juju-sim-machine at $JSM"
NOOP=${TOP_SRCDIR:?}/tests/charms/noop
FAIL_AT=${FAIL_AT:-4} # machines the failing add-unit makes before one fails (<= 6)

# A pids cgroup of this test (hybrid host) is removed on exit, then the model (charm-lib.sh).
PIDS_CG=
limits_cleanup() {
        local rc=$?
        trap - ERR
        set +e
        [ -n "$PIDS_CG" ] && [ -d "$PIDS_CG" ] && rmdir "$PIDS_CG"
        (exit $rc) # charm_cleanup reads the test's status from $?
        charm_cleanup
}
trap limits_cleanup EXIT

# cap FIELD [LIMIT]: a number from `juju-sim capacity --format=json` (the total, or LIMIT's).
cap() {
        js capacity --format=json | python3 -c '
import json, sys
c = json.load(sys.stdin); field = sys.argv[1]; name = sys.argv[2] if len(sys.argv) > 2 else ""
if not name:
    print(c[field])
else:
    print(next((l[field] for l in c["limits"] if l["name"] == name), ""))' "$@"
}

# snapshot: everything of this model on the host and in its dir: machine dirs, machine cgroups (a
# cgroup holding a process cannot be removed), veths, charms, the hosts file, the state's bytes.
snapshot() {
        local b
        ls "$MODEL/machines" "$MODEL/charms"
        for b in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd /sys/fs/cgroup; do
                [ -d "$b/$cgroup" ] && find "$b/$cgroup" -mindepth 1 -maxdepth 1 -type d -name 'm*' | sort
        done
        ip -o link | grep -o "${veth_prefix}[0-9]*" | sort || true
        sha256sum "$MODEL/machines/hosts" "$MODEL/state.json"
}

units() { js status --format=json | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["applications"].get(sys.argv[1], {}).get("units", {}))))' "$1"; }

log "a model with one unit"
js deploy "$NOOP" >/dev/null
settle
eval "$("$JSM" names "$MODEL")" # bridge, cgroup, veth_prefix

log "capacity: the host's figures, checked against /proc"
js capacity >&2
free=$(cap machines)
[ "$free" -ge 1 ] || skip "this host has no room for a machine now ($free)"
[ "$(cap max "inotify instances")" = "$(cat /proc/sys/fs/inotify/max_user_instances)" ] || die "inotify max"
[ "$(cap per-machine "inotify instances")" = 4 ] || die "a machine costs 4 inotify instances (systemd --user 3, dbus-daemon 1)"
used=$(cap used "inotify instances")
ours=0
for p in $(find /sys/fs/cgroup/unified/"$cgroup" -name cgroup.procs -exec cat {} +); do
        for f in /proc/"$p"/fd/*; do
                [ "$(readlink "$f" 2>/dev/null)" = anon_inode:inotify ] && ours=$((ours + 1))
        done
done
[ "$ours" -ge 3 ] || die "the model's machine holds $ours inotify instances, expected systemd's 3"
[ "$used" -ge "$ours" ] || die "capacity counts $used inotify instances in use, this model alone holds $ours"
[ "$(cap max "machine ids")" = 245 ] && [ "$(cap used "machine ids")" = 1 ] || die "machine ids: $(cap used "machine ids")"

log "add-unit -n 1000 and deploy -n 1000 are refused before anything is made"
before=$(snapshot)
t0=$(date +%s%N)
if out=$(js add-unit noop -n 1000 2>&1); then die "add-unit -n 1000 succeeded"; fi
t1=$(date +%s%N)
re='^ERROR add-unit: 1000 machines asked, this host can hold [0-9]+ more \(([^=]+)=[0-9]+( MiB)?, [0-9]+( MiB)? in use, (.* kept for the host, )?[0-9]+( MiB)? per machine\); see juju-sim capacity$'
[[ $out =~ $re ]] || die "add-unit -n 1000: \"$out\""
setting=${BASH_REMATCH[1]}
limit=$(cap limit)
[ "$(cap setting "$limit")" = "$setting" ] || die "the refusal names $setting, capacity's tightest limit is $limit"
log "refused in $(((t1 - t0) / 1000000)) ms: $out"
if out=$(js deploy "$NOOP" other -n 1000 2>&1); then die "deploy -n 1000 succeeded"; fi
[[ $out == "ERROR deploy: 1000 machines asked, this host can hold "* ]] || die "deploy -n 1000: \"$out\""
[ "$(snapshot)" = "$before" ] || die "a refused verb changed something: $(diff <(echo "$before") <(snapshot))"
[ "$(units noop)" = noop/0 ] || die "units: $(units noop)"

log "the model's machine ids are a limit too"
cp -p "$MODEL/state.json" "$T/state.saved"
python3 - "$MODEL/state.json" 243 <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["counters"]["machine"] = int(sys.argv[2])
json.dump(s, open(sys.argv[1], "w"), indent=2)
PY
if out=$(js add-unit noop -n 3 2>&1); then die "add-unit beyond the model's ids succeeded"; fi
[[ $out == "ERROR add-unit: 3 machines asked, this model can hold 2 more (machine ids per model=245, 243 in use, 1 per machine); see juju-sim capacity" ]] ||
        die "ids: \"$out\""
cp -p "$T/state.saved" "$MODEL/state.json"

if [ -d /sys/fs/cgroup/pids ] && [ ! -e /sys/fs/cgroup/pids/pids.max ] && [ -d /sys/fs/cgroup/unified ]; then
        log "hybrid host: machines stay in their creator's pids cgroup, whose pids.max counts"
        PIDS_CG=/sys/fs/cgroup/pids/jsim-capacity-test-$$
        mkdir "$PIDS_CG"
        echo 100 >"$PIDS_CG/pids.max"
        in_cg() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$PIDS_CG" "$JS" "$@"; }
        got=$(in_cg capacity --format=json | python3 -c '
import json, sys
c = json.load(sys.stdin)
l = [l for l in c["limits"] if l["name"] == "tasks (pids cgroup)"]
print(l[0]["max"], l[0]["machines"], c["machines"], l[0]["setting"]) if l else print("none")')
        [ "$got" = "100 1 1 pids.max of $PIDS_CG" ] || die "capacity in a pids cgroup (pids.max 100): $got"
        if out=$(in_cg add-unit noop -n 2 2>&1); then die "add-unit -n 2 in a pids cgroup of 100 tasks succeeded"; fi
        re="^ERROR add-unit: 2 machines asked, this host can hold 1 more \\(pids\\.max of $PIDS_CG=100, [0-9]+ in use, 64 per machine\\)"
        [[ $out =~ $re ]] || die "add-unit in a pids cgroup: \"$out\""
        [ "$(snapshot)" = "$before" ] || die "the refused add-unit changed something"
        rmdir "$PIDS_CG"
fi

log "add-unit -n $((FAIL_AT + 1)): machine $((FAIL_AT + 1)) is taken by a machine made by hand"
foreign=$((FAIL_AT + 1))
"$JSM" create "$MODEL" "$foreign" >/dev/null 2>&1 || die "juju-sim-machine create $foreign"
foreign_pid=$("$JSM" list "$MODEL" | awk -v id="$foreign" '$1 == id { print $4 }')
kill -0 "$foreign_pid" || die "no foreign machine"
before=$(snapshot)
if out=$(js add-unit noop -n $((FAIL_AT + 1)) 2>&1); then die "add-unit onto a taken machine id succeeded"; fi
made=$(seq -s ', ' 1 "$FAIL_AT")
re="^ERROR machine $foreign: already exists \(init $foreign_pid\); add-unit removed the $FAIL_AT machines it had made \($made\) in ([0-9]+) ms; the model is as it was before$"
[[ $out =~ $re ]] || die "add-unit: \"$out\""
log "figure: a failed add-unit removed the $FAIL_AT machines it had made in ${BASH_REMATCH[1]} ms"
[ "$(snapshot)" = "$before" ] || die "left by the failed add-unit: $(diff <(echo "$before") <(snapshot))"
kill -0 "$foreign_pid" || die "the failed add-unit killed the machine it had not made"
"$JSM" list "$MODEL" | grep -q "^0 .* running$" || die "the model's own machine 0 is gone"
[ "$(units noop)" = noop/0 ] || die "units after the failed add-unit: $(units noop)"

log "deploy -n 3 fails at the same machine: the application and its charm are gone too"
"$JSM" destroy "$MODEL" "$foreign" >/dev/null 2>&1 || die "juju-sim-machine destroy $foreign"
"$JSM" create "$MODEL" 2 >/dev/null 2>&1 || die "juju-sim-machine create 2"
before=$(snapshot)
if out=$(js deploy "$NOOP" other -n 3 2>&1); then die "deploy onto a taken machine id succeeded"; fi
re='^ERROR machine 2: already exists \(init [0-9]+\); deploy removed the 1 machine it had made \(1\) in [0-9]+ ms; the model is as it was before$'
[[ $out =~ $re ]] || die "deploy: \"$out\""
[ "$(snapshot)" = "$before" ] || die "left by the failed deploy: $(diff <(echo "$before") <(snapshot))"
"$JSM" destroy "$MODEL" 2 >/dev/null 2>&1 || die "juju-sim-machine destroy 2"

log "a machine whose systemd cannot start (its /usr/lib/systemd shadowed by an empty --share)"
mkdir -p "$T/empty"
before=$(snapshot)
if out=$(js add-unit noop -n 2 --share "$T/empty:/usr/lib/systemd" 2>&1); then die "add-unit without systemd succeeded"; fi
[[ $out == "ERROR machine 1: systemd manager did not get ready: systemd --user exited;"*"; the model is as it was before" ]] ||
        die "no systemd: \"$out\""
[ "$(snapshot)" = "$before" ] || die "left by the machine that did not boot: $(diff <(echo "$before") <(snapshot))"

log "add-unit -n 5 stopped by SIGTERM once its second machine is up: it removes what it made"
before=$(snapshot)
"$JS" add-unit noop -n 5 2>"$T/term.err" &
pid=$!
for ((i = 0; i < 500; i++)); do
        [ -e "$MODEL/machines/2/machine" ] && break
        sleep 0.01
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
out=$(cat "$T/term.err")
[ "$rc" = 143 ] || die "add-unit under SIGTERM: exit $rc: \"$out\""
re='^ERROR add-unit: interrupted by SIGTERM after ([2-4]) of 5 machines; add-unit removed the [2-4] machines it had made \(1, 2[0-9, ]*\) in [0-9]+ ms; the model is as it was before$'
[[ $out =~ $re ]] || die "add-unit under SIGTERM: \"$out\""
[ "$(snapshot)" = "$before" ] || die "left by the stopped add-unit: $(diff <(echo "$before") <(snapshot))"

log "the model goes on: add-unit -n 2 makes machines 1 and 2, and settles"
js add-unit noop -n 2 >/dev/null
settle
[ "$(units noop)" = "noop/0 noop/1 noop/2" ] || die "units: $(units noop)"
[ "$("$JSM" list "$MODEL" | awk '{print $1}' | tr '\n' ' ')" = "0 1 2 " ] || die "machines: $("$JSM" list "$MODEL")"
log "ok"
