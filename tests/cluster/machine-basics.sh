#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Two juju-sim machines: hostname, address, private paths and a private root, ping between them, the machine's
# systemd reached as the system manager (systemctl, busctl --system), then destroy leaves nothing
# (also of a machine with a frozen process).
set -u
. "$(dirname "$0")/machine-lib.sh"

mountinfo_before=$(cut -d' ' -f5 /proc/self/mountinfo | sort)
"$JSM" create "$MODEL" 0 >/dev/null || die "create 0"
"$JSM" create "$MODEL" 1 >/dev/null || die "create 1"
h0=$(field 0 2) a0=$(field 0 3) h1=$(field 1 2) a1=$(field 1 3) pid1=$(field 1 4)
[ -n "$h0" ] && [ -n "$a1" ] || die "list: $("$JSM" list "$MODEL")"

# hostname and address
[ "$(mx 0 hostname)" = "$h0" ] || die "hostname of 0 is not $h0"
[ "$(mx 1 hostname)" = "$h1" ] || die "hostname of 1 is not $h1"
mx 1 ip -4 -o addr show dev eth0 | grep -q "inet $a1/24" || die "machine 1 has no $a1 on eth0"
mx 1 getent hosts "$h0" | grep -q "^$a0 " || die "machine 1 cannot resolve $h0"
# TCP between machines: a socket-activated responder in machine 0, a client in machine 1
mx 0 systemd-run -q -u jsim-pong systemd-socket-activate -l 7000 -a --inetd /bin/echo pong ||
        die "cannot start the responder in machine 0"
wait_for 10 mx 0 bash -c 'exec 3<>/dev/tcp/127.0.0.1/7000' || die "responder in machine 0 not listening"
reply=$(mx 1 timeout 5 bash -c "exec 3<>/dev/tcp/$h0/7000 && cat <&3") || die "machine 1 cannot connect to $h0:7000"
[ "$reply" = pong ] || die "machine 1 got \"$reply\" from machine 0"
# no route off the machine, and none from the host to the machines
mx 0 ip route get 8.8.8.8 >/dev/null 2>&1 && die "machine 0 has a route off the machine"
br=$("$JSM" names "$MODEL" | sed -n 's/^bridge=//p')
ip route get "$a0" 2>/dev/null | grep -q "dev $br" && die "the host routes to machine 0 over $br"
ip -o addr show dev "$br" | grep -q inet && die "the bridge has an address"

[ -z "$(mx 0 ls -A /etc/munge)" ] || die "/etc/munge does not start empty"
# private paths: a file in one machine's /etc/slurm is not seen by the other nor the host
for p in /etc/slurm /etc/munge /etc/default /etc/systemd/system /var/lib/slurm /var/log /var/spool /run /tmp /dev/shm /srv /mnt; do
        f="$p/jsim-basics-probe"
        mx 0 sh -c "echo x > $f" || die "cannot write $f in machine 0"
        mx 1 test -e "$f" && die "$f of machine 0 is visible in machine 1"
        [ -e "$f" ] && die "$f of machine 0 is visible on the host"
done
# the rest of the machine's "/" is its own too (issue 30 §1: an overlay over the host's tree): a
# write anywhere reaches neither the host nor the other machine, and the host's files show
for p in /etc /root /opt /usr/local/lib /var/tmp /var/lib; do
        f="$p/jsim-basics-probe-$$"
        mx 0 sh -c "echo x > $f" || die "cannot write $f in machine 0"
        mx 1 test -e "$f" && die "$f of machine 0 is visible in machine 1"
        [ -e "$f" ] && die "$f of machine 0 is visible on the host"
done
passwd_before=$(sha256sum /etc/passwd | cut -d" " -f1)
mx 0 sh -c 'echo "jsimprobe:x:4242:4242::/nonexistent:/usr/sbin/nologin" >> /etc/passwd' || die "append to /etc/passwd in machine 0"
[ "$(mx 0 id -u jsimprobe)" = 4242 ] || die "machine 0 does not see its own user"
mx 1 id jsimprobe >/dev/null 2>&1 && die "machine 1 sees machine 0's user"
[ "$(sha256sum /etc/passwd | cut -d" " -f1)" = "$passwd_before" ] || die "machine 0's write changed the host's /etc/passwd"
[ "$(mx 1 sha256sum /etc/passwd | cut -d" " -f1)" = "$passwd_before" ] || die "machine 1's /etc/passwd is not the host's"
mx 0 test -e /etc/default/slurmd || die "/etc/default/slurmd not seeded"
# the machine sees its own processes only
[ "$(mx 0 sh -c 'ps -e -o pid= | wc -l')" -lt 20 ] || die "machine 0 sees too many processes"

# systemd as the machine's system manager, with no environment tricks
state=$(mx 0 systemctl is-system-running) || die "is-system-running: $state"
[ "$state" = running ] || die "is-system-running says $state"
mx 0 systemctl status --no-pager >/dev/null || die "systemctl status"
mx 0 busctl --system list | grep -q org.freedesktop.systemd1 || die "busctl --system does not list systemd1"
mx 0 busctl --system get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 \
        org.freedesktop.systemd1.Manager Version >/dev/null || die "busctl --system get-property"
