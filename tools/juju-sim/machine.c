/* SPDX-License-Identifier: Apache-2.0 */
/* juju-sim machines: names, records, host-side network and cgroups, create/destroy.
 * The machine's init (its PID 1) is in machine-init.c, spawning into a machine in machine-spawn.c. */
#include "util/macro.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/magic.h>

#include "machine.h"
#include "machine-internal.h"
#include "proc/proc.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strv.h"

#include "util/banned.h"

static int registry_add(const char *abs, struct strbuf *err);

/* ---------------------------------------------------------------- names and paths */

char *model_name(const char *model_dir) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        size_t l = strlen(abs);
        while (l > 1 && abs[l - 1] == '/')
                abs[--l] = '\0';
        const char *base = strrchr(abs, '/');
        base = base ? base + 1 : abs;
        struct strbuf sb = STRBUF_INIT;
        for (const char *p = base; *p && sb.len < 20; p++) {
                char c = *p;
                if (c >= 'A' && c <= 'Z')
                        c = (char) (c - 'A' + 'a');
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
                        c = '-';
                strbuf_addch(&sb, c);
        }
        while (sb.len > 0 && sb.buf[sb.len - 1] == '-')
                strbuf_setlen(&sb, sb.len - 1);
        size_t lead = 0;
        while (lead < sb.len && sb.buf[lead] == '-')
                lead++;
        if (lead == sb.len) {
                strbuf_release(&sb);
                return xstrdup("model");
        }
        char *r = xstrdup(sb.buf + lead);
        strbuf_release(&sb);
        return r;
}

/* The host-side names of model hash h: what gc finds without the model dir. */
static char *bridge_name_h(uint32_t h) {
        return xasprintf("jsb%08" PRIx32, h);
}

static char *cgroup_name_h(uint32_t h) {
        return xasprintf("jsim-%08" PRIx32, h);
}

static char *veth_name_h(uint32_t h, unsigned id) {
        return xasprintf("jsv%06" PRIx32 "i%u", h & 0xffffffu, id);
}

char *machine_bridge_name(const char *model_dir) {
        return bridge_name_h(mach_model_hash(model_dir));
}

char *machine_cgroup_name(const char *model_dir) {
        return cgroup_name_h(mach_model_hash(model_dir));
}

static char *veth_name(const char *model_dir, unsigned id) {
        return veth_name_h(mach_model_hash(model_dir), id);
}

static char *machine_address(const char *model_dir, unsigned id) {
        return xasprintf("10.201.%u.%u", (unsigned) (mach_model_hash(model_dir) % 250u), id + 10);
}

static char *machine_hostname(const char *model_dir, unsigned id) {
        _cleanup_free_ char *name = model_name(model_dir);
        return xasprintf("juju-%s-%u", name, id);
}

static char *machines_dir(const char *abs) {
        return xasprintf("%s/machines", abs);
}

static char *machine_dir(const char *abs, unsigned id) {
        return xasprintf("%s/machines/%u", abs, id);
}

/* ---------------------------------------------------------------- cgroups */

/* Calls fn on every child cgroup directory of path: 0, or -errno when path cannot be read
 * (-ENOENT when it is gone). */
static int cgroup_for_each_child(const char *path, void (*fn)(const char *sub)) {
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return -errno;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
                fn(sub);
        }
        return 0;
}

static int cgroup_rmdir_tree(const char *path);
static void cgroup_rmdir_sub(const char *sub) {
        (void) cgroup_rmdir_tree(sub);
}

