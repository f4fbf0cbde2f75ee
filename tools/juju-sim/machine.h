/* SPDX-License-Identifier: Apache-2.0 */
/* juju-sim machines: each unit gets a "machine" made of Linux namespaces with a real systemd
 * manager, its own hostname, address, /run, /etc/slurm, … and the host's binaries.
 *
 * What a machine is (model dir M, machine id N, H = 8 hex digits of FNV-1a(realpath(M))):
 * - A process tree rooted at a small init (PID 1 of a new PID namespace, also new mount, UTS,
 *   net and IPC namespaces). The init is a daemon (setsid, double fork) that outlives the
 *   juju-sim command that made it. It reaps orphans and runs `systemd --user` as the machine's
 *   service manager. SIGKILL to the init ends every process of the machine (the kernel kills
 *   the PID namespace), and the net namespace, its veth and the mount namespace go with it.
 *   Nothing is named: no /run/netns entry, no mount on the host.
 * - Record: M/machines/N/machine holds `key=value` lines (id, hostname, address, pid,
 *   starttime = field 22 of /proc/PID/stat, cgroup). A pid is only signalled when its start
 *   time still matches (no pid-reuse accidents). M/machines, M/machines/N and N/root are 0700,
 *   the record, the console log and the hosts lock 0600 (machine_make_private()).
 * - cgroups: what a real machine gives slurmd, a cgroup tree of its own. The init is started
 *   inside jsim-H/mN of the cgroup2 hierarchy (/sys/fs/cgroup/unified on a hybrid host,
 *   /sys/fs/cgroup on a pure cgroup2 one) and of the name=systemd v1 one, both at their root,
 *   and of the v1 controller hierarchies Slurm's cgroup/v1 plugin needs (freezer, cpuset,
 *   memory, devices, cpuacct: machine-cgroup.c) under the CALLER's cgroup there
 *   (<caller's cgroup>/jsim-H/mN: a sandboxed caller's memory limit still binds its machines;
 *   cpuset.cpus/mems copied from the parent). The machine has its own cgroup namespace rooted
 *   there, and fresh cgroup mounts under a tmpfs /sys/fs/cgroup (the host's tree detached):
 *   inside, /proc/PID/cgroup says "/" for the machine's root and /sys/fs/cgroup/<controller>
 *   is its subtree, so its systemd (init.scope, app.slice/slurmd.service…) and slurmd
 *   (slurm_<node>/uid_U/job_J/step_S: proctrack/cgroup, task/cgroup) manage their own subtrees
 *   as on a real machine, machines do not trample on one another, and destroy can kill through
 *   cgroup.kill even a machine whose record was never written (juju-sim killed mid-create).
 *   Destroy and gc find the v1 cgroups again by a bounded walk of those hierarchies. On a pure
 *   cgroup2 host the subtree is delegated instead: jsim-H enables its controllers for mN and
 *   mN for its children, and the init lives in mN/init.scope (NOT tried: no such host here).
 *   The pids and other v1 hierarchies stay the caller's.
 * - Network: one bridge per model `jsbH` with NO address on the host (IPv6 off on it), no
 *   forwarding, no NAT: there is no route from the host or off it. Subnet 10.201.X.0/24,
 *   X = H mod 250; machine N has 10.201.X.(N+10) on its eth0 (a veth whose host end is
 *   `jsvHHHHHHiN` on the bridge), and lo up. So 0 <= N <= MACHINE_ID_MAX.
 * - Hostname `juju-<model>-N`, model = model_name(M) (basename sanitized to [a-z0-9-]).
 * - Names: M/machines/hosts lists localhost and every machine of the model; it is bind-mounted
 *   read-only at /etc/hosts in every machine and rewritten in place (pwrite at 0, then
 *   ftruncate: the content only changes after the first differing line), which a bind mount
 *   follows, unlike a rename.
 * - Mounts (in the machine's namespace; / is made rprivate first, so nothing propagates back):
 *   fresh /proc (the PID namespace's), tmpfs /run (0755) and /tmp (1777); binds from
 *   M/machines/N/root/P over P for P in /etc/slurm, /etc/munge, /etc/default,
 *   /etc/systemd/system, /var/lib/slurm, /var/lib/munge, /var/lib/juju, /var/spool, /var/log.
 *   They are seeded at create from the host: /etc/default's files, /etc/slurm/plugstack.conf*,
 *   the directories under /var/lib/slurm, /var/log/{slurm,munge} (owners and modes copied);
 *   /etc/munge starts EMPTY (no key). /sys is the host's; /sys/fs/cgroup the machine's own.
 *   Shares ("HOSTDIR:PATH") are bound after those (PATH is created inside the machine's view;
 *   under a private path it stays private). /var/lib/juju is created empty on the host if
 *   missing (a mount point is needed); nothing else is created outside M.
 * - systemd: `systemd --user` run as root with XDG_RUNTIME_DIR=/run, so its private socket is
 *   /run/systemd/private (where `systemctl` as root looks in system mode), its D-Bus daemon
 *   (socket-activated, dbus-user-session) listens on /run/bus, and /run/dbus/system_bus_socket
 *   is a symlink to it: sd_bus_default_system(), `busctl --system`, `systemctl status slurmd`
 *   work unchanged. RuntimeDirectory=munge lands in /run/munge as on a real system, and
 *   User=munge is honoured (the manager is root). SYSTEMD_UNIT_PATH is
 *   /etc/systemd/system:/run/juju-sim/units: (the latter holds links to the packaged
 *   slurmd, slurmctld, slurmdbd and munge units; the trailing ':' appends the user defaults,
 *   where dbus.socket lives). XDG_CONFIG_HOME=/run/juju-sim/config (enable links stay
 *   private). The manager logs to M/machines/N/console.log; there is no journald.
 *   The init waits for the manager's READY=1 (sd_notify on a socket of its own) before it
 *   reports the machine ready.
 *
 * - Registry: /run/juju-sim/models/H holds the model dir's absolute path (one line). It is
 *   written by machine_net_ensure() (so before any bridge or cgroup of the model exists) and
 *   removed when machine_destroy_all() succeeded. /run is a tmpfs, like the machines' lifetime:
 *   nothing of either survives a host reboot. It is what machine_gc() starts from when a model
 *   dir was deleted by hand: the names above are derived from the path, so without the entry
 *   nothing leads from the cgroups and the bridge back to a model. Writers take
 *   /run/juju-sim/models.lock shared, machine_gc() exclusive (so gc never sees a model that is
 *   being registered as unregistered).
 *
 * Ownership: struct machine_info's strings are malloc'd; machine_info_clear() frees them.
 * Functions return 0 or a negative errno and append one message to err where they take one.
 * machine_spawn() changes the calling thread's pid_for_children namespace for the fork and
 * restores it: do not call it from two threads at once. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strbuf.h"
#include "util/strv.h"

#define MACHINE_ID_MAX 244u
#define MACHINE_REGISTRY_DIR "/run/juju-sim/models"
#define MACHINE_REGISTRY_LOCK "/run/juju-sim/models.lock"

struct machine_info {
        unsigned id;
        char *hostname;               /* juju-<model>-<id> */
        char *address;                /* dotted IPv4 on the model bridge */
        char *dir;                    /* <model_dir>/machines/<id> (absolute) */
        pid_t pid;                    /* the machine's init, host pid */
        unsigned long long starttime; /* /proc/PID/stat field 22 of the init */
};

