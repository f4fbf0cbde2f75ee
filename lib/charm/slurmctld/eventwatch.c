/* SPDX-License-Identifier: Apache-2.0 */
/* The node event watcher's loop: doorbell, coalescing window, safety poll, rounds over the
 * trigger spool, retries, and the status refresh in a child the loop never waits for. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/eventwatch.h"

#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "proc/proc.h"
#include "util/strv.h"

#include "util/banned.h"

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void eventwatch_cause(const struct evspool_list *records, const char *fallback, struct strbuf *out) {
        _cleanup_strv_ struct strv kinds = STRV_INIT;
        for (size_t i = 0; records && i < records->n; i++)
                if (records->v[i].valid && !strv_contains(&kinds, records->v[i].kind))
                        strv_push(&kinds, records->v[i].kind);
        if (kinds.n == 0) {
                strbuf_addstr(out, strempty(fallback));
                return;
        }
        qsort(kinds.v, kinds.n, sizeof(char *), cmp_str);
        _cleanup_free_ char *j = strv_join(&kinds, ",");
        strbuf_addf(out, "trigger:%s", j);
}

struct loop {
        const struct eventwatch_opts *o;
        bool pending;
        uint64_t due;
        const char *why; /* the cause when the spool is empty */
        unsigned rounds, failures;
        pid_t refresh_pid;
        int refresh_fd; /* pidfd of the refresh child, -1 when none (or no pidfd: polled) */
        bool refresh_wanted;
        size_t expect_open; /* open expectations after the last good round */
        uint64_t burst_start; /* the first ring of the latest burst (0: none yet) */
};

_printf_(2, 3) static void logf_(const struct loop *l, const char *fmt, ...) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        va_list ap;
        if (!l->o->log)
                return;
        va_start(ap, fmt);
        strbuf_vaddf(&s, fmt, ap);
        va_end(ap);
        l->o->log(l->o->userdata, s.buf);
}

/* Makes a round pending, due at `due` unless an earlier one is already due. */
static void want_round(struct loop *l, uint64_t due, const char *why) {
        if (!l->pending || due < l->due) {
                l->due = due;
                l->why = why;
        }
        l->pending = true;
}

/* --- the refresh child ---------------------------------------------------------------------- */

static _noreturn_ void refresh_child(const struct loop *l) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        uint64_t t0 = now_usec();
        strv_pushv(&p.argv, l->o->refresh_argv);
        p.capture_out = p.capture_err = true;
        p.timeout_ms = l->o->refresh_timeout_ms > 0 ? l->o->refresh_timeout_ms
                                                    : EVENTWATCH_REFRESH_TIMEOUT_MS_DEFAULT;
        int r = proc_run(&p);
        strbuf_rtrim(&p.err);
        const char *last = strrchr(p.err.buf, '\n');
        logf_(l, "status refresh: %s in %llu ms%s%s",
                r == 0          ? "ok"
                        : r < 0 ? strerror(-r)
                                : "failed",
                (unsigned long long) ((now_usec() - t0) / 1000), p.err.len ? ": " : "",
                p.err.len ? (last ? last + 1 : p.err.buf) : "");
        _exit(r == 0 ? 0 : 1);
}

static void refresh_start(struct loop *l) {
        if (!l->o->refresh_argv || !l->o->refresh_argv[0])
                return;
        pid_t pid = fork();
        if (pid < 0) {
                logf_(l, "status refresh: fork: %s", strerror(errno));
                return;
        }
        if (pid == 0)
                refresh_child(l);
        l->refresh_pid = pid;
        l->refresh_fd = (int) syscall(SYS_pidfd_open, pid, 0);
        l->refresh_wanted = false;
}

/* Reaps the refresh child when it ended (blocking: wait for it). */
static void refresh_reap(struct loop *l, bool block) {
        int status;
        if (l->refresh_pid <= 0)
                return;
        pid_t w;
        do
                w = waitpid(l->refresh_pid, &status, block ? 0 : WNOHANG);
        while (w < 0 && errno == EINTR);
        if (w == 0)
                return;
        l->refresh_pid = 0;
        if (l->refresh_fd >= 0)
                close(l->refresh_fd);
        l->refresh_fd = -1;
}

/* --- rounds ------------------------------------------------------------------------------------- */

/* Records that say nothing of any node (reconfig) and nothing else: a reconcile now would see
 * the node changes of the same slurmctld trigger pass before their own records arrive, and
 * record them as found by the reconcile (seen on a loaded machine: the reconfig record came
 * 110 ms before the drained one of the same pass, past the quiet window). */
static bool pass_only(const struct evspool_list *recs) {
        size_t n = 0;
        for (size_t i = 0; i < recs->n; i++) {
                if (!recs->v[i].valid)
                        continue;
                if (!streq(recs->v[i].kind, "reconfig"))
                        return false;
                n++;
        }
        return n > 0;
}

