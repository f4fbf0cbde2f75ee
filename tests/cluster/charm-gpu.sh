#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 12: GPU nodes with real daemons and fake NVIDIA devices (juju-sim --gpus N: character
# devices of the NVIDIA major with no driver) next to CPU nodes in one cluster. gres.conf gets
# one line per device scoped to its node; the GPU node registers IDLE with gpu:N (without the
# lines it would be INVALID_REG and take no job); srun --gres=gpu:K gets CUDA_VISIBLE_DEVICES;
# more GPUs than the node has, or a GPU on a CPU partition, is refused by Slurm; a GPU unit
# added later starts slurmd only once the controller serves its lines; its lines go with it;
# bad gpu-devices relation data blocks the controller naming the unit and changes nothing;
# with cgroup confinement (ConstrainDevices) a job opens only the GPUs it was given.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

gres_lines() { ctl sh -c 'grep -v "^#" /etc/slurm/gres.conf || true'; }
node_field() { ctl scontrol -o show node "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js deploy "$SLURMD_CHARM" gpu --gpus 2 >/dev/null
js integrate slurmctld cpu >/dev/null
js integrate slurmctld gpu >/dev/null
settle 240
expect_status slurmctld/0 '^active 2 nodes in 2 partitions$'
expect_status gpu/0 '^active idle$'
want=$'NodeName=gpu-0 Name=gpu File=/dev/nvidia0\nNodeName=gpu-0 Name=gpu File=/dev/nvidia1'
[ "$(gres_lines)" = "$want" ] || die "gres.conf: $(gres_lines)"
[ "$(node_field gpu-0 Gres)" = gpu:2 ] || die "gpu-0 Gres=$(node_field gpu-0 Gres)"
[[ $(node_field gpu-0 State) == IDLE* && $(node_field gpu-0 State) != *INVALID* ]] ||
        die "gpu-0 State=$(node_field gpu-0 State)"
[ "$(node_field cpu-0 Gres)" = "(null)" ] || die "cpu-0 Gres=$(node_field cpu-0 Gres)"
# the CPU node's machine has no such devices at all (its /dev is the host's)
js exec cpu/0 -- sh -c 'ls /dev/nvidia0' 2>/dev/null && die "cpu/0 sees /dev/nvidia0"

log "jobs: GPUs given as asked, refused beyond what exists"
out=$(ctl srun -p gpu --gres=gpu:1 sh -c 'echo "CVD=$CUDA_VISIBLE_DEVICES"')
[ "$out" = CVD=0 ] || die "gres=gpu:1: $out"
out=$(ctl srun -p gpu --gres=gpu:2 sh -c 'echo "CVD=$CUDA_VISIBLE_DEVICES"')
[ "$out" = CVD=0,1 ] || die "gres=gpu:2: $out"
# ConstrainDevices (cgroup.conf): a job opens only its own GPUs. The fake devices have no
# driver: an allowed open fails with ENXIO ("No such device or address"), a denied one with
# EPERM from the job's devices cgroup ("Operation not permitted")
try_open='for d in /dev/nvidia0 /dev/nvidia1; do if cat $d 2>/tmp/e; then echo "$d open"; else echo "$d $(sed "s/.*: //" /tmp/e)"; fi; done'
out=$(ctl srun -p gpu --gres=gpu:1 sh -c "$try_open")
[ "$out" = $'/dev/nvidia0 No such device or address\n/dev/nvidia1 Operation not permitted' ] || die "gres=gpu:1 devices: $out"
out=$(ctl srun -p gpu sh -c "$try_open")
[ "$out" = $'/dev/nvidia0 Operation not permitted\n/dev/nvidia1 Operation not permitted' ] || die "no gres, devices: $out"
out=$(ctl srun -p gpu --gres=gpu:2 sh -c "$try_open")
[ "$out" = $'/dev/nvidia0 No such device or address\n/dev/nvidia1 No such device or address' ] || die "gres=gpu:2 devices: $out"
out=$(ctl srun -p gpu --gres=gpu:3 true 2>&1) && die "gres=gpu:3 ran: $out"
grep -q "Requested node configuration is not available" <<<"$out" || die "gres=gpu:3: $out"
out=$(ctl srun -p cpu --gres=gpu:1 true 2>&1) && die "a GPU on the cpu partition ran: $out"
out=$(ctl srun -p cpu hostname)
[ "$out" = "$(js status --format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["machines"]["1"]["hostname"])')" ] ||
        die "cpu job: $out"

log "a GPU unit added later: gres.conf first, then slurmd"
js add-unit gpu --gpus 1 >/dev/null
settle 240
expect_status gpu/1 '^active idle$'
want2=$'NodeName=gpu-0 Name=gpu File=/dev/nvidia0\nNodeName=gpu-0 Name=gpu File=/dev/nvidia1\nNodeName=gpu-1 Name=gpu File=/dev/nvidia0'
[ "$(gres_lines)" = "$want2" ] || die "gres.conf after add-unit: $(gres_lines)"
[ "$(node_field gpu-1 Gres)" = gpu:1 ] || die "gpu-1 Gres=$(node_field gpu-1 Gres)"
[[ $(node_field gpu-1 State) != *INVALID* ]] || die "gpu-1 State=$(node_field gpu-1 State)"
# slurmd started with its lines served: never registered short of GPUs, never dropped a file-less GPU
n=$(ctl grep -c 'gres/gpu count reported lower' /var/log/slurm/slurmctld.log || true)
[ "$n" = 0 ] || die "slurmctld saw a GPU node register without its gres.conf lines ($n times)"
js exec gpu/1 -- grep -q 'file-less GPU' /var/log/slurm/slurmd.log && die "gpu/1's slurmd started without its lines"
out=$(ctl srun -p gpu -w gpu-1 --gres=gpu:1 sh -c 'echo "CVD=$CUDA_VISIBLE_DEVICES"')
[ "$out" = CVD=0 ] || die "gpu-1 gres=gpu:1: $out"

log "bad gpu-devices data from the relation: blocked naming the unit, nothing rendered"
before=$(ctl cat /etc/slurm/gres.conf)
# inject VALUE STATUS: gpu/1's gpu-devices set to VALUE until the controller says STATUS. The
# unit's own hooks publish its real devices again: one that a new slurm.conf hash from the leader
# runs right after the injection undoes it, so the injection is tried again, 3 times at most.
inject() {
        local i
        for i in 1 2 3; do
                js exec gpu/1 -- sh -c 'relation-set -r "$(relation-ids slurmctld)" gpu-devices="$1"' sh "$1"
                settle
                status_is slurmctld/0 "$2" && break
                log "  (try $i: the controller saw the unit's own data again: $(unit_status slurmctld/0))"
        done
        expect_status slurmctld/0 "$2"
}
inject '["/etc/passwd"]' '^blocked gpu/1: gpu-devices: "/etc/passwd" is not a device file path under /dev'
[ "$(ctl cat /etc/slurm/gres.conf)" = "$before" ] || die "gres.conf changed on bad data"
inject 'not json' '^blocked gpu/1: gpu-devices: not a JSON list'
# the unit's own next hook publishes its real devices again
js trigger gpu/1 update-status >/dev/null
settle
expect_status slurmctld/0 '^active 3 nodes in 2 partitions$'
[ "$(ctl cat /etc/slurm/gres.conf)" = "$before" ] || die "gres.conf after the repair"

log "the unit leaves: its lines go"
js remove-unit gpu/1 >/dev/null
settle 120
[ "$(gres_lines)" = "$want" ] || die "gres.conf after remove-unit: $(gres_lines)"
node_exists gpu-1 && die "node gpu-1 still there"
out=$(ctl srun -p gpu --gres=gpu:2 sh -c 'echo "CVD=$CUDA_VISIBLE_DEVICES"')
[ "$out" = CVD=0,1 ] || die "gres=gpu:2 after the removal: $out"
log "ok"
