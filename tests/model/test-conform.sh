#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Conformance with the Juju 3.x agent (tools/juju-sim/README.md, "Conformance"): hook tools run
# with the exact argv forms real clients use (the Python operator framework's model backend among
# them), outputs compared byte for byte with what Juju prints, exit codes and error texts as
# Juju's cmd.Main gives them (usage errors exit 2, run errors exit 1, "ERROR <text>").
. "$(dirname "$0")/lib.sh"

js deploy "$CHARMS/recorder" a -n 2
js deploy "$CHARMS/recorder" b
js integrate a:db b:backend
js wait || fail "wait"
rid=$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')
x() { js exec "$@"; }
# out UNIT CMD…: stdout, stderr and the exit status of one tool call, in one string
out() {
        local u=$1 o e rc=0
        shift
        o=$(x "$u" -- "$@" 2>"$TMP/err") || rc=$?
        e=$(cat "$TMP/err")
        printf '%s|%s|%s' "$o" "$e" "$rc"
}
# bytes UNIT CMD…: stdout exactly, as hex (trailing newlines matter)
bytes() {
        local u=$1
        shift
        x "$u" -- "$@" | od -An -c | tr -s ' ' | tr -d '\n'
}

# --- the gnuflag grammar (juju/gnuflag flag.go; juju/cmd cmd.go Main) ---
assert_eq "status-set --application=False active -- msg (ops 2.x)" "||0" "$(out a/1 status-set --application=False active -- 'all good')"
assert_eq "... sets the unit status" "active" "$(x a/1 -- status-get)"
assert_eq "status-set --application=True by the leader" "||0" "$(out a/0 status-set --application=True waiting 'wait for b')"
# (Juju's status-set returns the context's ErrIsNotLeader unannotated; status-get annotates it
# with "finding application status": jujuc status-set.go, status-get.go)
assert_eq "status-set --application=true by a non-leader" "|ERROR this unit is not the leader|1" "$(out a/1 status-set --application=true active)"
assert_eq "status-get --application by a non-leader" "|ERROR finding application status: this unit is not the leader|1" "$(out a/1 status-get --application)"
assert_eq "a message that starts with a dash after --" "-x- starts with a dash" "$(x a/1 -- status-set maintenance -- '-x- starts with a dash' && x a/1 -- status-get --include-data --format=json | jq -r .message)"
assert_eq "status-get --include-data --format=json --application=false (ops)" '{"message":"-x- starts with a dash","status":"maintenance","status-data":{}}' \
        "$(x a/1 -- status-get --include-data --format=json --application=false)"
assert_eq "an unknown option: exit 2, gnuflag's text" "|ERROR option provided but not defined: --nope|2" "$(out a/0 is-leader --nope)"
assert_eq "status-set has no --format" "|ERROR option provided but not defined: --format|2" "$(out a/0 status-set --format=json active)"
assert_eq "a bad boolean value" '|ERROR invalid value "yes" for option --application: strconv.ParseBool: parsing "yes": invalid syntax|2' \
        "$(out a/0 status-set --application=yes active)"
assert_eq "a flag without its value" "|ERROR option needs an argument: -r|2" "$(out a/0 relation-get -r)"
assert_eq "an unknown relation id" "|ERROR invalid value \"db:99\" for option -r: relation not found|2" "$(out a/0 relation-get -r db:99 - a/0)"
assert_eq "a relation id that is not a number" "|ERROR invalid value \"db:x\" for option -r: invalid relation id|2" "$(out a/0 relation-list -r db:x)"
assert_eq "-r takes the number after the last colon (the name is not checked)" "b/0" "$(x a/0 -- relation-list -r other:$rid)"
assert_eq "-rN (value in the same word)" "b/0" "$(x a/0 -- relation-list -r$rid)"
assert_eq "--relation=N" "b/0" "$(x a/0 -- relation-list --relation=$rid)"
assert_eq "flags after positional arguments (interspersed)" "b" "$(x a/0 -- relation-get -r $rid - b/0 --app --format=json | jq -r 'type' | sed 's/object/b/')"
assert_eq "an unknown format" '|ERROR invalid value "xml" for option --format: unknown format "xml"|2' "$(out a/0 config-get --format=xml)"
assert_eq "secret-get allows only yaml and json" '|ERROR invalid value "smart" for option --format: unknown format "smart"|2' "$(out a/0 secret-get --format=smart --label x)"
assert_eq "too many arguments: cmd.CheckEmpty" '|ERROR unrecognized args: ["b" "c"]|2' "$(out a/0 is-leader b c)"
assert_eq "--help prints the usage, exit 0" "0" "$(out a/0 relation-ids --help | cut -d'|' -f3)"
assert_eq "-o FILE writes the output there" "True" "$(x a/0 -- bash -c 'is-leader -o /tmp/o.txt && cat /tmp/o.txt')"
assert_eq "juju-log --log-level LEVEL -- msg (ops)" "||0" "$(out a/0 juju-log --log-level WARNING -- '-dash message')"
assert_contains "... logged at that level" "WARNING -dash message" "$(js debug-log --replay)"
assert_eq "juju-log --format is deprecated, not refused" '|--format flag deprecated for command "juju-log"|0' "$(out a/0 juju-log --format=json hello)"
assert_eq "application-version-set -- version (ops)" "||0" "$(out a/0 application-version-set -- 1.0-rc1)"

