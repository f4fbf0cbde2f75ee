#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# hook-concurrency's races (issue 28 review): a leader removed while its hook runs, a secret removed
# during a hook that changed it, more machines than workers, hook-concurrency switched during a
# wait, a killed wait or run, the worker round-robin, and an exec whose commit a wait must see.
# Each section has a model of its own and sets its mode itself (serial where it compares).
. "$(dirname "$0")/lib.sh"

MODELS=()
BG=()
cleanup_all() {
        local p d
        for p in "${BG[@]}"; do kill -9 -- "-$p" "$p" 2>/dev/null; done
        for d in "${MODELS[@]}"; do JUJU_SIM_MODEL=$d "$JUJU_SIM" destroy >/dev/null 2>&1; done
        cleanup
}
trap cleanup_all EXIT
# newmodel NAME MODE: a fresh host-mode model for one section, in that hook-concurrency
newmodel() {
        export JUJU_SIM_MODEL="$TMP/$1"
        MODELS+=("$JUJU_SIM_MODEL")
        js model-config automatically-retry-hooks=false hook-concurrency="$2" >/dev/null ||
                fail "model-config hook-concurrency=$2 ($1)"
}
# wait_for FILE: until FILE exists (20 s at most)
wait_for() {
        local i
        for i in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.1; done
        return 1
}
pending() { js status --format=json | jq '[.applications[].units[]."pending-events"] | add // 0'; }
upending() { js status --format=json | jq --arg u "$1" '[.applications[].units[$u] // empty | ."pending-events"] | add // 0'; }
agent() { js status --format=json | jq -r --arg u "$1" '.applications[].units[$u] // empty | ."juju-status".current'; }
leader_of() { js status --format=json | jq -r --arg a "$1" '.applications[$a].units | to_entries[] | select(.value.leader) | .key'; }
state() { cat "$JUJU_SIM_MODEL/state.json"; }
# deployed NAME MODE N: newmodel NAME MODE with N recorder units of application a, settled
deployed() {
        newmodel "$1" "$2"
        js deploy "$CHARMS/recorder" a -n "$3" >/dev/null
        js wait || fail "$1: deploy"
}
# during_hook NAME UNIT SCRIPT: UNIT's update-status runs SCRIPT (its application's other units do
# nothing) under a wait in the background (pid $W, output in $TMP/NAME.wait); returns once it began
during_hook() {
        local mark=$TMP/$1.begun
        behave "${2%%/*}" update-status "[ \"\$JUJU_UNIT_NAME\" = $2 ] || exit 0; touch $mark; $3"
        js trigger "$2" update-status
        js wait > "$TMP/$1.wait" 2>&1 &
        W=$!
        wait_for "$mark" || fail "$1: $2's hook did not begin"
}

# (2) A secret removed while a hook that changed it ran stays removed. (a) The user's view: the
# leader a/0 sets a new revision of its application's secret in a hook during which it is
# removed; its successor's leader-elected removes the secret. (b) The commit's rule itself: the
# secret is taken out of the state by another writer (under the model lock, as a juju-sim verb
# does) while the hook that changes it sleeps.
deployed secrets machines 2
S=$(js exec a/0 -- secret-add --owner application key=v1)
[ -n "$S" ] && pass "(2a) a/0 made an application secret" || fail "(2a) no secret made"
behave a leader-elected "secret-remove $S"
during_hook sec-a a/0 "sleep 3; out sec-set secret-set $S key=v2"
js remove-unit a/0
wait $W || fail "(2a) wait: $(cat "$TMP/sec-a.wait")"
js wait || fail "(2a) the second wait"
assert_eq "(2a) a/0's secret-set, made while it was dying and leader, succeeded" 0 "$(cat "$(charm_dir a)/out/sec-set.rc")"
assert_eq "(2a) the secret the new leader removed stays removed" false "$(state | jq --arg s "$S" '.secrets | has($s)')"
unbehave a leader-elected
S2=$(js exec a/1 -- secret-add --owner application key=v1)
[ -n "$S2" ] && pass "(2b) a/1 made an application secret" || fail "(2b) no secret made"
during_hook sec-b a/1 "sleep 2; secret-set $S2 key=v2"
(
        flock 9
        jq --arg s "$S2" 'del(.secrets[$s])' "$JUJU_SIM_MODEL/state.json" > "$JUJU_SIM_MODEL/state.new" &&
                chmod 600 "$JUJU_SIM_MODEL/state.new" && mv "$JUJU_SIM_MODEL/state.new" "$JUJU_SIM_MODEL/state.json"
) 9>> "$JUJU_SIM_MODEL/lock"
wait $W || fail "(2b) wait: $(cat "$TMP/sec-b.wait")"
assert_eq "(2b) a secret removed during a hook that changed it is not brought back by its commit" false \
        "$(state | jq --arg s "$S2" '.secrets | has($s)')"

# (3) More machines than HOOK_WORKERS_MAX (256): 400 units of a charm with no hooks, each on its
# own machine, hook-concurrency=machines: at most 256 workers (the reviewer's run crashed: a
# stack overflow); every event is taken (5 per unit, skipped)
newmodel many machines
mkdir -p "$TMP/meta"
printf 'name: meta\nsummary: no hooks\ndescription: no hooks\n' > "$TMP/meta/metadata.yaml"
js deploy "$TMP/meta" meta -n 400 >/dev/null || fail "(3) deploy 400"
t0=$EPOCHREALTIME
rc=0
timeout 200 "$JUJU_SIM" wait --timeout 180 > "$TMP/many.out" 2>&1 || rc=$?
echo "(3) 400 units, 2000 events: wait took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
assert_eq "(3) wait with 400 machines succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/    /' "$TMP/many.out" >&2
assert_eq "(3) nothing pending" 0 "$(pending)"
js destroy

# (6) The workers take units in turn: with hook-concurrency=2 and four units, the first two
# started are a/0 and a/1 (the reviewer's count: a pass started 194 of 260 free units)
deployed turn 2 4
behave a update-status "echo \"begin \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $TMP/turn.times; sleep 1"
js trigger a update-status
js wait || fail "(6) wait"
assert_eq "(6) the first pass took the first two units" "a/0 a/1" \
        "$(sort -k3,3n "$TMP/turn.times" | head -2 | awk '{ print $2 }' | sort | xargs)"
assert_eq "(6) every unit ran" 4 "$(grep -c '^begin' "$TMP/turn.times")"

finish
