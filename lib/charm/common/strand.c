/* SPDX-License-Identifier: Apache-2.0 */
/* No job stranded by a departure: hold at the departure, name in the controller's status,
 * cancel in destroy-jobs. See strand.h. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/strand.h"

#include "charm/common/charm.h"
#include "slurm/nodes.h"
#include "slurm/stranded.h"

#include "util/banned.h"

char *strand_why(const char *node, const char *unit) {
        return xasprintf("requires node %s, which left the cluster%s%s: cancel this job, or set its "
                         "ReqNodeList and release it",
                node, unit ? " with unit " : "", strempty(unit));
}

/* The placeholders of departed nodes that unfinished jobs require (slurm/stranded.h): the
 * missing ones created, but never one of a node whose unit is still present (a node-config's or
 * an admin's deletion: that unit's slurmd registers again and would take the record over); with
 * prune, the ones no job requires deleted. What was done goes to done; failures to failed, with
 * what follows from each ("; "-separated). */
static void placeholders(const struct slurm_stranded *s, const struct strv *present, const char *only, bool prune,
        struct strbuf *done, struct strbuf *failed) {
        _cleanup_strv_ struct strv create = STRV_INIT, drop = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        slurm_stranded_placeholder_plan(s, &create, &drop);
        for (size_t i = 0; i < create.n; i++) {
                if ((present && strv_contains(present, create.v[i])) || (only && !streq(only, create.v[i])))
                        continue;
                _cleanup_(slurm_stranded_report_done) struct slurm_stranded_report rep =
                        SLURM_STRANDED_REPORT_INIT;
                strbuf_reset(&e);
                int r = slurm_stranded_placeholder_create(create.v[i], &rep, &e);
                if (rep.resv_shrunk.n || rep.resv_deleted.n) {
                        _cleanup_free_ char *sh = strv_join(&rep.resv_shrunk, ","),
                                            *dl = strv_join(&rep.resv_deleted, ",");
                        strbuf_addf(done, "%snode %s taken out of reservation(s) %s%s%s", done->len ? ", " : "",
                                create.v[i], sh, rep.resv_shrunk.n && rep.resv_deleted.n ? "," : "", dl);
                        if (rep.resv_deleted.n)
                                strbuf_addf(done, " (deleted, left empty: %s)", dl);
                }
                if (r < 0)
                        strbuf_addf(failed,
                                "%sno placeholder of departed node %s (%s): at slurmctld's next reconfigure or "
                                "restart the jobs that require it fail",
                                failed->len ? "; " : "", create.v[i], e.buf);
                else
                        strbuf_addf(done, "%splaceholder %s created", done->len ? ", " : "", create.v[i]);
        }
        for (size_t i = 0; prune && i < drop.n; i++) {
                strbuf_reset(&e);
                int r = slurm_node_delete(drop.v[i], &e);
                if (r < 0 && r != -ENOENT)
                        strbuf_addf(failed, "%splaceholder of departed node %s not deleted (%s)",
                                failed->len ? "; " : "", drop.v[i], e.buf);
                else
                        strbuf_addf(done, "%splaceholder %s deleted", done->len ? ", " : "", drop.v[i]);
        }
}

void strand_placeholders_ensure(const struct strv *present) {
        _cleanup_(slurm_stranded_done) struct slurm_stranded s = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, done = STRBUF_INIT, failed = STRBUF_INIT;
        if (slurm_stranded_find(NULL, &s, &e) >= 0)
                placeholders(&s, present, NULL, false, &done, &failed);
}