# --- output formats (juju/cmd output.go: FormatSmart, FormatYaml, FormatJson) ---
x a/0 -- state-set empty= 2>/dev/null
assert_eq "smart: a missing key prints nothing" "" "$(bytes a/0 config-get nosuch)"
assert_eq "json: a missing key prints null" " n u l l \n" "$(bytes a/0 config-get nosuch --format=json)"
assert_eq "yaml: nil prints nothing" "" "$(bytes a/0 config-get nosuch --format=yaml)"
assert_eq "smart: an empty string prints nothing (state-get of a missing key is \"\")" "" "$(bytes a/0 state-get nosuch)"
assert_eq "smart: a bool is True/False" " T r u e \n" "$(bytes a/0 is-leader)"
assert_eq "json: Go escapes <, > and & (HTML-safe)" '"\u003ca\u0026b\u003e"' "$(x a/0 -- bash -c 'relation-set -r '$rid' "k=<a&b>" && relation-get -r '$rid' k a/0 --format=json')"
assert_eq "state-get of a missing key: \"\" (not null) in json" '""' "$(x a/0 -- state-get nosuch --format=json)"
assert_eq "state-get with no state: null in json" "null" "$(x a/1 -- state-get --format=json)"
assert_eq "state-get --strict of a missing key: exit 1" '|ERROR "nosuch" not found|1' "$(out a/0 state-get --strict nosuch)"
assert_eq "relation-ids sorted as strings, one per line" "db:$rid" "$(x a/0 -- relation-ids db)"
assert_eq "relation-ids of an endpoint with none: nothing in smart" "" "$(bytes a/0 relation-ids single)"
assert_eq "relation-ids --format=json of none: []" "[]" "$(x a/0 -- relation-ids single --format=json)"
assert_eq "status-get --format=json without --include-data: only the status" '{"status":"maintenance"}' "$(x a/1 -- status-get --format=json)"
assert_eq "action-get outside an action: exit 1" "|ERROR not running an action|1" "$(out a/0 action-get)"
assert_eq "action-set outside an action, bad args first: exit 2" '|ERROR argument "x" must be of the form key...=value|2' "$(out a/0 action-set x)"

# --- more tools: unit-get, ports, network-get flags, status-get --application, actions ---
assert_eq "unit-get without a setting" "|ERROR no setting specified|2" "$(out a/0 unit-get)"
assert_eq "unit-get of an unknown setting" '|ERROR unknown setting "x"|2' "$(out a/0 unit-get x)"
assert_eq "open-port without a port" "|ERROR no port or range specified|2" "$(out a/0 open-port)"
assert_eq "open-port 8080 then opened-ports (one per line, as ops parses it)" "8080/tcp" "$(x a/0 -- bash -c 'open-port 8080 && opened-ports')"
assert_eq "network-get --ingress-address --egress-subnets: a map" '{"egress-subnets":["127.0.0.1/32"],"ingress-address":"127.0.0.1"}' \
        "$(x a/0 -- network-get db --ingress-address --egress-subnets --format=json)"
assert_eq "network-get --egress-subnets alone: the list" "127.0.0.1/32" "$(x a/0 -- network-get db --egress-subnets)"
assert_eq "network-get -r ID without a binding" "|ERROR no arguments specified|2" "$(out a/0 network-get -r $rid)"
assert_eq "status-get --application --format=json (leader): status and units, no message without --include-data" \
        '{"application-status":{"status":"waiting","units":{"a/0":{"status":"unknown"},"a/1":{"status":"maintenance"}}}}' \
        "$(x a/0 -- status-get --application --format=json)"
