# SPDX-License-Identifier: Apache-2.0
# A throwaway Slurm cluster on loopback for the libslurm adapter tests: munged, slurmctld and one
# configless dynamic slurmd (in a private mount namespace), all torn down by cluster_down.
#
# Source this file, then call cluster_up; install `trap cluster_down EXIT` first. Sets:
#   T (temp dir), SLURM_CONF (exported), CTL_PORT, NODE (the dynamic node's name), SLURM_USER.
# slurmctld runs as SlurmUser=slurm, as the charm's slurm.conf has it (templates/slurm.conf):
# what only SlurmUser may do (set triggers) must fail as root here too, not be hidden by a
# SlurmUser=root test cluster. slurmd runs as root (SlurmdUser=root, as in production).
# Every process it starts is recorded by pid in $T/pids; cluster_down kills exactly those, plus
# the processes (slurmstepd, jobs) in the running slurmd's private mount namespace.

# Ports: the first two free TCP ports from 16817 up (another test may hold 16817 right now).
port_free() { [ -z "$(ss -Htln "sport = :$1" 2>/dev/null)" ]; }
pick_ports() {
        local p=${1:-16817} n=0
        CTL_PORT= SLURMD_PORT=
        for ((; p < 16917; p++)); do
                port_free "$p" || continue
                if [ -z "$CTL_PORT" ]; then CTL_PORT=$p; else SLURMD_PORT=$p; return 0; fi
        done
        return 1
}
NODE=${NODE:-testnode1}
SLURM_USER=slurm
# The Slurm generation installed here (lib/slurm/caps.h): munge up to 23.02, Slurm's own auth
# (auth/slurm: a key file next to slurm.conf, tokens from the daemons' sack sockets under /run)
# from 23.11 on. Run auth/slurm tests in a private /run (tools/rootfs/run.sh gives one).
slurm_auth() {
        local v
        v=$(slurmctld -V 2>/dev/null | awk '{print $2}')
        case $v in
        2[3-9].1[1-2]* | 2[4-9].* | [3-9][0-9].*) echo slurm ;;
        *) echo munge ;;
        esac
}
SLURM_AUTH=$(slurm_auth)
T=
SLURMD_PID=

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() {
        log "FAIL: $*"
        exit 1
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

record_pid() { echo "$1 $2" >>"$T/pids"; }

cluster_up() {
        T=$(mktemp -d /tmp/slurm-adapters.XXXXXX) || die "mktemp"
        pick_ports || die "no free port pair in 16817..16916"
        log "ports: slurmctld $CTL_PORT, slurmd $SLURMD_PORT"
        chmod 755 "$T"
        id "$SLURM_USER" >/dev/null 2>&1 || die "no user $SLURM_USER (the slurmctld package makes it)"
        mkdir -p "$T/state" "$T/spool" "$T/log" "$T/out" "$T/run"
        # slurmctld drops to SlurmUser: its state, log and pid file are that user's
        chown "$SLURM_USER:" "$T/state" "$T/log" "$T/run" "$T/out"
        : >"$T/pids"

        local auth_lines
        if [ "$SLURM_AUTH" = slurm ]; then
                # Slurm's own auth: the key next to slurm.conf, SlurmUser's, no bits for others;
                # slurmctld's sack socket in /run/slurmctld (which must be this namespace's)
                [ "$(stat -c %d:%i /run)" != "$(stat -c %d:%i /proc/1/root/run 2>/dev/null)" ] ||
                        die "auth/slurm needs a private /run (run this test through tools/rootfs/run.sh)"
                dd if=/dev/urandom of="$T/slurm.key" bs=1024 count=1 status=none
                chown "$SLURM_USER:" "$T/slurm.key"
                chmod 0400 "$T/slurm.key"
                install -d -o "$SLURM_USER" -g "$SLURM_USER" /run/slurmctld
                auth_lines="AuthType=auth/slurm
CredType=cred/slurm"
        else
                # munge: own key, own socket, foreground so that its pid is ours.
                dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none
                chmod 0400 "$T/munge.key"
                munged --foreground --force --socket="$T/munge.socket" --key-file="$T/munge.key" \
                        --pid-file="$T/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munged.seed" \
                        >>"$T/log/munged.err" 2>&1 &
                record_pid munged $!
                wait_for 10 test -S "$T/munge.socket" || die "munged did not create its socket"
                auth_lines="AuthType=auth/munge
AuthInfo=socket=$T/munge.socket
CredType=cred/munge"
        fi

        local host
        host=$(hostname)
        cat >"$T/slurm.conf" <<EOF
ClusterName=test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTL_PORT
SlurmdPort=$SLURMD_PORT
$auth_lines
SlurmUser=$SLURM_USER
SlurmdUser=root
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MaxNodeCount=10
SlurmctldParameters=enable_configless
# linuxproc and task/none here, unlike the charm's template (cgroup): this slurmd runs on the
# host, not in a juju-sim machine with a cgroup tree of its own, and cgroup plugins would make
# their slurm_<node> cgroups in the host's hierarchies (the adapters do not depend on them)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmdTimeout=30
InactiveLimit=0
KillWait=1
MinJobAge=2
JobRequeue=1
NodeSet=ns1 Feature=ns1
PartitionName=ns1 Nodes=ns1 Default=YES State=UP
EOF
        export SLURM_CONF="$T/slurm.conf"

        slurmctld -D -i -f "$T/slurm.conf" >>"$T/log/slurmctld.out" 2>&1 &
        record_pid slurmctld $!
        wait_for 20 scontrol ping || die "slurmctld did not answer: $(tail -5 "$T/log/slurmctld.log" 2>/dev/null)"

        start_slurmd
}

# start_slurmd [CONF]: starts the dynamic node (default conf "CPUs=2 RealMemory=500 Feature=ns1").
# Configless (no slurm.conf on its side), in a private mount namespace with its own /run (so that
# its /run/slurm/conf cache link and pid files stay out of the host's /run) and an empty
# /etc/slurm (so that clients in there find the config the configless way). 22.05's slurmd has
# no --authinfo: before it has the config it talks to munged through the default socket, which
# is linked to ours inside the namespace. With auth/slurm, configless does not carry the key:
# it is copied to the node's /etc/slurm, where slurmd looks before it has a slurm.conf.
start_slurmd() {
        local conf=${1:-"CPUs=2 RealMemory=500 Feature=ns1"}
        unshare --mount --propagation private sh -c '
                set -e
                mount -t tmpfs tmpfs /run
                mount -t tmpfs tmpfs /etc/slurm
                if [ -e "$1/slurm.key" ]; then
                        cp -p "$1/slurm.key" /etc/slurm/slurm.key
                        # the packaged unit'"'"'s RuntimeDirectory=slurm: the configless cache
                        # (/run/slurm/conf) and the sack socket go there
                        mkdir -p /run/slurm
                else
                        mkdir -p /run/munge
                        ln -s "$1/munge.socket" /run/munge/munge.socket.2
                fi
                unset SLURM_CONF
                exec slurmd -D -Z --conf-server "127.0.0.1:$2" --conf "$4" -N "$3"' \
                sh "$T" "$CTL_PORT" "$NODE" "$conf" >>"$T/log/slurmd.out" 2>&1 &
        SLURMD_PID=$!
        record_pid slurmd $SLURMD_PID
        wait_for 5 test -e "/proc/$SLURMD_PID/exe" || die "slurmd did not start"
        wait_for 5 sh -c "readlink /proc/$SLURMD_PID/exe | grep -q slurmd" || die "slurmd did not exec"
}

# node_ns_pids: the pids in the running slurmd's private mount namespace other than slurmd itself
# (slurmstepd, job processes, nsenter'ed clients). Only asked while slurmd lives, so the
# namespace is surely ours (a freed namespace's inode number may be reused by someone else's).
node_ns_pids() {
        local ns p
        [ -n "$SLURMD_PID" ] && kill -0 "$SLURMD_PID" 2>/dev/null || return 0
        ns=$(readlink "/proc/$SLURMD_PID/ns/mnt" 2>/dev/null) || return 0
        case $ns in mnt:*) ;; *) return 0 ;; esac
        [ "$ns" = "$(readlink /proc/self/ns/mnt)" ] && return 0
        for p in /proc/[0-9]*; do
                [ "${p#/proc/}" = "$SLURMD_PID" ] && continue
                [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/} $ns"
        done
}

