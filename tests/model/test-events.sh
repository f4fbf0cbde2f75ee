#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Event order: deploy, integrate, bag changes, config change, remove-unit (with leadership
# change), remove-relation, remove-application; peers; missing hooks skipped.
. "$(dirname "$0")/lib.sh"

js deploy "$CHARMS/recorder" a -n 2
js deploy "$CHARMS/recorder" b
js wait || fail "wait after deploy"
assert_eq "deploy order on the leader" "a/0 install
a/0 cluster-relation-created remote=
a/0 leader-elected
a/0 config-changed
a/0 start
a/0 cluster-relation-joined remote=a/1
a/0 cluster-relation-changed remote=a/1" "$(uevents a/0)"
assert_eq "deploy order on a non-leader" "a/1 install
a/1 cluster-relation-created remote=
a/1 leader-settings-changed
a/1 config-changed
a/1 start
a/1 cluster-relation-joined remote=a/0
a/1 cluster-relation-changed remote=a/0" "$(uevents a/1)"
assert_eq "a single unit gets no peer joined" "b/0 install
b/0 cluster-relation-created remote=
b/0 leader-elected
b/0 config-changed
b/0 start" "$(uevents b/0)"

# integrate: endpoint resolution
out=$(js integrate a b 2>&1) && fail "ambiguous integrate accepted"
assert_contains "ambiguous integrate names the candidates" 'ambiguous relation' "$out"
assert_contains "ambiguous integrate lists a:db b:backend" 'a:db b:backend' "$out"
assert_rc "integrate with no matching interface fails" 1 js integrate a:db b:db
assert_rc "integrate a:db b is resolved" 0 js integrate a:db b
assert_rc "the same relation twice fails" 1 js integrate a:db b:backend
n0=$(nevents)
js wait || fail "wait after integrate"
assert_eq "integrate order on a/0" "a/0 db-relation-created remote=
a/0 db-relation-joined remote=b/0
a/0 db-relation-changed remote=b/0" "$(uevents a/0 $((n0 + 1)))"
assert_eq "integrate order on b/0: joined then changed per remote unit" "b/0 backend-relation-created remote=
b/0 backend-relation-joined remote=a/0
b/0 backend-relation-changed remote=a/0
b/0 backend-relation-joined remote=a/1
b/0 backend-relation-changed remote=a/1" "$(uevents b/0 $((n0 + 1)) | by_remote)"
rid=$(js status --format=json | jq -r '.relations[] | select(.provider=="a:db") | .id')

# app bag change: relation-changed with an empty remote unit, only on the remote side
n0=$(nevents)
js exec a/0 -- relation-set -r "db:$rid" --app greeting=hi || fail "leader app bag write"
js wait
assert_eq "app bag change: changed with empty JUJU_REMOTE_UNIT on the remote app only" \
        "b/0 backend-relation-changed remote=" "$(events $((n0 + 1)))"
grep -qx 'JUJU_REMOTE_UNIT=' "$(charm_dir b)/env/b-0.backend-relation-changed" && pass "JUJU_REMOTE_UNIT is set and empty" \
        || fail "JUJU_REMOTE_UNIT not empty in app-bag relation-changed"
n0=$(nevents)
js exec a/1 -- relation-set -r "db:$rid" x=1
js wait
assert_eq "unit bag change: changed on the remote units, the writer is not told" \
        "b/0 backend-relation-changed remote=a/1" "$(events $((n0 + 1)))"
n0=$(nevents)
js exec a/1 -- relation-set -r "cluster:0" y=1
js wait
assert_eq "peer unit bag change: the other peers are told" "a/0 cluster-relation-changed remote=a/1" "$(events $((n0 + 1)))"

# config change
n0=$(nevents)
js config a count=5
js wait
assert_eq "config change: config-changed on every unit of the app" "a/0 config-changed
a/1 config-changed" "$(events $((n0 + 1)) | by_unit)"
n0=$(nevents)
js config a count=5
js wait
assert_eq "setting the same value again fires nothing" "" "$(events $((n0 + 1)))"

