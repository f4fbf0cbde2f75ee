/* SPDX-License-Identifier: Apache-2.0 */
/* Node events on a controller unit: triggers set as SlurmUser, the spool and watcher installed,
 * the log reconciled from Slurm's node table, and the node-events action. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/nodeevents.h"
#include "interfaces/nodeactions.h"
#include "charm/slurmctld/expect.h"

#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "charm/slurmctld/events.h"
#include "charm/slurmctld/evshare.h"
#include "charm/slurmctld/ha.h"
#include "charm/common/watcher.h"
#include "proc/proc.h"
#include "slurm/client.h"
#include "slurm/nodetable.h"
#include "slurmconf/hostlist.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include "util/banned.h"

#define UNIT_TIMEOUT_USEC (30 * 1000 * 1000ULL)
#define TRIGGER_SET_TIMEOUT_MS (30 * 1000)
#define HINT_NODES_MAX 65536
/* action-set takes each KEY=VALUE as one argument: Linux refuses one longer than 128 KiB */
#define NODEEVENTS_RESULT_MAX (96 * 1024)

char *nodeevents_dir(const struct charm_paths *paths) {
        return charm_path(paths, CHARM_PATH_STATE_DIR "/" NODEEVENTS_STATE_SUBDIR);
}

char *nodeevents_spool(const struct charm_paths *paths) {
        return charm_path(paths, EVSPOOL_HOME "/" EVSPOOL_SUBDIR);
}

static int64_t wall_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- triggers ------------------------------------------------------------------------------------- */

void nodeevents_trigger_specs(const char *program, struct slurm_trigger_spec ret[NODEEVENTS_N_TRIGGERS],
        char progs[NODEEVENTS_N_TRIGGERS][256]) {
        static const struct {
                bool controller;
                uint32_t event;
                const char *kind; /* ev_hint_name() */
        } t[NODEEVENTS_N_TRIGGERS] = {
                { false, SLURM_NODE_EVENT_DOWN, "down" },
                { false, SLURM_NODE_EVENT_DRAINED, "drained" },
                { false, SLURM_NODE_EVENT_UP, "up" },
                { false, SLURM_NODE_EVENT_RECONFIG, "reconfig" },
                { true, SLURM_CTLD_EVENT_PRI_RES_CTRL, "slurmctld" },
                { true, SLURM_CTLD_EVENT_BU_AS_CTRL, "slurmctld" },
        };
        for (size_t i = 0; i < NODEEVENTS_N_TRIGGERS; i++) {
                snprintf(progs[i], sizeof progs[i], "%s %s", program, t[i].kind);
                ret[i] = (struct slurm_trigger_spec){
                        .controller = t[i].controller, .event = t[i].event, .program = progs[i]
                };
        }
}

size_t nodeevents_triggers_missing(const struct slurm_trigger_list *have,
        const struct slurm_trigger_spec *want, size_t n, uint32_t uid, bool ret_missing[]) {
        size_t missing = 0;
        for (size_t i = 0; i < n; i++) {
                bool found = false;
                for (size_t j = 0; !found && have && j < have->n; j++)
                        found = slurm_trigger_is(&have->v[j], &want[i], uid);
                ret_missing[i] = !found;
                missing += !found;
        }
        return missing;
}

struct set_job {
        const struct slurm_trigger_spec *specs;
        const bool *missing;
        size_t n;
};

/* In the child that became SlurmUser. */
static int set_missing(void *userdata, struct strbuf *out) {
        const struct set_job *job = userdata;
        int set = 0;
        for (size_t i = 0; i < job->n; i++) {
                if (!job->missing[i])
                        continue;
                int r = slurm_trigger_set_perm(&job->specs[i], out);
                if (r < 0)
                        return r;
                set += r;
        }
        return set;
}

