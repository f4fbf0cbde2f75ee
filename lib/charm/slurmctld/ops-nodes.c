/* SPDX-License-Identifier: Apache-2.0 */
/* The operator actions that change nodes: node-drain, node-down (and what became of the jobs
 * it killed), node-resume (only DOWN/DRAIN/FAIL nodes), node-update (put back on failure). */
#include "util/macro.h"
#include "charm/slurmctld/ops.h"

#include "charm/slurmctld/ops-internal.h"
#include "charm/common/charm.h"
#include "slurmconf/grescount.h"
#include "slurm/jobquery.h"
#include "slurm/nodestate.h"
#include "util/alloc.h"

#include <inttypes.h>

#include "util/banned.h"

#define DOWN_WARNING                                                                                 \
        "node-down kills the jobs running on these nodes (Slurm requeues the batch jobs that allow " \
        "requeueing); node-drain lets them finish"

/* Reloads the node table after a change; the result then shows the new states. */
static int reload(struct ops_nodes *nodes, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct slurm_node_list fresh = { 0 };
        int r = slurm_node_list(NULL, &fresh, &e);
        if (r < 0) {
                strbuf_addf(err, "the change was made, but reading the nodes back failed: %s", e.buf);
                return r;
        }
        slurm_node_list_done(&nodes->table);
        nodes->table = fresh;
        return 0;
}

/* After a RESUME slurmctld 22.05 pings the nodes and shows them NOT_RESPONDING until they
 * answer (~1 s on loopback): the table is read again until every resumed node is registered,
 * at most OPS_RESUME_WAIT_MS, so the result shows where they landed. */
#define OPS_RESUME_WAIT_MS 5000
static int wait_responding(struct ops_nodes *nodes, const struct strv *names, struct strbuf *err) {
        int64_t deadline = slurm_now_ms() + OPS_RESUME_WAIT_MS;
        int delay = SLURM_POLL_FIRST_MS;
        for (;;) {
                bool all = true;
                int r = reload(nodes, err);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < names->n && all; i++) {
                        const struct slurm_node *n = ops_table_find(&nodes->table, names->v[i]);
                        all = !n || slurm_state_registered(n->state);
                }
                if (all || !slurm_poll_sleep(&delay, deadline))
                        return 0;
        }
}

/* nodes.<n>.{name, state, reason, previous-state, previous-reason} for each node of list. */
static void state_results(const struct ops_nodes *nodes, const struct slurm_node_list *before,
        char *const *list, struct strv *kv) {
        for (size_t i = 0; list && list[i]; i++) {
                const struct slurm_node *now = ops_table_find(&nodes->table, list[i]);
                const struct slurm_node *was = ops_table_find(before, list[i]);
                if (now)
                        ops_node_state_fields(now, false, kv);
                if (was)
                        ops_node_state_fields(was, true, kv);
        }
}

/* key: the names as a hostlist expression; "none" for an empty list, or left out when
 * omit_empty. */
static void list_result(struct strv *kv, const char *key, const struct strv *names, bool omit_empty) {
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        if (!names->n && omit_empty)
                return;
        ops_hostlist(names->v, &sb);
        ops_kv(kv, names->n ? sb.buf : "none", "%s", key);
}

/* A copy of the node table's nodes (the state before a change). */
static void table_copy(const struct slurm_node_list *from, struct slurm_node_list *to) {
        *to = (struct slurm_node_list){ .v = xcalloc(from->n ? from->n : 1, sizeof(struct slurm_node)) };
        for (size_t i = 0; i < from->n; i++) {
                const struct slurm_node *n = &from->v[i];
                to->v[to->n++] = (struct slurm_node){
                        .name = xstrdup(n->name),
                        .state = n->state,
                        .reason = n->reason ? xstrdup(n->reason) : NULL,
                        .cpus = n->cpus,
                        .alloc_cpus = n->alloc_cpus,
                };
        }
}

