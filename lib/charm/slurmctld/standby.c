/* SPDX-License-Identifier: Apache-2.0 */
/* The standby hold (charm/slurmctld/standby.h): which running jobs may still ask a displaced controller
 * first, the displaced times in the peer app bag, and the hold record the sentinel reads. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/standby.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"
#include "slurm/jobquery.h"
#include "slurm/nodes.h"
#include "util/fileio.h"

#include "util/banned.h"

unsigned standby_release_s(unsigned t) {
        unsigned lead = t / 2 < STANDBY_START_LEAD_S ? t / 2 : STANDBY_START_LEAD_S;
        return t - lead;
}

void standby_timeout_note(unsigned t, size_t n_ctl, struct strbuf *out) {
        if (n_ctl < 2 || t >= STANDBY_HA_TIMEOUT_MIN_S)
                return;
        /* one note, no "; " inside: the status is read as "; "-separated parts */
        strbuf_addf(out,
                "; slurmctld-timeout=%u is short for %zu controllers (use %u or more): a job that ends while the "
                "controller in charge is lost may stay RUNNING, its end being reported within 1.5 x %u s while a "
                "failover takes about %u s",
                t, n_ctl, STANDBY_HA_TIMEOUT_MIN_S, t, t + 7);
}

unsigned standby_beat_period(unsigned t) {
        unsigned p = t / 4 < 30 ? t / 4 : 30;
        return p ? p : 1;
}

bool standby_heartbeat_late(int64_t age, unsigned t) {
        return age > 2 * (int64_t) standby_beat_period(t);
}

int standby_query_timeout_ms(int64_t age, unsigned t) {
        int64_t left = ((int64_t) standby_release_s(t) - (age > 0 ? age : 0)) * 1000;
        if (left < 2000)
                return 2000;
        return left > STANDBY_QUERY_TIMEOUT_MS ? STANDBY_QUERY_TIMEOUT_MS : (int) left;
}

enum standby_take standby_take_next(time_t now, time_t since, unsigned t, long self, long n_ctl, bool have_beat,
        time_t beat_time, long beat_writer, time_t released_beat) {
        if (self < 1 || n_ctl < 2 || now < since || now - since > 2 * (time_t) t + 10)
                return STANDBY_TAKE_DONE;
        if (have_beat && beat_time > released_beat)
                return beat_writer == self ? STANDBY_TAKE_DONE : STANDBY_TAKE_RECHECK;
        if (have_beat && (now < beat_time || now - beat_time <= (time_t) t))
                return STANDBY_TAKE_WAIT;
        return STANDBY_TAKE_NOW;
}

bool standby_early_valid(time_t now, time_t when, time_t beat_then, bool have_beat, time_t beat_now, unsigned t) {
        if (now < when || now - when > 2 * (time_t) t + 10)
                return false;
        return !have_beat || beat_now <= beat_then;
}

bool standby_job_old(time_t job_start, const time_t *slurmd_starts, size_t n, time_t since, bool push) {
        if (n == 0)
                return job_start < since;
        for (size_t i = 0; i < n; i++) {
                time_t t = slurmd_starts[i];
                if (t <= 0 || t < since)
                        return true; /* that slurmd (and the steps it starts) runs the old list */
                if (!push && job_start < t)
                        return true; /* the job's steps there began under the old list */
        }
        return false;
}

/* The next "unit=time" word of *s: the unit's length and its time (0 for a malformed word). */
static size_t next_word(const char **s, const char **ret_unit, time_t *ret_time) {
        *s += strspn(*s, " ");
        const char *w = *s;
        size_t len = strcspn(w, " ");
        *s += len;
        const char *eq = memchr(w, '=', len);
        *ret_unit = w;
        *ret_time = 0;
        if (!eq)
                return 0;
        char *end = NULL;
        long long t = strtoll(eq + 1, &end, 10);
        if (end != w + len || t <= 0)
                return 0;
        *ret_time = (time_t) t;
        return (size_t) (eq - w);
}