mx 0 systemctl cat slurmd.service >/dev/null || die "packaged slurmd.service not visible"
# a unit and a drop-in under /etc/systemd/system
mx 0 sh -c 'printf "[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n" > /etc/systemd/system/jsim-demo.service
        mkdir -p /etc/systemd/system/jsim-demo.service.d
        printf "[Unit]\nDescription=from a drop-in\n" > /etc/systemd/system/jsim-demo.service.d/d.conf
        systemctl daemon-reload && systemctl start jsim-demo' || die "start a unit from /etc/systemd/system"
[ "$(mx 0 systemctl show -P Description jsim-demo)" = "from a drop-in" ] || die "drop-in not applied"
mx 1 systemctl cat jsim-demo.service >/dev/null 2>&1 && die "machine 1 sees machine 0's unit"

# a shared directory at one path in two machines
mkdir -p "$T/share"
"$JSM" create "$MODEL" 2 --share "$T/share:/var/lib/slurm/shared" >/dev/null || die "create 2 with a share"
"$JSM" create "$MODEL" 3 --share "$T/share:/var/lib/slurm/shared" >/dev/null || die "create 3 with a share"
mx 2 sh -c 'echo hello > /var/lib/slurm/shared/f' || die "write to the share"
[ "$(mx 3 cat /var/lib/slurm/shared/f)" = hello ] || die "machine 3 does not see the share"
[ "$(cat "$T/share/f")" = hello ] || die "the host does not see the share"
mx 0 test -e /var/lib/slurm/shared/f && die "machine 0 sees a share it was not given"
# under /srv (where a site mounts a shared file system): the mount point is the machine's own,
# nothing appears on the host, and a machine without the share has its own empty /srv
[ -e /srv/jsim-basics-share ] && die "/srv/jsim-basics-share on the host before the test"
"$JSM" create "$MODEL" 4 --share "$T/share:/srv/jsim-basics-share" >/dev/null || die "create 4 with a share under /srv"
[ "$(mx 4 cat /srv/jsim-basics-share/f)" = hello ] || die "machine 4 does not see the share under /srv"
[ -e /srv/jsim-basics-share ] && die "the share's mount point was made on the host"
mx 0 test -e /srv/jsim-basics-share && die "machine 0 sees machine 4's mount point"
"$JSM" destroy "$MODEL" 4 || die "destroy 4"

# a host file system mounted below "/" (a separate /home, /opt, /var) shows in a machine of the
# host's base, whose overlay's lower layer is one file system only (review M1)
sub=/var/tmp/jsim-basics-sub.$$
mkdir -p "$sub" && mount -t tmpfs -o size=1m jsimsub "$sub" && echo from-host >"$sub/f" || die "host submount"
sub_out=$("$JSM" create "$MODEL" 5 >/dev/null 2>&1 && mx 5 cat "$sub/f" 2>&1)
"$JSM" destroy "$MODEL" 5 >/dev/null 2>&1
umount "$sub" && rmdir "$sub"
[ "$sub_out" = from-host ] || die "a host submount is not seen in a machine: \"$sub_out\""

# a machine whose processes a test froze in a v1 freezer cgroup of its own (charm-accounting's
# wedged slurmdbd) is destroyed like a real one: a frozen task takes SIGKILL only once thawed
fz=/sys/fs/cgroup/freezer/jsim-basics-frozen
if mx 1 test -e /sys/fs/cgroup/freezer/cgroup.procs; then
        mx 1 sh -c "mkdir $fz && { sleep 600 </dev/null >/dev/null 2>&1 & echo \$! >$fz/cgroup.procs; } && echo FROZEN >$fz/freezer.state" ||
                die "cannot freeze a process in machine 1"
        wait_for 10 mx 1 grep -qx FROZEN "$fz/freezer.state" || die "machine 1's process not frozen"
        log "a process of machine 1 frozen"
fi
# destroy one: its processes, veth and dir go; the others stay
"$JSM" destroy "$MODEL" 1 || die "destroy 1"
[ -e "/proc/$pid1" ] && grep -q '^State:.*Z' "/proc/$pid1/status" 2>/dev/null || [ ! -e "/proc/$pid1" ] ||
        die "init of machine 1 still running"
mx 1 true 2>/dev/null && die "exec into a destroyed machine works"
mx 0 getent hosts "$h1" >/dev/null && die "hosts still lists the destroyed machine"
"$JSM" destroy "$MODEL" 1 || die "destroy is not idempotent"
mx 0 true || die "machine 0 died with machine 1"

eval "$("$JSM" names "$MODEL")"
"$JSM" destroy-all "$MODEL" || die "destroy-all"
"$JSM" destroy-all "$MODEL" || die "destroy-all is not idempotent"
ip link show "$bridge" >/dev/null 2>&1 && die "bridge $bridge left"
ip -o link | grep -q "$veth_prefix" && die "veth left"
[ -e "/sys/fs/cgroup/unified/$cgroup" ] || [ -e "/sys/fs/cgroup/$cgroup" ] && die "cgroup $cgroup left"
[ "$(cut -d' ' -f5 /proc/self/mountinfo | sort)" = "$mountinfo_before" ] || die "host mounts changed"
log "ok"