void strand_departure(struct juju_ctx *ctx, const char *unit, const char *node, bool resvs) {
        _cleanup_(slurm_stranded_done) struct slurm_stranded s = { 0 };
        _cleanup_(slurm_stranded_report_done) struct slurm_stranded_report rep = SLURM_STRANDED_REPORT_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, what = STRBUF_INIT;
        _cleanup_free_ char *why = strand_why(node, unit);
        _cleanup_strv_ struct strv leaving = STRV_INIT;
        strv_push(&leaving, node);

        if (slurm_stranded_find(&leaving, &s, &e) < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s leaving: cannot look for pending jobs that require it: %s", node, e.buf);
                return;
        }
        for (size_t i = 0; resvs && i < s.n_resvs; i++)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s leaving: reservation %s names it; Slurm %s with the node", node,
                        s.resvs[i].name,
                        s.resvs[i].only_node ? "deletes the reservation (its only node)"
                                             : "takes the node out of it");
        /* after the deletion: the node's placeholder, before any reconfigure or restart of
         * slurmctld fails the jobs that require it (held ones too) */
        if (!resvs) {
                _cleanup_strbuf_ struct strbuf done = STRBUF_INIT, failed = STRBUF_INIT;
                placeholders(&s, NULL, node, false, &done, &failed);
                if (done.len || failed.len)
                        (void) juju_logf(ctx, failed.len ? JUJU_LOG_WARNING : JUJU_LOG_INFO, NULL,
                                "node %s left: jobs require it: %s%s%s (slurmctld fails a job that requires a "
                                "node it does not know at its next reconfigure or restart)",
                                node, done.len ? done.buf : "", done.len && failed.len ? "; " : "",
                                failed.buf ? failed.buf : "");
        }
        /* the ones held already (by this departure's first look, by their user) stay as they are */
        size_t k = 0;
        for (size_t i = 0; i < s.n_jobs; i++) {
                if (s.jobs[i].held) {
                        free(s.jobs[i].node);
                        continue;
                }
                s.jobs[k++] = s.jobs[i];
        }
        s.n_jobs = k;
        if (s.n_jobs == 0)
                return;
        slurm_stranded_describe_jobs(&s, &what);
        int n_failed = slurm_stranded_act(&s, SLURM_STRANDED_HOLD, node, why, &rep, &e);
        if (n_failed < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node %s leaving: %s: holding them: %s", node,
                        what.buf, e.buf);
                return;
        }
        _cleanup_free_ char *held = charm_join_ids(rep.done, rep.n_done);
        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                "node %s leaving: %s: held (%s) with the admin comment \"%s\"%s%s", node, what.buf,
                isempty(held) ? "none" : held, why, n_failed ? "; " : "", n_failed ? e.buf : "");
}

int strand_jobs_naming(const char *node, struct strbuf *ids, struct strbuf *err) {
        _cleanup_(slurm_stranded_done) struct slurm_stranded s = { 0 };
        _cleanup_strv_ struct strv leaving = STRV_INIT;
        strv_push(&leaving, node);
        int r = slurm_stranded_find(&leaving, &s, err);
        if (r < 0)
                return r;
        if (!strv_contains(&s.required, node))
                return 0;
        for (size_t i = 0, n = 0; ids && i < s.n_jobs; i++)
                if (streq(s.jobs[i].node, node))
                        strbuf_addf(ids, "%s%u", n++ ? ", " : "", s.jobs[i].id);
        return 1;
}

int strand_keep_record(struct juju_ctx *ctx, const char *node, int timeout_ms) {
        _cleanup_(slurm_stranded_report_done) struct slurm_stranded_report rep = SLURM_STRANDED_REPORT_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = strand_jobs_naming(node, NULL, &e);
        if (r < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s leaving: cannot tell whether jobs require it (%s): deleted, then its "
                        "placeholder made if they do",
                        node, e.buf);
                return r;
        }
        if (r == 0)
                return 0;
        int64_t deadline = slurm_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
        int delay = SLURM_POLL_FIRST_MS;
        do {
                strbuf_reset(&e);
                r = slurm_stranded_placeholder_keep(node, &rep, &e);
        } while ((r == -ECONNREFUSED || r == -ETIMEDOUT) && slurm_poll_sleep(&delay, deadline));
        if (r < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s leaving: jobs require it, but its record could not be kept as its "
                        "placeholder (%s): deleted, then a placeholder made",
                        node, e.buf);
                return r;
        }
        _cleanup_free_ char *sh = strv_join(&rep.resv_shrunk, ","), *dl = strv_join(&rep.resv_deleted, ",");
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                "node %s left: unfinished jobs require it, so its record stays as its placeholder "
                "(State=FUTURE, never given a job; deleted by the controller once no job requires it)%s%s%s%s",
                node, rep.resv_shrunk.n ? "; taken out of reservation(s) " : "", sh,
                rep.resv_deleted.n ? "; reservation(s) left empty and deleted: " : "", dl);
        return 1;
}

/* The jobs of s whose node is (leaving) or is not (!leaving) one of nodes (may be NULL): a view,
 * owning nothing. */
