#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The hook environment: exactly Juju's variables per hook kind, nothing of the caller's leaks
# in, cwd is the charm directory.
. "$(dirname "$0")/lib.sh"

export LEAKME=1 HOME=/root
js deploy "$CHARMS/recorder" a -n 2
js deploy "$CHARMS/recorder" b
js integrate a:db b:backend
js wait || fail "wait"
envdir="$(charm_dir a)/env"
# bash adds PWD, SHLVL and _ to what it passes to `env`: not Juju's.
keys() { cut -d= -f1 "$1" | grep -vx -e PWD -e SHLVL -e _ | LC_ALL=C sort | tr '\n' ' '; }
# want VAR…: the expected key list, sorted as keys() prints it
want() { printf '%s\n' $always "$@" | LC_ALL=C sort | tr '\n' ' '; }
# HookContext.HookVars (juju/juju internal/worker/uniter/runner/context/context.go) exports these
# in every hook, empty where there is nothing to say
always="JUJU_API_ADDRESSES JUJU_SLA JUJU_PRINCIPAL_UNIT JUJU_AVAILABILITY_ZONE CLOUD_API_VERSION JUJU_CHARM_HTTP_PROXY JUJU_CHARM_HTTPS_PROXY JUJU_CHARM_FTP_PROXY JUJU_CHARM_NO_PROXY"
val() { grep "^$2=" "$1" | head -1 | cut -d= -f2-; }
base="CHARM_DIR DEBIAN_FRONTEND JUJU_AGENT_SOCKET_ADDRESS JUJU_AGENT_SOCKET_NETWORK JUJU_CHARM_DIR JUJU_CONTEXT_ID JUJU_DISPATCH_PATH JUJU_HOOK_NAME JUJU_MACHINE_ID JUJU_MODEL_NAME JUJU_MODEL_UUID"
rel="JUJU_RELATION JUJU_RELATION_ID JUJU_REMOTE_APP JUJU_REMOTE_UNIT"
assert_eq "install: only Juju's variables" "$(want $base JUJU_UNIT_NAME JUJU_VERSION LANG PATH)" "$(keys "$envdir/a-0.install")"
assert_eq "relation-joined adds the relation variables" "$(want $base $rel JUJU_UNIT_NAME JUJU_VERSION LANG PATH)" \
        "$(keys "$envdir/a-0.db-relation-joined")"
f="$envdir/a-0.install"
assert_eq "JUJU_UNIT_NAME" "a/0" "$(val "$f" JUJU_UNIT_NAME)"
assert_eq "JUJU_HOOK_NAME" "install" "$(val "$f" JUJU_HOOK_NAME)"
assert_eq "JUJU_DISPATCH_PATH" "hooks/install" "$(val "$f" JUJU_DISPATCH_PATH)"
assert_eq "JUJU_CHARM_DIR" "$(charm_dir a)" "$(val "$f" JUJU_CHARM_DIR)"
assert_eq "CHARM_DIR" "$(charm_dir a)" "$(val "$f" CHARM_DIR)"
assert_eq "JUJU_AGENT_SOCKET_NETWORK" "unix" "$(val "$f" JUJU_AGENT_SOCKET_NETWORK)"
if concurrent; then # a socket per context: agent-N.sock, N the context's number
        sock="$(val "$f" JUJU_AGENT_SOCKET_ADDRESS)"
        [[ "$sock" =~ ^"$JUJU_SIM_MODEL"/agent-[0-9]+\.sock$ ]] &&
                pass "JUJU_AGENT_SOCKET_ADDRESS is the context's own path in the model" ||
                fail "JUJU_AGENT_SOCKET_ADDRESS: $sock"
else
        assert_eq "JUJU_AGENT_SOCKET_ADDRESS is a path in the model" "$JUJU_SIM_MODEL/agent.sock" "$(val "$f" JUJU_AGENT_SOCKET_ADDRESS)"