# kill_ns_pids LIST: SIGKILL each "pid ns" of LIST that is still in that namespace.
kill_ns_pids() {
        local pid ns
        while read -r pid ns; do
                [ -n "$pid" ] || continue
                [ "$(readlink "/proc/$pid/ns/mnt" 2>/dev/null)" = "$ns" ] || continue
                log "leftover process $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)) in the node namespace: SIGKILL"
                kill -KILL "$pid" 2>/dev/null
        done <<<"$1"
}

# stop_slurmd: stops the dynamic node's slurmd (its node record stays in slurmctld).
stop_slurmd() {
        local left
        left=$(node_ns_pids)
        kill -TERM "$SLURMD_PID" 2>/dev/null
        wait_for 10 sh -c "! kill -0 $SLURMD_PID" || die "slurmd $SLURMD_PID did not stop"
        wait "$SLURMD_PID" 2>/dev/null
        kill_ns_pids "$left"
}

# in_node CMD...: runs CMD inside the dynamic node's mount namespace, without SLURM_CONF.
in_node() {
        # --root: the node's root, also when the test runs chrooted (tools/rootfs/run.sh)
        nsenter --target "$SLURMD_PID" --mount --root env -u SLURM_CONF "$@"
}

cluster_down() {
        local rc=$? name pid left i alive f
        set +e +u
        if [ -z "$T" ] || [ ! -d "$T" ]; then
                exit $rc
        fi
        if [ $rc -ne 0 ]; then
                for f in slurmctld.log slurmd.log slurmd.out slurmctld.out; do
                        [ -s "$T/log/$f" ] && { log "--- $f (tail)"; tail -n 25 "$T/log/$f" >&2; }
                done
        fi
        # Jobs first (their slurmstepd would otherwise outlive slurmd), then the daemons.
        [ -n "$SLURM_CONF" ] && timeout 5 scancel --full --quiet --partition=ns1 >/dev/null 2>&1
        left=$(node_ns_pids)
        tac "$T/pids" | while read -r name pid; do
                kill -TERM "$pid" 2>/dev/null
        done
        for ((i = 0; i < 50; i++)); do
                alive=0
                while read -r name pid; do
                        kill -0 "$pid" 2>/dev/null && alive=1
                done <"$T/pids"
                [ $alive = 0 ] && break
                sleep 0.1
        done
        while read -r name pid; do
                kill -0 "$pid" 2>/dev/null && { log "$name ($pid) ignored SIGTERM: SIGKILL"; kill -KILL "$pid"; }
        done <"$T/pids"
        # slurmstepd (and job processes) left in the node's mount namespace.
        kill_ns_pids "$left"
        wait 2>/dev/null
        # Verify: none of our daemons remains.
        while read -r name pid; do
                if kill -0 "$pid" 2>/dev/null; then
                        log "FAIL: $name ($pid) still running after teardown"
                        rc=1
                fi
        done <"$T/pids"
        rm -rf "$T"
        exit $rc
}
