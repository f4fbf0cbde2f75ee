/* SPDX-License-Identifier: Apache-2.0 */
/* Service watching: the watcher's sd-bus loop (coalesced juju-exec runs, bounded reconnects),
 * the handler's status decision, and installing the watcher as a systemd unit. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/watcher.h"
#include "charm/slurmctld/ctlapply.h"
#include "charm/slurmctld/ctlhang.h"
#include "charm/slurmd/nodefollow.h"
#include "charm/common/confpush.h"
#include "charm/common/stopfollow.h"
#include "charm/slurmdbd/wedgefollow.h"
#include "charm/slurmctld/acctfollow.h"
#include "charm/slurmctld/pushfollow.h"
#include "charm/common/nodepaths.h"
#include "charm/common/pause.h"
#include "proc/proc.h"
#include "slurm/client.h"
#include "slurm/nodes.h"
#include "util/fileio.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <time.h>

#include "util/banned.h"

#define UNIT_TIMEOUT_USEC (30 * 1000 * 1000ULL)
#define RECONNECT_FIRST_USEC (100 * 1000ULL)
#define RECONNECT_MAX_USEC (5 * 1000 * 1000ULL)
#define RETRY_FIRST_USEC (1000 * 1000ULL)
#define DEFAULT_ANSWER_TIMEOUT_MS (20 * 1000)

static uint64_t min_u64(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void sleep_usec(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000u),
                .tv_nsec = (long) (usec % 1000000u) * 1000 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void copy_state(char dst[UNIT_STATE_STRMAX], const char *src) {
        snprintf(dst, UNIT_STATE_STRMAX, "%s", strempty(src));
}

/* --- coalescing ------------------------------------------------------------------------------ */

void watcher_coalesce_init(struct watcher_coalesce *c, uint64_t window_usec, const char *initial,
        bool pending, uint64_t now_usec_) {
        *c = (struct watcher_coalesce){ .window_usec = window_usec, .pending = pending };
        copy_state(c->latest, initial);
        if (pending)
                c->due_usec = now_usec_;
}

bool watcher_coalesce_note(struct watcher_coalesce *c, const char *active_state, uint64_t now_usec_) {
        if (streq(c->latest, strempty(active_state)))
                return false;
        copy_state(c->latest, active_state);
        if (!c->pending) {
                c->pending = true;
                c->due_usec = now_usec_ + c->window_usec;
        }
        return true;
}

void watcher_coalesce_retry(struct watcher_coalesce *c, uint64_t delay_usec, uint64_t now_usec_) {
        uint64_t due = now_usec_ + delay_usec;
        if (!c->pending || due < c->due_usec)
                c->due_usec = due;
        c->pending = true;
}

uint64_t watcher_coalesce_deadline(const struct watcher_coalesce *c) {
        return c->pending ? (c->due_usec ? c->due_usec : 1) : 0;
}

bool watcher_coalesce_take(
        struct watcher_coalesce *c, uint64_t now_usec_, char ret_state[UNIT_STATE_STRMAX]) {
        if (!c->pending || now_usec_ < c->due_usec)
                return false;
        c->pending = false;
        copy_state(ret_state, c->latest);
        return true;
}

/* --- the watch loop ---------------------------------------------------------------------------- */

struct loop {
        const struct watcher_opts *o;
        struct watcher_coalesce co;
        bool started; /* the first connection was made */
        unsigned runs;
        unsigned failures; /* consecutive failed handler runs */
        char *follow_node;    /* slurmd's watcher (nodefollow_wanted): its node; NULL: none */
        struct nodefollow nf; /* the machine's jobs and fetched configuration */
        uint64_t next_look;
        uint64_t next_state; /* the next read of the node's state from slurmctld */
        bool look_failed; /* the last look failed (logged once) */
        bool state_failed; /* the last state read failed (logged once) */
        char *unanswered_path;   /* the hook's mark: no controller answered it (nodefollow.h) */
        char *turn_path;         /* the push's turn: a run at the time it names (confpush.h) */
        int64_t turn_seen;       /* the mtime (ns) of the turn mark a run was asked for */
        int64_t unanswered_seen; /* the mtime (ns) of the mark a run was asked for */
        bool follow_push;     /* slurmctld's watcher (pushfollow_wanted) */
        struct pushfollow pf; /* the pending push to the compute nodes */
        bool push_failed;     /* the last look failed (logged once) */
        bool follow_acct;     /* slurmctld's watcher (acctfollow_wanted) */
        struct acctfollow af; /* accounting that waits for slurmdbd */
        bool follow_stop;     /* the daemon's stop followed (stopfollow_wanted) */
        bool follow_wedge;     /* and its answers (wedgefollow_wanted) */
        struct wedgefollow wf; /* slurmdbd that runs and does not answer */
        struct stopfollow sf; /* its main process, running or stopped */
        bool stop_failed;     /* the last look failed (logged once) */
};