behave a action-free 'action-set; out failed action-fail'
assert_eq "action-set with no arguments is fine; action-fail's default message" \
        "failed action failed without reason given, check action for errors" \
        "$(js run a/0 free --format=json 2>/dev/null | jq -r '.["a/0"] | .status + " " + .message')"
behave b backend-relation-changed 'juju-log -l debug "in a relation hook"'
x a/0 -- relation-set -r "$rid" poke=1 >/dev/null
js wait >/dev/null 2>&1
assert_contains "juju-log in a relation hook: the relation first, level case-insensitive" "DEBUG backend:$rid: in a relation hook" "$(js debug-log --replay)"
unbehave b backend-relation-changed

# --- YAML as gopkg.in/yaml.v2 writes it (encode.go stringv; emitterc.go, width 80) ---
long=$(printf 'word%.0s ' {1..30})
x a/1 -- bash -c 'state-set "multi=$(printf "l1\nl2")" "tab=$(printf "a\tb")" "colon=a: b" num=123 yes=yes \
        date=2024-01-01 "hash=a #b" "bang=!x" b60=1:20 oct=017 under=1_000 "plain=hello world" "long='"$long"'"
        printf "m2: |\n  l1\n\n  l3\n" | state-set --file -'
assert_eq "yaml: plain, single-quoted, double-quoted, literal |- and |, folded at 80 columns, keys quoted too" \
'b60: "1:20"
bang: '"'"'!x'"'"'
colon: '"'"'a: b'"'"'
date: "2024-01-01"
hash: '"'"'a #b'"'"'
long: word word word word word word word word word word word word word word word word
  word word word word word word word word word word word word word word
m2: |
  l1

  l3
multi: |-
  l1
  l2
num: "123"
oct: "017"
plain: hello world
tab: "a\tb"
under: "1_000"
"yes": "yes"' "$(x a/1 -- state-get)"

# --- relation-get / relation-set (relation-get.go, relation-set.go) ---
assert_eq "relation-get -r ID - UNIT --app --format=json (ops): the remote app bag" "{}" "$(x a/0 -- relation-get -r $rid - b/0 --app --format=json)"
assert_eq "relation-get of an application without --app" '|ERROR expected unit name, got application name "b"|2' "$(out a/0 relation-get -r $rid - b)"
assert_eq "relation-get of a bad unit name" '|ERROR invalid unit name "b/x"|2' "$(out a/0 relation-get -r $rid - b/x)"
assert_eq "relation-get outside a relation hook without a unit" "|ERROR no unit or application specified|2" "$(out a/0 relation-get -r $rid)"
assert_eq "relation-set --file - (ops): YAML map from stdin" "v1" "$(x a/0 -- bash -c 'printf "k1: v1\n" | relation-set -r '$rid' --file - && relation-get -r '$rid' k1 a/0')"
assert_eq "relation-set trims keys and values (keyvalues.Parse)" "v" "$(x a/0 -- bash -c 'relation-set -r '$rid' " k2 = v " && relation-get -r '$rid' k2 a/0')"
assert_eq "relation-set: a key twice" '|ERROR key "k" specified more than once|2' "$(out a/0 relation-set -r $rid k=1 k=2)"
assert_eq "relation-set --app by a non-leader" "|ERROR cannot write relation settings|1" "$(out a/1 relation-set -r $rid --app k=v)"
assert_eq "config-get KEY --all" '|ERROR cannot use argument --all together with key "count"|2' "$(out a/0 config-get count --all)"