/* --- drain, down ---------------------------------------------------------------------------------- */

static int drain_or_down(struct juju_ctx *ctx, enum ops_node_action action, struct strbuf *err) {
        _cleanup_(ops_node_req_done) struct ops_node_req req = { .names = STRV_INIT };
        _cleanup_(ops_nodes_done) struct ops_nodes nodes = { .nodes = STRV_INIT, .missing = STRV_INIT };
        _cleanup_(slurm_node_list_done) struct slurm_node_list before = { 0 };
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 }, after = { 0 };
        _cleanup_strbuf_ struct strbuf expr = STRBUF_INIT, e = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT, missing = STRV_INIT, killed = STRV_INIT,
                                   requeued = STRV_INIT, running = STRV_INIT;
        _cleanup_free_ struct slurm_jobid *ids = NULL;
        int r = ops_nodes_prepare(ctx, action, true, &req, &nodes, err);
        if (r < 0)
                return r;
        ops_hostlist(nodes.nodes.v, &expr);
        if (action == OPS_NODE_DOWN) {
                /* the jobs running on the nodes now, to say what became of them */
                char *states[] = { (char *) "RUNNING", (char *) "SUSPENDED", NULL };
                const struct slurm_job_filter f = { .nodes = nodes.nodes.v, .states = states };
                r = slurm_jobs_find(&f, &jobs, &e);
                if (r < 0)
                        return ops_slurm_failed(r, &e, true, err);
        }
        table_copy(&nodes.table, &before);
        /* node-down drains first: with ReturnToService=2 (the charm's template) a DOWN node is
         * back in service at its next registration, seconds later; DOWN+DRAIN registers as
         * IDLE+DRAIN and takes no job until node-resume (as default-node-state=down does) */
        r = slurm_node_drain(expr.buf, req.reason, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, true, err);
        if (action == OPS_NODE_DOWN) {
                r = slurm_node_down(expr.buf, req.reason, &e);
                if (r < 0) {
                        if (r == -ECONNREFUSED || r == -ETIMEDOUT)
                                strbuf_addf(err, "slurmctld does not answer (%s)", e.buf);
                        else
                                strbuf_addbuf(err, &e);
                        strbuf_addf(err,
                                ": the nodes are drained (reason \"%s\"), not down; no job was killed",
                                req.reason);
                        return r;
                }
        }
        r = reload(&nodes, err);
        if (r < 0)
                return r;
        state_results(&nodes, &before, nodes.nodes.v, &kv);
        list_result(&kv, "changed", &nodes.nodes, false);
        ops_note(ctx, ops_node_action_name(action), &nodes.nodes, req.reason, NULL, &kv);
        if (action == OPS_NODE_DRAIN)
                return ops_result_set(ctx, &kv, err);

        ops_kv(&kv, DOWN_WARNING, "warning");
        ops_kv(&kv, "the nodes stay drained after they register again, until node-resume", "note");
        ids = xcalloc(jobs.n ? jobs.n : 1, sizeof(*ids));
        for (size_t i = 0; i < jobs.n; i++)
                ids[i] = (struct slurm_jobid){ .id = jobs.v[i].job_id };
        if (jobs.n) {
                strbuf_reset(&e);
                r = slurm_jobs_get(ids, jobs.n, &after, &missing, &e);
                if (r < 0) {
                        strbuf_addf(err, "nodes set down, but reading their jobs back failed: %s", e.buf);
                        return r;
                }
        }
        for (size_t i = 0; i < jobs.n; i++) {
                const struct slurm_jobinfo *was = &jobs.v[i], *now = NULL;
                const char *outcome;
                for (size_t k = 0; k < after.n && !now; k++)
                        if (after.v[k].job_id == was->job_id)
                                now = &after.v[k];
                _cleanup_free_ char *ended = NULL;
                if (now && slurm_job_state_is(now->state, "PENDING")) {
                        outcome = "requeued";
                        strv_push(&requeued, was->display_id);
                } else if (now &&
                        (slurm_job_state_is(now->state, "RUNNING") ||
                                slurm_job_state_is(now->state, "SUSPENDED"))) {
                        outcome = "running on its other nodes";
                        strv_push(&running, was->display_id);
                } else if (!now || slurm_job_state_is(now->state, "NODE_FAIL")) {
                        outcome = "killed";
                        strv_push(&killed, was->display_id);
                } else {
                        /* it ended by itself between the listing and the down */
                        outcome = ended = xasprintf("ended (%s)", slurm_job_state_name(now->state));
                }
                ops_kv(&kv, was->display_id, "jobs.%u.job-id", was->job_id);
                ops_kv(&kv, was->user, "jobs.%u.user", was->job_id);
                if (was->name)
                        ops_kv(&kv, was->name, "jobs.%u.name", was->job_id);
                ops_kv(&kv, was->nodes, "jobs.%u.nodes", was->job_id);
                ops_kv(&kv, outcome, "jobs.%u.outcome", was->job_id);
                if (now)
                        ops_kv(&kv, slurm_job_state_name(now->state), "jobs.%u.state", was->job_id);
        }
        {
                _cleanup_free_ char *k = strv_join(&killed, ","), *q = strv_join(&requeued, ","),
                                    *o = strv_join(&running, ",");
                ops_kv(&kv, killed.n ? k : "none", "jobs-killed");
                ops_kv(&kv, requeued.n ? q : "none", "jobs-requeued");
                if (running.n)
                        ops_kv(&kv, o, "jobs-running-elsewhere");
        }
        return ops_result_set(ctx, &kv, err);
}