_printf_(2, 3) static void logf_(struct loop *l, const char *fmt, ...) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        va_list ap;
        if (!l->o->log)
                return;
        va_start(ap, fmt);
        strbuf_vaddf(&s, fmt, ap);
        va_end(ap);
        l->o->log(l->o->userdata, s.buf);
}

static int on_change(const char *unit, const char *active, const char *sub, void *userdata) {
        struct loop *l = userdata;
        if (watcher_coalesce_note(&l->co, active, now_usec())) {
                l->failures = 0;
                logf_(l, "%s: %s (%s)", unit, active, sub);
        }
        return 0;
}

void watcher_handler_argv(const struct watcher_opts *o, const char *active_state, struct strv *ret) {
        strv_pushl(ret, o->juju_exec ? o->juju_exec : "juju-exec", o->juju_unit, o->handler, o->service,
                isempty(active_state) ? "unknown" : active_state, NULL);
}

/* The last line of a child's output, for the log. */
static const char *last_line(struct strbuf *s) {
        strbuf_rtrim(s);
        const char *nl = strrchr(s->buf, '\n');
        return nl ? nl + 1 : s->buf;
}

/* One handler run: 0 when it exited 0, else its exit status or negative errno. */
static int run_handler(struct loop *l, const char *state) {
        const struct watcher_opts *o = l->o;
        _cleanup_proc_ struct proc p = PROC_INIT;
        uint64_t t0 = now_usec();
        int r;

        watcher_handler_argv(o, state, &p.argv);
        p.capture_out = p.capture_err = true;
        p.timeout_ms =
                o->handler_timeout_ms > 0 ? o->handler_timeout_ms : WATCHER_HANDLER_TIMEOUT_MS_DEFAULT;
        r = proc_run(&p);
        uint64_t ms = (now_usec() - t0) / 1000;
        if (r == 0)
                logf_(l, "handler for %s: ok in %llu ms", state, (unsigned long long) ms);
        else if (r < 0)
                logf_(l, "handler for %s: could not run \"%s\": %s (%llu ms)", state, p.argv.v[0],
                        r == -ETIME ? "timed out" : strerror(-r), (unsigned long long) ms);
        else
                logf_(l, "handler for %s: exit status %d in %llu ms: %s", state, r, (unsigned long long) ms,
                        p.err.len ? last_line(&p.err) : last_line(&p.out));
        return r;
}

/* Opens the bus, watches the service, then reads its state (after the match is in place, so
 * no change is missed) and records it. */
static int connect_watch(struct loop *l, sd_bus **ret_bus, sd_bus_slot **ret_slot, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        struct unit_state st;
        int r;

        r = unit_bus_open(&bus, err);
        if (r >= 0)
                r = unit_watch(bus, l->o->service, on_change, l, &slot, err);
        if (r >= 0)
                r = unit_get_state(bus, l->o->service, &st, err);
        if (r < 0)
                return r;
        if (!l->started) {
                /* a daemon that is not active when the watcher starts is reported at once */
                watcher_coalesce_init(&l->co, l->co.window_usec, st.active_state,
                        !streq(st.active_state, "active"), now_usec());
                logf_(l, "watching %s: %s (%s)", l->o->service, st.active_state, st.sub_state);
        } else if (watcher_coalesce_note(&l->co, st.active_state, now_usec()))
                logf_(l, "%s: %s (%s) after reconnecting", l->o->service, st.active_state, st.sub_state);
        *ret_bus = TAKE_PTR(bus);
        *ret_slot = TAKE_PTR(slot);
        return 0;
}

