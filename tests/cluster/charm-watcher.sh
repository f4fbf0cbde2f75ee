#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The service watcher (charm/common/watcher.h) with real systemd, slurmctld and slurmd in juju-sim machines:
# each unit runs juju-service-watcher-<daemon>.service; kill -9 of slurmd's (then slurmctld's) main
# process changes the unit's status at once (maintenance "… restarting"; the figure is printed,
# typically 0.4-0.9 s here; the check fails only past LATENCY_MAX_MS, 5 s: the watcher's path, not
# update-status's minutes; a 1 s bound failed once, 1.2 s, on a machine running two more models
# beside this lone test), systemd restarts the
# daemon (NRestarts >= 1) and the status is back to the charm's own active message (slurmd: SAMPLES
# times, default 3); slurmctld killed until systemd gives up shows blocked "slurmctld failed (…)",
# and update-status repairs it. Prints the latency (figure: daemon death -> unit status change).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
command -v nsenter >/dev/null || skip "nsenter missing"
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
[ -x "$JSM" ] || die "no juju-sim-machine at $JSM"
LATENCY_MAX_MS=${LATENCY_MAX_MS:-5000}

# mx UNIT CMD…: CMD on the unit's machine, outside any hook (no model lock), 30 s cap.
mx() {
        local m
        m=$(machine_of "$1")
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 30 -- "$@"
}

log "deploy slurmctld, 1 slurmd, integrate"
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
expect_status slurmctld/0 '^active 1 node in 1 partition$'
expect_status slurmd/0 '^active idle$'
# the watcher's own first run (its catch-up, queued behind the deploy's hooks) must not meet the
# first kill: it would find slurmd dead and start it itself ("maintenance starting slurmd", CI)
follow_settled slurmd/0

for pair in slurmd/0=slurmd slurmctld/0=slurmctld; do
        unit=${pair%%=*} daemon=${pair#*=}
        watcher=juju-service-watcher-$daemon.service
        f=$(root_of "$unit")/etc/systemd/system/$watcher
        [ -f "$f" ] || die "$unit: $watcher not installed (is watcher_install() wired into the charm?)"
        grep -q "^ExecStart=.*/bin/service-watcher --unit $unit --service $daemon.service --handler .*/bin/service-changed$" "$f" ||
                die "$unit: $watcher: $(grep ExecStart "$f")"
        [ "$(mx "$unit" systemctl is-active "$watcher")" = active ] || die "$unit: $watcher not active"
        [ "$(mx "$unit" systemctl is-enabled "$watcher")" = enabled ] || die "$unit: $watcher not enabled"
        [ "$(mx "$unit" systemctl show -p Restart --value "$daemon")" = on-failure ] ||
                die "$unit: $daemon has no Restart=on-failure"
        # a hung daemon is killed before a hook's 90 s wait for its stop ends (the drop-ins)
        stop=$(mx "$unit" systemctl show -p TimeoutStopUSec --value "$daemon")
        case $daemon:$stop in slurmctld:30s | slurmd:1min) ;; *) die "$unit: $daemon TimeoutStopUSec=$stop" ;; esac
done

# what the watcher runs: juju-exec inside the unit's machine, outside any hook
out=$(mx slurmd/0 juju-exec slurmd/0 sh -c 'echo "$JUJU_UNIT_NAME"' 2>&1) ||
        die "juju-exec inside the slurmd/0 machine: $out"
[ "$out" = slurmd/0 ] || die "juju-exec inside the slurmd/0 machine printed \"$out\""