static int node_drain(struct juju_ctx *ctx, struct strbuf *err) {
        return drain_or_down(ctx, OPS_NODE_DRAIN, err);
}

static int node_down(struct juju_ctx *ctx, struct strbuf *err) {
        return drain_or_down(ctx, OPS_NODE_DOWN, err);
}

int ops_node_drain(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-drain", node_drain, err);
}

int ops_node_down(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-down", node_down, err);
}

/* --- resume ----------------------------------------------------------------------------------------- */

static int node_resume(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(ops_node_req_done) struct ops_node_req req = { .names = STRV_INIT };
        _cleanup_(ops_nodes_done) struct ops_nodes nodes = { .nodes = STRV_INIT, .missing = STRV_INIT };
        _cleanup_(slurm_node_list_done) struct slurm_node_list before = { 0 };
        _cleanup_strbuf_ struct strbuf expr = STRBUF_INIT, e = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT, resume = STRV_INIT, unchanged = STRV_INIT;
        int r = ops_nodes_prepare(ctx, OPS_NODE_RESUME, true, &req, &nodes, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < nodes.nodes.n; i++) {
                const struct slurm_node *n = ops_table_find(&nodes.table, nodes.nodes.v[i]);
                /* a departure's drain: resumed, the node takes new jobs while its unit waits to
                 * delete it (possibly with theirs still running: drain-timeout, destroy-jobs);
                 * under Juju the action runs beside the departure (issue 28) */
                if (charm_reason_is_leaving(n->reason)) {
                        strbuf_addf(err,
                                "node %s is drained for its departure (\"%s\"): resuming it would give new jobs "
                                "to a node about to be deleted; nothing changed",
                                n->name, n->reason);
                        return -EBUSY;
                }
                if (slurm_state_drain(n->state) != SLURM_DRAIN_NONE || slurm_state_down(n->state))
                        strv_push(&resume, n->name);
                else
                        strv_push(&unchanged, n->name);
        }
        table_copy(&nodes.table, &before);
        if (resume.n) {
                ops_hostlist(resume.v, &expr);
                r = slurm_node_resume(expr.buf, &e);
                if (r < 0)
                        return ops_slurm_failed(r, &e, true, err);
                r = wait_responding(&nodes, &resume, err);
                if (r < 0)
                        return r;
        }
        state_results(&nodes, &before, resume.v, &kv);
        for (size_t i = 0; i < unchanged.n; i++) {
                const struct slurm_node *n = ops_table_find(&nodes.table, unchanged.v[i]);
                _cleanup_strbuf_ struct strbuf key = STRBUF_INIT;
                if (!n)
                        continue;
                ops_node_state_fields(n, false, &kv);
                strbuf_addstr(&key, "nodes.");
                ops_key_segment(n->name, &key);
                ops_kv(&kv, "unchanged: neither down, drained nor failed", "%s.note", key.buf);
        }
        list_result(&kv, "changed", &resume, false);
        list_result(&kv, "unchanged", &unchanged, true);
        ops_note(ctx, "node-resume", &resume, NULL, NULL, &kv);
        return ops_result_set(ctx, &kv, err);
}

