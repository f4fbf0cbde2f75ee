#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Buffered commits: relation data, secrets, state and ports only when the hook exits 0;
# status-set and juju-log at once; a failed hook puts the unit in error and holds its queue.
. "$(dirname "$0")/lib.sh"

js deploy "$CHARMS/recorder" a
js deploy "$CHARMS/recorder" b
js integrate a:db b:backend
js wait || fail "wait"
rid=$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')
x() { js exec "$@"; }
ustatus() { js status --format=json | jq -r ".applications.${1%/*}.units[\"$1\"].$2"; }

behave a config-changed "relation-set -r db:$rid k=bad
state-set s=bad
open-port 80
secret-add --label failsec key=value
status-set active 'set in a failing hook'
juju-log 'logged in a failing hook'
false"
js config a count=7
n0=$(nevents)
out=$(js wait 2>&1); rc=$?
assert_eq "wait fails when a unit is in error" 1 "$rc"
assert_contains "and names the failing hook" 'a/0" is in error: hook failed: "config-changed"' "$out"
assert_eq "agent status error" "error" "$(ustatus a/0 '"juju-status".current')"
assert_eq "workload shows the failed hook" 'hook failed: "config-changed"' "$(ustatus a/0 '"workload-status".message')"
assert_eq "relation data not committed" "" "$(x b/0 -- relation-get -r backend:$rid k a/0)"
assert_eq "state not committed" "" "$(x a/0 -- state-get s)"
assert_eq "ports not committed" "" "$(x a/0 -- opened-ports)"
assert_eq "secret not committed" "" "$(x a/0 -- secret-ids)"
assert_eq "the remote side was not told" "" "$(events $((n0 + 1)) | grep b/0 || true)"
assert_contains "juju-log took effect at once" "logged in a failing hook" "$(js debug-log --replay)"
assert_contains "debug-log records the failure with its exit status" '"hook":"config-changed","status":"failed"' "$(js debug-log --replay --format=json)"

# the unit's queue is held; other units go on
js trigger a/0 update-status
js trigger b/0 update-status
n0=$(nevents)
js wait >/dev/null 2>&1
assert_eq "queue held while in error, other units go on" "b/0 update-status" "$(events $((n0 + 1)))"

# resolve: the failed hook is retried, then the queue goes on
unbehave a config-changed
behave a config-changed "relation-set -r db:$rid k=good; state-set s=good; open-port 80; open-port 8000-8010/udp"
n0=$(nevents)
js resolve a/0
js wait || fail "wait after resolve"
assert_eq "resolve retries the hook, then the rest of the queue" "$(printf '%s\n' "a/0 config-changed" \
        "b/0 backend-relation-changed remote=a/0" "a/0 update-status" | by_unit)" "$(events $((n0 + 1)) | by_unit)"
assert_eq "status-set of the failed hook stayed (took effect at once)" "active set in a failing hook" \
        "$(ustatus a/0 '"workload-status".current') $(ustatus a/0 '"workload-status".message')"
assert_eq "agent idle again" "idle" "$(ustatus a/0 '"juju-status".current')"
assert_eq "relation data committed on exit 0" "good" "$(x b/0 -- relation-get -r backend:$rid k a/0)"
assert_eq "state committed" "good" "$(x a/0 -- state-get s)"
assert_eq "ports committed" "80/tcp
8000-8010/udp" "$(x a/0 -- opened-ports)"
assert_rc "resolve of a unit not in error fails" 1 js resolve a/0

# exec: the same rule
assert_rc "exec passes the exit status through" 3 x a/0 -- "state-set s=execfail; exit 3"
assert_eq "exec's changes dropped on failure" "good" "$(x a/0 -- state-get s)"
x a/0 -- "state-set s=execok" && assert_eq "exec's changes kept on success" "execok" "$(x a/0 -- state-get s)"
x a/0 -- state-delete s
assert_eq "state-delete" "" "$(x a/0 -- state-get s)"
assert_rc "state-get --strict of a missing key fails" 1 x a/0 -- state-get --strict s
x a/0 -- close-port 80
assert_eq "close-port" "8000-8010/udp" "$(x a/0 -- opened-ports)"
assert_rc "a bad port is refused (exit 2)" 2 x a/0 -- open-port 70000

# resolve --no-retry: the failed hook is marked done without running again (Juju's
# ResolvedNoHooks); what it set stays uncommitted, the queue goes on
behave a config-changed "state-set s=noretry; false"
js config a count=8
js wait >/dev/null 2>&1
js trigger a/0 update-status
n0=$(nevents)
js resolve --no-retry a/0
js wait || fail "wait after resolve --no-retry"
assert_eq "--no-retry: the failed hook does not run again, the queue goes on" "a/0 update-status" "$(uevents a/0 $((n0 + 1)))"
assert_eq "--no-retry: its changes are not committed" "" "$(x a/0 -- state-get s)"
assert_eq "--no-retry: agent idle" "idle" "$(ustatus a/0 '"juju-status".current')"

# automatically-retry-hooks (Juju's default: true): the failed hook runs again by itself after
# 5 s, then 10, 20 … while wait lets time pass within its timeout
assert_eq "model-config: the test's setting" "false" "$(js model-config automatically-retry-hooks)"
js model-config automatically-retry-hooks=
assert_eq "model-config: Juju's default" "true" "$(js model-config automatically-retry-hooks)"
assert_rc "model-config: a bool only" 1 js model-config automatically-retry-hooks=maybe
assert_rc "model-config: an unknown key" 2 js model-config no-such-key=1
behave a config-changed 'if [ ! -e "$JUJU_CHARM_DIR/failed-once" ]; then touch "$JUJU_CHARM_DIR/failed-once"; return 1; fi
state-set r=retried'
js config a count=9
n0=$(nevents)
t0=$(date +%s)
js wait --timeout 60 || fail "wait while a retry is due"
took=$(($(date +%s) - t0))
assert_eq "the failed hook ran again by itself" "a/0 config-changed
a/0 config-changed" "$(uevents a/0 $((n0 + 1)))"
if [ "$took" -ge 4 ] && [ "$took" -le 20 ]; then pass "retried about 5 s later ($took s)"; else fail "retried after $took s, want ~5"; fi
assert_eq "the retry's changes are committed" "retried" "$(x a/0 -- state-get r)"
assert_eq "the retry's success leaves no retry behind" "null null" \
        "$(jq -r '.units["a/0"] | "\(.["retry-count"]) \(.["retry-at"])"' "$JUJU_SIM_MODEL/state.json")"
behave a config-changed false
js config a count=10
out=$(js wait --timeout 3 2>&1); rc=$?
assert_eq "a retry beyond wait's timeout: wait fails at once" 1 "$rc"
assert_contains "and says when the retry comes" 'hook failed: "config-changed" (automatic retry 1 in 5 s)' "$out"
js model-config automatically-retry-hooks=false
js resolve --no-retry a/0
unbehave a config-changed
js wait || fail "wait after the retries"
finish