/* Reconnects with backoff for at most WATCHER_RECONNECT_USEC. */
static int reconnect(struct loop *l, sd_bus **ret_bus, sd_bus_slot **ret_slot, struct strbuf *err) {
        uint64_t start = now_usec(), delay = RECONNECT_FIRST_USEC;
        for (unsigned attempt = 1;; attempt++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                int r = connect_watch(l, ret_bus, ret_slot, &e);
                if (r >= 0) {
                        if (attempt > 1)
                                logf_(l, "bus: connected after %u attempts", attempt);
                        return 0;
                }
                uint64_t spent = now_usec() - start;
                if (spent >= WATCHER_RECONNECT_USEC) {
                        strbuf_addf(err, "%s: giving up after %u attempts in %llu s: %s", l->o->service,
                                attempt, (unsigned long long) (spent / 1000000u), e.buf);
                        return r;
                }
                logf_(l, "bus: %s (attempt %u, next in %llu ms)", e.buf, attempt,
                        (unsigned long long) (delay / 1000));
                sleep_usec(min_u64(delay, WATCHER_RECONNECT_USEC - spent));
                delay = min_u64(delay * 2, RECONNECT_MAX_USEC);
        }
}

static void loop_done(struct loop *l) {
        free(l->follow_node);
        free(l->unanswered_path);
        free(l->turn_path);
        nodefollow_done(&l->nf);
}

/* l->follow_node: a look at the machine when one is due; a run that is due asks the coalescer
 * for a handler run now. */
static void follow_tick(struct loop *l, uint64_t now) {
        if (!l->follow_node)
                return;
        if (now >= l->next_look) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                size_t before = l->nf.n;
                int r = nodefollow_look(
                        &l->nf, NODEFOLLOW_SPOOL_DIR, l->follow_node, NODE_PATHS_CONF, NULL, now, &e);
                if (r < 0 && !l->look_failed)
                        logf_(l, "following %s: %s (logged once)", l->follow_node, e.buf);
                if (r > 0 && (r & 4))
                        logf_(l, "first look at %s: %zu jobs; one run to catch up", l->follow_node, l->nf.n);
                if (r > 0 && (r & 1))
                        logf_(l, "jobs of %s: %zu, were %zu", l->follow_node, l->nf.n, before);
                if (r > 0 && (r & 2))
                        logf_(l, "the configuration slurmd fetched has new content");
                if (r > 0 && (r & 8))
                        logf_(l, "the programs that configuration names have a new verdict here");
                l->look_failed = r < 0;
                l->next_look = now + NODEFOLLOW_POLL_USEC;
        }
        /* the last hook found no controller answering: read sooner, and the first answer after
         * each new mark asks for one run (the mark's mtime tells a new one) */
        struct stat mark;
        bool unanswered = l->unanswered_path && stat(l->unanswered_path, &mark) == 0;
        int64_t mark_ns = unanswered ? (int64_t) mark.st_mtim.tv_sec * 1000000000 + mark.st_mtim.tv_nsec : 0;
        if (unanswered && mark_ns != l->unanswered_seen && l->next_state > now + NODEFOLLOW_UNANSWERED_USEC)
                l->next_state = now + NODEFOLLOW_UNANSWERED_USEC;
        if (now >= l->next_state) {
                /* what only slurmctld knows: an admin's drain, a job with no slurmstepd here */
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                _cleanup_free_ char *word = NULL;
                char *was = l->nf.state_word ? xstrdup(l->nf.state_word) : NULL;
                int r = nodefollow_state_read(l->follow_node, NODEFOLLOW_STATE_TIMEOUT_MS, &word, &e);
                if (r < 0 && !l->state_failed)
                        logf_(l, "reading %s: %s (logged once)", l->follow_node, e.buf);
                l->state_failed = r < 0;
                bool changed = r >= 0 && nodefollow_note_state(&l->nf, word, now);
                if (changed)
                        logf_(l, "%s reads \"%s\" at slurmctld, was \"%s\"", l->follow_node, word, strempty(was));
                if (r >= 0 && unanswered && mark_ns != l->unanswered_seen) {
                        l->unanswered_seen = mark_ns;
                        if (!changed) {
                                logf_(l, "slurmctld answers again after the last hook found none: one run");
                                l->failures = 0;
                                watcher_coalesce_retry(&l->co, 0, now);
                        }
                }
                free(was);
                l->next_state = now_usec() +
                        (unanswered && mark_ns != l->unanswered_seen ? NODEFOLLOW_UNANSWERED_USEC : NODEFOLLOW_STATE_USEC);
        }
        /* an idle node waiting for its wave of the slurm.conf push: one run at its time, once
         * per mark (the loop looks every NODEFOLLOW_POLL_USEC at most) */
        struct stat turn;
        if (l->turn_path && stat(l->turn_path, &turn) == 0) {
                int64_t turn_ns = (int64_t) turn.st_mtim.tv_sec * 1000000000 + turn.st_mtim.tv_nsec;
                _cleanup_free_ char *text = NULL;
                if (turn_ns != l->turn_seen && read_full_file(l->turn_path, &text, NULL) >= 0) {
                        long long at = strtoll(text, NULL, 10), wall = (long long) time(NULL);
                        /* garbage reads 0; one too far ahead (a clock set back) is due now */
                        if (wall >= at || at - wall > CONFPUSH_TURN_MAX_S) {
                                l->turn_seen = turn_ns;
                                logf_(l, "the slurm.conf push's turn of %s: one run", l->follow_node);
                                l->failures = 0;
                                watcher_coalesce_retry(&l->co, 0, now);
                        }
                }
        }
        if (nodefollow_take(&l->nf, now)) {
                l->failures = 0; /* a new reason to run: the retries start again */
                watcher_coalesce_retry(&l->co, 0, now);
        }
}

