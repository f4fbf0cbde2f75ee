# SPDX-License-Identifier: Apache-2.0
# Shared setup for the charm tests: skip unless root, a throwaway juju-sim model with namespaced
# machines under /var/tmp (machines have their own /tmp), and a cleanup that destroys it on exit,
# also when the test fails. Source it. Sets JS (juju-sim), CTL_CHARM, SLURMD_CHARM, MODEL, T.
# A model's machines are reachable as files under $MODEL/machines/N/root (see machine.h).

# Debian's programs first, as `./dev test` runs the tests (a test run by hand too: a user's python3
# shim, pyenv's, cost 12 times Debian's CPU a call, and the tests poll with python3)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}
# each line with the test's seconds so far (where a whole run's time goes: testlog-cluster.json)
log() { printf '%s: [%4ds] %s\n' "${0##*/}" "$SECONDS" "$*" >&2; }
die() {
        log "FAIL: $*"
        exit 1
}
# daemon_logs_tail: the last lines of each machine's Slurm logs (what CI keeps of a failed run;
# charm_cleanup prints them when the test fails, by die or by a command under set -e).
daemon_logs_tail() {
        local f d
        [ -n "${MODEL:-}" ] && [ -d "$MODEL/machines" ] || return 0
        for f in "$MODEL"/machines/*/root/var/log/slurm/*.log; do
                [ -f "$f" ] || continue
                printf '%s: == %s, last 25 lines\n' "${0##*/}" "${f#"$MODEL"/machines/}"
                tail -n 25 "$f" | cut -c1-240
        done
        # the charm's own services (watchers, sentinel) report on stdout: juju-sim keeps that
        # per unit, the machine's journal (tools/juju-sim/machine-init.c)
        for f in "$MODEL"/machines/*/root/var/log/juju-sim/juju-*.log; do
                [ -s "$f" ] || continue
                printf '%s: == %s, last 15 lines\n' "${0##*/}" "${f#"$MODEL"/machines/}"
                tail -n 15 "$f" | cut -c1-240
        done
        # what each machine's systemd and Slurm processes were doing at the failure: a hung
        # hook shows here as a queued job or a daemon that never signalled READY
        for d in "$MODEL"/machines/*/; do
                d=${d%/}
                d=${d##*/}
                printf '%s: == machine %s: systemd jobs, services, processes\n' "${0##*/}" "$d"
                "${TOP_BUILDDIR:?}/tools/juju-sim/juju-sim-machine" exec "$MODEL" "$d" --timeout 10 -- sh -c '
                        systemctl list-jobs --no-legend --no-pager 2>&1 | head -n 5
                        for s in slurmctld slurmd slurmdbd; do
                                systemctl show -p Id,ActiveState,SubState,MainPID,NRestarts "$s" 2>/dev/null | tr "\n" " "
                                echo
                        done | grep "ActiveState" | grep -v "MainPID=0 NRestarts=0 .*ActiveState=inactive SubState=dead"
                        ps -eo pid,ppid,stat,etimes,wchan:18,args 2>/dev/null | grep -E "slurm|hooks/|actions/|juju-exec" | grep -v grep | cut -c1-200 | head -n 12' 2>&1 | head -n 20
        done
}
skip() {
        log "SKIP: $*"
        exit 77
}
[ "$(id -u)" = 0 ] || skip "not root"
# CHARM_BASE: the base of the charms and machines under test: this host's (default, build/) or
# debian@13 (build-debian13/, built in and deployed on tools/rootfs's Debian 13 tree: Slurm
# 24.11, auth/slurm, no munged). AUTH_KEY, its AUTH_OWNER and AUTH_SERVICE are that base's (lib/slurm/caps.h).
CHARM_BASE=${CHARM_BASE:-}
BASE_ROOT=
AUTH_KEY=/etc/munge/munge.key AUTH_SERVICE=munge AUTH_OWNER=munge:munge
if [ -n "$CHARM_BASE" ]; then
        "${TOP_SRCDIR:?}/tools/rootfs/build.sh" --check "$CHARM_BASE" || skip "no root file system for $CHARM_BASE (./dev rootfs $CHARM_BASE)"
        BASE_ROOT=$("$TOP_SRCDIR/tools/rootfs/build.sh" --path "$CHARM_BASE")
        BASE_BUILDDIR=$TOP_SRCDIR/build-${CHARM_BASE/@/}
        [ -f "$BASE_BUILDDIR/slurmctld.charm" ] || skip "charms not built on $CHARM_BASE (./dev build)"
        CTL_CHARM=${CTL_CHARM:-$BASE_BUILDDIR/slurmctld.charm}
        SLURMD_CHARM=${SLURMD_CHARM:-$BASE_BUILDDIR/slurmd.charm}
        DBD_CHARM=${DBD_CHARM:-$BASE_BUILDDIR/slurmdbd.charm}
        AUTH_KEY=/etc/slurm/slurm.key AUTH_SERVICE= AUTH_OWNER=slurm:slurm
