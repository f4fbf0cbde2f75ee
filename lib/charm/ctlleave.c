/* SPDX-License-Identifier: Apache-2.0 */
/* A leaving controller waits for the jobs whose steps list no controller that stays (see
 * ctlleave.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/ctlleave.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "charm/ha.h"
#include "proc/proc.h"
#include "slurm/jobquery.h"
#include "slurm/nodes.h"
#include "util/fileio.h"

#include "util/banned.h"

#define LOCK_WAIT_MS 5000

void ctlleave_history_done(struct ctlleave_history *h) {
        for (size_t i = 0; i < h->n; i++)
                strv_clear(&h->v[i].hosts);
        free(h->v);
        *h = (struct ctlleave_history){ 0 };
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void sort_hosts(struct strv *sv) {
        if (sv->n > 1)
                qsort(sv->v, sv->n, sizeof *sv->v, cmp_str);
}

static bool host_ok(const char *h, size_t n) {
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (h[i] == ',' || h[i] == ' ' || h[i] == '\n' || h[i] == '/')
                        return false;
        return true;
}

size_t ctlleave_history_parse(const char *text, struct ctlleave_history *ret) {
        *ret = (struct ctlleave_history){ 0 };
        for (const char *p = text; p && *p;) {
                size_t len = strcspn(p, "\n");
                const char *line = p;
                p += len;
                if (*p == '\n')
                        p++;
                char *end = NULL;
                long long t = strtoll(line, &end, 10);
                if (end == line || t <= 0 || end >= line + len || *end != ' ')
                        continue;
                const char *h = end + 1;
                size_t hl = (size_t) (line + len - h);
                struct strv hosts = STRV_INIT;
                bool ok = hl > 0;
                for (size_t i = 0; ok && i < hl;) {
                        size_t n = strcspn(h + i, ",\n");
                        if (i + n > hl)
                                n = hl - i;
                        ok = host_ok(h + i, n);
                        if (ok)
                                strv_push_take(&hosts, xstrndup(h + i, n));
                        i += n + 1;
                }
                if (!ok) {
                        strv_clear(&hosts);
                        continue;
                }
                sort_hosts(&hosts);
                ret->v = xrealloc(ret->v, (ret->n + 1) * sizeof *ret->v);
                ret->v[ret->n++] = (struct ctlleave_entry){ .since = (time_t) t, .hosts = hosts };
        }
        return ret->n;
}

static char *history_path(const char *dir) {
        return xasprintf("%s/%s/%s", dir, HA_MARKER_DIR, CTLLEAVE_HISTORY_FILE);
}

int ctlleave_history_read(const char *dir, struct ctlleave_history *ret) {
        *ret = (struct ctlleave_history){ 0 };
        if (!dir)
                return 0;
        _cleanup_free_ char *path = history_path(dir), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return (int) ctlleave_history_parse(data, ret);
}

static bool same_set(const struct strv *a, const struct strv *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!streq(a->v[i], b->v[i]))
                        return false;
        return true;
}

int ctlleave_note(const char *dir, const struct strv *hosts, time_t t, uid_t uid, gid_t gid, struct strbuf *err) {
        if (!dir || hosts->n == 0)
                return 0;
        _cleanup_strv_ struct strv set = STRV_INIT;
        for (size_t i = 0; i < hosts->n; i++) {
                if (!host_ok(hosts->v[i], strlen(hosts->v[i]))) {
                        strbuf_addf(err, "controller list history: bad host name \"%s\"", hosts->v[i]);
                        return -EINVAL;
                }
                if (!strv_contains(&set, hosts->v[i]))
                        strv_push(&set, hosts->v[i]);
        }
        sort_hosts(&set);
        _cleanup_free_ char *mdir = xasprintf("%s/%s", dir, HA_MARKER_DIR), *path = history_path(dir),
                            *lock = xasprintf("%s.lock", path);
        int r = mkdir_p(mdir, 0700);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", mdir, strerror(-r));
                return r;
        }
        _cleanup_close_ int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
                r = -errno;
                strbuf_addf(err, "%s: %s", lock, strerror(-r));
                return r;
        }
        (void) fchown(fd, uid, gid);
        for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited += 20) {
                if (errno != EWOULDBLOCK && errno != EINTR) {
                        r = -errno;
                        strbuf_addf(err, "%s: %s", lock, strerror(-r));
                        return r;
                }
                if (waited >= LOCK_WAIT_MS) {
                        strbuf_addf(err, "%s: held by another unit for %d ms", lock, waited);
                        return -ETIMEDOUT;
                }
                struct timespec ts = { 0, 20 * 1000 * 1000 };
                nanosleep(&ts, NULL);
        }
        _cleanup_(ctlleave_history_done) struct ctlleave_history h = { 0 };
        r = ctlleave_history_read(dir, &h);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        if (h.n > 0 && same_set(&h.v[h.n - 1].hosts, &set))
                return 0;
        _cleanup_strbuf_ struct strbuf text = STRBUF_INIT;
        size_t first = h.n + 1 > CTLLEAVE_HISTORY_MAX ? h.n + 1 - CTLLEAVE_HISTORY_MAX : 0;
        for (size_t i = first; i < h.n; i++) {
                _cleanup_free_ char *list = strv_join(&h.v[i].hosts, ",");
                strbuf_addf(&text, "%lld %s\n", (long long) h.v[i].since, list);
        }
        _cleanup_free_ char *list = strv_join(&set, ",");
        /* never before the last line: a unit whose clock is behind keeps the order */
        time_t at = h.n > 0 && t < h.v[h.n - 1].since ? h.v[h.n - 1].since : t;
        strbuf_addf(&text, "%lld %s\n", (long long) at, list);
        r = write_file_atomic(path, text.buf, text.len, 0600, uid, gid);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        return 1;
}

