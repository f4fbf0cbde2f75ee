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

# (1) A leader removed while its hook runs stays leader until that hook has ended (Juju: a dying
# unit keeps leadership while its agent runs); only then is its successor elected, so both
# leaders' leader-set land, as in a serial model. Reviewer's repro: a/0's hook sleeps, then
# leader-set from-old=1; remove-unit a/0 meanwhile; a/1's leader-elected: leader-set from-new=1.
for m in serial machines; do
        deployed "lead-$m" $m 2
        T=$TMP/lead-$m
        behave a leader-elected "echo \"elected \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $T.times; leader-set from-new=1"
        during_hook "lead-$m" a/0 "sleep 3; out old-set leader-set from-old=1; echo \"end \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $T.times"
        js remove-unit a/0 # (serial: waits for the wait, which holds the model lock)
        [ $m = machines ] && assert_eq "(1) $m: a/0 stays leader while its hook runs (one leader at a time)" a/0 "$(leader_of a)"
        wait $W || fail "(1) $m: wait: $(cat "$T.wait")"
        js wait || fail "(1) $m: the second wait"
        assert_eq "(1) $m: a/1 is the new leader" a/1 "$(leader_of a)"
        assert_eq "(1) $m: a/0's leader-set, made while it was dying, succeeded" 0 "$(cat "$(charm_dir a)/out/old-set.rc")"
        assert_eq "(1) $m: both leaders' settings kept" '{"from-new":"1","from-old":"1"}' \
                "$(js exec a/1 -- leader-get --format=json | jq -S -c .)"
        end=$(awk '$1 == "end" { print $3 }' "$T.times")
        elected=$(awk '$1 == "elected" && $2 == "a/1" { print $3 }' "$T.times")
        if [ -n "$end" ] && [ -n "$elected" ] && awk -v a="$end" -v b="$elected" 'BEGIN { exit !(b > a) }'; then
                pass "(1) $m: a/1's leader-elected ran after a/0's hook had ended"
        else
                fail "(1) $m: a/1's leader-elected at ${elected:-never}, a/0's hook ended at ${end:-never}"
        fi
done

# (1b) leader-set checks leadership in the state as it is now: a leader removed by force while
# its hook runs (the machine died; a/1 is elected at once) is refused, as Juju's ensureLeader
# refuses: "cannot write leadership settings: cannot write settings: not the leader" (1), and the
# hook's is-leader says False afterwards (the context stays a minion)
deployed ghost machines 2
during_hook ghost a/0 "sleep 2; out ghost-set leader-set from-ghost=1; out ghost-is is-leader"
js remove-unit --force a/0
wait $W || fail "(1b) wait: $(cat "$TMP/ghost.wait")"
assert_eq "(1b) leader-set by a unit no longer leader fails" 1 "$(cat "$(charm_dir a)/out/ghost-set.rc")"
assert_eq "(1b) with Juju's text" "ERROR cannot write leadership settings: cannot write settings: not the leader" \
        "$(cat "$(charm_dir a)/out/ghost-set")"
assert_eq "(1b) is-leader says False after it" False "$(cat "$(charm_dir a)/out/ghost-is")"
assert_eq "(1b) the leader settings did not take its write" '{}' "$(js exec a/1 -- leader-get --format=json | jq -S -c .)"