int nodeevents_triggers_ensure(const struct charm_paths *paths, struct strbuf *err) {
        struct slurm_trigger_spec specs[NODEEVENTS_N_TRIGGERS];
        char progs[NODEEVENTS_N_TRIGGERS][256];
        bool missing[NODEEVENTS_N_TRIGGERS];
        struct slurm_trigger_list have = { 0 };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        uid_t uid;
        gid_t gid;
        int r;

        r = charm_lookup_user(paths->slurm_user, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        /* the path slurmctld runs: the real one on every controller host, never a test root */
        nodeevents_trigger_specs(EVSPOOL_HOME "/" EVSPOOL_PROGRAM, specs, progs);
        r = slurm_trigger_list(&have, err);
        if (r < 0)
                return r;
        size_t n = nodeevents_triggers_missing(&have, specs, NODEEVENTS_N_TRIGGERS, (uint32_t) uid, missing);
        slurm_trigger_list_done(&have);
        if (n == 0)
                return 0;
        struct set_job job = { specs, missing, NODEEVENTS_N_TRIGGERS };
        r = proc_call_as(uid, gid, TRIGGER_SET_TIMEOUT_MS, set_missing, &job, &out);
        if (r < 0) {
                strbuf_addf(err, "triggers as uid %u: %s", (unsigned) uid, out.len ? out.buf : strerror(-r));
                return r;
        }
        return r;
}

/* --- install --------------------------------------------------------------------------------------- */

static int fail_path(struct strbuf *err, const char *path, int r) {
        strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* dir with exactly this owner and mode (created when missing). 1 when something changed. */
static int ensure_dir(const char *dir, uid_t uid, gid_t gid, mode_t mode, struct strbuf *err) {
        struct stat st;
        int changed = 0;
        if (lstat(dir, &st) < 0) {
                if (errno != ENOENT)
                        return fail_path(err, dir, -errno);
                int r = mkdir_p(dir, mode);
                if (r < 0)
                        return fail_path(err, dir, r);
                if (lstat(dir, &st) < 0)
                        return fail_path(err, dir, -errno);
                changed = 1;
        }
        if (!S_ISDIR(st.st_mode))
                return fail_path(err, dir, -ENOTDIR);
        if (st.st_uid != uid || st.st_gid != gid) {
                if (lchown(dir, uid, gid) < 0)
                        return fail_path(err, dir, -errno);
                changed = 1;
        }
        if ((st.st_mode & 07777) != mode) {
                if (chmod(dir, mode) < 0)
                        return fail_path(err, dir, -errno);
                changed = 1;
        }
        return changed;
}

int nodeevents_write_files(
        const struct charm_paths *paths, const char *juju_unit, const char *charm_dir, struct strbuf *err) {
        _cleanup_free_ char *home = charm_path(paths, EVSPOOL_HOME), *spool = nodeevents_spool(paths);
        _cleanup_free_ char *src = NULL, *prog = NULL, *data = NULL, *tmpl_path = NULL, *tmpl = NULL;
        _cleanup_free_ char *exe = NULL, *handler = NULL, *sysdir = NULL, *unit_path = NULL;
        _cleanup_strbuf_ struct strbuf unit = STRBUF_INIT;
        size_t len = 0;
        uid_t uid;
        gid_t gid;
        int r, mask = 0;

        if (isempty(charm_dir) || isempty(juju_unit)) {
                strbuf_addstr(err, "node events: no charm directory or unit name");
                return -EINVAL;
        }
        r = charm_lookup_user(paths->slurm_user, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        /* the program slurmctld runs as SlurmUser: ours (root's in a hook), executable by all,
         * in a directory of ours */
        r = ensure_dir(home, geteuid(), getegid(), 0755, err);
        if (r < 0)
                return r;
        src = xasprintf("%s/%s", charm_dir, NODEEVENTS_TRIGGER_EXE);
        r = read_full_file(src, &data, &len);
        if (r < 0)
                return fail_path(err, src, r);
        prog = xasprintf("%s/%s", home, EVSPOOL_PROGRAM);
        r = write_file_atomic_if_changed(prog, data, len, 0755, geteuid(), getegid());
        if (r < 0)
                return fail_path(err, prog, r);
        if (r > 0)
                mask |= 2;
        /* only SlurmUser (and root) may write the spool */
        r = ensure_dir(spool, uid, gid, 0700, err);
        if (r < 0)
                return r;

        tmpl_path = charm_template_path(paths, charm_dir, NODEEVENTS_TEMPLATE);
        r = read_full_file(tmpl_path, &tmpl, NULL);
        if (r < 0)
                return fail_path(err, tmpl_path, r);
        exe = xasprintf("%s/%s", charm_dir, NODEEVENTS_WATCHER_EXE);
        handler = xasprintf("%s/%s", charm_dir, NODEEVENTS_HANDLER_EXE);
        r = watcher_unit_render(tmpl, exe, handler, juju_unit, "slurmctld.service", &unit, err);
        if (r < 0)
                return r;
        sysdir = charm_path(paths, "/etc/systemd/system");
        unit_path = xasprintf("%s/%s", sysdir, NODEEVENTS_UNIT);
        r = mkdir_p(sysdir, 0755);
        if (r >= 0)
                r = write_file_atomic_if_changed(
                        unit_path, unit.buf, unit.len, 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                return fail_path(err, unit_path, r);
        if (r > 0)
                mask |= 1;
        return mask;
}

int nodeevents_install(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit,
        const char *charm_dir, bool restart, struct strbuf *err) {
        int mask = nodeevents_write_files(paths, juju_unit, charm_dir, err);
        if (mask < 0)
                return mask;
        if (mask & 1) {
                int r = unit_daemon_reload(bus, UNIT_TIMEOUT_USEC, err);
                if (r < 0)
                        return r;
        }
        return charm_unit_ensure(bus, NODEEVENTS_UNIT, restart || (mask & 1), UNIT_TIMEOUT_USEC, err);
}

/* --- reconcile ---------------------------------------------------------------------------------------- */

/* A host name as the trigger program writes it: 1 to 255 of [A-Za-z0-9.-]. */
static bool host_word(const char *s) {
        size_t n = s ? strlen(s) : 0;
        return n > 0 && n < 256 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-") == n;
}

size_t nodeevents_hints(const struct evspool_list *records, struct ev_hint **ret) {
        struct ev_hint *v = xcalloc(records && records->n ? records->n : 1, sizeof(*v));
        size_t n = 0;
        for (size_t i = 0; records && i < records->n; i++) {
                const struct evspool_entry *e = &records->v[i];
                enum ev_hint_kind k;
                if (!e->valid || ev_hint_parse(e->kind, &k) < 0)
                        continue;
                struct ev_hint *h = &v[n];
                *h = (struct ev_hint){ .kind = k, .time_ms = e->time_ms, .nodes = STRV_INIT };
                if (k <= EV_HINT_UP && hostlist_expand(e->arg, HINT_NODES_MAX, &h->nodes) < 0) {
                        /* not a hostlist: the record still woke us, it names no node */
                        strv_clear(&h->nodes);
                }
                if (k == EV_HINT_SLURMCTLD && host_word(e->arg))
                        h->host = xstrdup(e->arg);
                n++;
        }
        *ret = v;
        return n;
}

static void hints_free(struct ev_hint *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                ev_hint_done(&v[i]);
        free(v);
}

int nodeevents_reconcile(const struct charm_paths *paths, const struct evspool_list *records,
        const char *cause, struct nodeevents_result *ret, struct strbuf *err) {
        _cleanup_free_ char *dir = nodeevents_dir(paths);
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        _cleanup_(ev_state_done) struct ev_state prev = { 0 }, next = { 0 };
        _cleanup_(ev_records_done) struct ev_records recs = { 0 };
        _cleanup_(ev_table_done) struct ev_table table = { 0 };
        struct slurm_node_table st = { 0 };
        struct nodeevents_result res = { 0 };
        struct ev_hint *hints = NULL;
        time_t boot = 0, conf_update = 0, since_table = 0, since_update = 0;
        bool unchanged;
        int r;

        /* Slurm is asked BEFORE the lock: the log is one for every controller unit
         * (charm/slurmctld/evshare.h), and a query that waits (a client whose file lists a standby first
         * waits 1.5 x SlurmctldTimeout, a lost controller MessageTimeout) held every unit's hooks
         * for up to the lock's 60 s (attack 3 recheck: a hook killed at its deadline). The
         * snapshot read first only gives the "no change since" times. */
        {
                _cleanup_(ev_state_done) struct ev_state peek = { 0 };
                if (ev_state_load(dir, NULL, &peek, NULL) >= 0 && peek.exists) {
                        since_table = (time_t) peek.table_time;
                        since_update = (time_t) peek.ctl_update;
                }
        }
        r = slurm_node_table_load(since_table, &st, err);
        if (r < 0)
                return r;
        unchanged = r == 1;
        r = slurm_ctl_boot_time(since_update, &boot, &conf_update, NULL);
        if (r != 0)
                boot = conf_update = 0; /* unchanged, or not readable: kept as it was */
        r = ev_lock(dir, 0, &lock, err);
        if (r >= 0) {
                /* from here on the directory locked, not what its name leads to (review R6) */
                free(dir);
                dir = ev_lock_path(lock.dir);
                r = ev_state_load(dir, NULL, &prev, err);
        }
        if (r < 0) {
                slurm_node_table_done(&st);
                return r;
        }
        /* another writer committed a newer table meanwhile: never an older one over it (this
         * table then counts as unchanged, the snapshot is newer) */
        if (!unchanged && prev.exists && (int64_t) st.update_time < prev.table_time)
                unchanged = true;
        if (boot && prev.exists && (int64_t) conf_update < prev.ctl_update)
                boot = conf_update = 0;
        for (size_t i = 0; i < st.n; i++)
                ev_table_add(&table, st.v[i].name, st.v[i].state, st.v[i].reason, st.v[i].reason_time,
                        st.v[i].boot_time);
        size_t n_hints = nodeevents_hints(records, &hints);
        /* who is in charge, besides what a trigger says: the charge mark the sentinel of the
         * controller in charge renews every few seconds (ha.h), in the state save location the
         * log lives in (evshare.h); its time orders it against the triggers (events.h) */
        _cleanup_free_ char *mark_dir = xasprintf("%s/..", dir), *mark_host = NULL;
        long mark_index;
        time_t mark_time = 0;
        if (ha_charge_mark_read(mark_dir, &mark_index, &mark_time, &mark_host) < 0) {
                free(mark_host);
                mark_host = NULL;
        }
        struct ev_observation obs = {
                .ctl_host = mark_host,
                .ctl_host_ms = (int64_t) mark_time * 1000,
                .table = unchanged ? NULL : &table,
                .table_time = st.update_time,
                .ctl_boot = boot,
                .ctl_update = conf_update,
                .hints = hints,
                .n_hints = n_hints,
                .cause = cause,
                .now_ms = wall_ms(),
        };
        r = ev_step(&prev, &obs, &next, &recs);
        hints_free(hints, n_hints);
        slurm_node_table_done(&st);
        if (r > 0) {
                r = ev_commit(dir, NULL, &next, err);
                if (r < 0)
                        return r;
        }
        res.records = recs.n;
        res.table_read = true;
        const struct ev_table *now = unchanged ? &prev.nodes : &table;
        res.nodes = now->n;
        for (size_t i = 0; i < now->n; i++) {
                unsigned c = unchanged ? now->v[i].cls : ev_state_class(now->v[i].state);
                res.down += (c & EV_CLS_DOWN) != 0;
                if (c & EV_CLS_DRAIN) {
                        if (c & EV_CLS_BUSY)
                                res.draining++;
                        else
                                res.drained++;
                }
        }
        if (ret)
                *ret = res;
        return (int) recs.n;
}

/* Whether a hook placed this unit's log (an action never starts one: see nodeevents.h). */
static bool log_placed(const char *dir) {
        struct stat st;
        return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

void nodeevents_catch_up(const struct charm_paths *paths, const char *cause) {
        _cleanup_free_ char *dir = nodeevents_dir(paths);
        if (log_placed(dir))
                (void) nodeevents_reconcile(paths, NULL, cause, NULL, NULL);
}

/* The log a hook placed, locked and its snapshot loaded (*ret_dir: the locked directory's path,
 * caller frees). -ENOENT (nothing written) when no hook placed it on this unit yet. */
static int log_open(const struct charm_paths *paths, struct ev_held *lock, struct ev_state *s, char **ret_dir,
        struct strbuf *err) {
        _cleanup_free_ char *dir = nodeevents_dir(paths);
        if (!log_placed(dir)) {
                strbuf_addf(err, "%s: no event log on this unit yet", dir);
                return -ENOENT;
        }
        int r = ev_lock(dir, 0, lock, err);
        if (r < 0)
                return r;
        *ret_dir = ev_lock_path(lock->dir);
        return ev_state_load(*ret_dir, NULL, s, err);
}

int nodeevents_note(const struct charm_paths *paths, const struct ev_note *note, struct strbuf *err) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        _cleanup_(ev_state_done) struct ev_state s = { 0 };
        int r = log_open(paths, &lock, &s, &dir, err);
        if (r < 0)
                return r;
        size_t n = ev_note_records(&s, note, wall_ms(), NULL);
        r = ev_commit(dir, NULL, &s, err);
        return r < 0 ? r : (int) n;
}

int nodeevents_note_unit_actions(const struct charm_paths *paths, const char *unit, const struct node_actions *a,
        uint64_t floor, struct strbuf *err) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        _cleanup_(ev_state_done) struct ev_state s = { 0 };
        if (a->n == 0)
                return 0;
        int r = log_open(paths, &lock, &s, &dir, err);
        if (r < 0)
                return r;
        uint64_t last = ev_unit_noted(&s, unit, a->log);
        if (floor > last)
                last = floor;
        if (a->v[a->n - 1].seq < last) {
                /* the list went back (its state file restored from a backup, or rewritten): its
                 * seqs up to last are taken for recorded; said, never silent */
                strbuf_addf(err, "%s's action list %s goes back to seq %llu after %llu was recorded: "
                                 "nothing recorded until it passes %llu (a unit that lost its list starts a new one)",
                        unit, a->log, (unsigned long long) a->v[a->n - 1].seq, (unsigned long long) last,
                        (unsigned long long) last);
                return -ESTALE;
        }
        size_t n = 0;
        /* each ev_note_records() makes s.pending its own lines: the run's are gathered here */
        _cleanup_strv_ struct strv lines = STRV_INIT;
        for (size_t i = 0; i < a->n; i++) {
                const struct node_action *x = &a->v[i];
                if (x->seq <= last)
                        continue;
                _cleanup_free_ char *by = xasprintf("%s action %s", unit, x->id);
                _cleanup_free_ char *detail = NULL;
                /* the loss first: the record's text is cut at EV_REASON_MAX bytes */
                if (x->seq != last + 1)
                        detail = xasprintf("(%llu earlier action%s of %s not recorded: its list keeps the last %d)%s%s",
                                (unsigned long long) (x->seq - last - 1), x->seq - last - 1 == 1 ? "" : "s", unit,
                                NODE_ACTIONS_MAX, x->detail ? " " : "", strempty(x->detail));
                char *nodes[] = { x->node };
                const struct ev_note note = {
                        .action = x->action,
                        .by = by,
                        .nodes = nodes,
                        .n_nodes = 1,
                        .reason = x->reason,
                        .detail = detail ? detail : x->detail,
                };
                n += ev_note_records(&s, &note, x->time_ms, NULL);
                strv_pushv(&lines, s.pending.v);
                last = x->seq;
        }
        if (n == 0)
                return 0;
        strv_clear(&s.pending);
        s.pending = lines;
        strv_init(&lines);
        ev_unit_noted_set(&s, unit, a->log, last);
        r = ev_commit(dir, NULL, &s, err);
        return r < 0 ? r : (int) n;
}

/* The watcher runs for days: libslurm's client keeps the controller list it read at its first
 * call, so after the order changed it asked the former primary, now a standby, first (22.05
 * retries that one for 1.5 x SlurmctldTimeout: "Invalid RPC REQUEST_NODE_INFO while in standby
 * mode" every 5 s in its log, and each round that long). Read again when slurm.conf changed. */
static void client_follow_conf(const struct charm_paths *paths) {
        static struct stat seen;
        static bool have;
        struct stat st;
        _cleanup_free_ char *path = charm_path(paths, CHARM_PATH_SLURM_CONF);
        if (stat(path, &st) < 0)
                return;
        if (have && st.st_ino == seen.st_ino && st.st_mtim.tv_sec == seen.st_mtim.tv_sec &&
                st.st_mtim.tv_nsec == seen.st_mtim.tv_nsec)
                return;
        if (have)
                (void) slurm_client_reload(NULL);
        seen = st;
        have = true;
}

int nodeevents_watch_reconcile(
        void *userdata, const struct evspool_list *records, const char *cause, struct strbuf *err) {
        const struct charm_paths *paths = userdata;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        client_follow_conf(paths);
        int r = nodeevents_reconcile(paths, records, cause, NULL, err);
        if (r < 0)
                return r;
        /* a slurmctld that lost its state lost its triggers too: put them back (1 RPC when all
         * are there). A failure does not undo the reconcile; the next hook reports it. */
        (void) nodeevents_triggers_ensure(paths, &e);
        return r;
}

/* --- expectations (charm/slurmctld/expect.h) ------------------------------------------------------------- */

static int cmp_node_name(const void *key, const void *elem) {
        return strcmp((const char *) key, ((const struct ev_node *) elem)->name);
}

static bool in_strv(const char *node, void *userdata) {
        return strv_contains(userdata, node);
}

/* In the snapshot's table (sorted by name)? */
static bool in_snapshot(const char *node, void *userdata) {
        const struct ev_table *t = userdata;
        return t->n && bsearch(node, t->v, t->n, sizeof(t->v[0]), cmp_node_name);
}

size_t nodeevents_watch_expecting(void *userdata) {
        const struct charm_paths *paths = userdata;
        _cleanup_free_ char *dir = nodeevents_dir(paths);
        _cleanup_(ev_state_done) struct ev_state st = { 0 };
        if (ev_state_load(dir, NULL, &st, NULL) < 0 || !st.exists)
                return 0;
        return expect_open(dir, in_snapshot, &st.nodes, wall_ms());
}

void nodeevents_leaving(const struct charm_paths *paths, struct strv *ret) {
        _cleanup_free_ char *dir = nodeevents_dir(paths);
        expect_nodes(dir, EXPECT_LEAVING, wall_ms(), ret);
}

int nodeevents_expect(const struct charm_paths *paths, enum expect_kind kind, const char *node,
        const struct strv *table, struct strbuf *err) {
        _cleanup_free_ char *dir = nodeevents_dir(paths), *spool = nodeevents_spool(paths);
        bool there = strv_contains(table, node);
        /* every controller unit's hooks write this file of the log's directory (shared with HA)
         * at once under Juju: read, change and replace it under the log's lock, or one hook's
         * line replaces another's (attack on issue 28, F2) */
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        int r = ev_lock(dir, 0, &lock, err);
        if (r < 0)
                return r;
        free(dir);
        dir = ev_lock_path(lock.dir);
        if (there != (kind == EXPECT_LEAVING)) {
                /* happened already: the node's other line goes. A unit that joined again
                 * (remove-relation, integrate) is not leaving any more (the status names leaving
                 * nodes from these lines); one that leaves before its node ever registered will
                 * not register (its "joining" line kept the watcher polling every second for
                 * 10 minutes: attack on issue 28, F8) */
                return expect_drop(dir, node, in_strv, (void *) table, wall_ms(), err) < 0 ? -EIO : 0;
        }
        int64_t now = wall_ms();
        r = expect_note(dir, kind, node,
                now + (kind == EXPECT_LEAVING ? EXPECT_LEAVING_MS : EXPECT_JOINING_MS), in_strv,
                (void *) table, now, err);
        if (r < 0)
                return r;
        evspool_ring(spool);
        return 1;
}

void nodeevents_after_reconcile(struct juju_ctx *ctx, const struct charm_paths *paths, sd_bus *bus,
        const char *event, const char *state_save_dir, struct charm_outcome *out) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const char *charm_dir = paths->charm_dir ? paths->charm_dir : env->charm_dir;
        enum evshare_how how = EVSHARE_SAME;
        int r;

        if (!state_save_dir)
                return; /* not in the controller order yet: its state save location is unproven */
        {
                _cleanup_free_ char *local = nodeevents_dir(paths), *shared = evshare_dir(state_save_dir);
                r = evshare_place(local, shared, &how, &err);
                if (r >= 0 && how == EVSHARE_MOVED)
                        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                                "node events: this unit's log is now the controllers' one log, in %s", shared);
                else if (r >= 0 && how == EVSHARE_ASIDE)
                        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                                "node events: joined the controllers' log in %s; this unit's own earlier log "
                                "is kept in %s%s",
                                shared, local, EVSHARE_ASIDE_SUFFIX);
        }
        if (r >= 0)
                r = nodeevents_install(paths, bus, env->unit, charm_dir, streq_ptr(event, "upgrade-charm"), &err);
        if (r >= 0)
                r = nodeevents_triggers_ensure(paths, &err);
        if (r >= 0)
                r = nodeevents_reconcile(paths, NULL, isempty(event) ? "hook" : event, NULL, &err);
        if (r >= 0)
                return;
        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node events: %s", err.len ? err.buf : strerror(-r));
        strbuf_addf(&out->message, "; node events: %s", err.len ? err.buf : strerror(-r));
}

