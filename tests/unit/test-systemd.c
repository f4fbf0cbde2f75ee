/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/systemd/unit against a real `systemd --user` manager that the test
 * starts in its own PID, mount and cgroup namespaces and reaches as "the system bus". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "systemd/unit.h"
#include "systemd/strays.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <linux/magic.h>

#include "util/strv.h"

#include "util/banned.h"

#define SYSTEMD_BIN "/usr/lib/systemd/systemd"
#define TIMEOUT (10 * 1000 * 1000ULL)

/* A manager: PID 1 of a new PID namespace is a tiny init (this file's code) whose child
 * execs `systemd --user`. Killing that init kills everything in the namespace, and the
 * init has PR_SET_PDEATHSIG(SIGKILL), so a test killed by any signal leaves no process.
 *
 * Cgroups: the manager must not touch the host's. The namespace gets its own cgroup
 * CG_PREFIX<pid of the test process> in the host's cgroup2 hierarchy and (hybrid or legacy
 * host) its name=systemd one; the test moves the init there before the init unshares a
 * cgroup namespace, and the init's mount namespace shows only these two cgroups, at
 * /sys/fs/cgroup/unified and /sys/fs/cgroup/systemd on a tmpfs (at /sys/fs/cgroup on a
 * cgroup2-only host). So the manager sees its cgroup as the root and creates init.scope and
 * its slices in it, and never sees the host's v1 controller hierarchies (cpu, memory, pids).
 * The test kills and removes these cgroups when it stops the manager; a test killed by
 * SIGKILL leaves them (empty) behind, and the next run removes those of dead owners. */
struct manager {
        char *dir, *run, *cfg, *unitdir, *home, *log;
        char *cg[2]; /* the namespace's cgroups: [0] cgroup2, [1] name=systemd; NULL if none */
        pid_t init_pid;
        char pidns[64]; /* "pid:[inode]" of the namespace */
};

#define CG_PREFIX "test-systemd-"

static struct manager mgr;
static sd_bus *bus;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void sleep_ms(long ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
}

static void write_text(const char *path, const char *text) {
        if (write_file_atomic(path, text, strlen(text), 0644, (uid_t) -1, (gid_t) -1) < 0)
                fail_msg("cannot write %s", path);
}

/* ---------------------------------------------------------------- cgroups */

static bool is_fs(const char *path, long magic) {
        struct statfs s;
        return statfs(path, &s) == 0 && (long) s.f_type == magic;
}

/* The host's hierarchies a namespace gets a cgroup in: [0] the cgroup2 one, [1] the
 * name=systemd v1 one (hybrid or legacy host); NULL where absent. */
static void cgroup_bases(const char *bases[2]) {
        bases[0] = bases[1] = NULL;
        if (is_fs("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC)) {
                bases[0] = "/sys/fs/cgroup";
                return;
        }
        if (is_fs("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
                bases[0] = "/sys/fs/cgroup/unified";
        if (is_fs("/sys/fs/cgroup/systemd", CGROUP_SUPER_MAGIC))
                bases[1] = "/sys/fs/cgroup/systemd";
}

/* Writes s to an existing file (cgroup files: no O_CREAT, no O_TRUNC). */
static int write_str(const char *path, const char *s) {
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, s, strlen(s));
        int r = n < 0 ? -errno : (size_t) n == strlen(s) ? 0 : -EIO;
        close(fd);
        return r;
}

/* 1 when the cgroup tree at path holds a process, 0 when not (or gone). */
static int cgroup_populated(const char *path, bool v2) {
        _cleanup_free_ char *file = xasprintf("%s/%s", path, v2 ? "cgroup.events" : "cgroup.procs");
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(file, &data, NULL);
        if (r < 0)
                return r == -ENOENT || r == -ENODEV ? 0 : r;
        if (v2)
                return strstr(data, "populated 1") ? 1 : 0;
        if (!isempty(data))
                return 1;
        _cleanup_(closedirp) DIR *d = opendir(path);
        for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
                if (cgroup_populated(sub, false) > 0)
                        return 1;
        }
        return 0;
}

/* SIGKILLs every process in the cgroup tree at path: cgroup.kill on cgroup2 (Linux 5.14),
 * else each pid its cgroup.procs files list (the caller repeats until it is empty). */
static void cgroup_kill(const char *path, bool v2) {
        _cleanup_free_ char *kill_file = xasprintf("%s/cgroup.kill", path);
        if (v2 && write_str(kill_file, "1") == 0)
                return;
        _cleanup_free_ char *procs = xasprintf("%s/cgroup.procs", path);
        _cleanup_free_ char *data = NULL;
        if (read_full_file(procs, &data, NULL) >= 0)
                for (char *p = data, *end;; p = end) {
                        long pid = strtol(p, &end, 10);
                        if (end == p)
                                break;
                        if (pid > 1)
                                (void) kill((pid_t) pid, SIGKILL);
                }
        _cleanup_(closedirp) DIR *d = opendir(path);
        for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
                cgroup_kill(sub, v2);
        }
}

/* Removes the cgroup tree at path, deepest first (cgroup dirs hold only pseudo files). */
static int cgroup_rmdir_tree(const char *path) {
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
                (void) cgroup_rmdir_tree(sub);
        }
        return rmdir(path) < 0 && errno != ENOENT ? -errno : 0;
}

/* Kills everything in one of this test's cgroups (path ends in CG_PREFIX<pid>), waits until
 * it is empty and removes its tree, both bounded by 5 s: 0 or a negative errno. */
static int cgroup_destroy(const char *path, bool v2) {
        const char *slash = strrchr(path, '/');
        if (!slash || !startswith(slash + 1, CG_PREFIX))
                return -EINVAL; /* never anything else */
        uint64_t deadline = now_usec() + 5 * 1000000ULL;
        int r;
        for (int i = 0; i < 500; i++, sleep_ms(10)) {
                r = cgroup_populated(path, v2);
                if (r == 0)
                        r = cgroup_rmdir_tree(path);
                else if (r > 0) {
                        cgroup_kill(path, v2);
                        r = -EBUSY;
                }
                if (r == 0 || now_usec() > deadline)
                        break;
        }
        return r;
}

/* Whether the owner of a CG_PREFIX<pid> cgroup (or CG_PREFIX<pid>.XXXXXX directory) may
 * still run: pid exists (whatever it runs now: a reused pid only delays the removal). */
static bool owner_alive(const char *name) {
        char *end;
        long pid = strtol(name + strlen(CG_PREFIX), &end, 10);
        if ((*end && *end != '.') || pid <= 0 || pid > INT32_MAX)
                return true; /* not ours: leave it */
        return kill((pid_t) pid, 0) == 0 || errno != ESRCH;
}

/* Removes the cgroups of test processes that died without removing them (SIGKILL): the
 * number removed, or the first error. */
static int cgroup_remove_stale(void) {
        const char *bases[2];
        int n = 0, r = 0;
        cgroup_bases(bases);
        for (int i = 0; i < 2; i++) {
                _cleanup_(closedirp) DIR *d = bases[i] ? opendir(bases[i]) : NULL;
                for (struct dirent *de; d && (de = readdir(d));) {
                        if (de->d_type != DT_DIR || !startswith(de->d_name, CG_PREFIX) ||
                                strchr(de->d_name, '.') || owner_alive(de->d_name))
                                continue;
                        _cleanup_free_ char *path = xasprintf("%s/%s", bases[i], de->d_name);
                        int k = cgroup_destroy(path, i == 0);
                        if (k < 0 && r == 0)
                                r = k;
                        n += k == 0;
                }
        }
        return r < 0 ? r : n;
}

/* Removes the directories CG_PREFIX<pid>.XXXXXX in dir of test processes that died without
 * removing them (SIGKILL). */
static void remove_stale_dirs(const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_type != DT_DIR || !startswith(de->d_name, CG_PREFIX) || !strchr(de->d_name, '.') ||
                        owner_alive(de->d_name))
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name);
                (void) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        }
}

/* In the init, before it mounts /proc: shows only the namespace's cgroups under
 * /sys/fs/cgroup (the init is in them and in its own cgroup namespace by now). */
static int mount_cgroups(const struct manager *m) {
        const char *bases[2];
        int fd[2] = { -1, -1 };
        cgroup_bases(bases);
        if (bases[0] && streq(bases[0], "/sys/fs/cgroup"))
                return mount(m->cg[0], "/sys/fs/cgroup", NULL, MS_BIND, NULL);
        /* the tmpfs hides the sources: bind them through /proc/self/fd */
        for (int i = 0; i < 2; i++)
                if (m->cg[i] && (fd[i] = open(m->cg[i], O_PATH | O_CLOEXEC)) < 0)
                        return -1;
        if (mount("tmpfs", "/sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755") < 0)
                return -1;
        for (int i = 0; i < 2; i++) {
                char src[64];
                if (fd[i] < 0)
                        continue;
                snprintf(src, sizeof(src), "/proc/self/fd/%d", fd[i]);
                if (mkdir(bases[i], 0755) < 0 || mount(src, bases[i], NULL, MS_BIND, NULL) < 0)
                        return -1;
                close(fd[i]);
        }
        return 0;
}