/* l->follow_push: a look at the pending push when one is due; no job holding a node asks the
 * coalescer for a handler run now (the reconcile pushes). */
static void push_tick(struct loop *l, uint64_t now) {
        if (!l->follow_push)
                return;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = pushfollow_look(&l->pf, NULL, now, &e);
        if (r < 0 && !l->push_failed)
                logf_(l, "pending push: %s (logged once)", e.buf);
        l->push_failed = r < 0;
        if (r > 0) {
                logf_(l, "a slurm.conf push is pending and no job holds a node: one run to push it");
                l->failures = 0;
                watcher_coalesce_retry(&l->co, 0, now);
        }
}

/* l->follow_acct: a look at accounting that waits when one is due; slurmdbd answering (or, on a
 * standby, the saved state it needs there) asks the coalescer for a handler run now (the
 * reconcile takes its hosts). */
static void acct_tick(struct loop *l, uint64_t now) {
        if (!l->follow_acct || acctfollow_look(&l->af, NULL, now, (int64_t) time(NULL)) <= 0)
                return;
        logf_(l, "accounting waits and can be taken now (slurmdbd answers, or the state a standby needs is saved): one run to take it");
        l->failures = 0;
        watcher_coalesce_retry(&l->co, 0, now);
}

/* l->follow_stop: a look at the daemon's main process when one is due; a stop or a
 * continuation asks the coalescer for a handler run now (the reconcile probes and says so). */
static void stop_tick(struct loop *l, sd_bus *bus, uint64_t now) {
        if (!l->follow_stop)
                return;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        uint32_t pid = 0;
        int r = stopfollow_look(&l->sf, bus, l->o->service, now, &pid, &e);
        if (r < 0 && !l->stop_failed)
                logf_(l, "following %s's process: %s (logged once)", l->o->service, e.buf);
        l->stop_failed = r < 0;
        if (r > 0) {
                logf_(l, "%s: process %u %s: one run", l->o->service, pid,
                        l->sf.stopped ? "is stopped (SIGSTOP or a debugger; systemd sees it running)" : "runs again");
                l->failures = 0;
                watcher_coalesce_retry(&l->co, 0, now);
        }
}

/* l->follow_wedge: a handshake with the serving daemon when one is due; silence seen twice, or
 * an answer after it, asks the coalescer for a handler run now (the reconcile probes). */
static void wedge_tick(struct loop *l, uint64_t now) {
        if (!l->follow_wedge || wedgefollow_look(&l->wf, NULL, now) <= 0)
                return;
        logf_(l, "%s %s: one run", l->o->service,
                l->wf.silent ? "runs but does not answer (no handshake within 5 s, twice), its status says it does"
                             : "answers, its status says it does not");
        l->failures = 0;
        watcher_coalesce_retry(&l->co, 0, now);
}

/* The earliest of the coalescer's run and the machine's next look or run (0: none). */
static uint64_t next_wake(const struct loop *l) {
        uint64_t due = watcher_coalesce_deadline(&l->co);
        if (l->follow_node) {
                uint64_t j = nodefollow_deadline(&l->nf);
                uint64_t w = min_u64(l->next_look, l->next_state);
                w = j && j < w ? j : w;
                due = due ? min_u64(due, w) : w;
        }
        if (l->follow_push)
                due = due ? min_u64(due, l->pf.rate.next_look) : l->pf.rate.next_look;
        if (l->follow_stop)
                due = due ? min_u64(due, l->sf.next_look) : l->sf.next_look;
        if (l->follow_acct)
                due = due ? min_u64(due, l->af.rate.next_look) : l->af.rate.next_look;
        if (l->follow_wedge)
                due = due ? min_u64(due, l->wf.rate.next_look) : l->wf.rate.next_look;
        return due;
}

