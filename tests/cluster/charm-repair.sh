#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# default-node-state=down and update-status repairs, with real systemd, munge and Slurm in juju-sim
# machines: a new node ends DOWN (reason "burn-in") and stays out of service across a slurmd restart
# until an admin resumes it, after which no hook puts it down again; a later unit gets the default;
# default-node-state=bogus blocks and changes nothing. update-status repairs a stopped slurmd (with
# and without its watcher), a node record deleted on the controller, a tampered /etc/default/slurmd
# and munge key (atomic rewrite, restart of what reads them), a hand-edited slurm.conf (rewritten,
# one reconfigure); and a slurmctld killed -9 before it saved a node's registration comes back
# without that node, which the slurmd unit's update-status registers again. While a repair runs the
# unit says so (maintenance, seen through a hook tool wrapper); a hook with nothing to repair does not.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
[ -x "$JSM" ] || die "no juju-sim-machine at $JSM"

# the status-set calls show what a unit said while a repair ran
log_tools
# mark: the tool log's length; said_since MARK UNIT: UNIT's status-set calls since MARK, one a line.
mark() { wc -l <"$T/argv.log"; }
# (the leader's status-set --application calls, the application status following its unit, are
# left out)
said_since() { tail -n +"$(($1 + 1))" "$T/argv.log" | sed -n "s|^$2 status-set \([a-z].*\) $|\1|p"; }
# expect_said MARK UNIT REGEX…: UNIT's status-set calls since MARK match the regexes, in order,
# (other calls may come between), and the last one matches the last regex.
expect_said() {
        local m=$1 u=$2 said
        shift 2
        said=$(said_since "$m" "$u")
        python3 - "$said" "$@" <<'PY' || die "$u said: $(echo "$said" | tr '\n' '|'), want in order: $*"
import re, sys
said, want = sys.argv[1].splitlines(), sys.argv[2:]
i = 0
for line in said:
    if i < len(want) and re.search(want[i], line):
        i += 1
sys.exit(0 if i == len(want) and said and re.search(want[-1], said[-1]) else 1)
PY
}

