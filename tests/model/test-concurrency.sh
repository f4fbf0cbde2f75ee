#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# hook-concurrency (issue 28): serial models run one hook at a time in the model; concurrent ones
# run hooks of different machines at once (at most N), one at a time per machine, and `exec`,
# `run`, `status`, `debug-log`, `capacity` never wait for another machine's hook. Writes of
# hooks that ran at once all land (no lost update), and `wait` returns only when nothing is left.
# Prints the figures: the longest exec latency during a sleeping hook, serial and concurrent.
. "$(dirname "$0")/lib.sh"

LONG=${JUJU_SIM_TEST_LONG_HOOK:-20} # seconds the long hook sleeps (issue 28's figure)
TIMES="$TMP/times.log"
mode() { js model-config hook-concurrency="$1" || fail "model-config hook-concurrency=$1"; }
now() { echo "$EPOCHREALTIME"; }
# ms CMD…: runs CMD (output dropped), prints how long it took in ms
ms() {
        local t0=$EPOCHREALTIME
        "$@" >/dev/null 2>&1
        awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
}
# The most hooks that ran at once, from "begin|end UNIT TIME" lines.
max_at_once() {
        sort -k3,3n "$1" | awk '$1 == "begin" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m + 0 }'
}
# wait_for FILE: until FILE exists (10 s at most)
wait_for() {
        local i
        for i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
        return 1
}
pending() { js status --format=json | jq '[.applications[].units[]."pending-events"] | add'; }

JUJU_SIM_MODEL=$TMP/fresh js model-config automatically-retry-hooks=false
assert_eq "hook-concurrency is machines by default (Juju's rule)" "machines" "$(JUJU_SIM_MODEL=$TMP/fresh js model-config hook-concurrency)"
JUJU_SIM_MODEL=$TMP/fresh js destroy
js model-config hook-concurrency=machines >/dev/null
assert_eq "hook-concurrency: machines" "machines" "$(js model-config hook-concurrency)"
assert_rc "hook-concurrency: a number of workers" 0 js model-config hook-concurrency=3
assert_rc "hook-concurrency: not a number" 1 js model-config hook-concurrency=0
assert_rc "hook-concurrency: not a word" 1 js model-config hook-concurrency=many
mode serial

js deploy "$CHARMS/recorder" a -n 2
js deploy "$CHARMS/recorder" b -n 2
js integrate a:db b:backend
js wait || fail "deploy"

# (a) four units on four machines, each hook sleeping 1 s: serial one after another, concurrent
# all at once, hook-concurrency=2 two at a time
for app in a b; do
        behave $app update-status "echo \"begin \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $TIMES; sleep 1; echo \"end \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $TIMES"
done
for m in serial machines 2; do
        mode $m
        : > "$TIMES"
        js trigger a update-status
        js trigger b update-status
        took=$(ms js wait)
        n=$(max_at_once "$TIMES")
        echo "hook-concurrency=$m: 4 hooks of 1 s in $took ms, at most $n at once"
        assert_eq "hook-concurrency=$m: 4 hooks ran" 4 "$(grep -c '^end' "$TIMES")"
        case $m in
        serial) want=1 ;;
        machines) want=4 ;;
        2) want=2 ;;
        esac
        assert_eq "hook-concurrency=$m: at most $want at once" "$want" "$n"
done
for app in a b; do unbehave $app update-status; done

