#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# lib/slurm against a real slurmctld + configless dynamic slurmd on loopback: registration, drain,
# resume, down, restore, update, jobs on a node, delete refused while busy, wait-no-jobs latency,
# delete, destroy-jobs (requeue + cancel), reconfigure, ping, configless config lookup.
# Usage: slurm-adapters.sh PATH-TO-slurm-drive. Root only (exit 77 otherwise).
set -u

if [ "$(id -u)" != 0 ]; then
        echo "slurm-adapters: needs root (daemons, mount namespaces): skipped"
        exit 77
fi
DRIVE=$(realpath "${1:?usage: slurm-adapters.sh SLURM-DRIVE}") || exit 1
. "$(dirname "$0")/slurm-lib.sh"
need=(slurmctld slurmd sbatch scontrol unshare nsenter)
[ "$SLURM_AUTH" = munge ] && need+=(munged)
for p in "${need[@]}"; do
        command -v "$p" >/dev/null || { echo "slurm-adapters: $p missing: skipped"; exit 77; }
done
# Only matters when slurm-drive is built with ASan: libslurm's own leak is not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(dirname "$(realpath "$0")")/slurm-lsan.supp:print_suppressions=0}
trap cluster_down EXIT
trap 'exit 1' INT TERM

FAILS=0
check() { # check DESCRIPTION CMD...: CMD must succeed
        local what=$1
        shift
        if "$@"; then
                log "ok: $what"
        else
                log "FAIL: $what"
                log "  last output: $(printf '%s' "${out:-}" | tr '\n' '|')"
                FAILS=$((FAILS + 1))
        fi
}
# has OUTPUT REGEX...: OUTPUT has, for each REGEX (grep -E), a line matching it
has() {
        local o=$1 re
        shift
        for re in "$@"; do
                printf '%s\n' "$o" | grep -Eq -- "$re" || return 1
        done
}
drive() { timeout 60 "$DRIVE" "$@" 2>>"$T/log/drive.err"; }
# job_state ID: squeue's state of job ID, empty when gone
job_state() { timeout 10 squeue -h -j "$1" -o %T 2>/dev/null; }

cluster_up

# --- registration and reads ------------------------------------------------------------------
out=$(drive wait-registered "$NODE" 20000) || die "node never registered: $out"
log "$(printf '%s\n' "$out" | head -1)"
check "registered node is IDLE+DYNAMIC_NORM" has "$out" '^state=IDLE\+DYNAMIC_NORM$'
check "registered node answers" has "$out" '^registered=1$'

# a name the controller does not know, with a bound on that (a slurmd charm's wait after its
# restart): given up with ENOENT after the bound, not at the timeout; without it, the timeout
t0=$(date +%s%N)
out=$(drive wait-registered "no-such-$NODE" 20000 1500) && die "an unknown node was taken as registered: $out"
ms=$((($(date +%s%N) - t0) / 1000000))
check "unknown node: given up with ENOENT after its bound" has "$out" '^ERR ENOENT .*unknown to the controller for 1500 ms'
[ "$ms" -ge 1500 ] && [ "$ms" -lt 10000 ] || die "unknown node: gave up after $ms ms, want 1500 to 10000"
out=$(drive wait-registered "no-such-$NODE" 1200) && die "an unknown node was taken as registered: $out"
check "unknown node, no bound: the timeout" has "$out" '^ERR ETIMEDOUT .*not registered after 1200 ms'
out=$(drive wait-registered "$NODE" 5000 1500) || die "a registered node with the bound: $out"

out=$(drive node "$NODE")
check "node: features available and active" has "$out" '^features=ns1$' '^active=ns1$'
check "node: partitions from the partition table" has "$out" '^partitions=ns1$'
check "node: cpus and memory from --conf" has "$out" '^cpus=2$' '^memory=500$'
check "node: address" has "$out" '^address=127\.0\.0\.1$'

out=$(drive list)
check "list: status line" has "$out" '^1 nodes in 1 partitions$'
out=$(drive list ns1)
check "list by feature ns1" has "$out" "^$NODE ns1\$"
out=$(drive list nosuchfeature)
check "list by another feature is empty" has "$out" '^0 nodes in 1 partitions$'