# update-status only when asked
n0=$(nevents)
js wait
assert_eq "wait does not fire update-status by itself" "" "$(events $((n0 + 1)))"
js trigger b/0 update-status
js wait
assert_eq "trigger UNIT update-status" "b/0 update-status" "$(events $((n0 + 1)))"
n0=$(nevents)
js wait --update-status
assert_eq "wait --update-status fires it on every unit" "a/0 update-status
a/1 update-status
b/0 update-status" "$(events $((n0 + 1)) | sort)"

# remove the leader: departed everywhere, departing unit's own sequence, new leader elected
n0=$(nevents)
js remove-unit a/0
js wait || fail "wait after remove-unit"
assert_eq "remove-unit: the departing unit: departed per remote unit, broken, stop, remove" "a/0 cluster-relation-departed remote=a/1 departing=a/0
a/0 db-relation-departed remote=b/0 departing=a/0
a/0 db-relation-broken remote=
a/0 stop
a/0 remove" "$(uevents a/0 $((n0 + 1)))"
assert_eq "remove-unit: a remaining peer gets departed, then leader-elected" "a/1 cluster-relation-departed remote=a/0 departing=a/0
a/1 leader-elected" "$(uevents a/1 $((n0 + 1)))"
assert_eq "remove-unit: the remote side gets departed with JUJU_DEPARTING_UNIT" \
        "b/0 backend-relation-departed remote=a/0 departing=a/0" "$(uevents b/0 $((n0 + 1)))"
assert_eq "a/1 is the leader now" "true" "$(js status --format=json | jq -r '.applications.a.units["a/1"].leader')"
assert_eq "a/0 is gone" "null" "$(js status --format=json | jq -r '.applications.a.units["a/0"]')"
assert_eq "a/0's machine is gone" "1 2" "$(js status --format=json | jq -r '.machines | keys | join(" ")')"

# add-unit into existing relations
n0=$(nevents)
js add-unit a
js wait
assert_eq "add-unit: new unit joins peers and existing relations" "a/2 install
a/2 cluster-relation-created remote=
a/2 db-relation-created remote=
a/2 leader-settings-changed
a/2 config-changed
a/2 start
a/2 cluster-relation-joined remote=a/1
a/2 cluster-relation-changed remote=a/1
a/2 db-relation-joined remote=b/0
a/2 db-relation-changed remote=b/0" "$(uevents a/2 $((n0 + 1)))"
assert_eq "add-unit: the others see it join" "a/1 cluster-relation-joined remote=a/2
a/1 cluster-relation-changed remote=a/2
b/0 backend-relation-joined remote=a/2
b/0 backend-relation-changed remote=a/2" "$(events $((n0 + 1)) | grep -v '^a/2' | by_unit)"

# remove-relation
n0=$(nevents)
js remove-relation a b
js wait
assert_eq "remove-relation on a/1" "a/1 db-relation-departed remote=b/0 departing=b/0
a/1 db-relation-broken remote=" "$(uevents a/1 $((n0 + 1)))"
assert_eq "remove-relation on b/0" "b/0 backend-relation-departed remote=a/1 departing=a/1
b/0 backend-relation-departed remote=a/2 departing=a/2
b/0 backend-relation-broken remote=" "$(uevents b/0 $((n0 + 1)))"
assert_eq "the relation is gone" "" "$(js status --format=json | jq -r '.relations[] | select(.type=="regular") | .id')"

# remove-application
js integrate a:db b:backend
js wait
n0=$(nevents)
js remove-application b
js wait || fail "wait after remove-application"
assert_eq "remove-application: its unit (the relation dies: each side sees the other depart)" "b/0 backend-relation-departed remote=a/1 departing=a/1
b/0 backend-relation-departed remote=a/2 departing=a/2
b/0 backend-relation-broken remote=
b/0 stop
b/0 remove" "$(uevents b/0 $((n0 + 1)))"
assert_eq "remove-application: the other side" "a/1 db-relation-departed remote=b/0 departing=b/0
a/1 db-relation-broken remote=" "$(uevents a/1 $((n0 + 1)))"
assert_eq "application b is gone" "a" "$(js status --format=json | jq -r '.applications | keys | join(" ")')"

