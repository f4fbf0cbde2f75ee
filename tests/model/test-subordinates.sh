#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Subordinate charms as Juju 3.x runs them (tools/juju-sim/subordinates.md): deployed without
# units; one unit per principal unit once the principal is installed and in scope of a container
# relation (the implicit juju-info here), on the principal's machine, named from the
# subordinate's own sequence; the principal runs no hooks for the implicit endpoint; the
# subordinate sees only its principal in the container relation and all its peers;
# JUJU_PRINCIPAL_UNIT; status nests subordinates; add-unit and remove-unit of a subordinate are
# refused; removing a principal unit takes its subordinate (the principal goes last), removing
# the relation takes them all; metadata rules (container requires, reserved names, scope values).
. "$(dirname "$0")/lib.sh"

status() { js status --format=json; }
# the recorder charm as a subordinate: juju-info (container) and a global endpoint of its own
mksub() {
        rm -rf "$1" && cp -r "$CHARMS/recorder" "$1"
        cat >"$1/metadata.yaml" <<'META'
name: sub
summary: a subordinate recorder
description: Test charm.
subordinate: true
requires:
  juju-info:
    interface: juju-info
    scope: container
  backend:
    interface: testdb
peers:
  subpeers:
    interface: sub-peers
META
}
mksub "$TMP/sub"

# deploy: no units; a count or a share is refused
js deploy "$CHARMS/recorder" p -n 2 >/dev/null || fail "deploy p"
assert_contains "deploy -n 2 of a subordinate is refused" "cannot use --num-units or --to with subordinate application" \
        "$(js deploy "$TMP/sub" sub -n 2 2>&1)"
assert_contains "deploy --share of a subordinate is refused" "with subordinate application" \
        "$(js deploy "$TMP/sub" sub --share /tmp:/srv/x 2>&1)"
assert_rc "deploy of a subordinate" 0 js deploy "$TMP/sub" sub
assert_eq "a subordinate application starts with no units" "0" "$(status | jq '.applications.sub.scale')"
js wait >/dev/null || fail "wait after deploy"
n0=$(nevents)

# integrate over the implicit juju-info: one subordinate per principal unit, on its machine
# (sub:backend would fit p:db too: Juju takes a declared endpoint over the implicit one)
js integrate sub:juju-info p >/dev/null || fail "integrate sub p"
js wait >/dev/null || fail "wait after integrate"
st=$(status)
assert_eq "subordinate-to" '["p"]' "$(jq -c '.applications.sub."subordinate-to"' <<<"$st")"
assert_eq "no units key for the subordinate application" "null" "$(jq -c '.applications.sub.units' <<<"$st")"
assert_eq "scale counts the subordinate units" "2" "$(jq '.applications.sub.scale' <<<"$st")"
assert_eq "each principal unit lists its subordinate" '["sub/0","sub/1"]' \
        "$(jq -c '[.applications.p.units[].subordinates // {} | keys[]] | sort' <<<"$st")"
s0=$(jq -r '.applications.p.units["p/0"].subordinates | keys[0]' <<<"$st")
s1=$(jq -r '.applications.p.units["p/1"].subordinates | keys[0]' <<<"$st")
state() { cat "$JUJU_SIM_MODEL/state.json"; }
assert_eq "a subordinate is on its principal's machine" \
        "$(state | jq -r '.units["p/0"].machine') $(state | jq -r '.units["p/1"].machine')" \
        "$(state | jq -r --arg a "$s0" --arg b "$s1" '.units[$a].machine + " " + .units[$b].machine')"
assert_eq "no machine was made for them" "2" "$(state | jq '.machines | length')"
assert_eq "the relation is container-scoped" "container" \
        "$(state | jq -r '.relations[] | select(.interface == "juju-info") | .scope')"
assert_eq "the principal side runs no juju-info hooks" "" "$(events "$((n0 + 1))" | awk '$1 ~ /^p\// && $2 ~ /^juju-info/')"
assert_eq "the subordinate's first hooks: install, then relation-created for each of its relations" \
        "install juju-info-relation-created subpeers-relation-created" \
        "$(uevents "$s0" "$((n0 + 1))" | awk '{print $2}' | head -3 | sed '2,3!b' | { read -r a; sort | tr '\n' ' ' | sed "s/^/$a /; s/ $//"; })"