/* Removes a cgroup directory tree, deepest first (cgroup dirs hold only pseudo files). */
static int cgroup_rmdir_tree(const char *path) {
        int r = cgroup_for_each_child(path, cgroup_rmdir_sub);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (rmdir(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

/* Thaws every cgroup of a v1 freezer tree at path (a no-op elsewhere: no freezer.state). A
 * task of a frozen v1 cgroup never dies of SIGKILL, and each cgroup keeps its own state (a
 * thawed parent leaves a frozen child frozen): a machine whose processes a test froze, in its
 * own freezer cgroups or its whole machine's, is destroyed as a real one would be. */
static void cgroup_thaw_tree(const char *path) {
        _cleanup_free_ char *state = xasprintf("%s/freezer.state", path);
        if (access(state, F_OK) < 0)
                return;
        (void) mach_write_str(state, "THAWED");
        (void) cgroup_for_each_child(path, cgroup_thaw_tree);
}

/* 1 when the cgroup tree at path has processes, 0 when not (or missing). */
static int cgroup_populated(const char *path, bool v2) {
        if (v2) {
                _cleanup_free_ char *ev = xasprintf("%s/cgroup.events", path);
                _cleanup_free_ char *data = NULL;
                int r = read_full_file(ev, &data, NULL);
                if (r == -ENOENT)
                        return 0;
                if (r < 0)
                        return r;
                return strstr(data, "populated 1") ? 1 : 0;
        }
        _cleanup_free_ char *procs = xasprintf("%s/cgroup.procs", path);
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(procs, &data, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (!isempty(data))
                return 1;
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
                if (cgroup_populated(sub, false) > 0)
                        return 1;
        }
        return 0;
}

/* Appends the pids listed in path/cgroup.procs to *pids (*n of them; at most max in all). */
static void cgroup_procs_append(const char *path, pid_t **pids, size_t *n, size_t max) {
        _cleanup_free_ char *procs = xasprintf("%s/cgroup.procs", path);
        _cleanup_free_ char *data = NULL;
        if (read_full_file(procs, &data, NULL) < 0)
                return;
        for (char *p = data, *end; *p && *n < max; p = end) {
                long pid = strtol(p, &end, 10);
                if (end == p)
                        break;
                *pids = xrealloc(*pids, (*n + 1) * sizeof **pids);
                (*pids)[(*n)++] = (pid_t) pid;
        }
}

/* Every pid in the cgroup tree at path (at most 16 levels deep and max pids). */
static void cgroup_tree_pids(const char *path, int depth, pid_t **pids, size_t *n, size_t max) {
        cgroup_procs_append(path, pids, n, max);
        if (depth >= 16)
                return;
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
                cgroup_tree_pids(sub, depth + 1, pids, n, max);
        }
}

/* Kills every process of a cgroup tree: cgroup.kill where the kernel has it, else SIGKILL
 * to each pid listed (repeated by the caller's wait loop). */
static void cgroup_kill_tree(const char *path, bool v2) {
        if (v2) {
                _cleanup_free_ char *kill_file = xasprintf("%s/cgroup.kill", path);
                if (mach_write_str(kill_file, "1") == 0)
                        return;
        }
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        cgroup_tree_pids(path, 0, &pids, &n, SIZE_MAX);
        for (size_t i = 0; i < n; i++)
                if (pids[i] > 1)
                        (void) kill(pids[i], SIGKILL);
}

/* Kills every process of the cgroup tree at path, waits until it is empty (bounded by
 * deadline) and removes it. */
static int cgroup_drain_remove(const char *path, bool v2, int64_t deadline, struct strbuf *err) {
        if (access(path, F_OK) < 0)
                return 0;
        for (;;) {
                int r = cgroup_populated(path, v2);
                if (r <= 0)
                        break;
                cgroup_kill_tree(path, v2);
                if (mach_now_ms() > deadline) {
                        if (err)
                                strbuf_addf(err, "cgroup \"%s\": processes still there after kill", path);
                        return -EBUSY;
                }
                mach_sleep_ms(10);
        }
        int r = cgroup_rmdir_tree(path);
        if (r < 0 && err)
                strbuf_addf(err, "cgroup \"%s\": cannot remove: %s", path, strerror(-r));
        return r;
}

/* Kills a cgroup tree in every hierarchy (rel: "jsim-H" or "jsim-H/mN"), waits until it is
 * empty (bounded by deadline) and removes it: the cgroup2 and name=systemd ones first (the
 * processes die there), then the v1 controller ones wherever they are (machine-cgroup.c). */
static int cgroup_kill_wait_remove(const char *rel, int64_t deadline, struct strbuf *err) {
        const char *bases[2];
        mach_cgroup_bases(bases);
        const char *sub = strchr(rel, '/');
        _cleanup_free_ char *model = sub ? xstrndup(rel, (size_t) (sub - rel)) : xstrdup(rel);
        _cleanup_strv_ struct strv dirs = STRV_INIT;
        mach_v1_model_dirs(model, &dirs);
        /* first: a frozen task would take the kill only when thawed */
        for (size_t i = 0; i < dirs.n; i++) {
                _cleanup_free_ char *path = xasprintf("%s%s", dirs.v[i], sub ? sub : "");
                cgroup_thaw_tree(path);
        }
        for (int i = 0; i < 2; i++) {
                if (!bases[i])
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", bases[i], rel);
                int r = cgroup_drain_remove(path, i == 0, deadline, err);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < dirs.n; i++) {
                _cleanup_free_ char *path = xasprintf("%s%s", dirs.v[i], sub ? sub : "");
                int r = cgroup_drain_remove(path, false, deadline, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* What a new machine joins: cgroup.procs files (before its namespaces are made), and on a
 * pure cgroup2 host the leaf its init moves to and the delegation of its subtree. */
struct machine_cgroups {
        struct strv procs, v1;
        char *leaf, *delegate, *delegate_value;
};

static void machine_cgroups_done(struct machine_cgroups *c) {
        strv_clear(&c->procs);
        strv_clear(&c->v1);
        free(c->leaf);
        free(c->delegate);
        free(c->delegate_value);
}

/* The controllers of a cgroup2 dir as "+cpu +memory …" (NULL when none). */
static char *cgroup2_controllers(const char *dir) {
        _cleanup_free_ char *file = xasprintf("%s/cgroup.controllers", dir), *data = NULL;
        if (read_full_file(file, &data, NULL) < 0)
                return NULL;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        for (char *w = data, *end; *w; w = end) {
                while (*w == ' ' || *w == '\n')
                        w++;
                end = w + strcspn(w, " \n");
                if (end > w)
                        strbuf_addf(&out, "%s+%.*s", out.len ? " " : "", (int) (end - w), w);
        }
        return out.len ? strbuf_detach(&out, NULL) : NULL;
}

/* Creates jsim-H/mN in every hierarchy: the cgroup2 and name=systemd ones at their root, the v1
 * controller ones under the caller's cgroup (machine-cgroup.c). On a pure cgroup2 host the
 * machine's subtree is delegated as systemd delegates one (Delegate=yes): the controllers of
 * jsim-H enabled for mN and for mN's children, and the init in the leaf mN/init.scope (a cgroup
 * with controllers enabled for its children holds no process). */
static int cgroup_create(
        const char *model_dir, unsigned id, struct machine_cgroups *ret, struct strbuf *err) {
        const char *bases[2];
        mach_cgroup_bases(bases);
        _cleanup_free_ char *cg = machine_cgroup_name(model_dir);
        bool pure2 = bases[0] && streq(bases[0], "/sys/fs/cgroup");
        for (int i = 0; i < 2; i++) {
                if (!bases[i])
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s/m%u", bases[i], cg, id);
                int r = mkdir_p(path, 0755);
                if (r >= 0 && i == 0 && pure2) {
                        _cleanup_free_ char *model = xasprintf("%s/%s", bases[i], cg);
                        _cleanup_free_ char *ctl = cgroup2_controllers(model);
                        _cleanup_free_ char *sc = xasprintf("%s/cgroup.subtree_control", model);
                        if (ctl)
                                r = mach_write_str(sc, ctl);
                        ret->leaf = xasprintf("%s/init.scope/cgroup.procs", path);
                        _cleanup_free_ char *leaf = xasprintf("%s/init.scope", path);
                        if (r >= 0)
                                r = mkdir_p(leaf, 0755);
                        ret->delegate = xasprintf("%s/cgroup.subtree_control", path);
                        ret->delegate_value = cgroup2_controllers(path);
                }
                if (r < 0) {
                        strbuf_addf(err, "cgroup \"%s\": %s", path, strerror(-r));
                        return r;
                }
                strv_pushf(&ret->procs, "%s/cgroup.procs", path);
        }
        mach_v1_hierarchies(&ret->v1);
        return mach_v1_create(cg, id, &ret->procs, err);
}

/* ---------------------------------------------------------------- processes */

/* Runs a host command (argv only), its stderr into err on failure. */
static int run_host(struct strbuf *err, const char *arg0, ...) __attribute__((__sentinel__));
static int run_host(struct strbuf *err, const char *arg0, ...) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        va_list ap;
        va_start(ap, arg0);
        for (const char *a = arg0; a; a = va_arg(ap, const char *))
                strv_push(&p.argv, a);
        va_end(ap);
        p.capture_out = true;
        p.capture_err = true;
        p.timeout_ms = 10000;
        int r = proc_run(&p);
        if (r != 0 && err) {
                _cleanup_free_ char *cmd = strv_join(&p.argv, " ");
                strbuf_rtrim(&p.err);
                if (r < 0)
                        strbuf_addf(err, "\"%s\": %s", cmd, strerror(-r));
                else
                        strbuf_addf(err, "\"%s\": exit %d: %s", cmd, r, p.err.buf);
        }
        if (r > 0)
                return -EIO;
        return r;
}

static bool link_exists(const char *name) {
        _cleanup_free_ char *p = xasprintf("/sys/class/net/%s", name);
        return access(p, F_OK) == 0;
}

static void disable_ipv6(const char *ifname) {
        _cleanup_free_ char *p = xasprintf("/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname);
        (void) mach_write_str(p, "1");
}

/* ---------------------------------------------------------------- records */

static int record_write(const struct machine_info *m) {
        _cleanup_free_ char *path = xasprintf("%s/machine", m->dir);
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "id=%u\nhostname=%s\naddress=%s\npid=%d\nstarttime=%llu\n", m->id, m->hostname,
                m->address, (int) m->pid, m->starttime);
        int r = write_file_atomic(path, sb.buf, sb.len, 0600, (uid_t) -1, (gid_t) -1);
        strbuf_release(&sb);
        return r;
}

void machine_info_clear(struct machine_info *m) {
        if (!m)
                return;
        free(m->hostname);
        free(m->address);
        free(m->dir);
        *m = (struct machine_info){ 0 };
}

int machine_load(const char *model_dir, unsigned id, struct machine_info *ret) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        _cleanup_free_ char *dir = machine_dir(abs, id);
        _cleanup_free_ char *path = xasprintf("%s/machine", dir);
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0)
                return r;
        struct machine_info m = { .id = id, .dir = TAKE_PTR(dir) };
        for (char *line = data, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                const char *v;
                if ((v = startswith(line, "hostname=")))
                        m.hostname = xstrdup(v);
                else if ((v = startswith(line, "address=")))
                        m.address = xstrdup(v);
                else if ((v = startswith(line, "pid=")))
                        m.pid = (pid_t) strtol(v, NULL, 10);
                else if ((v = startswith(line, "starttime=")))
                        m.starttime = strtoull(v, NULL, 10);
        }
        if (!m.hostname || !m.address || m.pid <= 0) {
                machine_info_clear(&m);
                return -EBADMSG;
        }
        bool alive = proc_pid_alive(m.pid, m.starttime);
        *ret = m;
        return alive ? 0 : -ESRCH;
}

static int cmp_unsigned(const void *a, const void *b) {
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
        return x < y ? -1 : x > y;
}

static bool parse_id(const char *s, unsigned *ret) {
        if (!*s || strlen(s) > 4)
                return false;
        unsigned v = 0;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return false;
                v = v * 10 + (unsigned) (*p - '0');
        }
        if (v > MACHINE_ID_MAX)
                return false;
        *ret = v;
        return true;
}

/* Ids found under dir: entries named by a number (prefix "m" for the cgroup dirs). With
 * need_record, only machine dirs holding a record. */
static int scan_ids(const char *dir, const char *prefix, bool need_record, unsigned **ret_ids) {
        _cleanup_free_ unsigned *ids = NULL;
        size_t n = 0;
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (d) {
                struct dirent *de;
                while ((de = readdir(d))) {
                        const char *rest = startswith(de->d_name, prefix);
                        unsigned id;
                        if (!rest || !parse_id(rest, &id))
                                continue;
                        if (need_record) {
                                _cleanup_free_ char *rec = xasprintf("%s/%s/machine", dir, de->d_name);
                                if (access(rec, F_OK) < 0)
                                        continue;
                        }
                        ids = xrealloc(ids, (n + 1) * sizeof *ids);
                        ids[n++] = id;
                }
        }
        if (n > 0)
                qsort(ids, n, sizeof *ids, cmp_unsigned);
        *ret_ids = TAKE_PTR(ids);
        return (int) n;
}

int machine_list(const char *model_dir, unsigned **ret_ids) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        _cleanup_free_ char *dir = machines_dir(abs);
        return scan_ids(dir, "", true, ret_ids);
}