time_t standby_displaced_of(const char *value, const char *unit) {
        time_t found = 0;
        for (const char *s = value ? value : ""; s[strspn(s, " ")];) {
                const char *u;
                time_t t;
                size_t n = next_word(&s, &u, &t);
                if (n && n == strlen(unit) && strncmp(u, unit, n) == 0 && t > found)
                        found = t;
        }
        return found;
}

void standby_displaced_next(const char *prev, const struct strv *prev_order, const char *first,
        const struct strv *present, time_t now, struct strbuf *out) {
        _cleanup_strv_ struct strv units = STRV_INIT;
        /* every unit named: prev's, then the displaced ones */
        for (const char *s = prev ? prev : ""; s[strspn(s, " ")];) {
                const char *u;
                time_t t;
                size_t n = next_word(&s, &u, &t);
                if (n) {
                        _cleanup_free_ char *name = xstrndup(u, n);
                        if (!strv_contains(&units, name))
                                strv_push(&units, name);
                }
        }
        bool ahead = first != NULL;
        for (size_t i = 0; ahead && i < prev_order->n; i++) {
                if (streq(prev_order->v[i], first))
                        break;
                if (!strv_contains(&units, prev_order->v[i]))
                        strv_push(&units, prev_order->v[i]);
        }
        for (size_t i = 0; i < units.n; i++) {
                const char *u = units.v[i];
                if (streq_ptr(u, first) || !strv_contains(present, u))
                        continue;
                time_t t = standby_displaced_of(prev, u);
                if (first) {
                        for (size_t k = 0; k < prev_order->n && !streq(prev_order->v[k], first); k++)
                                if (streq(prev_order->v[k], u) && now > t)
                                        t = now;
                }
                if (t > 0)
                        strbuf_addf(out, "%s%s=%lld", out->len ? " " : "", u, (long long) t);
        }
}

void standby_joined_next(const char *prev, const struct strv *prev_order, const struct strv *order, time_t now,
        struct strbuf *out) {
        for (size_t i = 0; i < order->n; i++) {
                const char *u = order->v[i];
                time_t t = standby_displaced_of(prev, u);
                if (t <= 0 && !strv_contains(prev_order, u))
                        t = now;
                if (t > 0)
                        strbuf_addf(out, "%s%s=%lld", out->len ? " " : "", u, (long long) t);
        }
}

bool standby_job_lacks(time_t job_start, const time_t *slurmd_starts, size_t n, time_t joined, bool push) {
        if (n == 0)
                return job_start < joined + STANDBY_JOIN_SETTLE_S;
        for (size_t i = 0; i < n; i++) {
                time_t t = slurmd_starts[i];
                if (t <= 0 || t < joined)
                        return true; /* that slurmd runs the list from before the join */
                /* 22.05: a job started under today's slurmd has its list; one started under an
                 * earlier slurmd (restarted since, or in the same second: whole seconds from two
                 * clocks) is judged by its start, with the time the new list takes to reach
                 * every node */
                if (!push && job_start <= t && job_start < joined + STANDBY_JOIN_SETTLE_S)
                        return true;
        }
        return false;
}

static int old_jobs_query(
        time_t since, bool push, bool lacks, uint32_t *ret_example, struct strbuf *err) {
        static char *const states[] = { "RUNNING", "SUSPENDED", "COMPLETING", NULL };
        const struct slurm_job_filter f = { .states = states };
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 };
        _cleanup_(slurm_node_list_done) struct slurm_node_list nodes = { 0 };
        int r = slurm_jobs_find(&f, &jobs, err);
        if (r >= 0 && jobs.n > 0)
                r = slurm_node_list(NULL, &nodes, err);
        if (r < 0)
                return r;
        int old = 0;
        for (size_t j = 0; j < jobs.n; j++) {
                _cleanup_strv_ struct strv names = STRV_INIT;
                slurm_hostlist_expand(jobs.v[j].nodes, &names);
                _cleanup_free_ time_t *starts = xcalloc(names.n + 1, sizeof *starts);
                for (size_t i = 0; i < names.n; i++)
                        for (size_t k = 0; k < nodes.n; k++)
                                if (streq_ptr(nodes.v[k].name, names.v[i]))
                                        starts[i] = nodes.v[k].slurmd_start_time;
                if (lacks ? standby_job_lacks(jobs.v[j].start_time, starts, names.n, since, push)
                          : standby_job_old(jobs.v[j].start_time, starts, names.n, since, push)) {
                        if (old++ == 0 && ret_example)
                                *ret_example = jobs.v[j].job_id;
                }
        }
        return old;
}