int ops_node_resume(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-resume", node_resume, err);
}

/* --- update --------------------------------------------------------------------------------------- */

/* What one node gets, and what it had (for putting it back). */
struct node_change {
        const char *name;                 /* borrowed from the request's node list */
        char *features, *features_active; /* new values (app features kept); NULL: not changed */
        char *kept;                       /* app features added back to the admin's list; NULL: none */
        char *old_features, *old_active, *old_gres, *old_comment;
        uint32_t old_weight;
};

static void node_change_done(struct node_change *c) {
        free(c->features);
        free(c->features_active);
        free(c->kept);
        free(c->old_features);
        free(c->old_active);
        free(c->old_gres);
        free(c->old_comment);
}

/* The NodeSet (application) whose node this is by name ("cpu" for "cpu-3": the charm names a
 * compute unit's node <application>-<unit number>), or NULL. */
static const char *own_nodeset(const char *name, const struct slurm_node_list *table) {
        for (size_t i = 0; table->nodesets && table->nodesets[i]; i++) {
                const char *s = table->nodesets[i];
                size_t n = strlen(s);
                if (strncmp(name, s, n) == 0 && name[n] == '-' && name[n + 1] &&
                        strspn(name + n + 1, "0123456789") == strlen(name + n + 1))
                        return s;
        }
        return NULL;
}

/* -EPERM when features names another application's NodeSet feature (the node would join that
 * application's partition, issue 26). */
static int foreign_features(const char *features, const char *name, const struct slurm_node_list *table,
        const char *apps, struct strbuf *err) {
        const char *own = own_nodeset(name, table);
        for (size_t i = 0; table->nodesets && table->nodesets[i]; i++) {
                const char *s = table->nodesets[i];
                if (streq_ptr(s, own) || (!own && ops_features_subset(s, apps)) || !ops_features_subset(s, features))
                        continue;
                strbuf_addf(err,
                        "features: \"%s\" is the feature by which partition nodes of another application are "
                        "chosen (NodeSet=%s): node \"%s\" stays in its own application's partition",
                        s, s, name);
                return -EPERM;
        }
        return 0;
}

