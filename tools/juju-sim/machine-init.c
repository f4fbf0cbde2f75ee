/* SPDX-License-Identifier: Apache-2.0 */
/* A machine's init: PID 1 of the machine's namespaces. Sets up its mounts and hostname, waits
 * for its network, runs `systemd --user` as the machine's manager and reaps orphans for ever. */
#include "util/macro.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/close_range.h>

#include "machine.h"
#include "machine-internal.h"
#include "util/fileio.h"
#include "util/pathres.h"

#include "util/banned.h"

#define MANAGER_PATH "/usr/lib/systemd/systemd"
#define READY_TIMEOUT_MS 30000

/* Packaged units the machine's manager may load (linked from /run/juju-sim/units). */
static const char *const packaged_units[] = {
        "slurmd.service",
        "slurmctld.service",
        "slurmdbd.service",
        "munge.service",
        "sackd.service", /* Slurm 24.11's token daemon (auth/slurm) */
        NULL,
};

static void report(int fd, int32_t code, const char *step) {
        struct mach_msg m = { .code = code };
        if (step)
                snprintf(m.step, sizeof m.step, "%s", step);
        (void) !write(fd, &m, sizeof m);
}

_noreturn_ static void fail(int fd, const char *step) {
        int e = errno > 0 ? errno : EIO;
        report(fd, -e, step);
        fprintf(stderr, "juju-sim machine init: %s: %s\n", step, strerror(e));
        _exit(1);
}

static void on_sigchld(int sig) {
}

