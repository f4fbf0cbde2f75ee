/* SPDX-License-Identifier: Apache-2.0 */
#include "systemd/strays.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "proc/proc.h"

#include "util/banned.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_SERVICE_IFACE "org.freedesktop.systemd1.Service"
#define SD_UNIT_PREFIX "/org/freedesktop/systemd1/unit"
#define CALL_TIMEOUT_USEC (10 * 1000 * 1000ULL)
#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP_DEPTH_MAX 8

/* Properties.Get of the Service interface, within CALL_TIMEOUT_USEC. */
static int service_prop(sd_bus *bus, const char *unit, const char *name, const char *type, sd_bus_message **reply) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_free_ char *path = NULL;
        int r = sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, path, "org.freedesktop.DBus.Properties", "Get");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", SD_SERVICE_IFACE, name);
        if (r >= 0)
                r = sd_bus_call(bus, m, CALL_TIMEOUT_USEC, &error, reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(*reply, 'v', type);
        return r;
}

int unit_copies_program(sd_bus *bus, const char *unit, char **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        *ret = NULL;
        int r = service_prop(bus, unit, "Environment", "as", &reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "s");
        const char *e, *v = NULL;
        while (r > 0 && (r = sd_bus_message_read(reply, "s", &e)) > 0)
                if ((v = startswith(e, UNIT_END_COPIES_VAR "=")) && *v == '/')
                        break;
                else
                        v = NULL;
        if (r < 0)
                return r;
        if (!v)
                return 0;
        char buf[PATH_MAX];
        *ret = xstrdup(realpath(v, buf) ? buf : v);
        return 1;
}

struct pids {
        pid_t *v;
        size_t n, cap;
};

/* every process of the cgroup dir and the cgroups below it */
static void scan(const char *dir, struct pids *all, int depth) {
        _cleanup_free_ char *procs_path = xasprintf("%s/cgroup.procs", dir);
        _cleanup_free_ char *procs = NULL;
        if (read_full_file(procs_path, &procs, NULL) >= 0) {
                for (char *p = procs, *end; *p; p = end) {
                        long pid = strtol(p, &end, 10);
                        if (end == p)
                                break;
                        if (pid <= 0)
                                continue;
                        if (all->n == all->cap) {
                                all->cap = all->cap ? 2 * all->cap : 64;
                                all->v = xrealloc(all->v, all->cap * sizeof(*all->v));
                        }
                        all->v[all->n++] = (pid_t) pid;
                }
        }
        if (depth >= CGROUP_DEPTH_MAX)
                return;
        DIR *d = opendir(dir);
        if (!d)
                return;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_type != DT_DIR || e->d_name[0] == '.')
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", dir, e->d_name);
                scan(sub, all, depth + 1);
        }
        closedir(d);
}

static bool has_pid(const struct pids *all, pid_t pid) {
        for (size_t i = 0; i < all->n; i++)
                if (all->v[i] == pid)
                        return true;
        return false;
}

int unit_program_pids(sd_bus *bus, const char *unit, const char *program, pid_t *pids, size_t max) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *cg = NULL;
        int r = service_prop(bus, unit, "ControlGroup", "s", &reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &cg);
        if (r < 0)
                return r;
        if (isempty(cg) || !program)
                return 0;
        /* the manager's hierarchy: cgroup2 alone, or (a hybrid host) its cgroup2 or name=systemd
         * mount; the first that holds the unit's cgroup */
        static const char *const roots[] = { CGROUP_ROOT, CGROUP_ROOT "/unified", CGROUP_ROOT "/systemd" };
        for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
                _cleanup_free_ char *dir = xasprintf("%s%s", roots[i], cg);
                _cleanup_free_ char *procs = xasprintf("%s/cgroup.procs", dir);
                if (access(procs, R_OK) < 0)
                        continue;
                struct pids all = { 0 };
                scan(dir, &all, 0);
                /* the daemon's own: its program, and a parent outside the unit (the manager, or
                 * the subreaper a double fork hands it to); a process a job or a script of the
                 * unit started (its parent in the unit, running another program) is not one,
                 * whatever it runs, nor a fork of a live daemon (its parent is the daemon) */
                size_t n = 0;
                for (size_t k = 0; k < all.n && n < max; k++) {
                        _cleanup_free_ char *prog = proc_pid_program(all.v[k]);
                        if (!prog || !streq(prog, program))
                                continue;
                        pid_t pp = 0;
                        if (proc_pid_parent(all.v[k], &pp) < 0 || pp == 0 || has_pid(&all, pp))
                                continue;
                        pids[n++] = all.v[k];
                }
                free(all.v);
                return (int) n;
        }
        return 0;
}

static bool runs(pid_t pid, const char *program) {
        _cleanup_free_ char *prog = proc_pid_program(pid);
        return prog && streq(prog, program);
}

int pids_end(const pid_t *pids, size_t n, const char *program, int sig, uint64_t grace_usec) {
        for (size_t i = 0; i < n; i++)
                (void) kill(pids[i], sig);
        const struct timespec step = { 0, 50 * 1000 * 1000 };
        for (uint64_t waited = 0;; waited += 50 * 1000) {
                size_t left = 0;
                for (size_t i = 0; i < n; i++)
                        if (runs(pids[i], program))
                                left++;
                if (left == 0)
                        return 0;
                if (waited >= grace_usec)
                        break;
                nanosleep(&step, NULL);
        }
        int killed = 0;
        for (size_t i = 0; i < n; i++)
                if (runs(pids[i], program) && kill(pids[i], SIGKILL) == 0)
                        killed++;
        return killed;
}