fi
for prog in ip /usr/lib/systemd/systemd /usr/sbin/slurmctld /usr/sbin/slurmd ${AUTH_SERVICE:+/usr/sbin/munged} python3; do
        case $prog in
        /usr/lib/* | /usr/sbin/*) [ -x "$BASE_ROOT$prog" ] || skip "$BASE_ROOT$prog missing" ;;
        *) command -v "$prog" >/dev/null 2>&1 || skip "$prog missing" ;;
        esac
done
# SLURM_VERSION: the base's Slurm ("22.05.8", "24.11.5"), from its dpkg database
SLURM_VERSION=$(dpkg-query --admindir="$BASE_ROOT/var/lib/dpkg" -W -f '${Version}' slurmd)
SLURM_VERSION=${SLURM_VERSION%%-*}
JS=${JUJU_SIM:-${TOP_BUILDDIR:?}/juju-sim}
CTL_CHARM=${CTL_CHARM:-$TOP_BUILDDIR/slurmctld.charm}
SLURMD_CHARM=${SLURMD_CHARM:-$TOP_BUILDDIR/slurmd.charm}
[ -x "$JS" ] || die "no juju-sim at $JS"
[ -f "$CTL_CHARM" ] && [ -f "$SLURMD_CHARM" ] || die "charms not built"

# (./dev test names its run: what a test killed at its timeout leaves, it destroys afterwards)
T=$(mktemp -d "/var/tmp/charm-test${CHARM_BASE:+-${CHARM_BASE/@/}}.${SLURM_CHARMS_TEST_RUN:+$SLURM_CHARMS_TEST_RUN.}XXXXXX")
MODEL=$T/${0##*/}
MODEL=${MODEL%.sh}
export JUJU_SIM_MODEL=$MODEL JUJU_SIM_MACHINES=namespace