# --- secrets (secret-add.go, secret-set.go, core/secrets CreateSecretData) ---
id=$(x a/0 -- bash -c 'printf "from a file" > /tmp/s1 && secret-add --label conf --owner application token#file=/tmp/s1 blob#base64=aGVsbG8gd29ybGQ= plain=x==')
[[ "$id" =~ ^secret:[0-9a-v]{20}$ ]] && pass "secret-add key#file= key#base64= (ops)" || fail "secret-add printed '$id'"
assert_eq "... #file content" "from a file" "$(x a/0 -- secret-get "$id" token)"
assert_eq "... #base64 decoded" "hello world" "$(x a/0 -- secret-get "$id" blob)"
assert_eq "... key#base64 gives it encoded" "aGVsbG8gd29ybGQ=" "$(x a/0 -- secret-get "$id" blob#base64)"
assert_eq "... trailing = of a value kept" "x==" "$(x a/0 -- secret-get "$id" plain)"
assert_eq "secret-get --format=json (yaml default)" '{"blob":"hello world","plain":"x==","token":"from a file"}' "$(x a/0 -- secret-get "$id" --format=json)"
assert_eq "secret-get default format is yaml" "plain: x==" "$(x a/0 -- secret-get "$id" | grep plain)"
assert_eq "secret-add key#file= of a missing file" '|ERROR reading content for secret key "k": open /nonexistent: no such file or directory|2' "$(out a/0 secret-add k#file=/nonexistent)"
assert_eq "secret-add key#base64= of bad base64: Go's offset (after the padding)" '|ERROR illegal base64 data at input byte 4|2' "$(out a/0 secret-add kone#base64=Zg==Zg==)"
nlid=$(x a/0 -- secret-add "ktwo#base64=Zg="$'\n'"=")
assert_eq "secret-add key#base64=: newlines skipped as Go skips them" "f" "$(x a/0 -- secret-get "$nlid" ktwo)"
assert_eq "secret-add with a bad key" '|ERROR key "AB" not valid|2' "$(out a/0 secret-add AB=1)"
assert_eq "secret-add without content" "|ERROR missing secret value or filename|2" "$(out a/0 secret-add --label y)"
assert_eq "secret-add --owner bad" '|ERROR secret owner "me" not valid|2' "$(out a/0 secret-add --owner me key=vvv)"
assert_eq "secret-add --rotate bad" '|ERROR rotate policy "often" not valid|2' "$(out a/0 secret-add --rotate often key=vvv)"
assert_eq "secret-add --expire bad" '|ERROR expire time or duration "soon" not valid|2' "$(out a/0 secret-add --expire soon key=vvv)"
assert_eq "secret-set ID --label --description --expire --rotate --owner key#file= (ops)" "||0" \
        "$(out a/0 bash -c 'printf new > /tmp/s2 && secret-set '"$id"' --label conf2 --description d --expire 2030-01-02T03:04:05+00:00 --rotate daily --owner application token#file=/tmp/s2')"
assert_eq "... new revision, metadata" '{"revision":2,"label":"conf2","owner":"application","description":"d","rotation":"daily","expiry":"2030-01-02T03:04:05Z"}' \
        "$(x a/0 -- secret-info-get "$id" --format=json | jq -c '.[]')"
