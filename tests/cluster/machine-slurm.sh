#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Three machines, real daemons started by each machine's systemd: munged (Debian's unit, one
# key), slurmctld on machine 0 (configless, dynamic nodes), `slurmd -Z --conf-server` on 1 and 2;
# `srun -N2 hostname` on the controller prints both compute machines' hostnames.
set -u
. "$(dirname "$0")/machine-lib.sh"
for prog in munged slurmctld slurmd srun sinfo; do
        command -v "$prog" >/dev/null 2>&1 || skip "$prog missing"
done

for i in 0 1 2; do
        "$JSM" create "$MODEL" $i >/dev/null || die "create $i"
done
head -c 1024 /dev/urandom >"$T/munge.key"
for i in 0 1 2; do
        munge_up $i "$T/munge.key" || die "munge on machine $i"
done
# User=munge of the packaged unit is honoured, RuntimeDirectory=munge is /run/munge
[ "$(mx 0 ps -o user= -C munged)" = munge ] || die "munged does not run as munge"
mx 0 test -S /run/munge/munge.socket.2 || die "no /run/munge/munge.socket.2"
# one key: a credential made on 1 decodes on 0
mx 1 munge -n -s jsim | mx 0 unmunge >/dev/null || die "munge credential from 1 not accepted on 0"

slurmctld_up 0 10 || { mx 0 tail -20 /var/log/slurm/slurmctld.log; die "slurmctld on machine 0"; }
ctl=$(field 0 3)
for i in 1 2; do
        slurmd_up $i "$ctl" || { mx $i systemctl status slurmd --no-pager; die "slurmd on machine $i"; }
done
wait_for 30 idle_at_least 0 2 || { mx 0 sinfo -N; die "two idle nodes not seen in 30 s"; }

out=$(mx 0 timeout 60 srun -N2 hostname | sort) || die "srun -N2 hostname failed"
want=$(printf '%s\n%s\n' "$(field 1 2)" "$(field 2 2)" | sort)
[ "$out" = "$want" ] || die "srun printed \"$out\", want \"$want\""
log "srun -N2 hostname: $(echo $out)"
log "ok"
