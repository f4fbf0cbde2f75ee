/* SPDX-License-Identifier: Apache-2.0 */
/* The juju-sim model state and its verbs: deploy, add/remove units, integrate, config, …
 * Verbs record changes and queue events; the runner runs them (see model.h). */
#include "util/macro.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "bases.h"
#include "charm.h"
#include "model.h"
#include "toolflags.h"
#include "runner.h"
#include "simmachine.h"
#include "yamljson.h"
#include "proc/proc.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/banned.h"

int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* DIR/tools holds a symlink to juju-sim-tool for every hook tool served (toolflags_names), for
 * juju-exec, and for the tools Juju ships that juju-sim answers "not supported" (exit 1). */
static const char *const tool_extra[] = { "juju-exec", "credential-get" };

char *model_dir_resolve(const char *dir) {
        if (isempty(dir))
                dir = getenv("JUJU_SIM_MODEL");
        if (isempty(dir))
                dir = ".juju-sim";
        if (dir[0] == '/')
                return xstrdup(dir);
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd)))
                return xstrdup(dir);
        return xasprintf("%s/%s", cwd, dir);
}

char *model_socket_path(const struct model *m) {
        return xasprintf("%s/agent.sock", m->dir);
}

char *model_tools_dir(const struct model *m) {
        return xasprintf("%s/tools", m->dir);
}

