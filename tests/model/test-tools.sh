#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Hook tools: syntax, output formats, exit codes; typed config; actions validated against
# actions.yaml; network; juju-exec; status and debug-log; destroy (also after a killed juju-sim).
. "$(dirname "$0")/lib.sh"

assert_rc "deploy --config with a bad int is refused" 1 js deploy "$CHARMS/recorder" bad --config count=abc
js deploy "$CHARMS/recorder" a -n 2 --config name=from-deploy
js deploy "$CHARMS/recorder.charm" b 2>/dev/null || (cd "$CHARMS/recorder" && zip -qr "$TMP/recorder.charm" . && cd - >/dev/null && js deploy "$TMP/recorder.charm" b)
js integrate a:db b:backend
js wait || fail "wait"
x() { js exec "$@"; }
assert_eq "a .charm zip deploys" "recorder" "$(js status --format=json | jq -r .applications.b.charm)"
rid=$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')

# config
assert_eq "config-get --format=json: typed, unset left out" '{"count":3,"flag":false,"name":"from-deploy","ratio":0.5}' "$(x a/0 -- config-get --format=json)"
assert_eq "config-get --all includes unset options" "null" "$(x a/0 -- config-get --all --format=json | jq -c .nodefault)"
assert_eq "config-get KEY (smart)" "3" "$(x a/0 -- config-get count)"
assert_eq "a boolean in smart format" "False" "$(x a/0 -- config-get flag)"
assert_rc "config: a bad int is refused" 1 js config a count=1.5
assert_rc "config: a bad boolean is refused" 1 js config a flag=maybe
assert_rc "config: a bad float is refused" 1 js config a ratio=x
assert_rc "config: an unknown option is refused" 1 js config a nosuch=1
js config a count=7 flag=true ratio=2.25 nodefault=set
assert_eq "config values typed" '{"count":7,"flag":true,"name":"from-deploy","nodefault":"set","ratio":2.25}' "$(x a/0 -- config-get --format=json)"
js config a --reset count,nodefault
assert_eq "--reset restores defaults" '3 null' "$(x a/0 -- config-get --all --format=json | jq -c '.count, .nodefault' | tr '\n' ' ' | sed 's/ $//')"
assert_eq "juju-sim config APP KEY" "true" "$(js config a flag)"
assert_contains "juju-sim config APP prints the settings" "source: user" "$(js config a)"
js wait

# leadership, status
assert_eq "is-leader on the leader" "True" "$(x a/0 -- is-leader)"
assert_eq "is-leader --format=json on a non-leader" "false" "$(x a/1 -- is-leader --format=json)"
x a/1 -- status-set blocked "need x"
assert_eq "status-get" "blocked" "$(x a/1 -- status-get)"
assert_eq "status-get --include-data --format=json" '{"message":"need x","status":"blocked","status-data":{}}' "$(x a/1 -- status-get --include-data --format=json)"
assert_rc "status-set with a bad status: exit 2" 2 x a/1 -- status-set fine
assert_rc "status-set --application by a non-leader: exit 1" 1 x a/1 -- status-set --application active
x a/0 -- status-set --application active "app ok"
x a/0 -- application-version-set 1.2.3
st=$(js status)
assert_contains "status: leader marked" "a/0*" "$st"
assert_contains "status: unit workload and message" "need x" "$st"
assert_contains "status: app status and version" "1.2.3    active" "$st"
assert_contains "status: machines" "127.0.0.1" "$st"
assert_contains "status: relations" "b:backend" "$st"
assert_eq "status --application (leader) lists units" "blocked" "$(x a/0 -- status-get --application --format=json | jq -r '.["application-status"].units["a/1"].status')"
x a/0 -- juju-log -l WARNING "watch out"
assert_contains "juju-log with a level" "WARNING watch out" "$(js debug-log --replay)"
assert_rc "juju-log without a message: exit 2" 2 x a/0 -- juju-log