int machine_make_private(const char *model_dir) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        _cleanup_free_ char *mdir = machines_dir(abs);
        _cleanup_strv_ struct strv paths = STRV_INIT;
        strv_push(&paths, mdir);
        strv_pushf(&paths, "%s/.lock", mdir);
        _cleanup_free_ unsigned *ids = NULL;
        int n = scan_ids(mdir, "", false, &ids);
        for (int i = 0; i < n; i++) {
                /* the machine's own files under root/ (bound into it) keep their modes */
                static const char *const names[] = { "", "/machine", "/console.log", "/root" };
                for (size_t k = 0; k < ELEMENTSOF(names); k++)
                        strv_pushf(&paths, "%s/%u%s", mdir, ids[i], names[k]);
        }
        int changed = 0;
        for (size_t i = 0; i < paths.n; i++) {
                int r = chmod_private(paths.v[i]);
                if (r < 0)
                        return r;
                changed |= r;
        }
        return changed;
}

/* Rewrites the model's hosts file in place from the records (under the model lock). */
static int hosts_update(const char *abs) {
        _cleanup_free_ char *mdir = machines_dir(abs);
        _cleanup_free_ char *lock_path = xasprintf("%s/.lock", mdir);
        _cleanup_close_ int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock < 0)
                return -errno;
        if (flock(lock, LOCK_EX) < 0)
                return -errno;
        struct strbuf sb = STRBUF_INIT;
        strbuf_addstr(&sb,
                "# juju-sim model hosts: rewritten in place when machines come and go\n"
                "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
        _cleanup_free_ unsigned *ids = NULL;
        int n = scan_ids(mdir, "", true, &ids);
        for (int i = 0; i < n; i++) {
                _cleanup_(machine_info_clearp) struct machine_info m = { 0 };
                int r = machine_load(abs, ids[i], &m);
                if (r < 0 && r != -ESRCH)
                        continue;
                strbuf_addf(&sb, "%s\t%s\n", m.address, m.hostname);
        }
        _cleanup_free_ char *path = mach_hosts_path(abs);
        int r = 0;
        _cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                r = -errno;
        else if (pwrite(fd, sb.buf, sb.len, 0) != (ssize_t) sb.len)
                r = errno ? -errno : -EIO;
        else if (ftruncate(fd, (off_t) sb.len) < 0)
                r = -errno;
        strbuf_release(&sb);
        return r;
}

/* ---------------------------------------------------------------- network */