int service_watch_run(const struct watcher_opts *o, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        _cleanup_(loop_done) struct loop l = {
                .o = o, .nf = NODEFOLLOW_INIT, .pf = PUSHFOLLOW_INIT, .sf = STOPFOLLOW_INIT,
                .af = ACCTFOLLOW_INIT, .wf = WEDGEFOLLOW_INIT
        };
        int r;

        if (isempty(o->service) || isempty(o->juju_unit) || isempty(o->handler)) {
                strbuf_addstr(err, "watcher: service, juju unit and handler are required");
                return -EINVAL;
        }
        /* slurmd's watcher follows its machine too (charm/slurmd/nodefollow.h) */
        if (nodefollow_wanted(o->service)) {
                l.follow_node = charm_node_name(o->juju_unit);
                l.unanswered_path = xstrdup(CHARM_PATH_STATE_DIR "/" NODEFOLLOW_UNANSWERED_FILE);
                l.turn_path = xstrdup(CHARM_PATH_STATE_DIR "/" CONFPUSH_TURN_FILE);
        }
        /* and slurmctld's the push it owes the compute nodes (charm/slurmctld/pushfollow.h) */
        l.follow_push = pushfollow_wanted(o->service);
        /* and accounting that waits for slurmdbd (charm/slurmctld/acctfollow.h) */
        l.follow_acct = acctfollow_wanted(o->service);
        /* and slurmdbd's a stop of its process that systemd does not see (stopfollow.h) */
        l.follow_stop = stopfollow_wanted(o->service);
        /* and its silence while it runs (charm/slurmdbd/wedgefollow.h) */
        l.follow_wedge = wedgefollow_wanted(o->service);
        watcher_coalesce_init(
                &l.co, o->window_usec ? o->window_usec : WATCHER_WINDOW_USEC_DEFAULT, "", false, 0);
        for (;;) {
                if (!bus) {
                        slot = sd_bus_slot_unref(slot);
                        r = reconnect(&l, &bus, &slot, err);
                        if (r < 0)
                                return r;
                        if (!l.started && o->ready)
                                o->ready(o->userdata);
                        l.started = true;
                }
                /* dispatch everything queued: each change lands in l.co */
                do
                        r = sd_bus_process(bus, NULL);
                while (r > 0);
                if (r < 0) {
                        logf_(&l, "bus: %s: reconnecting", strerror(-r));
                        slot = sd_bus_slot_unref(slot);
                        bus = sd_bus_flush_close_unref(bus);
                        continue;
                }
                char state[UNIT_STATE_STRMAX];
                uint64_t now = now_usec();
                follow_tick(&l, now);
                push_tick(&l, now);
                acct_tick(&l, now);
                stop_tick(&l, bus, now);
                wedge_tick(&l, now);
                if (watcher_coalesce_take(&l.co, now, state)) {
                        /* what this run judges, when it does, is the follower's new baseline
                         * (nodefollow_rebase_verdict) */
                        uint64_t before = 0;
                        bool have_before = l.follow_node && nodefollow_verdict(&l.nf, NULL, &before);
                        struct timespec run_start;
                        clock_gettime(CLOCK_REALTIME, &run_start);
                        r = run_handler(&l, state);
                        if (have_before && node_paths_judged_since(NULL, &run_start))
                                nodefollow_rebase_verdict(&l.nf, before);
                        l.runs++;
                        if (r != 0 && ++l.failures <= WATCHER_RETRIES)
                                watcher_coalesce_retry(
                                        &l.co, RETRY_FIRST_USEC << (l.failures - 1), now_usec());
                        else if (r == 0)
                                l.failures = 0;
                        if (o->max_runs && l.runs >= o->max_runs)
                                return 0;
                        continue;
                }
                uint64_t due = next_wake(&l);
                r = sd_bus_wait(bus, due ? (due > now ? due - now : 0) : UINT64_MAX);
                if (r < 0 && r != -EINTR) {
                        logf_(&l, "bus: %s: reconnecting", strerror(-r));
                        slot = sd_bus_slot_unref(slot);
                        bus = sd_bus_flush_close_unref(bus);
                }
        }
}

/* --- the handler --------------------------------------------------------------------------------- */

