/* SPDX-License-Identifier: Apache-2.0 */
/* slurmctld's start times and the bound for a start with a candidate file (ctlstart.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ctlstart.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdlib.h>

#include "util/banned.h"

long ctl_start_worst(const long *ms, size_t n) {
        long worst = 0;
        for (size_t i = 0; i < n; i++)
                if (ms[i] > worst)
                        worst = ms[i];
        return worst;
}

int ctl_start_bound(const long *ms, size_t n, int ceiling_ms) {
        if (n == 0)
                return ceiling_ms;
        long worst = ctl_start_worst(ms, n);
        long bound = worst > (long) (ceiling_ms / CTL_START_FACTOR) ? ceiling_ms
                                                                     : worst * CTL_START_FACTOR + CTL_START_SLACK_MS;
        if (bound < CTL_START_MIN_MS)
                bound = CTL_START_MIN_MS;
        return bound > ceiling_ms ? ceiling_ms : (int) bound;
}

void ctl_start_read(const struct charm_paths *p, long ms[CTL_START_KEEP], size_t *ret_n) {
        _cleanup_free_ char *data = NULL;
        size_t n = 0;
        *ret_n = 0;
        if (charm_state_note_read(p, CTL_START_FILE, &data) <= 0)
                return;
        for (const char *s = data; *s && n < CTL_START_KEEP;) {
                char *end;
                errno = 0;
                long v = strtol(s, &end, 10);
                if (end == s || errno || v < 0 || (*end != '\n' && *end != '\0'))
                        return; /* garbled: no record */
                ms[n++] = v;
                s = *end ? end + 1 : end;
        }
        *ret_n = n;
}

int ctl_start_bound_for(const struct charm_paths *p, int ceiling_ms) {
        long ms[CTL_START_KEEP];
        size_t n;
        ctl_start_read(p, ms, &n);
        return ctl_start_bound(ms, n, ceiling_ms);
}

int ctl_start_note(const struct charm_paths *p, long ms, struct strbuf *err) {
        long old[CTL_START_KEEP];
        size_t n;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        ctl_start_read(p, old, &n);
        /* the newest last; the oldest falls out */
        for (size_t i = n + 1 > CTL_START_KEEP ? n + 1 - CTL_START_KEEP : 0; i < n; i++)
                strbuf_addf(&out, "%ld\n", old[i]);
        strbuf_addf(&out, "%ld\n", ms < 0 ? 0 : ms);
        return charm_state_note_write(p, CTL_START_FILE, out.buf, false, err);
}

bool ctl_start_getting_on(const char *log_path, off_t from) {
        return charm_log_has(log_path, from, CTL_PRIMARY_LINE) || charm_log_has(log_path, from, CTL_BACKUP_LINE);
}