void machine_info_clear(struct machine_info *m);
static inline void machine_info_clearp(struct machine_info *m) {
        machine_info_clear(m);
}
#define _cleanup_machine_info_ __attribute__((__cleanup__(machine_info_clearp)))

/* The model name used in hostnames: basename of model_dir, lowercased, every char outside
 * [a-z0-9-] turned into '-', at most 20 chars, "model" when that leaves nothing. Caller frees. */
char *model_name(const char *model_dir);

/* M/machines and what is in it are root's alone (0700 dirs, 0600 files; the hosts file, bound
 * read-only at /etc/hosts in every machine, stays 0644, and the files under M/machines/N/root keep
 * the modes the machine gives them): a machine sees the host's file system, M included, and its
 * non-root users must not read other machines' files, records or console logs. This tightens a
 * model made by an older juju-sim (idempotent); 1 when it changed a mode, 0, or a negative errno. */
int machine_make_private(const char *model_dir);

/* Registers the model (MACHINE_REGISTRY_DIR), then creates its bridge if missing (idempotent). */
int machine_net_ensure(const char *model_dir, struct strbuf *err);

/* Fake GPUs: an attachment "@gpus=N" (1..MACH_GPUS_MAX; juju-sim's `--gpus N`, standing in for
 * a cloud's GPU instance type) gives the machine its own /dev (tmpfs: null, zero, full, random,
 * urandom, tty, a devpts instance, /dev/shm, the fd links) holding /dev/nvidia0..N-1 and
 * /dev/nvidiactl: character devices of the NVIDIA major (195) with no driver behind them, so
 * opening one fails with ENXIO where a device cgroup allows it and EPERM where it denies it.
 * Other machines keep the host's /dev (no /dev/nvidia* there on these hosts). */