# mx UNIT CMD…: CMD on the unit's machine, outside any hook (no model lock), 30 s cap.
mx() {
        local m
        m=$(machine_of "$1")
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 30 -- "$@"
}
# node_field NODE KEY: one field of `scontrol -o show node` ("" when the node is unknown).
node_field() { ctl scontrol -o show node "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# main_pid UNIT SERVICE
main_pid() { mx "$1" systemctl show -p MainPID --value "$2"; }
# dump: what the model and slurmctld say (on a failure).
dump() {
        js status >&2 || true
        ctl scontrol -o show node >&2 || true
}
active_on() { [ "$(mx "$1" systemctl is-active "$2" || true)" = active ]; }
ctl_up() { ctl scontrol ping 2>/dev/null | grep -q 'is UP'; }
# burnt_in NODE: out of service with reason "burn-in": DOWN+DRAIN as set, IDLE+DRAIN once its
# slurmd registered again (a restart, or the reconfigure that follows any slurm.conf change).
burnt_in() {
        [[ $(node_field "$1" State) =~ ^(DOWN|IDLE)\+DRAIN\+DYNAMIC_NORM$ ]] && [ "$(node_field "$1" Reason)" = burn-in ]
}
state_is() { [ "$(node_field "$1" State)" = "$2" ]; }
update_status() {
        js trigger "$1" update-status >/dev/null
        settle
}
ctl_log=
reconf() { grep -c 'Processing Reconfiguration Request' "$ctl_log" || true; }
# starts: slurmctld's starts, not 24.11's re-executions at a reconfigure ("Attempting to
# reconfigure", then the new process logs "started" too: under Juju's concurrency the push's
# reconfigure that follows a restart can come before the count). The program is in $T, which the
# machines see, for the count made inside the controller's machine below.
cat >"$T/starts.awk" <<'AWK'
/Attempting to reconfigure/ { re = 1; next }
/Terminate signal/ { re = 0; next }
/slurmctld version .* started/ { if (!re) n++; re = 0 }
END { print n + 0 }
AWK
starts() { awk -f "$T/starts.awk" "$ctl_log"; }

log "deploy slurmctld, slurmd with default-node-state=down, integrate"
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" --config default-node-state=down --config default-node-reason=burn-in >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
expect_status slurmd/0 '^active down \(burn-in\)$'
[ "$(node_field slurmd-0 State)" = DOWN+DRAIN+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"
[ "$(node_field slurmd-0 Reason)" = burn-in ] || die "slurmd-0: Reason=$(node_field slurmd-0 Reason)"

log "a slurmd restart does not put the node in service (ReturnToService=2 would for a plain DOWN)"
pid=$(main_pid slurmd/0 slurmd)
mx slurmd/0 systemctl restart slurmd
until_true 15 "slurmd-0 not IDLE+DRAIN after a restart" state_is slurmd-0 IDLE+DRAIN+DYNAMIC_NORM
[ "$(main_pid slurmd/0 slurmd)" != "$pid" ] || die "slurmd not restarted"
[ "$(node_field slurmd-0 Reason)" = burn-in ] || die "slurmd-0: Reason=$(node_field slurmd-0 Reason)"
# the watcher runs the reconcile once slurmd is active again: the status follows
until_true 10 "slurmd/0: status not drained" status_is slurmd/0 '^active drained \(burn-in\)$'

log "the admin resumes it: config-changed, update-status, upgrade-charm leave it in service"
ctl scontrol update nodename=slurmd-0 state=resume
until_true 10 "slurmd-0 not IDLE after resume" state_is slurmd-0 IDLE+DYNAMIC_NORM
m=$(mark)
for hook in config-changed update-status upgrade-charm; do
        js trigger slurmd "$hook" >/dev/null
        settle
        [ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "$hook: slurmd-0 State=$(node_field slurmd-0 State)"
        expect_status slurmd/0 '^active idle$'
done
# nothing to repair: one status, no maintenance on the way
[ "$(said_since "$m" slurmd/0 | sort -u)" = "active idle" ] || die "slurmd/0 said: $(said_since "$m" slurmd/0)"

log "a unit added later gets the default"
js add-unit slurmd >/dev/null
settle
expect_status slurmd/1 '^active down \(burn-in\)$'
[ "$(node_field slurmd-1 State)" = DOWN+DRAIN+DYNAMIC_NORM ] || die "slurmd-1: State=$(node_field slurmd-1 State)"
[ "$(node_field slurmd-1 Reason)" = burn-in ] || die "slurmd-1: Reason=$(node_field slurmd-1 Reason)"
[ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"

log "default-node-state=bogus: blocked, nothing changed"
bags() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["relations"], sort_keys=True))' "$MODEL/state.json"; }
files=$(fingerprint_all) rel=$(bags)
js config slurmd default-node-state=bogus >/dev/null
settle
for u in slurmd/0 slurmd/1; do
        expect_status "$u" '^blocked default-node-state: "bogus" is not idle or down$'
done
[ "$(fingerprint_all)" = "$files" ] || die "files changed: $(diff <(echo "$files") <(fingerprint_all))"
[ "$(bags)" = "$rel" ] || die "relation data changed"
[ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"
[ "$(node_field slurmd-1 State)" = DOWN+DRAIN+DYNAMIC_NORM ] || die "slurmd-1: State=$(node_field slurmd-1 State)"
js config slurmd --reset default-node-state >/dev/null
settle
expect_status slurmd/0 '^active idle$'
expect_status slurmd/1 '^active down \(burn-in\)$'
[ "$(fingerprint_all)" = "$files" ] || die "files changed after the reset"

log "repair: slurmd stopped by hand; its watcher starts it again at once"
pid=$(main_pid slurmd/0 slurmd) m=$(mark)
mx slurmd/0 systemctl stop slurmd
# slurmd may die of a signal in its own exit after "Slurmd shutdown completing" (24.11.5, once in
# CI: Result=core-dump): the unit is then failed, not stopped, and the watcher leaves a failed
# unit to systemd and the admin (no crash loop): its status says so and update-status repairs it
crashed_at_stop() {
        [ "$(mx slurmd/0 systemctl show -p Result --value slurmd)" = core-dump ] &&
                [ "$(mx slurmd/0 systemctl is-active slurmd || true)" = failed ]
}
until_true 15 "slurmd not started again by the watcher" eval 'active_on slurmd/0 slurmd || crashed_at_stop'
if crashed_at_stop; then
        log "slurmd dumped core in its own exit at the stop (Slurm's crash): the status says so, update-status starts it"
        until_true 10 "slurmd/0: status does not say it failed" \
                status_is slurmd/0 '^blocked slurmd failed \(Result=core-dump, NRestarts=0\): see /var/log/slurm/slurmd\.log$'
        m=$(mark)
        update_status slurmd
        active_on slurmd/0 slurmd || die "update-status did not start the failed slurmd"
fi
[ "$(main_pid slurmd/0 slurmd)" != "$pid" ] || die "same slurmd MainPID"
until_true 10 "slurmd-0 not IDLE" state_is slurmd-0 IDLE+DYNAMIC_NORM
until_true 10 "slurmd/0: status not idle" status_is slurmd/0 '^active idle$'
expect_said "$m" slurmd/0 '^maintenance starting slurmd$' '^active idle$'

log "repair: slurmd and its watcher stopped by hand; update-status starts both"
mx slurmd/0 systemctl stop juju-service-watcher-slurmd.service slurmd.service
m=$(mark)
state_is slurmd-0 IDLE+NOT_RESPONDING+DYNAMIC_NORM || state_is slurmd-0 IDLE+DYNAMIC_NORM ||
        die "slurmd-0: State=$(node_field slurmd-0 State)"
# nothing runs on the unit to notice: its status is stale until the next hook
update_status slurmd
[ "$(mx slurmd/0 systemctl is-active slurmd)" = active ] || die "update-status did not start slurmd"
[ "$(mx slurmd/0 systemctl is-active juju-service-watcher-slurmd.service)" = active ] ||
        die "update-status did not start the watcher"
[ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"
expect_status slurmd/0 '^active idle$'
expect_said "$m" slurmd/0 '^maintenance starting slurmd$' '^active idle$'

log "repair: /etc/default/slurmd and the auth key ($AUTH_KEY) tampered with"
r0=$(root_of slurmd/0)
defaults=$r0/etc/default/slurmd key=$r0$AUTH_KEY
good_defaults=$(fingerprint "$defaults") good_key=$(sha256sum <"$key")
sed -i 's/ -N slurmd-0 / -N slurmd-9 /' "$defaults"
printf 'tampered' | dd of="$key" bs=1 seek=8 conv=notrunc status=none
chmod 0644 "$key"
bad_inodes="$(stat -c %i "$defaults") $(stat -c %i "$key")"
slurmd_pid=$(main_pid slurmd/0 slurmd) m=$(mark)
# the auth service (munge on 22.05) reads the key; on 24.11 the Slurm daemons do (slurmd's
# restart below covers it)
[ -z "$AUTH_SERVICE" ] || auth_pid=$(main_pid slurmd/0 "$AUTH_SERVICE")
update_status slurmd
[ "$(fingerprint "$defaults" | cut -d' ' -f1)" = "$(echo "$good_defaults" | cut -d' ' -f1)" ] ||
        die "/etc/default/slurmd not restored: $(cat "$defaults")"
[ "$(stat -c '%a %U:%G' "$defaults")" = "644 root:root" ] || die "/etc/default/slurmd: $(stat -c '%a %U:%G' "$defaults")"
[ "$(sha256sum <"$key")" = "$good_key" ] || die "$AUTH_KEY not restored"
cmp -s "$key" "$(root_of slurmctld/0)$AUTH_KEY" || die "$AUTH_KEY differs from the controller's"
[ "$(stat -c '%a %U:%G' "$key")" = "400 $AUTH_OWNER" ] || die "$AUTH_KEY: $(stat -c '%a %U:%G' "$key")"
[ "$(stat -c %i "$defaults") $(stat -c %i "$key")" != "$bad_inodes" ] || die "files rewritten in place, not atomically"
[ "$(main_pid slurmd/0 slurmd)" != "$slurmd_pid" ] || die "slurmd not restarted for its restored options"
[ -z "$AUTH_SERVICE" ] || [ "$(main_pid slurmd/0 "$AUTH_SERVICE")" != "$auth_pid" ] ||
        die "$AUTH_SERVICE not restarted for its restored key"
[ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"
node_exists slurmd-9 && die "a node slurmd-9 registered from the tampered options"
expect_status slurmd/0 '^active idle$'
if [ -n "$AUTH_SERVICE" ]; then
        expect_said "$m" slurmd/0 "^maintenance restarting $AUTH_SERVICE: ${AUTH_KEY##*/} changed\$" \
                '^maintenance restarting slurmd: /etc/default/slurmd changed$' '^active idle$'
else
        expect_said "$m" slurmd/0 '^maintenance restarting slurmd: /etc/default/slurmd changed$' '^active idle$'
fi
# the key on both ends agrees again: a job step runs on the node
[ "$(ctl timeout 30 srun -w slurmd-0 -N1 hostname)" = "$(mx slurmd/0 hostname)" ] || die "srun on slurmd-0 failed"

log "repair: slurm.conf edited by hand on the controller; update-status rewrites it"
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
good_conf=$(sha256sum <"$conf")
sed -i 's/^SlurmdTimeout=.*/SlurmdTimeout=900/' "$conf"
[ "$(sha256sum <"$conf")" != "$good_conf" ] || die "the hand edit changed nothing"
n_reconf=$(reconf) ctl_pid=$(main_pid slurmctld/0 slurmctld)
update_status slurmctld
[ "$(sha256sum <"$conf")" = "$good_conf" ] || die "slurm.conf not restored: $(grep SlurmdTimeout "$conf")"
# slurmctld never read the edit: nothing to apply
[ "$(reconf)" = "$n_reconf" ] || die "$(($(reconf) - n_reconf)) reconfigures for an edit slurmctld never read"
log "repair: edited by hand and reconfigured by hand; update-status rewrites it, restarts slurmctld once"
# The edit, the reconfigure and the counts in one juju-exec, under the unit's machine lock, as an
# admin's `juju exec` runs: a charm run the node event watcher started meanwhile (the slurmd
# restarts above register nodes; bin/node-events-changed is the controller's reconcile) rewrote
# the file between a bare edit and its reconfigure (CI, 24.11). Whichever charm run comes next
# repairs it; the counts below are from before any could.
# (24.11 re-executes slurmctld on a reconfigure: until the new process has taken the socket over,
# the old one answers with the file it read before: a fresh-clone run here failed on it)
hand=$(ctl sh -c 'log=/var/log/slurm/slurmctld.log
	n=$(grep -c "Processing Reconfiguration Request" $log)
	sed -i "s/^SlurmdTimeout=.*/SlurmdTimeout=900/" /etc/slurm/slurm.conf && scontrol reconfigure || exit 1
	i=0
	until [ "$(grep -c "Processing Reconfiguration Request" $log)" -gt "$n" ] &&
		scontrol show config | grep -q "^SlurmdTimeout *= *900 sec"; do
		i=$((i + 1)); [ $i -lt 50 ] || { echo "not taken: $(scontrol show config | grep SlurmdTimeout)"; exit 0; }
		sleep 0.2
	done
	echo "$(grep -c "Processing Reconfiguration Request" $log) $(awk -f '"$T"'/starts.awk $log)"')
case "$hand" in
"not taken"*) die "the hand reconfigure did not take after 10 s: ${hand#not taken: }" ;;
*[!0-9\ ]* | "") die "the hand reconfigure: $hand" ;;
esac
read -r n_reconf n_starts <<<"$hand"
update_status slurmctld
[ "$(sha256sum <"$conf")" = "$good_conf" ] || die "slurm.conf not restored: $(grep SlurmdTimeout "$conf")"
# a new file is applied by a restart (charm/slurmctld/ctlapply.h), then pushed to the slurmd units by one
# reconfigure of that same file, no job running
[ "$(starts)" = $((n_starts + 1)) ] || die "$(($(starts) - n_starts)) slurmctld starts, want 1"
# (the push may come from the watcher's reconcile that follows the restart)
reconf_at_least() { [ "$(reconf)" -ge "$1" ]; }
until_true 15 "no push reconfigure" reconf_at_least $((n_reconf + 1))
js wait >/dev/null
[ "$(reconf)" = $((n_reconf + 1)) ] || die "$(($(reconf) - n_reconf)) reconfigures, want 1 (the push)"
[ "$(ctl scontrol show config | sed -n 's/^SlurmdTimeout *= *//p')" = "300 sec" ] ||
        die "slurmctld: $(ctl scontrol show config | grep SlurmdTimeout)"
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
# the reconfigure made every slurmd register again: the burn-in node stays out of service
burnt_in slurmd-1 || die "slurmd-1 after a reconfigure: $(ctl scontrol -o show node slurmd-1)"
conf_fp=$(fingerprint "$conf")
update_status slurmctld
[ "$(reconf)" = $((n_reconf + 1)) ] || die "a second update-status reconfigured again"
[ "$(fingerprint "$conf")" = "$conf_fp" ] || die "a second update-status rewrote slurm.conf"

# slurmctld 22.05 saves node_state when a node is updated or deleted, not when a dynamic node
# registers: after the deletion below, slurmd-0's new registration stays unsaved (checked 10 s on;
# slurmd-1, drained by an update, is saved). A kill -9 then loses slurmd-0.
state_file=$(root_of slurmctld/0)/var/lib/slurm/slurmctld/node_state
saved() { grep -qa "$1" "$state_file"; }
log "repair: the node record deleted on the controller; update-status registers it again"
# (the pushes above gave slurmd new bytes: its watcher's run, the unit's reconcile, would register
# the node again as update-status does, before the deletion is saved; that run first)
follow_settled slurmd/0
pid=$(main_pid slurmd/0 slurmd)
ctl scontrol delete nodename=slurmd-0
until_true 15 "the deletion of slurmd-0 not saved" eval '! saved slurmd-0'
sleep 1
node_exists slurmd-0 && die "slurmd-0 came back by itself (the test's premise is gone)"
m=$(mark)
update_status slurmd
expect_said "$m" slurmd/0 '^maintenance node slurmd-0 unknown to slurmctld: restarting slurmd to register it$' '^active idle$'
[ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"
[ "$(main_pid slurmd/0 slurmd)" != "$pid" ] || die "slurmd not restarted to register again"
expect_status slurmd/0 '^active idle$'
# the default is applied once: the new record is not put down again
burnt_in slurmd-1 || die "slurmd-1: $(ctl scontrol -o show node slurmd-1)"

log "slurmctld killed -9 10 s after slurmd-0 registered: it comes back without it; update-status repairs"
sleep 10
saved slurmd-1 || die "slurmd-1 not in node_state"
saved slurmd-0 && die "slurmctld saved the registration of slurmd-0 (HACKING.md, \"Slurm 22.05 facts\", is wrong now)"
ctl_pid=$(main_pid slurmctld/0 slurmctld)
m=$(mark)
t0=$(date +%s%N)
mx slurmctld/0 systemctl kill -s KILL --kill-who=main slurmctld
until_true 30 "slurmctld not back after kill -9" ctl_up
t1=$(date +%s%N)
[ "$(main_pid slurmctld/0 slurmctld)" != "$ctl_pid" ] || die "slurmctld not restarted"
log "figure: kill -9 -> slurmctld answering again: $(((t1 - t0) / 1000000)) ms"
burnt_in slurmd-1 || die "slurmd-1 (saved) after the restart: $(ctl scontrol -o show node slurmd-1)"
node_exists slurmd-0 && die "slurmd-0 was not saved yet slurmctld knows it"
# the controller's watcher ran its reconcile: its status counts what slurmctld knows
until_true 10 "slurmctld/0: status does not count 1 node" status_is slurmctld/0 '^active 1 node in 1 partition$'
# slurmd/0 learns it at its next hook (update-status) or at its watcher's run before it, when
# the controller's reconcile pushed a file with new content (charm/slurmd/nodefollow.h; under
# Juju's concurrency that may come first): either way it says so and registers again
update_status slurmd
expect_said "$m" slurmd/0 '^maintenance node slurmd-0 unknown to slurmctld: restarting slurmd to register it$' '^active idle$'
[ "$(node_field slurmd-0 State)" = IDLE+DYNAMIC_NORM ] || die "slurmd-0: State=$(node_field slurmd-0 State)"
expect_status slurmd/0 '^active idle$'
expect_status slurmd/1 '^active (down|drained) \(burn-in\)$'
update_status slurmctld
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'

log "no hook and no watcher run failed"
# exec records are the watchers' handler runs (they call hook tools) and this test's own commands
# (ctl: none, and some fail on purpose)
python3 - "$MODEL/debug-log.jsonl" <<'PY' || die "a hook failed"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
bad = [h for h in runs if h["status"] != "ok" and (h["hook"] != "exec" or h["tool-calls"] > 0)]
for h in bad:
    print("  failed: %s %s rc=%s" % (h["unit"], h["hook"], h["rc"]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
log "ok"