out=$(drive node nosuch)
check "unknown node: ENOENT" has "$out" '^ERR ENOENT '
out=$(drive delete nosuch)
check "delete unknown node: ENOENT" has "$out" '^ERR ENOENT '
out=$(drive drain nosuch "x")
check "drain unknown node: ENOENT" has "$out" '^ERR ENOENT '

# --- configless clients: no SLURM_CONF, no /etc/slurm/slurm.conf, slurmd's cache -------------
out=$(in_node "$DRIVE" config-path)
check "configless client finds /run/slurm/conf/slurm.conf" has "$out" '^/run/slurm/conf/slurm.conf$'
if [ "$SLURM_AUTH" = munge ]; then # 22.05: a link to the cache
        check "the cache link points into SlurmdSpoolDir/conf-cache" \
                sh -c "[ \"\$(nsenter --target $SLURMD_PID --mount --root readlink /run/slurm/conf)\" = '$T/spool/conf-cache' ]"
else # 24.11: a directory of copies
        check "the cache in /run/slurm/conf is SlurmdSpoolDir/conf-cache's slurm.conf" \
                sh -c "nsenter --target $SLURMD_PID --mount --root cat /run/slurm/conf/slurm.conf | cmp -s - '$T/spool/conf-cache/slurm.conf'"
fi
out=$(in_node "$DRIVE" node "$NODE")
check "configless client reads its node" has "$out" '^state=IDLE'
out=$(env -u SLURM_CONF "$DRIVE" node "$NODE")
check "no configuration at all: ENOENT, no libslurm fatal()" has "$out" '^ERR ENOENT slurm configuration'
if [ "$SLURM_AUTH" = munge ]; then
        # slurmd replaces that link at each start (unlink, then symlink: seen to kill a hook with
        # libslurm's fatal() in CI); clients started meanwhile read the file behind it. The link is
        # replaced in a loop (at most 20000 times, ~half the time absent) while 30 clients run.
        link=$(nsenter --target "$SLURMD_PID" --mount --root readlink /run/slurm/conf)
        nsenter --target "$SLURMD_PID" --mount --root sh -c '
                i=0
                while [ $i -lt 20000 ] && [ ! -e /run/slurm/flip.stop ]; do
                        rm -f /run/slurm/conf
                        ln -s "$1" /run/slurm/conf
                        i=$((i + 1))
                done
                [ -L /run/slurm/conf ] || ln -s "$1" /run/slurm/conf
                rm -f /run/slurm/flip.stop' sh "$link" &
        flip=$!
        bad=0
        for i in $(seq 30); do
                out=$(in_node "$DRIVE" node "$NODE" 2>&1)
                has "$out" '^state=IDLE' || { bad=$((bad + 1)); log "  client $i: $(head -3 <<<"$out" | tr '\n' '|')"; }
        done
        nsenter --target "$SLURMD_PID" --mount --root touch /run/slurm/flip.stop
        wait "$flip"
        check "30 clients while the /run/slurm/conf link is replaced: all read their node ($bad failed)" [ "$bad" = 0 ]
fi

# --- state changes ---------------------------------------------------------------------------
out=$(drive drain "$NODE" "")
check "drain without reason: EINVAL" has "$out" '^ERR EINVAL '
out=$(drive drain "$NODE" "disk check by h6")
check "drain with reason" has "$out" '^ok$'
out=$(drive node "$NODE")
check "drained idle node: IDLE+DRAIN, DRAINED, reason" has "$out" '^state=IDLE\+DRAIN\+DYNAMIC_NORM$' '^drain=DRAINED$' '^reason=disk check by h6$'
out=$(drive restore-check "$NODE")
check "restore a drained node keeps its admin reason" has "$out" '^restored=yes$'
out=$(drive resume "$NODE")
check "resume" has "$out" '^ok$'
# RESUME makes slurmctld ping the node: NOT_RESPONDING until it answers (about 1 s).
out=$(drive wait-registered "$NODE" 10000)
check "resumed node: IDLE, no drain, no reason" has "$out" '^state=IDLE\+DYNAMIC_NORM$' '^reason=$'
out=$(drive restore-check "$NODE")
check "restore an idle node leaves it idle" has "$out" '^restored=yes$'
# (ReturnToService=2 with SlurmdTimeout=30: slurmctld asks a DOWN node to register at its pings,
# every 10 s, and one that answers is IDLE again: a whole run once read it after that; tried up
# to 3 times, each read at once after the down)
for _ in 1 2 3; do
        out=$(drive down "$NODE" "bad dimm")
        has "$out" '^ok$' || break
        out=$(drive node "$NODE")
        ! has "$out" '^base=DOWN$' '^reason=bad dimm$' || break