int watcher_daemon_status(const char *service, const struct unit_state *st, struct charm_outcome *out) {
        _cleanup_free_ char *daemon = charm_daemon_name(service);
        const char *result = isempty(st->result) ? "unknown" : st->result;

        if (streq(st->sub_state, "auto-restart")) {
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "%s restarting (Result=%s, NRestarts=%u)",
                        daemon, result, st->n_restarts);
                return 1;
        }
        if (streq(st->active_state, "failed")) {
                /* systemd gave up (a crash loop ends at the start limit): where to look */
                const char *log = streq(daemon, "munge") ? "/var/log/munge/munged.log" : NULL;
                _cleanup_free_ char *slurm_log = log ? NULL : xasprintf("/var/log/slurm/%s.log", daemon);
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s failed (Result=%s, NRestarts=%u): see %s",
                        daemon, result, st->n_restarts, log ? log : slurm_log);
                return 1;
        }
        return 0;
}

int watcher_service_changed(struct juju_ctx *ctx, const struct watcher_handler_opts *o,
        struct charm_outcome *out, struct strbuf *err) {
        struct unit_state st = { 0 };
        _cleanup_free_ char *paused = NULL;
        int r;

        if (isempty(o->daemon) || !o->reconcile) {
                strbuf_addstr(err, "service-changed: no daemon or reconcile given");
                return -EINVAL;
        }
        char *services[3];
        size_t n_services = charm_services(&o->paths, o->daemon, services);
        if (!streq_ptr(o->service, o->daemon) && (n_services < 2 || !streq_ptr(o->service, services[1]))) {
                strbuf_addf(err, "service-changed: \"%s\" is not %s%s%s", strempty(o->service), o->daemon,
                        n_services > 1 ? " or " : "", n_services > 1 ? services[1] : "");
                return -EINVAL;
        }
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        r = unit_bus_open(&bus, NULL);
        if (r >= 0)
                r = unit_get_state(bus, o->service, &st, NULL);
        if (r < 0) /* the reconcile will say what is wrong with the bus */
                copy_state(st.active_state, o->hint_state);
        r = charm_paused(&o->paths, &paused);
        if (r > 0) {
                /* stopped on purpose: the status says so, nothing is restarted (charm/common/pause.h) */
                charm_paused_outcome(bus, juju_env(ctx)->unit, paused, services, out);
                return 0;
        }
        if (watcher_daemon_status(o->service, &st, out) > 0)
                return 0;
        _cleanup_free_ char *ctl_log = charm_path(&o->paths, CTL_SLURMCTLD_LOG);
        if (streq(o->daemon, "slurmctld.service") && streq(o->service, o->daemon) &&
                streq(st.active_state, "active") &&
                /* not for a reconfigure stuck after its state save: the reconcile cures that
                 * (charm/slurmctld/ctlhang.h), and this wait cost the sentinel's run 20 s */
                !ctl_hang_look(ctl_log, time(NULL))) {
                /* this unit's slurmctld, quietly bounded: the reconcile says "not answering" if it
                 * comes to that */
                char host[HOST_NAME_MAX + 1] = "";
                _cleanup_strbuf_ struct strbuf quiet = STRBUF_INIT; /* (attack atk7 F6: NULL crashed) */
                (void) gethostname(host, sizeof host);
                r = ctl_wait_started(bus, host,
                        o->answer_timeout_ms > 0 ? o->answer_timeout_ms : DEFAULT_ANSWER_TIMEOUT_MS, &quiet);
                /* it died again meanwhile (a crash loop): its state now, no reconcile whose
                 * calls would wait for a dead controller */
                if (r == -ESRCH && unit_get_state(bus, o->service, &st, NULL) >= 0 &&
                        watcher_daemon_status(o->service, &st, out) > 0)
                        return 0;
        }
        bus = sd_bus_flush_close_unref(bus);
        return o->reconcile(ctx, &o->paths, out, err);
}

/* --- installing the watcher ----------------------------------------------------------------------- */

char *watcher_unit_name(const char *service) {
        _cleanup_free_ char *daemon = charm_daemon_name(service);
        return xasprintf("%s%s.service", WATCHER_UNIT_PREFIX, daemon);
}

static bool unit_value_ok(const char *s) {
        if (isempty(s))
                return false;
        for (const char *p = s; *p; p++)
                if (!(isalnum((unsigned char) *p) || strchr("/._+,:=@-", *p)))
                        return false;
        return true;
}