# relations
assert_eq "relation-ids" "db:$rid" "$(x a/0 -- relation-ids db)"
assert_eq "relation-ids --format=json" "[\"db:$rid\"]" "$(x a/0 -- relation-ids db --format=json)"
assert_eq "relation-list" "b/0" "$(x a/0 -- relation-list -r db:$rid)"
assert_eq "relation-list --app" "b" "$(x a/0 -- relation-list -r $rid --app)"
assert_eq "peer relation-list" "a/0" "$(x a/1 -- relation-list -r cluster:0)"

# network
assert_eq "unit-get private-address" "127.0.0.1" "$(x a/0 -- unit-get private-address)"
assert_eq "network-get: bind address (json: value)" "127.0.0.1" "$(x a/0 -- network-get db --format=json | jq -r '.["bind-addresses"][0].addresses[0].value')"
assert_eq "network-get: yaml keeps the old address key" "127.0.0.1" "$(x a/0 -- network-get db | sed -n 's/^ *address: //p')"
assert_eq "network-get: ingress address" "127.0.0.1" "$(x a/0 -- network-get db --format=json | jq -r '.["ingress-addresses"][0]')"
assert_eq "network-get --ingress-address" "127.0.0.1" "$(x a/0 -- network-get metrics --ingress-address)"
assert_rc "network-get of an unknown binding: exit 1" 1 x a/0 -- network-get nope

# actions
behave a action-echo 'action-set msg="$(action-get msg)" n="$(action-get n)" loud="$(action-get loud)" nested.key=v; action-log working'
behave a action-fail 'action-fail "it broke"'
assert_eq "run: params, defaults, results (json)" '{"loud":"","msg":"hi","n":"1","nested":{"key":"v"},"return-code":0}' \
        "$(js run a/0 echo msg=hi --format=json | jq -c '.["a/0"].results')"
assert_eq "run: typed params (action-get prints a boolean as True)" '3 True' "$(js run a/0 echo msg=hi n=3 loud=true --format=json | jq -r '.["a/0"].results | .n + " " + .loud')"
assert_contains "run: YAML results by default" "msg: hi" "$(js run a/0 echo msg=hi)"
# (cmd/juju/action/common.go FormatActionResult: log lines and timing as formatTimestamp, Go's
# Time.String() of the local time; the controller keeps whole seconds)
gotime='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [-+][0-9]{4} [A-Za-z0-9+-]+'
res=$(js run a/0 echo msg=hi --format=json)
assert_eq "run: action-log, the line after its time" 'true' "$(jq --arg re "^$gotime working\$" '.["a/0"].log | length == 1 and (.[0] | test($re))' <<<"$res")"
assert_eq "run: timing" 'completed enqueued started true' \
        "$(jq -r --arg re "^$gotime\$" '.["a/0"].timing | (keys | join(" ")) + " " + (map(test($re)) | all | tostring)' <<<"$res")"
