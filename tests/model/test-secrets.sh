#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Secrets: app-owned by default (leader manages), revisions, grants to a relation, consumers keep
# their revision until --refresh, secret-changed on a new revision, no grant = refused.
. "$(dirname "$0")/lib.sh"

js deploy "$CHARMS/recorder" a -n 2
js deploy "$CHARMS/recorder" b
js integrate a:db b:backend
js wait || fail "wait"
rid=$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')
x() { js exec "$@"; }

assert_rc "a non-leader may not add an app-owned secret" 1 x a/1 -- secret-add pass=nope
uid=$(x a/1 -- secret-add --owner unit pass=mine)
assert_contains "a non-leader may add a unit-owned secret" "secret:" "$uid"
id=$(x a/0 -- secret-add --label mysec --description 'test secret' pass=one)
[[ "$id" =~ ^secret:[0-9a-v]{20}$ ]] && pass "secret-add prints a secret URI" || fail "secret-add printed '$id'"
other=$(x a/0 -- secret-add pass=other)
assert_eq "secret-ids (leader): the app's secrets, ids without secret:" "$(printf '%s\n' "${id#secret:}" "${other#secret:}" | sort)" "$(x a/0 -- secret-ids)"
assert_eq "owner reads by label" "one" "$(x a/0 -- secret-get --label mysec --format=json | jq -r .pass)"
assert_rc "secret-get --label L KEY: KEY is taken as the URI (exit 2)" 2 x a/0 -- secret-get --label mysec pass
assert_eq "other units of the owner app read it" "one" "$(x a/1 -- secret-get "$id" pass)"

out=$(x b/0 -- secret-get "$id" 2>&1); rc=$?
assert_eq "a consumer without a grant is refused" "1 ERROR permission denied" "$rc $out"
assert_rc "a non-leader may not grant" 1 x a/1 -- secret-grant "$id" -r "db:$rid"
assert_rc "the leader grants to the relation" 0 x a/0 -- secret-grant "$id" -r "db:$rid"
assert_eq "the consumer reads it (and gives its own label)" "pass: one" "$(x b/0 -- secret-get "$id" --label theirs)"
assert_eq "json format" '{"pass":"one"}' "$(x b/0 -- secret-get "$id" --format=json)"
assert_eq "the consumer reads by its label" "one" "$(x b/0 -- secret-get --label theirs --format=json | jq -r .pass)"
assert_rc "still no grant for the other secret" 1 x b/0 -- secret-get "$other"

assert_rc "a non-leader may not set a new revision" 1 x a/1 -- secret-set "$id" pass=bad
n0=$(nevents)
x a/0 -- secret-set "$id" pass=two
js wait
assert_eq "secret-changed fires on the consumer" "b/0 secret-changed" "$(events $((n0 + 1)))"
envf="$(charm_dir b)/env/b-0.secret-changed"
assert_contains "JUJU_SECRET_ID" "JUJU_SECRET_ID=$id" "$(cat "$envf")"
assert_contains "JUJU_SECRET_LABEL is the consumer's label" "JUJU_SECRET_LABEL=theirs" "$(cat "$envf")"
assert_eq "the consumer keeps its revision" "one" "$(x b/0 -- secret-get "$id" pass)"
assert_eq "--peek shows the latest" "two" "$(x b/0 -- secret-get "$id" pass --peek)"
assert_eq "--peek does not move the consumer" "one" "$(x b/0 -- secret-get "$id" pass)"
n1=$(nevents)
assert_eq "--refresh moves it" "two" "$(x b/0 -- secret-get "$id" pass --refresh)"
assert_eq "and it stays there" "two" "$(x b/0 -- secret-get "$id" pass)"
js wait
assert_eq "revision 1, tracked by no one now, is obsolete: the owner (leader) gets secret-remove" \
        "a/0 secret-remove" "$(events $((n1 + 1)))"
assert_contains "with JUJU_SECRET_REVISION" "JUJU_SECRET_REVISION=1" "$(cat "$(charm_dir a)/env/a-0.secret-remove")"
assert_eq "the owner removes it" "0" "$(x a/0 -- secret-remove "$id" --revision 1 >/dev/null; echo $?)"
assert_eq "the owner sees the latest" "two" "$(x a/1 -- secret-get "$id" pass)"
assert_eq "secret-info-get: metadataDisplay's fields in order, no rotation unless set, the grant's access" \
        '{"revision":2,"label":"mysec","owner":"application","description":"test secret","access":[{"target":"application-b","scope":"relation-b.backend#a.db","role":"view"}]}' \
        "$(x a/0 -- secret-info-get "$id" --format=json | jq -c '.[]' )"
assert_rc "secret-info-get needs the owner (leader)" 1 x a/1 -- secret-info-get "$id"
n0=$(nevents)
x a/0 -- secret-set "$id" pass=two
js wait
assert_eq "the same content makes no new revision" "" "$(events $((n0 + 1)))"

x a/0 -- secret-revoke "$id" -r "db:$rid"
assert_rc "after revoke the consumer is refused" 1 x b/0 -- secret-get "$id"
assert_rc "a unit-owned secret belongs to its unit only" 1 x a/0 -- secret-set "$uid" pass=x
assert_rc "its owner unit sets it" 0 x a/1 -- secret-set "$uid" pass=x
x a/0 -- secret-remove "$other"
assert_rc "secret-remove" 1 x a/0 -- secret-get "$other"
assert_rc "secret-add without content: exit 2" 2 x a/0 -- secret-add
finish