int watcher_unit_render(const char *tmpl, const char *watcher_exe, const char *handler,
        const char *juju_unit, const char *service, struct strbuf *out, struct strbuf *err) {
        const struct {
                const char *name, *value;
        } vars[] = {
                { "WATCHER", watcher_exe },
                { "HANDLER", handler },
                { "JUJU_UNIT", juju_unit },
                { "SERVICE", service },
        };
        for (const char *p = tmpl; *p;) {
                const char *at = strchr(p, '@');
                if (!at) {
                        strbuf_addstr(out, p);
                        break;
                }
                strbuf_add(out, p, (size_t) (at - p));
                size_t n = strspn(at + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
                if (n == 0 || at[1 + n] != '@') {
                        /* a lone '@' is text */
                        strbuf_addch(out, '@');
                        p = at + 1;
                        continue;
                }
                size_t i = 0;
                while (i < ELEMENTSOF(vars) &&
                        !(strlen(vars[i].name) == n && strncmp(vars[i].name, at + 1, n) == 0))
                        i++;
                if (i == ELEMENTSOF(vars)) {
                        strbuf_addf(
                                err, "%s: unknown placeholder \"%.*s\"", WATCHER_TEMPLATE, (int) n + 2, at);
                        return -EINVAL;
                }
                /* a value is checked where the template uses it (a daemon with no handler) */
                if (!unit_value_ok(vars[i].value)) {
                        strbuf_addf(err, "%s: \"%s\" is empty or holds characters systemd would interpret",
                                WATCHER_TEMPLATE, strempty(vars[i].value));
                        return -EINVAL;
                }
                strbuf_addstr(out, vars[i].value);
                p = at + n + 2;
        }
        return 0;
}

static const char *root_of(const struct charm_paths *paths) {
        return paths && paths->root ? paths->root : "";
}

static int read_template(const struct charm_paths *paths, const char *charm_dir, const char *name,
        char **ret, struct strbuf *err) {
        _cleanup_free_ char *path = charm_template_path(paths, charm_dir, name);
        int r = read_full_file(path, ret, NULL);
        if (r < 0 && r != -ENOENT)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* <root>/etc/systemd/system/<unit> (0644) when it differs: 1 written, 0 the same. */
static int write_unit_file(const struct charm_paths *paths, const char *unit, const struct strbuf *content,
        struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(paths, "/etc/systemd/system");
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, unit);
        int r = mkdir_p(dir, 0755);
        if (r >= 0)
                r = write_file_atomic_if_changed(
                        path, content->buf, content->len, 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int watcher_write_files(const struct charm_paths *paths, const char *juju_unit, const char *service,
        const char *charm_dir, struct strbuf *err) {
        _cleanup_free_ char *tmpl = NULL, *dropin = NULL, *unit = NULL, *exe = NULL, *handler = NULL,
                            *dropin_tmpl = NULL;
        _cleanup_strbuf_ struct strbuf content = STRBUF_INIT;
        int r, mask = 0;

        if (isempty(charm_dir)) {
                strbuf_addstr(err, "watcher: no charm directory");
                return -EINVAL;
        }
        r = read_template(paths, charm_dir, WATCHER_TEMPLATE, &tmpl, err);
        if (r == -ENOENT)
                strbuf_addf(err, "%s/templates/%s: %s", charm_dir, WATCHER_TEMPLATE, strerror(ENOENT));
        if (r < 0)
                return r;
        exe = xasprintf("%s/%s", charm_dir, WATCHER_EXE);
        handler = xasprintf("%s/%s", charm_dir, WATCHER_HANDLER_EXE);
        r = watcher_unit_render(tmpl, exe, handler, juju_unit, service, &content, err);
        if (r < 0)
                return r;
        unit = watcher_unit_name(service);
        r = write_unit_file(paths, unit, &content, err);
        if (r < 0)
                return r;
        if (r > 0)
                mask |= 1;

        dropin_tmpl = xasprintf("%s.d/%s.conf", service, WATCHER_RESTART_DROPIN);
        r = read_template(paths, charm_dir, dropin_tmpl, &dropin, err);
        if (r == -ENOENT)
                return mask; /* this charm's daemon needs none */
        if (r < 0)
                return r;
        r = unit_install_dropin(root_of(paths), service, WATCHER_RESTART_DROPIN, dropin, err);
        if (r < 0)
                return r;
        if (r > 0)
                mask |= 2;
        return mask;
}

int watcher_install(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit, const char *service,
        const char *charm_dir, bool restart, struct strbuf *err) {
        _cleanup_free_ char *unit = watcher_unit_name(service);
        int mask, r;

        mask = watcher_write_files(paths, juju_unit, service, charm_dir ? charm_dir : paths->charm_dir, err);
        if (mask < 0)
                return mask;
        if (mask > 0) {
                r = unit_daemon_reload(bus, UNIT_TIMEOUT_USEC, err);
                if (r < 0)
                        return r;
        }
        r = charm_unit_ensure(bus, unit, restart || (mask & 1), UNIT_TIMEOUT_USEC, err);
        if (r < 0)
                return r;
        return mask > 0 || r > 0;
}

int watcher_daemon_remove(
        const struct charm_paths *paths, sd_bus *bus, const char *unit, struct strbuf *err) {
        _cleanup_free_ char *path = NULL, *rel = xasprintf("/etc/systemd/system/%s", unit);
        int r;

        path = charm_path(paths, rel);
        if (access(path, F_OK) < 0) {
                if (errno != ENOENT) {
                        r = -errno;
                        strbuf_addf(err, "%s: %s", path, strerror(errno));
                        return r;
                }
                return 0;
        }
        /* a unit that is not loaded or already stopped is fine here */
        (void) unit_stop(bus, unit, UNIT_TIMEOUT_USEC, NULL);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        r = unit_disable(bus, unit, UNIT_TIMEOUT_USEC, &e);
        if (r < 0 && r != -ENOENT) {
                strbuf_addbuf(err, &e);
                return r;
        }
        if (unlink(path) < 0 && errno != ENOENT) {
                r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(errno));
                return r;
        }
        r = unit_daemon_reload(bus, UNIT_TIMEOUT_USEC, err);
        if (r < 0)
                return r;
        (void) unit_reset_failed(bus, unit, UNIT_TIMEOUT_USEC, NULL);
        return 1;
}

int watcher_daemon_with_file(const struct charm_paths *paths, sd_bus *bus, const struct watcher_daemon *d,
        const char *file, const char *text, mode_t mode, const char *juju_unit, const char *charm_dir, bool restart,
        struct strbuf *err) {
        int r;
        if (!text) {
                r = watcher_daemon_remove(paths, bus, d->unit, err);
                if (r < 0)
                        return r;
                if (unlink(file) < 0 && errno != ENOENT) {
                        r = -errno;
                        strbuf_addf(err, "%s: %s", file, strerror(errno));
                }
                return r;
        }
        r = write_file_atomic_if_changed(file, text, strlen(text), mode, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", file, strerror(-r));
                return r;
        }
        bool changed = r > 0;
        r = watcher_daemon_install(paths, bus, d, juju_unit, charm_dir, restart || changed, err);
        if (r < 0)
                return r;
        return changed || r > 0;
}

int watcher_remove(const struct charm_paths *paths, sd_bus *bus, const char *service, struct strbuf *err) {
        _cleanup_free_ char *unit = watcher_unit_name(service);
        return watcher_daemon_remove(paths, bus, unit, err);
}

int watcher_daemon_install(const struct charm_paths *paths, sd_bus *bus, const struct watcher_daemon *d,
        const char *juju_unit, const char *charm_dir, bool restart, struct strbuf *err) {
        _cleanup_free_ char *tmpl = NULL, *exe = NULL, *handler = NULL;
        _cleanup_strbuf_ struct strbuf content = STRBUF_INIT;
        int r;

        charm_dir = charm_dir ? charm_dir : paths->charm_dir;
        if (isempty(charm_dir) || isempty(juju_unit)) {
                strbuf_addf(err, "%s: no charm directory or unit name", d->unit);
                return -EINVAL;
        }
        r = read_template(paths, charm_dir, d->template, &tmpl, err);
        if (r == -ENOENT)
                strbuf_addf(err, "%s/templates/%s: %s", charm_dir, d->template, strerror(ENOENT));
        if (r < 0)
                return r;
        exe = xasprintf("%s/%s", charm_dir, d->exe);
        handler = d->handler ? xasprintf("%s/%s", charm_dir, d->handler) : NULL;
        r = watcher_unit_render(tmpl, exe, handler, juju_unit, d->service, &content, err);
        if (r < 0)
                return r;
        r = write_unit_file(paths, d->unit, &content, err);
        if (r < 0)
                return r;
        bool changed = r > 0;
        if (changed) {
                r = unit_daemon_reload(bus, UNIT_TIMEOUT_USEC, err);
                if (r < 0)
                        return r;
        }
        r = charm_unit_ensure(bus, d->unit, restart || changed, UNIT_TIMEOUT_USEC, err);
        if (r < 0)
                return r;
        return changed || r > 0;
}
