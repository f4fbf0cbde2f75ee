#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Serial models: one hook at a time across the whole model: concurrent `wait`s and `exec`s never
# overlap. Concurrent models: one at a time per machine (a unit's hooks and the execs on it).
. "$(dirname "$0")/lib.sh"

js deploy "$CHARMS/recorder" a -n 3
js deploy "$CHARMS/recorder" b -n 2
LOG="$TMP/lock.log"
for app in a b; do
        behave $app all "echo \"begin \$JUJU_UNIT_NAME \$JUJU_HOOK_NAME\" >> $LOG; sleep 0.02; echo \"end \$JUJU_UNIT_NAME \$JUJU_HOOK_NAME\" >> $LOG"
done
pids=()
js wait >/dev/null 2>&1 & pids+=($!)
js wait >/dev/null 2>&1 & pids+=($!)
for i in 1 2 3 4; do
        js exec a/1 -- "echo begin exec$i >> $LOG; sleep 0.05; echo end exec$i >> $LOG" & pids+=($!)
done
js integrate a:db b:backend
js wait >/dev/null 2>&1 & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || fail "a concurrent juju-sim failed"; done
js wait || fail "final wait"
runs=$(grep -c '^begin' "$LOG")
[ "$runs" -ge 30 ] && pass "hooks and execs ran ($runs)" || fail "only $runs runs"
# begin X / end X strictly alternate: never two at once (concurrent: never two on one machine;
# the execs run on a/1's)
key='"all"'
concurrent && key='($2 ~ /^exec/ ? "a/1" : $2)'
bad=$(awk "{ k = $key; if (\$1 == \"begin\") { if (open[k] != \"\") print \"overlap: \" open[k] \" / \" \$0; open[k] = \$0 }
             else { if (open[k] == \"\") print \"end without begin: \" \$0; open[k] = \"\" } }" "$LOG")
if concurrent; then
        assert_eq "no two hooks of one machine ever overlap" "" "$bad"
else
        assert_eq "no two hooks ever overlap" "" "$bad"
fi
# each unit's queue ran in order
assert_eq "a/2's own events in queue order" "a/2 install
a/2 cluster-relation-created remote=
a/2 leader-settings-changed
a/2 config-changed
a/2 start" "$(uevents a/2 | head -5)"
finish