# (b), (e) and the figures: a/0's hook sleeps LONG s; exec on b/0 meanwhile
behave a update-status "[ \"\$JUJU_UNIT_NAME\" = a/0 ] || exit 0; touch $TMP/long.begun; sleep $LONG"
declare -A figure
for m in serial machines; do
        mode $m
        rm -f "$TMP/long.begun"
        js trigger a/0 update-status
        js wait > "$TMP/wait.$m.out" 2>&1 &
        waiter=$!
        wait_for "$TMP/long.begun" || fail "$m: the long hook did not begin"
        lat_status=$(ms js status)
        lat_log=$(ms js debug-log -n 5)
        lat_cap=$(ms js capacity)
        lat_exec=$(ms js exec b/0 -- true)
        figure[$m]=$lat_exec
        echo "hook-concurrency=$m, during a/0's ${LONG} s hook: exec b/0 ${lat_exec} ms, status ${lat_status} ms," \
                "debug-log ${lat_log} ms, capacity ${lat_cap} ms"
        # "does not wait" means well inside the hook's LONG s, not a speed goal (a loaded 2-core
        # host took 2.7 s for a run that waits for nothing; the figures are printed)
        quick=$((LONG * 1000 / 2))
        for v in status:$lat_status debug-log:$lat_log capacity:$lat_cap; do
                [ "${v#*:}" -lt $quick ] && pass "$m: ${v%%:*} does not wait for a hook (${v#*:} ms)" ||
                        fail "$m: ${v%%:*} took ${v#*:} ms during a hook"
        done
        if [ $m = serial ]; then
                [ "$lat_exec" -ge $(((LONG - 3) * 1000)) ] && pass "serial: exec b/0 waits for a/0's hook" ||
                        fail "serial: exec b/0 took $lat_exec ms during a/0's ${LONG} s hook"
        else
                [ "$lat_exec" -lt $quick ] && pass "concurrent: exec b/0 does not wait for a/0's hook" ||
                        fail "concurrent: exec b/0 took $lat_exec ms during a/0's hook"
                lat_run=$(ms js run b/0 free)
                [ "$lat_run" -lt $quick ] && pass "concurrent: run b/0 does not wait for a/0's hook ($lat_run ms)" ||
                        fail "concurrent: run b/0 took $lat_run ms during a/0's hook"
                # a unit's own machine stays locked: an exec on a/0 waits for its hook
                lat_own=$(ms js exec a/0 -- true)
                echo "hook-concurrency=$m: exec a/0 during its own hook: $lat_own ms"
                [ "$lat_own" -ge 3000 ] && pass "concurrent: exec a/0 waits for a/0's own hook" ||
                        fail "concurrent: exec a/0 took only $lat_own ms during its own hook"
        fi
        wait $waiter || fail "$m: wait failed: $(cat "$TMP/wait.$m.out")"
done
unbehave a update-status
echo "FIGURE longest exec latency on b/0 during a/0's ${LONG} s hook: serial ${figure[serial]} ms," \
        "concurrent ${figure[machines]} ms"

# (c) no lost update: six units of two applications commit at once: each its unit bag (peer and
# regular relation), its state and status, each leader its application bag and leader settings
mode machines
js deploy "$CHARMS/recorder" c -n 3
js deploy "$CHARMS/recorder" d -n 3
js integrate c:db d:backend
js wait || fail "deploy c, d"
for app in c d; do
        behave $app update-status '
