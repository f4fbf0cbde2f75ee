/* SPDX-License-Identifier: Apache-2.0 */
/* The compute units' own actions into the node event log (unitacts.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/unitacts.h"

#include <stdlib.h>
#include <time.h>

#include "charm/slurmctld/events.h"
#include "charm/slurmctld/nodeevents.h"
#include "interfaces/nodeactions.h"

#include "util/banned.h"

/* The file's lines (empty ones left out). */
static void seen_lines(const char *data, struct strv *ret) {
        for (const char *p = data; p && *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t) (nl - p) : strlen(p);
                if (len > 0)
                        strv_push_take(ret, xstrndup(p, len));
                p = nl ? nl + 1 : NULL;
        }
}

uint64_t unitacts_seen_get(const char *data, const char *unit, const char *log) {
        _cleanup_strv_ struct strv l = STRV_INIT;
        seen_lines(data, &l);
        return ev_noted_get(&l, unit, log);
}

char *unitacts_seen_set(const char *data, const char *unit, const char *log, uint64_t seq) {
        _cleanup_strv_ struct strv l = STRV_INIT;
        seen_lines(data, &l);
        ev_noted_set(&l, unit, log, seq, UNITACTS_SEEN_MAX);
        _cleanup_free_ char *joined = strv_join(&l, "\n");
        return xasprintf("%s\n", joined);
}

int unitacts_take(struct juju_ctx *ctx, const struct charm_paths *paths, const char *rel, const char *unit,
        struct strbuf *err) {
        const char *json = NULL;
        _cleanup_(node_actions_done) struct node_actions a = { 0 };
        int r = juju_relation_get_value(ctx, rel, unit, NODE_ACTIONS_KEY, &json, err);
        if (r < 0)
                return r;
        r = node_actions_decode(json, &a, err);
        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        if (a.n == 0)
                return 0;
        /* a unit speaks for its own node only (a hostile unit put another node's, or the
         * controller's host, in its list: attack of stop 62, F2) */
        _cleanup_free_ char *own = charm_node_name(unit);
        for (size_t i = 0; i < a.n; i++)
                if (!streq(a.v[i].node, own)) {
                        strbuf_addf(err, NODE_ACTIONS_KEY ": record %zu names node %s, not %s's own (%s): nothing recorded",
                                i + 1, a.v[i].node, unit, own);
                        return -EINVAL;
                }
        _cleanup_free_ char *seen = NULL;
        (void) charm_state_note_read(paths, UNITACTS_SEEN_FILE, &seen);
        uint64_t newest = a.v[a.n - 1].seq, floor = unitacts_seen_get(seen, unit, a.log);
        if (floor >= newest)
                return 0;
        r = nodeevents_note_unit_actions(paths, unit, &a, floor, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *next = unitacts_seen_set(seen, unit, a.log, newest);
        (void) charm_state_note_write(paths, UNITACTS_SEEN_FILE, next, true, NULL);
        return r;
}

void unitacts_sweep(struct juju_ctx *ctx, const struct charm_paths *paths, const struct strv *rels, bool force) {
        _cleanup_free_ char *last = NULL;
        time_t now = time(NULL);
        if (!force && charm_state_note_read(paths, UNITACTS_SWEPT_FILE, &last) > 0) {
                long long t = strtoll(last, NULL, 10);
                if (t > 0 && t <= (long long) now && now - t < UNITACTS_SWEEP_EVERY_S)
                        return;
        }
        _cleanup_free_ char *stamp = xasprintf("%lld\n", (long long) now);
        (void) charm_state_note_write(paths, UNITACTS_SWEPT_FILE, stamp, false, NULL);
        for (size_t i = 0; i < rels->n; i++) {
                _cleanup_strv_ struct strv units = STRV_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (juju_relation_list(ctx, rels->v[i], &units, &e) < 0) {
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node actions: %s", e.buf);
                        continue;
                }
                for (size_t k = 0; k < units.n; k++) {
                        strbuf_reset(&e);
                        if (unitacts_take(ctx, paths, rels->v[i], units.v[k], &e) < 0)
                                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node actions of %s: %s",
                                        units.v[k], e.buf);
                }
        }
}