/* ---------------------------------------------------------------- the manager */

/* The namespace's init: mounts, then runs the manager and reaps until it exits. */
static _noreturn_ void run_init(const struct manager *m, int lifeline) {
        pid_t child;
        char go;

        for (int sig = 1; sig < _NSIG; sig++) /* not the test's handlers */
                signal(sig, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* one byte once the test has put this process into the namespace's cgroups; EOF if
         * the test died (maybe before prctl) */
        if (read(lifeline, &go, 1) != 1)
                _exit(1);
        if (unshare(CLONE_NEWCGROUP) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                mount_cgroups(m) < 0 ||
                mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ||
                /* a root file system that never booted (tools/rootfs) has no /run/systemd */
                (mkdir("/run/systemd", 0755) < 0 && errno != EEXIST) ||
                mount("tmpfs", "/run/systemd", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0 ||
                mkdir("/run/systemd/system", 0755) < 0)
                _exit(2);
        child = fork();
        if (child < 0)
                _exit(3);
        if (child == 0) {
                int fd = open(m->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (fd >= 0) {
                        dup2(fd, STDOUT_FILENO);
                        dup2(fd, STDERR_FILENO);
                }
                setenv("XDG_RUNTIME_DIR", m->run, 1);
                setenv("XDG_CONFIG_HOME", m->cfg, 1);
                setenv("HOME", m->home, 1);
                unsetenv("DBUS_SESSION_BUS_ADDRESS");
                unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
                unsetenv("NOTIFY_SOCKET");
                execl(SYSTEMD_BIN, "systemd", "--user", (char *) NULL);
                _exit(127);
        }
        for (;;) {
                int status;
                pid_t p = waitpid(-1, &status, 0);
                if (p == child || (p < 0 && errno == ECHILD))
                        _exit(0);
        }
}

/* Number of processes in the PID namespace named pidns; *ret_pid is set to the one whose
 * innermost PID is inner_pid (when inner_pid > 0). */
static int scan_namespace(const char *pidns, pid_t inner_pid, pid_t *ret_pid) {
        DIR *d = opendir("/proc");
        int n = 0;
        if (!d)
                return -1;
        for (struct dirent *de; (de = readdir(d));) {
                char link[256] = "", path[300];
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0)
                        continue;
                snprintf(path, sizeof(path), "/proc/%ld/ns/pid", pid);
                ssize_t l = readlink(path, link, sizeof(link) - 1);
                if (l <= 0 || !streq(link, pidns))
                        continue;
                n++;
                if (inner_pid <= 0 || !ret_pid)
                        continue;
                snprintf(path, sizeof(path), "/proc/%ld/status", pid);
                _cleanup_free_ char *status = NULL;
                if (read_full_file(path, &status, NULL) < 0)
                        continue;
                const char *ns = strstr(status, "\nNSpid:");
                if (!ns)
                        continue;
                const char *eol = strchr(ns + 1, '\n');
                const char *last = ns + 7;
                for (const char *c = ns + 7; *c && c != eol; c++)
                        if (*c == '\t' || *c == ' ')
                                last = c + 1;
                if (atol(last) == inner_pid)
                        *ret_pid = (pid_t) pid;
        }
        closedir(d);
        return n;
}

/* The outer PIDs of (at most max) processes of the PID namespace named pidns: their number. */
static int namespace_pids(const char *pidns, pid_t *pids, int max) {
        _cleanup_(closedirp) DIR *d = opendir("/proc");
        int n = 0;
        for (struct dirent *de; d && n < max && (de = readdir(d));) {
                char link[256] = "", path[300], *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0)
                        continue;
                snprintf(path, sizeof(path), "/proc/%ld/ns/pid", pid);
                if (readlink(path, link, sizeof(link) - 1) > 0 && streq(link, pidns))
                        pids[n++] = (pid_t) pid;
        }
        return n;
}

static const char *tmp_base(void) {
        return getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
}

static int manager_start(struct manager *m) {
        const char *base = tmp_base();
        int lifeline[2];

        *m = (struct manager){ 0 };
        m->dir = xasprintf("%s/" CG_PREFIX "%d.XXXXXX", base, (int) getpid());
        if (!mkdtemp(m->dir))
                return -errno;
        m->run = xasprintf("%s/run", m->dir);
        m->cfg = xasprintf("%s/cfg", m->dir);
        m->unitdir = xasprintf("%s/cfg/systemd/user", m->dir);
        m->home = xasprintf("%s/home", m->dir);
        m->log = xasprintf("%s/manager.log", m->dir);
        if (mkdir(m->run, 0700) < 0 || mkdir_p(m->unitdir, 0755) < 0 || mkdir(m->home, 0700) < 0)
                return -errno;

        const char *bases[2];
        cgroup_bases(bases);
        if (!bases[0] && !bases[1])
                return -ENOMEDIUM;
        for (int i = 0; i < 2; i++) {
                if (!bases[i])
                        continue;
                m->cg[i] = xasprintf("%s/" CG_PREFIX "%d", bases[i], (int) getpid());
                if (mkdir(m->cg[i], 0755) == 0)
                        continue;
                if (errno != EEXIST)
                        return -errno;
                int r = cgroup_destroy(m->cg[i], i == 0); /* left by a dead process with our pid */
                if (r < 0)
                        return r;
                if (mkdir(m->cg[i], 0755) < 0)
                        return -errno;
        }

        if (pipe2(lifeline, O_CLOEXEC) < 0)
                return -errno;
        /* like fork(), but the child is PID 1 of a new PID namespace, in a new mount namespace;
         * it unshares its cgroup namespace once it is in its cgroups (below) */
        pid_t pid = (pid_t) syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, NULL);
        if (pid < 0) {
                close(lifeline[0]);
                close(lifeline[1]);
                return -errno;
        }
        if (pid == 0) {
                close(lifeline[1]);
                run_init(m, lifeline[0]);
        }
        close(lifeline[0]);
        /* the write end stays open (close-on-exec) until this process dies */
        m->init_pid = pid;
        char path[64], pidstr[32];
        snprintf(pidstr, sizeof(pidstr), "%d", (int) pid);
        for (int i = 0; i < 2; i++) {
                _cleanup_free_ char *procs = m->cg[i] ? xasprintf("%s/cgroup.procs", m->cg[i]) : NULL;
                int r = procs ? write_str(procs, pidstr) : 0;
                if (r < 0)
                        return r; /* manager_stop() kills the init */
        }
        if (write(lifeline[1], "g", 1) != 1)
                return -errno;
        snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int) pid);
        if (readlink(path, m->pidns, sizeof(m->pidns) - 1) <= 0)
                return -errno;
        return 0;
}

