/* SPDX-License-Identifier: Apache-2.0 */
/* Fencing a returning controller: when to kill a stale slurmctld, when to let it start again,
 * and the record that holds it down meanwhile (see fence.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/fence.h"
#include "util/fileio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/banned.h"

unsigned fence_relief_from(unsigned timeout_s) {
        return timeout_s > 3 ? timeout_s - 2 : timeout_s - 1;
}

enum fence_verdict fence_judge(struct fence_watch *w, const struct fence_look *l, struct strbuf *why) {
        if (l->pid != w->pid) {
                /* another process (or none): what was known is about the old one */
                *w = (struct fence_watch){ .pid = l->pid };
        }
        if (l->overslept_usec > 0 && l->overslept_usec >= w->slept_usec) {
                w->slept_usec = l->overslept_usec;
                w->woke = l->now;
        } else if (w->slept_usec && (l->now < w->woke || l->now - w->woke > (time_t) l->timeout_s)) {
                w->slept_usec = 0; /* a freeze long ago, or the clock went back */
                w->woke = 0;
        }
        if (l->self < 0 || l->n_ctl < 2 || l->pid == 0 || !l->have_beat)
                return FENCE_KEEP;
        if (l->state != 'D')
                w->d_since = 0;
        else if (w->d_since == 0)
                w->d_since = l->now;

        const bool mine = l->beat_index == (uint64_t) l->self;
        const uint64_t t_usec = (uint64_t) l->timeout_s * 1000000ULL;
        /* the sentinel itself was frozen (the whole machine) long enough for a takeover, and
         * another controller's sentinel noted charge meanwhile */
        if (w->own_beat > 0 && l->timeout_s > 0 && w->slept_usec >= t_usec && l->have_mark && l->mark_other) {
                time_t frozen_at = w->woke - (time_t) (w->slept_usec / 1000000ULL);
                if (l->mark_time >= frozen_at) {
                        if (why)
                                strbuf_addf(why,
                                        "this machine was frozen %llu s (SlurmctldTimeout %u s) while its "
                                        "slurmctld (pid %" PRIu32 ") was in charge, and ",
                                        (unsigned long long) (w->slept_usec / 1000000ULL), l->timeout_s, l->pid);
                        if (why && l->mark_host)
                                strbuf_addf(why, "%s took charge meanwhile", l->mark_host);
                        else if (why)
                                strbuf_addf(why, "controller %ld took charge meanwhile", l->mark_index);
                        return FENCE_KILL;
                }
        }
        /* stopped or hung while in charge, its heartbeat as old as SlurmctldTimeout (less a
         * look): a backup takes over now, and a continue a moment later (before the next look)
         * would take control back with this memory: killed now, not at the backup's first beat */
        /* stopped (T) while in charge, its memory the newest yet (no backup takes over before
         * the heartbeat is older than SlurmctldTimeout): told to save it and exit (fence.h, the
         * relief), from T - 2 s on, so that two looks fall in the window */
        if (mine && w->own_beat > 0 && l->timeout_s > 1 && l->state == 'T' &&
                l->now - l->beat_time >= (time_t) fence_relief_from(l->timeout_s) &&
                l->now - l->beat_time < (time_t) l->timeout_s && l->overslept_usec < FENCE_RELIEF_LATE_USEC &&
                !(l->have_mark && l->mark_other && l->mark_time >= l->beat_time)) {
                if (why)
                        strbuf_addf(why,
                                "slurmctld (pid %" PRIu32 ") stopped while in charge, its heartbeat %lld s old "
                                "(SlurmctldTimeout %u s): told to save its state and exit before a backup "
                                "takes over",
                                l->pid, (long long) (l->now - l->beat_time), l->timeout_s);
                return FENCE_RELIEVE;
        }
        if (mine && w->own_beat > 0 && l->timeout_s > 1 && (l->state == 'T' || l->state == 't' || l->state == 'D') &&
                l->now - l->beat_time >= (time_t) l->timeout_s - 1) {
                if (why)
                        strbuf_addf(why,
                                "slurmctld (pid %" PRIu32 ") %s while in charge, its heartbeat %lld s old "
                                "(SlurmctldTimeout %u s): a backup takes over",
                                l->pid, l->state == 'D' ? "hung (state D)" : "stopped",
                                (long long) (l->now - l->beat_time), l->timeout_s);
                return FENCE_KILL;
        }
        /* took charge (its heartbeat) while another machine's sentinel noted charge less than
         * SlurmctldTimeout/2 ago: a controller that fails over legitimately does so only after
         * the one in charge was silent for SlurmctldTimeout (and a sentinel marks only a running
         * slurmctld), and a takeover is announced by this unit first; so this one took control
         * back with a memory from before (a continue between two looks, a sentinel restarted
         * after a freeze) */
        if (mine && l->timeout_s > 1 && l->have_mark && l->mark_other && !l->takeover_self &&
                l->now - l->beat_time <= (time_t) l->timeout_s && l->mark_time <= l->now &&
                l->now - l->mark_time < (time_t) l->timeout_s / 2) {
                if (why) {
                        strbuf_addf(why, "slurmctld (pid %" PRIu32 ") took charge while ", l->pid);
                        if (l->mark_host)
                                strbuf_addf(why, "%s", l->mark_host);
                        else
                                strbuf_addf(why, "controller %ld", l->mark_index);
                        strbuf_addf(why, " was in charge %lld s before", (long long) (l->now - l->mark_time));
                }
                return FENCE_KILL;
        }
        if (mine) {
                if (l->beat_time > w->own_beat)
                        w->own_beat = l->beat_time;
                return FENCE_KEEP;
        }
        if (w->own_beat == 0 || l->beat_time <= w->own_beat)
                return FENCE_KEEP; /* this process was never in charge, or the beat is old */
        /* another controller took charge after this process last wrote the heartbeat */
        if (l->state == 'T' || l->state == 't') {
                if (why)
                        strbuf_addf(why, "slurmctld (pid %" PRIu32 ") stopped while controller %" PRIu64 " took charge",
                                l->pid, l->beat_index);
                return FENCE_KILL;
        }
        if (l->state == 'D') {
                if (l->timeout_s > 0 && l->now - w->d_since >= (time_t) l->timeout_s) {
                        if (why)
                                strbuf_addf(why,
                                        "slurmctld (pid %" PRIu32 ") hung %lld s (state D) while controller %" PRIu64
                                        " took charge",
                                        l->pid, (long long) (l->now - w->d_since), l->beat_index);
                        return FENCE_KILL;
                }
                return FENCE_KEEP;
        }
        /* running: it was relieved (a failback, a takeover) and exits or is a standby now */
        w->own_beat = 0;
        return FENCE_KEEP;
}