/* --- the action ------------------------------------------------------------------------------------------
 */

/* An integer parameter: absent (0), or its value in [lo, hi] (1); -EINVAL with a message. */
static int int_param(
        const cJSON *params, const char *key, double lo, double hi, uint64_t *ret, struct strbuf *err) {
        const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
        if (!v)
                return 0;
        /* in range first, so that the cast below is defined; then whole */
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi ||
                (double) (uint64_t) v->valuedouble != v->valuedouble) {
                _cleanup_free_ char *shown = cJSON_PrintUnformatted(v);
                if (hi >= 9007199254740992.0)
                        strbuf_addf(err, "node-events: %s must be an integer of %.0f or more (got %.40s)",
                                key, lo, strempty(shown));
                else
                        strbuf_addf(err, "node-events: %s must be an integer from %.0f to %.0f (got %.40s)",
                                key, lo, hi, strempty(shown));
                return -EINVAL;
        }
        *ret = (uint64_t) v->valuedouble;
        return 1;
}

int nodeevents_params_parse(const cJSON *params, struct nodeevents_params *ret, struct strbuf *err) {
        struct nodeevents_params p = { .limit = NODEEVENTS_LIMIT_DEFAULT };
        const cJSON *kv;
        uint64_t v;
        int r;

        if (params && !cJSON_IsObject(params)) {
                strbuf_addstr(err, "node-events: the parameters are not an object");
                return -EINVAL;
        }
        cJSON_ArrayForEach(kv, params) {
                if (!streq(kv->string, "since") && !streq(kv->string, "limit")) {
                        strbuf_addf(
                                err, "node-events: unknown parameter \"%.40s\" (since, limit)", kv->string);
                        return -EINVAL;
                }
        }
        r = int_param(params, "since", 0, 9007199254740992.0, &v, err);
        if (r < 0)
                return r;
        if (r > 0) {
                p.has_since = true;
                p.since = v;
        }
        r = int_param(params, "limit", 1, NODEEVENTS_LIMIT_MAX, &v, err);
        if (r < 0)
                return r;
        if (r > 0)
                p.limit = (size_t) v;
        *ret = p;
        return 0;
}

