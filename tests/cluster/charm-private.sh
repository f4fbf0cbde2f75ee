#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The model's files are root's alone: with the real charms deployed, user nobody in a machine (a
# shell through runuser, and a job through srun --uid=nobody) reads no model file, the auth key
# included; an older model's modes are tightened on load; hooks and juju-exec still work. Prints
# what a charm machine costs (inotify instances and watches, tasks, memory) against capacity's.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
JSM=${JSM:-$TOP_BUILDDIR/tools/juju-sim/juju-sim-machine}
[ -x "$JSM" ] || die "no juju-sim-machine at $JSM"
command -v runuser >/dev/null || skip "runuser missing"
# Only the model's own modes may protect it: mktemp made its parent 0700.
chmod 0755 "$T"

# mx UNIT CMD…: CMD on the unit's machine, outside any hook (no model lock), 60 s cap. The
# machine ids are read once, after deploy: `juju-sim status` would tighten an old model's modes.
declare -A MACHINE
mx() {
        local m=${MACHINE[$1]:?}
        shift
        "$JSM" exec "$MODEL" "$m" --timeout 60 -- "$@"
}

log "deploy slurmctld, 1 slurmd, integrate"
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
expect_status slurmctld/0 '^active 1 node in 1 partition$'
expect_status slurmd/0 '^active idle$'
MACHINE[slurmctld/0]=$(machine_of slurmctld/0)
MACHINE[slurmd/0]=$(machine_of slurmd/0)
key64=$(base64 -w0 <"$(root_of slurmctld/0)$AUTH_KEY")
[ ${#key64} -ge 40 ] || die "no key read"
grep -qF "$key64" "$MODEL/state.json" || die "the key is not in state.json: this test would prove nothing"

# bad_modes: what in the model is open to group or others. Expected nothing but DIR/bin (bound
# at /usr/local/sbin in the machines), the hosts file (their /etc/hosts), symlinks, the files in a
# charm's dir (executables; the dir is 0700) and the machines' own files under machines/N/root
# (bound over their /etc/…, /var/…) and, on a machine of another base, machines/N/fs/upper (its
# "/", 0755 as a machine's root is, inside machines/N/fs, 0700).
# -ignore_readdir_race: a hook's agent socket and lock files come and go while find walks (CI saw
# find fail on agent.sock that vanished between its readdir and its stat).
bad_modes() {
        find "$MODEL" -ignore_readdir_race \( -path "$MODEL/machines/*/root/*" -o -path "$MODEL/machines/*/fs/upper" \
                -o -path "$MODEL/charms/*/*" -o -path "$MODEL/bin" \
                -o -path "$MODEL/bin/*" -o -path "$MODEL/machines/hosts" -o -type l \) -prune -o -perm /077 \
                -printf '%m %p\n'
}
log "modes on the host"
[ "$(stat -c %a "$MODEL")" = 700 ] || die "model dir is $(stat -c %a "$MODEL")"
[ "$(stat -c %a "$MODEL/state.json")" = 600 ] || die "state.json is $(stat -c %a "$MODEL/state.json")"
bad=$(bad_modes)
[ -z "$bad" ] || die "readable by others: $bad"

# $T/files: every file and directory of the model (what nobody must not read or list).
find "$MODEL" -ignore_readdir_race \( -type f -o -type d \) -print >"$T/files"
chmod 0644 "$T/files"
[ "$(wc -l <"$T/files")" -ge 20 ] || die "too few model files listed: $(wc -l <"$T/files")"
# nobody_reads UNIT: the model paths user nobody can read or list on UNIT's machine (none expected).
nobody_reads() {
        mx "$1" runuser -u nobody -- sh -c '
                while IFS= read -r f; do
                        if [ -d "$f" ]; then ls "$f" >/dev/null 2>&1 && echo "listed $f"
                        else head -c1 "$f" >/dev/null 2>&1 && echo "read $f"; fi
                done <"$0"
                true' "$T/files"
}

log "user nobody inside the machines"
for u in slurmctld/0 slurmd/0; do
        [ "$(mx "$u" runuser -u nobody -- id -un)" = nobody ] || die "$u: runuser -u nobody does not work"
        [ "$(mx "$u" runuser -u nobody -- cat "$T/files" | wc -l)" = "$(wc -l <"$T/files")" ] ||
                die "$u: nobody cannot read a file outside the model: the check below would prove nothing"
        if out=$(mx "$u" runuser -u nobody -- cat "$MODEL/state.json" 2>&1); then
                die "$u: nobody read state.json"
        fi
        [[ $out == *"Permission denied"* ]] || die "$u: cat state.json as nobody: \"$out\""
        read=$(nobody_reads "$u")
        [ -z "$read" ] || die "$u: nobody can read model files: $read"
        # what the machine's own users need still works: /etc/hosts, slurm.conf, juju-exec on PATH
        mx "$u" runuser -u nobody -- sh -c 'grep -q juju- /etc/hosts && command -v juju-exec >/dev/null' ||
                die "$u: nobody cannot read /etc/hosts or find juju-exec"
        # juju-exec as nobody cannot drive the model; as root it can (the service watcher's path)
        if mx "$u" runuser -u nobody -- juju-exec "$u" true >/dev/null 2>&1; then
                die "$u: nobody ran juju-exec"
        fi
        [ "$(mx "$u" juju-exec "$u" sh -c 'echo "$JUJU_UNIT_NAME"')" = "$u" ] || die "$u: juju-exec as root"
done
mx slurmctld/0 runuser -u nobody -- cat /etc/slurm/slurm.conf >/dev/null || die "nobody cannot read slurm.conf"

# srun_nobody ARG…: a job as nobody: srun --uid=nobody (like the issue); 24.11 has no --uid, so
# there nobody submits it.
srun_nobody() {
        if [ -n "$CHARM_BASE" ]; then
                ctl timeout 60 runuser -u nobody -- srun --chdir=/tmp "$@"
        else
                ctl timeout 60 srun --chdir=/tmp --uid=nobody "$@"
        fi
}
log "a job as nobody (srun --uid=nobody, like the issue) reads nothing of the model"
[ "$(srun_nobody id -un)" = nobody ] || die "srun as nobody does not run as nobody"
if out=$(srun_nobody grep -A3 auth-key "$MODEL/state.json" 2>&1); then
        die "a job as nobody read state.json: $out"
fi
[[ $out != *"$key64"* ]] || die "a job as nobody printed the key"
[[ $out == *"Permission denied"* ]] || die "srun grep state.json: \"$out\""
out=$(srun_nobody sh -c 'cat "$0"/state.json "$0"/debug-log.jsonl "$0"/juju-sim.json "$0"/machines/*/console.log 2>&1; ls "$0" 2>&1' "$MODEL" || true)
[[ $out != *"$key64"* ]] || die "a job as nobody printed the key"
[ "$(grep -c 'Permission denied' <<<"$out")" -ge 4 ] || die "a job as nobody: \"$out\""

log "hooks still work: a config change settles"
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
js config slurmctld slurm-conf-parameters="SlurmdTimeout=120" >/dev/null
settle
grep -qx 'SlurmdTimeout=120' "$conf" || die "config change not applied: $(grep -i timeout "$conf")"
expect_status slurmctld/0 '^active 1 node in 1 partition$'
bad=$(bad_modes)
[ -z "$bad" ] || die "readable by others after hooks ran: $bad"

log "an older model (0755 dir, 0644 files) is tightened on load"
# Anything that loads the model tightens it, the node event watcher's status refresh (a
# juju-exec after a slurmctld start) included: when one ran between the chmod and the look, the
# look proves nothing, so it is made again (at most five times). On 24.11 the config change's
# reconfigure re-execs slurmctld, and the watcher's refresh after that start can come even
# between the chmod and the first look (seen once in CI): that is the same race.
old_read=
for try in 1 2 3 4 5; do
        chmod 0755 "$MODEL" "$MODEL/charms" "$MODEL"/charms/* "$MODEL/tools" "$MODEL/machines" "$MODEL"/machines/[0-9]*
        chmod 0644 "$MODEL/state.json" "$MODEL/juju-sim.json" "$MODEL/lock" "$MODEL/debug-log.jsonl" \
                "$MODEL"/machines/[0-9]*/machine "$MODEL"/machines/[0-9]*/console.log
        if [ -z "$(bad_modes)" ]; then
                log "a background model load tightened the modes before the look (try $try): again"
                sleep 1
                continue
        fi
        old_read=$(nobody_reads slurmd/0)
        [ -n "$old_read" ] && break
        # still old modes, the model dir first (a load makes it private first, then the files:
        # a look in between reads nothing, seen in a fresh-clone run): nobody really reads nothing
        [ "$(stat -c %a "$MODEL")" = 755 ] && [ -n "$(bad_modes)" ] && break
        log "a background model load tightened the modes during the look (try $try): again"
done
[ -n "$old_read" ] || die "nobody reads nothing of an old model: the check proves nothing"
js status >/dev/null
bad=$(bad_modes)
[ -z "$bad" ] || die "not tightened on load: $bad"
read=$(nobody_reads slurmd/0)
[ -z "$read" ] || die "after load, nobody can read: $read"
js trigger slurmd update-status >/dev/null
settle
expect_status slurmd/0 '^active idle$'

log "figures: what a machine with the charms running costs (capacity counts $(js capacity --format=json | python3 -c '
import json, sys
c = {l["name"]: l["per-machine"] for l in json.load(sys.stdin)["limits"]}
print("%d inotify instances, %d watches, %d tasks, %d MiB" % (c["inotify instances"], c["inotify watches"], c["tasks"], c["memory"]))'))"
eval "$("$JSM" names "$MODEL")"
per_inst=$(js capacity --format=json | python3 -c '
import json, sys
print(next(l["per-machine"] for l in json.load(sys.stdin)["limits"] if l["name"] == "inotify instances"))')
for u in slurmctld/0 slurmd/0; do
        m=$(machine_of "$u")
        inst=0 watches=0 tasks=0 pss=0
        for p in $(find "/sys/fs/cgroup/unified/$cgroup/m$m" -name cgroup.procs -exec cat {} +); do
                tasks=$((tasks + $(find "/proc/$p/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)))
                pss=$((pss + $(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)))
                for f in /proc/"$p"/fd/*; do
                        [ "$(readlink "$f" 2>/dev/null)" = anon_inode:inotify ] || continue
                        inst=$((inst + 1))
                        watches=$((watches + $(grep -c 'inotify wd' "/proc/$p/fdinfo/${f##*/}" 2>/dev/null || true)))
                done
        done
        log "figure: $u machine: $inst inotify instances, $watches watches, $tasks tasks, $((pss / 1024)) MiB Pss"
        [ "$inst" -le "$per_inst" ] || die "$u's machine holds $inst inotify instances, capacity counts $per_inst"
done
log "ok"
