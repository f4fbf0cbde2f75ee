#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One hook at a time across the whole model: concurrent `wait`s and `exec`s never overlap.
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
# begin X / end X strictly alternate: never two at once
bad=$(awk '{ if ($1 == "begin") { if (open != "") print "overlap: " open " / " $0; open = $0 }
             else { if (open == "") print "end without begin: " $0; open = "" } }' "$LOG")
assert_eq "no two hooks ever overlap" "" "$bad"
# each unit's queue ran in order
assert_eq "a/2's own events in queue order" "a/2 install
a/2 cluster-relation-created remote=
a/2 leader-settings-changed
a/2 config-changed
a/2 start" "$(uevents a/2 | head -5)"
finish
