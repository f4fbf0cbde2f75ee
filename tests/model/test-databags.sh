#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Databag rules: own unit bag writable, app bag leader-only, non-leader may not read its own app
# bag (non-peer), remote bags read-only, peers read everything, writes in relation-broken fail.
. "$(dirname "$0")/lib.sh"

js deploy "$CHARMS/recorder" a -n 2
js deploy "$CHARMS/recorder" b -n 2
js integrate a:db b:backend
js wait || fail "wait"
rid=$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')
r="db:$rid"
x() { js exec "$@"; }

assert_rc "a unit writes its own bag" 0 x a/1 -- relation-set -r "$r" k=v
assert_eq "and reads it back" "v" "$(x a/1 -- relation-get -r "$r" k a/1)"
assert_eq "each unit bag starts with the addresses" "egress-subnets: 127.0.0.1/32
ingress-address: 127.0.0.1
k: v
private-address: 127.0.0.1" "$(x a/1 -- relation-get -r "$r" - a/1)"
assert_rc "the leader writes the app bag" 0 x a/0 -- relation-set -r "$r" --app ak=av
assert_eq "the leader reads its own app bag" "av" "$(x a/0 -- relation-get -r "$r" --app ak a)"
out=$(x a/1 -- relation-set -r "$r" --app ak=zz 2>&1); rc=$?
assert_eq "a non-leader may not write the app bag (exit 1)" 1 "$rc"
assert_contains "with ERROR on stderr" "ERROR" "$out"
out=$(x a/1 -- relation-get -r "$r" --app - a 2>&1); rc=$?
assert_eq "a non-leader reading its own app bag (non-peer) is refused" 1 "$rc"
assert_contains "permission denied" "permission denied" "$out"
assert_eq "the remote side reads the app bag" "av" "$(x b/1 -- relation-get -r "backend:$rid" --app ak a)"
assert_eq "the remote side reads a unit bag" "v" "$(x b/0 -- relation-get -r "backend:$rid" k a/1)"
assert_rc "a unit of the same app (non-peer) may not read a sibling's bag" 1 x a/0 -- relation-get -r "$r" - a/1
# relation-set only ever writes the writer's own bags: remote bags are read-only by construction
x b/0 -- relation-set -r "backend:$rid" k=fromb
assert_eq "a remote write lands in the writer's own bag, not the remote's" "v fromb" \
        "$(x b/0 -- relation-get -r "backend:$rid" k a/1) $(x b/0 -- relation-get -r "backend:$rid" k b/0)"
assert_rc "an empty value deletes the key" 0 x a/1 -- relation-set -r "$r" k=
assert_eq "deleted" "" "$(x b/0 -- relation-get -r "backend:$rid" k a/1)"
printf 'f1: one\nf2: "2"\n' > "$TMP/bag.yaml"
assert_rc "relation-set --file PATH" 0 x a/1 -- relation-set -r "$r" --file "$TMP/bag.yaml" f3=three
assert_eq "--file values and key=value" "one 2 three" \
        "$(x b/0 -- relation-get -r "backend:$rid" f1 a/1) $(x b/0 -- relation-get -r "backend:$rid" f2 a/1) $(x b/0 -- relation-get -r "backend:$rid" f3 a/1)"
assert_eq "relation-set --file - reads stdin" "4" \
        "$(echo 'f4: 4' | x a/1 -- relation-set -r "$r" --file - && x a/1 -- relation-get -r "$r" f4 a/1)"
assert_eq "relation-get --format=json of one key" '"one"' "$(x b/0 -- relation-get -r "backend:$rid" --format=json f1 a/1)"

# peers: everyone reads everything, only the leader writes the app bag
x a/0 -- relation-set -r cluster:0 --app pk=pv
x a/1 -- relation-set -r cluster:0 uk=uv
assert_eq "peer: a non-leader reads the app bag" "pv" "$(x a/1 -- relation-get -r cluster:0 --app pk a)"
assert_eq "peer: a unit reads a peer's bag" "uv" "$(x a/0 -- relation-get -r cluster:0 uk a/1)"
assert_rc "peer: a non-leader may not write the app bag" 1 x a/1 -- relation-set -r cluster:0 --app pk=no

# bad arguments
assert_rc "unknown relation id: exit 2" 2 x a/1 -- relation-get -r db:99 - a/1
out=$(x a/1 -- relation-get -r db:99 - a/1 2>&1)
assert_eq "unknown relation id message" 'ERROR invalid value "db:99" for option -r: relation not found' "$out"
assert_rc "relation-set without '=': exit 2" 2 x a/1 -- relation-set -r "$r" novalue
assert_rc "unknown flag: exit 2" 2 x a/1 -- relation-get --bogus
assert_rc "no relation outside a relation hook: exit 2" 2 x a/1 -- relation-get - a/1

# a gone unit's settings persist for the relation's lifetime (Juju's state/relationunit.go,
# ReadSettings): a counterpart reads them after the unit left; a unit that never was reads none
js remove-unit a/1
js wait || fail "wait after remove-unit"
assert_eq "a/1 is no longer listed" "a/0" "$(x b/0 -- relation-list -r "backend:$rid" | sort | tr '\n' ' ' | sed 's/ $//')"
assert_eq "b/0 reads the gone a/1's settings" "one" "$(x b/0 -- relation-get -r "backend:$rid" f1 a/1)"
assert_eq "a/0 reads the gone peer's settings" "uv" "$(x a/0 -- relation-get -r cluster:0 uk a/1)"
out=$(x b/0 -- relation-get -r "backend:$rid" - a/7 2>&1); rc=$?
assert_eq "a unit that never was: exit 1" 1 "$rc"
assert_contains "settings not found" "settings not found" "$out"

# relation-broken: data readable, writes refused
behave b backend-relation-broken 'out broken-set relation-set k=late; out broken-get relation-get - "$JUJU_UNIT_NAME"'
js remove-relation a b
js wait || fail "wait after remove-relation"
assert_eq "write during relation-broken fails (exit 1)" "1" "$(got b broken-set.rc)"
assert_eq "own data still readable during relation-broken" "0" "$(got b broken-get.rc)"
assert_eq "relation-ids no longer lists it" "" "$(x b/0 -- relation-ids backend)"
finish