int ops_gres_claims_check(const char *node, const char *requested, const char *current, struct strbuf *err) {
        _cleanup_(gres_counts_done) struct gres_counts want = GRES_COUNTS_INIT, have = GRES_COUNTS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (gres_counts_parse(requested, &want, &e) < 0) {
                strbuf_addf(err, "gres: %s", e.buf);
                return -EINVAL;
        }
        /* an unreadable record proves nothing */
        (void) gres_counts_parse(current, &have, &e);
        const char *how = "node-update lowers or keeps a node's GRES as it registered; a GRES the node has is set "
                          "with node-config on its slurmd unit, whose registration proves it; nothing changed";
        for (size_t i = 0; i < want.n; i++) {
                const struct gres_count *w = &want.v[i];
                uint64_t total = gres_counts_get(&want, w->name), proven = gres_counts_get(&have, w->name);
                if (w->no_consume && !gres_counts_no_consume(&have, w->name)) {
                        strbuf_addf(err,
                                "gres: node \"%s\" would share its %s among any number of jobs (no_consume), "
                                "which its record does not (\"%s\"): %s",
                                node, w->name, strempty(current), how);
                        return -EPERM;
                }
                if (w->type && w->total > gres_counts_get_type(&have, w->name, w->type)) {
                        strbuf_addf(err,
                                "gres: node \"%s\" would have %" PRIu64 " %s of type %s, and it has proven %" PRIu64
                                " (its record: \"%s\"): %s",
                                node, w->total, w->name, w->type, gres_counts_get_type(&have, w->name, w->type),
                                strempty(current), how);
                        return -EPERM;
                }
                if (total > proven) {
                        strbuf_addf(err,
                                "gres: node \"%s\" would have %" PRIu64 " %s, and it has proven %" PRIu64
                                " (its record: \"%s\"): %s",
                                node, total, w->name, proven, strempty(current), how);
                        return -EPERM;
                }
        }
        return 0;
}

/* Plans the change of node n; -EINVAL when the active features would not be a subset of the
 * available ones, -EPERM when they name another application's feature. */
static int plan_change(const struct ops_node_req *req, const char *name, const struct slurm_node_list *table,
        struct node_change *c, struct strbuf *err) {
        const struct slurm_node *n = ops_table_find(table, name);
        _cleanup_free_ char *apps = ops_node_app_features(n, table);
        const char *avail;
        *c = (struct node_change){
                .name = name,
                .old_features = xstrdup(strempty(n->features)),
                .old_active = xstrdup(strempty(n->features_active)),
                .old_gres = xstrdup(strempty(n->gres)),
                .old_comment = xstrdup(strempty(n->comment)),
                .old_weight = n->weight,
        };
        int r = req->features ? foreign_features(req->features, name, table, apps, err) : 0;
        if (r >= 0 && req->gres)
                r = ops_gres_claims_check(name, req->gres, n->gres, err);
        if (r >= 0 && req->features_active)
                r = foreign_features(req->features_active, name, table, apps, err);
        if (r < 0)
                return r;
        if (req->features) {
                c->features = ops_features_keep(req->features, apps);
                if (*apps && !ops_features_subset(apps, req->features))
                        c->kept = xstrdup(apps);
        }
        if (req->features_active)
                c->features_active = ops_features_keep(req->features_active, apps);
        else if (req->features)
                /* slurmctld 22.05 checks the node's current active features against the new
                 * available ones before it would make them equal (no NodeFeatures plugin,
                 * node_mgr.c update_node()): send them equal, as they end up */
                c->features_active = xstrdup(c->features);
        avail = c->features ? c->features : strempty(n->features);
        if (c->features_active && !ops_features_subset(c->features_active, avail)) {
                strbuf_addf(err,
                        "active-features: \"%s\" on node \"%s\" is not a subset of its available features "
                        "\"%s\": "
                        "nothing changed",
                        c->features_active, n->name, avail);
                return -EINVAL;
        }
        return 0;
}

static int apply_change(const struct ops_node_req *req, const struct node_change *c, struct strbuf *err) {
        const struct slurm_node_update u = {
                .features = c->features,
                .features_active = c->features_active,
                .gres = req->gres,
                .comment = req->comment,
                .weight = req->has_weight ? req->weight : 0,
        };
        return slurm_node_update(c->name, &u, err);
}

static int undo_change(const struct ops_node_req *req, const struct node_change *c, struct strbuf *err) {
        const struct slurm_node_update u = {
                .features = req->features ? c->old_features : NULL,
                .features_active = req->features || req->features_active ? c->old_active : NULL,
                .gres = req->gres ? c->old_gres : NULL,
                .comment = req->comment ? c->old_comment : NULL,
                .weight = req->has_weight ? c->old_weight : 0,
        };
        return slurm_node_update(c->name, &u, err);
}