static int bind_mount(const char *src, const char *dst, bool ro) {
        if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
                return -errno;
        if (ro && mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
                return -errno;
        return 0;
}

/* Opens a bind source as an O_PATH fd, so that the mounts made later (a tmpfs on /tmp, where
 * the model dir may live) cannot hide it; the bind then goes through /proc/self/fd/N. */
static int open_source(const char *path) {
        return open(path, O_PATH | O_CLOEXEC);
}

static int bind_fd(int fd, const char *dst, bool ro) {
        char src[64];
        snprintf(src, sizeof src, "/proc/self/fd/%d", fd);
        int r = bind_mount(src, dst, ro);
        close(fd);
        return r;
}

/* Mounts a cgroup hierarchy at dir (made): in the machine's cgroup namespace, its root is the
 * machine's own cgroup. */
static int mount_cgroup(const char *dir, const char *type, const char *opts) {
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mount("cgroup", dir, type, MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
                return -errno;
        return 0;
}

/* A v1 controller hierarchy ("memory", "cpu,cpuacct") at /sys/fs/cgroup/<name>, with a link
 * for each controller of a shared one (cpuacct -> cpu,cpuacct), as systemd lays them out. */
static int mount_v1(const char *name) {
        char dir[256];
        snprintf(dir, sizeof dir, "/sys/fs/cgroup/%s", name);
        int r = mount_cgroup(dir, "cgroup", name);
        if (r < 0 || !strchr(name, ','))
                return r;
        for (const char *p = name; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
                char link[256];
                snprintf(link, sizeof link, "/sys/fs/cgroup/%.*s", (int) strcspn(p, ","), p);
                if (symlink(name, link) < 0 && errno != EEXIST)
                        return -errno;
        }
        return 0;
}

/* Where the host's root stays attached while the binds from it are made (setup_mounts). */
#define OLD_ROOT "/.juju-sim-host"

/* Every machine's "/" is an overlay: its base's tree below (lower, never written through the
 * machine), the machine's own changes above, with the host's /dev and /sys in it.
 * - A machine of another base: lower is the cached tree, upper <machine dir>/fs/upper on disk.
 * - A machine of the host's base: lower is the host's "/" itself, seen as it is (a host file
 *   changed later shows through until the machine writes its own copy); upper and work live in
 *   a tmpfs of the machine's own mounted at <machine dir>/fs (overlayfs refuses an upper inside
 *   its lower's file system), gone with the machine. Before, such a machine wrote into the
 *   host's /etc and everything else outside its private paths (issue 30 §1: slurmctld on a
 *   machine appended a log to the host's /etc/passwd).
 * The host's root stays at OLD_ROOT until setup_mounts() has made its binds (a bind from a
 * detached mount is refused), then goes. */
#define HOST_UPPER_OPTS "mode=0700,size=2g"

/* mountinfo's octal escapes (\040 for a space) decoded in place. */
static void unescape_mountinfo(char *s) {
        char *w = s;
        for (char *r = s; *r; r++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                        r[3] <= '7') {
                        *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = '\0';
}

/* The host's file systems mounted below "/" (a separate /home, /opt, /var; a file bound over
 * /etc/resolv.conf in a container): an overlay's lower layer is one file system and shows none
 * of them, so each outermost one is bound at its path in the new root, read and written as the
 * host's, as every machine saw them before it had its own root (review M1). The machine's own
 * mounts replace /proc, /sys, /dev, /run and /tmp; its overlay's tmpfs is skipped. */
static void bind_host_submounts(const struct mach_init_args *a, const char *new_root, int up) {
        FILE *f = fopen("/proc/self/mountinfo", "re");
        if (!f)
                fail(up, "read /proc/self/mountinfo");
        static const char *const skip[] = { "/proc", "/sys", "/dev", "/run", "/tmp" };
        char line[8192], *points[256];
        size_t n = 0;
        while (fgets(line, sizeof line, f) && n < ELEMENTSOF(points)) {
                char *save = NULL, *tok = strtok_r(line, " ", &save);
                for (int i = 0; tok && i < 4; i++)
                        tok = strtok_r(NULL, " ", &save);
                if (!tok)
                        continue;
                unescape_mountinfo(tok);
                bool drop = streq(tok, "/") || path_is_below_or_same(tok, a->fs);
                for (size_t i = 0; !drop && i < ELEMENTSOF(skip); i++)
                        drop = path_is_below_or_same(tok, skip[i]);
                if (!drop)
                        points[n++] = strdup(tok);
        }
        fclose(f);
        char dst[4200];
        for (size_t i = 0; i < n; i++) {
                bool inner = false; /* below another of them: the recursive bind brings it */
                for (size_t j = 0; j < n && !inner; j++)
                        inner = j != i && !streq(points[i], points[j]) &&
                                path_is_below_or_same(points[i], points[j]);
                for (size_t j = 0; j < i && !inner; j++)
                        inner = streq(points[i], points[j]); /* stacked on one path: once */
                snprintf(dst, sizeof dst, "%s%s", new_root, points[i]);
                if (!inner && points[i] && bind_mount(points[i], dst, false) < 0)
                        fail(up, dst);
        }
        for (size_t i = 0; i < n; i++)
                free(points[i]);
}
static void enter_rootfs(const struct mach_init_args *a, int up) {
        char opts[4200], new_root[4200], step[4300];
        const char *lower = a->rootfs ? a->rootfs : "/";
        if (!a->rootfs) {
                if (mount("tmpfs", a->fs, "tmpfs", MS_NOSUID | MS_NODEV, HOST_UPPER_OPTS) < 0)
                        fail(up, "tmpfs for the machine's own files");
                static const char *const dirs[] = { "upper", "work", "new" };
                for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                        snprintf(step, sizeof step, "%s/%s", a->fs, dirs[i]);
                        if (mkdir(step, i == 0 ? 0755 : 0700) < 0 && errno != EEXIST)
                                fail(up, step);
                }
        }
        snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s/upper,workdir=%s/work", lower, a->fs, a->fs);
        snprintf(new_root, sizeof new_root, "%s/new", a->fs);
        if (mount("overlay", new_root, "overlay", 0, opts) < 0) {
                snprintf(step, sizeof step, "overlay of %s", lower);
                fail(up, step);
        }
        if (!a->rootfs)
                bind_host_submounts(a, new_root, up);
        static const char *const host[] = { "/dev", "/sys" };
        for (size_t i = 0; i < ELEMENTSOF(host); i++) {
                snprintf(step, sizeof step, "%s%s", new_root, host[i]);
                if (mkdir(step, 0755) < 0 && errno != EEXIST)
                        fail(up, step);
                if (bind_mount(host[i], step, false) < 0)
                        fail(up, step);
        }
        snprintf(step, sizeof step, "%s" OLD_ROOT, new_root);
        if (mkdir(step, 0700) < 0 && errno != EEXIST)
                fail(up, step);
        if (syscall(SYS_pivot_root, new_root, step) < 0)
                fail(up, "pivot_root");
        if (chdir("/") < 0)
                fail(up, "chdir /");
}

/* The value of the first "key=" line of a unit file's text, into buf ("" when none). */
static void unit_value(const char *text, const char *key, char *buf, size_t len) {
        size_t kl = strlen(key);
        buf[0] = '\0';
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, key, kl) == 0 && l[kl] == '=') {
                        snprintf(buf, len, "%.*s", (int) strcspn(l + kl + 1, "\n \t"), l + kl + 1);
                        return;
                }
}