/* Whether the set of entry i has one of staying. */
static bool entry_keeps(const struct ctlleave_entry *e, const struct strv *staying) {
        for (size_t i = 0; i < staying->n; i++)
                if (strv_contains(&e->hosts, staying->v[i]))
                        return true;
        return false;
}

/* Whether every set in force during [at - lag, at] has one of staying (before the first entry:
 * the first entry's set). */
static bool sets_keep(const struct ctlleave_history *h, const struct strv *staying, time_t at, time_t lag) {
        size_t start = 0; /* the entry in force at at - lag: the last one since then or before */
        for (size_t i = 0; i < h->n; i++)
                if (h->v[i].since <= at - lag)
                        start = i;
        for (size_t i = start; i < h->n && h->v[i].since <= at; i++)
                if (!entry_keeps(&h->v[i], staying))
                        return false;
        /* the first entry is after at: its set (nothing was in force before it) */
        return h->v[start].since <= at || entry_keeps(&h->v[start], staying);
}

bool ctlleave_job_unsafe(const struct ctlleave_history *h, const struct strv *staying, time_t job_start,
        const time_t *slurmd_starts, size_t n, time_t lag) {
        if (h->n == 0 || staying->n == 0)
                return true;
        if (n == 0)
                return !sets_keep(h, staying, job_start, lag);
        for (size_t i = 0; i < n; i++) {
                time_t t = slurmd_starts[i];
                if (t <= 0)
                        return true;
                /* the slurmd that ran at the job's start: the last one when it started before
                 * the job, else an earlier one, in force at the job's start */
                time_t at = t <= job_start ? t : job_start;
                if (!sets_keep(h, staying, at, lag))
                        return true;
        }
        return false;
}

int ctlleave_timeout_ms(struct juju_ctx *ctx, struct strbuf *err) {
        int64_t s = CTLLEAVE_TIMEOUT_DEFAULT_S;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = juju_config_int(ctx, CTLLEAVE_TIMEOUT_KEY, &s, &e);
        if (r == -ENOENT)
                s = CTLLEAVE_TIMEOUT_DEFAULT_S;
        else if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        } else if (s <= 0 || s > CTLLEAVE_TIMEOUT_MAX_S) {
                strbuf_addf(err, "%s: %lld is not a number of seconds from 1 to %d", CTLLEAVE_TIMEOUT_KEY,
                        (long long) s, CTLLEAVE_TIMEOUT_MAX_S);
                return -EINVAL;
        }
        return (int) (s * 1000);
}

struct query {
        const struct ctlleave_history *h;
        const struct strv *staying;
        struct strbuf *ids; /* the unsafe jobs, for the messages */
};