#define MACH_GPUS_PREFIX "@gpus="
#define MACH_GPUS_MAX 16
#define MACH_NVIDIA_MAJOR 195

/* A machine of another base: an attachment "@rootfs=DIR" (DIR absolute, a root file system such as
 * tools/rootfs/build.sh's Debian 13 tree) gives the machine an overlay of DIR (lower, never
 * written) and M/machines/N/fs/upper as its "/" (pivot_root; the host's tree is detached), with
 * the host's /dev and /sys bound in, the private paths seeded from DIR instead of the host, and
 * everything else as above (cgroups, /proc, /run, /tmp, network, the manager: DIR's own
 * systemd). Only what the attachments bind ("HOSTDIR:PATH") is seen of the host: the caller binds
 * the model dir and juju-sim's own directory at their paths. Without it a machine sees the
 * host's file system (the host's base). */
#define MACH_ROOTFS_PREFIX "@rootfs="

/* Creates machine `id` (fails with -EEXIST when a live one has that id) and returns when its
 * systemd manager is ready (bounded: 30 s). shares: NULL-terminated attachments, each
 * "HOSTDIR:PATH" (a host directory bound at PATH), "@gpus=N" or "@rootfs=DIR" (above), or NULL. On failure
 * everything made for this machine is removed again. */
int machine_create(const char *model_dir, unsigned id, char *const *shares, struct machine_info *ret,
        struct strbuf *err);

/* Reads the record of machine `id`: -ENOENT when there is none, -ESRCH when the record is there
 * but its init is gone (ret is then still filled in). */
int machine_load(const char *model_dir, unsigned id, struct machine_info *ret);

/* Lists the ids that have a record, ascending; returns their count. Caller frees *ret_ids. */
int machine_list(const char *model_dir, unsigned **ret_ids);

/* Forks a child of the CALLER inside the machine (all its namespaces, cwd or "/", the given
 * fds as 0/1/2 (-1: /dev/null), an empty signal mask) and execs argv with envp (NULL: the
 * caller's environ; argv[0] searched on envp's PATH). The child is also put in the machine's
 * cgroup. Returns 0 and *ret_pid (the caller waits for it), -ESRCH when the machine is not
 * running, or the exec errno (reported back over a close-on-exec pipe; the child is reaped). */
int machine_spawn(const struct machine_info *m, char *const argv[], char *const envp[], const char *cwd,
        int in_fd, int out_fd, int err_fd, pid_t *ret_pid);

/* machine_spawn() and wait: returns the exit status, 128+signal, or a negative errno;
 * timeout_ms > 0 kills (SIGKILL) and returns -ETIME when it expires. */
int machine_run(const struct machine_info *m, char *const argv[], char *const envp[], int in_fd, int out_fd,
        int err_fd, int timeout_ms);

/* Kills machine `id` (every process of it), waits until they are gone (bounded: 10 s), removes
 * its cgroups, its host veth if any, its hosts line and M/machines/id. Idempotent: a missing
 * machine is success. */
int machine_destroy(const char *model_dir, unsigned id, struct strbuf *err);

/* Destroys every machine of the model: the recorded ones, any process left in the model's
 * cgroups (a create cut short), then the bridge, the hosts file, M/machines and, once all of
 * that is gone, the registry entry. Works from the files and cgroups alone (after a killed
 * juju-sim, or when M itself is gone), and is idempotent. */
int machine_destroy_all(const char *model_dir, struct strbuf *err);