charm_cleanup() {
        local rc=$?
        trap - ERR
        set +e # errexit holds in traps too: a failing step must not end the cleanup
        [ "$rc" = 0 ] || [ "$rc" = 77 ] || daemon_logs_tail >&2
        if [ -n "${KEEP:-}" ]; then
                log "KEEP set: model left at $MODEL (destroy: JUJU_SIM_MODEL=$MODEL $JS destroy)"
                return
        fi
        if ! "$JS" destroy >"$T/destroy.out" 2>&1; then
                log "FAIL: juju-sim destroy failed: $(tail -n 3 "$T/destroy.out" | tr '\n' ' ')"
                rc=1
        fi
        rm -rf "$T"
        # safety net: what a failed destroy left is an orphan now (gc spares existing models)
        "$JS" gc >/dev/null 2>&1
        exit $rc
}
trap charm_cleanup EXIT
trap 'exit 130' INT TERM
# a command that fails under set -e names itself: the suite's report shows it as the failed check.
# errtrace (-E): also inside the helpers (js, ctl, submit, …), where most commands run: the
# innermost failing command is named, with the test's own line that led there; once, and not
# from a command substitution's subshell (its caller's line fails next and is named).
charm_err() {
        local rc=$1 cmd=$2 n=${#FUNCNAME[@]} from=""
        # (not under set +e: a cleanup's failures are tolerated there)
        [[ $- == *e* ]] && [ "$BASHPID" = "$$" ] && [ -z "${CHARM_ERR_NAMED:-}" ] || return 0
        CHARM_ERR_NAMED=1
        # FUNCNAME[n-1] is main: BASH_LINENO[n-2] the test's line that called into the helpers
        [ "$n" -le 2 ] || from=" (from ${0##*/}:${BASH_LINENO[n - 2]})"
        log "FAIL: exit $rc at ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: $cmd$from"
}
set -E
trap 'charm_err $? "$BASH_COMMAND"' ERR

# js: juju-sim. The tests hand files between the host and jobs or hooks through $T, which a
# machine of the host's base sees as the host's; a machine of another base sees only what is
# bound, so its deploy and add-unit share $T at its path.
# The model is made by the first deploy (after log_tools, which the model records): a failed
# hook fails the test at once (settle), as charm test suites set Juju; with Juju's default a
# hook that fails now and then would pass here after its automatic retry.
js() {
        if [ "$1" = deploy ] && [ ! -e "$MODEL/state.json" ]; then
                # JUJU_SIM_HOOK_CONCURRENCY=machines|N|serial: the model's hook-concurrency
                # (tools/juju-sim/README.md, "Hook concurrency"; issue 28); unset: juju-sim's
                # default, machines (Juju's rule)
                "$JS" model-config automatically-retry-hooks=false \
                        ${JUJU_SIM_HOOK_CONCURRENCY:+hook-concurrency=$JUJU_SIM_HOOK_CONCURRENCY} >/dev/null ||
                        die "model-config"
        fi
        if [ "$1" = deploy ] || [ "$1" = add-unit ]; then
                # the test's directory at its path in every machine (job output, programs built
                # there, marks): each machine's "/" is its own, so a write elsewhere stays there
                "$JS" "$@" --share "$T:$T"
        elif [ "$1" = run ]; then
                # `juju run` exits 0 for an action that called action-fail (Juju's rule, which
                # juju-sim keeps); the tests read the task's status, as jubilant's TaskError does:
                # exit 1 when it failed, the output passed on either way
                local out rc=0
                out=$("$JS" "$@") || rc=$?
                [ -z "$out" ] || printf '%s\n' "$out"
                [ "$rc" = 0 ] || return "$rc"
                if [[ $out == "Action id "*" failed: "* ]] || [[ $out =~ \"status\":\ ?\"failed\" ]]; then
                        return 1
                fi
                return 0
        else
                "$JS" "$@"
        fi
}

# settle [SECONDS]: runs queued hooks until the model is idle; fails on a hook error.
settle() {
        local from=0
        [ ! -f "$MODEL/debug-log.jsonl" ] || from=$(stat -c %s "$MODEL/debug-log.jsonl")
        js wait --timeout "${1:-120}" >"$T/wait.out" 2>&1 || {
                cat "$T/wait.out" >&2
                js debug-log --replay -n 40 >&2 || true
                die "model did not settle: $(grep -m1 -i -e fail -e error "$T/wait.out" || head -n1 "$T/wait.out")$(failed_hooks "$from")"
        }
}

# failed_hooks FROM: "; UNIT HOOK rc N: its last words" for the last 3 hooks that failed since
# byte FROM of the debug log (this settle's, not the failures a test caused on purpose before),
# on the FAIL line, the one CI's summary keeps: a failed hook's stderr and ERROR log otherwise
# scroll out of its tail. Its ERROR lines first, then the end of its output, 400 characters.
failed_hooks() {
        [ -n "${MODEL:-}" ] && [ -f "$MODEL/debug-log.jsonl" ] || return 0
        tail -c +"$((${1:-0} + 1))" "$MODEL/debug-log.jsonl" |
                jq -c 'select(.rc != null and .rc != 0 and .hook != "exec")' 2>/dev/null | tail -n 3 |
                jq -r '"; \(.unit) \(.hook) rc \(.rc): " +
                        (((.log // []) | map(strings | select(startswith("ERROR"))) | join(" ")) + " " +
                         ((.output // "") | tostring | .[-1000:]) | gsub("\\s+"; " ") | .[-400:])' 2>/dev/null |
                tr -d '\n'
}

# log_tools: every hook tool call (hooks and the watchers' runs) is logged to $T/argv.log as
# "UNIT TOOL ARG… " lines, through a wrapper that juju-sim links the tools to (call it before the
# first deploy). Each line is one write to the O_APPEND file: hooks and watchers' runs of other
# machines log at once under Juju's concurrency, and the line's two writes of before let another
# line in between (charm-repair, stop 49: an exec's line joined to a status-set).
log_tools() {
        cat >"$T/tool-wrap" <<WRAP
#!/bin/bash
line=\$(printf '%s ' "\$JUJU_UNIT_NAME" "\${0##*/}" "\$@")
printf '%s\n' "\$line" >>"$T/argv.log"
exec -a "\${0##*/}" "$TOP_BUILDDIR/juju-sim-tool" "\$@"
WRAP
        chmod +x "$T/tool-wrap"
        export JUJU_SIM_TOOL=$T/tool-wrap
        : >"$T/argv.log"
}

# unit_status UNIT: "STATUS MESSAGE" of the unit's workload.
unit_status() {
        js status --format=json | python3 -c '
import json, sys
s = json.load(sys.stdin); u = sys.argv[1]
ws = s["applications"][u.split("/")[0]]["units"][u]["workload-status"]
print(ws["current"], ws.get("message", ""))' "$1"
}

# expect_status UNIT PATTERN: the unit's "STATUS MESSAGE" matches the extended regex.
# hooks_of UNIT: how many hooks and actions the unit ran (not juju-exec runs: the watchers' and
# this test's exec).
hooks_of() {
        python3 -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) if (lambda h: h["unit"] == sys.argv[2] and h["hook"] != "exec")(json.loads(l))))' \
                "$MODEL/debug-log.jsonl" "$1"
}

# follow_settled UNIT: slurmd's service watcher on UNIT has run for every change it follows
# (charm/slurmd/nodefollow.h: a job's start or end, new bytes in the fetched slurm.conf; a run comes
# 3 s after the 2 s look that saw the change; the run owed once slurmctld answers after a hook found
# none, e.g. across a slurmctld restart), then the model settles. A test that changes
# things by hand on purpose must not race that run (it is the unit's reconcile).
follow_settled() {
        local m wlog end=$((SECONDS + 40))
        m=$(machine_of "$1")
        wlog=$MODEL/machines/$m/root/var/log/juju-sim/juju-service-watcher-slurmd.service.log
        until "${TOP_BUILDDIR:?}/tools/juju-sim/juju-sim-machine" exec "$MODEL" "$m" --timeout 10 -- sh -c '
                now=$(date +%s)
                for f in /run/slurm/conf/slurm.conf /var/lib/slurm/slurmd; do
                        t=$(stat -L -c %Y "$f" 2>/dev/null) || continue
                        [ $((now - t)) -ge 3 ] || exit 1
                done' && ! tail -n 1 "$wlog" 2>/dev/null | grep -qE 'jobs of|new content|new verdict|at slurmctld, was|first look|answers again' &&
                ! run_owed "$MODEL/machines/$m/root/var/lib/slurm/charm/slurmctld-unanswered" "$wlog"; do
                [ $SECONDS -lt $end ] || die "slurmd's watcher on $1 did not settle"
                sleep 0.5
        done
        settle
}

# run_owed MARK WATCHER_LOG: the run a slurmd watcher owes once slurmctld answers after a hook
# found none is still to come: the hook's mark is there (charm/slurmd/nodefollow.h; the run that
# finds a controller removes it) and the watcher has not yet both announced that run after the
# mark was written and finished a handler run after that (a run that returns early, a paused
# unit, leaves the mark: it is owed nothing more). While no controller answers it stays owed.
run_owed() {
        python3 - "$1" "$2" <<'PY'
import datetime, os, sys
mark, wlog = sys.argv[1:3]
try:
    written = os.stat(mark).st_mtime
except FileNotFoundError:
    sys.exit(1)
def when(line):  # the watcher's "2026-12-01T07:24:50.463Z …"
    try:
        return datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except ValueError:
        return None
answered = ran = None
try:
    for line in open(wlog, errors="replace"):
        t = when(line)
        if t is None:
            continue
        if "answers again after the last hook found none" in line:
            answered, ran = t, None
        elif answered is not None and line[25:].startswith("handler for"):
            ran = t
except OSError:
    pass
# the watcher's times are in ms: a mark written in the same ms as the announcement counts
sys.exit(0 if answered is None or answered + 0.001 < written or ran is None else 1)
PY
}

# status_is UNIT REGEX: the unit's status line matches.
status_is() { [[ $(unit_status "$1") =~ $2 ]]; }

# until_true SECONDS WHAT CMD…: polls CMD (0.2 s) until it succeeds; after SECONDS runs the test's
# dump function when it has one, and dies with WHAT.
until_true() {
        local end=$((SECONDS + $1)) what="$2 after $1 s"
        shift 2
        until "$@"; do
                if [ $SECONDS -ge $end ]; then
                        ! declare -F dump >/dev/null || dump
                        die "$what"
                fi
                sleep 0.2
        done
}

# expect_status UNIT REGEX: the unit's status matches, within EXPECT_STATUS_WAIT seconds (20). As
# Juju's own charm tests wait for a status (jubilant's wait): under Juju's concurrency an idle
# model is not yet a settled status where a watcher's run follows (a compute unit whose hook met
# its controller's restart tells the truth a few seconds later, charm/slurmd/nodefollow.h).
expect_status() {
        local got end=$((SECONDS + ${EXPECT_STATUS_WAIT:-20}))
        got=$(unit_status "$1")
        until [[ $got =~ $2 ]]; do
                [ $SECONDS -lt $end ] || die "$1: status \"$got\", want /$2/ (waited ${EXPECT_STATUS_WAIT:-20} s)"
                sleep 0.2
                got=$(unit_status "$1")
        done
}

# deploy_cpu N: one slurmctld unit and N units of the compute application "cpu", integrated and
# settled, the controller counting N nodes (the usual start of a test).
deploy_cpu() {
        js deploy "$CTL_CHARM" >/dev/null
        js deploy "$SLURMD_CHARM" cpu -n "$1" >/dev/null
        js integrate slurmctld cpu >/dev/null
        settle 180
        expect_status slurmctld/0 "^active $1 nodes? in 1 partition\$"
}

# machine_of UNIT: the unit's machine id.
machine_of() {
        js status --format=json | python3 -c '
import json, sys
s = json.load(sys.stdin); u = sys.argv[1]
print(s["applications"][u.split("/")[0]]["units"][u]["machine"])' "$1"
}

# root_of UNIT: the host path of the unit's machine's private files.
root_of() { echo "$MODEL/machines/$(machine_of "$1")/root"; }

# fingerprint FILE…: "sha256 mtime(ns) inode mode owner path" per file (missing: "missing path").
# nomemdef: slurm.conf on stdin without the partitions' DefMemPerCPU=N that
# default-mem-per-cpu=auto puts there (charm/slurmctld/memdef.h), for tests of other keys
nomemdef() { sed -E 's/ DefMemPerCPU=[0-9]+//'; }

fingerprint() {
        local f
        for f in "$@"; do
                if [ -e "$f" ]; then
                        printf '%s %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$(stat -c '%Y.%y %i %a %U:%G' "$f") $f"
                else
                        echo "missing $f"
                fi
        done
}

# charm_files UNIT: the files the charms write on that unit's machine.
charm_files() {
        local r
        r=$(root_of "$1")
        echo "$r/etc/slurm/slurm.conf" "$r$AUTH_KEY" "$r/etc/default/slurmd" \
                "$r/etc/systemd/system/slurmd.service.d/10-slurmd-charm.conf" "$r/var/lib/slurm/charm/hardware" \
                "$r/var/lib/slurm/charm/default-state-applied"
}

# all_units: every unit of the model, one per line.
all_units() {
        js status --format=json | python3 -c '
import json, sys
s = json.load(sys.stdin)
for a in s["applications"].values():
    for u in a.get("units", {}): print(u)'
}

# fingerprint_all: fingerprints of every charm-written file of every unit.
fingerprint_all() {
        local u
        for u in $(all_units); do
                # shellcheck disable=SC2046
                fingerprint $(charm_files "$u")
        done
}

# ctl CMD…: runs CMD on the controller's machine (slurm clients talk to slurmctld there).
ctl() { js exec slurmctld/0 -- "$@"; }
# running_value KEY: what the slurmctld in charge runs with (scontrol show config).
running_value() { ctl scontrol show config | sed -n "s/^$1 *= *//p"; }
# as_user UNIT USER CMD…: CMD as a local USER on UNIT's machine, from /tmp (no home of the
# unit's user there)
as_user() {
        local unit=$1 who=$2
        shift 2
        js exec "$unit" -- runuser -u "$who" -- sh -c 'cd /tmp && exec "$@"' sh "$@"
}

# job_field JOB KEY: one field of `scontrol show job` ("" when the job is unknown).
job_field() {
        ctl scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

# wait_job_state JOB STATE SECONDS: polls (0.2 s) until the job is in STATE.
wait_job_state() {
        local i
        for ((i = 0; i < $3 * 5; i++)); do
                [ "$(job_field "$1" JobState)" = "$2" ] && return 0
                sleep 0.2
        done
        die "job $1: state \"$(job_field "$1" JobState)\" after $3 s, want $2"
}

# node_exists NODE: whether slurmctld has a record of NODE.
node_exists() { ctl scontrol -o show node "$1" 2>/dev/null | grep -q "^NodeName=$1 "; }

# submit ARGS…: sbatch --parsable ARGS… on the controller; prints the job id.
submit() { ctl sbatch --parsable "$@" | cut -d';' -f1; }

# hooks_since LINE: debug-log records after line LINE, as "unit hook status duration-ms" lines.
hooks_since() {
        tail -n +"$(($1 + 1))" "$MODEL/debug-log.jsonl" | python3 -c '
import json, sys
for l in sys.stdin:
    try:
        h = json.loads(l)
    except ValueError:
        continue  # a record being written this instant (a watcher run): not a whole line yet
    print(h.get("unit"), h.get("hook"), h.get("status"), h.get("duration-ms", 0))'
}