done
check "down node: DOWN, reason" has "$out" '^base=DOWN$' '^reason=bad dimm$'
out=$(drive resume "$NODE")
check "resume a down node" has "$out" '^ok$'
out=$(drive wait-registered "$NODE" 10000)
check "resumed node is IDLE and answers" has "$out" '^base=IDLE$' '^registered=1$'
check "undrain/idle on an idle node" sh -c "'$DRIVE' undrain '$NODE' >/dev/null; '$DRIVE' node '$NODE' | grep -q '^base=IDLE$'"
out=$(drive weight "$NODE" 7)
check "weight update" has "$out" '^ok$'
out=$(drive node "$NODE")
check "weight is 7" has "$out" '^weight=7$'

# --- triggers (slurmctld runs the program on its host; its trigger thread is periodic) ---------
# With SlurmUser=slurm (as the charm runs it) only that user may set a trigger: root is refused.
# as_slurm CMD…: CMD as SlurmUser (what the charm does in a child that became SlurmUser).
as_slurm() { timeout 60 runuser -u "$SLURM_USER" -- env SLURM_CONF="$SLURM_CONF" "$@" 2>>"$T/log/drive.err"; }
printf '#!/bin/sh\necho "$(date +%%s.%%N) $(id -un) $*" >>"%s/out/trig"\n' "$T" >"$T/trig.sh"
chmod 755 "$T/trig.sh"
out=$(as_slurm "$DRIVE" trigger-set "$NODE" drained relative/trig.sh)
check "trigger with a relative program: EINVAL" has "$out" '^ERR EINVAL '
out=$(drive trigger-set "$NODE" drained "$T/trig.sh")
check "root may not set a trigger (SlurmUser=slurm): EACCES" has "$out" '^ERR EACCES '
check "slurmctld says why" grep -q "Attempt to set trigger by uid 0 != SlurmUser" "$T/log/slurmctld.log"
out=$(as_slurm "$DRIVE" trigger-set "$NODE" drained "$T/trig.sh")
check "SlurmUser sets a drained trigger" has "$out" '^ok$'
out=$(drive triggers)
check "trigger listed (to root too)" has "$out" '^1 triggers$' "^trigger [0-9]+ node=1 events=0x100 resource=$NODE program=$T/trig.sh\$"
t0=$(date +%s.%N)
drive drain "$NODE" "trigger test" >/dev/null
wait_for 40 test -s "$T/out/trig"
check "drained trigger ran as SlurmUser with the node name" grep -q " $SLURM_USER $NODE\$" "$T/out/trig"
[ -s "$T/out/trig" ] && log "trigger fired $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' "$T/out/trig") s after the drain"
out=$(drive triggers)
check "a fired one-shot trigger is gone" has "$out" '^0 triggers$'
out=$(drive trigger-perm down "$T/trig.sh")
check "root may not set a permanent trigger either: EACCES" has "$out" '^ERR EACCES '
out=$(as_slurm "$DRIVE" trigger-perm down "$T/trig.sh")
check "SlurmUser sets a permanent trigger on every node" has "$out" '^set$'
out=$(as_slurm "$DRIVE" trigger-perm down "$T/trig.sh")
check "the same again is a duplicate, not an error" has "$out" '^there$'
out=$(drive triggers)
check "one permanent trigger on *" has "$out" '^1 triggers$' "^trigger [0-9]+ node=1 events=0x2 resource=\\* program=$T/trig.sh\$"
id=$(drive triggers | awk '/^trigger / { print $2 }')
out=$(drive trigger-clear "${id:-0}")
check "root clears SlurmUser's trigger" has "$out" '^ok$'
out=$(drive triggers)
check "cleared trigger is gone" has "$out" '^0 triggers$'
out=$(drive trigger-clear 99999)
check "clear an unknown trigger: ESRCH" has "$out" '^ERR ESRCH '
drive resume "$NODE" >/dev/null
out=$(drive wait-registered "$NODE" 10000)
check "node back in service after the trigger test" has "$out" '^state=IDLE\+DYNAMIC_NORM$'