/* Collects orphaned models on this host, i.e. the hashes H for which
 *   - a registry entry names a dir that is gone or holds no juju-sim files (no state.json,
 *     juju-sim.json nor machines/), or
 *   - jsim-H cgroups or a jsbH bridge exist without a registry entry, and no process is left
 *     in those cgroups or none of the processes leads to an existing model dir;
 * except that a model whose machines' console logs are still open at a path inside an existing
 * model dir (a model dir moved elsewhere) is left alone. For each one: every process of its
 * cgroups is killed (cgroup.kill, else SIGKILL per pid, bounded), its cgroup trees removed
 * deepest first, its veths and bridge deleted and the registry entry dropped. An unregistered
 * model found alive is registered (adopted). A model whose dir exists is never touched.
 * Appends one line per model removed to *removed (also when a later one fails); returns the
 * number of models removed, or the first negative errno (with messages in err). Idempotent.
 * Refuses (-EPERM) inside a machine. */
int machine_gc(struct strv *removed, struct strbuf *err);

/* ---------------------------------------------------------------- capacity (machine-capacity.c)
 * What one machine costs, measured on Debian 12 (systemd 252, Slurm 22.05; README "Capacity"):
 * inotify: its `systemd --user` holds 3 instances and its D-Bus daemon 1 (12 watches in all
 * with the charms running); tasks: 2 bare, 18 on a running controller (slurmctld 9 threads,
 * munged 4, …), 9 on a compute machine, more while hooks or jobs run; memory: ~3.5 MiB of kernel
 * memory bare, 7-13 MiB Pss more with Slurm and munge running. Watches, tasks and memory are
 * given room; the inotify figure is exact (tests/cluster/charm-private.sh checks it). */
#define MACHINE_COST_INOTIFY_INSTANCES 4u
#define MACHINE_COST_INOTIFY_WATCHES 16u
#define MACHINE_COST_TASKS 64u
#define MACHINE_COST_MEMORY_MIB 64u

/* One limit a machine draws on. max, used, reserve and per_machine are in `unit` ("" or "MiB"). */
struct machine_limit {
        char *name;       /* "inotify instances" */
        char *setting;    /* where max comes from: "fs.inotify.max_user_instances", … */
        const char *unit; /* static */
        bool model_scope; /* a limit of the model (machine ids), not of the host */
        uint64_t max, used, reserve, per_machine;
        unsigned machines; /* (max - used - reserve) / per_machine, 0 when nothing is left */
};

/* The limits read now; machines is the smallest of theirs (UINT_MAX when none could be read),
 * binding the index of the limit that gives it. machine_capacity_clear() frees. */
struct machine_capacity {
        struct machine_limit *limits;
        size_t n;
        unsigned machines;
        size_t binding;
};

void machine_capacity_clear(struct machine_capacity *c);
static inline void machine_capacity_clearp(struct machine_capacity *c) {
        machine_capacity_clear(c);
}
#define _cleanup_machine_capacity_ __attribute__((__cleanup__(machine_capacity_clearp)))

/* Reads what this host has left for namespace machines, each limit a machine draws on:
 * - inotify instances and watches of the caller's euid (fs.inotify.max_user_instances and
 *   max_user_watches are per uid; everything juju-sim runs is root, every model on the host
 *   shares them): in use = the distinct inotify open files (kcmp) of the processes with that
 *   euid, from /proc/PID/fd links to anon_inode:inotify, and their "inotify wd:" fdinfo lines;
 * - tasks: the smaller of kernel.pid_max and kernel.threads-max, in use from /proc/loadavg,
 *   1024 (at most max/8) kept for the host;
 * - memory: MemTotal, in use = MemTotal - MemAvailable, 512 MiB (at most max/8) kept;
 * - on a hybrid or v1 host (machines stay in their creator's v1 pids cgroup, and their memory
 *   cgroups are children of the creator's), the tightest pids.max / memory.limit_in_bytes of
 *   the caller's cgroup and its ancestors.
 * A value that cannot be read leaves its limit out. Does not change anything. Returns 0. */
int machine_capacity(struct machine_capacity *ret);

/* Adds a limit (strings copied) and updates machines/binding. */
void machine_capacity_add(struct machine_capacity *c, const char *name, const char *setting,
        const char *unit, bool model_scope, uint64_t max, uint64_t used, uint64_t reserve,
        uint64_t per_machine);

/* Appends "SETTING=MAX, USED in use[, RESERVE kept for the host], PER per machine" (with units). */
void machine_limit_describe(const struct machine_limit *l, struct strbuf *out);

/* Names derived from model_dir (for tests and for status output). Caller frees. */
char *machine_bridge_name(const char *model_dir);
char *machine_cgroup_name(const char *model_dir); /* "jsim-H" */
