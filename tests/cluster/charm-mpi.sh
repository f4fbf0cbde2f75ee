#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# MPI across compute units (issue 30 §4): slurmd loads Slurm's PMIx plugin (the charms install
# the library it opens: no "can not load PMIx library" at any slurmd start), MpiDefault=pmix,
# and an Open MPI program built on a compute machine runs 4 ranks over 2 nodes by direct launch
# (`srun -N2 -n4`, with and without --mpi=pmix): every rank reports its host, a collective sums
# every rank's value, and each rank gets its left neighbour's rank (point to point, across the
# two nodes). Open MPI itself is the site's, as at a real site (the test bed's machines have
# Debian's); the charm's part is Slurm's PMIx side.
# On 22.05 (Debian 12: Open MPI 4.1.4, PMIx 4.2.2, Slurm's pmix_v4) a rank crashed in MPI_Init
# now and then in the first seconds after slurmd started (HACKING.md, "MPI"): the controller
# serves mpi.conf with PMIxEnv=PMIX_MCA_gds=hash there (charm/slurmctld/mpiconf.h), which the
# test sees in slurmctld's configuration and in a task's environment; 24.11 has no mpi.conf.
# The MPI runs come first, in the seconds after both slurmd daemons started, where it was seen.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

deploy_cpu 2

log "no slurmd start failed to load the PMIx library; MpiDefault=pmix"
for u in cpu/0 cpu/1; do
        slog=$(root_of "$u")/var/log/slurm/slurmd.log
        [ -s "$slog" ] || die "$u: no slurmd.log"
        ! grep -m1 -e 'can not load PMIx' -e 'Cannot create context for mpi/pmix' "$slog" ||
                die "$u: slurmd could not load Slurm's PMIx plugin"
done
[ "$(ctl scontrol show config | sed -n 's/^MpiDefault *= *//p')" = pmix ] ||
        die "MpiDefault: $(ctl scontrol show config | grep MpiDefault)"

log "an MPI program built on a compute machine"
cp "$TEST_DATA/mpi/hello.c" "$T/hello.c"
# (juju-sim's exec, as juju-exec, gives no HOME; Open MPI 5 wants one, as a user's login has it,
# and srun hands the ranks the caller's environment)
js exec cpu/0 -- env HOME=/root mpicc -O1 -o "$T/hello" "$T/hello.c" >"$T/mpicc.out" 2>&1 || die "mpicc: $(cat "$T/mpicc.out")"
hosts="$(js exec cpu/0 -- hostname) $(js exec cpu/1 -- hostname)"

# check_run OUT: 4 ranks, 2 on each compute machine, the sum 10 everywhere, the ring closed
check_run() {
        python3 - "$1" "$hosts" <<'PY' || die "the MPI run: $(cat "$1")"
import collections, re, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("rank ")]
want_hosts = sorted(sys.argv[2].split())
ranks, per_host = {}, collections.Counter()
for l in lines:
    m = re.fullmatch(r"rank (\d+) of (\d+) on (\S+) sum (\d+) from (-?\d+)", l)
    assert m, l
    r, n, host, s, got = int(m[1]), int(m[2]), m[3], int(m[4]), int(m[5])
    assert n == 4 and s == 10 and got == (r + 3) % 4, l
    ranks[r] = host
    per_host[host] += 1
assert sorted(ranks) == [0, 1, 2, 3], ranks
assert sorted(per_host) == want_hosts and set(per_host.values()) == {2}, per_host
PY
}
log "srun --mpi=pmix -N2 -n4: 4 ranks over both nodes"
t0=$(date +%s%N)
ctl env HOME=/root timeout 120 srun --mpi=pmix -p cpu -N2 -n4 "$T/hello" >"$T/run1.out" 2>&1 || die "srun --mpi=pmix: $(cat "$T/run1.out")"
t1=$(date +%s%N)
check_run "$T/run1.out"
log "figure: MPI hello, 4 ranks over 2 nodes (srun to its end): $(((t1 - t0) / 1000000)) ms"
log "srun -N2 -n4 with the default (MpiDefault)"
ctl env HOME=/root timeout 120 srun -p cpu -N2 -n4 "$T/hello" >"$T/run2.out" 2>&1 || die "srun: $(cat "$T/run2.out")"
check_run "$T/run2.out"
log "a batch job runs it too"
job=$(submit -p cpu -N2 -n4 -o "$T/run3.out" --wrap "HOME=/root srun $T/hello")
wait_job_state "$job" COMPLETED 120
check_run "$T/run3.out"
log "mpi.conf: PMIxEnv where the generation needs it, served to the tasks"
# (after the MPI runs, which start as soon after the slurmd starts as before; the generation:
# the controller's slurmctld says its version)
ver=$(ctl scontrol --version | awk '{print $2}')
conf_mpi=$(ctl scontrol show config | sed -n 's/^ *PMIxEnv *= *//p')
env_gds=$(ctl timeout 60 srun --mpi=pmix -p cpu -N1 -n1 printenv PMIX_MCA_gds || true)
case $ver in
22.05.*)
        [ "$conf_mpi" = PMIX_MCA_gds=hash ] || die "22.05: slurmctld's PMIxEnv is '$conf_mpi'"
        [ "$env_gds" = hash ] || die "22.05: a task's PMIX_MCA_gds is '$env_gds'"
        for u in cpu/0 cpu/1; do
                # the copy slurmd fetched (configless: its cache beside slurm.conf)
                js exec "$u" -- grep -qx 'PMIxEnv=PMIX_MCA_gds=hash' /run/slurm/conf/mpi.conf ||
                        die "$u: no mpi.conf in slurmd's configuration cache"
        done ;;
*)
        # (24.11 shows its PMIx plugin's settings without a file: "PMIxEnv = (null)")
        [ -z "$conf_mpi" ] || [ "$conf_mpi" = "(null)" ] || die "$ver: PMIxEnv '$conf_mpi' (no mpi.conf expected)"
        [ -z "$env_gds" ] || die "$ver: a task's PMIX_MCA_gds is '$env_gds' (none expected)"
        [ ! -e "$(root_of slurmctld/0)/etc/slurm/mpi.conf" ] || die "$ver: /etc/slurm/mpi.conf written"
        ;;
esac

log "ok"