assert_eq "... content" "new" "$(x a/0 -- secret-get "$id" token)"
assert_eq "secret-set of a malformed URI" '|ERROR secret URI "nope" not valid|2' "$(out a/0 secret-set nope key=vvv)"
assert_eq "secret-set by a non-leader of an app secret" "|ERROR this unit is not the leader|1" "$(out a/1 secret-set "$id" key=vvv)"
assert_eq "secret-info-get by id and label" "|ERROR specify either a secret URI or label but not both|2" "$(out a/0 secret-info-get "$id" --label conf2)"
assert_eq "secret-get --peek --refresh" "|ERROR specify one of --peek or --refresh but not both|2" "$(out a/0 secret-get "$id" --peek --refresh)"
assert_eq "secret-grant ID --relation N --unit U (ops)" "||0" "$(out a/0 secret-grant "$id" --relation $rid --unit b/0)"
assert_eq "secret-grant of a unit of another application" '|ERROR cannot specify unit "a/1" in relation to application "b"|2' "$(out a/0 secret-grant "$id" -r $rid --unit a/1)"
assert_eq "secret-revoke needs a target" "|ERROR missing relation or application or unit|2" "$(out a/0 secret-revoke "$id")"
assert_eq "secret-remove ID --revision 1 (ops)" "||0" "$(out a/0 secret-remove "$id" --revision 1)"
assert_eq "secret-remove --revision x" '|ERROR invalid value "x" for option --revision: strconv.ParseInt: parsing "x": invalid syntax|2' "$(out a/0 secret-remove "$id" --revision x)"
assert_eq "secret-ids: ids without secret: (ops adds it back)" "${id#secret:}" "$(x a/0 -- secret-ids | grep "${id#secret:}")"
assert_eq "secret-ids: a non-leader lists no application secret" "" "$(x a/1 -- secret-ids)"

# --- juju run: parameters (cmd/juju/action/run.go; internal/charm/actions.go; gojsonschema) ---
behave a action-typed 'out params action-get --format=json'
behave a action-open 'out params action-get --format=json'
behave a action-echo 'out params action-get --format=json'
jrun() { js run "$@" >/dev/null 2>"$TMP/err"; echo "$?|$(cat "$TMP/err")"; }
jrun a/0 typed times=3 flag=yes ratio=0.5 'tags=[a, b]' opts.name=x >/dev/null
assert_eq "values parsed as YAML (3 an integer, yes a boolean, a list), dotted keys nest, defaults typed and nested" \
        '{"flag":true,"mode":"fast","opts":{"depth":3,"name":"x"},"ratio":0.5,"tags":["a","b"],"times":3}' "$(got a params)"
jrun a/0 typed >/dev/null
assert_eq "defaults alone keep their YAML type (2, not \"2\")" '{"mode":"fast","opts":{"depth":3},"times":2}' "$(got a params)"
jrun a/0 typed --string-args opts.name=007 >/dev/null
assert_eq "--string-args keeps the raw strings" '"007"' "$(got a params | jq -c .opts.name)"
assert_eq "--string-args: a string where an integer is wanted is refused" \
        '1|ERROR validation failed: (root).times : must be of type integer, given "3"' "$(jrun a/0 typed --string-args times=3)"
printf 'times: 5\nmode: slow\nopts:\n  name: fromfile\n' > "$TMP/p.yaml"
jrun a/0 typed --params "$TMP/p.yaml" times=7 >/dev/null
assert_eq "--params FILE, arguments override it" '{"mode":"slow","opts":{"depth":3,"name":"fromfile"},"times":7}' "$(got a params)"
assert_eq "an enum" '1|ERROR validation failed: (root).mode : must match one of the enum values ["fast","slow"], given "medium"' "$(jrun a/0 typed mode=medium)"
assert_eq "a wrong type in a nested object" '1|ERROR validation failed: (root).opts.depth : must be of type integer, given 1.5' "$(jrun a/0 typed opts.depth=1.5)"
assert_eq "additionalProperties is false unless the action says otherwise" \
        '1|ERROR validation failed: (root) : additional property "nope" is not allowed, given {"nope":1}' "$(jrun a/0 typed nope=1)"
jrun a/0 open anything=1 >/dev/null
assert_eq "additionalProperties: true lets it in" '{"anything":1}' "$(got a params)"
assert_eq "required is checked before the defaults are inserted" \
        '1|ERROR validation failed: (root) : "msg" property is missing and required, given {"n":5}' "$(jrun a/0 echo n=5)"
assert_eq "an argument without =" '2|ERROR argument "x" must be of the form key.key.key...=value' "$(jrun a/0 typed x)"
assert_eq "a bad key" '2|ERROR key "Bad" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric and hyphens' "$(jrun a/0 typed Bad=1)"
jrun a/leader echo msg=viainleader >/dev/null
assert_eq "APP/leader runs on the leader" '"viainleader"' "$(got a params | jq -c .msg)"
assert_eq "an empty value stays the string \"\"" '""' "$(jrun a/0 echo msg= >/dev/null; got a params | jq -c .msg)"

# --- leader-get/-set, goal-state, juju-reboot, relation-model-get ---
js wait >/dev/null 2>&1
n0=$(nevents)
assert_eq "leader-set by the leader" "||0" "$(out a/0 leader-set k1=v1 'k2= two ')"
assert_eq "leader-get KEY" "two" "$(x a/1 -- leader-get k2)"
assert_eq "leader-get - --format=json" '{"k1":"v1","k2":"two"}' "$(x a/1 -- leader-get - --format=json)"
assert_eq "leader-get of a key=value" '|ERROR invalid key "a=b"|2' "$(out a/1 leader-get a=b)"
assert_eq "leader-set by a non-leader" "|ERROR cannot write leadership settings: cannot write settings: not the leader|1" "$(out a/1 leader-set k=v)"
js wait >/dev/null 2>&1
assert_contains "the other units get leader-settings-changed" "a/1 leader-settings-changed" "$(events $((n0 + 1)))"
# (apiserver uniter.go oneGoalState, goalStateRelations, goalStateUnits; jujuc goal-state.go)
nosince() { jq -c 'walk(if type == "object" then del(.since) else . end)'; }
gs=$(x a/0 -- goal-state --format=json)
assert_eq "goal-state: each entry's since is common.FormatTime(t, true)" "true" \
        "$(jq '[.units[], .relations[][]] | all(.since // "" | test("^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}Z$"))' <<<"$gs")"