static char *self_exe(void) {
        char buf[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
        if (n <= 0)
                return xstrdup("juju-sim");
        buf[n] = '\0';
        return xstrdup(buf);
}

static char *tool_exe(void) {
        const char *e = getenv("JUJU_SIM_TOOL");
        if (!isempty(e))
                return xstrdup(e);
        _cleanup_free_ char *self = self_exe();
        char *slash = strrchr(self, '/');
        if (slash)
                *slash = '\0';
        return xasprintf("%s/juju-sim-tool", self);
}

static void random_hex(char *buf, size_t n) {
        static const char hex[] = "0123456789abcdef";
        unsigned char r[64];
        if (n > sizeof(r))
                n = sizeof(r);
        if (getrandom(r, n, 0) != (ssize_t) n)
                for (size_t i = 0; i < n; i++)
                        r[i] = (unsigned char) (rand() ^ getpid() ^ (int) time(NULL));
        for (size_t i = 0; i < n; i++)
                buf[i] = hex[r[i] & 15];
        buf[n] = '\0';
}

/* The model's own files: what a machine's non-root users must not read (a machine sees the
 * host's file system, the model dir included). Directories 0700, files 0600; DIR/charms/APP 0700
 * (its files keep their modes). DIR/bin (bound at /usr/local/sbin in every machine: juju-exec)
 * stays 0755; DIR/machines is the machine code's (machine_make_private()). */
static const char *const private_names[] = { "", "/state.json", "/juju-sim.json", "/lock",
        "/debug-log.jsonl", "/agent.sock", "/charms", "/tools" };

/* A model gets a directory of its own: destroy removes it, and it is made 0700. */
static int check_own_dir(const char *dir, struct strbuf *err) {
        struct stat st;
        if (stat(dir, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) {
                strbuf_addf(err,
                        "model \"%s\": a shared directory (mode %04o); give the model a directory of its "
                        "own",
                        dir, (unsigned) (st.st_mode & 07777));
                return -EPERM;
        }
        return 0;
}

/* Makes the model's files private (an older juju-sim wrote them 0644 in a 0755 dir). */
static int model_make_private(const struct model *m, struct strbuf *err) {
        for (size_t i = 0; i < ELEMENTSOF(private_names); i++) {
                _cleanup_free_ char *p = xasprintf("%s%s", m->dir, private_names[i]);
                int r = chmod_private(p);
                if (r < 0) {
                        strbuf_addf(err, "model \"%s\": cannot make \"%s\" private: %s", m->dir, p,
                                strerror(-r));
                        return r;
                }
        }
        /* each charm's own dir (its files keep their modes: executables, templates) */
        const cJSON *a;
        cJSON_ArrayForEach(a, jget(m->state, "applications")) {
                const char *cdir = jstr(a, "charm-dir");
                int r = isempty(cdir) ? 0 : chmod_private(cdir);
                if (r < 0) {
                        strbuf_addf(err, "model \"%s\": cannot make \"%s\" private: %s", m->dir, cdir,
                                strerror(-r));
                        return r;
                }
        }
        int r = sim_machines_make_private(m, err);
        return r < 0 ? r : 0;
}

static int model_create(const char *dir, struct strbuf *err) {
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = chmod_private(dir); /* it may have been there, empty */
        if (r < 0) {
                strbuf_addf(err, "model \"%s\": %s", dir, strerror(-r));
                return r;
        }
        _cleanup_free_ char *tools = xasprintf("%s/tools", dir), *charms = xasprintf("%s/charms", dir);
        if (mkdir(tools, 0700) < 0 && errno != EEXIST) {
                strbuf_addf(err, "%s: %s", tools, strerror(errno));
                return -errno;
        }
        if (mkdir(charms, 0700) < 0 && errno != EEXIST) {
                strbuf_addf(err, "%s: %s", charms, strerror(errno));
                return -errno;
        }
        _cleanup_free_ char *tool = tool_exe(), *self = self_exe();
        for (size_t i = 0; i < ELEMENTSOF(tool_extra) + strv_length((char **) toolflags_names); i++) {
                const char *name = i < ELEMENTSOF(tool_extra) ? tool_extra[i]
                                                              : toolflags_names[i - ELEMENTSOF(tool_extra)];
                _cleanup_free_ char *l = xasprintf("%s/%s", tools, name);
                (void) unlink(l);
                if (symlink(tool, l) < 0) {
                        strbuf_addf(err, "%s: %s", l, strerror(errno));
                        return -errno;
                }
        }
        char uuid[40], u[33];
        random_hex(u, 32);
        snprintf(uuid, sizeof(uuid), "%.8s-%.4s-4%.3s-a%.3s-%.12s", u, u + 8, u + 12, u + 16, u + 20);
        _cleanup_json_ cJSON *st = cJSON_CreateObject();
        cJSON *model = jobj(st, "model");
        jset_str(model, "name", "sim");
        jset_str(model, "uuid", uuid);
        jset_str(model, "machine-mode", sim_machine_default_mode());
        jset_str(model, "juju-sim", self);
        jset_str(model, "juju-sim-tool", tool);
        cJSON *c = jobj(st, "counters");
        jset_num(c, "machine", 0);
        jset_num(c, "relation", 0);
        jset_num(c, "context", 0);
        jset_num(c, "action", 0);
        jobj(st, "applications");
        jobj(st, "units");
        jobj(st, "machines");
        jobj(st, "relations");
        jobj(st, "secrets");

        /* The locator juju-exec uses to find the model from a bare shell. */
        _cleanup_json_ cJSON *loc = cJSON_CreateObject();
        jset_str(loc, "model", dir);
        jset_str(loc, "juju-sim", self);
        _cleanup_free_ char *locs = cJSON_Print(loc), *locp = xasprintf("%s/juju-sim.json", dir);
        r = write_file_atomic(locp, locs, strlen(locs), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", locp, strerror(-r));
                return r;
        }
        _cleanup_free_ char *s = cJSON_Print(st), *sp = xasprintf("%s/state.json", dir);
        r = write_file_atomic(sp, s, strlen(s), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", sp, strerror(-r));
        return r;
}

static void clear_stale(struct model *m, bool locked);

static int model_load(struct model *m, struct strbuf *err) {
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(m->state_path, &data, NULL);
        if (r < 0) {
                strbuf_addf(err, "model \"%s\": %s", m->dir, r == -ENOENT ? "no such model" : strerror(-r));
                return r;
        }
        cJSON *st = cJSON_Parse(data);
        if (!cJSON_IsObject(st)) {
                cJSON_Delete(st);
                strbuf_addf(err, "%s: not a juju-sim state", m->state_path);
                return -EINVAL;
        }
        cJSON_Delete(m->state);
        m->state = st;
        return 0;
}

int model_open(const char *dir, bool create, struct model **ret, struct strbuf *err) {
        _cleanup_free_ char *d = model_dir_resolve(dir);
        _cleanup_free_ char *sp = xasprintf("%s/state.json", d);
        int r = check_own_dir(d, err);
        if (r < 0)
                return r;
        if (access(sp, F_OK) < 0) {
                if (!create) {
                        strbuf_addf(err, "model \"%s\": no such model", d);
                        return -ENOENT;
                }
                r = model_create(d, err);
                if (r < 0)
                        return r;
        }
        struct model *m = xcalloc(1, sizeof(*m));
        m->dir = TAKE_PTR(d);
        m->state_path = TAKE_PTR(sp);
        m->lock_fd = -1;
        r = model_load(m, err);
        if (r >= 0)
                clear_stale(m, false);
        if (r >= 0)
                r = model_make_private(m, err);
        if (r < 0) {
                model_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

/* Takes an exclusive flock on fd, polling every 5 ms for at most timeout_sec: 0, -ETIMEDOUT, or
 * another negative errno. */
static int flock_wait(int fd, int timeout_sec) {
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        return 0;
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return -errno;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec - start.tv_sec >= timeout_sec)
                        return -ETIMEDOUT;
                usleep(5000);
        }
}

int model_lock(struct model *m, int timeout_sec, struct strbuf *err) {
        if (m->lock_fd < 0) {
                _cleanup_free_ char *p = xasprintf("%s/lock", m->dir);
                m->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
                if (m->lock_fd < 0) {
                        strbuf_addf(err, "%s: %s", p, strerror(errno));
                        return -errno;
                }
        }
        int r = flock_wait(m->lock_fd, timeout_sec);
        if (r == -ETIMEDOUT) {
                strbuf_addf(err, "model \"%s\": machine lock held by another juju-sim", m->dir);
                return r;
        }
        if (r < 0) {
                strbuf_addf(err, "model lock: %s", strerror(-r));
                return r;
        }
        r = model_load(m, err);
        if (r >= 0)
                clear_stale(m, true);
        return r;
}

void model_unlock(struct model *m) {
        if (m->lock_fd >= 0)
                (void) flock(m->lock_fd, LOCK_UN);
}

void model_forget_lock(struct model *m) {
        if (m->lock_fd >= 0)
                close(m->lock_fd);
        m->lock_fd = -1;
}

int model_machine_lock(
        const struct model *m, const char *machine, int timeout_sec, int *ret_fd, struct strbuf *err) {
        _cleanup_free_ char *p = xasprintf("%s/lock.machine-%s", m->dir, strempty(machine));
        _cleanup_close_ int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) {
                strbuf_addf(err, "%s: %s", p, strerror(errno));
                return -errno;
        }
        int r = flock_wait(fd, timeout_sec);
        if (r == -ETIMEDOUT) {
                strbuf_addf(err, "machine %s: its machine lock is held by another juju-sim (waited %d s)",
                        strempty(machine), timeout_sec);
                return r;
        }
        if (r < 0) {
                strbuf_addf(err, "machine %s lock: %s", strempty(machine), strerror(-r));
                return r;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

bool model_machine_busy(const struct model *m, const char *machine) {
        _cleanup_free_ char *p = xasprintf("%s/lock.machine-%s", m->dir, strempty(machine));
        _cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false; /* never taken: no lock file */
        if (flock(fd, LOCK_SH | LOCK_NB) == 0)
                return false; /* (closing the fd releases it) */
        return errno == EWOULDBLOCK;
}

char *model_machine_busy_any(const struct model *m) {
        DIR *d = opendir(m->dir);
        if (!d)
                return NULL;
        char *busy = NULL;
        struct dirent *de;
        while (!busy && (de = readdir(d))) {
                const char *id = startswith(de->d_name, "lock.machine-");
                if (id && model_machine_busy(m, id))
                        busy = xstrdup(id);
        }
        closedir(d);
        return busy;
}

int model_save(struct model *m, struct strbuf *err) {
        _cleanup_free_ char *s = cJSON_Print(m->state);
        int r = write_file_atomic(m->state_path, s, strlen(s), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", m->state_path, strerror(-r));
        return r;
}

void model_free(struct model *m) {
        if (!m)
                return;
        if (m->lock_fd >= 0)
                close(m->lock_fd);
        cJSON_Delete(m->state);
        free(m->dir);
        free(m->state_path);
        free(m);
}

/* --- lookups ------------------------------------------------------------------------------ */

cJSON *state_app(const cJSON *st, const char *app) {
        return jget(jget(st, "applications"), app);
}

cJSON *state_unit(const cJSON *st, const char *unit) {
        return jget(jget(st, "units"), unit);
}

cJSON *state_relation(const cJSON *st, long id) {
        char k[32];
        snprintf(k, sizeof(k), "%ld", id);
        return jget(jget(st, "relations"), k);
}

cJSON *state_machine(const cJSON *st, const char *id) {
        return jget(jget(st, "machines"), id);
}

const char *unit_app(const cJSON *st, const char *unit) {
        return jstr(state_unit(st, unit), "application");
}

bool unit_is_leader(const cJSON *st, const char *unit) {
        const char *app = unit_app(st, unit);
        return app && streq_ptr(jstr(state_app(st, app), "leader"), unit);
}

const cJSON *rel_endpoint(const cJSON *rel, const char *app) {
        const cJSON *e;
        cJSON_ArrayForEach(e, jget(rel, "endpoints")) if (streq_ptr(jstr(e, "app"), app)) return e;
        return NULL;
}

const char *rel_remote_app(const cJSON *rel, const char *app) {
        if (!rel_endpoint(rel, app))
                return NULL;
        if (cJSON_IsTrue(jget(rel, "peer")))
                return app;
        const cJSON *e;
        cJSON_ArrayForEach(e, jget(rel, "endpoints")) if (!streq_ptr(jstr(e, "app"), app)) return jstr(
                e, "app");
        return NULL;
}

cJSON *unit_rel(const cJSON *st, const char *unit, long id) {
        char k[32];
        snprintf(k, sizeof(k), "%ld", id);
        return jget(jget(state_unit(st, unit), "relations"), k);
}

/* --- status records ----------------------------------------------------------------------- */

/* Now, as a status record's since. */
static void since_now(char buf[static 32]) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void status_record_set(cJSON *rec, const char *status, const char *message) {
        bool same = jstr(rec, "since") && streq_ptr(jstr(rec, "status"), status) &&
                streq(strempty(jstr(rec, "message")), strempty(message));
        jset_str(rec, "status", status);
        jset_str(rec, "message", message);
        if (same)
                return;
        char buf[32];
        since_now(buf);
        jset_str(rec, "since", buf);
}

void unit_agent_set(cJSON *u, const char *agent) {
        if (jstr(u, "agent-since") && streq_ptr(jstr(u, "agent"), agent))
                return;
        char buf[32];
        since_now(buf);
        jset_str(u, "agent", agent);
        jset_str(u, "agent-since", buf);
}

char *status_since_format(const char *since, bool iso) {
        struct tm tm = {};
        const char *end = since ? strptime(since, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
        if (!end || *end)
                return NULL;
        time_t t = timegm(&tm);
        char buf[64];
        if (iso) {
                strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%SZ", &tm);
                return xstrdup(buf);
        }
        /* Go's "Z07:00": Z for UTC, else the offset as +hh:mm */
        struct tm lt;
        localtime_r(&t, &lt);
        strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S", &lt);
        long off = lt.tm_gmtoff;
        if (off == 0)
                return xasprintf("%sZ", buf);
        long a = off < 0 ? -off : off;
        return xasprintf("%s%c%02ld:%02ld", buf, off < 0 ? '-' : '+', a / 3600, a % 3600 / 60);
}

static long rel_id(const cJSON *rel) {
        return (long) jnum(rel, "id", -1);
}

static bool unit_in_scope(const cJSON *st, const char *unit, long id) {
        return cJSON_IsTrue(jget(unit_rel(st, unit, id), "scope"));
}

/* --- subordinates (subordinates.md) ------------------------------------------------------- */

static bool app_subordinate(const cJSON *st, const char *app) {
        return cJSON_IsTrue(jget(jget(state_app(st, app), "charm"), "subordinate"));
}

/* The principal of a subordinate unit, NULL for a principal. */
static const char *unit_principal(const cJSON *st, const char *unit) {
        return jstr(state_unit(st, unit), "principal");
}

static bool rel_container(const cJSON *rel) {
        return streq_ptr(jstr(rel, "scope"), "container");
}

/* The unit's side of rel is the implicit juju-info endpoint: no hooks run for it (relationer
 * IsImplicit). */
static bool rel_implicit_for(const cJSON *st, const cJSON *rel, const char *unit) {
        return cJSON_IsTrue(jget(rel_endpoint(rel, unit_app(st, unit)), "implicit"));
}

/* A container relation's scope key: the principal unit (Relation.unit: "r#<id>#<principal>"). */
static const char *container_key(const cJSON *st, const char *unit) {
        const char *p = unit_principal(st, unit);
        return p ? p : unit;
}

/* Whether unit takes part in rel at all (the subordinate relations watcher, shouldSendCheck):
 * every global relation; a container one only when its other end is the principal's
 * application or a subordinate application. */
static bool unit_sees_rel(const cJSON *st, const char *unit, const cJSON *rel) {
        const char *p = unit_principal(st, unit);
        if (!rel_container(rel) || !p)
                return true;
        const char *other = rel_remote_app(rel, unit_app(st, unit));
        return streq_ptr(other, unit_app(st, p)) || app_subordinate(st, other);
}

static long next_counter(cJSON *st, const char *name) {
        cJSON *c = jobj(st, "counters");
        long v = (long) jnum(c, name, 0);
        jset_num(c, name, (double) (v + 1));
        return v;
}

/* --- events ------------------------------------------------------------------------------- */

cJSON *event_new(const char *kind) {
        cJSON *ev = cJSON_CreateObject();
        jset_str(ev, "hook", kind);
        jset_str(ev, "kind", kind);
        return ev;
}

cJSON *rel_event_new(const cJSON *st, const char *unit, long id, const char *kind, const char *remote_unit,
        const char *departing) {
        const cJSON *rel = state_relation(st, id);
        const char *app = unit_app(st, unit);
        const cJSON *ep = rel_endpoint(rel, app);
        cJSON *ev = cJSON_CreateObject();
        _cleanup_free_ char *hook = xasprintf("%s-%s", strempty(jstr(ep, "endpoint")), kind);
        jset_str(ev, "hook", hook);
        jset_str(ev, "kind", kind);
        jset_num(ev, "relation", (double) id);
        jset_str(ev, "remote-app", rel_remote_app(rel, app));
        jset_str(ev, "remote-unit", remote_unit);
        if (departing)
                jset_str(ev, "departing-unit", departing);
        return ev;
}

static bool coalesces(const char *kind) {
        return streq(kind, "relation-changed") || streq(kind, "config-changed") ||
                streq(kind, "update-status") || streq(kind, "secret-changed") ||
                streq(kind, "leader-settings-changed");
}

/* Whether the head of a unit's queue q stays whatever comes: it runs, or it is a failed hook
 * waiting for its retry or resolve (Juju re-runs localState.Hook first; a skipped one still
 * commits). */
static bool queue_head_kept(const cJSON *u, const cJSON *q) {
        return streq_ptr(jstr(u, "agent"), "executing") || (q->child && jget(q->child, "failed"));
}

/* A remote unit departs before this unit ran its join: Juju's resolver, which compares the
 * members it ran hooks for with the remote state (nextRelationHook), runs neither the joined nor
 * the changed nor the departed. So the queued joined and changed of that remote unit go and
 * the departed is not queued (true). Not the head while it runs. */
static bool departs_unjoined(cJSON *u, cJSON *q, const cJSON *ev) {
        const char *remote = jstr(ev, "remote-unit");
        double id = jnum(ev, "relation", -1);
        if (isempty(remote))
                return false;
        /* (a skipped join still commits the member, so changed and departed follow) */
        bool keep_head = queue_head_kept(u, q);
        int i = 0, joined = -1;
        const cJSON *e;
        cJSON_ArrayForEach(e, q) {
                if (!(i == 0 && keep_head) && streq_ptr(jstr(e, "kind"), "relation-joined") &&
                        jnum(e, "relation", -2) == id && streq_ptr(jstr(e, "remote-unit"), remote)) {
                        joined = i;
                        break;
                }
                i++;
        }
        if (joined < 0)
                return false;
        cJSON *x = cJSON_GetArrayItem(q, joined);
        while (x) {
                cJSON *next = x->next;
                const char *kind = strempty(jstr(x, "kind"));
                if ((streq(kind, "relation-joined") || streq(kind, "relation-changed")) &&
                        jnum(x, "relation", -2) == id && streq_ptr(jstr(x, "remote-unit"), remote))
                        cJSON_Delete(cJSON_DetachItemViaPointer(q, x));
                x = next;
        }
        return true;
}

/* Drops the queued joins and changes of relation id from a unit's queue (of one remote unit's
 * only when remote is set) when what they were about is gone: Juju's resolver compares the
 * members it ran hooks for with the remote state (nextHookForRelation), so once the unit or the
 * relation is dying it runs for the relation only the changed a committed join owes
 * (ChangedPending, its first case), the departed of its members and broken; and a remote unit
 * that left scope gets its departed before anything else of it, and nothing after. The head
 * stays while it runs or waits for its retry or resolve (Juju re-runs localState.Hook first).
 * Call it after the departed are queued: departs_unjoined needs the joins still queued. */
static void drop_live_rel_events(cJSON *st, const char *unit, long id, const char *remote) {
        cJSON *u = state_unit(st, unit);
        cJSON *q = jget(u, "queue");
        if (!q)
                return;
        const char *pending = jstr(unit_rel(st, unit, id), "changed-pending");
        const cJSON *head = queue_head_kept(u, q) ? q->child : NULL;
        bool head_here = head && (long) jnum(head, "relation", -1) == id;
        /* a join that runs, or runs again, owes its changed once it commits */
        if (head_here && streq_ptr(jstr(head, "kind"), "relation-joined"))
                pending = jstr(head, "remote-unit");
        /* the kept head may itself be the owed changed */
        bool pending_kept = head_here && pending && streq_ptr(jstr(head, "kind"), "relation-changed") &&
                streq_ptr(jstr(head, "remote-unit"), pending);
        for (cJSON *e = head ? head->next : q->child, *next; e; e = next) {
                next = e->next;
                const char *kind = strempty(jstr(e, "kind"));
                if (!(streq(kind, "relation-joined") || streq(kind, "relation-changed")) ||
                        (long) jnum(e, "relation", -1) != id ||
                        (remote && !streq_ptr(jstr(e, "remote-unit"), remote)))
                        continue;
                if (streq(kind, "relation-changed") && !pending_kept && pending &&
                        streq_ptr(jstr(e, "remote-unit"), pending))
                        pending_kept = true;
                else
                        cJSON_Delete(cJSON_DetachItemViaPointer(q, e));
        }
}

void queue_event(cJSON *st, const char *unit, cJSON *ev) {
        cJSON *u = state_unit(st, unit);
        const cJSON *evrel = jget(ev, "relation") ? state_relation(st, (long) jnum(ev, "relation", -1)) : NULL;
        if (!u || (evrel && rel_implicit_for(st, evrel, unit))) {
                /* (implicit relations run no hooks: relationsResolver, createdRelationsResolver) */
                cJSON_Delete(ev);
                return;
        }
        cJSON *q = jarr(u, "queue");
        if (streq_ptr(jstr(ev, "kind"), "relation-departed")) {
                if (departs_unjoined(u, q, ev)) {
                        cJSON_Delete(ev);
                        return;
                }
                const char *remote = jstr(ev, "remote-unit");
                if (!isempty(remote))
                        drop_live_rel_events(st, unit, (long) jnum(ev, "relation", -1), remote);
        }
        if (coalesces(strempty(jstr(ev, "kind")))) {
                const cJSON *e;
                bool head = true;
                cJSON_ArrayForEach(e, q) {
                        /* The head may be running right now: it would not see later changes. */
                        if (!(head && streq_ptr(jstr(u, "agent"), "executing")) &&
                                cJSON_Compare(e, ev, true)) {
                                cJSON_Delete(ev);
                                return;
                        }
                        head = false;
                }
        }
        cJSON_AddItemToArray(q, ev);
}

static void queue_kind(cJSON *st, const char *unit, const char *kind) {
        queue_event(st, unit, event_new(kind));
}

static void queue_rel(
        cJSON *st, const char *unit, long id, const char *kind, const char *remote, const char *dep) {
        queue_event(st, unit, rel_event_new(st, unit, id, kind, remote, dep));
}

/* Units of app that are in scope of relation id, except `except`. */
static void scope_units(const cJSON *st, long id, const char *app, const char *except, struct strv *ret) {
        const cJSON *u;
        cJSON_ArrayForEach(u, jget(state_app(st, app), "units")) {
                if (!cJSON_IsString(u) || streq_ptr(u->valuestring, except))
                        continue;
                if (unit_in_scope(st, u->valuestring, id))
                        strv_push(ret, u->valuestring);
        }
}

/* The units a unit sees on the other side of relation id (its peers for a peer relation); in a
 * container relation only those of its own scope key (its principal's, subordinates.md §3). */
static void remote_scope_units(const cJSON *st, long id, const char *unit, struct strv *ret) {
        const cJSON *rel = state_relation(st, id);
        const char *app = unit_app(st, unit);
        const char *rapp = rel_remote_app(rel, app);
        if (!rapp)
                return;
        _cleanup_strv_ struct strv all = STRV_INIT;
        scope_units(st, id, rapp, unit, &all);
        for (size_t i = 0; i < all.n; i++)
                if (!rel_container(rel) || streq_ptr(container_key(st, all.v[i]), container_key(st, unit)))
                        strv_push(ret, all.v[i]);
}

/* --- charms and machines ------------------------------------------------------------------ */

static int copy_tree(const char *src, const char *dst, struct strbuf *err) {
        struct stat st;
        if (lstat(src, &st) < 0) {
                strbuf_addf(err, "%s: %s", src, strerror(errno));
                return -errno;
        }
        if (S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t n = readlink(src, target, sizeof(target) - 1);
                if (n < 0)
                        return -errno;
                target[n] = '\0';
                if (symlink(target, dst) < 0) {
                        strbuf_addf(err, "%s: %s", dst, strerror(errno));
                        return -errno;
                }
                return 0;
        }
        if (S_ISDIR(st.st_mode)) {
                if (mkdir(dst, st.st_mode & 07777) < 0 && errno != EEXIST) {
                        strbuf_addf(err, "%s: %s", dst, strerror(errno));
                        return -errno;
                }
                DIR *d = opendir(src);
                if (!d) {
                        strbuf_addf(err, "%s: %s", src, strerror(errno));
                        return -errno;
                }
                struct dirent *de;
                int r = 0;
                while ((de = readdir(d))) {
                        if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                                continue;
                        _cleanup_free_ char *s = xasprintf("%s/%s", src, de->d_name);
                        _cleanup_free_ char *t = xasprintf("%s/%s", dst, de->d_name);
                        r = copy_tree(s, t, err);
                        if (r < 0)
                                break;
                }
                closedir(d);
                return r;
        }
        if (!S_ISREG(st.st_mode))
                return 0;
        _cleanup_free_ char *data = NULL;
        size_t len;
        int r = read_full_file(src, &data, &len);
        if (r >= 0)
                r = write_file_atomic(dst, data, len, st.st_mode & 07777, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", src, strerror(-r));
        return r;
}

static int rm_tree(const char *path) {
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISDIR(st.st_mode)) {
                DIR *d = opendir(path);
                if (d) {
                        struct dirent *de;
                        while ((de = readdir(d))) {
                                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                                        continue;
                                _cleanup_free_ char *s = xasprintf("%s/%s", path, de->d_name);
                                (void) rm_tree(s);
                        }
                        closedir(d);
                }
                return RET_NERRNO(rmdir(path));
        }
        return RET_NERRNO(unlink(path));
}

/* Copies (directory) or unpacks (.charm zip) the charm into DIR/charms/APP. */
static int charm_install(
        struct model *m, const char *charm, const char *app, char **ret_dir, struct strbuf *err) {
        struct stat st;
        if (stat(charm, &st) < 0) {
                strbuf_addf(err, "charm \"%s\": %s", charm, strerror(errno));
                return -errno;
        }
        _cleanup_free_ char *dst = xasprintf("%s/charms/%s", m->dir, app);
        (void) rm_tree(dst);
        int r;
        if (S_ISDIR(st.st_mode)) {
                r = copy_tree(charm, dst, err);
        } else {
                _cleanup_proc_ struct proc p = PROC_INIT;
                strv_pushl(&p.argv, "unzip", "-q", "-o", charm, "-d", dst, NULL);
                p.capture_out = p.capture_err = true;
                p.timeout_ms = 120000;
                r = proc_run(&p);
                if (r != 0) {
                        strbuf_trim(&p.err);
                        strbuf_addf(err, "charm \"%s\": cannot unpack: %s", charm,
                                r < 0 ? strerror(-r) : p.err.buf);
                        r = r < 0 ? r : -EINVAL;
                }
        }
        if (r >= 0)
                r = chmod_private(dst);
        if (r < 0) {
                (void) rm_tree(dst);
                return r;
        }
        *ret_dir = TAKE_PTR(dst);
        return 0;
}

/* A new unit's first events (the uniter's order): install, relation-created for each relation
 * it takes part in, leader-elected or leader-settings-changed, config-changed, start. */
static void unit_initial_queue(cJSON *st, const char *name) {
        const char *app = unit_app(st, name);
        cJSON *a = state_app(st, app);
        queue_kind(st, name, "install");
        cJSON *rel;
        cJSON_ArrayForEach(rel, jget(st, "relations")) {
                if (rel_endpoint(rel, app) && streq_ptr(jstr(rel, "life"), "alive") && unit_sees_rel(st, name, rel))
                        queue_rel(st, name, rel_id(rel), "relation-created", "", NULL);
        }
        if (!jstr(a, "leader")) {
                jset_str(a, "leader", name);
                queue_kind(st, name, "leader-elected");
        } else
                queue_kind(st, name, "leader-settings-changed");
        queue_kind(st, name, "config-changed");
        queue_kind(st, name, "start");
}

/* A unit record of app on machine mid (principal: NULL, or the subordinate's principal). */
static cJSON *unit_record_new(cJSON *st, const char *app, const char *name, const char *mid, const char *principal) {
        cJSON *u = cJSON_CreateObject();
        jset_str(u, "application", app);
        jset_str(u, "machine", mid);
        if (principal)
                jset_str(u, "principal", principal);
        jset_str(u, "life", "alive");
        unit_agent_set(u, "allocating");
        status_record_set(jobj(u, "workload"), "waiting", "installing agent");
        jarr(u, "queue");
        jobj(u, "relations");
        jobj(u, "state");
        jarr(u, "ports");
        jobj(u, "secrets");
        jset(jobj(st, "units"), name, u);
        cJSON_AddItemToArray(jarr(state_app(st, app), "units"), cJSON_CreateString(name));
        return u;
}

static void unit_bag_init(cJSON *st, const char *unit, long id);

/* The unit's record of relation id as it enters its scope (no member yet, not broken) and its
 * bag with the address settings (EnterScope writes them). */
static cJSON *scope_enter(cJSON *st, const char *unit, long id) {
        char k[32];
        snprintf(k, sizeof(k), "%ld", id);
        cJSON *ur = jobj(jobj(state_unit(st, unit), "relations"), k);
        jset(ur, "scope", cJSON_CreateTrue());
        jarr(ur, "members");
        jset(ur, "broken", cJSON_CreateFalse());
        unit_bag_init(st, unit, id);
        return ur;
}

/* A unit on the implicit juju-info side of rel enters its scope with no hook (Relationer.Join:
 * EnterScope, which also writes its address settings; IsImplicit skips only the hooks): its
 * record and bag, and the counterparts in its scope are told it joined (the joins queued for it
 * are dropped, queue_event). */
static void implicit_enter(cJSON *st, const char *unit, const cJSON *rel) {
        cJSON *u = state_unit(st, unit);
        long id = rel_id(rel);
        if (!rel_implicit_for(st, rel, unit) || unit_rel(st, unit, id) || !unit_sees_rel(st, unit, rel) ||
                !streq_ptr(jstr(u, "life"), "alive") || !streq_ptr(jstr(rel, "life"), "alive"))
                return;
        scope_enter(st, unit, id);
        _cleanup_strv_ struct strv remote = STRV_INIT;
        remote_scope_units(st, id, unit, &remote);
        for (size_t i = 0; i < remote.n; i++) {
                queue_rel(st, remote.v[i], id, "relation-joined", unit, NULL);
                queue_rel(st, remote.v[i], id, "relation-changed", unit, NULL);
        }
}

/* The principal unit `unit` is in scope of the container relation rel: it gets its unit of the
 * subordinate application on the other side, unless it has one (RelationUnit.EnterScope ->
 * subordinateOps; one per principal unit: addUnitOpsWithCons' assertion). The subordinate is on
 * the principal's machine, named from its application's own sequence. */
static void subordinate_ensure(cJSON *st, const char *unit, const cJSON *rel) {
        const char *app = unit_app(st, unit);
        const char *sub = rel_remote_app(rel, app);
        cJSON *u = state_unit(st, unit);
        if (!rel_container(rel) || unit_principal(st, unit) || !app_subordinate(st, sub) ||
                !streq_ptr(jstr(u, "life"), "alive") || !streq_ptr(jstr(rel, "life"), "alive") ||
                !streq_ptr(jstr(state_app(st, sub), "life"), "alive"))
                return;
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(u, "subordinates")) {
                if (streq_ptr(unit_app(st, x->valuestring), sub))
                        return;
        }
        cJSON *a = state_app(st, sub);
        long n = (long) jnum(a, "next-unit", 0);
        jset_num(a, "next-unit", (double) (n + 1));
        _cleanup_free_ char *name = xasprintf("%s/%ld", sub, n);
        unit_record_new(st, sub, name, jstr(u, "machine"), unit);
        cJSON_AddItemToArray(jarr(u, "subordinates"), cJSON_CreateString(name));
        unit_initial_queue(st, name);
}

/* An installed unit takes part in rel now: the implicit side enters scope, a principal of a
 * container relation gets its subordinate. */
static void scope_sync(cJSON *st, const char *unit, const cJSON *rel) {
        implicit_enter(st, unit, rel);
        if (rel_implicit_for(st, rel, unit))
                subordinate_ensure(st, unit, rel);
}

/* Gives the unit a machine and its initial queue; the machine's id is added to made. */
static int add_one_unit(
        struct model *m, const char *app, char *const *shares, struct strv *made, struct strbuf *err) {
        cJSON *st = m->state;
        cJSON *a = state_app(st, app);
        long n = (long) jnum(a, "next-unit", 0);
        jset_num(a, "next-unit", (double) (n + 1));
        _cleanup_free_ char *name = xasprintf("%s/%ld", app, n);
        long mid = next_counter(st, "machine");
        char mids[32];
        snprintf(mids, sizeof(mids), "%ld", mid);
        cJSON *rec = cJSON_CreateObject();
        jset_str(rec, "id", mids);
        jset_str(rec, "unit", name);
        if (shares && *shares) {
                cJSON *sh = jarr(rec, "shares");
                for (char *const *p = shares; *p; p++)
                        cJSON_AddItemToArray(sh, cJSON_CreateString(*p));
        }
        if (jstr(a, "base"))
                jset_str(rec, "base", jstr(a, "base"));
        int r = sim_machine_create(m, rec, err);
        if (r < 0) {
                cJSON_Delete(rec); /* sim_machine_create() removed what it made */
                return r;
        }
        jset(jobj(st, "machines"), mids, rec);
        strv_push(made, mids);

        unit_record_new(st, app, name, mids, NULL);
        unit_initial_queue(st, name);
        return 0;
}

/* Juju's application name grammar (juju/names: [a-z][a-z0-9]*(-[a-z0-9]*[a-z][a-z0-9]*)*):
 * every part after a hyphen holds a letter ("web-1" is refused: it would read as a unit). */
static bool valid_app_name(const char *s) {
        bool letter = true;
        if (!s || !(*s >= 'a' && *s <= 'z'))
                return false;
        for (const char *p = s; *p; p++) {
                if (*p == '-') {
                        if (!letter)
                                return false;
                        letter = false;
                } else if (*p >= 'a' && *p <= 'z')
                        letter = true;
                else if (!(*p >= '0' && *p <= '9'))
                        return false;
        }
        return letter;
}

static long add_relation(cJSON *st, const char *iface, bool peer, const char *app1, const char *ep1,
        const char *role1, const char *app2, const char *ep2, const char *role2) {
        long id = next_counter(st, "relation");
        cJSON *rel = cJSON_CreateObject();
        jset_num(rel, "id", (double) id);
        jset_str(rel, "interface", iface);
        jset(rel, "peer", cJSON_CreateBool(peer));
        jset_str(rel, "life", "alive");
        status_record_set(jobj(rel, "status"), "joining", ""); /* addPeerRelationsOps, AddRelation */
        cJSON *eps = jarr(rel, "endpoints");
        cJSON *e = cJSON_CreateObject();
        jset_str(e, "app", app1);
        jset_str(e, "endpoint", ep1);
        jset_str(e, "role", role1);
        cJSON_AddItemToArray(eps, e);
        cJSON *ad = jobj(rel, "app-data");
        jobj(ad, app1);
        if (!peer) {
                e = cJSON_CreateObject();
                jset_str(e, "app", app2);
                jset_str(e, "endpoint", ep2);
                jset_str(e, "role", role2);
                cJSON_AddItemToArray(eps, e);
                jobj(ad, app2);
        }
        jobj(rel, "unit-data");
        char k[32];
        snprintf(k, sizeof(k), "%ld", id);
        jset(jobj(st, "relations"), k, rel);
        return id;
}

/* Sets each "key=value" of kv (NULL-terminated, may be NULL) into cfg, typed and checked
 * against the charm's config.yaml; on error cfg may hold some of them (callers drop it). */
static int config_apply_kv(const cJSON *charm, cJSON *cfg, char *const *kv, struct strbuf *err) {
        for (size_t i = 0; kv && kv[i]; i++) {
                const char *eq = strchr(kv[i], '=');
                if (!eq) {
                        strbuf_addf(err, "config: expected \"key=value\", got \"%s\"", kv[i]);
                        return -EINVAL;
                }
                _cleanup_free_ char *k = xstrndup(kv[i], (size_t) (eq - kv[i]));
                cJSON *v = NULL;
                int r = charm_config_value(charm, k, eq + 1, &v, err);
                if (r < 0)
                        return r;
                jset(cfg, k, v);
        }
        return 0;
}

/* The stop signal (SIGINT, SIGTERM, SIGHUP) the caller holds blocked and that is pending, or 0. */
static int stop_pending(void) {
        static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
        sigset_t pending;
        if (sigpending(&pending) < 0)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(stops); i++)
                if (sigismember(&pending, stops[i]) == 1)
                        return stops[i];
        return 0;
}

/* Adds n units of app, each on a new machine; the machines' ids are added to made. A stop
 * signal pending (held blocked by the caller, see model.h) ends it between two machines. */
static int add_units(struct model *m, const char *verb, const char *app, int n, char *const *shares,
        struct strv *made, struct strbuf *err) {
        for (int i = 0; i < n; i++) {
                int sig = stop_pending();
                if (sig) {
                        strbuf_addf(err, "%s: interrupted by SIG%s after %d of %d machines", verb,
                                sigabbrev_np(sig), i, n);
                        return -EINTR;
                }
                int r = add_one_unit(m, app, shares, made, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A verb that made machines failed: destroys the machines it made (ids in made), puts the
 * state back as it was before the verb (takes before) and says so after the failure's message.
 * Nothing of the verb is left: no machine, cgroup, unit, state entry. */
static void undo_units(
        struct model *m, const char *verb, const struct strv *made, cJSON *before, struct strbuf *err) {
        int64_t t0 = now_ms();
        _cleanup_strv_ struct strv left = STRV_INIT;
        for (size_t i = 0; i < made->n; i++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (sim_machine_destroy(m, state_machine(m->state, made->v[i]), &e) < 0)
                        strv_pushf(&left, "%s (%s)", made->v[i], e.buf);
        }
        cJSON_Delete(m->state);
        m->state = before;
        _cleanup_free_ char *ids = strv_join(made, ", ");
        if (made->n > left.n)
                strbuf_addf(err, "; %s removed the %zu machine%s it had made (%s) in %lld ms", verb, made->n,
                        made->n == 1 ? "" : "s", ids, (long long) (now_ms() - t0));
        if (left.n > 0) {
                _cleanup_free_ char *l = strv_join(&left, ", ");
                strbuf_addf(err, "; %s could not remove machine %s: `juju-sim destroy` removes it", verb, l);
        }
        strbuf_addstr(err, "; the model is as it was before");
}

static bool host_mode(const struct model *m) {
        return !streq_ptr(jstr(jget(m->state, "model"), "machine-mode"), "namespace");
}

/* Checks that machines of base can be made here: the host's base always, another one in
 * namespace mode when its root file system is built. */
static int check_machine_base(const struct model *m, const char *base, struct strbuf *err) {
        _cleanup_free_ char *rootfs = NULL, *host = sim_host_base();
        if (host_mode(m) && !streq_ptr(base, host)) {
                strbuf_addf(err, "base \"%s\": host-mode machines are this host (%s)", base, strempty(host));
                return -EINVAL;
        }
        return sim_base_rootfs(base, &rootfs, err);
}

int model_set_default_base(struct model *m, const char *base, struct strbuf *err) {
        cJSON *model = jobj(m->state, "model");
        if (isempty(base)) {
                cJSON_DeleteItemFromObject(model, "default-base");
                return 0;
        }
        int r = check_machine_base(m, base, err);
        if (r < 0)
                return r;
        jset_str(model, "default-base", base);
        return 0;
}

bool model_retry_hooks(const cJSON *state) {
        const cJSON *v = jget(jget(state, "model"), "automatically-retry-hooks");
        return !cJSON_IsFalse(v);
}

int model_set_retry_hooks(struct model *m, const char *value, struct strbuf *err) {
        cJSON *model = jobj(m->state, "model");
        if (isempty(value)) {
                cJSON_DeleteItemFromObject(model, "automatically-retry-hooks");
                return 0;
        }
        if (!streq(value, "true") && !streq(value, "false")) {
                /* environs/config's schema (a bool field): the coercer's message */
                strbuf_addf(err, "automatically-retry-hooks: expected bool, got string(\"%s\")", value);
                return -EINVAL;
        }
        jset(model, "automatically-retry-hooks", cJSON_CreateBool(streq(value, "true")));
        return 0;
}

const char *model_hook_concurrency(const cJSON *state) {
        const char *v = jstr(jget(state, "model"), "hook-concurrency");
        return v ? v : HOOK_CONCURRENCY_DEFAULT;
}

unsigned model_hook_workers(const cJSON *state) {
        const char *v = model_hook_concurrency(state);
        if (streq(v, "serial"))
                return 0;
        if (streq(v, "machines")) {
                int n = cJSON_GetArraySize(jget(state, "machines"));
                return n <= 0 ? 1 : n > HOOK_WORKERS_MAX ? HOOK_WORKERS_MAX : (unsigned) n;
        }
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        return *v && !*end && n > 0 && n <= HOOK_WORKERS_MAX ? (unsigned) n : 0;
}

void model_hook_mode_fix(struct model *m) {
        m->concurrent = model_hook_workers(m->state) > 0;
}

/* A process that runs in the mode it began with: a unit executing a hook or action, or a
 * machine whose lock is held. Says which in err and returns -EBUSY, else 0. */
static int hook_mode_busy(const struct model *m, const char *value, struct strbuf *err) {
        const cJSON *u;
        cJSON_ArrayForEach(u, jget(m->state, "units")) {
                if (streq_ptr(jstr(u, "agent"), "executing")) {
                        strbuf_addf(err,
                                "hook-concurrency: cannot change to \"%s\" while unit \"%s\" is executing a "
                                "hook or action; try again when it has ended",
                                value, u->string);
                        return -EBUSY;
                }
        }
        _cleanup_free_ char *busy = model_machine_busy_any(m);
        if (busy) {
                strbuf_addf(err,
                        "hook-concurrency: cannot change to \"%s\" while machine %s runs a hook, action or "
                        "exec (%s/lock.machine-%s is held); try again when it has ended",
                        value, busy, m->dir, busy);
                return -EBUSY;
        }
        return 0;
}

int model_set_hook_concurrency(struct model *m, const char *value, struct strbuf *err) {
        cJSON *model = jobj(m->state, "model");
        bool reset = isempty(value);
        if (reset)
                value = HOOK_CONCURRENCY_DEFAULT;
        if (!streq(value, "serial")) {
                char *end;
                unsigned long n = strtoul(value, &end, 10);
                bool number = value[0] >= '1' && value[0] <= '9' && !*end && n <= HOOK_WORKERS_MAX;
                if (!streq(value, "machines") && !number) {
                        strbuf_addf(err,
                                "hook-concurrency: expected serial, machines or a number of workers from 1 "
                                "to %d, got \"%s\"",
                                HOOK_WORKERS_MAX, value);
                        return -EINVAL;
                }
        }
        if (!streq(model_hook_concurrency(m->state), value)) {
                int r = hook_mode_busy(m, value, err);
                if (r < 0)
                        return r;
        }
        if (reset)
                cJSON_DeleteItemFromObject(model, "hook-concurrency");
        else
                jset_str(model, "hook-concurrency", value);
        return 0;
}

/* The machines' base for a deploy of the charm desc (model.h), checked. Caller frees. */
static int deploy_base(
        const struct model *m, const cJSON *desc, const char *base, char **ret, struct strbuf *err) {
        const char *built = jstr(desc, "built-on"), *def = jstr(jget(m->state, "model"), "default-base");
        _cleanup_free_ char *host = sim_host_base();
        if (!base)
                base = def && (!built || streq(built, def)) ? def : built ? built : host;
        if (!base) {
                strbuf_addstr(err, "deploy: this host's base is unknown (/etc/os-release): give --base");
                return -EINVAL;
        }
        if (built && !streq(built, base)) {
                strbuf_addf(err,
                        "charm \"%s\" was built on %s (its executables link that base's libraries): it "
                        "cannot run on "
                        "%s machines; deploy a charm built on %s, or --base %s",
                        strempty(jstr(desc, "name")), built, base, base, built);
                return -EINVAL;
        }
        int r = check_machine_base(m, base, err);
        if (r < 0)
                return r;
        *ret = xstrdup(base);
        return 0;
}

int model_deploy(struct model *m, const char *charm, const char *app, int n, char *const *config,
        char *const *shares, const char *base, struct strbuf *err) {
        _cleanup_json_ cJSON *desc = NULL;
        _cleanup_free_ char *cdir = NULL;
        int r;
        if (n < 0 || n > 1000) {
                strbuf_addf(err, "deploy: bad number of units %d", n);
                return -EINVAL;
        }
        /* Before anything is made: refused when the machines do not fit. */
        r = sim_capacity_check(m, n, "deploy", err);
        if (r < 0)
                return r;
        /* Read the charm where it is first, to learn its name. */
        struct stat sst;
        if (stat(charm, &sst) < 0) {
                strbuf_addf(err, "charm \"%s\": %s", charm, strerror(errno));
                return -ENOENT;
        }
        _cleanup_free_ char *tmpname = NULL;
        if (!app) {
                if (S_ISDIR(sst.st_mode)) {
                        r = charm_load(charm, &desc, err);
                        if (r < 0)
                                return r;
                        tmpname = xstrdup(jstr(desc, "name"));
                } else {
                        const char *b = strrchr(charm, '/');
                        b = b ? b + 1 : charm;
                        tmpname = xstrdup(b);
                        char *dot = strchr(tmpname, '.');
                        if (dot)
                                *dot = '\0';
                        char *us = strchr(tmpname, '_');
                        if (us)
                                *us = '\0';
                }
                app = tmpname;
        }
        if (!valid_app_name(app)) {
                strbuf_addf(err, "invalid application name \"%s\"", app);
                return -EINVAL;
        }
        if (state_app(m->state, app)) {
                strbuf_addf(err, "application \"%s\" already exists", app);
                return -EEXIST;
        }
        r = charm_install(m, charm, app, &cdir, err);
        if (r < 0)
                return r;
        cJSON_Delete(desc);
        desc = NULL;
        _cleanup_json_ cJSON *cfg = cJSON_CreateObject();
        _cleanup_free_ char *mbase = NULL;
        r = charm_load(cdir, &desc, err);
        if (r >= 0 && cJSON_IsTrue(jget(desc, "subordinate"))) {
                /* the CLI turns the default one unit into none and refuses any other count (the
                 * server: "subordinate application must be deployed without units"); placement
                 * (juju-sim's --share, --gpus) likewise */
                if (n != 1) {
                        strbuf_addstr(err, "cannot use --num-units or --to with subordinate application");
                        r = -EINVAL;
                } else if (shares && *shares) {
                        strbuf_addstr(err, "cannot use --share or --gpus with subordinate application");
                        r = -EINVAL;
                }
                n = 0;
        }
        if (r >= 0)
                r = deploy_base(m, desc, base, &mbase, err);
        if (r >= 0)
                r = config_apply_kv(desc, cfg, config, err);
        if (r < 0) {
                (void) rm_tree(cdir);
                return r;
        }
        _cleanup_json_ cJSON *before = cJSON_Duplicate(m->state, true);
        cJSON *a = cJSON_CreateObject();
        jset_str(a, "charm-dir", cdir);
        jset_str(a, "base", mbase);
        jset(a, "charm", TAKE_PTR(desc));
        jset(a, "config", TAKE_PTR(cfg));
        jset_num(a, "next-unit", 0);
        jset_str(a, "life", "alive");
        jset_str(a, "version", "");
        jarr(a, "units");
        jset(jobj(m->state, "applications"), app, a);

        /* Peer relations exist from deploy on. */
        const cJSON *ep;
        cJSON_ArrayForEach(ep, jget(jget(a, "charm"), "endpoints")) {
                if (streq_ptr(jstr(ep, "role"), "peers"))
                        (void) add_relation(m->state, jstr(ep, "interface"), true, app, ep->string, "peer",
                                NULL, NULL, NULL);
        }
        _cleanup_strv_ struct strv made = STRV_INIT;
        r = add_units(m, "deploy", app, n, shares, &made, err);
        if (r < 0) {
                undo_units(m, "deploy", &made, TAKE_PTR(before), err);
                (void) rm_tree(cdir);
        }
        return r;
}

int model_add_unit(struct model *m, const char *app, int n, char *const *shares, struct strbuf *err) {
        cJSON *a = state_app(m->state, app);
        if (!a || !streq_ptr(jstr(a, "life"), "alive")) {
                strbuf_addf(err, "application \"%s\" not found", app);
                return -ENOENT;
        }
        if (n < 1 || n > 1000) {
                strbuf_addf(err, "add-unit: bad number of units %d", n);
                return -EINVAL;
        }
        if (app_subordinate(m->state, app)) {
                /* apiserver addUnits around state's addUnitOpsWithCons (the first unit fails) */
                strbuf_addf(err,
                        "cannot add unit 1/%d to application \"%s\": cannot add unit to application \"%s\": "
                        "application is a subordinate",
                        n, app, app);
                return -EINVAL;
        }
        int r = sim_capacity_check(m, n, "add-unit", err);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *before = cJSON_Duplicate(m->state, true);
        _cleanup_strv_ struct strv made = STRV_INIT;
        r = add_units(m, "add-unit", app, n, shares, &made, err);
        if (r < 0)
                undo_units(m, "add-unit", &made, TAKE_PTR(before), err);
        return r;
}

/* Drops pending events of relation id from a unit's queue (it never entered scope). */
static void drop_rel_events(cJSON *u, long id) {
        cJSON *q = jget(u, "queue");
        int i = 0;
        cJSON *e = q ? q->child : NULL;
        while (e) {
                cJSON *next = e->next;
                bool head = i == 0 && streq_ptr(jstr(u, "agent"), "executing");
                if (!head && (long) jnum(e, "relation", -1) == id) {
                        cJSON_DeleteItemFromArray(q, i);
                } else
                        i++;
                e = next;
        }
}

static void delete_unit(struct model *m, const char *unit);

/* Relation id goes away: departed for each remote unit, then broken, on every unit in scope. */
static void relation_dying(cJSON *st, long id) {
        cJSON *rel = state_relation(st, id);
        jset_str(rel, "life", "dying");
        _cleanup_strv_ struct strv inscope = STRV_INIT;
        const cJSON *e;
        cJSON_ArrayForEach(e, jget(rel, "endpoints")) scope_units(st, id, jstr(e, "app"), NULL, &inscope);
        for (size_t i = 0; i < inscope.n; i++) {
                _cleanup_strv_ struct strv remote = STRV_INIT;
                remote_scope_units(st, id, inscope.v[i], &remote);
                for (size_t j = 0; j < remote.n; j++)
                        queue_rel(st, inscope.v[i], id, "relation-departed", remote.v[j], remote.v[j]);
                if (!cJSON_IsTrue(jget(rel, "peer")))
                        queue_rel(st, inscope.v[i], id, "relation-broken", "", NULL);
                drop_live_rel_events(st, inscope.v[i], id, NULL);
        }
        for (size_t i = 0; i < inscope.n; i++) {
                jset(unit_rel(st, inscope.v[i], id), "scope", cJSON_CreateFalse());
                /* an implicit side leaves at once, with no hook (relationer SetDying -> die) */
                if (rel_implicit_for(st, rel, inscope.v[i])) {
                        char k[32];
                        snprintf(k, sizeof(k), "%ld", id);
                        cJSON_DeleteItemFromObjectCaseSensitive(jget(state_unit(st, inscope.v[i]), "relations"), k);
                }
        }
        /* Units that had not entered scope yet never will. */
        cJSON *u;
        cJSON_ArrayForEach(u, jget(st, "units")) {
                if (!unit_rel(st, u->string, id))
                        drop_rel_events(u, id);
        }
}

/* The unit leaves every relation (departed both ways, broken for non-peer), then stop, remove. */
static void unit_dying(cJSON *st, const char *unit) {
        cJSON *u = state_unit(st, unit);
        jset_str(u, "life", "dying");
        _cleanup_strv_ struct strv ids = STRV_INIT;
        const cJSON *ur;
        cJSON_ArrayForEach(ur, jget(u, "relations")) {
                if (cJSON_IsTrue(jget(ur, "scope")))
                        strv_push(&ids, ur->string);
        }
        for (size_t i = 0; i < ids.n; i++) {
                long id = strtol(ids.v[i], NULL, 10);
                const cJSON *rel = state_relation(st, id);
                _cleanup_strv_ struct strv remote = STRV_INIT;
                remote_scope_units(st, id, unit, &remote);
                for (size_t j = 0; j < remote.n; j++) {
                        queue_rel(st, remote.v[j], id, "relation-departed", unit, unit);
                        queue_rel(st, unit, id, "relation-departed", remote.v[j], unit);
                }
                if (!cJSON_IsTrue(jget(rel, "peer")))
                        queue_rel(st, unit, id, "relation-broken", "", NULL);
                drop_live_rel_events(st, unit, id, NULL);
                jset(unit_rel(st, unit, id), "scope", cJSON_CreateFalse());
        }
        /* Relations it had not entered yet: never. */
        const cJSON *rel;
        cJSON_ArrayForEach(rel, jget(st, "relations")) {
                if (!unit_rel(st, unit, rel_id(rel)))
                        drop_rel_events(u, rel_id(rel));
        }
        queue_kind(st, unit, "stop");
        queue_kind(st, unit, "remove");
}

static void elect_leader(cJSON *st, const char *app) {
        cJSON *a = state_app(st, app);
        const cJSON *x;
        const char *leader = NULL;
        cJSON_ArrayForEach(x, jget(a, "units")) {
                if (streq_ptr(jstr(state_unit(st, x->valuestring), "life"), "alive")) {
                        leader = x->valuestring;
                        break;
                }
        }
        if (!leader) {
                cJSON_DeleteItemFromObjectCaseSensitive(a, "leader");
                return;
        }
        jset_str(a, "leader", leader);
        cJSON_ArrayForEach(x, jget(a, "units")) {
                if (!streq_ptr(jstr(state_unit(st, x->valuestring), "life"), "alive"))
                        continue;
                queue_kind(st, x->valuestring,
                        streq(x->valuestring, leader) ? "leader-elected" : "leader-settings-changed");
        }
}

static void unit_remove(struct model *m, const char *unit);

/* The principal's subordinates become dying with it (maybeDestroySubordinates ->
 * DestroyAllSubordinates); each tears down on its own, the principal's removal waits for them
 * (delete_unit). */
static void subordinates_dying(struct model *m, const char *unit) {
        _cleanup_strv_ struct strv subs = STRV_INIT;
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(state_unit(m->state, unit), "subordinates")) strv_push(&subs, x->valuestring);
        for (size_t i = 0; i < subs.n; i++)
                unit_remove(m, subs.v[i]);
}

/* Subordinate units left with no alive container relation between their application and their
 * principal's become dying (relationStateTracker.maybeSetSubordinateDying). */
static void subordinates_orphaned(struct model *m) {
        cJSON *st = m->state;
        _cleanup_strv_ struct strv lost = STRV_INIT;
        const cJSON *u, *rel;
        cJSON_ArrayForEach(u, jget(st, "units")) {
                const char *p = jstr(u, "principal");
                if (!p || !streq_ptr(jstr(u, "life"), "alive"))
                        continue;
                const char *app = jstr(u, "application"), *papp = unit_app(st, p);
                bool kept = false;
                cJSON_ArrayForEach(rel, jget(st, "relations")) kept = kept ||
                        (rel_container(rel) && streq_ptr(jstr(rel, "life"), "alive") && rel_endpoint(rel, app) &&
                                streq_ptr(rel_remote_app(rel, app), papp));
                if (!kept)
                        strv_push(&lost, u->string);
        }
        for (size_t i = 0; i < lost.n; i++)
                unit_remove(m, lost.v[i]);
}

/* remove-unit's checks: the unit exists and is a principal (apiserver DestroyUnit; the CLI
 * prints the refusal per unit). */
static int removable_unit(const cJSON *st, const char *unit, struct strbuf *err) {
        const cJSON *u = state_unit(st, unit);
        if (!u) {
                strbuf_addf(err, "unit \"%s\" not found", unit);
                return -ENOENT;
        }
        if (jstr(u, "principal")) {
                strbuf_addf(err,
                        "removing unit %s failed: unit \"%s\" is a subordinate, to remove use remove-relation. "
                        "Note: this will remove all units of \"%s\"",
                        unit, unit, strempty(jstr(u, "application")));
                return -EINVAL;
        }
        return 0;
}

int model_remove_unit(struct model *m, const char *unit, struct strbuf *err) {
        int r = removable_unit(m->state, unit, err);
        if (r < 0)
                return r;
        unit_remove(m, unit);
        return 0;
}

static void unit_remove(struct model *m, const char *unit) {
        cJSON *u = state_unit(m->state, unit);
        if (!u || !streq_ptr(jstr(u, "life"), "alive"))
                return;
        const char *app = jstr(u, "application");
        bool was_leader = unit_is_leader(m->state, unit);
        unit_dying(m->state, unit);
        subordinates_dying(m, unit);
        if (!was_leader)
                return;
        /* Juju: a dying unit keeps leadership while its agent runs (its tracker keeps claiming
         * the lease; the lease is revoked once the unit is dead). Here: until the process its
         * machine runs now has ended (model_leader_handover()), so that two units are never
         * leader at once. */
        if (model_machine_busy(m, jstr(u, "machine")))
                jset(u, "elect-successor", cJSON_CreateTrue());
        else
                elect_leader(m->state, app);
}

void model_leader_handover(cJSON *st, const char *unit) {
        cJSON *u = state_unit(st, unit);
        if (!jget(u, "elect-successor"))
                return;
        cJSON_DeleteItemFromObjectCaseSensitive(u, "elect-successor");
        if (unit_is_leader(st, unit))
                elect_leader(st, jstr(u, "application"));
}

/* Undoes what a process killed while it held its machine's lock left (model.h): its unit's
 * "executing" (which would keep queue_event from coalescing with the queue's head), its context
 * (and, under the model lock, that context's socket), its leadership handover. Units whose
 * machine lock is held are left alone: their process still runs. */
static void clear_stale_units(struct model *m, bool locked, const char *mine) {
        cJSON *u;
        cJSON_ArrayForEach(u, jget(m->state, "units")) {
                const char *ctx = jstr(u, "context");
                bool executing = streq_ptr(jstr(u, "agent"), "executing");
                if (!ctx && !executing && !jget(u, "elect-successor"))
                        continue;
                /* (a machine whose lock this process holds runs nothing else: what another
                 * process left there is stale even though the lock is held) */
                if (!streq_ptr(mine, jstr(u, "machine")) && model_machine_busy(m, jstr(u, "machine")))
                        continue;
                const char *n = ctx ? strrchr(ctx, '-') : NULL;
                if (n && locked) {
                        _cleanup_free_ char *sock = xasprintf("%s/agent%s.sock", m->dir, n);
                        (void) unlink(sock);
                }
                cJSON_DeleteItemFromObjectCaseSensitive(u, "context");
                if (executing)
                        unit_agent_set(u, jget(u, "error") ? "error" : "idle");
                model_leader_handover(m->state, u->string);
        }
}

static void clear_stale(struct model *m, bool locked) {
        clear_stale_units(m, locked, NULL);
}

void model_machine_clear_stale(struct model *m, const char *machine) {
        clear_stale_units(m, true, machine);
}

static int force_remove(struct model *m, const char *unit);

/* remove-unit --force (juju remove-unit --force --no-wait on a dead machine): the unit's own
 * hooks never run (nor its subordinates'); the remote units are told it departed; its machine
 * is destroyed at once. */
int model_remove_unit_force(struct model *m, const char *unit, struct strbuf *err) {
        cJSON *st = m->state;
        int r0 = removable_unit(st, unit, err);
        if (r0 < 0)
                return r0;
        cJSON *u = state_unit(st, unit);
        jset_str(u, "life", "dead"); /* no new subordinate while its own go */
        /* its subordinates first (cleanupForceDestroyedUnit: DestroyWithForce on each) */
        _cleanup_strv_ struct strv subs = STRV_INIT;
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(u, "subordinates")) strv_push(&subs, x->valuestring);
        for (size_t i = 0; i < subs.n; i++) {
                int r = force_remove(m, subs.v[i]);
                if (r < 0)
                        return r;
        }
        return force_remove(m, unit);
}

static int force_remove(struct model *m, const char *unit) {
        cJSON *st = m->state;
        cJSON *u = state_unit(st, unit);
        if (!u)
                return 0;
        _cleanup_free_ char *name = xstrdup(unit), *app = xstrdup(strempty(jstr(u, "application")));
        bool was_leader = unit_is_leader(st, name);
        _cleanup_strv_ struct strv ids = STRV_INIT;
        const cJSON *ur;
        cJSON_ArrayForEach(ur, jget(u, "relations")) {
                if (cJSON_IsTrue(jget(ur, "scope")))
                        strv_push(&ids, ur->string);
        }
        for (size_t i = 0; i < ids.n; i++) {
                long id = strtol(ids.v[i], NULL, 10);
                _cleanup_strv_ struct strv remote = STRV_INIT;
                remote_scope_units(st, id, name, &remote);
                for (size_t j = 0; j < remote.n; j++)
                        queue_rel(st, remote.v[j], id, "relation-departed", name, name);
        }
        jset_str(u, "life", "dead");
        delete_unit(m, name);
        if (was_leader)
                elect_leader(m->state, app);
        model_gc(m);
        return 0;
}

int model_remove_application(struct model *m, const char *app, struct strbuf *err) {
        cJSON *a = state_app(m->state, app);
        if (!a) {
                strbuf_addf(err, "application \"%s\" not found", app);
                return -ENOENT;
        }
        if (!streq_ptr(jstr(a, "life"), "alive"))
                return 0;
        jset_str(a, "life", "dying");
        cJSON *rel;
        cJSON_ArrayForEach(rel, jget(m->state, "relations")) {
                if (!rel_endpoint(rel, app) || !streq_ptr(jstr(rel, "life"), "alive"))
                        continue;
                if (cJSON_IsTrue(jget(rel, "peer")))
                        continue;
                relation_dying(m->state, rel_id(rel));
        }
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(a, "units")) {
                if (streq_ptr(jstr(state_unit(m->state, x->valuestring), "life"), "alive"))
                        unit_dying(m->state, x->valuestring);
        }
        cJSON_ArrayForEach(rel, jget(m->state, "relations")) {
                if (rel_endpoint(rel, app))
                        jset_str(rel, "life", "dying");
        }
        /* its units' subordinates (their container relations are dying) */
        subordinates_orphaned(m);
        model_gc(m);
        return 0;
}

/* "app[:endpoint]" into its parts (endpoint NULL when not given). */
static void split_endpoint(const char *s, char **ret_app, char **ret_ep) {
        const char *c = strchr(s, ':');
        *ret_app = c ? xstrndup(s, (size_t) (c - s)) : xstrdup(s);
        *ret_ep = c ? xstrdup(c + 1) : NULL;
}

/* An application's endpoint names for integrate, with the implicit "juju-info" its charm does
 * not declare (Application.Endpoints). */
static void endpoint_names(const cJSON *app, struct strv *ret) {
        const cJSON *e;
        cJSON_ArrayForEach(e, jget(jget(app, "charm"), "endpoints")) strv_push(ret, e->string);
        if (!jget(jget(jget(app, "charm"), "endpoints"), "juju-info"))
                strv_push(ret, "juju-info");
}

static const cJSON *app_endpoint(const cJSON *app, const char *name, const cJSON *implicit) {
        const cJSON *e = jget(jget(jget(app, "charm"), "endpoints"), name);
        return e ? e : streq(name, "juju-info") ? implicit : NULL;
}

int model_integrate(struct model *m, const char *a, const char *b, struct strbuf *err) {
        _cleanup_free_ char *app1 = NULL, *ep1 = NULL, *app2 = NULL, *ep2 = NULL;
        split_endpoint(a, &app1, &ep1);
        split_endpoint(b, &app2, &ep2);
        cJSON *A = state_app(m->state, app1), *B = state_app(m->state, app2);
        if (!A || !streq_ptr(jstr(A, "life"), "alive")) {
                strbuf_addf(err, "application \"%s\" not found", app1);
                return -ENOENT;
        }
        if (!B || !streq_ptr(jstr(B, "life"), "alive")) {
                strbuf_addf(err, "application \"%s\" not found", app2);
                return -ENOENT;
        }
        if (streq(app1, app2)) {
                strbuf_addf(err, "cannot relate \"%s\" to itself", app1);
                return -EINVAL;
        }
        /* Every provides/requires pair with the same interface that fits the given names; each
         * application also provides the implicit juju-info (global; Application.Endpoints). */
        _cleanup_json_ cJSON *implicit = cJSON_CreateObject();
        jset_str(implicit, "role", "provides");
        jset_str(implicit, "interface", "juju-info");
        jset_str(implicit, "scope", "global");
        _cleanup_strv_ struct strv cands = STRV_INIT, implicit_cands = STRV_INIT;
        bool sub1 = app_subordinate(m->state, app1), sub2 = app_subordinate(m->state, app2);
        _cleanup_strv_ struct strv names1 = STRV_INIT, names2 = STRV_INIT;
        endpoint_names(A, &names1);
        endpoint_names(B, &names2);
        for (size_t i1 = 0; i1 < names1.n; i1++) {
                const char *n1 = names1.v[i1];
                const cJSON *x1 = app_endpoint(A, n1, implicit);
                if (ep1 && !streq(n1, ep1))
                        continue;
                for (size_t i2 = 0; i2 < names2.n; i2++) {
                        const char *n2 = names2.v[i2];
                        const cJSON *x2 = app_endpoint(B, n2, implicit);
                        if (ep2 && !streq(n2, ep2))
                                continue;
                        const char *r1 = jstr(x1, "role"), *r2 = jstr(x2, "role");
                        bool fit = (streq(r1, "provides") && streq(r2, "requires")) ||
                                (streq(r1, "requires") && streq(r2, "provides"));
                        if (!fit || !streq(jstr(x1, "interface"), jstr(x2, "interface")))
                                continue;
                        /* containerScopeOk: a container relation needs a subordinate on one side */
                        bool cont = streq_ptr(jstr(x1, "scope"), "container") ||
                                streq_ptr(jstr(x2, "scope"), "container");
                        if (cont && !sub1 && !sub2)
                                continue;
                        strv_pushf(x1 == implicit || x2 == implicit ? &implicit_cands : &cands, "%s:%s %s:%s",
                                app1, n1, app2, n2);
                }
        }
        /* candidates through an implicit endpoint count only when nothing else fits */
        if (cands.n == 0)
                strv_pushv(&cands, implicit_cands.v);
        if (cands.n == 0) {
                strbuf_addf(err, "no relations found between \"%s\" and \"%s\"", a, b);
                return -EINVAL;
        }
        if (cands.n > 1) {
                _cleanup_free_ char *all = strv_join(&cands, "\"; \"");
                strbuf_addf(err, "ambiguous relation: \"%s %s\" could refer to \"%s\"", a, b, all);
                return -EINVAL;
        }
        _cleanup_free_ char *x1 = NULL, *x2 = NULL, *a1 = NULL, *a2 = NULL;
        char *sp = strchr(cands.v[0], ' ');
        *sp = '\0';
        split_endpoint(cands.v[0], &a1, &x1);
        split_endpoint(sp + 1, &a2, &x2);
        *sp = ' ';
        const cJSON *epA = app_endpoint(A, x1, implicit), *epB = app_endpoint(B, x2, implicit);
        bool impA = epA == implicit, impB = epB == implicit; /* juju-info, not declared */
        bool container = streq_ptr(jstr(epA, "scope"), "container") || streq_ptr(jstr(epB, "scope"), "container");
        if (container && !streq_ptr(jstr(A, "base"), jstr(B, "base"))) {
                strbuf_addf(err, "principal and subordinate applications' bases must match (\"%s\": %s, \"%s\": %s)",
                        app1, strempty(jstr(A, "base")), app2, strempty(jstr(B, "base")));
                return -EINVAL;
        }
        const cJSON *rel;
        cJSON_ArrayForEach(rel, jget(m->state, "relations")) {
                const cJSON *ra = rel_endpoint(rel, app1), *rb = rel_endpoint(rel, app2);
                if (ra && rb && streq_ptr(jstr(ra, "endpoint"), x1) && streq_ptr(jstr(rb, "endpoint"), x2) &&
                        streq_ptr(jstr(rel, "life"), "alive")) {
                        strbuf_addf(err, "relation \"%s\" already exists", cands.v[0]);
                        return -EEXIST;
                }
        }
        /* limit: how many relations an endpoint may have. */
        const cJSON *chk[2][2] = { { A, epA }, { B, epB } };
        const char *chkname[2][2] = { { app1, x1 }, { app2, x2 } };
        for (int i = 0; i < 2; i++) {
                double limit = jnum(chk[i][1], "limit", 0);
                if (limit <= 0)
                        continue;
                int count = 0;
                cJSON_ArrayForEach(rel, jget(m->state, "relations")) {
                        const cJSON *re = rel_endpoint(rel, chkname[i][0]);
                        if (re && streq_ptr(jstr(re, "endpoint"), chkname[i][1]) &&
                                streq_ptr(jstr(rel, "life"), "alive"))
                                count++;
                }
                if (count >= (int) limit) {
                        strbuf_addf(err, "endpoint \"%s:%s\" is at its limit of %d relations", chkname[i][0],
                                chkname[i][1], (int) limit);
                        return -EBUSY;
                }
        }
        bool a_provides = streq(jstr(epA, "role"), "provides");
        long id = a_provides ? add_relation(m->state, jstr(epA, "interface"), false, app1, x1, "provider",
                                       app2, x2, "requirer")
                             : add_relation(m->state, jstr(epA, "interface"), false, app2, x2, "provider",
                                       app1, x1, "requirer");
        cJSON *nrel = state_relation(m->state, id);
        if (container)
                jset_str(nrel, "scope", "container"); /* both ends (State.AddRelation) */
        if (impA)
                jset((cJSON *) rel_endpoint(nrel, app1), "implicit", cJSON_CreateTrue());
        if (impB)
                jset((cJSON *) rel_endpoint(nrel, app2), "implicit", cJSON_CreateTrue());
        const char *apps[2] = { app1, app2 };
        for (int i = 0; i < 2; i++) {
                const cJSON *x;
                cJSON_ArrayForEach(x, jget(state_app(m->state, apps[i]), "units")) {
                        if (streq_ptr(jstr(state_unit(m->state, x->valuestring), "life"), "alive") &&
                                unit_sees_rel(m->state, x->valuestring, nrel))
                                queue_rel(m->state, x->valuestring, id, "relation-created", "", NULL);
                }
        }
        /* installed units on an implicit side enter scope now (no hook to wait for); a principal
         * there gets its subordinate */
        for (int i = 0; i < 2; i++) {
                const cJSON *x;
                cJSON_ArrayForEach(x, jget(state_app(m->state, apps[i]), "units")) {
                        if (cJSON_IsTrue(jget(state_unit(m->state, x->valuestring), "installed")))
                                scope_sync(m->state, x->valuestring, nrel);
                }
        }
        return 0;
}

int model_remove_relation(struct model *m, const char *a, const char *b, struct strbuf *err) {
        _cleanup_free_ char *app1 = NULL, *ep1 = NULL, *app2 = NULL, *ep2 = NULL;
        split_endpoint(a, &app1, &ep1);
        split_endpoint(b, &app2, &ep2);
        long found = -1;
        int count = 0;
        const cJSON *rel;
        cJSON_ArrayForEach(rel, jget(m->state, "relations")) {
                const cJSON *ra = rel_endpoint(rel, app1), *rb = rel_endpoint(rel, app2);
                if (!ra || !rb || cJSON_IsTrue(jget(rel, "peer")) || !streq_ptr(jstr(rel, "life"), "alive"))
                        continue;
                if ((ep1 && !streq_ptr(jstr(ra, "endpoint"), ep1)) ||
                        (ep2 && !streq_ptr(jstr(rb, "endpoint"), ep2)))
                        continue;
                found = rel_id(rel);
                count++;
        }
        if (count == 0) {
                strbuf_addf(err, "relation \"%s %s\" not found", a, b);
                return -ENOENT;
        }
        if (count > 1) {
                strbuf_addf(err, "ambiguous relation \"%s %s\": name the endpoints", a, b);
                return -EINVAL;
        }
        relation_dying(m->state, found);
        subordinates_orphaned(m);
        model_gc(m);
        return 0;
}

int model_config(struct model *m, const char *app, char *const *kv, char *const *reset, struct strbuf *err) {
        cJSON *a = state_app(m->state, app);
        if (!a) {
                strbuf_addf(err, "application \"%s\" not found", app);
                return -ENOENT;
        }
        const cJSON *charm = jget(a, "charm");
        _cleanup_json_ cJSON *cfg = cJSON_Duplicate(jobj(a, "config"), true);
        int r = config_apply_kv(charm, cfg, kv, err);
        if (r < 0)
                return r;
        for (size_t i = 0; reset && reset[i]; i++) {
                if (!jget(jget(charm, "options"), reset[i])) {
                        strbuf_addf(err, "unknown option \"%s\"", reset[i]);
                        return -EINVAL;
                }
                cJSON_DeleteItemFromObjectCaseSensitive(cfg, reset[i]);
        }
        _cleanup_json_ cJSON *before = charm_config_effective(charm, jget(a, "config"), true);
        _cleanup_json_ cJSON *after = charm_config_effective(charm, cfg, true);
        jset(a, "config", TAKE_PTR(cfg));
        if (cJSON_Compare(before, after, true))
                return 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(a, "units")) {
                if (streq_ptr(jstr(state_unit(m->state, x->valuestring), "life"), "alive"))
                        queue_kind(m->state, x->valuestring, "config-changed");
        }
        return 0;
}

void model_unit_error_clear(cJSON *u, bool keep_retry) {
        cJSON_DeleteItemFromObjectCaseSensitive(u, "error");
        unit_agent_set(u, "idle");
        cJSON *saved = cJSON_DetachItemFromObjectCaseSensitive(u, "workload-before-error");
        if (saved)
                jset(u, "workload", saved);
        if (!keep_retry)
                model_unit_retry_clear(u);
}

void model_unit_retry_clear(cJSON *u) {
        cJSON_DeleteItemFromObjectCaseSensitive(u, "retry-count");
        cJSON_DeleteItemFromObjectCaseSensitive(u, "retry-at");
}

int64_t model_unit_retry_at(const cJSON *state, const cJSON *u) {
        int64_t at = (int64_t) jnum(u, "retry-at", 0);
        return model_retry_hooks(state) && jget(u, "error") && at > 0 ? at : 0;
}

int model_resolve(struct model *m, const char *unit, bool no_retry, struct strbuf *err) {
        cJSON *u = state_unit(m->state, unit);
        if (!u) {
                strbuf_addf(err, "unit \"%s\" not found", unit);
                return -ENOENT;
        }
        if (!jget(u, "error")) {
                strbuf_addf(err, "unit \"%s\" is not in an error state", unit);
                return -EINVAL;
        }
        model_unit_error_clear(u, false);
        if (no_retry) {
                /* Juju's ResolvedNoHooks: the failed hook is marked done without running again
                 * (uniter resolver: NewSkipHook); what it would have committed is not */
                cJSON *q = jget(u, "queue");
                if (q && q->child) {
                        _cleanup_json_ cJSON *ev = cJSON_DetachItemFromArray(q, 0);
                        _cleanup_free_ char *name = xstrdup(unit);
                        model_event_post(m, name, ev, true);
                }
        }
        return 0;
}

int model_trigger(struct model *m, const char *target, const char *hook, struct strbuf *err) {
        static const char *const ok[] = { "update-status", "config-changed", "upgrade-charm",
                "leader-settings-changed" };
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(ok); i++)
                known = known || streq(hook, ok[i]);
        if (!known) {
                strbuf_addf(err,
                        "trigger: hook \"%s\" cannot be triggered (update-status, config-changed, "
                        "upgrade-charm, leader-settings-changed)",
                        hook);
                return -EINVAL;
        }
        _cleanup_strv_ struct strv units = STRV_INIT;
        if (state_unit(m->state, target))
                strv_push(&units, target);
        else if (state_app(m->state, target)) {
                const cJSON *x;
                cJSON_ArrayForEach(x, jget(state_app(m->state, target), "units"))
                        strv_push(&units, x->valuestring);
        } else {
                strbuf_addf(err, "unit or application \"%s\" not found", target);
                return -ENOENT;
        }
        for (size_t i = 0; i < units.n; i++) {
                if (!streq_ptr(jstr(state_unit(m->state, units.v[i]), "life"), "alive"))
                        continue;
                if (streq(hook, "upgrade-charm")) {
                        queue_kind(m->state, units.v[i], "upgrade-charm");
                        queue_kind(m->state, units.v[i], "config-changed");
                        queue_kind(m->state, units.v[i], "start");
                } else
                        queue_kind(m->state, units.v[i], hook);
        }
        return 0;
}

/* --- what running an event does to the state ---------------------------------------------- */

static void unit_bag_init(cJSON *st, const char *unit, long id) {
        cJSON *rel = state_relation(st, id);
        cJSON *bags = jobj(rel, "unit-data");
        if (jget(bags, unit))
                return;
        const cJSON *mach = state_machine(st, jstr(state_unit(st, unit), "machine"));
        const char *addr = jstr(mach, "address");
        cJSON *bag = jobj(bags, unit);
        _cleanup_free_ char *subnet = addr ? xasprintf("%s/32", addr) : NULL;
        jset_str(bag, "egress-subnets", subnet);
        jset_str(bag, "ingress-address", addr);
        jset_str(bag, "private-address", addr);
}

void model_event_pre(cJSON *st, const char *unit, const cJSON *ev) {
        const char *kind = strempty(jstr(ev, "kind"));
        cJSON *u = state_unit(st, unit);
        if (streq(kind, "install")) {
                cJSON *w = jobj(u, "workload");
                if (streq_ptr(jstr(w, "status"), "waiting"))
                        status_record_set(w, "maintenance", "installing charm software");
                return;
        }
        if (!startswith(kind, "relation-"))
                return;
        long id = (long) jnum(ev, "relation", -1);
        cJSON *ur = unit_rel(st, unit, id);
        const char *remote = jstr(ev, "remote-unit");
        if (streq(kind, "relation-created") && !ur) {
                ur = scope_enter(st, unit, id);
                /* until its hook succeeded: a process killed during it leaves the record, and
                 * the hook must run again (model_event_runnable; Juju marks a relation created
                 * only when the hook commits, uniter/relation CreatedRelations) */
                jset(ur, "creating", cJSON_CreateTrue());
                /* The leader that joins sets the relation joined (uniter relationStateTracker). */
                cJSON *rel = state_relation(st, id);
                if (unit_is_leader(st, unit) && streq_ptr(jstr(rel, "life"), "alive"))
                        status_record_set(jobj(rel, "status"), "joined", "");
                /* Entering scope: each side is told of the other. */
                _cleanup_strv_ struct strv remote_units = STRV_INIT;
                remote_scope_units(st, id, unit, &remote_units);
                for (size_t i = 0; i < remote_units.n; i++) {
                        queue_rel(st, remote_units.v[i], id, "relation-joined", unit, NULL);
                        queue_rel(st, remote_units.v[i], id, "relation-changed", unit, NULL);
                        queue_rel(st, unit, id, "relation-joined", remote_units.v[i], NULL);
                        queue_rel(st, unit, id, "relation-changed", remote_units.v[i], NULL);
                }
                /* a principal entering a container relation's scope gets its subordinate */
                subordinate_ensure(st, unit, rel);
        } else if (streq(kind, "relation-joined") && ur && !isempty(remote)) {
                cJSON *mem = jarr(ur, "members");
                if (jarr_find(mem, remote) < 0)
                        cJSON_AddItemToArray(mem, cJSON_CreateString(remote));
        } else if (streq(kind, "relation-departed") && ur && !isempty(remote)) {
                jarr_remove_str(jarr(ur, "members"), remote);
        } else if (streq(kind, "relation-broken") && ur) {
                jset(ur, "broken", cJSON_CreateTrue());
        }
}

bool model_event_runnable(const cJSON *st, const char *unit, const cJSON *ev) {
        const char *kind = strempty(jstr(ev, "kind"));
        if (!startswith(kind, "relation-"))
                return true;
        long id = (long) jnum(ev, "relation", -1);
        const cJSON *rel = state_relation(st, id);
        if (!rel)
                return false;
        if (streq(kind, "relation-created")) {
                const cJSON *ur = unit_rel(st, unit, id);
                return streq_ptr(jstr(rel, "life"), "alive") &&
                        streq_ptr(jstr(state_unit(st, unit), "life"), "alive") && (!ur || jget(ur, "creating"));
        }
        return unit_rel(st, unit, id) != NULL;
}

static void delete_unit(struct model *m, const char *unit) {
        cJSON *st = m->state;
        cJSON *u = state_unit(st, unit);
        if (!u)
                return;
        /* a principal is Dead (and its machine goes) only once its subordinates are gone
         * (Uniter.terminate, EnsureDead's unitHasNoSubordinates): its remove hook ran */
        if (cJSON_GetArraySize(jget(u, "subordinates")) > 0) {
                jset(u, "removed", cJSON_CreateTrue());
                return;
        }
        _cleanup_free_ char *app = xstrdup(strempty(jstr(u, "application"))); /* u goes below */
        cJSON *a = state_app(st, app);
        jarr_remove_str(jarr(a, "units"), unit);
        if (streq_ptr(jstr(a, "leader"), unit))
                cJSON_DeleteItemFromObjectCaseSensitive(a, "leader");
        const char *pr = jstr(u, "principal");
        _cleanup_free_ char *principal = pr ? xstrdup(pr) : NULL;
        if (principal)
                jarr_remove_str(jarr(state_unit(st, principal), "subordinates"), unit);
        const char *mid = jstr(u, "machine");
        /* the machine is its principal's (a subordinate only lives on it) */
        cJSON *rec = principal ? NULL : state_machine(st, mid);
        if (rec) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                (void) sim_machine_destroy(m, rec, &e);
                cJSON_DeleteItemFromObjectCaseSensitive(jget(st, "machines"), mid);
        }
        cJSON *secrets = jget(st, "secrets"), *s = secrets ? secrets->child : NULL;
        while (s) {
                cJSON *next = s->next;
                if (streq_ptr(jstr(s, "owner"), unit))
                        cJSON_DeleteItemFromObjectCaseSensitive(secrets, s->string);
                s = next;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(jget(st, "units"), unit);
        const cJSON *pu = principal ? state_unit(st, principal) : NULL;
        if (pu && cJSON_IsTrue(jget(pu, "removed")) && cJSON_GetArraySize(jget(pu, "subordinates")) == 0) {
                delete_unit(m, principal);
                return;
        }
        /* a principal still in scope of a container relation with that application gets a new
         * subordinate now (its scope entry waited: ErrCannotEnterScopeYet until the old unit was
         * removed) */
        const cJSON *rel;
        cJSON_ArrayForEach(rel, jget(st, "relations")) {
                if (pu && unit_in_scope(st, principal, rel_id(rel)) &&
                        streq_ptr(rel_remote_app(rel, unit_app(st, principal)), app))
                        subordinate_ensure(st, principal, rel);
        }
}

void model_event_post(struct model *m, const char *unit, const cJSON *ev, bool ok) {
        if (!ok)
                return;
        cJSON *st = m->state;
        const char *kind = strempty(jstr(ev, "kind"));
        cJSON *u = state_unit(st, unit);
        if (streq(kind, "install")) {
                /* installed: the uniter syncs its relations' scopes from now on (created resolver);
                 * an implicit juju-info side enters a container scope without a hook */
                jset(u, "installed", cJSON_CreateTrue());
                const cJSON *rel;
                cJSON_ArrayForEach(rel, jget(st, "relations")) {
                        if (rel_endpoint(rel, jstr(u, "application")))
                                scope_sync(st, unit, rel);
                }
        } else if (streq(kind, "relation-broken")) {
                char k[32];
                snprintf(k, sizeof(k), "%ld", (long) jnum(ev, "relation", -1));
                cJSON_DeleteItemFromObjectCaseSensitive(jget(u, "relations"), k);
        } else if (streq(kind, "relation-created")) {
                cJSON *ur = unit_rel(st, unit, (long) jnum(ev, "relation", -1));
                if (ur)
                        cJSON_DeleteItemFromObjectCaseSensitive(ur, "creating");
        } else if (streq(kind, "relation-joined") || streq(kind, "relation-changed")) {
                /* a committed join owes its changed (uniter relation State.ChangedPending) */
                cJSON *ur = unit_rel(st, unit, (long) jnum(ev, "relation", -1));
                const char *remote = jstr(ev, "remote-unit");
                if (ur && !isempty(remote) && streq(kind, "relation-joined"))
                        jset_str(ur, "changed-pending", remote);
                else if (ur && streq_ptr(jstr(ur, "changed-pending"), remote))
                        cJSON_DeleteItemFromObjectCaseSensitive(ur, "changed-pending");
        } else if (streq(kind, "start")) {
                cJSON *w = jobj(u, "workload");
                if (streq_ptr(jstr(w, "status"), "maintenance") &&
                        streq_ptr(jstr(w, "message"), "installing charm software"))
                        status_record_set(w, "unknown", "");
        } else if (streq(kind, "remove")) {
                _cleanup_free_ char *name = xstrdup(unit);
                delete_unit(m, name);
        }
        model_gc(m);
}

/* A revision that is not the latest and that no consumer tracks any more is obsolete: its owner
 * (the unit, or the application's leader) gets secret-remove with JUJU_SECRET_REVISION, once, and
 * is expected to call secret-remove --revision (Juju's state/secrets obsolete revisions). */
static void secret_obsolete_revisions(cJSON *work) {
        cJSON *sec;
        cJSON_ArrayForEach(sec, jget(work, "secrets")) {
                long latest = (long) jnum(sec, "latest", 0);
                const char *owner = jstr(sec, "owner");
                if (streq_ptr(jstr(sec, "owner-kind"), "application"))
                        owner = jstr(state_app(work, owner), "leader");
                if (!owner)
                        continue;
                const cJSON *rev;
                cJSON_ArrayForEach(rev, jget(sec, "revisions")) {
                        long r = strtol(rev->string, NULL, 10);
                        if (r >= latest || jarr_find(jget(sec, "remove-notified"), rev->string) >= 0)
                                continue;
                        bool tracked = false;
                        const cJSON *u;
                        cJSON_ArrayForEach(u, jget(work, "units")) {
                                const cJSON *t = jget(jget(u, "secrets"), sec->string);
                                tracked = tracked || (t && (long) jnum(t, "revision", 0) == r);
                        }
                        if (tracked)
                                continue;
                        cJSON *ev = event_new("secret-remove");
                        jset_str(ev, "secret", sec->string);
                        jset_str(ev, "label", strempty(jstr(sec, "label")));
                        jset_num(ev, "revision", (double) r);
                        queue_event(work, owner, ev);
                        cJSON_AddItemToArray(jarr(sec, "remove-notified"), cJSON_CreateString(rev->string));
                }
        }
}

/* What a hook's committed writes cause on others: relation-changed for the unit's changed bags,
 * secret-changed for new revisions, secret-remove for obsolete ones. old: the state before the
 * writes landed; events are queued in now (the state with them). */
static void commit_events(const cJSON *old, cJSON *now, const char *unit) {
        const char *app = unit_app(now, unit);
        bool scope_ok;
        cJSON *rel;
        cJSON_ArrayForEach(rel, jget(now, "relations")) {
                long id = rel_id(rel);
                const cJSON *orel = state_relation(old, id);
                if (!orel)
                        continue;
                scope_ok = unit_in_scope(now, unit, id);
                if (!scope_ok)
                        continue;
                _cleanup_strv_ struct strv remote = STRV_INIT;
                remote_scope_units(now, id, unit, &remote);
                const cJSON *ob = jget(jget(orel, "unit-data"), unit),
                            *nb = jget(jget(rel, "unit-data"), unit);
                if (!cJSON_Compare(ob, nb, true))
                        for (size_t i = 0; i < remote.n; i++)
                                queue_rel(now, remote.v[i], id, "relation-changed", unit, NULL);
                ob = jget(jget(orel, "app-data"), app);
                nb = jget(jget(rel, "app-data"), app);
                /* an application's bag is the relation's, not a scope's: every counterpart in
                 * scope is told, also across container scopes (counterpartApplicationSettingsKeys) */
                _cleanup_strv_ struct strv all = STRV_INIT;
                const char *rapp = rel_remote_app(rel, app);
                if (rapp)
                        scope_units(now, id, rapp, unit, &all);
                if (!cJSON_Compare(ob, nb, true))
                        for (size_t i = 0; i < all.n; i++)
                                queue_rel(now, all.v[i], id, "relation-changed", "", NULL);
        }
        cJSON *sec;
        cJSON_ArrayForEach(sec, jget(now, "secrets")) {
                const cJSON *os = jget(jget(old, "secrets"), sec->string);
                if (!os || jnum(os, "latest", 0) >= jnum(sec, "latest", 0))
                        continue;
                cJSON *u;
                cJSON_ArrayForEach(u, jget(now, "units")) {
                        const cJSON *t = jget(jget(u, "secrets"), sec->string);
                        if (!t || streq(u->string, unit))
                                continue;
                        cJSON *ev = event_new("secret-changed");
                        jset_str(ev, "secret", sec->string);
                        jset_str(ev, "label", jstr(t, "label"));
                        queue_event(now, u->string, ev);
                }
        }
        secret_obsolete_revisions(now);
}

void model_commit(struct model *m, cJSON *work, const char *unit) {
        cJSON *old = m->state;
        commit_events(old, work, unit);
        m->state = work;
        cJSON_Delete(old);
}

/* One key of a hook's writes: when work's value differs from base's, it replaces cur's (or is
 * removed from cur when the hook removed it). */
static void merge_key(cJSON *cur, const cJSON *base, const cJSON *work, const char *key) {
        const cJSON *b = jget(base, key), *w = jget(work, key);
        if ((!b && !w) || cJSON_Compare(b, w, true))
                return;
        if (!w)
                cJSON_DeleteItemFromObjectCaseSensitive(cur, key);
        else
                jset(cur, key, cJSON_Duplicate(w, true));
}

/* merge_key for every key of base or work. */
static void merge_keys(cJSON *cur, const cJSON *base, const cJSON *work) {
        const cJSON *e;
        cJSON_ArrayForEach(e, work) merge_key(cur, base, work, e->string);
        cJSON_ArrayForEach(e, base) if (!jget(work, e->string)) merge_key(cur, base, work, e->string);
}

/* An object that several writers share (an application's bag, its leader settings): only the
 * keys the hook changed in work's `key` (against base's) land in cur's, made when missing. */
static void merge_object(cJSON *cur, const cJSON *base, const cJSON *work, const char *key) {
        const cJSON *b = jget(base, key), *w = jget(work, key);
        if ((!b && !w) || cJSON_Compare(b, w, true))
                return;
        merge_keys(jobj(cur, key), b, w);
}

/* The parts of the state a hook of unit (of app) can write: its own record's state, ports,
 * secret revisions tracked and workload status; its application's status, version and leader
 * settings; its own unit bag and its application's bag in each relation; the secrets it owns
 * or manages. Everything else (queues, agent, relations' membership, other units) is left to
 * its owners. The leader settings and the application's bags take only the keys the hook changed
 * (a leader elected during the hook may have written others); a secret removed meanwhile stays
 * removed. */
static void merge_hook_writes(
        cJSON *cur, const cJSON *base, const cJSON *work, const char *unit, const char *app) {
        static const char *const unit_keys[] = { "state", "ports", "secrets", "workload" };
        static const char *const app_keys[] = { "status", "version" };
        cJSON *cu = state_unit(cur, unit), *ca = state_app(cur, app);
        for (size_t i = 0; i < ELEMENTSOF(unit_keys); i++)
                merge_key(cu, state_unit(base, unit), state_unit(work, unit), unit_keys[i]);
        for (size_t i = 0; ca && i < ELEMENTSOF(app_keys); i++)
                merge_key(ca, state_app(base, app), state_app(work, app), app_keys[i]);
        /* the controller merges leader settings key by key (WriteLeaderSettings: Merge) */
        if (ca)
                merge_object(ca, state_app(base, app), state_app(work, app), "leader-settings");
        const cJSON *wrel;
        cJSON_ArrayForEach(wrel, jget(work, "relations")) {
                long id = rel_id(wrel);
                cJSON *crel = state_relation(cur, id);
                const cJSON *brel = state_relation(base, id);
                if (!crel)
                        continue; /* gone meanwhile: nothing to write into */
                const cJSON *bu = jget(brel, "unit-data"), *wu = jget(wrel, "unit-data");
                if (jget(bu, unit) || jget(wu, unit))
                        merge_key(jobj(crel, "unit-data"), bu, wu, unit);
                const cJSON *ba = jget(brel, "app-data"), *wa = jget(wrel, "app-data");
                if (jget(ba, app) || jget(wa, app))
                        merge_object(jobj(crel, "app-data"), ba, wa, app);
        }
        const cJSON *bsecs = jget(base, "secrets"), *wsecs = jget(work, "secrets"), *s;
        cJSON *csecs = jobj(cur, "secrets");
        cJSON_ArrayForEach(s, wsecs) {
                const cJSON *bs = jget(bsecs, s->string);
                cJSON *cs = jget(csecs, s->string);
                if (bs && !cs)
                        continue; /* removed meanwhile by another: it stays removed */
                if (!bs)
                        merge_key(csecs, bsecs, wsecs, s->string); /* added by the hook */
                else
                        merge_keys(cs, bs, s);
        }
        cJSON_ArrayForEach(s, bsecs) if (!jget(wsecs, s->string))
                cJSON_DeleteItemFromObjectCaseSensitive(csecs, s->string); /* removed by the hook */
}

bool model_commit_merge(struct model *m, const cJSON *base, const cJSON *work, const char *unit) {
        if (!state_unit(m->state, unit))
                return false;
        _cleanup_free_ char *app = xstrdup(strempty(unit_app(m->state, unit)));
        _cleanup_json_ cJSON *before = cJSON_Duplicate(m->state, true);
        merge_hook_writes(m->state, base, work, unit, app);
        commit_events(before, m->state, unit);
        return true;
}

void model_unit_queue_pop(cJSON *u, const cJSON *ev) {
        cJSON *q = jget(u, "queue");
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, q) {
                if (cJSON_Compare(e, ev, true)) {
                        cJSON_DeleteItemFromArray(q, i);
                        return;
                }
                i++;
        }
}

void model_unit_queue_sort_joins(cJSON *u) {
        cJSON *q = jget(u, "queue");
        const cJSON *head = q ? q->child : NULL;
        if (!head || !streq_ptr(jstr(head, "kind"), "relation-joined") || jget(head, "failed"))
                return; /* a failed hook runs again first */
        double id = jnum(head, "relation", -1);
        int best = 0, i = 0;
        const char *best_name = strempty(jstr(head, "remote-unit"));
        const cJSON *e;
        cJSON_ArrayForEach(e, q) {
                const char *kind = strempty(jstr(e, "kind"));
                if (jnum(e, "relation", -2) != id ||
                        !(streq(kind, "relation-joined") || streq(kind, "relation-changed")))
                        break;
                const char *r = strempty(jstr(e, "remote-unit"));
                if (streq(kind, "relation-joined") && strcmp(r, best_name) < 0) {
                        best = i;
                        best_name = r;
                }
                i++;
        }
        if (best == 0)
                return;
        cJSON *joined = cJSON_DetachItemFromArray(q, best);
        cJSON *next = cJSON_GetArrayItem(q, best);
        cJSON *changed = NULL;
        if (next && streq_ptr(jstr(next, "kind"), "relation-changed") &&
                streq_ptr(jstr(next, "remote-unit"), jstr(joined, "remote-unit")))
                changed = cJSON_DetachItemFromArray(q, best);
        if (changed)
                cJSON_InsertItemInArray(q, 0, changed);
        cJSON_InsertItemInArray(q, 0, joined);
}

void model_gc(struct model *m) {
        cJSON *st = m->state;
        const cJSON *u;
        cJSON *rels = jget(st, "relations");
        cJSON *rel = rels ? rels->child : NULL;
        while (rel) {
                cJSON *next = rel->next;
                /* a gone unit's bag stays while its relation lives: "the unit settings are
                 * guaranteed to persist for the lifetime of the relation, regardless of the
                 * lifetime of the unit" (Juju's state/relationunit.go, ReadSettings); a
                 * counterpart's later relation-get of it reads its last settings */
                if (!streq_ptr(jstr(rel, "life"), "alive")) {
                        bool held = false;
                        cJSON_ArrayForEach(u, jget(st, "units")) held =
                                held || unit_rel(st, u->string, rel_id(rel));
                        if (!held) {
                                /* Grants through it go with it. */
                                cJSON *s;
                                cJSON_ArrayForEach(s, jget(st, "secrets")) {
                                        cJSON *g = jget(s, "grants");
                                        for (int i = cJSON_GetArraySize(g) - 1; i >= 0; i--)
                                                if ((long) jnum(cJSON_GetArrayItem(g, i), "relation", -2) ==
                                                        rel_id(rel))
                                                        cJSON_DeleteItemFromArray(g, i);
                                }
                                cJSON_DeleteItemFromObjectCaseSensitive(rels, rel->string);
                        }
                }
                rel = next;
        }
        cJSON *apps = jget(st, "applications");
        cJSON *a = apps ? apps->child : NULL;
        while (a) {
                cJSON *next = a->next;
                if (!streq_ptr(jstr(a, "life"), "alive") && cJSON_GetArraySize(jget(a, "units")) == 0) {
                        cJSON *secrets = jget(st, "secrets"), *s = secrets ? secrets->child : NULL;
                        while (s) {
                                cJSON *sn = s->next;
                                if (streq_ptr(jstr(s, "owner"), a->string))
                                        cJSON_DeleteItemFromObjectCaseSensitive(secrets, s->string);
                                s = sn;
                        }
                        _cleanup_free_ char *cdir = xstrdup(strempty(jstr(a, "charm-dir")));
                        cJSON_DeleteItemFromObjectCaseSensitive(apps, a->string);
                        if (!isempty(cdir))
                                (void) rm_tree(cdir);
                }
                a = next;
        }
}

int model_destroy(const char *dir_arg, struct strbuf *err) {
        _cleanup_free_ char *dir = model_dir_resolve(dir_arg);
        struct stat st;
        if (lstat(dir, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        _cleanup_free_ char *sp = xasprintf("%s/state.json", dir), *lp = xasprintf("%s/juju-sim.json", dir);
        if (access(sp, F_OK) < 0 && access(lp, F_OK) < 0) {
                strbuf_addf(err, "destroy: \"%s\" is not a juju-sim model", dir);
                return -EINVAL;
        }
        /* Wait a while for a running juju-sim; a killed one holds no lock (flock dies with it). */
        _cleanup_free_ char *lockp = xasprintf("%s/lock", dir);
        _cleanup_close_ int fd = open(lockp, O_RDWR | O_CLOEXEC);
        for (int i = 0; fd >= 0 && i < 3000; i++) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        break;
                usleep(10000);
        }
        _cleanup_free_ char *data = NULL;
        _cleanup_json_ cJSON *state = NULL;
        if (read_full_file(sp, &data, NULL) >= 0)
                state = cJSON_Parse(data);
        sim_machines_cleanup(dir, state);
        int r = rm_tree(dir);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "destroy: \"%s\": %s", dir, strerror(-r));
                return r;
        }
        return 0;
}