enum fence_verdict fence_relief_judge(const struct fence_relief *r, const struct fence_look *l, struct strbuf *why) {
        if (r->pid == 0 || l->pid != r->pid)
                return FENCE_KEEP;
        long long ago = (long long) (l->now - r->since);
        const bool mine = l->have_beat && l->self >= 0 && l->beat_index == (uint64_t) l->self;
        _cleanup_free_ char *what = NULL;
        if (l->have_beat && !mine && l->beat_time >= r->since)
                what = xasprintf("still ran when controller %" PRIu64 " took charge", l->beat_index);
        else if (l->state == 'T' || l->state == 't')
                what = xstrdup("was stopped again");
        else if (mine && l->timeout_s > 1 && l->now - l->beat_time >= (time_t) l->timeout_s - 1)
                what = xasprintf("stopped writing its heartbeat (%lld s old) while it ran",
                        (long long) (l->now - l->beat_time));
        else if (ago >= (long long) fence_relief_max_s(l->timeout_s) || ago < 0)
                what = xasprintf("had not exited (at most %u s)", fence_relief_max_s(l->timeout_s));
        else
                return FENCE_KEEP;
        if (why)
                strbuf_addf(why, "slurmctld (pid %" PRIu32 "), told to save its state and exit %lld s before, %s",
                        l->pid, ago, what);
        return FENCE_KILL;
}

unsigned fence_relief_max_s(unsigned timeout_s) {
        return timeout_s < 5 ? 5 : timeout_s > 60 ? 60 : timeout_s;
}

int fence_relief_write(const struct charm_paths *p, const struct fence_relief *r, struct strbuf *err) {
        _cleanup_free_ char *line = xasprintf("%" PRIu32 " %lld %lld\n", r->pid, (long long) r->since,
                (long long) r->beat_before);
        return charm_state_note_write(p, FENCE_RELIEF_FILE, line, false, err);
}