# --- controller ------------------------------------------------------------------------------
out=$(drive ping)
check "ping: primary up" has "$out" '^1 up$' "^controller 0 $(hostname) 127\.0\.0\.1 up\$"
out=$(drive reconfigure)
check "reconfigure" has "$out" '^ok$'
wait_for 10 "$DRIVE" ping >/dev/null
out=$(drive node "$NODE")
check "node survives reconfigure" has "$out" '^registered=1$'

# --- a job on the node: busy delete, wait for its end, delete --------------------------------
jid=$(timeout 10 sbatch --parsable --mem=100 --chdir="$T/out" -o /dev/null \
        --wrap "sleep 3; date +%s.%N > $T/out/end1") || die "sbatch failed"
wait_for 20 sh -c "[ \"\$(squeue -h -j $jid -o %T)\" = RUNNING ]" || die "job $jid never ran"
out=$(drive jobs "$NODE")
check "jobs on node lists the running job" has "$out" "^job $jid .*state=RUNNING batch=1 requeueable=1 nodes=$NODE\$"
check "jobs on node: user root" has "$out" "^job $jid .* uid=0 "
out=$(drive delete "$NODE")
check "delete while a job runs: EBUSY" has "$out" '^ERR EBUSY .*Requested nodes are busy'
out=$(drive wait-no-jobs "$NODE" 30000)
check "wait-no-jobs returns" has "$out" '^seen_at='
seen=$(printf '%s\n' "$out" | sed -n 's/^seen_at=//p')
end=$(cat "$T/out/end1" 2>/dev/null)
if [ -n "$seen" ] && [ -n "$end" ]; then
        lat=$(awk -v a="$end" -v b="$seen" 'BEGIN { printf "%.3f", b - a }')
        log "LATENCY job script end -> no jobs seen: $lat s"
        check "job end -> no jobs within 1 s" awk -v l="$lat" 'BEGIN { exit !(l < 1.0) }'
else
        check "job end time and seen time recorded" false
fi
# more samples of the same latency: short jobs one after the other
lats=$lat
for i in 2 3 4; do
        j=$(timeout 10 sbatch --parsable --mem=100 --chdir="$T/out" -o /dev/null \
                --wrap "sleep 1; date +%s.%N > $T/out/end$i") || die "sbatch failed"
        wait_for 20 sh -c "[ \"\$(squeue -h -j $j -o %T)\" = RUNNING ]" || die "job $j never ran"
        seen=$(drive wait-no-jobs "$NODE" 30000 | sed -n 's/^seen_at=//p')
        end=$(cat "$T/out/end$i" 2>/dev/null)
        [ -n "$seen" ] && [ -n "$end" ] && lats="$lats $(awk -v a="$end" -v b="$seen" 'BEGIN { printf "%.3f", b - a }')"
done
log "LATENCY samples (s): $lats"
check "every sample under 1 s" awk -v l="$lats" 'BEGIN { n = split(l, a, " "); if (n < 4) exit 1; for (i = 1; i <= n; i++) if (a[i] >= 1.0) exit 1 }'

