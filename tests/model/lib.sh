# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the model suite: a fresh host-mode model in a temp dir, always destroyed,
# and small assertions. Source it first; $JUJU_SIM must name build/juju-sim.
set -u
: "${JUJU_SIM:?JUJU_SIM must point at build/juju-sim}"
CHARMS="${TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/charms"
TMP="$(mktemp -d /tmp/jsim-test.XXXXXX)"
export JUJU_SIM_MODEL="$TMP/m" JUJU_SIM_MACHINES=host
unset JUJU_CONTEXT_ID JUJU_AGENT_SOCKET_ADDRESS
FAILS=0
# cleanup: on a failure no check named (an unbound variable, a command that ended the shell, a
# bare exit), says how the test ended, so the report has a first failed check
cleanup() {
        local rc=$? last=$BASH_COMMAND
        [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || [ "$FAILS" -gt 0 ] ||
                echo "FAIL: the test ended with exit status $rc without naming a check; its last command: $last" >&2
        "$JUJU_SIM" destroy >/dev/null 2>&1
        rm -rf "$TMP"
}
trap cleanup EXIT
js() { timeout 120 "$JUJU_SIM" "$@"; }
# A failed hook stays failed until the test resolves it, as charm test suites set Juju
# (test-commit.sh checks the automatic retry itself). JUJU_SIM_TEST_HOOK_CONCURRENCY (serial,
# machines, N): the model's hook-concurrency (the suite runs once serial, once concurrent).
HOOK_CONCURRENCY="${JUJU_SIM_TEST_HOOK_CONCURRENCY:-serial}"
js model-config automatically-retry-hooks=false hook-concurrency="$HOOK_CONCURRENCY" ||
        { echo "FAIL: model-config" >&2; FAILS=1; exit 1; }
concurrent() { [ "$HOOK_CONCURRENCY" != serial ]; }
# by_unit: lines "UNIT …" in the order of a serial model's log; in a concurrent one, where hooks of
# different units interleave, grouped by unit (sorted stably: each unit's own order kept)
by_unit() { if concurrent; then sort -s -k1,1; else cat; fi; }
# by_remote: one unit's lines "UNIT HOOK remote=R" as a serial model gives them; in a concurrent
# one grouped by remote unit (sorted stably: joined before changed kept). Juju joins the remote
# units it knows in sorted order, but one that enters scope later, while the unit already runs
# the join of another, comes after it, as in Juju, where the order is the watchers' race.
by_remote() { if concurrent; then sort -s -k3,3; else cat; fi; }
fail() {
        echo "FAIL: $*" >&2
        FAILS=$((FAILS + 1))
}
pass() { echo "ok: $*"; }
# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
        if [ "$2" == "$3" ]; then pass "$1"; else
                fail "$1"
                diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/    /' >&2
        fi
}
assert_contains() { if grep -qF -- "$2" <<<"$3"; then pass "$1"; else fail "$1: no \"$2\" in: $3"; fi; }
assert_not_contains() { if grep -qF -- "$2" <<<"$3"; then fail "$1: \"$2\" in: $3"; else pass "$1"; fi; }
# assert_rc WHAT EXPECTED_RC CMD…
assert_rc() {
        local what="$1" want="$2" got=0
        shift 2
        "$@" >/dev/null 2>&1 || got=$?
        if [ "$got" == "$want" ]; then pass "$what"; else fail "$what: exit $got, want $want"; fi
}
charm_dir() { echo "$JUJU_SIM_MODEL/charms/$1"; }
# The model-wide event log the test charms write, from line $1 on (default 1).
events() { tail -n "+${1:-1}" "$JUJU_SIM_MODEL/charms/events.log" 2>/dev/null; }
nevents() { events | wc -l; }
# events of one unit only
uevents() { events "${2:-1}" | awk -v u="$1" '$1 == u'; }
# behave APP EVENT SCRIPT: the recorder charm of APP runs SCRIPT (bash) in hook EVENT.
behave() {
        mkdir -p "$(charm_dir "$1")/behave"
        printf '%s\n' "$3" > "$(charm_dir "$1")/behave/$2"
}
unbehave() { rm -f "$(charm_dir "$1")/behave/$2"; }
# out APP NAME: what the recorder charm saved with `out NAME …` in behave scripts
got() { cat "$(charm_dir "$1")/out/$2" 2>/dev/null; }
finish() {
        if [ "$FAILS" -gt 0 ]; then
                echo "$FAILS check(s) failed" >&2
                exit 1
        fi
        echo "all checks passed"
        exit 0
}
