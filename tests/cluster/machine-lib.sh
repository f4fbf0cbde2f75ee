# SPDX-License-Identifier: Apache-2.0
# Shared setup for the juju-sim machine tests: skip unless root, a throwaway model dir, the
# juju-sim-machine driver, and a cleanup that destroys every machine of the model on exit.
#
# Source it; it installs `trap machine_cleanup EXIT`. Sets: JSM (the driver), MODEL (model dir),
# T (temp dir). Every model is written to the ledger ($LEDGER) first, so that the after-suite
# check (machine-leftovers.sh) can prove its bridge and cgroups are gone.

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() {
        log "FAIL: $*"
        exit 1
}
skip() {
        log "SKIP: $*"
        exit 77
}

[ "$(id -u)" = 0 ] || skip "not root"
for prog in ip /usr/lib/systemd/systemd busctl systemctl; do
        command -v "$prog" >/dev/null 2>&1 || skip "$prog missing"
done
JSM=${JSM:-${TOP_BUILDDIR:?}/tools/juju-sim/juju-sim-machine}
[ -x "$JSM" ] || die "no driver at $JSM"
LEDGER=${LEDGER:-${TOP_BUILDDIR}/tests/cluster/machines-ledger}

T=$(mktemp -d /tmp/jsim-cluster.XXXXXX)
MODEL=$T/${MODEL_NAME:-${0##*/}}
MODEL=${MODEL%.sh}
mkdir -p "$MODEL"
mkdir -p "$(dirname "$LEDGER")"
# shellcheck disable=SC2046
printf '%s %s\n' "$MODEL" "$("$JSM" names "$MODEL" | tr '\n' ' ')" >>"$LEDGER"

machine_cleanup() {
        local rc=$?
        set +e # errexit holds in traps too: a failing step must not end the cleanup
        if [ -n "${KEEP:-}" ]; then
                log "KEEP set: model left at $MODEL"
                return
        fi
        "$JSM" destroy-all "$MODEL" 2>/dev/null || { log "destroy-all failed"; rc=1; }
        rm -rf "$T"
        # safety net: what a failed destroy-all left is an orphan now (gc spares existing models)
        "$JSM" gc >/dev/null 2>&1
        exit $rc
}
trap machine_cleanup EXIT

# mx ID CMD...: runs CMD in machine ID (60 s cap).
mx() {
        local id=$1
        shift
        "$JSM" exec "$MODEL" "$id" --timeout 60 -- "$@"
}

# wait_for SECONDS CMD...: runs CMD every 0.1 s until it succeeds; 1 after SECONDS.
wait_for() {
        local limit=$1 i
        shift
        for ((i = 0; i < limit * 10; i++)); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.1
        done
        return 1
}

# field ID N: the Nth word of machine ID's line in `list` (2 hostname, 3 address, 4 pid).
field() {
        "$JSM" list "$MODEL" | awk -v id="$1" -v n="$2" '$1 == id { print $n }'
}

# --- Slurm on machines (used by machine-slurm.sh and scale.sh) -------------------------------

# munge_up ID KEYFILE: installs the key in machine ID and starts Debian's munge.service there.
munge_up() {
        mx "$1" sh -c 'cat > /etc/munge/munge.key && chown munge:munge /etc/munge/munge.key &&
                chmod 0400 /etc/munge/munge.key' <"$2" || return 1
        mx "$1" systemctl start munge.service || return 1
        mx "$1" systemctl is-active -q munge.service
}

# slurmctld_up ID MAXNODES: a configless controller with dynamic nodes on machine ID, started
# with the packaged slurmctld.service.
slurmctld_up() {
        local host addr
        host=$(field "$1" 2) addr=$(field "$1" 3)
        mx "$1" sh -c 'cat > /etc/slurm/slurm.conf' <<CONF || return 1
ClusterName=jsim
SlurmctldHost=$host($addr)
AuthType=auth/munge
SlurmctldParameters=enable_configless
SelectType=select/cons_tres
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup,task/affinity
MpiDefault=none
MaxNodeCount=${2:-100}
# dynamic nodes are not in the compute nodes' config: no message forwarding between them
TreeWidth=${2:-100}
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeSet=ns1 Feature=ns1
PartitionName=ns1 Nodes=ns1 Default=YES State=UP
CONF
        # served to the slurmd (configless) with slurm.conf
        mx "$1" sh -c 'printf "%s\n" ConstrainCores=yes ConstrainRAMSpace=yes ConstrainSwapSpace=yes \
                ConstrainDevices=yes > /etc/slurm/cgroup.conf' || return 1
        mx "$1" systemctl start slurmctld.service || return 1
        wait_for 30 mx "$1" scontrol ping
}

# slurmd_up ID CTLADDR: a configless dynamic slurmd on machine ID via the packaged
# slurmd.service, a drop-in clearing its ConditionPathExists and /etc/default/slurmd.
slurmd_up() {
        mx "$1" sh -c "mkdir -p /etc/systemd/system/slurmd.service.d &&
                printf '[Unit]\nConditionPathExists=\n' > /etc/systemd/system/slurmd.service.d/configless.conf &&
                printf '%s\n' \"SLURMD_OPTIONS=\\\"-Z --conf-server $2:6817 --conf 'CPUs=1 RealMemory=100 Feature=ns1'\\\"\" \
                        > /etc/default/slurmd &&
                systemctl daemon-reload && systemctl start slurmd.service" || return 1
        mx "$1" systemctl is-active -q slurmd.service
}

# idle_nodes ID: how many nodes machine ID's controller reports idle.
idle_nodes() {
        mx "$1" sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l
}

# idle_at_least ID N: succeeds when machine ID's controller reports at least N idle nodes.
idle_at_least() {
        [ "$(idle_nodes "$1")" -ge "$2" ]
}

# leftovers_of MODEL BRIDGE CGROUP VETH_PREFIX: prints what is left of a model (nothing when clean),
# its registry entry included (machine.h).
leftovers_of() {
        local model=$1 bridge=$2 cgroup=$3 veth=$4 p
        ip link show "$bridge" >/dev/null 2>&1 && echo "bridge $bridge"
        ip -o link | grep -o "${veth}[0-9]*" | sed 's/^/veth /'
        # the v1 controller ones sit below the creator's cgroup (machine-cgroup.c)
        find /sys/fs/cgroup/ -maxdepth 5 -type d -name "$cgroup" 2>/dev/null | sed 's/^/cgroup /'
        # zombies are left out: their reaper (the host's PID 1) collects them on its own time
        for p in /proc/[0-9]*; do
                grep -qs '^State:.*Z' "$p/status" && continue
                if grep -qs -- "$cgroup" "$p/cgroup" || { tr '\0' ' ' <"$p/cmdline" | grep -q -- "$model"; } 2>/dev/null; then
                        echo "process ${p#/proc/}: $( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null)"
                fi
        done
        grep -F -- "$model" /proc/self/mountinfo | sed 's/^/mount /'
        [ -e "$model/machines" ] && echo "dir $model/machines"
        [ -e "/run/juju-sim/models/${cgroup#jsim-}" ] && echo "registry entry /run/juju-sim/models/${cgroup#jsim-}"
        return 0
}
