/* SPDX-License-Identifier: Apache-2.0 */
/* How many more namespace machines this host can hold, limit by limit (inotify instances and
 * watches of this uid, tasks, memory, the caller's v1 pids/memory cgroups), read from /proc now. */
#include "util/macro.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>

#include "machine.h"
#include "machine-internal.h"
#include "util/alloc.h"
#include "util/fileio.h"

#include "util/banned.h"

/* Inotify fds looked at (a host has far fewer; beyond this they are counted, not compared). */
#define INOTIFY_FDS_MAX 4096

static uint64_t min_u64(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}

void machine_capacity_clear(struct machine_capacity *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n; i++) {
                free(c->limits[i].name);
                free(c->limits[i].setting);
        }
        free(c->limits);
        *c = (struct machine_capacity){ .machines = UINT_MAX };
}

void machine_capacity_add(struct machine_capacity *c, const char *name, const char *setting,
        const char *unit, bool model_scope, uint64_t max, uint64_t used, uint64_t reserve,
        uint64_t per_machine) {
        c->limits = xrealloc(c->limits, (c->n + 1) * sizeof *c->limits);
        struct machine_limit *l = &c->limits[c->n];
        *l = (struct machine_limit){
                .name = xstrdup(name),
                .setting = xstrdup(setting),
                .unit = unit ? unit : "",
                .model_scope = model_scope,
                .max = max,
                .used = used,
                .reserve = reserve,
                .per_machine = per_machine ? per_machine : 1,
        };
        uint64_t taken = used + reserve;
        uint64_t fit = taken >= max ? 0 : (max - taken) / l->per_machine;
        l->machines = fit > UINT_MAX - 1 ? UINT_MAX - 1 : (unsigned) fit;
        if (c->n == 0 || l->machines < c->machines) {
                c->machines = l->machines;
                c->binding = c->n;
        }
        c->n++;
}

void machine_limit_describe(const struct machine_limit *l, struct strbuf *out) {
        const char *u = l->unit;
        const char *sp = *u ? " " : "";
        strbuf_addf(out, "%s=%" PRIu64 "%s%s, %" PRIu64 "%s%s in use, ", l->setting, l->max, sp, u, l->used,
                sp, u);
        if (l->reserve)
                strbuf_addf(out, "%" PRIu64 "%s%s kept for the host, ", l->reserve, sp, u);
        strbuf_addf(out, "%" PRIu64 "%s%s per machine", l->per_machine, sp, u);
}

/* ---------------------------------------------------------------- reading numbers */

/* The first unsigned number in the file (a sysctl, a cgroup knob); -ERANGE for "max". */
static int read_u64(const char *path, uint64_t *ret) {
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0)
                return r;
        if (startswith(data, "max"))
                return -ERANGE;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(data, &end, 10);
        if (errno || end == data)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* A "Key:   N kB" line of /proc/meminfo, in kB. */
static int meminfo_kb(const char *data, const char *key, uint64_t *ret) {
        for (const char *p = data; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
                const char *v = startswith(p, key);
                if (!v || *v != ':')
                        continue;
                *ret = strtoull(v + 1, NULL, 10);
                return 0;
        }
        return -ENOENT;
}

/* ---------------------------------------------------------------- inotify */

struct inotify_fd {
        pid_t pid;
        int fd;
};

/* The effective uid of pid (the uid an inotify instance it creates is charged to). */
static int pid_euid(pid_t pid, uid_t *ret) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0)
                return r;
        const char *p = strstr(data, "\nUid:");
        if (!p)
                return -EIO;
        char *end;
        strtoul(p + 5, &end, 10); /* real */
        unsigned long e = strtoul(end, NULL, 10);
        *ret = (uid_t) e;
        return 0;
}

/* The number of "inotify wd:" lines (watches) of one inotify fd. */
static uint64_t inotify_watches(pid_t pid, int fd) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int) pid, fd);
        _cleanup_free_ char *data = NULL;
        if (read_full_file(path, &data, NULL) < 0)
                return 0;
        uint64_t n = 0;
        for (const char *p = strstr(data, "inotify wd:"); p; p = strstr(p + 1, "inotify wd:"))
                n++;
        return n;
}

