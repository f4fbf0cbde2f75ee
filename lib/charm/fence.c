/* SPDX-License-Identifier: Apache-2.0 */
/* Fencing a returning controller: when to kill a stale slurmctld, when to let it start again,
 * and the record that holds it down meanwhile (see fence.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/fence.h"
#include "util/fileio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/banned.h"

enum fence_verdict fence_judge(struct fence_watch *w, const struct fence_look *l, struct strbuf *why) {
        if (l->pid != w->pid) {
                /* another process (or none): what was known is about the old one */
                *w = (struct fence_watch){ .pid = l->pid };
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
        if (w->own_beat > 0 && l->timeout_s > 0 && l->overslept_usec >= t_usec && l->have_mark &&
                l->mark_index != (long) l->self) {
                time_t frozen_at = l->now - (time_t) (l->overslept_usec / 1000000ULL);
                if (l->mark_time >= frozen_at) {
                        if (why)
                                strbuf_addf(why,
                                        "this machine was frozen %llu s (SlurmctldTimeout %u s) while its "
                                        "slurmctld (pid %" PRIu32 ") was in charge, and controller %ld took charge "
                                        "meanwhile",
                                        (unsigned long long) (l->overslept_usec / 1000000ULL), l->timeout_s, l->pid,
                                        l->mark_index);
                        return FENCE_KILL;
                }
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

bool fence_lift_due(time_t since, bool have_beat, time_t beat_time, uint64_t beat_index, int self, time_t now,
        unsigned timeout_s, bool writer_reachable) {
        bool other = have_beat && self >= 0 && beat_index != (uint64_t) self;
        if (other && now - beat_time <= (time_t) timeout_s)
                return writer_reachable; /* someone in charge: start once it hears the request */
        /* no other controller wrote the heartbeat lately: wait SlurmctldTimeout from the fence
         * (a takeover under way writes its first beat at once), then start */
        return now - since > (time_t) timeout_s;
}

static char *record_path(const struct charm_paths *p) {
        return charm_path(p, CHARM_PATH_STATE_DIR "/" FENCE_FILE);
}

int fence_record_write(
        const struct charm_paths *p, time_t since, long in_charge, const char *why, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR), *path = record_path(p);
        _cleanup_free_ char *line = xasprintf("%lld %ld %s\n", (long long) since, in_charge, strempty(why));
        for (char *c = line; *c && c[1]; c++)
                if (*c == '\n')
                        *c = ' ';
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic(path, line, strlen(line), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int fence_record_read(const struct charm_paths *p, time_t *ret_since, long *ret_in_charge, char **ret_why) {
        _cleanup_free_ char *path = record_path(p), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
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

int fence_record_clear(const struct charm_paths *p, struct strbuf *err) {
        _cleanup_free_ char *path = record_path(p);
        if (unlink(path) < 0 && errno != ENOENT) {
                int r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(errno));
                return r;
        }
        return 0;
}