assert_eq "goal-state --format=json: workload statuses, no peer relation, the remote app's relation status" \
        '{"units":{"a/0":{"status":"unknown"},"a/1":{"status":"maintenance"}},"relations":{"db":{"b":{"status":"joined"},"b/0":{"status":"unknown"}}}}' \
        "$(nosince <<<"$gs")"
js add-unit b >/dev/null
assert_eq "goal-state: every unit of the remote application, joined or not" '{"b":{"status":"joined"},"b/0":{"status":"unknown"},"b/1":{"status":"waiting"}}' \
        "$(x a/0 -- goal-state --format=json | jq -c .relations.db | nosince)"
js wait >/dev/null 2>&1
# (state/status.go setStatus: an unchanged status and message keep their since)
jq '.units["a/1"].workload.since = "2001-02-03T04:05:06Z"' "$JUJU_SIM_MODEL/state.json" >"$TMP/st" && cat "$TMP/st" >"$JUJU_SIM_MODEL/state.json"
x a/1 -- status-set maintenance -- '-x- starts with a dash'
assert_eq "status-set of the same status and message keeps its since" "2001-02-03 04:05:06Z" "$(x a/0 -- goal-state --format=json | jq -r '.units["a/1"].since')"
x a/1 -- status-set maintenance -- 'another message'
assert_not_contains "... another message moves it" "2001-02-03" "$(x a/0 -- goal-state --format=json | jq -r '.units["a/1"].since')"
assert_eq "status: workload-status since as common.FormatTime(t, false)" "true" \
        "$(js status --format=json | jq '.applications.a.units["a/1"]["workload-status"].since | test("^[0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[-+][0-9]{2}:[0-9]{2})$")')"
assert_eq "goal-state allows yaml and json only" '|ERROR invalid value "smart" for option --format: unknown format "smart"|2' "$(out a/0 goal-state --format=smart)"
assert_eq "juju-reboot outside an action is taken" "||0" "$(out a/0 juju-reboot)"
behave a action-free 'out reboot juju-reboot --now'
js run a/0 free >/dev/null 2>&1
assert_eq "juju-reboot in an action: exit 1" "1" "$(got a reboot.rc)"
assert_eq "relation-model-get -r ID (smart: YAML)" "uuid: $(js status --format=json | jq -r '.model.uuid // empty')" "$(x a/0 -- relation-model-get -r $rid)"

# --- charm bases (internal/charm/base.go validOSForBase; core/base/supportedseries.go) ---
mkbase() { # DIR OS CHANNEL: the recorder charm with a manifest naming OS@CHANNEL
        rm -rf "$1" && cp -r "$CHARMS/recorder" "$1"
        printf 'bases:\n- name: %s\n  channel: "%s"\n  architectures: [amd64]\n' "$2" "$3" >"$1/manifest.yaml"
}
mkbase "$TMP/deb" debian 12
assert_eq "a debian@12 manifest is refused as Juju refuses it" \
        '1|ERROR charm "recorder": no base Juju 3.x deploys a machine charm on: os "debian" not valid' \
        "$(js deploy "$TMP/deb" deb >/dev/null 2>"$TMP/err"; echo "$?|$(cat "$TMP/err")")"
mkbase "$TMP/bionic" ubuntu 18.04
assert_contains "ubuntu@18.04 is no longer a supported workload base" 'base "ubuntu@18.04" is not a supported machine base' \
        "$(js deploy "$TMP/bionic" old 2>&1)"
mkbase "$TMP/jammy" ubuntu 22.04
assert_eq "ubuntu@22.04 deploys" "0" "$(js deploy "$TMP/jammy" jam >/dev/null 2>&1; echo $?)"

# a subordinate charm deploys with no units (test-subordinates.sh has the rest)
rm -rf "$TMP/sub" && cp -r "$CHARMS/recorder" "$TMP/sub"
printf '%s\n' 'name: sub' 'summary: s' 'description: d' 'subordinate: true' 'requires:' '  juju-info:' \
        '    interface: juju-info' '    scope: container' >"$TMP/sub/metadata.yaml"
assert_rc "a subordinate charm deploys" 0 js deploy "$TMP/sub" sub
assert_eq "with no units" "0" "$(js status --format=json | jq '.applications.sub.scale')"

finish
