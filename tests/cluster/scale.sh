#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Figures: one controller machine and N compute machines (default 16) each with munged+slurmd,
# `srun -NN hostname` must print N distinct hostnames; prints create/destroy times and memory.
# Usage: TOP_BUILDDIR=build tests/cluster/scale.sh [N]   (root; not in the default suite)
set -u
N=${1:-16}
MODEL_NAME=scale
. "$(dirname "$0")/machine-lib.sh"

# Each machine's systemd --user holds 3 inotify instances (its dbus-daemon one more), and the
# per-uid limit is shared by all of root's processes: the default 128 allows about 30 machines.
limit=$(cat /proc/sys/fs/inotify/max_user_instances)
[ $(((N + 1) * 4 + 16)) -le "$limit" ] ||
        die "$((N + 1)) machines need fs.inotify.max_user_instances >= $(((N + 1) * 4 + 16)) (now $limit)"

used_mib() { free -m | awk '/^Mem:/ { print $3 }'; }
now() { date +%s.%N; }
# since T0: seconds from T0 to now, 3 decimals
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
diff_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
mem0=$(used_mib)
t0=$(now)
ctimes=()
for ((i = 0; i <= N; i++)); do
        a=$(now)
        "$JSM" create "$MODEL" $i >/dev/null 2>"$T/create.err" || { cat "$T/create.err"; cat "$MODEL/machines/$i/console.log"; die "create $i"; }
        ctimes+=("$(since "$a")")
done
t_created=$(now)
mem_machines=$(used_mib)
head -c 1024 /dev/urandom >"$T/munge.key"
for ((i = 0; i <= N; i++)); do
        munge_up $i "$T/munge.key" || die "munge on machine $i"
done
slurmctld_up 0 $((N + 10)) || die "slurmctld"
ctl=$(field 0 3)
for ((i = 1; i <= N; i++)); do
        slurmd_up $i "$ctl" || die "slurmd on machine $i"
done
wait_for 120 idle_at_least 0 "$N" || { mx 0 sinfo -N; die "$N idle nodes not seen in 120 s"; }
t_idle=$(now)
out=$(mx 0 timeout 120 srun -N"$N" hostname) || die "srun -N$N hostname failed"
got=$(sort -u <<<"$out" | wc -l)
[ "$got" = "$N" ] || die "srun -N$N printed $got distinct hostnames"
t_srun=$(now)
mem_cluster=$(used_mib)
rss_kib=$(for p in /proc/[0-9]*; do
        grep -qs "$("$JSM" names "$MODEL" | sed -n 's/^cgroup=//p')" "$p/cgroup" && awk '/^VmRSS/ { print $2 }' "$p/status" 2>/dev/null
done | awk '{ s += $1 } END { print s + 0 }')

d0=$(now)
destroy_times=()
for ((i = N; i >= N - 3; i--)); do
        a=$(now)
        "$JSM" destroy "$MODEL" $i 2>/dev/null || die "destroy $i"
        destroy_times+=("$(since "$a")")
done
a=$(now)
"$JSM" destroy-all "$MODEL" 2>/dev/null || die "destroy-all"
t_all=$(since "$a")
mem_end=$(used_mib)

printf 'machines: 1 controller + %d compute, srun -N%d hostname: %d distinct hostnames\n' "$N" "$N" "$got"
printf 'create per machine (s): %s\n' "${ctimes[*]}"
printf 'create all %d machines: %s s\n' $((N + 1)) "$(diff_s "$t0" "$t_created")"
printf 'munge+slurmctld+slurmd up to %d idle nodes: %s s\n' "$N" "$(diff_s "$t_created" "$t_idle")"
printf 'srun -N%d hostname: %s s\n' "$N" "$(diff_s "$t_idle" "$t_srun")"
printf 'destroy one machine (s): %s\n' "${destroy_times[*]}"
printf 'destroy-all of the remaining %d machines: %s s\n' $((N - 3)) "$t_all"
printf 'memory used (free -m): before %d MiB, %d machines idle %d MiB (+%d), cluster up %d MiB (+%d), after destroy %d MiB\n' \
        "$mem0" $((N + 1)) "$mem_machines" $((mem_machines - mem0)) "$mem_cluster" $((mem_cluster - mem0)) "$mem_end"
printf 'RSS of all machine processes: %d MiB (%d KiB per machine)\n' $((rss_kib / 1024)) $((rss_kib / (N + 1)))
printf 'total %s s\n' "$(since "$t0")"