# kill_and_follow UNIT DAEMON BACK: kill -9 of the daemon's main process; the status must change
# within LATENCY_MAX_MS and show the restart; once systemd restarted the daemon the status must
# match the extended regex BACK again (30 s cap).
kill_and_follow() {
        local unit=$1 daemon=$2 back=$3 before pid0 n0 t0 out latency changed n=0 pid1=0 st end
        before=$(unit_status "$unit")
        pid0=$(mx "$unit" systemctl show -p MainPID --value "$daemon")
        n0=$(mx "$unit" systemctl show -p NRestarts --value "$daemon")
        [ "$pid0" -gt 0 ] || die "$unit: $daemon not running"
        log "$unit: kill -9 $daemon (MainPID $pid0 in the machine), status \"$before\""
        # the time is taken in the machine right before the signal (one clock: no time namespace)
        t0=$(mx "$unit" sh -c "date +%s%N; systemctl kill -s KILL --kill-who=main $daemon")
        # one poller, 50 ms steps, 10 s cap: prints "LATENCY_MS STATUS MESSAGE"
        out=$(python3 - "$JS" "$unit" "$t0" "$before" <<'PY'
import json, subprocess, sys, time
js, unit, t0, before = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
app = unit.split("/")[0]
end = time.monotonic() + 10
while time.monotonic() < end:
    s = json.loads(subprocess.run([js, "status", "--format=json"], capture_output=True, check=True).stdout)
    ws = s["applications"][app]["units"][unit]["workload-status"]
    now = " ".join([ws["current"], ws.get("message", "")])
    if now != before:
        print((time.time_ns() - t0) // 1000000, now)
        sys.exit(0)
    time.sleep(0.05)
print(-1, "unchanged")
PY
)
        latency=${out%% *} changed=${out#* }
        [ "$latency" -ge 0 ] || die "$unit: status did not change within 10 s of killing $daemon"
        log "figure: $daemon death -> $unit status change: $latency ms (\"$changed\")"
        [[ $changed =~ ^maintenance\ $daemon\ restarting\ \(Result=signal,\ NRestarts=[0-9]+\)$ ]] ||
                die "$unit: status after the kill: \"$changed\""
        [ "$latency" -le "$LATENCY_MAX_MS" ] || die "$unit: status changed after $latency ms (max $LATENCY_MAX_MS)"
        end=$((SECONDS + 30))
        while [ $SECONDS -lt $end ]; do
                n=$(mx "$unit" systemctl show -p NRestarts --value "$daemon")
                pid1=$(mx "$unit" systemctl show -p MainPID --value "$daemon")
                st=$(unit_status "$unit")
                if [ "$n" -gt "$n0" ] && [ "$pid1" -gt 0 ] && [[ $st =~ $back ]]; then
                        log "$unit: $daemon restarted (NRestarts $n0 -> $n, MainPID $pid0 -> $pid1), status \"$st\""
                        [ "$pid1" != "$pid0" ] || die "$unit: same MainPID after the restart"
                        return 0
                fi
                sleep 0.2
        done
        die "$unit: not back after 30 s: NRestarts $n (was $n0), MainPID $pid1, status \"$(unit_status "$unit")\""
}

for ((k = 1; k <= ${SAMPLES:-3}; k++)); do
        kill_and_follow slurmd/0 slurmd '^active idle$'
done
# slurmctld keeps no state of a dynamic node it did not save yet: after a kill -9 it may come back
# with 0 nodes until slurmd registers again. Whatever it says, it is the charm's own status: an
# update-status (the reconcile) sets the same.
kill_and_follow slurmctld/0 slurmctld '^active [0-9]+ nodes? in 1 partition$'
st=$(unit_status slurmctld/0)
js trigger slurmctld update-status >/dev/null
settle
[ "$(unit_status slurmctld/0)" = "$st" ] || die "slurmctld/0: watcher set \"$st\", update-status \"$(unit_status slurmctld/0)\""
expect_status slurmd/0 '^active idle$'

now_ms() { echo $(($(date +%s%N) / 1000000)); }
log "slurmctld dies again and again: systemd gives up (start limit), the status says so (blocked)"
for ((k = 0; k < 8; k++)); do
        [ "$(mx slurmctld/0 systemctl show -p ActiveState --value slurmctld)" = failed ] && break
        mx slurmctld/0 systemctl kill -s KILL --kill-who=main slurmctld >/dev/null 2>&1 || true
        # the next kill once systemd has restarted it (or given up), 10 s cap
        for ((i = 0; i < 50; i++)); do
                [[ $(mx slurmctld/0 systemctl show -p SubState --value slurmctld) =~ ^(running|failed)$ ]] && break
                sleep 0.2
        done
done
[ "$(mx slurmctld/0 systemctl show -p ActiveState --value slurmctld)" = failed ] || die "slurmctld never failed"
# within 0.2 s, unless a kill landed in the middle of a hook's RPC: libslurm retries a refused
# connection for MessageTimeout (10 s) and the status waits behind that hook (HACKING.md,
# "Service watching"; measured 14 s): 30 s cap
t0=$(now_ms)
end=$((SECONDS + 30))
until [[ $(unit_status slurmctld/0) =~ ^blocked\ slurmctld\ failed\ \(Result=[a-z-]+,\ NRestarts=[0-9]+\):\ see\ /var/log/slurm/slurmctld\.log$ ]]; do
        [ $SECONDS -lt $end ] || die "slurmctld/0: status \"$(unit_status slurmctld/0)\" with slurmctld failed"
        sleep 0.1
done
log "slurmctld/0: \"$(unit_status slurmctld/0)\" $(($(now_ms) - t0)) ms after failed"
log "the watchers' own runs leave it to systemd and the admin: no start, the status stays"
ef=$(root_of slurmctld/0)/etc/systemd/system/juju-node-events.service
refresh=$(sed -n 's/^ExecStart=.* --handler \([^ ]*\).*/\1/p' "$ef")
[ -n "$refresh" ] || die "no --handler in $ef: $(grep ExecStart "$ef")"
changed=$(sed -n 's/^ExecStart=.* --handler \([^ ]*\)$/\1/p' "$(root_of slurmctld/0)/etc/systemd/system/juju-service-watcher-slurmctld.service")
for cmd in "$refresh" "$changed slurmctld.service"; do
        # shellcheck disable=SC2086 # the handler and its argument
        mx slurmctld/0 juju-exec slurmctld/0 $cmd >/dev/null 2>&1 || die "juju-exec $cmd failed"
        [ "$(mx slurmctld/0 systemctl show -p ActiveState --value slurmctld)" = failed ] ||
                die "$cmd started the failed slurmctld (a crash loop would never end)"
        [[ $(unit_status slurmctld/0) =~ ^blocked\ slurmctld\ failed ]] ||
                die "after $cmd: status \"$(unit_status slurmctld/0)\""
done
log "update-status repairs it (reset-failed, start) and the status is active again"
js trigger slurmctld update-status >/dev/null
settle
[ "$(mx slurmctld/0 systemctl is-active slurmctld)" = active ] || die "slurmctld not started again"
end=$((SECONDS + 30))
until [[ $(unit_status slurmctld/0) =~ ^active\ [0-9]+\ nodes?\ in\ 1\ partition$ ]]; do
        [ $SECONDS -lt $end ] || die "slurmctld/0: status \"$(unit_status slurmctld/0)\" after update-status"
        sleep 0.2
done

log "watcher_remove(): stopped, disabled, gone; a death is then not seen"
wd=${1:-$TOP_BUILDDIR/tests/cluster/watcher-drive}
if [ -n "$CHARM_BASE" ]; then
        # the helper built on the machines' base (it links their libslurm), where they see it: $T
        cp "$BASE_BUILDDIR/tests/cluster/watcher-drive" "$T/watcher-drive"
        wd=$T/watcher-drive
fi
wf=$(root_of slurmd/0)/etc/systemd/system/juju-service-watcher-slurmd.service
[ "$(mx slurmd/0 "$wd" remove slurmd.service)" = 1 ] || die "watcher_remove: nothing removed"
[ ! -e "$wf" ] || die "watcher_remove: $wf left"
[ "$(mx slurmd/0 systemctl is-active juju-service-watcher-slurmd.service || true)" = inactive ] ||
        die "watcher_remove: the watcher still runs"
[ "$(mx slurmd/0 "$wd" remove slurmd.service)" = 0 ] || die "watcher_remove: a second remove did something"
mx slurmd/0 systemctl kill -s KILL --kill-who=main slurmd >/dev/null
sleep 1.5
expect_status slurmd/0 '^active idle$'
end=$((SECONDS + 30))
until [ "$(mx slurmd/0 systemctl is-active slurmd || true)" = active ]; do
        [ $SECONDS -lt $end ] || die "slurmd not restarted by systemd"
        sleep 0.2
done
log "update-status (the reconcile) installs the watcher again, and it works"
js trigger slurmd update-status >/dev/null
settle
[ -f "$wf" ] || die "the reconcile did not install the watcher again"
[ "$(mx slurmd/0 systemctl is-active juju-service-watcher-slurmd.service)" = active ] || die "watcher not active again"
kill_and_follow slurmd/0 slurmd '^active idle$'

log "a compute unit's hook that finds no controller answering says so; once one answers the watcher runs one (no hook)"
# under Juju a controller's restart in its own hook meets the compute units' hooks of that moment;
# nothing else runs one of theirs before the next update-status (5 minutes)
ctl_pid=$(mx slurmctld/0 systemctl show -p MainPID --value slurmctld)
mx slurmctld/0 kill -STOP "$ctl_pid"
js trigger slurmd/0 update-status >/dev/null
t_stop=$(now_ms)
if ! js wait --timeout 120 >"$T/wait.out" 2>&1; then
        mx slurmctld/0 kill -CONT "$ctl_pid"
        die "hooks failed while slurmctld was stopped ($(($(now_ms) - t_stop)) ms): $(tail -n 5 "$T/wait.out" | tr '\n' ' ')"
fi
log "figure: a compute unit's update-status with slurmctld stopped: $(($(now_ms) - t_stop)) ms"
# a libslurm call of a process on the controller's machine, slurmctld stopped: on 24.11 its
# credential comes from slurmctld's sack socket, read with no timeout; the sack guard cuts it
# (lib/slurm/sackguard.h; CI: a status refresh that met the stop held machine 0 120 s); on
# 22.05 the RPC ends at MessageTimeout. An error within mx's 30 s cap, never a hang.
sd=$TOP_BUILDDIR/tests/cluster/slurm-drive
if [ -n "$CHARM_BASE" ]; then
        cp "$BASE_BUILDDIR/tests/cluster/slurm-drive" "$T/slurm-drive"
        sd=$T/slurm-drive
fi
t0=$(now_ms)
rc=0
out=$(mx slurmctld/0 "$sd" node slurmd-0 2>&1) || rc=$?
took=$(($(now_ms) - t0))
log "figure: a libslurm call on the controller's machine with slurmctld stopped: $took ms, exit $rc"
if [ "$rc" != 1 ] || [ "$took" -ge 28000 ]; then
        mx slurmctld/0 kill -CONT "$ctl_pid"
        die "slurm-drive node with slurmctld stopped: exit $rc after $took ms: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
fi
got=$(unit_status slurmd/0)
[[ $got =~ ^waiting\ node\ slurmd-0:\ no\ slurmctld\ answers ]] || { mx slurmctld/0 kill -CONT "$ctl_pid"; die "slurmd/0 while slurmctld is stopped: \"$got\""; }
t0=$(now_ms)
mx slurmctld/0 kill -CONT "$ctl_pid"
end=$((SECONDS + 30))
until [[ $(unit_status slurmd/0) =~ ^active\ idle$ ]]; do
        [ $SECONDS -lt $end ] || die "slurmd/0: status \"$(unit_status slurmd/0)\" 30 s after slurmctld answers again"
        sleep 0.2
done
log "figure: slurmctld answers again -> compute unit status active (watcher's run, no hook): $(($(now_ms) - t0)) ms"
grep -q "slurmctld answers again after the last hook found none: one run" \
        "$(root_of slurmd/0)/var/log/juju-sim/juju-service-watcher-slurmd.service.log" ||
        die "the watcher's log lacks its run for the answer"

log "every watcher run is in the debug log as an exec, and none failed"
python3 - "$MODEL/debug-log.jsonl" <<'PY' >&2 || die "a watcher run failed"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
runs = [h for h in runs if h["hook"] == "exec"]
for h in runs:
    print("  %-12s exec %-6s %5d ms tools=%d" % (h["unit"], h["status"], h["duration-ms"], h["tool-calls"]))
sys.exit(0 if runs and all(h["status"] == "ok" for h in runs) else 1)
PY
log "ok"