# the others see a dying unit depart at once, whatever its own hooks do (Juju 3.x:
# cleanupDyingUnit -> PrepareLeaveScope on every joined relation as the unit becomes dying)
js deploy "$CHARMS/recorder" c -n 2
js deploy "$CHARMS/recorder" e
js integrate c:db e:backend
js wait || fail "wait after deploying c and e"
mkdir -p "$(charm_dir c)/fail"
touch "$(charm_dir c)/fail/c-1.db-relation-departed"
n0=$(nevents)
js remove-unit c/1
js wait >/dev/null 2>&1 && fail "the failing departed hook did not fail"
assert_eq "a dying unit in error: the other side saw it depart" "e/0 backend-relation-departed remote=c/1 departing=c/1" "$(uevents e/0 $((n0 + 1)))"
rm -f "$(charm_dir c)/fail/c-1.db-relation-departed"
js resolve c/1
js wait || fail "wait after resolve"

# a remote unit that departs before this unit ran its join: no joined, changed or departed for
# it (Juju's resolver compares the members it ran hooks for with the remote state); e/0 is held
# in error meanwhile
mkdir -p "$(charm_dir e)/fail"
touch "$(charm_dir e)/fail/e-0.update-status"
js trigger e/0 update-status
js wait >/dev/null 2>&1 && fail "the failing update-status did not fail"
n0=$(nevents)
js add-unit c
js wait >/dev/null 2>&1
js remove-unit c/2
js wait >/dev/null 2>&1
rm -f "$(charm_dir e)/fail/e-0.update-status"
js resolve e/0
js wait || fail "wait after resolving e/0"
assert_eq "a remote unit gone before its join ran: nothing of it on the other side" "e/0 update-status" \
        "$(uevents e/0 $((n0 + 1)))"
assert_eq "the unit that came and went ran its own join and departure" "c/2 db-relation-joined remote=e/0
c/2 db-relation-changed remote=e/0
c/2 db-relation-departed remote=e/0 departing=c/2
c/2 db-relation-broken remote=" "$(uevents c/2 $((n0 + 1)) | grep -E "db-relation-(joined|changed|departed|broken)")"

# ... but a join that failed runs again first when resolved, and then the member's changed and
# departed follow (Juju re-runs localState.Hook; its skip still commits the member)
touch "$(charm_dir e)/fail/e-0.backend-relation-joined"
n0=$(nevents)
js add-unit c
js wait >/dev/null 2>&1
js remove-unit c/3
js wait >/dev/null 2>&1
rm -f "$(charm_dir e)/fail/e-0.backend-relation-joined"
js resolve e/0
js wait || fail "wait after resolving e/0's join"
assert_eq "a failed join of a unit that left since: retried, then changed and departed" "e/0 backend-relation-joined remote=c/3
e/0 backend-relation-joined remote=c/3
e/0 backend-relation-changed remote=c/3
e/0 backend-relation-departed remote=c/3 departing=c/3" "$(uevents e/0 $((n0 + 1)))"