fi
assert_eq "LANG" "C.UTF-8" "$(val "$f" LANG)"
assert_eq "DEBIAN_FRONTEND" "noninteractive" "$(val "$f" DEBIAN_FRONTEND)"
assert_eq "PATH: tools dir first" "$JUJU_SIM_MODEL/tools:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$(val "$f" PATH)"
assert_eq "JUJU_MACHINE_ID" "0" "$(val "$f" JUJU_MACHINE_ID)"
assert_eq "JUJU_MODEL_UUID is the model's" "$(js status --format=json | jq -r .model.uuid)" "$(val "$f" JUJU_MODEL_UUID)"
assert_eq "cwd is the charm dir" "$(charm_dir a)" "$(cat "$envdir/a-0.install.cwd")"
assert_eq "no HOME, no caller's variables" "" "$(grep -E '^(HOME|LEAKME|TOP_SRCDIR|JUJU_SIM_MODEL)=' "$envdir"/* || true)"
f="$envdir/a-0.db-relation-joined"
assert_eq "JUJU_RELATION" "db" "$(val "$f" JUJU_RELATION)"
assert_eq "JUJU_RELATION_ID" "db:$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')" "$(val "$f" JUJU_RELATION_ID)"
assert_eq "JUJU_REMOTE_APP" "b" "$(val "$f" JUJU_REMOTE_APP)"
assert_eq "JUJU_REMOTE_UNIT" "b/0" "$(val "$f" JUJU_REMOTE_UNIT)"
assert_eq "relation-created: JUJU_REMOTE_UNIT empty" "" "$(val "$envdir/a-0.db-relation-created" JUJU_REMOTE_UNIT)"
ctx1=$(val "$envdir/a-0.install" JUJU_CONTEXT_ID)
ctx2=$(val "$envdir/a-0.start" JUJU_CONTEXT_ID)
[ -n "$ctx1" ] && [ "$ctx1" != "$ctx2" ] && pass "a context id per hook run" || fail "context ids: '$ctx1' '$ctx2'"

js remove-unit b/0
js wait
f="$envdir/a-0.db-relation-departed"
assert_eq "relation-departed adds JUJU_DEPARTING_UNIT" "$(want $base JUJU_DEPARTING_UNIT $rel JUJU_UNIT_NAME JUJU_VERSION LANG PATH)" "$(keys "$f")"
assert_eq "JUJU_DEPARTING_UNIT" "b/0" "$(val "$f" JUJU_DEPARTING_UNIT)"

js run a/0 echo msg=hi >/dev/null
f="$envdir/a-0.action-echo"
assert_eq "actions: JUJU_ACTION_NAME/UUID/TAG, empty JUJU_HOOK_NAME" "$(want $base JUJU_ACTION_NAME JUJU_ACTION_UUID JUJU_ACTION_TAG JUJU_UNIT_NAME JUJU_VERSION LANG PATH)" "$(keys "$f")"
assert_eq "JUJU_ACTION_TAG is action-<id>" "action-$(val "$f" JUJU_ACTION_UUID)" "$(val "$f" JUJU_ACTION_TAG)"
assert_eq "JUJU_SLA" "unsupported" "$(val "$f" JUJU_SLA)"
assert_eq "action dispatch path" "actions/echo" "$(val "$f" JUJU_DISPATCH_PATH)"
assert_eq "action JUJU_HOOK_NAME empty" "" "$(val "$f" JUJU_HOOK_NAME)"
out=$(js exec a/1 -- 'echo "$JUJU_UNIT_NAME $JUJU_CONTEXT_ID $PWD"; echo ${HOME-nohome} ${LEAKME-noleak}')
assert_contains "exec runs in the unit's hook context" "a/1 a/1-" "$out"
assert_contains "exec: cwd is the charm dir" "$(charm_dir a)" "$out"
assert_contains "exec: nothing leaks" "nohome noleak" "$out"
finish
