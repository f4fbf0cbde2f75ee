#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Jobs are tracked and confined by cgroups (issue 12), on real daemons in juju-sim machines. The
# cluster is first deployed as an older charm had it (proctrack/linuxproc, task/none): there a
# job's daemon (setsid nohup sleep, outliving the batch script) survives the job, which is what
# check (1) below would find without cgroups. Then upgrade-charm brings the template's cgroup
# plugins: slurmctld restarts and pushes the file, and the compute unit's next hook restarts
# slurmd, which reads them only at its start. Then: the controller's cgroup.conf is slurmd's
# (configless); (1) a job's daemon is killed at the job's end; (2) a job over its --mem is killed
# by the kernel (OUT_OF_MEMORY) while one within it completes; (3) --cpus-per-task=1 on a 2-CPU
# node gives the job exactly one CPU (-c 2: both); (4) a changed cgroup.conf restarts slurmctld
# and is pushed to slurmd; (5) with a job running on one node, another change reaches the idle
# node by the push, and the busy one after its job.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

# slurmd_plugins: the proctrack and task plugins the running slurmd has loaded
slurmd_plugins() {
        js exec slurmd/0 -- sh -c 'grep -o "/\(proctrack\|task\)_[a-z]*\.so" /proc/$(systemctl show -p MainPID --value slurmd)/maps' |
                sort -u | tr -d '/' | tr '\n' ' '
}

log_tools # what slurmd/0 says when it restarts
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" >/dev/null
sed -i 's|^ProctrackType=.*|ProctrackType=proctrack/linuxproc|; s|^TaskPlugin=.*|TaskPlugin=task/none|' \
        "$MODEL/charms/slurmctld/templates/slurm.conf"
js integrate slurmctld slurmd >/dev/null
settle 180
expect_status slurmd/0 '^active idle$'

log "(0) an older charm's cluster: proctrack/linuxproc, task/none"
# task/none is a plugin file on 22.05, built into slurmd on 24.11 (no task_none.so there)
want="proctrack_linuxproc.so task_none.so "
[ -e "$BASE_ROOT/usr/lib/x86_64-linux-gnu/slurm-wlm/task_none.so" ] || want="proctrack_linuxproc.so "
[ "$(slurmd_plugins)" = "$want" ] || die "slurmd runs $(slurmd_plugins)"
mark="1234.$$"
job=$(submit -w slurmd-0 -o /dev/null --wrap "setsid nohup sleep $mark </dev/null >/dev/null 2>&1 & sleep 0.5")
wait_job_state "$job" COMPLETED 30
sleep 1
survivor=$(js exec slurmd/0 -- pgrep -f "sleep $mark") || die "under linuxproc the job's daemon was gone too: check (1) proves nothing"
log "under linuxproc the daemon of job $job survived it (pid $survivor)"
js exec slurmd/0 -- kill "$survivor"

log "upgrade-charm to the template's cgroup plugins"
cp "$TOP_SRCDIR/templates/slurm.conf" "$MODEL/charms/slurmctld/templates/slurm.conf"
js trigger slurmctld upgrade-charm >/dev/null
settle
js trigger slurmd update-status >/dev/null
settle
[ "$(slurmd_plugins)" = "proctrack_cgroup.so task_affinity.so task_cgroup.so " ] || die "after the upgrade slurmd runs $(slurmd_plugins)"
# 22.05: slurmd keeps its start-only plugins through the pushed reconfigure, the charm restarts
# it and says why; 24.11: the reconfigure re-execs slurmd, which loads them itself
[ -n "$CHARM_BASE" ] ||
        grep -q '^slurmd/0 status-set maintenance restarting slurmd: slurm.conf names proctrack/cgroup,task/cgroup,task/affinity, which it did not load at its start $' \
                "$T/argv.log" || die "slurmd/0 did not say why it restarted slurmd"