echo "begin $JUJU_UNIT_NAME $EPOCHREALTIME" >> '"$TIMES"'
me=${JUJU_UNIT_NAME//\//-}
for r in $(relation-ids cluster) $(relation-ids db) $(relation-ids backend); do relation-set -r "$r" "mark-$me=$me"; done
state-set "mark=$me"
status-set active "mark $me"
# a barrier (10 s at most): every writer waits for the six to have begun, so a loaded machine
# that starts them slowly still shows them at once, and a model that runs them one by one not
for i in $(seq 100); do [ "$(grep -c "^begin" '"$TIMES"')" -ge 6 ] && break; sleep 0.1; done
sleep 1
if [ "$(is-leader)" = True ]; then
        leader-set "mark-$me=$me"
        for r in $(relation-ids cluster) $(relation-ids db) $(relation-ids backend); do relation-set -r "$r" --app "app-$me=$me"; done
fi
echo "end $JUJU_UNIT_NAME $EPOCHREALTIME" >> '"$TIMES"
done
: > "$TIMES"
js trigger c update-status
js trigger d update-status
js wait || fail "the concurrent writers' wait"
assert_eq "(c) the six writers ran at once" 6 "$(max_at_once "$TIMES")"
assert_eq "(c) each writer ran once (its queue's head popped by its own commit only)" 6 "$(grep -c '^begin' "$TIMES")"
st="$JUJU_SIM_MODEL/state.json"
for u in c/0 c/1 c/2 d/0 d/1 d/2; do
        me=${u//\//-}
        app=${u%%/*}
        for ep in cluster "$([ "$app" = c ] && echo db || echo backend)"; do
                id=$(js exec "$u" -- relation-ids "$ep" | head -1)
                got=$(jq -r --arg id "${id#*:}" --arg u "$u" --arg k "mark-$me" '.relations[$id]."unit-data"[$u][$k] // "missing"' "$st")
                assert_eq "(c) $u's bag in $ep kept its write" "$me" "$got"
        done
        assert_eq "(c) $u's state kept its write" "$me" "$(js exec "$u" -- state-get mark)"
        assert_eq "(c) $u's status kept its write" "mark $me" \
                "$(js status --format=json | jq -r --arg a "$app" --arg u "$u" '.applications[$a].units[$u]."workload-status".message')"
done
for app in c d; do
        leader=$(js status --format=json | jq -r --arg a "$app" '.applications[$a].units | to_entries[] | select(.value.leader) | .key')
        lme=${leader//\//-}
        assert_eq "(c) $app's leader settings kept" "$lme" "$(js exec "$leader" -- leader-get "mark-$lme")"
        id=$(js exec "$leader" -- relation-ids cluster | head -1)
        got=$(jq -r --arg id "${id#*:}" --arg a "$app" --arg k "app-$lme" '.relations[$id]."app-data"[$a][$k] // "missing"' "$st")
        assert_eq "(c) $app's application bag kept" "$lme" "$got"
done
# every unit sees every other's write (the relation-changed each commit queued ran)
for u in c/0 d/2; do
        id=$(js exec "$u" -- relation-ids cluster | head -1)
        app=${u%%/*}
        for o in 0 1 2; do
                [ "$app/$o" = "$u" ] && continue
                assert_eq "(c) $u reads $app/$o's write" "$app-$o" "$(js exec "$u" -- relation-get -r "$id" "mark-$app-$o" "$app/$o")"
        done
done
for app in c d; do unbehave $app update-status; done

# (d) wait returns only when nothing is left: a/0's hook writes its bag after 1 s, which queues
# relation-changed on b's units, whose hook writes theirs, which queues relation-changed on a's
behave a update-status '[ "$JUJU_UNIT_NAME" = a/0 ] || exit 0; sleep 1; relation-set -r "$(relation-ids db)" chain=1'
behave b backend-relation-changed '[ "$(relation-get chain a/0)" = 1 ] && relation-set chain=2; true'
behave a db-relation-changed '[ "$(relation-get chain "$JUJU_REMOTE_UNIT")" = 2 ] && touch '"$TMP"'/chain.${JUJU_UNIT_NAME/\//-}.${JUJU_REMOTE_UNIT/\//-}; true'
n0=$(nevents)
js trigger a/0 update-status
js wait || fail "(d) the chain's wait"
assert_eq "(d) nothing pending after wait" 0 "$(pending)"
ls "$TMP" | grep -c '^chain\.' | { read -r n; assert_eq "(d) the chain's last hooks ran before wait returned (a/0 and a/1 saw b/0 and b/1)" 4 "$n"; }
assert_contains "(d) b/1 ran the relation-changed a/0's hook queued" "b/1 backend-relation-changed remote=a/0" "$(events $((n0 + 1)))"
unbehave a update-status
unbehave b backend-relation-changed
unbehave a db-relation-changed

# a second wait while one runs: both return only when everything ran
behave a update-status 'sleep 1'
js trigger a update-status
js wait > /dev/null 2>&1 &
w1=$!
sleep 0.3
js wait || fail "the second wait"
assert_eq "a second wait returns only when nothing is left" 0 "$(pending)"
wait $w1 || fail "the first wait"
unbehave a update-status

# the switch back: serial again runs one hook at a time
mode serial
behave a update-status "echo \"begin \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $TIMES; sleep 0.5; echo \"end \$JUJU_UNIT_NAME \$EPOCHREALTIME\" >> $TIMES"
: > "$TIMES"
js trigger a update-status
js wait
assert_eq "serial again: one at a time" 1 "$(max_at_once "$TIMES")"
finish