/* Waits (bounded) until the manager owns its name on its bus. */
static int manager_wait_ready(struct manager *m, sd_bus **ret_bus) {
        _cleanup_free_ char *addr = xasprintf("unix:path=%s/bus", m->run);
        setenv("DBUS_SYSTEM_BUS_ADDRESS", addr, 1);
        uint64_t deadline = now_usec() + 15 * 1000000ULL;
        sd_bus *b = NULL;
        for (int i = 0; i < 1500 && now_usec() < deadline; i++, sleep_ms(10)) {
                int has = 0;
                if (!b && unit_bus_open(&b, NULL) < 0) {
                        b = NULL;
                        continue;
                }
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
                if (sd_bus_message_new_method_call(b, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus", "NameHasOwner") < 0 ||
                        sd_bus_message_append(call, "s", "org.freedesktop.systemd1") < 0)
                        break;
                if (sd_bus_call(b, call, 1000000, NULL, &reply) < 0) {
                        b = sd_bus_flush_close_unref(b);
                        continue;
                }
                if (sd_bus_message_read(reply, "b", &has) >= 0 && has) {
                        *ret_bus = b;
                        return 0;
                }
        }
        sd_bus_flush_close_unref(b);
        return -ETIMEDOUT;
}

/* Kills the namespace, removes its cgroups and the files; returns what is left (processes of
 * the namespace, cgroups that could not be removed): must be 0. */
static int manager_stop(struct manager *m) {
        int left = 0;
        if (m->init_pid > 0) {
                kill(m->init_pid, SIGKILL);
                (void) waitpid(m->init_pid, NULL, 0);
                m->init_pid = 0;
                left = scan_namespace(m->pidns, 0, NULL);
        }
        for (int i = 0; i < 2; i++) {
                int r = m->cg[i] ? cgroup_destroy(m->cg[i], i == 0) : 0;
                if (r < 0) {
                        print_error("cgroup %s: cannot remove: %s\n", m->cg[i], strerror(-r));
                        left++;
                }
                free(m->cg[i]);
        }
        if (m->dir)
                (void) nftw(m->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(m->dir);
        free(m->run);
        free(m->cfg);
        free(m->unitdir);
        free(m->home);
        free(m->log);
        *m = (struct manager){ 0 };
        return left;
}

static void stop_at_exit(void) {
        bus = sd_bus_flush_close_unref(bus);
        manager_stop(&mgr);
}

/* meson's timeout sends SIGTERM: take the namespace down (PR_SET_PDEATHSIG would too) and
 * remove its cgroups and the files, then die of the signal. (Not async-signal-safe, like
 * nftw; what it misses, the next run's cgroup_remove_stale() and remove_stale_dirs() get.) */
static void on_fatal_signal(int sig) {
        if (mgr.init_pid > 0) {
                kill(mgr.init_pid, SIGKILL);
                (void) waitpid(mgr.init_pid, NULL, 0); /* no more writers in the directory */
        }
        for (int i = 0; i < 2; i++)
                if (mgr.cg[i])
                        (void) cgroup_destroy(mgr.cg[i], i == 0);
        if (mgr.dir)
                (void) nftw(mgr.dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        signal(sig, SIG_DFL);
        raise(sig);
}

/* ---------------------------------------------------------------- the host's cgroups */

/* What the test must not change on the host: the cgroups of the host's PID 1 and of the test
 * process, and the top-level cgroups of every hierarchy. */
struct host_view {
        char *pid1, *self; /* /proc/1/cgroup, /proc/self/cgroup */
        struct strv tops;  /* "<hierarchy>/<dir>", sorted; jsim-* (juju-sim models) and
                            * CG_PREFIX* (this test's namespaces, checked apart) left out */
        struct strv hiers; /* the hierarchies' mount points */
};

static struct host_view host_before;

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void host_view_add_tops(struct host_view *v, const char *hier) {
        _cleanup_(closedirp) DIR *d = opendir(hier);
        strv_push(&v->hiers, hier);
        for (struct dirent *de; d && (de = readdir(d));)
                if (de->d_type == DT_DIR && !streq(de->d_name, ".") && !streq(de->d_name, "..") &&
                        !startswith(de->d_name, "jsim-") && !startswith(de->d_name, CG_PREFIX))
                        strv_pushf(&v->tops, "%s/%s", hier, de->d_name);
}

static void host_view_read(struct host_view *v) {
        *v = (struct host_view){ .tops = STRV_INIT, .hiers = STRV_INIT };
        if (read_full_file("/proc/1/cgroup", &v->pid1, NULL) < 0 ||
                read_full_file("/proc/self/cgroup", &v->self, NULL) < 0)
                fail_msg("cannot read /proc/1/cgroup or /proc/self/cgroup");
        if (is_fs("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
                host_view_add_tops(v, "/sys/fs/cgroup");
        else {
                _cleanup_(closedirp) DIR *d = opendir("/sys/fs/cgroup");
                for (struct dirent *de; d && (de = readdir(d));) {
                        /* real mount points only, not the "cpu,cpuacct"-style links */
                        _cleanup_free_ char *h = xasprintf("/sys/fs/cgroup/%s", de->d_name);
                        if (de->d_type == DT_DIR && !streq(de->d_name, ".") && !streq(de->d_name, "..") &&
                                (is_fs(h, CGROUP_SUPER_MAGIC) || is_fs(h, CGROUP2_SUPER_MAGIC)))
                                host_view_add_tops(v, h);
                }
        }
        qsort(v->tops.v, v->tops.n, sizeof(char *), cmp_str);
}

static void host_view_clear(struct host_view *v) {
        free(v->pid1);
        free(v->self);
        strv_clear(&v->tops);
        strv_clear(&v->hiers);
        *v = (struct host_view){ .tops = STRV_INIT, .hiers = STRV_INIT };
}

/* Compares the host now with host_before and checks that this test's own namespace cgroups
 * CG_PREFIX<pid> exist (own_exists) or not; prints what differs. Returns 0 when nothing
 * differs, else the number of lines printed. */
static int host_check(const char *when, bool own_exists) {
        struct host_view now;
        struct strbuf diff = STRBUF_INIT;
        host_view_read(&now);
        if (!streq(now.pid1, host_before.pid1))
                strbuf_addf(&diff, "  /proc/1/cgroup was\n%s  is now\n%s", host_before.pid1, now.pid1);
        if (!streq(now.self, host_before.self))
                strbuf_addf(&diff, "  /proc/self/cgroup was\n%s  is now\n%s", host_before.self, now.self);
        for (size_t i = 0; i < host_before.tops.n; i++)
                if (!strv_contains(&now.tops, host_before.tops.v[i]))
                        strbuf_addf(&diff, "  gone: %s\n", host_before.tops.v[i]);
        for (size_t i = 0; i < now.tops.n; i++)
                if (!strv_contains(&host_before.tops, now.tops.v[i]))
                        strbuf_addf(&diff, "  new: %s\n", now.tops.v[i]);
        const char *bases[2];
        cgroup_bases(bases);
        for (int i = 0; i < 2; i++) {
                if (!bases[i])
                        continue;
                _cleanup_free_ char *own = xasprintf("%s/" CG_PREFIX "%d", bases[i], (int) getpid());
                if ((access(own, F_OK) == 0) != own_exists)
                        strbuf_addf(&diff, "  %s: %s\n", own, own_exists ? "missing" : "still there");
        }
        int n = 0;
        for (const char *c = diff.buf; (c = strchr(c, '\n')); c++)
                n++;
        if (n > 0)
                print_error("host cgroups %s differ from before the test:\n%s", when, diff.buf);
        else
                print_message("host cgroups %s: unchanged (%zu hierarchies, %zu top-level cgroups)\n", when,
                        now.hiers.n, now.tops.n);
        strbuf_release(&diff);
        host_view_clear(&now);
        return n;
}

/* cmocka (1.1) prints a failed group fixture but does not count it in its result */
static bool fixture_failed;

static int setup_manager(void) {
        int r = cgroup_remove_stale();
        if (r != 0)
                print_message("stale cgroups of killed runs: %s\n", r > 0 ? "removed" : strerror(-r));
        remove_stale_dirs(tmp_base());
        host_view_read(&host_before);
        r = manager_start(&mgr);
        if (r < 0) {
                print_error("cannot start the manager's namespace: %s\n", strerror(-r));
                return -1;
        }
        _cleanup_free_ char *p = NULL;
#define UNIT(name, text)                                   \
        do {                                               \
                free(p);                                   \
                p = xasprintf("%s/%s", mgr.unitdir, name); \
                write_text(p, text);                       \
        } while (0)
        UNIT("demo.service",
                "[Unit]\nDescription=demo\n[Service]\nExecStart=/bin/sleep 1000\n"
                "ExecReload=/bin/true\n[Install]\nWantedBy=default.target\n");
        UNIT("fail.service", "[Service]\nType=oneshot\nExecStart=/bin/false\n");
        UNIT("restarty.service", "[Service]\nExecStart=/bin/sleep 1000\nRestart=always\nRestartSec=100ms\n");
        UNIT("noinstall.service", "[Service]\nExecStart=/bin/sleep 1000\n");
        uint64_t t0 = now_usec();
        if (manager_wait_ready(&mgr, &bus) < 0) {
                _cleanup_free_ char *log = NULL;
                read_full_file(mgr.log, &log, NULL);
                print_error("manager did not come up; its log:\n%s\n", strempty(log));
                return -1;
        }
        print_message("manager ready in %.0f ms\n", (double) (now_usec() - t0) / 1000);
        return host_check("after setup", true) == 0 ? 0 : -1;
}

static int group_setup(void **state) {
        int r = setup_manager();
        fixture_failed |= r < 0;
        return r;
}

static int group_teardown(void **state) {
        bus = sd_bus_flush_close_unref(bus);
        int left = manager_stop(&mgr);
        if (left != 0)
                print_error("%d processes or cgroups of the manager's namespace survived\n", left);
        int diff = host_check("after teardown", false);
        host_view_clear(&host_before);
        fixture_failed |= left != 0 || diff != 0;
        return left == 0 && diff == 0 ? 0 : -1;
}

static void state_of(const char *unit, struct unit_state *st) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = unit_get_state(bus, unit, st, &err);
        if (r < 0)
                fail_msg("get state %s: %s", unit, err.buf);
}

#define CHECK(expr)                                                   \
        do {                                                          \
                _cleanup_strbuf_ struct strbuf _err = STRBUF_INIT;    \
                int _r = (expr);                                      \
                if (_r < 0)                                           \
                        fail_msg("%s: %d (%s)", #expr, _r, _err.buf); \
        } while (0)
/* CHECK's expressions use &_err as their err argument */
#define ERR (&_err)

static void test_start_restart_stop(void **state) {
        struct unit_state st;
        CHECK(unit_start(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_string_equal(st.load_state, "loaded");
        assert_string_equal(st.active_state, "active");
        assert_string_equal(st.sub_state, "running");
        assert_true(st.main_pid > 0);
        uint32_t pid1 = st.main_pid;
        uint64_t act1 = st.active_enter_usec;
        assert_true(act1 > 0);

        CHECK(unit_restart(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_string_equal(st.active_state, "active");
        assert_true(st.main_pid > 0 && st.main_pid != pid1);
        uint32_t pid2 = st.main_pid;
        /* one value per activation */
        assert_true(st.active_enter_usec > act1);
        uint64_t act2 = st.active_enter_usec;

        CHECK(unit_try_restart(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_true(st.main_pid > 0 && st.main_pid != pid2);
        assert_true(st.active_enter_usec > act2);
        uint32_t pid3 = st.main_pid;
        uint64_t act3 = st.active_enter_usec;

        CHECK(unit_reload(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_string_equal(st.active_state, "active");
        assert_int_equal(st.main_pid, pid3);
        assert_true(st.active_enter_usec == act3);

        CHECK(unit_stop(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_string_equal(st.active_state, "inactive");
        assert_string_equal(st.sub_state, "dead");
        assert_int_equal(st.main_pid, 0);

        /* try-restart of a stopped unit does nothing */
        CHECK(unit_try_restart(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_string_equal(st.active_state, "inactive");

        /* reload of a stopped unit fails, with the manager's words */
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_true(unit_reload(bus, "demo.service", TIMEOUT, &err) < 0);
        print_message("reload of a stopped unit: %s\n", err.buf);
        assert_non_null(strstr(err.buf, "unit \"demo.service\": reload: "));
}

static void test_failures(void **state) {
        struct unit_state st;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        assert_int_equal(unit_start(bus, "fail.service", TIMEOUT, &err), -EIO);
        assert_string_equal(err.buf, "unit \"fail.service\": start: job finished with result \"failed\"");
        state_of("fail.service", &st);
        assert_string_equal(st.active_state, "failed");
        assert_string_equal(st.result, "exit-code");
        CHECK(unit_reset_failed(bus, "fail.service", TIMEOUT, ERR));
        state_of("fail.service", &st);
        assert_string_equal(st.active_state, "inactive");

        strbuf_reset(&err);
        int r = unit_start(bus, "nosuch.service", TIMEOUT, &err);
        print_message("start of an unknown unit: %d %s\n", r, err.buf);
        assert_int_equal(r, -ENOENT);
        assert_non_null(strstr(err.buf, "unit \"nosuch.service\": start: "));
        assert_non_null(strstr(err.buf, "nosuch.service")); /* the bus error's text */
        assert_true(err.buf[err.len - 1] != '.');

        state_of("nosuch.service", &st);
        assert_string_equal(st.load_state, "not-found");
        assert_string_equal(st.active_state, "inactive");

        strbuf_reset(&err);
        assert_true(unit_get_state(bus, "not a unit", &st, &err) < 0);
        assert_true(err.len > 0);

        /* an impossible timeout is reported as such */
        strbuf_reset(&err);
        assert_int_equal(unit_start(bus, "demo.service", 1, &err), -ETIMEDOUT);
        CHECK(unit_stop(bus, "demo.service", TIMEOUT, ERR));
}

struct seen {
        char states[32][UNIT_STATE_STRMAX * 2];
        int n;
        bool left_active; /* saw a state other than active after being armed */
        bool back_active; /* then saw active again */
        uint64_t t_left;
};

static int record(const char *unit, const char *active, const char *sub, void *userdata) {
        struct seen *s = userdata;
        if (s->n < (int) ELEMENTSOF(s->states))
                snprintf(s->states[s->n++], sizeof(s->states[0]), "%s/%s", active, sub);
        if (!s->left_active && !streq(active, "active")) {
                s->left_active = true;
                s->t_left = now_usec();
        } else if (s->left_active && streq(active, "active"))
                s->back_active = true;
        return 0;
}

static void test_watch_kill(void **state) {
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        struct unit_state st;
        struct seen seen = { 0 };
        pid_t outer = 0;

        CHECK(unit_start(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_true(st.main_pid > 0);
        CHECK(unit_watch(bus, "demo.service", record, &seen, &slot, ERR));
        /* the manager reports MainPID in its namespace; find it in ours */
        assert_int_equal(scan_namespace(mgr.pidns, (pid_t) st.main_pid, &outer) > 0, 1);
        assert_true(outer > 0);

        uint64_t t0 = now_usec();
        assert_int_equal(kill(outer, SIGKILL), 0);
        CHECK(unit_bus_wait(bus, 5 * 1000000ULL, &seen.left_active));
        double latency_ms = (double) (seen.t_left - t0) / 1000;
        print_message(
                "kill(2) SIGKILL -> PropertiesChanged %s: %.2f ms\n", seen.states[seen.n - 1], latency_ms);
        assert_true(latency_ms < 5000);
        state_of("demo.service", &st);
        assert_string_equal(st.active_state, "failed");
        assert_string_equal(st.result, "signal");
        CHECK(unit_reset_failed(bus, "demo.service", TIMEOUT, ERR));

        /* a Restart=always unit killed through KillUnit comes back, NRestarts counts it */
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot2 = NULL;
        struct seen seen2 = { 0 };
        CHECK(unit_start(bus, "restarty.service", TIMEOUT, ERR));
        state_of("restarty.service", &st);
        uint32_t pid = st.main_pid;
        assert_int_equal(st.n_restarts, 0);
        CHECK(unit_watch(bus, "restarty.service", record, &seen2, &slot2, ERR));
        t0 = now_usec();
        CHECK(unit_kill(bus, "restarty.service", "main", SIGKILL, TIMEOUT, ERR));
        CHECK(unit_bus_wait(bus, 5 * 1000000ULL, &seen2.back_active));
        print_message("KillUnit SIGKILL -> %s: %.2f ms, back active after %.2f ms (RestartSec=100ms)\n",
                seen2.states[0], (double) (seen2.t_left - t0) / 1000, (double) (now_usec() - t0) / 1000);
        for (int i = 0; i < seen2.n; i++)
                print_message("  restarty.service: %s\n", seen2.states[i]);
        state_of("restarty.service", &st);
        assert_string_equal(st.active_state, "active");
        assert_int_equal(st.n_restarts, 1);
        assert_true(st.main_pid != pid && st.main_pid > 0);
        CHECK(unit_stop(bus, "restarty.service", TIMEOUT, ERR));

        /* after the slot is gone the callback is not called any more */
        slot = sd_bus_slot_unref(slot);
        int before = seen.n;
        CHECK(unit_start(bus, "demo.service", TIMEOUT, ERR));
        CHECK(unit_stop(bus, "demo.service", TIMEOUT, ERR));
        assert_int_equal(seen.n, before);
}

struct loop_ctx {
        sd_event *event;
        bool stopped;
};

static int on_change_event(const char *unit, const char *active, const char *sub, void *userdata) {
        struct loop_ctx *c = userdata;
        if (streq(active, "inactive")) {
                c->stopped = true;
                sd_event_exit(c->event, 0);
        }
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        return sd_event_exit(userdata, -ETIMEDOUT);
}

static void test_watch_sd_event(void **state) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = NULL; /* own connection: the event loop's
                                                                * exit closes an attached bus */
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        struct loop_ctx ctx = { 0 };

        CHECK(unit_bus_open(&b, ERR));
        CHECK(unit_start(b, "demo.service", TIMEOUT, ERR));
        assert_int_equal(sd_event_new(&event), 0);
        ctx.event = event;
        assert_int_equal(sd_bus_attach_event(b, event, 0), 0);
        CHECK(unit_watch(b, "demo.service", on_change_event, &ctx, &slot, ERR));
        assert_true(sd_event_add_time_relative(
                            event, NULL, CLOCK_MONOTONIC, 5 * 1000000ULL, 0, on_timeout, event) >= 0);
        assert_true(sd_bus_call_method_async(b, NULL, "org.freedesktop.systemd1",
                            "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StopUnit",
                            NULL, NULL, "ss", "demo.service", "replace") >= 0);
        int r = sd_event_loop(event);
        sd_bus_detach_event(b);
        assert_int_equal(r, 0);
        assert_true(ctx.stopped);
}

static void test_enable_disable(void **state) {
        _cleanup_free_ char *link = xasprintf("%s/default.target.wants/demo.service", mgr.unitdir);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct stat st;

        int n = unit_enable(bus, "demo.service", TIMEOUT, &err);
        assert_true(n > 0);
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(unit_enable(bus, "demo.service", TIMEOUT, &err), 0);
        n = unit_disable(bus, "demo.service", TIMEOUT, &err);
        assert_true(n > 0);
        assert_int_equal(lstat(link, &st), -1);
        assert_int_equal(unit_disable(bus, "demo.service", TIMEOUT, &err), 0);
        assert_string_equal(err.buf, "");

        /* no [Install] section: nothing to do, not an error (systemctl only warns) */
        assert_int_equal(unit_enable(bus, "noinstall.service", TIMEOUT, &err), 0);
        n = unit_enable(bus, "nosuch.service", TIMEOUT, &err);
        print_message("enable of an unknown unit: %d %s\n", n, err.buf);
        assert_int_equal(n, -ENOENT);
        assert_non_null(strstr(err.buf, "unit \"nosuch.service\": enable: "));
}

static void test_dropin_daemon_reload(void **state) {
        _cleanup_free_ char *root = xasprintf("%s/root", mgr.dir);
        _cleanup_free_ char *dropdir = xasprintf("%s/etc/systemd/system/demo.service.d", root);
        _cleanup_free_ char *conf = xasprintf("%s/50-desc.conf", dropdir);
        _cleanup_free_ char *userdir = xasprintf("%s/demo.service.d", mgr.unitdir);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *desc = NULL;
        const char *text = "[Unit]\nDescription=changed by a drop-in\n";

        assert_int_equal(unit_install_dropin(root, "demo.service", "50-desc", text, &err), 1);
        assert_int_equal(unit_install_dropin(root, "demo.service", "50-desc", text, &err), 0);
        assert_int_equal(unit_install_dropin(root, "demo.service", "50-desc.conf", text, &err), 0);
        _cleanup_free_ char *got = NULL;
        assert_int_equal(read_full_file(conf, &got, NULL), 0);
        assert_string_equal(got, text);
        assert_int_equal(unit_install_dropin(root, "demo.service", "a/b", text, &err), -EINVAL);
        assert_int_equal(unit_install_dropin(root, "", "x", text, &err), -EINVAL);
        strbuf_reset(&err);
        assert_int_equal(unit_install_dropin(root, "..", "x", text, &err), -EINVAL);
        assert_string_equal(err.buf, "drop-in \"x\" of unit \"..\": invalid name");
        strbuf_reset(&err);

        /* the user manager reads drop-ins next to its units: link the directory there */
        assert_int_equal(symlink(dropdir, userdir), 0);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
        assert_true(sd_bus_get_property_string(bus, "org.freedesktop.systemd1",
                            "/org/freedesktop/systemd1/unit/demo_2eservice", "org.freedesktop.systemd1.Unit",
                            "Description", NULL, &desc) >= 0);
        assert_string_equal(desc, "changed by a drop-in");

        assert_int_equal(unit_remove_dropin(root, "demo.service", "50-desc", &err), 1);
        assert_int_equal(unit_remove_dropin(root, "demo.service", "50-desc", &err), 0);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
        free(desc);
        desc = NULL;
        assert_true(sd_bus_get_property_string(bus, "org.freedesktop.systemd1",
                            "/org/freedesktop/systemd1/unit/demo_2eservice", "org.freedesktop.systemd1.Unit",
                            "Description", NULL, &desc) >= 0);
        assert_string_equal(desc, "demo");
        assert_string_equal(err.buf, "");
}

/* A test process killed by SIGKILL leaves no process of its manager behind, and the cgroups
 * it leaves are removed by the next sweep. */
static void test_killed_test_leaves_nothing(void **state) {
        int pipefd[2];
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct manager m;
                prctl(PR_SET_PDEATHSIG, SIGKILL); /* a dying test takes this child along */
                setenv("TMPDIR", mgr.dir, 1);     /* its files go with the group's */
                close(pipefd[0]);
                if (manager_start(&m) < 0)
                        _exit(1);
                /* the manager runs when its bus socket exists */
                _cleanup_free_ char *sock = xasprintf("%s/bus", m.run);
                for (int i = 0; i < 1000 && access(sock, F_OK) < 0; i++)
                        sleep_ms(10);
                int n_cg = 0; /* the namespace's cgroups, made and holding the init */
                for (int i = 0; i < 2; i++)
                        n_cg += m.cg[i] && cgroup_populated(m.cg[i], i == 0) > 0;
                dprintf(pipefd[1], "%s\n%s\n%d\n", m.pidns, m.dir, n_cg);
                close(pipefd[1]);
                for (;;)
                        pause();
        }
        close(pipefd[1]);
        /* the child's namespace init inherits the write end: read three lines, not to EOF */
        char buf[1024] = "";
        size_t n = 0;
        uint64_t deadline = now_usec() + 15 * 1000000ULL;
        while (n < sizeof(buf) - 1 && now_usec() < deadline) {
                struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
                if (poll(&pfd, 1, 100) <= 0)
                        continue;
                ssize_t k = read(pipefd[0], buf + n, sizeof(buf) - 1 - n);
                if (k <= 0)
                        break;
                n += (size_t) k;
                buf[n] = '\0';
                char *first = strchr(buf, '\n'), *second = first ? strchr(first + 1, '\n') : NULL;
                if (second && strchr(second + 1, '\n'))
                        break;
        }
        close(pipefd[0]);
        kill(pid, SIGKILL);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
        char *nl = strchr(buf, '\n');
        assert_non_null(nl);
        *nl = '\0';
        const char *dir = nl + 1;
        char *nl2 = strchr(dir, '\n');
        assert_non_null(nl2);
        *nl2 = '\0';
        int n_cg = atoi(nl2 + 1);
        assert_true(startswith(buf, "pid:["));
        int left = -1;
        for (int i = 0; i < 200 && (left = scan_namespace(buf, 0, NULL)) > 0; i++)
                sleep_ms(10);
        if (startswith(dir, "/") && strstr(dir, CG_PREFIX))
                (void) nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        assert_int_equal(left, 0);

        /* its namespace had its own cgroups; they stay behind, empty, until a sweep (this
         * one, or a concurrent run's) removes them */
        const char *bases[2];
        cgroup_bases(bases);
        assert_int_equal(n_cg, (bases[0] != NULL) + (bases[1] != NULL));
        assert_true(cgroup_remove_stale() >= 0);
        for (int i = 0; i < 2; i++) {
                _cleanup_free_ char *cg =
                        bases[i] ? xasprintf("%s/" CG_PREFIX "%d", bases[i], (int) pid) : NULL;
                if (cg)
                        assert_int_equal(access(cg, F_OK), -1);
        }
}

/* The path of controller ctl ("" for cgroup2, "name=systemd") in a /proc/PID/cgroup text
 * ("ID:CONTROLLERS:PATH" lines), a copy; NULL when not there. */
static char *cgroup_line(const char *text, const char *ctl) {
        size_t l = strlen(ctl);
        for (const char *line = text; line && *line;) {
                const char *eol = strchrnul(line, '\n'), *c = strchr(line, ':');
                if (c && c < eol && strncmp(c + 1, ctl, l) == 0 && c[1 + l] == ':')
                        return xstrndup(c + 2 + l, (size_t) (eol - (c + 2 + l)));
                line = *eol ? eol + 1 : NULL;
        }
        return NULL;
}

/* Appends to bad each line of pid's /proc/PID/cgroup that is not where it should be: in the
 * hierarchies the namespace sees (cgroup2, name=systemd), under own; in the others (the host's
 * v1 controllers), where the test process self is. A process that is gone is fine. */
static void check_process_cgroups(pid_t pid, const char *self, const char *own, struct strbuf *bad) {
        char path[64];
        _cleanup_free_ char *text = NULL;
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
        if (read_full_file(path, &text, NULL) < 0)
                return;
        for (char *line = text, *eol; line && *line; line = *eol ? eol + 1 : NULL) {
                eol = strchrnul(line, '\n');
                char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2 || c2 > eol)
                        break;
                _cleanup_free_ char *ctl = xstrndup(c1 + 1, (size_t) (c2 - c1 - 1));
                _cleanup_free_ char *cg = xstrndup(c2 + 1, (size_t) (eol - c2 - 1));
                const char *rest = startswith(cg, own);
                _cleanup_free_ char *want = NULL;
                if (isempty(ctl) || streq(ctl, "name=systemd")) {
                        if (rest && (*rest == '\0' || *rest == '/'))
                                continue;
                } else if ((want = cgroup_line(self, ctl)) && streq(want, cg))
                        continue;
                strbuf_addf(bad, "  pid %d: \"%s\" in %s, not %s\n", (int) pid, ctl, cg, want ? want : own);
        }
}

/* Counts the cgroups named name in the host's hierarchy tree at dir (depth-bounded), leaving
 * out this test's and juju-sim's top-level cgroups. */
static int count_named(const char *dir, const char *name, int depth) {
        _cleanup_(closedirp) DIR *d = depth < 8 ? opendir(dir) : NULL;
        int n = 0;
        for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (depth == 0 && (startswith(de->d_name, CG_PREFIX) || startswith(de->d_name, "jsim-")))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", dir, de->d_name);
                n += streq(de->d_name, name) + count_named(sub, name, depth + 1);
        }
        return n;
}

/* The manager ran in its own cgroups: its units' cgroups are under CG_PREFIX<pid> on the host
 * and at the root of what it sees; the host's cgroups are as before. */
static void test_host_cgroups_untouched(void **state) {
        struct unit_state st;
        pid_t outer = 0;
        _cleanup_free_ char *cgroup = NULL, *procs = NULL, *init_procs = NULL;
        _cleanup_free_ char *own = xasprintf("/" CG_PREFIX "%d", (int) getpid());
        const char *bases[2];
        cgroup_bases(bases);

        CHECK(unit_start(bus, "demo.service", TIMEOUT, ERR));
        state_of("demo.service", &st);
        assert_true(scan_namespace(mgr.pidns, (pid_t) st.main_pid, &outer) > 0 && outer > 0);
        /* the manager sees its cgroup as the root (cgroup namespace) */
        assert_true(sd_bus_get_property_string(bus, "org.freedesktop.systemd1",
                            "/org/freedesktop/systemd1/unit/demo_2eservice",
                            "org.freedesktop.systemd1.Service", "ControlGroup", NULL, &cgroup) >= 0);
        print_message("demo.service: ControlGroup %s (as the manager sees it)\n", cgroup);
        assert_string_equal(cgroup, "/app.slice/demo.service");
        /* the host sees it, and the namespace's init, under our cgroup */
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) outer);
        assert_int_equal(read_full_file(path, &procs, NULL), 0);
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) mgr.init_pid);
        assert_int_equal(read_full_file(path, &init_procs, NULL), 0);
        for (int i = 0; i < 2; i++) {
                if (!bases[i])
                        continue;
                const char *ctl = i == 0 ? "" : "name=systemd";
                _cleanup_free_ char *unit_cg = cgroup_line(procs, ctl),
                                    *init_cg = cgroup_line(init_procs, ctl);
                _cleanup_free_ char *want = xasprintf("%s/app.slice/demo.service", own);
                print_message("host view, \"%s\": demo.service in %s, the namespace's init in %s\n", ctl,
                        strempty(unit_cg), strempty(init_cg));
                const char *rest = init_cg ? startswith(init_cg, own) : NULL;
                assert_true(rest && (*rest == '\0' || *rest == '/'));
                if (i == 1 && unit_cg && init_cg && streq(unit_cg, init_cg)) {
                        /* systemd 256 and later run on cgroup2 alone: the name=systemd hierarchy
                         * is left as the test set it (the namespace's cgroup), never the host's */
                        print_message("  this manager leaves the name=systemd hierarchy alone\n");
                        continue;
                }
                assert_string_equal(strempty(unit_cg), want);
                _cleanup_free_ char *dir = xasprintf("%s%s", bases[i], want);
                assert_int_equal(access(dir, F_OK), 0);
        }

        /* no process of the namespace is in a host cgroup, none of its units' cgroups is there */
        _cleanup_free_ char *self = NULL;
        _cleanup_strbuf_ struct strbuf bad = STRBUF_INIT;
        assert_int_equal(read_full_file("/proc/self/cgroup", &self, NULL), 0);
        pid_t pids[64];
        int n = namespace_pids(mgr.pidns, pids, (int) ELEMENTSOF(pids));
        for (int i = 0; i < n; i++)
                check_process_cgroups(pids[i], self, own, &bad);
        for (size_t i = 0; i < host_before.hiers.n; i++) {
                int k = count_named(host_before.hiers.v[i], "demo.service", 0);
                if (k > 0)
                        strbuf_addf(
                                &bad, "  %s: %d cgroups named demo.service\n", host_before.hiers.v[i], k);
        }
        print_message("%d processes of the namespace checked in %zu hierarchies\n", n, host_before.hiers.n);
        if (bad.len > 0)
                print_error("the manager's namespace is in the host's cgroups:\n%s", bad.buf);
        assert_true(n >= 3); /* the init, the manager, demo.service */
        assert_int_equal(bad.len, 0);

        CHECK(unit_stop(bus, "demo.service", TIMEOUT, ERR));
        assert_int_equal(host_check("while the manager runs", true), 0);
}

/* A daemon that re-executes itself while its stop is under way (Slurm 23.11+ on a reconfigure)
 * hands the main PID to a process systemd never signals: the stop, restart and try-restart
 * send that process the stop signal (unit.h). The first process of handover.service, on
 * SIGTERM, forks a successor, announces it as MAINPID (from the main PID itself, as slurmd
 * does) and exits 300 ms later; the successor writes its PID to a mark file when it gets
 * SIGTERM. Without the follow, the stop would wait out TimeoutStopSec (60 s) and SIGKILL the
 * successor, leaving no mark. */
static void test_stop_follows_handover(void **state) {
        _cleanup_free_ char *script = xasprintf("%s/stopper.py", mgr.dir);
        _cleanup_free_ char *mark = xasprintf("%s/handover.mark", mgr.dir);
        _cleanup_free_ char *unit = xasprintf("%s/handover.service", mgr.unitdir);
        _cleanup_free_ char *text = NULL;
        write_text(script,
                "import os, signal, socket, sys, time\n"
                "def successor(*_):\n"
                "    with open(sys.argv[1], 'w') as f:\n"
                "        f.write('%d\\n' % os.getpid())\n"
                "    os._exit(0)\n"
                "def notify(what):\n"
                "    addr = os.environ['NOTIFY_SOCKET']\n"
                "    addr = '\\0' + addr[1:] if addr[0] == '@' else addr\n"
                "    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(what, addr)\n"
                "def hand_over(*_):\n"
                "    pid = os.fork()\n"
                "    if pid == 0:\n"
                "        signal.signal(signal.SIGTERM, successor)\n"
                "        while True:\n"
                "            time.sleep(0.05)\n"
                "    notify(b'MAINPID=%d' % pid)\n"
                "    time.sleep(0.3)\n"
                "    os._exit(0)\n"
                "def slow(*_):\n"
                "    with open(sys.argv[1], 'a') as f:\n"
                "        f.write('term\\n')\n"
                "    global stopping\n"
                "    stopping = True\n"
                "stopping = False\n"
                "signal.signal(signal.SIGTERM, hand_over if sys.argv[2] == 'handover' else slow)\n"
                "signal.signal(signal.SIGHUP, hand_over)\n"
                "notify(b'READY=1')\n"
                "while not stopping:\n"
                "    time.sleep(0.05)\n"
                "time.sleep(0.3)\n");
        text = xasprintf(
                "[Service]\nType=notify\nNotifyAccess=all\nKillMode=process\nExecStart=/usr/bin/python3 %s "
                "%s %s\nTimeoutStopSec=60\n",
                script, mark, "handover");
        write_text(unit, text);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));

        struct unit_state st;
        const char *how[] = { "stop", "restart", "try-restart" };
        for (int i = 0; i < 3; i++) {
                (void) unlink(mark);
                if (i == 0)
                        CHECK(unit_start(bus, "handover.service", TIMEOUT, ERR));
                state_of("handover.service", &st);
                assert_string_equal(st.active_state, "active");
                uint32_t first = st.main_pid;
                uint64_t t0 = now_usec();
                if (i == 0)
                        CHECK(unit_stop(bus, "handover.service", TIMEOUT, ERR));
                else if (i == 1)
                        CHECK(unit_restart(bus, "handover.service", TIMEOUT, ERR));
                else
                        CHECK(unit_try_restart(bus, "handover.service", TIMEOUT, ERR));
                double ms = (double) (now_usec() - t0) / 1000;
                _cleanup_free_ char *got = NULL;
                if (read_full_file(mark, &got, NULL) < 0) {
                        /* a manager that does not take MAINPID= while stopping (systemd 252) ends
                         * the stop when the first process exits: its main PID was never handed
                         * over (ExecMainPID is still the first), and the successor is left in the
                         * unit's cgroup, unsupervised */
                        uint32_t exec_main = 0;
                        _cleanup_free_ char *path = NULL;
                        assert_int_equal(sd_bus_path_encode("/org/freedesktop/systemd1/unit",
                                                 "handover.service", &path),
                                0);
                        assert_int_equal(sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1", path,
                                                 "org.freedesktop.systemd1.Service", "ExecMainPID", NULL,
                                                 'u', &exec_main),
                                0);
                        if (i == 0 && exec_main == first) {
                                print_message(
                                        "this manager does not take MAINPID= while a stop is under way "
                                        "(the stop ended in %.0f ms, at the first process's exit): "
                                        "no hand-over to follow\n",
                                        ms);
                                CHECK(unit_kill(bus, "handover.service", "all", SIGKILL, TIMEOUT, ERR));
                                break;
                        }
                        _cleanup_free_ char *log = NULL;
                        read_full_file(mgr.log, &log, NULL);
                        fail_msg("%s: the successor of PID %u got no stop signal (%.0f ms); the manager's "
                                 "log:\n%s",
                                how[i], first, ms, strempty(log));
                }
                got[strcspn(got, "\n")] = '\0';
                print_message("%s: successor PID %s signalled; the job took %.0f ms\n", how[i], got, ms);
                state_of("handover.service", &st);
                if (i == 0) {
                        assert_string_equal(st.active_state, "inactive");
                        assert_string_equal(st.result, "success");
                        CHECK(unit_start(bus, "handover.service", TIMEOUT, ERR));
                } else {
                        assert_string_equal(st.active_state, "active");
                        assert_int_not_equal(st.main_pid, first);
                }
        }
        CHECK(unit_stop(bus, "handover.service", TIMEOUT, ERR));

        /* a hand-over while it runs (24.11's re-exec on a reconfigure, here on SIGHUP): a new main
         * PID, the same activation (what lib/charm/slurmctld/ha.h's in-charge record relies on) */
        CHECK(unit_start(bus, "handover.service", TIMEOUT, ERR));
        state_of("handover.service", &st);
        uint32_t before_pid = st.main_pid;
        uint64_t before_act = st.active_enter_usec;
        CHECK(unit_kill(bus, "handover.service", "main", SIGHUP, TIMEOUT, ERR));
        for (int k = 0; k < 100; k++) {
                state_of("handover.service", &st);
                if (st.main_pid != 0 && st.main_pid != before_pid)
                        break;
                sleep_ms(20);
        }
        assert_true(st.main_pid != 0 && st.main_pid != before_pid);
        sleep_ms(400); /* the first process has exited by now */
        state_of("handover.service", &st);
        assert_string_equal(st.active_state, "active");
        assert_true(st.active_enter_usec == before_act);
        print_message(
                "a hand-over while running: MainPID %u -> %u, the same ActiveEnterTimestampMonotonic\n",
                before_pid, st.main_pid);
        CHECK(unit_stop(bus, "handover.service", TIMEOUT, ERR));

        /* a daemon that keeps its main PID is signalled once, however long it takes to exit:
         * each SIGTERM it gets adds a line to the mark (one taken in the 300 ms before its exit
         * would add a second) */
        (void) unlink(mark);
        free(text);
        text = xasprintf(
                "[Service]\nType=notify\nExecStart=/usr/bin/python3 %s %s slow\nTimeoutStopSec=60\n", script,
                mark);
        write_text(unit, text);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
        CHECK(unit_start(bus, "handover.service", TIMEOUT, ERR));
        CHECK(unit_stop(bus, "handover.service", TIMEOUT, ERR));
        _cleanup_free_ char *terms = NULL;
        if (read_full_file(mark, &terms, NULL) < 0)
                fail_msg("the slow daemon got no stop signal");
        assert_string_equal(terms, "term\n");
        /* its restart: the old process signalled once, the new one left running */
        (void) unlink(mark);
        CHECK(unit_start(bus, "handover.service", TIMEOUT, ERR));
        state_of("handover.service", &st);
        uint32_t old_pid = st.main_pid;
        CHECK(unit_restart(bus, "handover.service", TIMEOUT, ERR));
        sleep_ms(400); /* a stray signal to the new process would have added its line by now */
        free(terms);
        terms = NULL;
        if (read_full_file(mark, &terms, NULL) < 0)
                fail_msg("the slow daemon's restart sent no stop signal");
        assert_string_equal(terms, "term\n");
        state_of("handover.service", &st);
        assert_string_equal(st.active_state, "active");
        assert_int_not_equal(st.main_pid, old_pid);
        CHECK(unit_stop(bus, "handover.service", TIMEOUT, ERR));
        (void) unlink(unit);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
}

/* Runs fn in a process inside the manager's namespaces (cgroup, mount, PID): the view a charm's
 * hook has of its machine's manager, where PIDs and cgroup paths are the manager's own. fn
 * returns NULL, or a message that fails the test. */
typedef const char *(*ns_fn)(sd_bus *b);
static void in_manager(ns_fn fn) {
        int pfd[2];
        assert_int_equal(pipe(pfd), 0);
        pid_t c = fork();
        assert_true(c >= 0);
        if (c == 0) {
                close(pfd[0]);
                /* all opened first: the mount namespace's /proc is the PID namespace's */
                static const char *const kinds[] = { "cgroup", "pid", "mnt" };
                int fds[3];
                for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                        char path[64];
                        snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int) mgr.init_pid, kinds[i]);
                        if ((fds[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
                                dprintf(pfd[1], "%s: %s", path, strerror(errno));
                                _exit(1);
                        }
                }
                /* and the init's root: joining a mount namespace sets the root to the
                 * namespace's, which is not this test's when it runs chrooted (the Debian 13
                 * tree of tools/rootfs) */
                char rootp[64];
                snprintf(rootp, sizeof(rootp), "/proc/%d/root", (int) mgr.init_pid);
                int root = open(rootp, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (root < 0) {
                        dprintf(pfd[1], "%s: %s", rootp, strerror(errno));
                        _exit(1);
                }
                for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                        if (setns(fds[i], 0) < 0) {
                                dprintf(pfd[1], "setns %s: %s", kinds[i], strerror(errno));
                                _exit(1);
                        }
                        close(fds[i]);
                }
                if (fchdir(root) < 0 || chroot(".") < 0) {
                        dprintf(pfd[1], "the init's root: %s", strerror(errno));
                        _exit(1);
                }
                close(root);
                pid_t g = fork();
                if (g == 0) {
                        sd_bus *b = NULL;
                        const char *m = unit_bus_open(&b, NULL) < 0 ? "no bus in the namespace" : fn(b);
                        if (m)
                                dprintf(pfd[1], "%s", m);
                        sd_bus_flush_close_unref(b);
                        _exit(m ? 1 : 0);
                }
                int st = 0;
                if (g < 0 || waitpid(g, &st, 0) < 0)
                        _exit(2);
                _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 3);
        }
        close(pfd[1]);
        char msg[1024] = "";
        size_t len = 0;
        for (ssize_t n; len < sizeof(msg) - 1 && (n = read(pfd[0], msg + len, sizeof(msg) - 1 - len)) > 0;)
                len += (size_t) n;
        msg[len] = '\0';
        close(pfd[0]);
        int st = 0;
        assert_int_equal(waitpid(c, &st, 0), c);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                fail_msg("in the manager's namespaces: %s (status %d)", msg, st);
}

static char reexec_mark[PATH_MAX];

/* the PID a file holds, waiting up to 5 s for it; 0 when none came */
static pid_t pid_in(const char *path) {
        for (int i = 0; i < 100; i++, sleep_ms(50)) {
                _cleanup_free_ char *s = NULL;
                if (read_full_file(path, &s, NULL) >= 0 && atoi(s) > 0)
                        return (pid_t) atoi(s);
        }
        return 0;
}

/* whether pid is gone (or a zombie), waiting up to ms for it */
static bool gone_within(pid_t pid, long ms) {
        for (long t = 0;; t += 20, sleep_ms(20)) {
                char path[64];
                snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
                char buf[PATH_MAX];
                if (readlink(path, buf, sizeof(buf)) < 0)
                        return true;
                if (t >= ms)
                        return false;
        }
}

/* the PID (in this namespace) of a process whose command line starts with argv0 and holds
 * needle; 0 if none */
static pid_t pid_by_cmdline(const char *argv0, const char *needle) {
        _cleanup_(closedirp) DIR *d = opendir("/proc");
        for (struct dirent *de; d && (de = readdir(d));) {
                char path[300], *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0)
                        continue;
                snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
                _cleanup_free_ char *cmd = NULL;
                size_t len = 0;
                if (read_full_file(path, &cmd, &len) < 0 || !streq(cmd, argv0))
                        continue;
                if (memmem(cmd, len, needle, strlen(needle)))
                        return (pid_t) pid;
        }
        return 0;
}

/* the job process (another program) the daemon started (/bin/sleep 1000) */
static pid_t job_pid(void) {
        return pid_by_cmdline("/bin/sleep", "1000");
}

/* the job's process that runs the daemon's own program (python3 -c "…sleep(1001)", started by a
 * shell the daemon started, as a job may run the slurmd binary) */
static pid_t job2_pid(void) {
        return pid_by_cmdline("/usr/bin/python3", "time.sleep(1001)");
}

static const char *reexec_scenario(sd_bus *b) {
        static char msg[512];
        struct unit_state st;
        const char *u = "reexec.service";
        (void) unlink(reexec_mark);
        if (unit_start(b, u, TIMEOUT, NULL) < 0)
                return "start";
        pid_t job = job_pid(), job2 = 0;
        for (int i = 0; i < 100 && !(job2 = job2_pid()); i++)
                sleep_ms(20);
        if (!job || !job2)
                return "the daemon's job processes did not start";
        /* a re-execution that never ends: the stop signal the old process takes is lost */
        if (unit_kill(b, u, "main", SIGHUP, TIMEOUT, NULL) < 0)
                return "SIGHUP";
        pid_t copy = pid_in(reexec_mark);
        if (!copy)
                return "no re-executed copy";
        uint64_t t0 = now_usec();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = unit_stop(b, u, 30 * 1000 * 1000ULL, &err);
        double s = (double) (now_usec() - t0) / 1e6;
        if (r < 0 || s > 10) {
                snprintf(msg, sizeof(msg),
                        "the stop (%d %s) took %.1f s with TimeoutStopSec=60: the copy got no stop signal",
                        r, strempty(err.buf), s);
                return msg;
        }
        if (!gone_within(copy, 3000))
                return "the re-executed copy outlived the stop";
        if (unit_get_state(b, u, &st, NULL) < 0 || !streq(st.active_state, "inactive"))
                return "not inactive after the stop";
        if (job_pid() != job)
                return "the job's process (another program) did not survive the stop (KillMode=process)";
        if (job2_pid() != job2)
                return "the job's process running the daemon's program (its parent a shell of the unit) did not survive the stop";
        dprintf(STDOUT_FILENO,
                "a stop that met a re-execution that never ended: %.2f s, the job's process spared\n", s);

        /* a copy left behind by a daemon that died during its re-execution: the next start
         * ends it first */
        (void) unlink(reexec_mark);
        if (unit_start(b, u, TIMEOUT, NULL) < 0)
                return "second start";
        if (unit_kill(b, u, "main", SIGHUP, TIMEOUT, NULL) < 0)
                return "second SIGHUP";
        pid_t stray = pid_in(reexec_mark);
        if (!stray)
                return "no second copy";
        if (unit_kill(b, u, "main", SIGKILL, TIMEOUT, NULL) < 0)
                return "SIGKILL of the main process";
        for (int i = 0; i < 150; i++, sleep_ms(20))
                if (unit_get_state(b, u, &st, NULL) >= 0 && st.main_pid == 0 &&
                        !streq(st.active_state, "active") && !streq(st.active_state, "deactivating"))
                        break;
        if (gone_within(stray, 0))
                return "the copy died with the main process: nothing to test";
        (void) unlink(reexec_mark);
        if (unit_start(b, u, TIMEOUT, &err) < 0) {
                snprintf(msg, sizeof(msg), "start beside a stray copy: %s", strempty(err.buf));
                return msg;
        }
        if (!gone_within(stray, 0))
                return "the start left the stray copy running beside the new daemon";
        if (job2_pid() != job2)
                return "the start ended a job's process that runs the daemon's program";
        dprintf(STDOUT_FILENO, "a start found a stray copy of its daemon (%s) and ended it first\n",
                st.active_state);

        /* cleanup: every process of the unit, the jobs included */
        (void) unit_stop(b, u, TIMEOUT, NULL);
        for (pid_t j; (j = job_pid()) > 0 || (j = job2_pid()) > 0;) {
                kill(j, SIGKILL);
                if (!gone_within(j, 2000))
                        return "a job process would not die";
        }
        return NULL;
}

/* A stop that meets a re-execution that never ends (24.11 slurmd: a reconfigure's re-exec holds
 * the old process, whose SIGTERM was lost while it was quiesced, until the new process reports;
 * seen in charm-reintegrate-debian13, a hook's restart waited out its 60 s), and a copy of the
 * daemon left in the cgroup before a start: the copies are ended, the job's process (another
 * program, KillMode=process) is not. Run inside the manager's namespaces, as a hook runs in its
 * machine. */
static void test_stop_ends_copies(void **state) {
        _cleanup_free_ char *script = xasprintf("%s/reexec.py", mgr.dir);
        _cleanup_free_ char *unit = xasprintf("%s/reexec.service", mgr.unitdir);
        snprintf(reexec_mark, sizeof(reexec_mark), "%s/reexec.mark", mgr.dir);
        write_text(script,
                "import os, signal, socket, subprocess, sys, time\n"
                "def notify(what):\n"
                "    addr = os.environ['NOTIFY_SOCKET']\n"
                "    addr = '\\0' + addr[1:] if addr[0] == '@' else addr\n"
                "    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(what, addr)\n"
                "job = subprocess.Popen(['/bin/sleep', '1000'])\n"
                "job2 = subprocess.Popen(['/bin/sh', '-c', '/usr/bin/python3 -c \"import time; time.sleep(1001)\"; true'])\n"
                "def reexec(*_):\n"
                "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                "    r, w = os.pipe()\n"
                "    pid = os.fork()\n"
                "    if pid == 0:\n"
                "        os.close(r)\n"
                "        if os.fork():\n"
                "            os._exit(0)\n"
                "        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))\n"
                "        signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
                "        with open(sys.argv[1], 'w') as f:\n"
                "            f.write('%d\\n' % os.getpid())\n"
                "        while True:\n"
                "            time.sleep(0.05)\n"
                "    os.close(w)\n"
                "    os.waitpid(pid, 0)\n"
                "    os.read(r, 8)\n"
                "    os._exit(0)\n"
                "signal.signal(signal.SIGHUP, reexec)\n"
                "notify(b'READY=1')\n"
                "while True:\n"
                "    time.sleep(0.05)\n");
        _cleanup_free_ char *text = xasprintf("[Service]\nType=notify\nNotifyAccess=all\nKillMode=process\n"
                                              "ExecStart=/bin/sh -c 'exec /usr/bin/python3 %s %s'\nTimeoutStopSec=60\n"
                                              "Environment=" UNIT_END_COPIES_VAR "=/usr/bin/python3\n",
                script, reexec_mark);
        write_text(unit, text);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
        in_manager(reexec_scenario);
        (void) unlink(unit);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
}

/* A start that fails while Restart= starts the unit again (a 24.11 daemon re-executed before
 * READY=1) is the automatic start's: flaky.service fails its first start (no READY=1, exit 1)
 * and comes up on the second; broken.service fails every start. */
static void test_start_waits_auto_restart(void **state) {
        _cleanup_free_ char *script = xasprintf("%s/flaky.py", mgr.dir);
        _cleanup_free_ char *once = xasprintf("%s/flaky.once", mgr.dir);
        _cleanup_free_ char *unit = xasprintf("%s/flaky.service", mgr.unitdir);
        _cleanup_free_ char *unit2 = xasprintf("%s/broken.service", mgr.unitdir);
        _cleanup_free_ char *text = NULL;
        (void) unlink(once);
        write_text(script,
                "import os, socket, sys, time\n"
                "if sys.argv[2] == 'broken' or not os.path.exists(sys.argv[1]):\n"
                "    open(sys.argv[1], 'w').close()\n"
                "    sys.exit(1)\n"
                "addr = os.environ['NOTIFY_SOCKET']\n"
                "addr = '\\0' + addr[1:] if addr[0] == '@' else addr\n"
                "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'READY=1', addr)\n"
                "while True:\n"
                "    time.sleep(1)\n");
        text = xasprintf("[Unit]\nStartLimitBurst=10\n[Service]\nType=notify\nRestart=on-failure\n"
                         "RestartSec=300ms\nExecStart=/usr/bin/python3 %s %s flaky\n",
                script, once);
        write_text(unit, text);
        free(text);
        text = xasprintf("[Unit]\nStartLimitBurst=10\n[Service]\nType=notify\nRestart=on-failure\n"
                         "RestartSec=300ms\nExecStart=/usr/bin/python3 %s %s broken\n",
                script, once);
        write_text(unit2, text);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));

        struct unit_state st;
        CHECK(unit_start(bus, "flaky.service", TIMEOUT, ERR));
        state_of("flaky.service", &st);
        assert_string_equal(st.active_state, "active");
        assert_int_equal(st.n_restarts, 1);
        CHECK(unit_stop(bus, "flaky.service", TIMEOUT, ERR));

        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = unit_start(bus, "broken.service", TIMEOUT, &err);
        print_message("broken.service: %d %s\n", r, err.buf);
        assert_int_equal(r, -EIO);
        assert_non_null(strstr(err.buf, "job finished with result \"failed\"; its automatic restart too"));
        state_of("broken.service", &st);
        assert_true(st.n_restarts >= 1);
        CHECK(unit_stop(bus, "broken.service", TIMEOUT, ERR));
        (void) unlink(unit);
        (void) unlink(unit2);
        CHECK(unit_daemon_reload(bus, TIMEOUT, ERR));
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: needs root (namespaces, mounts)\n");
                return 77;
        }
        if (access(SYSTEMD_BIN, X_OK) < 0) {
                fprintf(stderr, "skipped: no %s\n", SYSTEMD_BIN);
                return 77;
        }
        atexit(stop_at_exit);
        signal(SIGTERM, on_fatal_signal);
        signal(SIGINT, on_fatal_signal);
        signal(SIGHUP, on_fatal_signal);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_start_restart_stop),
                cmocka_unit_test(test_failures),
                cmocka_unit_test(test_watch_kill),
                cmocka_unit_test(test_watch_sd_event),
                cmocka_unit_test(test_stop_follows_handover),
                cmocka_unit_test(test_start_waits_auto_restart),
                cmocka_unit_test(test_stop_ends_copies),
                cmocka_unit_test(test_enable_disable),
                cmocka_unit_test(test_dropin_daemon_reload),
                cmocka_unit_test(test_killed_test_leaves_nothing),
                cmocka_unit_test(test_host_cgroups_untouched),
        };
        int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
        return failed > 0 ? failed : fixture_failed ? 1 : 0;
}
