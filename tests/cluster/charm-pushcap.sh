#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 28 (attack of stop 47, F4): the slurm.conf push's cap under Juju's concurrency. Four
# compute units, each node held by a long job, each unit behind the file slurmctld runs for
# longer than CONFPUSH_DRAIN_AFTER_S (aged by hand, as charm-restart does), then update-status
# on all four at once: at most a tenth of the nodes, at least one, is drained for the push, and
# one is (lib/charm/common/confpush.h: the holds counted again after a second, the earlier hold
# first; before, each hook counted room at the same moment and 2 or 3 of 4 were drained).
set -euo pipefail
# under Juju's concurrency whatever the suite's default (the point of the test)
export JUJU_SIM_HOOK_CONCURRENCY=${JUJU_SIM_HOOK_CONCURRENCY:-machines}
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
N=4
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu -n "$N" >/dev/null
js integrate slurmctld cpu >/dev/null
settle 400
jobs=()
for ((i = 0; i < N; i++)); do jobs+=("$(submit --exclusive -w "cpu-$i" -o /dev/null --wrap 'sleep 1200')"); done
for j in "${jobs[@]}"; do wait_job_state "$j" RUNNING 60; done
# a new slurm.conf (a setting slurmctld restarts for): every node is behind it while its job runs
js config slurmctld slurm-conf-parameters="MinJobAge=299" >/dev/null
settle 300
have_all() {
        local i
        for ((i = 0; i < N; i++)); do
                [ -s "$(root_of "cpu/$i")/var/lib/slurm/charm/slurm-conf-behind" ] || return 1
        done
}
for k in $(seq 1 12); do
        have_all && break
        sleep 15
        js trigger slurmctld update-status >/dev/null
        settle 120
done
have_all || die "not every unit is behind: $(ls "$MODEL"/machines/*/root/var/lib/slurm/charm/ | tr '\n' ' ')"
log "behind records: $(cat "$MODEL"/machines/*/root/var/lib/slurm/charm/slurm-conf-behind | tr '\n' ' ')"
for ((i = 0; i < N; i++)); do
        f=$(root_of "cpu/$i")/var/lib/slurm/charm/slurm-conf-behind
        printf '%s %s\n' "$(cut -d' ' -f1 "$f")" $(($(date +%s) - 601)) >"$f"
done
js trigger cpu update-status >/dev/null
settle 300
n=$(ctl sinfo -h -N -o '%T|%E' | grep -c 'drain.*slurm.conf push' || true)
log "nodes drained for the push at once: $n of $N (cap: 1)"
[ "$n" -le 1 ] || die "push cap exceeded: $n nodes drained at once: $(ctl sinfo -h -N -o '%N %T %E')"
[ "$n" -ge 1 ] || die "no node drained for the push: $(ctl sinfo -h -N -o '%N %T %E')"
ctl scancel "${jobs[@]}" || true
log "ok"