static struct slurm_stranded pick(const struct slurm_stranded *s, const struct strv *nodes, bool leaving) {
        struct slurm_stranded v = { .jobs = xcalloc(s->n_jobs ? s->n_jobs : 1, sizeof(*v.jobs)) };
        for (size_t i = 0; i < s->n_jobs; i++)
                if ((nodes && strv_contains(nodes, s->jobs[i].node)) == leaving)
                        v.jobs[v.n_jobs++] = s->jobs[i];
        return v;
}

void strand_status_note(const struct strv *leaving, bool hold, const struct strv *present, struct strbuf *note) {
        _cleanup_(slurm_stranded_done) struct slurm_stranded s = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int n = slurm_stranded_find(leaving, &s, &e);
        if (n < 0)
                return;
        if (hold) {
                /* the leader: placeholders for the nodes they require (a forced removal, a
                 * departure whose creation failed), none left once no job requires the node */
                _cleanup_strbuf_ struct strbuf done = STRBUF_INIT, pfailed = STRBUF_INIT;
                placeholders(&s, present, NULL, true, &done, &pfailed);
                if (pfailed.len)
                        strbuf_addf(note, "; %s", pfailed.buf);
        }
        if (n == 0)
                return;
        struct slurm_stranded going = pick(&s, leaving, true), gone = pick(&s, leaving, false);
        _cleanup_strbuf_ struct strbuf failed = STRBUF_INIT;
        for (size_t i = 0; hold && i < gone.n_jobs; i++) {
                /* the departing unit holds the leaving node's jobs when it deletes the node */
                _cleanup_(slurm_stranded_report_done) struct slurm_stranded_report rep =
                        SLURM_STRANDED_REPORT_INIT;
                struct slurm_stranded one = { .jobs = &gone.jobs[i], .n_jobs = 1 };
                _cleanup_free_ char *why = strand_why(gone.jobs[i].node, NULL);
                /* (nor a node whose unit is still related: deleted for a moment by node-config
                 * or an admin, its slurmd registers again) */
                if (gone.jobs[i].held || (present && strv_contains(present, gone.jobs[i].node)))
                        continue;
                strbuf_reset(&e);
                if (slurm_stranded_act(&one, SLURM_STRANDED_HOLD, gone.jobs[i].node, why, &rep, &e) != 0)
                        strbuf_addf(&failed, "%s%s", failed.len ? "; " : "", e.buf);
        }
        if (going.n_jobs) {
                strbuf_addstr(note, "; ");
                slurm_stranded_describe_jobs(&going, note);
                strbuf_addstr(note, ", which is leaving");
        }
        if (gone.n_jobs) {
                strbuf_addstr(note, "; ");
                slurm_stranded_describe_jobs(&gone, note);
                strbuf_addstr(note, ", which left: scancel them, or set ReqNodeList and release them");
        }
        if (failed.len)
                strbuf_addf(note, " (not held: %s)", failed.buf);
        free(going.jobs);
        free(gone.jobs);
}

int strand_destroy(const char *unit, const char *node, struct strv *kv, struct strbuf *err) {
        _cleanup_(slurm_stranded_done) struct slurm_stranded s = { 0 };
        _cleanup_(slurm_stranded_report_done) struct slurm_stranded_report rep = SLURM_STRANDED_REPORT_INIT;
        _cleanup_free_ char *why = strand_why(node, unit);
        _cleanup_strv_ struct strv leaving = STRV_INIT;
        strv_push(&leaving, node);
        int r = slurm_stranded_find(&leaving, &s, err);
        if (r < 0)
                return r;
        /* only the jobs that need this node: a job stranded by another departure is not ours */
        size_t k = 0;
        for (size_t i = 0; i < s.n_jobs; i++) {
                if (!streq(s.jobs[i].node, node)) {
                        free(s.jobs[i].node);
                        continue;
                }
                s.jobs[k++] = s.jobs[i];
        }
        s.n_jobs = k;
        int n_failed = slurm_stranded_act(&s, SLURM_STRANDED_CANCEL, node, why, &rep, err);
        if (n_failed < 0)
                return n_failed;
        strv_push(kv, "stranded-cancelled");
        strv_push_take(kv, charm_join_ids(rep.done, rep.n_done));
        strv_push(kv, "reservations-shrunk");
        strv_push_take(kv, strv_join(&rep.resv_shrunk, ","));
        strv_push(kv, "reservations-deleted");
        strv_push_take(kv, strv_join(&rep.resv_deleted, ","));
        return n_failed;
}

bool strand_foreign_record(const char *record_features) {
        return slurm_stranded_placeholder_feature(record_features);
}
