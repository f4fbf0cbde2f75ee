/* SPDX-License-Identifier: Apache-2.0 */
/* A machine's cgroups in the v1 controller hierarchies that Slurm's cgroup plugins need (hybrid or
 * v1 host), made under the caller's own cgroup and found again by a bounded walk; /proc/PID/cgroup. */
#include "util/macro.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "machine-internal.h"
#include "util/alloc.h"
#include "util/fileio.h"

#include "util/banned.h"

/* freezer: proctrack/cgroup; cpuset, memory, devices: task/cgroup; cpuacct (with memory):
 * jobacct_gather/cgroup. */
const char *const mach_v1_controllers[] = { "freezer", "cpuset", "memory", "devices", "cpuacct", NULL };

/* The walk that finds jsim-H dirs again: how deep below a hierarchy's root, and how many dirs. */
#define V1_SCAN_DEPTH 4
#define V1_SCAN_DIRS 4096

/* s without its trailing whitespace (in place). */
static char *trim(char *s) {
        size_t l = strlen(s);
        while (l > 0 && (s[l - 1] == '\n' || s[l - 1] == ' '))
                s[--l] = '\0';
        return s;
}

/* Whether the comma-separated list holds word ("cpu,cpuacct" holds "cpuacct"). */
static bool list_has(const char *list, const char *word) {
        size_t l = strlen(word);
        for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
                if (strncmp(p, word, l) == 0 && (p[l] == ',' || p[l] == '\0'))
                        return true;
        return false;
}

int mach_cgroup_find(pid_t pid, const char *controller, char **ret_name, char **ret_path) {
        char file[64];
        if (pid > 0)
                snprintf(file, sizeof file, "/proc/%d/cgroup", (int) pid);
        else
                snprintf(file, sizeof file, "/proc/self/cgroup");
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(file, &data, NULL);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        for (char *line = data, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                /* "N:memory:/path", "N:cpu,cpuacct:/path", "N:name=systemd:/path", "0::/path" */
                char *c = strchr(line, ':');
                char *p = c ? strchr(c + 1, ':') : NULL;
                if (!p)
                        continue;
                *p = '\0';
                const char *name = c + 1;
                bool match = streq(name, controller) ||
                        (*controller && !startswith(name, "name=") && list_has(name, controller));
                if (!match)
                        continue;
                if (ret_name)
                        *ret_name = xstrdup(name);
                if (ret_path)
                        *ret_path = xstrdup(p + 1);
                return 0;
        }
        return -ENOENT;
}

char *mach_cgroup_mount(const char *name) {
        const char *n = startswith(name, "name=");
        return xasprintf("/sys/fs/cgroup/%s", n ? n : name);
}

int mach_v1_hierarchies(struct strv *ret) {
        struct statfs s;
        /* a pure cgroup2 host has none: its unified subtree is delegated instead */
        if (statfs("/sys/fs/cgroup", &s) == 0 && (long) s.f_type == CGROUP2_SUPER_MAGIC)
                return 0;
        int n = 0;
        for (size_t i = 0; mach_v1_controllers[i]; i++) {
                _cleanup_free_ char *name = NULL;
                if (mach_cgroup_find(0, mach_v1_controllers[i], &name, NULL) < 0 || strv_contains(ret, name))
                        continue;
                _cleanup_free_ char *mnt = mach_cgroup_mount(name);
                if (statfs(mnt, &s) < 0 || (long) s.f_type != CGROUP_SUPER_MAGIC)
                        continue;
                strv_push(ret, name);
                n++;
        }
        return n;
}

static bool is_model_cgroup(const char *name, const char *want) {
        if (want)
                return streq(name, want);
        const char *h = startswith(name, "jsim-");
        if (!h || strlen(h) != 8)
                return false;
        for (; *h; h++)
                if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')))
                        return false;
        return true;
}

static void scan(const char *dir, int depth, const char *want, size_t *budget, struct strv *ret) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d)) && *budget > 0) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                (*budget)--;
                _cleanup_free_ char *sub = xasprintf("%s/%s", dir, de->d_name);
                if (is_model_cgroup(de->d_name, want))
                        strv_push(ret, sub);
                else if (!startswith(de->d_name, "jsim-") && depth < V1_SCAN_DEPTH)
                        scan(sub, depth + 1, want, budget, ret);
        }
}

void mach_v1_model_dirs(const char *name, struct strv *ret) {
        _cleanup_strv_ struct strv hs = STRV_INIT;
        mach_v1_hierarchies(&hs);
        for (size_t i = 0; i < hs.n; i++) {
                _cleanup_free_ char *mnt = mach_cgroup_mount(hs.v[i]);
                size_t budget = V1_SCAN_DIRS;
                scan(mnt, 1, name, &budget, ret);
        }
}

/* Copies cpuset.cpus and cpuset.mems from the parent of dir where dir has none (a new cpuset
 * cgroup is empty, and no process can join it then). */
static int cpuset_fill(const char *dir) {
        static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
        _cleanup_free_ char *parent = xstrdup(dir);
        *strrchr(parent, '/') = '\0';
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *mine = xasprintf("%s/%s", dir, files[i]);
                _cleanup_free_ char *theirs = xasprintf("%s/%s", parent, files[i]);
                _cleanup_free_ char *cur = NULL, *val = NULL;
                int r = read_full_file(mine, &cur, NULL);
                if (r < 0)
                        return r;
                if (!isempty(trim(cur)))
                        continue;
                r = read_full_file(theirs, &val, NULL);
                if (r < 0)
                        return r;
                r = mach_write_str(mine, trim(val));
                if (r < 0)
                        return r;
        }
        return 0;
}

int mach_v1_create(const char *cg, unsigned id, struct strv *ret_procs, struct strbuf *err) {
        _cleanup_strv_ struct strv hs = STRV_INIT;
        mach_v1_hierarchies(&hs);
        for (size_t i = 0; i < hs.n; i++) {
                _cleanup_free_ char *self = NULL;
                int r = mach_cgroup_find(0, hs.v[i], NULL, &self);
                if (r < 0) {
                        strbuf_addf(err, "cgroup hierarchy \"%s\": not in /proc/self/cgroup", hs.v[i]);
                        return r;
                }
                _cleanup_free_ char *mnt = mach_cgroup_mount(hs.v[i]);
                const char *sep = streq(self, "/") ? "" : self;
                _cleanup_free_ char *model = xasprintf("%s%s/%s", mnt, sep, cg);
                _cleanup_free_ char *path = xasprintf("%s/m%u", model, id);
                r = mkdir_p(path, 0755);
                bool cpuset = list_has(hs.v[i], "cpuset");
                if (r >= 0 && cpuset)
                        r = cpuset_fill(model);
                if (r >= 0 && cpuset)
                        r = cpuset_fill(path);
                if (r < 0) {
                        strbuf_addf(err, "cgroup \"%s\": %s", path, strerror(-r));
                        return r;
                }
                strv_pushf(ret_procs, "%s/cgroup.procs", path);
        }
        return 0;
}