static bool unsafe_job(const struct slurm_jobinfo *job, char *const *nodes, const time_t *starts, size_t n, void *userdata) {
        struct query *q = userdata;
        if (!ctlleave_job_unsafe(q->h, q->staying, job->start_time, starts, n, CTLLEAVE_LAG_S))
                return false;
        strbuf_addf(q->ids, "%s%s", q->ids->len ? ", " : "", job->display_id ? job->display_id : "?");
        /* a node whose slurmd has not registered since slurmctld started (its start time is not
         * in the saved state): known once it does */
        for (size_t i = 0; i < n; i++)
                if (starts[i] <= 0) {
                        strbuf_addf(q->ids, " (%s not registered yet)", nodes[i]);
                        break;
                }
        return true;
}

/* In the child of proc_call_as(): the unsafe jobs' count returned, their ids in out ("7, 9"),
 * or the error message. */
static int query_child(void *userdata, struct strbuf *out) {
        struct query *q = userdata;
        q->ids = out;
        return slurm_jobs_active_count(unsafe_job, q, out);
}

int ctlleave_wait(struct juju_ctx *ctx, const char *state_dir, const struct strv *controllers, const char *self,
        int timeout_ms, struct strbuf *err) {
        _cleanup_strv_ struct strv staying = STRV_INIT;
        for (size_t i = 0; i < controllers->n; i++)
                if (!streq(controllers->v[i], self))
                        strv_push(&staying, controllers->v[i]);
        if (staying.n == 0)
                return 0; /* the last controller: no other one could take the steps' reports */
        _cleanup_(ctlleave_history_done) struct ctlleave_history h = { 0 };
        int r = ctlleave_history_read(state_dir, &h);
        if (r < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "leaving: the controller list history is unreadable (%s): every running job is waited for",
                        strerror(-r));
        struct query q = { .h = &h, .staying = &staying };
        int64_t t0 = slurm_now_ms();
        bool said = false;
        for (;;) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                int n = proc_call_as(0, 0, 20000, query_child, &q, &out);
                if (n < 0) {
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                "leaving: the running jobs cannot be asked (%s); not waiting for jobs that "
                                "started under an older controller list",
                                n == -ETIME ? "no answer within 20 s" : out.len ? out.buf : strerror(-n));
                        return 0;
                }
                if (n == 0) {
                        if (said)
                                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                                        "leaving: no job left whose steps may list no staying controller (waited "
                                        "%lld ms)",
                                        (long long) (slurm_now_ms() - t0));
                        return 0;
                }
                int64_t waited = slurm_now_ms() - t0;
                if (waited >= timeout_ms) {
                        strbuf_addf(err,
                                "%s: %d job%s still run%s after %d s whose steps may list no controller "
                                "that stays (Slurm 22.05 steps keep their list): %s; removing this unit "
                                "would leave them nobody to report their end to: wait for them and resolve, "
                                "or cancel them, then resolve",
                                CTLLEAVE_TIMEOUT_KEY, n, n == 1 ? "" : "s", n == 1 ? "s" : "", timeout_ms / 1000,
                                out.buf);
                        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                        strbuf_addf(&msg, "%s: job%s %s need%s this controller", CTLLEAVE_TIMEOUT_KEY,
                                n == 1 ? "" : "s", out.buf, n == 1 ? "s" : "");
                        (void) juju_status_set(ctx, false, JUJU_STATUS_BLOCKED, msg.buf, NULL);
                        return -ETIMEDOUT;
                }
                if (!said) {
                        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                        strbuf_addf(&msg,
                                "leaving: waiting for %d job%s whose steps may list no controller that stays "
                                "(%s %d s): %s",
                                n, n == 1 ? "" : "s", CTLLEAVE_TIMEOUT_KEY, timeout_ms / 1000, out.buf);
                        (void) juju_status_set(ctx, false, JUJU_STATUS_MAINTENANCE, msg.buf, NULL);
                        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "%s", msg.buf);
                        said = true;
                }
                int64_t left = timeout_ms - waited;
                int64_t nap = left < CTLLEAVE_POLL_MS ? left : CTLLEAVE_POLL_MS;
                struct timespec ts = { .tv_sec = nap / 1000, .tv_nsec = (nap % 1000) * 1000000L };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
                }
        }
}