# (1c) A unit that becomes leader during its hook may write at once (leader-set checks the state
# as it is now, and its application bag follows), and its commit takes only the keys it changed:
# what the old leader wrote during that hook (leader settings, the peer application bag) stays
deployed gain machines 2
G=$TMP/gain
during_hook gain a/1 "while [ ! -e $G.go ]; do sleep 0.1; done; out gain-set leader-set x=1; out gain-app relation-set -r \$(relation-ids cluster) --app bx=1"
js exec a/0 -- 'leader-set y=1; relation-set -r $(relation-ids cluster) --app by=1'
js remove-unit a/0
assert_eq "(1c) a/1 elected at once (a/0 runs nothing)" a/1 "$(leader_of a)"
touch "$G.go"
wait $W || fail "(1c) wait: $(cat "$G.wait")"
js wait || fail "(1c) the second wait"
assert_eq "(1c) a/1's leader-set, leader only since the middle of its hook, succeeded" 0 "$(cat "$(charm_dir a)/out/gain-set.rc")"
assert_eq "(1c) a/1's relation-set --app after it succeeded" 0 "$(cat "$(charm_dir a)/out/gain-app.rc")"
assert_eq "(1c) both leaders' settings kept" '{"x":"1","y":"1"}' "$(js exec a/1 -- leader-get --format=json | jq -S -c .)"
id=$(js exec a/1 -- relation-ids cluster)
assert_eq "(1c) both leaders' application bag keys kept" '{"bx":"1","by":"1"}' \
        "$(state | jq -S -c --arg id "${id#*:}" '.relations[$id]."app-data".a')"

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
timeout 440 "$JUJU_SIM" wait --timeout 420 > "$TMP/many.out" 2>&1 || rc=$?
echo "(3) 400 units, 2000 events: wait took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
assert_eq "(3) wait with 400 machines succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/    /' "$TMP/many.out" >&2
assert_eq "(3) nothing pending" 0 "$(pending)"
js destroy

# (4) hook-concurrency cannot change while a hook runs (its machine lock held): refused, nothing
# changed
deployed switch machines 2
during_hook switch a/0 "sleep 3"
rc=0
msg=$(js model-config hook-concurrency=serial 2>&1) || rc=$?
assert_eq "(4) model-config hook-concurrency=serial during a hook fails" 1 "$rc"
assert_contains "(4) saying why" "hook-concurrency: cannot change to \"serial\" while" "$msg"
assert_eq "(4) nothing changed" machines "$(js model-config hook-concurrency)"
wait $W || fail "(4) wait: $(cat "$TMP/switch.wait")"
unbehave a update-status

# (4b) A wait keeps the mode it began with: switched to serial while a concurrent wait sleeps
# until an automatic retry, its worker still runs the retried hook concurrently (once, its
# writes kept); serial exec, run and wait started during that hook keep off its machine (they
# run after it) and do not run it again
deployed retry machines 2
js model-config automatically-retry-hooks=true
R=$TMP/retry
behave a update-status "[ \"\$JUJU_UNIT_NAME\" = a/0 ] || exit 0; if [ ! -e $R.failed ]; then touch $R.failed; exit 1; fi; echo \"begin \$EPOCHREALTIME\" >> $R.times; sleep 2; state-set mark=retried; echo \"end \$EPOCHREALTIME\" >> $R.times"
behave a action-free "echo \"run \$EPOCHREALTIME\" >> $R.times"
js trigger a/0 update-status
js wait --timeout 30 > "$R.wait1" 2>&1 &
w1=$!
wait_for "$R.failed" || fail "(4b) the first run did not fail"
for i in $(seq 50); do [ "$(agent a/0)" = error ] && break; sleep 0.1; done
assert_eq "(4b) a/0 in error, its retry due in 5 s" error "$(agent a/0)"
assert_rc "(4b) switched to serial while nothing runs" 0 js model-config hook-concurrency=serial
wait_for "$R.times" || fail "(4b) the retry did not begin"
js exec a/0 -- bash -c "echo \"exec \$EPOCHREALTIME\" >> $R.times" &
e=$!
js run a/0 free > /dev/null &
rn=$!
js wait > "$R.wait2" 2>&1 || fail "(4b) the serial wait: $(cat "$R.wait2")"
wait $e || fail "(4b) the serial exec"
wait $rn || fail "(4b) the serial run"
wait $w1 || fail "(4b) the concurrent wait: $(cat "$R.wait1")"
assert_eq "(4b) the retried hook ran once" 1 "$(grep -c '^begin' "$R.times")"
assert_eq "(4b) its write landed" retried "$(js exec a/0 -- state-get mark)"
end=$(awk '$1 == "end" { print $2 }' "$R.times")
for v in exec run; do
        at=$(awk -v v=$v '$1 == v { print $2 }' "$R.times")
        if [ -n "$at" ] && [ -n "$end" ] && awk -v a="$end" -v b="$at" 'BEGIN { exit !(b > a) }'; then
                pass "(4b) serial $v on a/0 ran after the concurrent hook there"
        else
                fail "(4b) serial $v on a/0 at ${at:-never}, the concurrent hook ended at ${end:-never}"
        fi
done
unbehave a update-status
unbehave a action-free

# (5) A concurrent wait or run killed while its hook or action runs leaves nothing behind: the
# unit is not "executing" any more (so equal events coalesce again with its queue's head), its
# socket is gone, and the interrupted hook runs again at the next wait
deployed killed machines 2
K=$TMP/kill
behave a update-status "[ \"\$JUJU_UNIT_NAME\" = a/0 ] || exit 0; echo \$\$ > $K.hook; sleep 60"
behave a action-free "echo \$\$ > $K.action; sleep 60"
for what in wait run; do
        rm -f "$K.hook" "$K.action"
        if [ $what = wait ]; then
                js trigger a/0 update-status
                setsid "$JUJU_SIM" wait > /dev/null 2>&1 &
                pidf=$K.hook
        else
                setsid "$JUJU_SIM" run a/0 free > /dev/null 2>&1 &
                pidf=$K.action
        fi
        p=$!
        BG+=("$p")
        wait_for "$pidf" || fail "(5) $what: the hook did not begin"
        kill -9 -- "-$p" 2>/dev/null
        kill -9 -- "-$(cat "$pidf")" 2>/dev/null
        { wait "$p"; } 2>/dev/null
        assert_eq "(5) killed $what: a/0 is not executing any more" idle "$(agent a/0)"
        js trigger a/0 update-status
        js trigger a/0 update-status
        assert_eq "(5) killed $what: equal events coalesce with the queue's head" 1 "$(upending a/0)"
        assert_eq "(5) killed $what: no stale agent socket" 0 "$(find "$JUJU_SIM_MODEL" -maxdepth 1 -name 'agent*.sock' | wc -l)"
done
unbehave a update-status
n0=$(nevents)
js wait || fail "(5) the wait after"
assert_eq "(5) the interrupted hook ran again" "a/0 update-status" "$(uevents a/0 $((n0 + 1)))"
assert_eq "(5) nothing pending" 0 "$(pending)"

# (5b) Both modes: a running hook's status-set shows in `status` at once, the unit "executing"
# meanwhile (Juju: status-set is an immediate call to the controller, and the uniter sets the
# agent executing for every hook but update-status: operation/runhook.go); a wait killed then
# leaves the status set, the unit idle, and the hook runs again at the next wait (serial mode
# used to keep both in the wait's memory until the hook ended)
for m in serial machines; do
        deployed "shown-$m" $m 1
        S=$TMP/shown-$m
        behave a config-changed "status-set maintenance \"mid hook \$\$\"; echo \$\$ > $S.hook; sleep 60"
        js trigger a/0 config-changed
        setsid "$JUJU_SIM" wait > /dev/null 2>&1 &
        p=$!
        BG+=("$p")
        wait_for "$S.hook" || fail "(5b) $m: the hook did not begin"
        hp=$(cat "$S.hook")
        assert_eq "(5b) $m: the hook's status-set shows while it runs" "maintenance mid hook $hp" \
                "$(js status --format=json | jq -r '.applications.a.units."a/0"."workload-status" | "\(.current) \(.message)"')"
        assert_eq "(5b) $m: the unit is executing while its hook runs" executing "$(agent a/0)"
        kill -9 -- "-$p" 2>/dev/null
        kill -9 -- "-$hp" "$hp" 2>/dev/null
        { wait "$p"; } 2>/dev/null
        assert_eq "(5b) $m, wait killed: a/0 is idle again" idle "$(agent a/0)"
        assert_eq "(5b) $m, wait killed: the status set stays" "mid hook $hp" \
                "$(js status --format=json | jq -r '.applications.a.units."a/0"."workload-status".message')"
        unbehave a config-changed
        n0=$(nevents)
        js wait || fail "(5b) $m: the wait after"
        assert_eq "(5b) $m: the interrupted hook ran again" "a/0 config-changed" "$(uevents a/0 $((n0 + 1)))"
        assert_eq "(5b) $m: nothing pending" 0 "$(pending)"
done

# (5c) Both modes: a wait killed during a relation-created hook: that hook runs again at the next
# wait, before the joins (Juju marks a relation created only when its hook commits: uniter
# relation CreatedRelations; juju-sim had already recorded the unit's relation and dropped the
# event as done; the attack of stop 52)
for m in serial machines; do
        newmodel "created-$m" $m
        js deploy "$CHARMS/recorder" a >/dev/null
        js deploy "$CHARMS/recorder" b >/dev/null
        js wait >/dev/null || fail "(5c) $m: deploy"
        S=$TMP/created-$m
        behave a db-relation-created "echo \$\$ > $S.hook; sleep 60"
        js integrate a:db b:backend >/dev/null
        setsid "$JUJU_SIM" wait > /dev/null 2>&1 &
        p=$!
        BG+=("$p")
        wait_for "$S.hook" || fail "(5c) $m: the relation-created hook did not begin"
        hp=$(cat "$S.hook")
        kill -9 -- "-$p" 2>/dev/null
        kill -9 -- "-$hp" "$hp" 2>/dev/null
        { wait "$p"; } 2>/dev/null
        unbehave a db-relation-created
        n0=$(nevents)
        js wait || fail "(5c) $m: the wait after"
        assert_eq "(5c) $m: the interrupted relation-created ran again, then the joins" \
                "db-relation-created db-relation-joined db-relation-changed" \
                "$(uevents a/0 $((n0 + 1)) | awk '{ print $2 }' | xargs)"
done

# (5d) Both modes: a wait stopped as a terminal stops it (SIGTERM to its process group, which its
# hook, in a group of its own, does not get) ends its hook with it: the next wait runs the hook
# once, never beside a copy that ran on (attack of stop 52: two copies of one hook at once)
for m in serial machines; do
        deployed "stopped-$m" $m 1
        L=$TMP/stopped-$m.log
        behave a update-status "echo \"begin \$\$\" >> $L; sleep 4; echo \"end \$\$\" >> $L"
        js trigger a/0 update-status
        setsid "$JUJU_SIM" wait > /dev/null 2>&1 &
        p=$!
        BG+=("$p")
        wait_for "$L" || fail "(5d) $m: the hook did not begin"
        first=$(awk '$1 == "begin" { print $2; exit }' "$L")
        kill -TERM -- "-$p" 2>/dev/null
        { wait "$p"; } 2>/dev/null
        js wait || fail "(5d) $m: the wait after"
        sleep 5
        assert_eq "(5d) $m: the stopped wait's hook ended with it" "" "$(awk -v p="$first" '$1 == "end" && $2 == p' "$L")"
        assert_eq "(5d) $m: the hook ran once more, whole" "2 1" "$(grep -c '^begin' "$L") $(grep -c '^end' "$L")"
        unbehave a update-status
done

# (6) The workers take units in turn: with hook-concurrency=2 and four units, the first two
# started are a/0 and a/1 (the reviewer's count: a pass started 194 of 260 free units)
deployed turn 2 4
behave a update-status "echo \"begin \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $TMP/turn.times; sleep 1"
js trigger a update-status
js wait || fail "(6) wait"
assert_eq "(6) the first pass took the first two units" "a/0 a/1" \
        "$(sort -k3,3n "$TMP/turn.times" | head -2 | awk '{ print $2 }' | sort | xargs)"
assert_eq "(6) every unit ran" 4 "$(grep -c '^begin' "$TMP/turn.times")"

# (7) wait waits for an exec in flight on another machine: its commit queues relation-changed on
# b's units, which run before wait returns (serial: wait waits for the model lock)
for m in serial machines; do
        newmodel "exec-$m" $m
        js deploy "$CHARMS/recorder" a >/dev/null
        js deploy "$CHARMS/recorder" b >/dev/null
        js integrate a:db b:backend
        js wait || fail "(7) $m: deploy"
        X=$TMP/exec-$m
        js exec a/0 -- "touch $X.begun; sleep 2; relation-set -r \$(relation-ids db) ex=1" &
        e=$!
        wait_for "$X.begun" || fail "(7) $m: the exec did not begin"
        n0=$(nevents)
        js wait || fail "(7) $m: wait"
        wait $e || fail "(7) $m: exec"
        assert_eq "(7) $m: nothing pending once wait returned and the exec ended" 0 "$(pending)"
        assert_contains "(7) $m: b/0 ran the relation-changed the exec caused" "b/0 backend-relation-changed remote=a/0" "$(events $((n0 + 1)))"
done
finish