assert_contains "the subordinate joins its principal" "$s0 juju-info-relation-joined remote=p/0" "$(events "$((n0 + 1))")"
assert_not_contains "… and not the other principal" "$s0 juju-info-relation-joined remote=p/1" "$(events "$((n0 + 1))")"
assert_contains "its peers are every subordinate unit" "$s0 subpeers-relation-joined remote=$s1" "$(events "$((n0 + 1))")"
assert_eq "JUJU_PRINCIPAL_UNIT in a subordinate's hook" "JUJU_PRINCIPAL_UNIT=p/0" \
        "$(grep '^JUJU_PRINCIPAL_UNIT=' "$(charm_dir sub)/env/${s0//\//-}.start")"
assert_eq "JUJU_PRINCIPAL_UNIT empty for a principal" "JUJU_PRINCIPAL_UNIT=" \
        "$(grep '^JUJU_PRINCIPAL_UNIT=' "$(charm_dir p)/env/p-0.start")"
assert_eq "JUJU_MACHINE_ID is the principal's" "$(grep '^JUJU_MACHINE_ID=' "$(charm_dir p)/env/p-0.start")" \
        "$(grep '^JUJU_MACHINE_ID=' "$(charm_dir sub)/env/${s0//\//-}.start")"
behave sub update-status 'out "rl-${JUJU_UNIT_NAME//\//-}" relation-list -r "$(relation-ids juju-info)"
out "rg-${JUJU_UNIT_NAME//\//-}" relation-get -r "$(relation-ids juju-info)" private-address "$JUJU_PRINCIPAL_UNIT"'
js trigger sub update-status >/dev/null || fail "trigger"
js wait >/dev/null
assert_eq "relation-list in the container relation: the principal only" "p/0" "$(got sub "rl-${s0//\//-}")"
assert_eq "the implicit side's address settings are there (it entered scope)" \
        "$(state | jq -r '.machines[.units["p/0"].machine].address // "?"')" "$(got sub "rg-${s0//\//-}")"
unbehave sub update-status
# goal-state (oneGoalState with the caller's name as principalName): a subordinate's own units
# are none, its principal application's are all; a principal sees only its own subordinate
behave sub update-status 'out "gs-${JUJU_UNIT_NAME//\//-}" goal-state --format=json'
behave p update-status 'out "gs-${JUJU_UNIT_NAME//\//-}" goal-state --format=json'
js trigger sub update-status >/dev/null || fail "trigger"
js trigger p/0 update-status >/dev/null || fail "trigger"
js wait >/dev/null
assert_eq "goal-state of a subordinate: no units of its own" "[]" "$(got sub "gs-${s0//\//-}" | jq -c '.units | keys')"
assert_eq "… all its principal application's" '["p","p/0","p/1"]' \
        "$(got sub "gs-${s0//\//-}" | jq -c '.relations["juju-info"] | keys')"
assert_eq "goal-state of a principal: its own subordinate only" "[\"sub\",\"$s0\"]" \
        "$(got p gs-p-0 | jq -c '.relations["juju-info"] | keys')"
unbehave sub update-status
unbehave p update-status
assert_eq "one leader among the subordinate units" "1" \
        "$(status | jq '[.applications.p.units[].subordinates[] | select(.leader)] | length')"

# a principal added later gets its subordinate after its install
js add-unit p >/dev/null || fail "add-unit p"
js wait >/dev/null || fail "wait after add-unit"
s2=$(status | jq -r '.applications.p.units["p/2"].subordinates | keys[0]')
assert_eq "the new principal's subordinate" "sub/2" "$s2"
assert_eq "… whose install came after the principal's" "p/2 install" \
        "$(events | grep -E '^(p/2|sub/2) install' | head -1)"

# add-unit and remove-unit of a subordinate are refused, nothing changes
before=$(state | jq -c '.units | keys')
assert_contains "add-unit of a subordinate" 'cannot add unit 1/1 to application "sub": cannot add unit to application "sub": application is a subordinate' \
        "$(js add-unit sub 2>&1)"
assert_contains "remove-unit of a subordinate" "is a subordinate, to remove use remove-relation" \
        "$(js remove-unit "$s1" 2>&1)"
assert_eq "nothing changed" "$before" "$(state | jq -c '.units | keys')"

# removing a principal unit takes its subordinate; the machine goes with the principal, last
n1=$(nevents)
js remove-unit p/0 >/dev/null || fail "remove-unit p/0"
js wait >/dev/null || fail "wait after remove-unit p/0"
assert_eq "p/0 and its subordinate are gone" "null null" \
        "$(state | jq -c --arg s "$s0" '[.units["p/0"], .units[$s]] | map(tostring) | join(" ")' -r)"
assert_eq "the subordinate ran its teardown" "yes" \
        "$(events "$((n1 + 1))" | grep -q "^$s0 remove" && events "$((n1 + 1))" | grep -q "^$s0 stop" && echo yes)"
assert_contains "the other subordinates saw it depart" "departing=$s0" "$(events "$((n1 + 1))" | grep "^$s1 subpeers-relation-departed")"
assert_eq "two machines left" "2" "$(state | jq '.machines | length')"

# remove-relation: every subordinate unit goes, the application stays with none
js remove-relation sub:juju-info p >/dev/null || fail "remove-relation"
js wait >/dev/null || fail "wait after remove-relation"
assert_eq "no subordinate units after remove-relation" "0" "$(status | jq '.applications.sub.scale')"
assert_eq "the principals stay" '["p/1","p/2"]' "$(status | jq -c '.applications.p.units | keys')"
assert_eq "and list no subordinates" "[]" "$(status | jq -c '[.applications.p.units[].subordinates // empty]')"
assert_eq "the relation is gone (its implicit side left without hooks)" "0" \
        "$(state | jq '[.relations[] | select(.interface == "juju-info")] | length')"

# integrate again: new names from the subordinate's own sequence
js integrate sub:juju-info p >/dev/null || fail "integrate again"
js wait >/dev/null || fail "wait after integrate again"
assert_eq "names from the subordinate's sequence" '["sub/3","sub/4"]' \
        "$(status | jq -c '[.applications.p.units[].subordinates | keys[]] | sort')"

# removed and integrated again at once: a principal gets its new subordinate only once the old
# one is gone (ErrCannotEnterScopeYet), one each
js remove-relation sub:juju-info p >/dev/null || fail "remove-relation again"
js integrate sub:juju-info p >/dev/null || fail "integrate at once"
js wait >/dev/null || fail "wait after remove and integrate"
assert_eq "one new subordinate per principal" '["sub/5","sub/6"]' \
        "$(status | jq -c '[.applications.p.units[].subordinates | keys[]] | sort')"
assert_eq "both alive, the old ones gone" '["sub/5","sub/6"]' \
        "$(state | jq -c '[.units | to_entries[] | select(.value.principal) | .key] | sort')"

# remove-unit --force of a principal: its subordinate goes with it at once, no hook runs
sf=$(status | jq -r '.applications.p.units["p/1"].subordinates | keys[0]')
n2=$(nevents)
js remove-unit --force p/1 >/dev/null || fail "remove-unit --force p/1"
assert_eq "the forced principal and its subordinate are gone at once" "null null" \
        "$(state | jq -r --arg s "$sf" '[.units["p/1"], .units[$s]] | map(tostring) | join(" ")')"
js wait >/dev/null || fail "wait after the forced removal"
assert_eq "… with no hook of theirs" "" "$(events "$((n2 + 1))" | awk -v s="$sf" '$1 == "p/1" || $1 == s')"
assert_contains "remove-unit --force of a subordinate is refused too" "is a subordinate" \
        "$(js remove-unit --force "$(status | jq -r '.applications.p.units["p/2"].subordinates | keys[0]')" 2>&1)"

# remove-application of the principal takes everything
js remove-application p >/dev/null || fail "remove-application p"
js wait >/dev/null || fail "wait after remove-application"
assert_eq "no units left" "0" "$(state | jq '.units | length')"
assert_eq "no machines left" "0" "$(state | jq '.machines | length')"

# an application's bag in a container relation is the relation's: every counterpart unit in
# scope is told of a change, whatever its principal (review S3)
printf '%s\n' 'name: csub' 'summary: s' 'description: d' 'subordinate: true' 'requires:' '  host:' \
        '    interface: testdb' '    scope: container' >"$TMP/csub.yaml"
rm -rf "$TMP/csub" && cp -r "$CHARMS/recorder" "$TMP/csub" && cp "$TMP/csub.yaml" "$TMP/csub/metadata.yaml"
js deploy "$CHARMS/recorder" r -n 2 >/dev/null || fail "deploy r"
js deploy "$TMP/csub" csub >/dev/null || fail "deploy csub"
js integrate csub:host r:db >/dev/null || fail "integrate csub r"
js wait >/dev/null || fail "wait csub"
n3=$(nevents)
behave r update-status 'if [ "$(is-leader)" = True ]; then relation-set --app -r "$(relation-ids db)" k=v1; fi'
js trigger r update-status >/dev/null || fail "trigger r"
js wait >/dev/null || fail "wait r app bag"
assert_eq "every subordinate unit is told of the principal application's bag" "2" \
        "$(events "$((n3 + 1))" | grep -c '^csub/[0-9]* host-relation-changed remote=$')"
unbehave r update-status
# a subordinate-subordinate container relation through the implicit juju-info of one of them:
# its units enter scope without hooks and the other's units on the same principal join them
# (review S2)
printf '%s\n' 'name: s2' 'summary: s' 'description: d' 'subordinate: true' 'requires:' '  info:' \
        '    interface: juju-info' '    scope: container' '  host:' '    interface: testdb' '    scope: container' \
        >"$TMP/s2.yaml"
rm -rf "$TMP/s2" && cp -r "$CHARMS/recorder" "$TMP/s2" && cp "$TMP/s2.yaml" "$TMP/s2/metadata.yaml"
js deploy "$TMP/s2" s2 >/dev/null || fail "deploy s2"
js integrate s2:host r:db >/dev/null || fail "integrate s2 r"
js wait >/dev/null || fail "wait s2"
n4=$(nevents)
js integrate s2:info csub >/dev/null || fail "integrate s2:info csub"
js wait >/dev/null || fail "wait s2 csub"
for pr in r/0 r/1; do
        c=$(state | jq -r --arg p "$pr" '.units[$p].subordinates[] | select(startswith("csub/"))')
        x=$(state | jq -r --arg p "$pr" '.units[$p].subordinates[] | select(startswith("s2/"))')
        assert_contains "$x joins $c, the csub unit of its own principal" "$x info-relation-joined remote=$c" \
                "$(events "$((n4 + 1))")"
done
assert_eq "… and no other" "2" "$(events "$((n4 + 1))" | grep -c 'info-relation-joined')"
assert_eq "the implicit side runs no hooks for it" "" "$(events "$((n4 + 1))" | awk '$1 ~ /^csub\// && $2 ~ /^juju-info/')"
js remove-application r >/dev/null || fail "remove-application r"
js wait >/dev/null || fail "wait after removing r"
assert_eq "no units left of r, csub, s2" "0" "$(state | jq '.units | length')"

# metadata rules
mkmeta() { rm -rf "$1" && cp -r "$CHARMS/recorder" "$1" && printf '%s\n' "$2" >"$1/metadata.yaml"; }
mkmeta "$TMP/nocont" 'name: nocont
summary: s
description: d
subordinate: true
requires:
  info:
    interface: juju-info'
assert_contains "a subordinate needs a container requires" 'subordinate charm "nocont" lacks "requires" relation with container scope' \
        "$(js deploy "$TMP/nocont" 2>&1)"
mkmeta "$TMP/reserved" 'name: reserved
summary: s
description: d
provides:
  juju-stats:
    interface: stats'
assert_contains "the juju- prefix is reserved" 'using a reserved relation name: "juju-stats"' "$(js deploy "$TMP/reserved" 2>&1)"
mkmeta "$TMP/badscope" 'name: badscope
summary: s
description: d
provides:
  x:
    interface: x
    scope: machine'
assert_contains "scope is global or container" 'scope: expected "global" or "container", got "machine"' \
        "$(js deploy "$TMP/badscope" 2>&1)"
# two principals over a container endpoint: no relation
mkmeta "$TMP/cprin" 'name: cprin
summary: s
description: d
requires:
  info:
    interface: juju-info
    scope: container'
js deploy "$CHARMS/recorder" q >/dev/null || fail "deploy q"
js deploy "$TMP/cprin" cprin >/dev/null || fail "deploy cprin"
assert_contains "a container relation between two principals" 'no relations found between "cprin" and "q"' \
        "$(js integrate cprin q 2>&1)"

finish