int machine_net_ensure(const char *model_dir, struct strbuf *err) {
        int r = mkdir_p(model_dir, 0700);
        if (r < 0) {
                strbuf_addf(err, "model dir \"%s\": %s", model_dir, strerror(-r));
                return r;
        }
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        _cleanup_free_ char *mdir = machines_dir(abs);
        r = mkdir_p(mdir, 0700);
        if (r >= 0)
                r = machine_make_private(abs);
        if (r < 0) {
                strbuf_addf(err, "machines dir \"%s\": %s", mdir, strerror(-r));
                return r;
        }
        /* Registered before the bridge and any cgroup exist: gc can always find them. */
        r = registry_add(abs, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *hosts = mach_hosts_path(abs);
        if (access(hosts, F_OK) < 0) {
                r = hosts_update(abs);
                if (r < 0) {
                        strbuf_addf(err, "hosts file \"%s\": %s", hosts, strerror(-r));
                        return r;
                }
        }
        _cleanup_free_ char *br = machine_bridge_name(abs);
        if (!link_exists(br)) {
                r = run_host(err, "ip", "link", "add", br, "type", "bridge", NULL);
                if (r < 0 && !link_exists(br)) /* a concurrent creator may have won */
                        return r;
                strbuf_reset(err);
        }
        disable_ipv6(br);
        return run_host(err, "ip", "link", "set", br, "up", NULL);
}

/* Creates the veth pair (host end on the bridge, peer eth0 in the init's netns) and configures
 * the machine side with `ip` run inside the machine. */
static int net_attach(const char *abs, const struct machine_info *m, struct strbuf *err) {
        _cleanup_free_ char *br = machine_bridge_name(abs);
        _cleanup_free_ char *veth = veth_name(abs, m->id);
        char pidstr[32];
        snprintf(pidstr, sizeof pidstr, "%d", (int) m->pid);
        if (link_exists(veth))
                (void) run_host(NULL, "ip", "link", "del", veth, NULL);
        int r = run_host(err, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns",
                pidstr, NULL);
        if (r < 0)
                return r;
        disable_ipv6(veth);
        r = run_host(err, "ip", "link", "set", veth, "master", br, "up", NULL);
        if (r < 0)
                return r;
        _cleanup_free_ char *cidr = xasprintf("%s/24", m->address);
        char *const cmds[][8] = {
                { "ip", "link", "set", "lo", "up", NULL },
                { "ip", "addr", "add", cidr, "dev", "eth0", NULL },
                { "ip", "link", "set", "eth0", "up", NULL },
        };
        char *const env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
        for (size_t i = 0; i < ELEMENTSOF(cmds); i++) {
                r = machine_run(m, cmds[i], env, -1, -1, -1, 10000);
                if (r != 0) {
                        strbuf_addf(err, "machine %u: \"%s %s %s\" failed: %s", m->id, cmds[i][0],
                                cmds[i][1], cmds[i][2], r < 0 ? strerror(-r) : "non-zero exit");
                        return r < 0 ? r : -EIO;
                }
        }
        return 0;
}

/* ---------------------------------------------------------------- seeding the private dirs */

enum seed { SEED_DIR, SEED_FILE, SEED_FILES, SEED_TREE_DIRS };

/* What each machine's private directories start with (copied from the host at create). */
static const struct {
        const char *path;
        enum seed how;
} seeds[] = {
        { "/etc/slurm", SEED_DIR },
        { "/etc/slurm/plugstack.conf", SEED_FILE },
        { "/etc/slurm/plugstack.conf.d", SEED_TREE_DIRS },
        { "/etc/munge", SEED_DIR },
        { "/etc/default", SEED_FILES },
        { "/etc/systemd/system", SEED_DIR },
        { "/var/lib/slurm", SEED_TREE_DIRS },
        { "/var/lib/munge", SEED_DIR },
        { "/var/lib/juju", SEED_DIR },
        /* a database machine's own data (the mariadb test charm initializes it) */
        { "/var/lib/mysql", SEED_DIR },
        { "/var/spool", SEED_DIR },
        { "/var/log", SEED_DIR },
        { "/var/log/slurm", SEED_DIR },
        { "/var/log/munge", SEED_DIR },
        /* where a site mounts its shared file systems: each machine its own, as on real
         * machines (a --share binds over a path in it) */
        { "/srv", SEED_DIR },
        { "/mnt", SEED_DIR },
};

static int seed_mkdir(const char *host, const char *dst) {
        struct stat st;
        bool have = stat(host, &st) == 0 && S_ISDIR(st.st_mode);
        if (mkdir(dst, have ? st.st_mode & 07777 : 0755) < 0 && errno != EEXIST)
                return -errno;
        if (have) {
                if (chown(dst, st.st_uid, st.st_gid) < 0 || chmod(dst, st.st_mode & 07777) < 0)
                        return -errno;
        }
        return 0;
}

static int seed_copy_file(const char *host, const char *dst) {
        struct stat st;
        if (lstat(host, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        _cleanup_free_ char *data = NULL;
        size_t len;
        int r = read_full_file(host, &data, &len);
        if (r < 0)
                return r;
        return write_file_atomic(dst, data, len, st.st_mode & 07777, st.st_uid, st.st_gid);
}

static int seed_one(const char *host, const char *dst, enum seed how, int depth) {
        if (how == SEED_FILE)
                return seed_copy_file(host, dst);
        int r = seed_mkdir(host, dst);
        if (r < 0 || how == SEED_DIR || depth > 8)
                return r;
        _cleanup_(closedirp) DIR *d = opendir(host);
        if (!d)
                return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *h = xasprintf("%s/%s", host, de->d_name);
                _cleanup_free_ char *t = xasprintf("%s/%s", dst, de->d_name);
                struct stat st;
                if (lstat(h, &st) < 0)
                        continue;
                if (how == SEED_FILES && S_ISREG(st.st_mode))
                        r = seed_copy_file(h, t);
                else if (how == SEED_TREE_DIRS && S_ISDIR(st.st_mode))
                        r = seed_one(h, t, SEED_TREE_DIRS, depth + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Seeds <mdir>/root from the host, or from the root file system src ("" or NULL: the host). */
static int seed_root(const char *mdir, const char *src, struct strbuf *err) {
        _cleanup_free_ char *root = xasprintf("%s/root", mdir);
        if (mkdir(root, 0700) < 0 && errno != EEXIST) {
                strbuf_addf(err, "machine dir \"%s\": %s", root, strerror(errno));
                return -errno;
        }
        for (size_t i = 0; i < ELEMENTSOF(seeds); i++) {
                _cleanup_free_ char *dst = xasprintf("%s%s", root, seeds[i].path);
                _cleanup_free_ char *parent = xstrdup(dst);
                *strrchr(parent, '/') = '\0';
                int r = mkdir_p(parent, 0755);
                _cleanup_free_ char *from = xasprintf("%s%s", strempty(src), seeds[i].path);
                if (r >= 0)
                        r = seed_one(from, dst, seeds[i].how, 0);
                if (r < 0) {
                        strbuf_addf(err, "machine dir \"%s\": %s", dst, strerror(-r));
                        return r;
                }
        }
        /* (each machine makes its mount points in its own overlay: nothing on the host) */
        return 0;
}

/* ---------------------------------------------------------------- removing a machine dir */

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        if (flag == FTW_DP)
                (void) rmdir(path);
        else
                (void) unlink(path);
        return 0;
}

static void rm_rf(const char *path) {
        (void) nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* ---------------------------------------------------------------- create */

static int read_msg(int fd, int64_t deadline, struct mach_msg *ret) {
        size_t got = 0;
        *ret = (struct mach_msg){ 0 };
        while (got < sizeof *ret) {
                int64_t left = deadline - mach_now_ms();
                if (left <= 0)
                        return -ETIME;
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int r = poll(&pfd, 1, (int) left);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (r == 0)
                        return -ETIME;
                ssize_t n = read(fd, (char *) ret + got, sizeof *ret - got);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return -EPIPE;
                got += (size_t) n;
        }
        ret->step[sizeof ret->step - 1] = '\0';
        return 0;
}

static int check_shares(char *const *shares, struct strbuf *err) {
        for (size_t i = 0; shares && shares[i]; i++) {
                unsigned gpus;
                int k = mach_gpus_parse(shares[i], &gpus);
                if (k < 0) {
                        strbuf_addf(err, "\"%s\": expected @gpus=N with N from 1 to %d", shares[i],
                                MACH_GPUS_MAX);
                        return k;
                }
                if (k > 0)
                        continue;
                if (startswith(shares[i], MACH_ROOTFS_PREFIX)) {
                        const char *dir = shares[i] + strlen(MACH_ROOTFS_PREFIX);
                        _cleanup_free_ char *mgr = xasprintf("%s/usr/lib/systemd/systemd", dir);
                        if (dir[0] != '/' || access(mgr, X_OK) < 0) {
                                strbuf_addf(err, "root file system \"%s\": no %s", dir, mgr);
                                return -ENOENT;
                        }
                        continue;
                }
                const char *colon = strchr(shares[i], ':');
                if (!colon || shares[i][0] != '/' || colon[1] != '/') {
                        strbuf_addf(err, "share \"%s\": expected HOSTDIR:PATH, both absolute", shares[i]);
                        return -EINVAL;
                }
                _cleanup_free_ char *host = xstrndup(shares[i], (size_t) (colon - shares[i]));
                struct stat st;
                if (stat(host, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        strbuf_addf(err, "share \"%s\": \"%s\" is not a directory", shares[i], host);
                        return -ENOTDIR;
                }
        }
        return 0;
}

static int create_steps(
        const char *abs, unsigned id, char *const *shares, struct machine_info *m, struct strbuf *err) {
        int r;
        r = machine_net_ensure(abs, err);
        if (r < 0)
                return r;
        const char *rootfs = mach_rootfs_of(shares);
        r = seed_root(m->dir, rootfs, err);
        if (r < 0)
                return r;
        /* the overlay's directories: on disk for another base; for the host's, only fs itself
         * (the machine mounts its tmpfs there: machine-init.c enter_rootfs) */
        _cleanup_free_ char *fs = xasprintf("%s/fs", m->dir);
        static const char *const fs_dirs[] = { "", "/upper", "/work", "/new" };
        for (size_t i = 0; i < (rootfs ? ELEMENTSOF(fs_dirs) : 1); i++) {
                _cleanup_free_ char *d = xasprintf("%s%s", fs, fs_dirs[i]);
                /* upper's mode is that of the machine's "/" (0755); the rest is root's alone */
                if (mkdir(d, i == 1 ? 0755 : 0700) < 0 && errno != EEXIST) {
                        r = -errno;
                        strbuf_addf(err, "machine dir \"%s\": %s", d, strerror(-r));
                        return r;
                }
        }
        _cleanup_(machine_cgroups_done) struct machine_cgroups cgs = { STRV_INIT, STRV_INIT, NULL, NULL,
                NULL };
        r = cgroup_create(abs, id, &cgs, err);
        if (r < 0)
                return r;

        struct mach_init_args a = {
                .root = xasprintf("%s/root", m->dir),
                .hosts = mach_hosts_path(abs),
                .hostname = m->hostname,
                .cgroup_procs = cgs.procs.v,
                .leaf_procs = cgs.leaf,
                .delegate = cgs.delegate_value ? cgs.delegate : NULL,
                .delegate_value = cgs.delegate_value,
                .v1_mounts = cgs.v1.v,
                .shares = shares,
                .rootfs = rootfs,
                .fs = fs,
                .up_fd = -1,
                .down_fd = -1,
                .log_fd = -1,
        };
        _cleanup_free_ _unused_ char *root_owned = (char *) a.root; /* only frees */
        _cleanup_free_ _unused_ char *hosts_owned = (char *) a.hosts;
        _cleanup_free_ char *log_path = xasprintf("%s/console.log", m->dir);
        _cleanup_close_ int log_fd =
                open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600);
        if (log_fd < 0) {
                r = -errno;
                strbuf_addf(err, "machine console \"%s\": %s", log_path, strerror(-r));
                return r;
        }
        int up[2], down[2];
        if (pipe2(up, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int up_r = up[0], up_w = up[1];
        if (pipe2(down, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int down_r = down[0], down_w = down[1];
        a.up_fd = up_w;
        a.down_fd = down_r;
        a.log_fd = log_fd;
        a.keep_fd = up_r; /* closed by the init */
        a.keep_fd2 = down_w;

        pid_t child = fork();
        if (child < 0)
                return -errno;
        if (child == 0)
                mach_init_launch(&a); /* never returns */
        up_w = -1, down_r = -1;
        close(a.up_fd);
        close(a.down_fd);
        int st;
        while (waitpid(child, &st, 0) < 0 && errno == EINTR)
                ;

        int64_t deadline = mach_now_ms() + 30000;
        struct mach_msg msg = { 0 };
        r = read_msg(up_r, deadline, &msg);
        if (r == 0 && msg.code < 0)
                r = msg.code;
        if (r < 0) {
                strbuf_addf(err, "machine %u: cannot start its init: %s%s%s", id, strerror(-r),
                        msg.step[0] && r == msg.code ? " at " : "", r == msg.code ? msg.step : "");
                return r;
        }
        m->pid = (pid_t) msg.code;
        r = proc_pid_stat(m->pid, &m->starttime, NULL);
        if (r < 0) {
                strbuf_addf(err, "machine %u: init %d vanished", id, (int) m->pid);
                return r;
        }
        r = record_write(m);
        if (r < 0) {
                strbuf_addf(err, "machine record in \"%s\": %s", m->dir, strerror(-r));
                return r;
        }
        r = hosts_update(abs);
        if (r < 0) {
                strbuf_addf(err, "hosts file of \"%s\": %s", abs, strerror(-r));
                return r;
        }
        r = read_msg(up_r, deadline, &msg);
        if (r == 0 && msg.code != MACH_MSG_MOUNTED)
                r = msg.code < 0 ? msg.code : -EPROTO;
        if (r < 0) {
                strbuf_addf(err, "machine %u: namespace setup failed: %s%s%s", id, strerror(-r),
                        r == msg.code ? " at " : "", r == msg.code ? msg.step : "");
                return r;
        }
        r = net_attach(abs, m, err);
        if (r < 0)
                return r;
        if (write(down_w, "G", 1) != 1)
                return -errno;
        r = read_msg(up_r, deadline, &msg);
        if (r == 0 && msg.code != MACH_MSG_READY)
                r = msg.code < 0 ? msg.code : -EPROTO;
        if (r < 0) {
                /* The machine dir goes away with the failed machine: quote the end of its log. */
                _cleanup_free_ char *log = NULL;
                size_t len = 0;
                (void) read_full_file(log_path, &log, &len);
                while (len > 0 && log[len - 1] == '\n')
                        log[--len] = '\0';
                const char *tail = log ? log + (len > 400 ? len - 400 : 0) : "";
                strbuf_addf(err, "machine %u: systemd manager did not get ready: %s%s%s; its log ends: %s",
                        id, r == msg.code ? "" : strerror(-r), r == msg.code ? "" : " ",
                        r == msg.code ? msg.step : "", tail);
                return r;
        }
        return 0;
}

int machine_create(const char *model_dir, unsigned id, char *const *shares, struct machine_info *ret,
        struct strbuf *err) {
        if (id > MACHINE_ID_MAX) {
                strbuf_addf(err, "machine %u: id out of range (at most %u)", id, MACHINE_ID_MAX);
                return -ERANGE;
        }
        int r = check_shares(shares, err);
        if (r < 0)
                return r;
        r = mkdir_p(model_dir, 0700);
        if (r < 0) {
                strbuf_addf(err, "model dir \"%s\": %s", model_dir, strerror(-r));
                return r;
        }
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        {
                _cleanup_(machine_info_clearp) struct machine_info old = { 0 };
                r = machine_load(abs, id, &old);
                if (r == 0) {
                        strbuf_addf(err, "machine %u: already exists (init %d)", id, (int) old.pid);
                        return -EEXIST;
                }
        }
        r = machine_destroy(abs, id, err); /* leftovers of a dead machine with this id */
        if (r < 0)
                return r;

        _cleanup_(machine_info_clearp) struct machine_info m = {
                .id = id,
                .hostname = machine_hostname(abs, id),
                .address = machine_address(abs, id),
                .dir = machine_dir(abs, id),
        };
        r = mkdir_p(m.dir, 0700);
        if (r < 0) {
                strbuf_addf(err, "machine dir \"%s\": %s", m.dir, strerror(-r));
                return r;
        }
        r = create_steps(abs, id, shares, &m, err);
        if (r < 0) {
                (void) machine_destroy(abs, id, NULL);
                return r;
        }
        *ret = m;
        m = (struct machine_info){ 0 };
        return 0;
}

/* ---------------------------------------------------------------- destroy */

/* Kills machine `id` of the model with hash h: its init (when pid > 0 and still that process)
 * and every process of its cgroups; waits until they are gone (bounded by deadline), removes
 * its cgroups and makes sure its host veth is gone. Needs nothing from the model dir. */
static int machine_kill_h(uint32_t h, unsigned id, pid_t pid, unsigned long long starttime, int64_t deadline,
        struct strbuf *err) {
        if (pid > 0 && proc_pid_alive(pid, starttime))
                (void) kill(pid, SIGKILL);
        _cleanup_free_ char *cg = cgroup_name_h(h);
        _cleanup_free_ char *rel = xasprintf("%s/m%u", cg, id);
        int r = cgroup_kill_wait_remove(rel, deadline, err);
        if (r < 0)
                return r;
        /* The init itself: it leaves its cgroup only when all of its namespace is dead. */
        while (pid > 0 && proc_pid_alive(pid, starttime)) {
                if (mach_now_ms() > deadline) {
                        if (err)
                                strbuf_addf(
                                        err, "machine %u: init %d still alive after SIGKILL", id, (int) pid);
                        return -EBUSY;
                }
                (void) kill(pid, SIGKILL);
                mach_sleep_ms(10);
        }
        /* The veth goes with the net namespace, asynchronously: make sure it is gone. */
        _cleanup_free_ char *veth = veth_name_h(h, id);
        if (link_exists(veth))
                (void) run_host(NULL, "ip", "link", "del", veth, NULL);
        while (link_exists(veth) && mach_now_ms() < deadline)
                mach_sleep_ms(10);
        return 0;
}

int machine_destroy(const char *model_dir, unsigned id, struct strbuf *err) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        _cleanup_(machine_info_clearp) struct machine_info m = { 0 };
        (void) machine_load(abs, id, &m); /* fills m also when the init is gone (-ESRCH) */
        int r = machine_kill_h(mach_model_hash(abs), id, m.pid, m.starttime, mach_now_ms() + 10000, err);
        if (r < 0)
                return r;

        _cleanup_free_ char *dir = machine_dir(abs, id);
        if (access(dir, F_OK) == 0) {
                rm_rf(dir);
                if (access(dir, F_OK) == 0) {
                        if (err)
                                strbuf_addf(err, "machine dir \"%s\": cannot remove", dir);
                        return -ENOTEMPTY;
                }
                _cleanup_free_ char *hosts = mach_hosts_path(abs);
                if (access(hosts, F_OK) == 0)
                        (void) hosts_update(abs);
        }
        return 0;
}

/* What the host holds of model hash h outside the model dir: every machine found in its cgroups
 * (killed, cgroups removed, veth gone), the rest of its cgroup trees, its bridge. Works without
 * the model dir (destroy-all after a killed juju-sim, gc after a deleted model dir). */
static int model_teardown_h(uint32_t h, struct strbuf *err) {
        _cleanup_free_ char *cg = cgroup_name_h(h);
        const char *bases[2];
        mach_cgroup_bases(bases);
        int ret = 0;
        for (int b = 0; b < 2; b++) {
                if (!bases[b])
                        continue;
                _cleanup_free_ char *cgdir = xasprintf("%s/%s", bases[b], cg);
                _cleanup_free_ unsigned *ids = NULL;
                int n = scan_ids(cgdir, "m", false, &ids);
                for (int i = 0; i < n; i++) {
                        int r = machine_kill_h(h, ids[i], 0, 0, mach_now_ms() + 10000, err);
                        if (r < 0 && ret == 0)
                                ret = r;
                }
        }
        int r = cgroup_kill_wait_remove(cg, mach_now_ms() + 10000, err);
        if (r < 0 && ret == 0)
                ret = r;
        _cleanup_free_ char *br = bridge_name_h(h);
        if (link_exists(br)) {
                r = run_host(err, "ip", "link", "del", br, NULL);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        return ret;
}

static char *registry_entry_h(uint32_t h) {
        return xasprintf("%s/%08" PRIx32, MACHINE_REGISTRY_DIR, h);
}

int machine_destroy_all(const char *model_dir, struct strbuf *err) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        _cleanup_free_ char *mdir = machines_dir(abs);
        uint32_t h = mach_model_hash(abs);
        int ret = 0;

        /* 1. machine dirs (with or without a record) */
        _cleanup_free_ unsigned *ids = NULL;
        int n = scan_ids(mdir, "", false, &ids);
        for (int i = 0; i < n; i++) {
                int r = machine_destroy(abs, ids[i], err);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        /* 2. whatever else is in the model's cgroups (a create cut short), the bridge */
        int r = model_teardown_h(h, err);
        if (r < 0 && ret == 0)
                ret = r;
        /* 3. the hosts file, the machines dir, the registry entry (kept for gc on failure) */
        if (ret == 0) {
                rm_rf(mdir);
                _cleanup_free_ char *entry = registry_entry_h(h);
                (void) unlink(entry);
        }
        return ret;
}

/* ---------------------------------------------------------------- registry */

/* Opens (creating) the registry lock file; the caller flock()s it. */
static int registry_lock_open(void) {
        int r = mkdir_p(MACHINE_REGISTRY_DIR, 0755);
        if (r < 0)
                return r;
        int fd = open(MACHINE_REGISTRY_LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
        return fd < 0 ? -errno : fd;
}

static int lock_wait(int fd, int how, int timeout_ms) {
        int64_t deadline = mach_now_ms() + timeout_ms;
        while (flock(fd, how | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return -errno;
                if (mach_now_ms() > deadline)
                        return -ETIME;
                mach_sleep_ms(20);
        }
        return 0;
}

/* Writes the entry of abs (the caller holds the registry lock). */
static int registry_write(const char *abs) {
        _cleanup_free_ char *entry = registry_entry_h(mach_model_hash(abs));
        _cleanup_free_ char *line = xasprintf("%s\n", abs);
        int r = write_file_atomic_if_changed(entry, line, strlen(line), 0644, (uid_t) -1, (gid_t) -1);
        return r < 0 ? r : 0;
}

static int registry_add(const char *abs, struct strbuf *err) {
        _cleanup_close_ int lock = registry_lock_open();
        int r = lock < 0 ? lock : lock_wait(lock, LOCK_SH, 60000);
        if (r >= 0)
                r = registry_write(abs);
        if (r < 0)
                strbuf_addf(err, "model registry \"%s\": %s", MACHINE_REGISTRY_DIR, strerror(-r));
        return r;
}

/* The model dir an entry names, or NULL when there is no (readable) entry. */
static char *registry_read(const char *entry) {
        char *data = NULL;
        if (read_full_file(entry, &data, NULL) < 0)
                return NULL;
        char *nl = strchr(data, '\n');
        if (nl)
                *nl = '\0';
        if (data[0] != '/') {
                free(data);
                return NULL;
        }
        return data;
}

/* ---------------------------------------------------------------- gc */

#define GC_MAX_PIDS 4096
#define GC_MAX_FDS 1024

/* "<prefix><8 lowercase hex digits>" → the hash. */
static bool parse_hash_name(const char *s, const char *prefix, uint32_t *ret) {
        const char *p = startswith(s, prefix);
        if (!p || strlen(p) != 8)
                return false;
        uint32_t v = 0;
        for (; *p; p++) {
                if (*p >= '0' && *p <= '9')
                        v = v << 4 | (uint32_t) (*p - '0');
                else if (*p >= 'a' && *p <= 'f')
                        v = v << 4 | (uint32_t) (*p - 'a' + 10);
                else
                        return false;
        }
        *ret = v;
        return true;
}

/* Adds the hashes of dir's entries named <prefix>HHHHHHHH to *hs (no duplicates). */
static void hashes_scan(const char *dir, const char *prefix, uint32_t **hs, size_t *n) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                uint32_t h;
                if (!parse_hash_name(de->d_name, prefix, &h))
                        continue;
                bool seen = false;
                for (size_t i = 0; i < *n && !seen; i++)
                        seen = (*hs)[i] == h;
                if (seen)
                        continue;
                *hs = xrealloc(*hs, (*n + 1) * sizeof **hs);
                (*hs)[(*n)++] = h;
        }
}

/* A model dir that `destroy` can still be pointed at: it exists and holds juju-sim files. */
static bool model_dir_live(const char *dir) {
        static const char *const marks[] = { "state.json", "juju-sim.json", "machines" };
        for (size_t i = 0; i < ELEMENTSOF(marks); i++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", dir, marks[i]);
                if (access(p, F_OK) == 0)
                        return true;
        }
        return false;
}

/* When one of pid's fds is a machine console log (M/machines/N/console.log), returns M (caller
 * frees) and whether that file was deleted; else NULL. Every machine's init and manager hold
 * theirs as stdout and stderr, and create's intermediate child holds it too. */
static char *pid_console_model(pid_t pid, bool *ret_deleted) {
        char fddir[64];
        snprintf(fddir, sizeof fddir, "/proc/%d/fd", (int) pid);
        _cleanup_(closedirp) DIR *d = opendir(fddir);
        if (!d)
                return NULL;
        struct dirent *de;
        for (int count = 0; (de = readdir(d)) && count < GC_MAX_FDS; count++) {
                if (de->d_name[0] == '.')
                        continue;
                char link[PATH_MAX + 16];
                _cleanup_free_ char *fdpath = xasprintf("%s/%s", fddir, de->d_name);
                ssize_t l = readlink(fdpath, link, sizeof link - 1);
                if (l <= 0)
                        continue;
                link[l] = '\0';
                bool deleted = false;
                static const char del[] = " (deleted)";
                if ((size_t) l > sizeof del - 1 && streq(link + l - (sizeof del - 1), del)) {
                        link[l - (sizeof del - 1)] = '\0';
                        deleted = true;
                }
                if (link[0] != '/')
                        continue;
                for (char *p = strstr(link, "/machines/"); p; p = strstr(p + 1, "/machines/")) {
                        const char *q = p + strlen("/machines/");
                        size_t digits = strspn(q, "0123456789");
                        if (digits == 0 || !streq(q + digits, "/console.log"))
                                continue;
                        *ret_deleted = deleted;
                        return p == link ? xstrdup("/") : xstrndup(link, (size_t) (p - link));
                }
        }
        return NULL;
}

/* What the host holds of model hash h. */
struct gc_probe {
        bool cgroups;       /* a jsim-H dir exists in some hierarchy */
        bool bridge;        /* jsbH exists */
        size_t nproc;       /* processes in the cgroups */
        int nmachines;      /* mN cgroups */
        char *owner;        /* the model dir the processes' console logs are in, or NULL */
        bool owner_deleted; /* … and that log file was deleted */
};

static void gc_probe_clear(struct gc_probe *p) {
        free(p->owner);
        *p = (struct gc_probe){ 0 };
}

static void gc_probe_h(uint32_t h, struct gc_probe *ret) {
        *ret = (struct gc_probe){ 0 };
        _cleanup_free_ char *cg = cgroup_name_h(h);
        _cleanup_free_ char *br = bridge_name_h(h);
        ret->bridge = link_exists(br);
        const char *bases[2];
        mach_cgroup_bases(bases);
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        for (int b = 0; b < 2; b++) {
                if (!bases[b])
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", bases[b], cg);
                if (access(path, F_OK) < 0)
                        continue;
                if (!ret->cgroups) { /* the first hierarchy counts; both hold the same processes */
                        _cleanup_free_ unsigned *ids = NULL;
                        ret->nmachines = scan_ids(path, "m", false, &ids);
                        cgroup_tree_pids(path, 0, &pids, &n, GC_MAX_PIDS);
                        ret->nproc = n;
                }
                ret->cgroups = true;
        }
        _cleanup_strv_ struct strv v1 = STRV_INIT;
        mach_v1_model_dirs(cg, &v1);
        for (size_t i = 0; i < v1.n; i++) {
                if (!ret->cgroups) { /* only v1 ones left (a create cut short, an older juju-sim) */
                        _cleanup_free_ unsigned *ids = NULL;
                        ret->nmachines = scan_ids(v1.v[i], "m", false, &ids);
                        cgroup_tree_pids(v1.v[i], 0, &pids, &n, GC_MAX_PIDS);
                        ret->nproc = n;
                }
                ret->cgroups = true;
        }
        /* A live console log wins over a deleted one (a model dir recreated at the same path). */
        for (size_t i = 0; i < n; i++) {
                bool deleted = false;
                _cleanup_free_ char *m = pid_console_model(pids[i], &deleted);
                if (!m || (ret->owner && deleted)) /* ret->owner is a deleted one here */
                        continue;
                free(ret->owner);
                ret->owner = TAKE_PTR(m);
                ret->owner_deleted = deleted;
                if (!deleted)
                        break;
        }
}

/* Collects hash h when it is orphaned (see machine.h); the caller holds the registry lock
 * exclusively. Returns 1 when it removed something, 0 when it left h alone. */
static int gc_one(uint32_t h, struct strv *removed, struct strbuf *err) {
        _cleanup_free_ char *entry = registry_entry_h(h);
        _cleanup_free_ char *registered = registry_read(entry);
        if (registered && model_dir_live(registered))
                return 0;
        _cleanup_(gc_probe_clear) struct gc_probe p = { 0 };
        gc_probe_h(h, &p);
        if (!registered && !p.cgroups && !p.bridge)
                return 0; /* gone meanwhile */
        if (p.owner && !p.owner_deleted && model_dir_live(p.owner)) {
                /* Its machines live in an existing model dir: that is destroy's business. */
                if (!registered && mach_model_hash(p.owner) == h)
                        (void) registry_write(p.owner); /* adopted: a later gc finds it */
                return 0;
        }

        const char *model = registered ? registered : p.owner;
        const char *why = registered
                ? (access(registered, F_OK) == 0 ? "no juju-sim files left in it" : "directory gone")
                : p.owner ? "unregistered, directory gone"
                : p.nproc ? "unregistered, model unknown"
                          : "unregistered, no process left";
        _cleanup_free_ char *cg = cgroup_name_h(h);
        _cleanup_free_ char *br = bridge_name_h(h);
        _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
        strbuf_addstr(&line, cg);
        if (model)
                strbuf_addf(&line, " \"%s\"", model);
        strbuf_addf(&line, " (%s):", why);
        if (p.nproc)
                strbuf_addf(&line, " killed %zu process%s of %d machine%s;", p.nproc,
                        p.nproc == 1 ? "" : "es", p.nmachines, p.nmachines == 1 ? "" : "s");
        strbuf_addstr(&line, " removed");
        const char *sep = " ";
        if (p.cgroups) {
                strbuf_addf(&line, "%scgroups %s", sep, cg);
                sep = ", ";
        }
        if (p.bridge) {
                strbuf_addf(&line, "%sbridge %s", sep, br);
                sep = ", ";
        }
        if (registered)
                strbuf_addf(&line, "%sregistry entry", sep);

        int r = model_teardown_h(h, err);
        if (r < 0)
                return r; /* the entry stays: the next gc tries again */
        if (unlink(entry) < 0 && errno != ENOENT) {
                r = -errno;
                strbuf_addf(err, "registry entry \"%s\": %s", entry, strerror(-r));
                return r;
        }
        strv_push(removed, line.buf);
        return 1;
}

int machine_gc(struct strv *removed, struct strbuf *err) {
        /* A machine's /run is its own: there, this is the machine's manager's runtime dir. */
        if (access("/run/juju-sim/units", F_OK) == 0) {
                strbuf_addstr(err, "gc: this is a juju-sim machine; run gc on the host");
                return -EPERM;
        }
        _cleanup_close_ int lock = registry_lock_open();
        if (lock < 0) {
                strbuf_addf(err, "model registry \"%s\": %s", MACHINE_REGISTRY_LOCK, strerror(-lock));
                return lock;
        }
        _cleanup_free_ uint32_t *hs = NULL;
        size_t n = 0;
        hashes_scan(MACHINE_REGISTRY_DIR, "", &hs, &n);
        const char *bases[2];
        mach_cgroup_bases(bases);
        for (int b = 0; b < 2; b++)
                if (bases[b])
                        hashes_scan(bases[b], "jsim-", &hs, &n);
        _cleanup_strv_ struct strv v1 = STRV_INIT;
        mach_v1_model_dirs(NULL, &v1);
        for (size_t i = 0; i < v1.n; i++) {
                *strrchr(v1.v[i], '/') = '\0';
                hashes_scan(v1.v[i], "jsim-", &hs, &n);
        }
        hashes_scan("/sys/class/net", "jsb", &hs, &n);

        int ret = 0, count = 0;
        for (size_t i = 0; i < n; i++) {
                /* One model at a time: registrations wait at most that long. */
                int r = lock_wait(lock, LOCK_EX, 60000);
                if (r < 0) {
                        strbuf_addf(err, "model registry \"%s\": %s", MACHINE_REGISTRY_LOCK, strerror(-r));
                        return r;
                }
                r = gc_one(hs[i], removed, err);
                (void) flock(lock, LOCK_UN);
                if (r > 0)
                        count++;
                else if (r < 0 && ret == 0)
                        ret = r;
        }
        return ret < 0 ? ret : count;
}