static void round_run(struct loop *l) {
        const struct eventwatch_opts *o = l->o;
        _cleanup_(evspool_list_done) struct evspool_list recs = { 0 };
        _cleanup_strbuf_ struct strbuf cause = STRBUF_INIT, err = STRBUF_INIT;
        uint64_t t0 = now_usec();
        int r;

        l->pending = false;
        r = evspool_read(o->spool, 0, &recs);
        if (r < 0) {
                logf_(l, "spool %s: %s", o->spool, strerror(-r));
                recs = (struct evspool_list){ 0 };
        }
        /* any round (the doorbell's, or a poll or expect round that comes meanwhile) that
         * would take reconfig records only waits until pass_usec after their burst's first
         * ring for the rest of the pass: bounded by that, whatever asks for rounds */
        uint64_t pass = o->pass_usec ? o->pass_usec : EVENTWATCH_PASS_USEC_DEFAULT;
        if (l->burst_start && t0 < l->burst_start + pass && pass_only(&recs)) {
                want_round(l, l->burst_start + pass, "doorbell");
                return;
        }
        eventwatch_cause(&recs, l->why, &cause);
        r = o->reconcile(o->userdata, &recs, cause.buf, &err);
        l->rounds++;
        if (r < 0) {
                uint64_t base = o->retry_usec ? o->retry_usec : EVENTWATCH_RETRY_USEC_DEFAULT;
                uint64_t delay = base << (l->failures < 5 ? l->failures : 5);
                if (delay > EVENTWATCH_RETRY_MAX_USEC)
                        delay = EVENTWATCH_RETRY_MAX_USEC;
                l->failures++;
                logf_(l, "reconcile (%s, %zu records): %s; again in %llu ms", cause.buf, recs.n,
                        err.len ? err.buf : strerror(-r), (unsigned long long) (delay / 1000));
                want_round(l, now_usec() + delay, "retry");
                return;
        }
        l->failures = 0;
        if (recs.n > 0) {
                int k = evspool_remove(o->spool, &recs);
                if (k < 0)
                        logf_(l, "spool %s: removing records: %s", o->spool, strerror(-k));
        }
        logf_(l, "reconcile (%s, %zu records): %s in %llu ms", cause.buf, recs.n,
                r > 0 ? "news" : "nothing new", (unsigned long long) ((now_usec() - t0) / 1000));
        if (r > 0)
                l->refresh_wanted = true;
        size_t open = o->expecting ? o->expecting(o->userdata) : 0;
        if (open < l->expect_open) {
                logf_(l, "expected node changes: %zu open, were %zu: status refresh", open, l->expect_open);
                l->refresh_wanted = true;
        }
        l->expect_open = open;
        if (recs.n >= EVSPOOL_MAX_FILES)
                want_round(l, now_usec(), "spool");
        else if (open > 0)
                want_round(l,
                        now_usec() +
                                (o->expect_poll_usec ? o->expect_poll_usec
                                                     : EVENTWATCH_EXPECT_POLL_USEC_DEFAULT),
                        "expect");
}

int eventwatch_run(const struct eventwatch_opts *o, struct strbuf *err) {
        struct loop l = { .o = o, .refresh_fd = -1 };
        _cleanup_close_ int bell = -1;
        uint64_t window = o->window_usec ? o->window_usec : EVENTWATCH_WINDOW_USEC_DEFAULT;
        uint64_t next_poll = 0;
        int r;

        if (isempty(o->spool) || !o->reconcile) {
                strbuf_addstr(err, "node event watcher: a spool and a reconcile are required");
                return -EINVAL;
        }
        r = evspool_doorbell_open(o->spool, o->spool_uid, o->spool_gid, &bell);
        if (r < 0) {
                strbuf_addf(err, "%s/%s: %s", o->spool, EVSPOOL_DOORBELL, strerror(-r));
                return r;
        }
        if (o->ready)
                o->ready(o->userdata);
        want_round(&l, now_usec(), "watcher-start");
        if (o->poll_usec)
                next_poll = now_usec() + o->poll_usec;

        for (;;) {
                uint64_t now = now_usec();
                if (o->poll_usec && now >= next_poll) {
                        want_round(&l, now, "poll");
                        next_poll = now + o->poll_usec;
                }
                if (l.pending && now >= l.due) {
                        round_run(&l);
                        if (o->max_rounds && l.rounds >= o->max_rounds)
                                break;
                        continue;
                }
                if (l.refresh_pid > 0 && l.refresh_fd < 0)
                        refresh_reap(&l, false); /* no pidfd: polled below */
                if (l.refresh_wanted && l.refresh_pid <= 0)
                        refresh_start(&l);

                /* sleep until a ring, the refresh child's end, a due round or the next poll */
                uint64_t until = UINT64_MAX;
                if (l.pending)
                        until = l.due;
                if (o->poll_usec && next_poll < until)
                        until = next_poll;
                int timeout = -1;
                if (until != UINT64_MAX)
                        timeout = until > now ? (int) ((until - now + 999) / 1000) : 0;
                if (l.refresh_pid > 0 && l.refresh_fd < 0 && (timeout < 0 || timeout > 100))
                        timeout = 100;
                struct pollfd pfd[2] = { { .fd = bell, .events = POLLIN },
                        { .fd = l.refresh_fd, .events = POLLIN } };
                int k = poll(pfd, l.refresh_fd >= 0 ? 2 : 1, timeout);
                if (k < 0 && errno != EINTR) {
                        strbuf_addf(err, "node event watcher: poll: %s", strerror(errno));
                        r = -errno;
                        refresh_reap(&l, true);
                        return r;
                }
                if (k <= 0)
                        continue;
                if (pfd[0].revents) {
                        evspool_doorbell_drain(bell);
                        if (!l.pending || !streq_ptr(l.why, "doorbell"))
                                l.burst_start = now_usec();
                        /* the window counts from the first ring of a burst (an earlier due
                         * round stays); a ring cuts a retry's wait short */
                        want_round(&l, now_usec() + window, "doorbell");
                        l.failures = 0;
                }
                if (l.refresh_fd >= 0 && pfd[1].revents)
                        refresh_reap(&l, false);
        }
        /* tests: the refresh the last round asked for, and its end */
        if (l.refresh_wanted && l.refresh_pid <= 0)
                refresh_start(&l);
        refresh_reap(&l, true);
        return 0;
}