t0=$(date +%s.%N)
out=$(drive delete "$NODE")
check "delete after the job ended" has "$out" '^ok$'
log "delete took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }') s (incl. process start)"
out=$(drive node "$NODE")
check "deleted node is gone: ENOENT" has "$out" '^ERR ENOENT '
out=$(drive list)
check "list after delete" has "$out" '^0 nodes in 1 partitions$'
out=$(drive wait-no-jobs "$NODE" 2000)
check "wait-no-jobs on a gone node returns at once" has "$out" '^seen_at='
sleep 2
out=$(drive node "$NODE")
check "a deleted node whose slurmd still runs does not come back by itself" has "$out" '^ERR ENOENT '

# --- destroy jobs: requeue the requeueable, cancel the rest ----------------------------------
stop_slurmd
start_slurmd
out=$(drive wait-registered "$NODE" 20000) || die "node did not re-register: $out"
check "node re-registered after delete + restart" has "$out" '^state=IDLE\+DYNAMIC_NORM$'
ja=$(timeout 10 sbatch --parsable --requeue --mem=100 -J requeueme --chdir="$T/out" -o /dev/null --wrap "sleep 120") || die "sbatch a"
jb=$(timeout 10 sbatch --parsable --no-requeue --mem=100 -J cancelme --chdir="$T/out" -o /dev/null --wrap "sleep 120") || die "sbatch b"
wait_for 20 sh -c "[ \"\$(squeue -h -j $ja -o %T)\" = RUNNING ] && [ \"\$(squeue -h -j $jb -o %T)\" = RUNNING ]" ||
        die "jobs $ja $jb never both ran"
out=$(drive jobs "$NODE")
check "two jobs on the node" has "$out" '^2 jobs$'
check "requeueable job flagged" has "$out" "^job $ja name=requeueme .*requeueable=1 "
check "non-requeueable job flagged" has "$out" "^job $jb name=cancelme .*requeueable=0 "
drive drain "$NODE" "leaving" >/dev/null
out=$(drive node "$NODE")
check "draining node with jobs: DRAINING" has "$out" '^drain=DRAINING$'
out=$(drive destroy "$NODE")
check "destroy: requeued the requeueable job" has "$out" "^requeued: $ja\$"
check "destroy: cancelled the other" has "$out" "^cancelled: $jb\$"
out=$(drive wait-no-jobs "$NODE" 30000)
check "no jobs left after destroy" has "$out" '^seen_at='
check "requeued job is pending again" sh -c "s=\$(squeue -h -j $ja -o %T); [ \"\$s\" = PENDING ] || [ \"\$s\" = REQUEUED ]"
out=$(drive node "$NODE")
check "drained node after destroy: DRAINED" has "$out" '^drain=DRAINED$'
timeout 10 scancel "$ja"
# the charm's stop path: slurmd stopped first, its record (still IDLE until SlurmdTimeout) deleted
stop_slurmd
out=$(drive node "$NODE")
check "a stopped slurmd's node record stays" has "$out" "^name=$NODE\$"
out=$(drive delete "$NODE")
check "delete the node of a stopped slurmd" has "$out" '^ok$'

# --- hardware detection (real slurmd -C, fake /dev) ------------------------------------------
mkdir -p "$T/dev/nvidia-caps"
: >"$T/dev/nvidia0"
: >"$T/dev/nvidia1"
: >"$T/dev/nvidiactl"
out=$(drive hardware "$T/dev")
check "hardware: CPUs from slurmd -C" has "$out" '^CPUs=[0-9]+$'
check "hardware: RealMemory" has "$out" '^RealMemory=[0-9]+$'
check "hardware: no NodeName, no UpTime" sh -c '! printf "%s\n" "$1" | grep -Eq "^(NodeName|UpTime)="' sh "$out"
check "hardware: Gres=gpu:2" has "$out" '^Gres=gpu:2$'

check "no sanitizer report from slurm-drive" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/log/drive.err'"
[ -s "$T/log/drive.err" ] && grep -E 'runtime error|Sanitizer' -A8 "$T/log/drive.err" | head -40 >&2

if [ "$FAILS" -ne 0 ]; then
        log "$FAILS check(s) failed"
        exit 1
fi
log "all checks passed"
exit 0