struct old_jobs_call {
        time_t since;
        bool push, lacks;
};

/* In the child of proc_call_as(): the count returned, the example job id as the first line of
 * out (a message after it on failure). */
static int old_jobs_child(void *userdata, struct strbuf *out) {
        const struct old_jobs_call *c = userdata;
        uint32_t example = 0;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = old_jobs_query(c->since, c->push, c->lacks, &example, &e);
        strbuf_addf(out, "%" PRIu32 "\n%s", example, e.len ? e.buf : "");
        return r;
}

static int jobs_call(struct old_jobs_call *c, int timeout_ms, uint32_t *ret_example, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int r = proc_call_as(0, 0, timeout_ms, old_jobs_child, c, &out);
        if (r == -ETIME) {
                if (err)
                        strbuf_addf(err, "no answer within %d ms", timeout_ms);
                return -ETIMEDOUT;
        }
        const char *nl = out.len ? strchr(out.buf, '\n') : NULL;
        if (r >= 0 && ret_example && nl)
                *ret_example = (uint32_t) strtoul(out.buf, NULL, 10);
        if (r < 0 && err)
                strbuf_addf(err, "%s", nl && nl[1] ? nl + 1 : strerror(-r));
        return r;
}

int standby_old_jobs(time_t since, bool push, int timeout_ms, uint32_t *ret_example, struct strbuf *err) {
        struct old_jobs_call c = { .since = since, .push = push };
        return jobs_call(&c, timeout_ms, ret_example, err);
}

int standby_lacking_jobs(time_t joined, bool push, int timeout_ms, uint32_t *ret_example, struct strbuf *err) {
        struct old_jobs_call c = { .since = joined, .push = push, .lacks = true };
        return jobs_call(&c, timeout_ms, ret_example, err);
}

int standby_record_write(const struct charm_paths *p, time_t since, int n_old, uint32_t example,
        struct strbuf *err) {
        _cleanup_free_ char *line = xasprintf("%lld %d %u\n", (long long) since, n_old, example);
        return charm_state_note_write(p, STANDBY_FILE, line, true, err);
}

int standby_record_read(const struct charm_paths *p, time_t *ret_since) {
        _cleanup_free_ char *data = NULL;
        int r = charm_state_note_read(p, STANDBY_FILE, &data);
        if (r <= 0)
                return r;
        char *end = NULL;
        long long since = strtoll(data, &end, 10);
        if (end == data || *end != ' ')
                return -EINVAL;
        if (ret_since)
                *ret_since = (time_t) since;
        return 1;
}

int standby_record_clear(const struct charm_paths *p, struct strbuf *err) {
        return charm_state_note_remove(p, STANDBY_FILE, err);
}

int standby_early_write(const struct charm_paths *p, time_t when, time_t beat_time, struct strbuf *err) {
        _cleanup_free_ char *line = xasprintf("%lld %lld\n", (long long) when, (long long) beat_time);
        return charm_state_note_write(p, STANDBY_EARLY_FILE, line, false, err);
}

int standby_early_read(const struct charm_paths *p, time_t *ret_when, time_t *ret_beat_time) {
        _cleanup_free_ char *data = NULL;
        int r = charm_state_note_read(p, STANDBY_EARLY_FILE, &data);
        if (r <= 0)
                return r;
        char *end = NULL, *end2 = NULL;
        long long when = strtoll(data, &end, 10);
        if (end == data || *end != ' ')
                return -EINVAL;
        long long beat = strtoll(end + 1, &end2, 10);
        if (end2 == end + 1 || (*end2 != '\n' && *end2 != '\0'))
                return -EINVAL;
        *ret_when = (time_t) when;
        *ret_beat_time = (time_t) beat;
        return 1;
}

int standby_early_clear(const struct charm_paths *p, struct strbuf *err) {
        return charm_state_note_remove(p, STANDBY_EARLY_FILE, err);
}