/* Whether two fds are the same open file (kcmp; an fd inherited or dup'ed is one instance).
 * Where kcmp is missing or refused, they count as two: the estimate errs on the safe side. */
static bool same_file(const struct inotify_fd *a, const struct inotify_fd *b) {
        return syscall(SYS_kcmp, a->pid, b->pid, KCMP_FILE, a->fd, b->fd) == 0;
}

/* Counts the inotify instances (distinct open files) and their watches held by processes of
 * uid, from /proc/PID/fd links to anon_inode:inotify and /proc/PID/fdinfo. */
static void inotify_usage(uid_t uid, uint64_t *ret_instances, uint64_t *ret_watches) {
        _cleanup_free_ struct inotify_fd *seen = NULL;
        size_t n_seen = 0;
        uint64_t instances = 0, watches = 0;
        _cleanup_(closedirp) DIR *proc = opendir("/proc");
        struct dirent *de;
        while (proc && (de = readdir(proc))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                uid_t euid;
                if (*end || pid <= 0 || pid_euid((pid_t) pid, &euid) < 0 || euid != uid)
                        continue;
                char fddir[64];
                snprintf(fddir, sizeof fddir, "/proc/%ld/fd", pid);
                _cleanup_(closedirp) DIR *d = opendir(fddir);
                struct dirent *fe;
                while (d && (fe = readdir(d))) {
                        if (fe->d_name[0] == '.')
                                continue;
                        char link[64], path[96];
                        snprintf(path, sizeof path, "%s/%s", fddir, fe->d_name);
                        ssize_t l = readlink(path, link, sizeof link - 1);
                        if (l <= 0)
                                continue;
                        link[l] = '\0';
                        if (!streq(link, "anon_inode:inotify"))
                                continue;
                        struct inotify_fd f = { .pid = (pid_t) pid, .fd = atoi(fe->d_name) };
                        bool dup = false;
                        for (size_t i = 0; i < n_seen && !dup; i++)
                                dup = same_file(&seen[i], &f);
                        if (dup)
                                continue;
                        instances++;
                        watches += inotify_watches(f.pid, f.fd);
                        if (n_seen < INOTIFY_FDS_MAX) {
                                seen = xrealloc(seen, (n_seen + 1) * sizeof *seen);
                                seen[n_seen++] = f;
                        }
                }
        }
        *ret_instances = instances;
        *ret_watches = watches;
}

/* ---------------------------------------------------------------- cgroups */

/* On a hybrid or v1 host a machine stays in its creator's v1 pids cgroup, and its memory cgroup
 * is a child of the creator's (<caller's cgroup>/jsim-H/mN, machine-cgroup.c): either way the
 * tightest limit of the caller's cgroup and its ancestors binds it. limit_file/usage_file: pids.max +
 * pids.current or memory.limit_in_bytes + memory.usage_in_bytes; scale divides both (bytes → MiB). */
static void v1_cgroup_limit(struct machine_capacity *c, const char *controller, const char *limit_file,
        const char *usage_file, uint64_t scale, const char *name, const char *unit, uint64_t reserve_div,
        uint64_t per_machine) {
        _cleanup_free_ char *rel = NULL;
        if (mach_cgroup_find(0, controller, NULL, &rel) < 0)
                return;
        _cleanup_free_ char *best = NULL;
        uint64_t best_max = 0, best_used = 0, best_room = UINT64_MAX;
        for (;;) {
                _cleanup_free_ char *dir = xasprintf("/sys/fs/cgroup/%s%s", controller, rel);
                _cleanup_free_ char *lf = xasprintf("%s/%s", dir, limit_file);
                _cleanup_free_ char *uf = xasprintf("%s/%s", dir, usage_file);
                uint64_t max, used;
                /* memory.limit_in_bytes reads as ~2^63 when unlimited */
                if (read_u64(lf, &max) == 0 && max < (UINT64_C(1) << 62) && read_u64(uf, &used) == 0) {
                        uint64_t room = used >= max ? 0 : max - used;
                        if (room < best_room) {
                                best_room = room;
                                best_max = max / scale;
                                best_used = used / scale;
                                free(best);
                                best = xasprintf("%s of %s", limit_file, dir);
                        }
                }
                char *slash = strrchr(rel, '/');
                if (!slash || streq(rel, "/"))
                        break;
                if (slash == rel)
                        rel[1] = '\0';
                else
                        *slash = '\0';
        }
        if (best)
                machine_capacity_add(c, name, best, unit, false, best_max, best_used,
                        reserve_div ? best_max / reserve_div : 0, per_machine);
}