static void kv_u64(struct strv *kv, const char *key, uint64_t v) {
        strv_push(kv, key);
        strv_pushf(kv, "%" PRIu64, v);
}

int nodeevents_action(struct juju_ctx *ctx, const struct charm_paths *paths, struct strbuf *err) {
        _cleanup_free_ char *dir = nodeevents_dir(paths);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        _cleanup_(ev_page_done) struct ev_page page = { 0 };
        struct nodeevents_params p;
        struct nodeevents_result res = { 0 };
        const cJSON *params = NULL;
        int r;

        r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = nodeevents_params_parse(params, &p, err);
        if (r < 0)
                return r;
        /* what happened up to now, whichever unit this is */
        r = nodeevents_reconcile(paths, NULL, "node-events", &res, &e);
        if (r < 0) {
                strv_push(&kv, "note");
                strv_pushf(&kv, "the log as of the last reconcile (this one failed: %s)", e.buf);
        }
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        r = ev_lock(dir, 0, &lock, err);
        if (r >= 0) {
                _cleanup_free_ char *held = ev_lock_path(lock.dir);
                r = ev_log_read(held, p.has_since, p.since, p.limit, NODEEVENTS_RESULT_MAX, &page, err);
        }
        if (r < 0)
                return r;
        _cleanup_free_ char *events = strv_join(&page.lines, "\n");
        strv_push(&kv, "events");
        strv_push(&kv, events);
        kv_u64(&kv, "count", page.lines.n);
        kv_u64(&kv, "first-seq", page.first);
        kv_u64(&kv, "last-seq", page.last);
        kv_u64(&kv, "next-since", page.last ? page.last : p.has_since ? p.since : page.latest);
        strv_push(&kv, "more");
        strv_push(&kv, page.more ? "true" : "false");
        kv_u64(&kv, "oldest-seq", page.oldest);
        kv_u64(&kv, "latest-seq", page.latest);
        if (page.rotated_out)
                kv_u64(&kv, "rotated-out", page.rotated_out);
        if (res.table_read) {
                strv_push(&kv, "nodes");
                strv_pushf(&kv, "%zu node%s: %zu down, %zu drained, %zu draining", res.nodes,
                        res.nodes == 1 ? "" : "s", res.down, res.drained, res.draining);
        }
        return juju_action_set_many(ctx, &kv, err);
}