expect_status slurmd/0 '^active idle$'
log "slurmd restarted with $(slurmd_plugins)"

log "cgroup.conf: the template's bytes on the controller, and in slurmd's conf-cache"
ctl_root=$(root_of slurmctld/0)
cmp "$ctl_root/etc/slurm/cgroup.conf" "$TOP_SRCDIR/templates/cgroup.conf" || die "controller's cgroup.conf differs from the template"
[ "$(stat -c '%a %U' "$ctl_root/etc/slurm/cgroup.conf")" = "644 root" ] || die "cgroup.conf mode/owner: $(stat -c '%a %U' "$ctl_root/etc/slurm/cgroup.conf")"
js exec slurmd/0 -- cat /run/slurm/conf/cgroup.conf >"$T/node-cgroup.conf" || die "no cgroup.conf in slurmd's /run/slurm/conf"
cmp "$T/node-cgroup.conf" "$TOP_SRCDIR/templates/cgroup.conf" || die "slurmd's cgroup.conf differs"
ctl scontrol show config | tr -d ' ' >"$T/config"
for kv in ProctrackType=proctrack/cgroup TaskPlugin=task/cgroup,task/affinity; do
        grep -qx "$kv" "$T/config" || die "running config lacks $kv"
done
cpus=$(ctl scontrol -o show node slurmd-0 | tr ' ' '\n' | sed -n 's/^CPUTot=//p')
log "node slurmd-0: $cpus CPUs"