/* ---------------------------------------------------------------- all of it */

int machine_capacity(struct machine_capacity *ret) {
        struct machine_capacity c = { .machines = UINT_MAX };
        uint64_t v;

        /* inotify: per uid (everything here runs as root), shared by every model on the host */
        uint64_t instances = 0, watches = 0;
        inotify_usage(geteuid(), &instances, &watches);
        if (read_u64("/proc/sys/fs/inotify/max_user_instances", &v) == 0)
                machine_capacity_add(&c, "inotify instances", "fs.inotify.max_user_instances", NULL, false,
                        v, instances, 0, MACHINE_COST_INOTIFY_INSTANCES);
        if (read_u64("/proc/sys/fs/inotify/max_user_watches", &v) == 0)
                machine_capacity_add(&c, "inotify watches", "fs.inotify.max_user_watches", NULL, false, v,
                        watches, 0, MACHINE_COST_INOTIFY_WATCHES);

        /* tasks: the smaller of pid_max and threads-max; in use: the total of /proc/loadavg */
        uint64_t pid_max = 0, threads_max = 0, tasks = 0;
        (void) read_u64("/proc/sys/kernel/pid_max", &pid_max);
        (void) read_u64("/proc/sys/kernel/threads-max", &threads_max);
        _cleanup_free_ char *loadavg = NULL;
        if (read_full_file("/proc/loadavg", &loadavg, NULL) == 0) {
                const char *slash = strchr(loadavg, '/');
                if (slash)
                        tasks = strtoull(slash + 1, NULL, 10);
        }
        if (pid_max || threads_max) {
                bool pid = pid_max && (!threads_max || pid_max <= threads_max);
                uint64_t max = pid ? pid_max : threads_max;
                machine_capacity_add(&c, "tasks", pid ? "kernel.pid_max" : "kernel.threads-max", NULL, false,
                        max, tasks, min_u64(1024, max / 8), MACHINE_COST_TASKS);
        }

        /* memory: MemTotal less what is not available */
        _cleanup_free_ char *meminfo = NULL;
        uint64_t total, avail;
        if (read_full_file("/proc/meminfo", &meminfo, NULL) == 0 &&
                meminfo_kb(meminfo, "MemTotal", &total) == 0 &&
                meminfo_kb(meminfo, "MemAvailable", &avail) == 0 && avail <= total) {
                uint64_t max = total / 1024;
                machine_capacity_add(&c, "memory", "MemTotal", "MiB", false, max, (total - avail) / 1024,
                        min_u64(512, max / 8), MACHINE_COST_MEMORY_MIB);
        }

        /* the caller's own v1 cgroups, whose limits bind the machines (not on a pure cgroup2 host) */
        const char *bases[2];
        mach_cgroup_bases(bases);
        if (!bases[0] || !streq(bases[0], "/sys/fs/cgroup")) {
                v1_cgroup_limit(&c, "pids", "pids.max", "pids.current", 1, "tasks (pids cgroup)", NULL, 0,
                        MACHINE_COST_TASKS);
                v1_cgroup_limit(&c, "memory", "memory.limit_in_bytes", "memory.usage_in_bytes", 1024 * 1024,
                        "memory (memory cgroup)", "MiB", 0, MACHINE_COST_MEMORY_MIB);
        }
        *ret = c;
        return 0;
}