int fence_relief_read(const struct charm_paths *p, struct fence_relief *ret) {
        _cleanup_free_ char *data = NULL;
        int r = charm_state_note_read(p, FENCE_RELIEF_FILE, &data);
        if (r <= 0)
                return r;
        unsigned long pid;
        long long since, before;
        char end;
        if (sscanf(data, "%lu %lld %lld%c", &pid, &since, &before, &end) != 4 || end != '\n' || pid == 0 ||
                pid > UINT32_MAX || since <= 0 || before < 0)
                return -EINVAL;
        *ret = (struct fence_relief){ .pid = (uint32_t) pid, .since = (time_t) since, .beat_before = (time_t) before };
        return 1;
}

int fence_relief_clear(const struct charm_paths *p, struct strbuf *err) {
        return charm_state_note_remove(p, FENCE_RELIEF_FILE, err);
}

bool fence_rewind_due(const struct fence_relief *r, bool have_beat, time_t beat_time, uint64_t beat_index, int self) {
        return r->since > 0 && r->beat_before > 0 && have_beat && self >= 0 && beat_index == (uint64_t) self &&
                beat_time >= r->since && beat_time > r->beat_before;
}

bool fence_lift_due(time_t since, bool have_beat, time_t beat_time, uint64_t beat_index, int self, time_t now,
        unsigned timeout_s, bool writer_reachable, bool peers_reachable) {
        bool other = have_beat && self >= 0 && beat_index != (uint64_t) self;
        if (other && now - beat_time <= (time_t) timeout_s)
                return writer_reachable; /* someone in charge: start once it hears the request */
        /* no other controller wrote the heartbeat lately: wait SlurmctldTimeout from the fence
         * (a takeover under way writes its first beat at once), then start, but only on a
         * machine that reaches another controller's machine: one cut off from the network that
         * still sees the shared directory would write the heartbeat and keep every reachable
         * backup in standby (found in review) */
        return peers_reachable && now - since > (time_t) timeout_s;
}

int fence_record_write(
        const struct charm_paths *p, time_t since, long in_charge, const char *why, struct strbuf *err) {
        _cleanup_free_ char *line = xasprintf("%lld %ld %s\n", (long long) since, in_charge, strempty(why));
        for (char *c = line; *c && c[1]; c++)
                if (*c == '\n')
                        *c = ' ';
        return charm_state_note_write(p, FENCE_FILE, line, false, err);
}

static int record_parse(char *data, time_t *ret_since, long *ret_in_charge, char **ret_why) {
        char *end = NULL;
        errno = 0;
        long long since = strtoll(data, &end, 10);
        if (errno || end == data || *end != ' ')
                return -EINVAL;
        char *p2 = end + 1;
        long in_charge = strtol(p2, &end, 10);
        if (end == p2 || *end != ' ')
                return -EINVAL;
        char *why = end + 1;
        why[strcspn(why, "\n")] = '\0';
        if (ret_since)
                *ret_since = (time_t) since;
        if (ret_in_charge)
                *ret_in_charge = in_charge;
        if (ret_why)
                *ret_why = xstrdup(why);
        return 1;
}

int fence_record_read(const struct charm_paths *p, time_t *ret_since, long *ret_in_charge, char **ret_why) {
        _cleanup_free_ char *data = NULL;
        int r = charm_state_note_read(p, FENCE_FILE, &data);
        if (r <= 0)
                return r;
        return record_parse(data, ret_since, ret_in_charge, ret_why);
}

int fence_record_clear(const struct charm_paths *p, struct strbuf *err) {
        _cleanup_free_ char *data = NULL;
        /* the copy is best-effort: a lift that cannot keep it still lifts (a fence that could
         * never be lifted would keep the unit down for good, the admin's resume too) */
        if (charm_state_note_read(p, FENCE_FILE, &data) > 0) {
                _cleanup_strbuf_ struct strbuf ignored = STRBUF_INIT;
                (void) charm_state_note_write(p, FENCE_LAST_FILE, data, false, &ignored);
        }
        return charm_state_note_remove(p, FENCE_FILE, err);
}

int fence_since(const struct charm_paths *p, time_t from, char **ret_why) {
        time_t since = 0;
        _cleanup_free_ char *why = NULL, *data = NULL;
        int r = fence_record_read(p, &since, NULL, &why);
        if (r != 0) {
                /* there now (unreadable counts as a fence, as for every caller) */
                if (ret_why)
                        *ret_why = why ? TAKE_PTR(why) : xstrdup("unreadable fence record");
                return 1;
        }
        if (charm_state_note_read(p, FENCE_LAST_FILE, &data) <= 0 ||
                record_parse(data, &since, NULL, &why) <= 0 || since < from)
                return 0;
        if (ret_why)
                *ret_why = xasprintf("%s (lifted since)", why);
        return 1;
}