log "(1) a daemon forked by a job is killed at the job's end"
mark="4321.$$"
job=$(submit -w slurmd-0 -o "$T/daemon.out" --wrap "setsid nohup sleep $mark </dev/null >/dev/null 2>&1 &
sleep 0.5; pgrep -f 'sleep $mark' >$T/daemon.pid; cat /proc/self/cgroup")
wait_job_state "$job" COMPLETED 30
[ -s "$T/daemon.pid" ] || die "the job's daemon never ran"
grep -Eq "freezer:/slurm[^/]*/uid_0/job_$job/step_batch" "$T/daemon.out" || die "batch step not in its freezer cgroup: $(cat "$T/daemon.out")"
gone=""
for ((i = 0; i < 50; i++)); do
        if ! js exec slurmd/0 -- pgrep -f "sleep $mark" >/dev/null; then
                gone=1
                break
        fi
        sleep 0.2
done
[ -n "$gone" ] || die "the job's daemon (pid $(cat "$T/daemon.pid")) survived job $job: $(js exec slurmd/0 -- ps -o pid,args -C sleep)"
js exec slurmd/0 -- sh -c "ls -d /sys/fs/cgroup/freezer/slurm*/uid_0/job_$job" 2>/dev/null && die "freezer cgroup of job $job left"
log "daemon of job $job gone with the job, its freezer cgroup removed"

log "(2) --mem: over the limit the kernel kills the job, within it the job completes"
hog="import sys; x = b'x' * (int(sys.argv[1]) << 20); print(len(x))"
over=$(submit -w slurmd-0 --mem=50M -o "$T/over.out" --wrap "python3 -c \"$hog\" 200")
within=$(submit -w slurmd-0 --mem=50M -o "$T/within.out" --wrap "python3 -c \"$hog\" 10")
wait_job_state "$over" OUT_OF_MEMORY 60
wait_job_state "$within" COMPLETED 60
[ "$(cat "$T/within.out")" = $((10 << 20)) ] || die "job $within printed \"$(cat "$T/within.out")\""
log "job $over (200 MiB in --mem=50M): $(job_field "$over" JobState) exit $(job_field "$over" ExitCode); job $within (10 MiB): COMPLETED"

log "(3) --cpus-per-task pins cores"
if [ "$cpus" -lt 2 ]; then
        log "node has $cpus CPU: one cannot be told from all, (3) left out"
else
        one=$(submit -w slurmd-0 -c 1 -o "$T/one.out" --wrap "grep Cpus_allowed_list /proc/self/status")
        all=$(submit -w slurmd-0 -c "$cpus" -o "$T/all.out" --wrap "grep Cpus_allowed_list /proc/self/status")
        wait_job_state "$one" COMPLETED 30
        wait_job_state "$all" COMPLETED 30
        list=$(awk '{ print $2 }' "$T/one.out")
        [[ $list =~ ^[0-9]+$ ]] || die "-c 1: Cpus_allowed_list \"$list\", want one CPU"
        wide=$(awk '{ print $2 }' "$T/all.out")
        [ "$wide" != "$list" ] || die "-c $cpus: Cpus_allowed_list \"$wide\", the same as -c 1"
        log "-c 1: Cpus_allowed_list $list; -c $cpus: $wide"
fi

log "(4) a new cgroup.conf (upgrade-charm) restarts slurmctld and reaches slurmd"
ctl_pid=$(js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld)
printf 'MinRAMSpace=40\n' >>"$MODEL/charms/slurmctld/templates/cgroup.conf"
js trigger slurmctld upgrade-charm >/dev/null
settle
grep -qx MinRAMSpace=40 "$ctl_root/etc/slurm/cgroup.conf" || die "controller's cgroup.conf not rewritten"
[ "$(js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld)" != "$ctl_pid" ] || die "slurmctld not restarted for the new cgroup.conf"
for ((i = 0; i < 50; i++)); do
        js exec slurmd/0 -- grep -qx MinRAMSpace=40 /run/slurm/conf/cgroup.conf && break
        sleep 0.2
done
js exec slurmd/0 -- grep -qx MinRAMSpace=40 /run/slurm/conf/cgroup.conf || die "slurmd did not get the new cgroup.conf"
expect_status slurmctld/0 '^active '

log "(5) a new cgroup.conf while a job runs: an idle node gets it by the push (its slurmd restarted), the busy one after its job"
# the leader's reconfigure waits until no job holds any node, so only the push (confpush.h:
# cgroup.conf's digest is a line of slurm.conf, and HASH_VAL counts comment lines) brings it
js add-unit slurmd >/dev/null
settle 180
busy=$(submit -w slurmd-0 -o /dev/null --wrap "sleep 600")
wait_job_state "$busy" RUNNING 30
pid1=$(js exec slurmd/1 -- systemctl show -p MainPID --value slurmd)
printf 'MinRAMSpace=41\n' >>"$MODEL/charms/slurmctld/templates/cgroup.conf"
js trigger slurmctld upgrade-charm >/dev/null
settle
for ((i = 0; i < 150; i++)); do
        js exec slurmd/1 -- grep -qx MinRAMSpace=41 /run/slurm/conf/cgroup.conf && break
        sleep 0.2
done
js exec slurmd/1 -- grep -qx MinRAMSpace=41 /run/slurm/conf/cgroup.conf || die "the idle node did not get the new cgroup.conf while a job ran elsewhere"
[ "$(js exec slurmd/1 -- systemctl show -p MainPID --value slurmd)" != "$pid1" ] || die "slurmd-1 has the file but was not restarted (it reads cgroup.conf only at its start)"
[ "$(job_field "$busy" JobState)" = RUNNING ] || die "job $busy: $(job_field "$busy" JobState), want RUNNING"
! js exec slurmd/0 -- grep -qx MinRAMSpace=41 /run/slurm/conf/cgroup.conf || die "the busy node was given the new cgroup.conf under its job"
ctl scancel "$busy"
for ((i = 0; i < 300; i++)); do
        js exec slurmd/0 -- grep -qx MinRAMSpace=41 /run/slurm/conf/cgroup.conf && break
        sleep 0.2
done
js exec slurmd/0 -- grep -qx MinRAMSpace=41 /run/slurm/conf/cgroup.conf || die "the node did not get the new cgroup.conf after its job"
log "ok"