assert_eq "run: no log without action-log" 'false' "$(js run a/0 fail --format=json | jq '.["a/0"] | has("log")')"
out=$(js run a/0 echo 2>&1); rc=$?
assert_eq "run: a missing required param is refused" "1" "$rc"
assert_contains "and named as the controller does" 'validation failed: (root) : "msg" property is missing and required, given {}' "$out"
assert_rc "run: an unknown param is refused (additionalProperties false)" 1 js run a/0 echo msg=hi extra=1
assert_rc "run: a bad integer is refused" 1 js run a/0 echo msg=hi n=abc
assert_rc "run: an unknown action is refused" 1 js run a/0 nosuch
# Juju (cmd/juju/action/run.go): action-fail and exit 0 is a failed task but a successful
# command; a return code of 1 or more fails the command with the task's id and code
out=$(js run a/0 fail --format=json 2>/dev/null); rc=$?
assert_eq "run: action-fail and exit 0: exit 0" 0 "$rc"
assert_eq "run: failed with its message" "failed it broke" "$(jq -r '.["a/0"] | .status + " " + .message' <<<"$out")"
out=$(js run a/0 fail 2>/dev/null); rc=$?
assert_eq "run: plain output names the failed task first" "0|1" "$rc|$(head -n1 <<<"$out" | grep -Ec '^Action id [0-9]+ failed: it broke$')"
behave a action-fail 'action-fail "it broke"; echo partial; exit 3'
out=$(js run a/0 fail 2>&1 >/dev/null); rc=$?
assert_eq "run: a return code of 3 fails the command" 1 "$rc"
assert_contains "named as Juju does" "the following task failed:" "$out"
assert_contains "with the task's code" 'with return code 3' "$out"
assert_contains "plain output ends with the action's stdout" "partial" "$(js run a/0 fail 2>/dev/null)"
behave a action-fail 'action-fail "it broke"'
assert_eq "a failed action does not put the unit in error" "idle" "$(js status --format=json | jq -r '.applications.a.units["a/0"]["juju-status"].current')"
assert_rc "action-get outside an action: exit 1" 1 x a/0 -- action-get
behave a action-free 'out reserved action-set stdout=x'
js run a/0 free >/dev/null 2>&1
assert_eq "action-set of a reserved key: exit 2" 2 "$(got a reserved.rc)"

# tool errors
assert_rc "unknown flag: exit 2" 2 x a/0 -- config-get --nope
assert_rc "a tool outside any hook: exit 1" 1 "$JUJU_SIM_MODEL/tools/is-leader"

# juju-exec from a bare environment (as a service would)
out=$(env -i PATH=/usr/bin:/bin "$JUJU_SIM_MODEL/tools/juju-exec" a/1 'echo $JUJU_UNIT_NAME; is-leader')
assert_eq "juju-exec finds the model and runs in the unit's context" "a/1
False" "$out"
out=$(env -i PATH="$JUJU_SIM_MODEL/tools:/usr/bin:/bin" juju-exec a/0 is-leader)
assert_eq "juju-exec found on PATH" "True" "$out"
assert_rc "juju-exec inside a hook is refused" 1 x a/0 -- juju-exec a/1 true

# debug-log
rec=$(js debug-log --replay --format=json | jq -c 'select(.hook=="install" and .unit=="a/0") | [.rc, (.["duration-ms"] >= 0), (.["maxrss-kb"] > 0), .status]')
assert_eq "debug-log: exit status, duration, peak RSS" '[0,true,true,"ok"]' "$rec"
assert_contains "debug-log text" "a/0 install ok rc=0" "$(js debug-log --replay)"
[ "$(js debug-log | wc -l)" -ge 10 ] && pass "debug-log without --replay shows the last lines" || fail "debug-log short"

# destroy: idempotent, and after a killed juju-sim
js exec a/0 -- "echo \$\$ > $TMP/hookpid; exec sleep 30" &
jpid=$!
for _ in $(seq 100); do [ -s "$TMP/hookpid" ] && break; sleep 0.05; done
kill -9 "$jpid"
wait "$jpid" 2>/dev/null
kill -9 "$(cat "$TMP/hookpid")" 2>/dev/null
[ -S "$JUJU_SIM_MODEL/agent.sock" ] && pass "a killed juju-sim leaves a stale socket" || pass "(no stale socket)"
assert_rc "the model works after a killed juju-sim" 0 js wait
assert_rc "destroy" 0 js destroy
[ ! -e "$JUJU_SIM_MODEL" ] && pass "the model dir is gone" || fail "model dir left"
assert_rc "destroy again is fine" 0 js destroy
assert_rc "status of a destroyed model fails" 1 js status
mkdir -p "$TMP/notamodel"
assert_rc "destroy refuses a directory that is no model" 1 js --model "$TMP/notamodel" destroy
[ -d "$TMP/notamodel" ] && pass "and leaves it alone" || fail "removed a non-model dir"
finish