# what was queued before a departure and is about what is gone does not run (Juju's resolver
# compares states, it keeps no queue): a remote unit that left gets its departed and nothing
# more of it; a dying unit runs departed and broken, not the changes queued before it died
# fails_on UNIT HOOK: the recorder's HOOK fails on UNIT until mended; mend UNIT HOOK: no more,
# the unit resolved (its failed hook runs again) and the model settled; held UNIT: in error at
# an update-status, so that what comes meanwhile waits in its queue
fails_on() { mkdir -p "$(charm_dir "${1%/*}")/fail" && touch "$(charm_dir "${1%/*}")/fail/${1/\//-}.$2"; }
mend() {
        rm -f "$(charm_dir "${1%/*}")/fail/${1/\//-}.$2"
        js resolve "$1"
        js wait || fail "wait after resolving $1"
}
held() {
        fails_on "$1" update-status
        js trigger "$1" update-status
        js wait >/dev/null 2>&1 && fail "the failing update-status of $1 did not fail"
}
js deploy "$CHARMS/recorder" p
js deploy "$CHARMS/recorder" q -n 2
js integrate p:db q:backend
js wait || fail "wait after deploying p and q"
prid=$(js status --format=json | jq -r '.relations[] | select(.provider=="p:db") | .id')
held p/0
n0=$(nevents)
js exec q/1 -- relation-set -r "backend:$prid" x=1 || fail "q/1 bag write"
js exec q/0 -- relation-set -r "backend:$prid" x=1 || fail "q/0 bag write"
js remove-unit q/1
js wait >/dev/null 2>&1
mend p/0 update-status
# (sorted: Juju would run the departed first, juju-sim's queue keeps the order things happened)
assert_eq "a change of a unit that departed since: not run, its departed is" "p/0 db-relation-changed remote=q/0
p/0 db-relation-departed remote=q/1 departing=q/1
p/0 update-status" "$(uevents p/0 $((n0 + 1)) | sort)"
held p/0
n0=$(nevents)
js exec q/0 -- relation-set -r "backend:$prid" x=2 || fail "q/0 bag write (2)"
js exec q/0 -- relation-set -r "backend:$prid" --app y=2 || fail "q/0 app bag write"
js remove-unit p/0
js wait >/dev/null 2>&1
mend p/0 update-status
assert_eq "a dying unit: the changes queued before it died do not run" "p/0 update-status
p/0 db-relation-departed remote=q/0 departing=p/0
p/0 db-relation-broken remote=
p/0 stop
p/0 remove" "$(uevents p/0 $((n0 + 1)))"

# ... but the changed a committed join owes runs, also when the unit dies meanwhile
js add-unit p
js wait || fail "wait after add-unit p"
fails_on p/1 db-relation-joined
n0=$(nevents)
js add-unit q
js wait >/dev/null 2>&1
js remove-unit p/1
mend p/1 db-relation-joined
assert_eq "a dying unit whose join failed: the join again, its changed, departed, broken" "p/1 db-relation-joined remote=q/2
p/1 db-relation-joined remote=q/2
p/1 db-relation-changed remote=q/2
p/1 db-relation-departed remote=q/0 departing=p/1
p/1 db-relation-departed remote=q/2 departing=p/1
p/1 db-relation-broken remote=
p/1 stop
p/1 remove" "$(uevents p/1 $((n0 + 1)))"

# ... once: a failed owed changed runs again when resolved, and a change of the same unit queued
# behind it does not run as well (Juju re-runs localState.Hook, whose commit clears
# ChangedPending; review of the drop)
js add-unit p
js wait || fail "wait after add-unit p (2)"
fails_on p/2 db-relation-changed
n0=$(nevents)
js add-unit q
js wait >/dev/null 2>&1 && fail "the failing owed changed did not fail"
newq=$(uevents p/2 $((n0 + 1)) | sed -n 's/.*db-relation-joined remote=//p' | head -n1)
js exec "$newq" -- relation-set -r "backend:$prid" x=3 || fail "$newq bag write"
js remove-unit p/2
mend p/2 db-relation-changed
assert_eq "a dying unit whose owed changed failed: that changed again, once, then departed and broken" "p/2 db-relation-joined remote=$newq
p/2 db-relation-changed remote=$newq
p/2 db-relation-changed remote=$newq" "$(uevents p/2 $((n0 + 1)) | grep -E "db-relation-(joined|changed)")"
assert_contains "the dying p/2 departed and broke after it" "p/2 db-relation-broken" "$(uevents p/2 $((n0 + 1)))"

# dispatch vs hooks/<name>; missing hooks are skipped
n0=$(nevents)
js deploy "$CHARMS/hooks-only" h
js wait || fail "hooks-only charm settles"
d=$(charm_dir h)
assert_eq "without dispatch: hooks/<name> runs, missing hooks are skipped" "h/0 install hooks/install $d/hooks/install
h/0 start hooks/start $d/hooks/start" "$(events $((n0 + 1)))"
assert_contains "skipped hooks are in debug-log" '"hook":"config-changed","status":"skipped"' "$(js debug-log --replay --format=json)"
assert_eq "the hooks-only unit is not in error" "idle" "$(js status --format=json | jq -r '.applications.h.units["h/0"]["juju-status"].current')"
out=$(js run h/0 hello)
assert_contains "actions/<name> runs without dispatch" "path: actions/hello" "$out"
finish