/* A test bed gap, closed: the machine's manager is a user manager (run as root), which creates a
 * unit's RuntimeDirectory= owned by itself, where the system manager of a real machine gives it
 * to the unit's User= (trixie's slurmctld, User=slurm, binds its sack socket in
 * /run/slurmctld). For each packaged unit with both, a drop-in next to its link chowns the
 * directory with full privileges ("+") before the daemon starts, as a real machine has it. */
static int runtime_dir_dropin(const char *unit, const char *path) {
        _cleanup_free_ char *text = NULL;
        if (read_full_file(path, &text, NULL) < 0)
                return 0;
        char user[64], group[64], dir[128];
        unit_value(text, "User", user, sizeof user);
        unit_value(text, "Group", group, sizeof group);
        unit_value(text, "RuntimeDirectory", dir, sizeof dir);
        if (!user[0] || streq(user, "root") || !dir[0])
                return 0;
        char ddir[256], conf[300], body[512];
        snprintf(ddir, sizeof ddir, "/run/juju-sim/units/%s.d", unit);
        snprintf(conf, sizeof conf, "%s/50-juju-sim-runtime-directory.conf", ddir);
        int n = snprintf(body, sizeof body,
                "# juju-sim: what the system manager does for User= (machine-init.c)\n"
                "[Service]\nExecStartPre=+/bin/chown %s%s%s /run/%s\n",
                user, group[0] ? ":" : "", group, dir);
        if (mkdir(ddir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return write_file_atomic(conf, body, (size_t) n, 0644, (uid_t) -1, (gid_t) -1);
}

/* A test bed gap, closed: a machine here has no journald, so what a service writes to stdout
 * and stderr went nowhere (systemd falls back to /dev/null): the charm's watchers and sentinel
 * report only there, and a CI failure could not tell which of them ran the charm (charm-repair,
 * stop 37). Every service's output is appended to /var/log/juju-sim/<unit>.log instead, the
 * machine's stand-in for its journal (a type-wide drop-in: no unit here sets its own output). */
static int output_dropin(void) {
        static const char body[] = "# juju-sim: no journald on this machine (machine-init.c)\n"
                                   "[Service]\nStandardOutput=append:/var/log/juju-sim/%n.log\n"
                                   "StandardError=inherit\n";
        if (mkdir("/var/log/juju-sim", 0750) < 0 && errno != EEXIST)
                return -errno;
        if (mkdir("/run/juju-sim/units/service.d", 0755) < 0 && errno != EEXIST)
                return -errno;
        return write_file_atomic("/run/juju-sim/units/service.d/10-juju-sim-output.conf", body,
                sizeof body - 1, 0644, (uid_t) -1, (gid_t) -1);
}

/* The generators of a user's session masked (a link to /dev/null in /run, which comes before
 * /usr/lib): the machine's manager is `systemd --user`, which runs them at its start and at every
 * daemon-reload, where a real machine's system manager runs none of them (gpg-agent's and the XDG
 * autostart's took about 4 % of a test run's CPU). */
static int mask_user_generators(void) {
        static const char *const kinds[] = { "user-generators", "user-environment-generators" };
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                char src[128], dst[128];
                snprintf(src, sizeof src, "/usr/lib/systemd/%s", kinds[k]);
                snprintf(dst, sizeof dst, "/run/systemd/%s", kinds[k]);
                _cleanup_closedir_ DIR *d = opendir(src);
                if (!d)
                        continue; /* none on this base */
                if (mkdir(dst, 0755) < 0 && errno != EEXIST)
                        return -errno;
                const struct dirent *e;
                while ((e = readdir(d))) {
                        if (e->d_name[0] == '.')
                                continue;
                        char link[PATH_MAX];
                        if ((size_t) snprintf(link, sizeof link, "%s/%s", dst, e->d_name) >= sizeof link)
                                return -ENAMETOOLONG;
                        if (symlink("/dev/null", link) < 0 && errno != EEXIST)
                                return -errno;
                }
        }
        return 0;
}

static void setup_mounts(const struct mach_init_args *a, int up) {
        char step[4200];
        int priv_fd[16], hosts_fd, share_fd[64];
        size_t n_priv = 0, n_share = 0;
        for (; mach_private_paths[n_priv]; n_priv++) {
                snprintf(step, sizeof step, "%s%s", a->root, mach_private_paths[n_priv]);
                priv_fd[n_priv] = open_source(step);
                if (priv_fd[n_priv] < 0 || n_priv >= ELEMENTSOF(priv_fd) - 1)
                        fail(up, step);
        }
        hosts_fd = open_source(a->hosts);
        if (hosts_fd < 0)
                fail(up, a->hosts);
        unsigned gpus = 0;
        for (; a->shares && a->shares[n_share]; n_share++) {
                share_fd[n_share] = -1;
                if (mach_gpus_parse(a->shares[n_share], &gpus) != 0 ||
                        startswith(a->shares[n_share], MACH_ROOTFS_PREFIX))
                        continue; /* checked by machine_create() */
                const char *colon = strchr(a->shares[n_share], ':');
                snprintf(step, sizeof step, "%.*s", (int) (colon - a->shares[n_share]), a->shares[n_share]);
                share_fd[n_share] = open_source(step);
                if (share_fd[n_share] < 0 || n_share >= ELEMENTSOF(share_fd) - 1)
                        fail(up, step);
        }

        /* cgroups: the machine is in a cgroup namespace whose root is its own cgroup jsim-H/mN
         * in every hierarchy it has; fresh cgroup mounts there show those subtrees only, as
         * /sys/fs/cgroup shows a real machine's whole tree: its systemd and slurmd manage them,
         * and /proc/PID/cgroup paths inside match the mounts. */
        const char *bases[2];
        mach_cgroup_bases(bases);
        bool hybrid = bases[0] && !streq(bases[0], "/sys/fs/cgroup");

        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                fail(up, "make / rprivate");
        enter_rootfs(a, up);
        /* the host's tree goes (detached, so nothing shows it below the new mounts) */
        if (umount2("/sys/fs/cgroup", MNT_DETACH) < 0 && errno != EINVAL)
                fail(up, "unmount the host's /sys/fs/cgroup");
        if (hybrid || !bases[0]) {
                if (mount("tmpfs", "/sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                            "mode=0755") < 0)
                        fail(up, "mount /sys/fs/cgroup");
                if (bases[0] && mount_cgroup(bases[0], "cgroup2", NULL) < 0)
                        fail(up, bases[0]);
                if (bases[1] && mount_cgroup(bases[1], "cgroup", "none,name=systemd") < 0)
                        fail(up, bases[1]);
                for (size_t i = 0; a->v1_mounts && a->v1_mounts[i]; i++)
                        if (mount_v1(a->v1_mounts[i]) < 0) {
                                snprintf(step, sizeof step, "mount cgroup %s", a->v1_mounts[i]);
                                fail(up, step);
                        }
        } else if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                fail(up, "mount /sys/fs/cgroup");
        if (sethostname(a->hostname, strlen(a->hostname)) < 0)
                fail(up, "sethostname");
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                fail(up, "mount /proc");
        if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
                fail(up, "mount /run");
        if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
                fail(up, "mount /tmp");
        /* a machine's own POSIX shared memory, as a real machine has it: the host's /dev/shm was
         * every machine's, where two machines of one name (a test on each base) could meet in
         * the same file (Open MPI's shared-memory segments are named by host and job) */
        if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
                fail(up, "mount /dev/shm");
        for (size_t i = 0; i < n_priv; i++)
                /* each machine makes its mount points in its own overlay */
                if (mkdir_p(mach_private_paths[i], 0755) < 0 ||
                        bind_fd(priv_fd[i], mach_private_paths[i], false) < 0) {
                        snprintf(step, sizeof step, "bind %s", mach_private_paths[i]);
                        fail(up, step);
                }
        if (bind_fd(hosts_fd, "/etc/hosts", true) < 0)
                fail(up, "bind /etc/hosts");
        if (gpus > 0 && mach_dev_setup(gpus, step, sizeof step) < 0)
                fail(up, step);
        for (size_t i = 0; i < n_share; i++) {
                if (share_fd[i] < 0)
                        continue; /* a fake device attachment */
                const char *target = strchr(a->shares[i], ':') + 1;
                snprintf(step, sizeof step, "share %s", target);
                if (mkdir_p(target, 0755) < 0)
                        fail(up, step);
                if (bind_fd(share_fd[i], target, false) < 0)
                        fail(up, step);
        }
        /* /run as the manager and its clients expect it. */
        static const char *const dirs[] = { "/run/systemd", "/run/systemd/system", "/run/dbus",
                "/run/juju-sim", "/run/juju-sim/units", "/run/juju-sim/config", "/run/user" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                if (mkdir(dirs[i], 0755) < 0 && errno != EEXIST) {
                        snprintf(step, sizeof step, "mkdir %s", dirs[i]);
                        fail(up, step);
                }
        if (symlink("/run/bus", "/run/dbus/system_bus_socket") < 0)
                fail(up, "link /run/dbus/system_bus_socket");
        for (size_t i = 0; packaged_units[i]; i++) {
                char src[256], dst[256];
                snprintf(src, sizeof src, "/lib/systemd/system/%s", packaged_units[i]);
                snprintf(dst, sizeof dst, "/run/juju-sim/units/%s", packaged_units[i]);
                if (access(src, F_OK) < 0)
                        continue;
                if (symlink(src, dst) < 0)
                        fail(up, "link packaged units");
                if (runtime_dir_dropin(packaged_units[i], src) < 0)
                        fail(up, "runtime directory drop-in");
        }
        if (output_dropin() < 0)
                fail(up, "service output drop-in");
        if (mask_user_generators() < 0)
                fail(up, "mask the user session's generators");
        if (chdir("/") < 0)
                fail(up, "chdir /");
        /* every bind from the host is made: the host's tree goes */
        if (umount2(OLD_ROOT, MNT_DETACH) < 0 || rmdir(OLD_ROOT) < 0)
                fail(up, "detach the host's root");
}

_noreturn_ static void exec_manager(int notify_fd) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int s = 1; s < _NSIG; s++)
                signal(s, SIG_DFL);
        close(notify_fd);
        (void) setsid();
        char *const argv[] = { "systemd", "--user", NULL };
        char *const envp[] = {
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LANG=C.UTF-8",
                "HOME=/root",
                "USER=root",
                "LOGNAME=root",
                "SHELL=/bin/sh",
                "XDG_RUNTIME_DIR=/run",
                "XDG_CONFIG_HOME=/run/juju-sim/config",
                "XDG_STATE_HOME=/var/lib",
                "XDG_CACHE_HOME=/var/cache",
                "SYSTEMD_UNIT_PATH=/etc/systemd/system:/run/juju-sim/units:",
                "SYSTEMD_LOG_TARGET=console",
                "NOTIFY_SOCKET=/run/juju-sim/notify",
                NULL,
        };
        execve(MANAGER_PATH, argv, envp);
        fprintf(stderr, "juju-sim machine init: exec %s: %s\n", MANAGER_PATH, strerror(errno));
        _exit(127);
}

/* Waits for READY=1 on the notify socket; false when the manager died or time ran out. */
static bool wait_ready(int notify_fd, pid_t manager, const char **ret_why) {
        int64_t deadline = mach_now_ms() + READY_TIMEOUT_MS;
        for (;;) {
                int st;
                if (waitpid(manager, &st, WNOHANG) == manager) {
                        *ret_why = "systemd --user exited";
                        return false;
                }
                int64_t left = deadline - mach_now_ms();
                if (left <= 0) {
                        *ret_why = "no READY=1 from systemd --user in time";
                        return false;
                }
                struct pollfd pfd = { .fd = notify_fd, .events = POLLIN };
                int r = poll(&pfd, 1, left > 100 ? 100 : (int) left);
                if (r <= 0)
                        continue;
                char buf[4096];
                ssize_t n = recv(notify_fd, buf, sizeof buf - 1, MSG_DONTWAIT);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                for (char *line = buf, *next; line; line = next) {
                        next = strchr(line, '\n');
                        if (next)
                                *next++ = '\0';
                        if (streq(line, "READY=1"))
                                return true;
                }
        }
}

_noreturn_ static void init_main(const struct mach_init_args *a) {
        /* fds: 0 /dev/null, 1 and 2 the console log, 3 up, 4 down; nothing else inherited. */
        int up = fcntl(a->up_fd, F_DUPFD_CLOEXEC, 10);
        int down = fcntl(a->down_fd, F_DUPFD_CLOEXEC, 10);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (up < 0 || down < 0 || null < 0)
                _exit(1);
        dup2(null, 0);
        dup2(a->log_fd, 1);
        dup2(a->log_fd, 2);
        dup3(up, 3, O_CLOEXEC);
        dup3(down, 4, O_CLOEXEC);
        up = 3, down = 4;
        close_range(5, ~0U, 0);
        signal(SIGPIPE, SIG_IGN);

        /* Our pid as the creator sees it: /proc is still the host's procfs here. The
         * intermediate child writes nothing once we exist, so this is the first message. */
        char self[32];
        ssize_t l = readlink("/proc/self", self, sizeof self - 1);
        if (l <= 0)
                fail(up, "readlink /proc/self");
        self[l] = '\0';
        report(up, (int32_t) strtol(self, NULL, 10), NULL);

        setup_mounts(a, up);
        report(up, MACH_MSG_MOUNTED, NULL);

        char go = 0;
        ssize_t n;
        do
                n = read(down, &go, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1 || go != 'G')
                _exit(1); /* the creator went away before the network was attached */
        close(down);

        int notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/run/juju-sim/notify" };
        if (notify_fd < 0 || bind(notify_fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                fail(up, "notify socket");

        struct sigaction act = { .sa_handler = on_sigchld };
        sigemptyset(&act.sa_mask);
        sigaction(SIGCHLD, &act, NULL);

        pid_t manager = fork();
        if (manager < 0)
                fail(up, "fork manager");
        if (manager == 0)
                exec_manager(notify_fd);

        const char *why = NULL;
        if (!wait_ready(notify_fd, manager, &why)) {
                errno = ETIMEDOUT;
                report(up, -ETIMEDOUT, why);
                fprintf(stderr, "juju-sim machine init: %s\n", why);
                _exit(1); /* the kernel ends the whole machine */
        }
        close(notify_fd);
        (void) unlink("/run/juju-sim/notify");
        /* A test bed gap, closed: a system manager's notify socket takes READY=1 from daemons of
         * any user (trixie's slurmctld: Type=notify, User=slurm); the user manager makes its own
         * for its user only. */
        if (chmod("/run/systemd/notify", 0777) < 0 && errno != ENOENT)
                fail(up, "chmod /run/systemd/notify");
        struct mach_msg ready = { .code = MACH_MSG_READY };
        if (write(up, &ready, sizeof ready) != (ssize_t) sizeof ready)
                _exit(1); /* nobody to hand the machine to */
        close(up);

        /* Reap for ever; the machine ends when this process is killed. */
        sigset_t chld, none;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigemptyset(&none);
        sigprocmask(SIG_BLOCK, &chld, NULL);
        for (;;) {
                int st;
                while (waitpid(-1, &st, WNOHANG) > 0)
                        ;
                sigsuspend(&none);
        }
}

void mach_init_launch(const struct mach_init_args *a) {
        close(a->keep_fd);
        close(a->keep_fd2);
        (void) setsid();
        for (size_t i = 0; a->cgroup_procs && a->cgroup_procs[i]; i++)
                if (mach_write_str(a->cgroup_procs[i], "0") < 0)
                        fail(a->up_fd, "join cgroup");
        if (unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWIPC |
                    CLONE_NEWCGROUP) < 0)
                fail(a->up_fd, "unshare");
        /* pure cgroup2 host: the namespace's root is mN, the init lives in its leaf init.scope,
         * and mN hands its controllers on (machine.c cgroup_create) */
        if (a->leaf_procs && mach_write_str(a->leaf_procs, "0") < 0)
                fail(a->up_fd, "join init.scope");
        if (a->delegate && mach_write_str(a->delegate, a->delegate_value) < 0)
                fail(a->up_fd, "delegate controllers");
        pid_t pid = fork();
        if (pid < 0)
                fail(a->up_fd, "fork init");
        if (pid == 0)
                init_main(a); /* reports its own pid first */
        _exit(0);
}