static int node_update(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(ops_node_req_done) struct ops_node_req req = { .names = STRV_INIT };
        _cleanup_(ops_nodes_done) struct ops_nodes nodes = { .nodes = STRV_INIT, .missing = STRV_INIT };
        _cleanup_strv_ struct strv kv = STRV_INIT;
        struct node_change *changes = NULL;
        size_t n_changes = 0, applied = 0;
        int r = ops_nodes_prepare(ctx, OPS_NODE_UPDATE, true, &req, &nodes, err);
        if (r < 0)
                return r;
        changes = xcalloc(nodes.nodes.n, sizeof(*changes));
        for (; n_changes < nodes.nodes.n; n_changes++) {
                r = plan_change(&req, nodes.nodes.v[n_changes], &nodes.table, &changes[n_changes], err);
                if (r < 0) {
                        n_changes++;
                        goto out;
                }
        }
        for (; applied < n_changes; applied++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, undo = STRBUF_INIT;
                r = apply_change(&req, &changes[applied], &e);
                if (r >= 0)
                        continue;
                /* put back the nodes changed so far (and this one: slurmctld may have taken some
                 * fields before it refused another) */
                for (size_t k = 0; k <= applied; k++)
                        if (undo_change(&req, &changes[k], &undo) < 0)
                                strbuf_addstr(&undo, "; ");
                if (r == -ECONNREFUSED || r == -ETIMEDOUT)
                        strbuf_addf(err, "slurmctld does not answer (%s)", e.buf);
                else
                        strbuf_addbuf(err, &e);
                if (undo.len)
                        strbuf_addf(err, "; putting the nodes back failed too: %s", undo.buf);
                else
                        strbuf_addstr(err, ": nothing changed (the nodes changed before it were put back)");
                goto out;
        }
        r = reload(&nodes, err);
        if (r < 0)
                goto out;
        for (size_t i = 0; i < n_changes; i++) {
                const struct slurm_node *n = ops_table_find(&nodes.table, changes[i].name);
                _cleanup_strbuf_ struct strbuf key = STRBUF_INIT;
                char w[16];
                if (!n)
                        continue;
                strbuf_addstr(&key, "nodes.");
                ops_key_segment(n->name, &key);
                ops_node_state_fields(n, false, &kv);
                snprintf(w, sizeof w, "%u", n->weight);
                ops_kv(&kv, w, "%s.weight", key.buf);
                ops_kv(&kv, n->features, "%s.features", key.buf);
                ops_kv(&kv, n->features_active, "%s.active-features", key.buf);
                ops_kv(&kv, n->gres, "%s.gres", key.buf);
                ops_kv(&kv, n->comment, "%s.comment", key.buf);
                if (changes[i].kept)
                        ops_kv(&kv, changes[i].kept, "%s.kept-features", key.buf);
        }
        list_result(&kv, "changed", &nodes.nodes, false);
        ops_kv(&kv, OPS_FEATURE_WARNING, "warning");
        {
                _cleanup_strbuf_ struct strbuf d = STRBUF_INIT;
                if (req.has_weight)
                        strbuf_addf(&d, " weight=%u", req.weight);
                if (req.features)
                        strbuf_addf(&d, " features=%s", req.features);
                if (req.features_active)
                        strbuf_addf(&d, " active-features=%s", req.features_active);
                if (req.gres)
                        strbuf_addf(&d, " gres=%s", req.gres);
                if (req.comment)
                        strbuf_addf(&d, " comment=%s", req.comment);
                ops_note(ctx, "node-update", &nodes.nodes, NULL, d.len ? d.buf + 1 : NULL, &kv);
        }
        r = ops_result_set(ctx, &kv, err);
out:
        for (size_t i = 0; i < n_changes; i++)
                node_change_done(&changes[i]);
        free(changes);
        return r;
}

int ops_node_update(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-update", node_update, err);
}
