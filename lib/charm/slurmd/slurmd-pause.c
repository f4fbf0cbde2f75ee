/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd charm's pause and resume actions: the unit's maintenance switch (charm/common/pause.h)
 * plus a drain of the node that resume lifts again when it is still the pause's own. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/pause.h"
#include "charm/slurmd/sdinputs.h"
#include "charm/slurmd/actnote.h"
#include "slurm/client.h"
#include "slurm/jobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "systemd/unit.h"

#include "util/banned.h"

static int reconcile(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
        struct strbuf *err) {
        const struct slurmd_opts o = { .paths = *paths, .event = "update-status" };
        return slurmd_reconcile(ctx, &o, out, err);
}

static char *drain_reason(const char *reason) {
        return xasprintf("paused: %s", reason);
}

/* Lifts the pause's own drain of node: only while the node is drained with that reason (an
 * admin's later drain stays). 1 when lifted, 0 when there was nothing of ours, or the RPC's
 * negative errno (no configuration or no way to authenticate: slurmd not running, on 24.11). */
static int undrain_ours(const char *node, const char *why) {
        struct slurm_node n = { 0 };
        int r = slurm_config_path() ? slurm_node_get(node, &n, NULL) : -ENOENT;
        if (r >= 0 && slurm_state_drain(n.state) != SLURM_DRAIN_NONE && streq_ptr(n.reason, why))
                r = slurm_node_undrain(node, NULL) < 0 ? -EIO : 1;
        else if (r >= 0)
                r = 0;
        slurm_node_done(&n);
        return r;
}

/* The drain resume could not lift before the reconcile (its RPC needs the configuration and,
 * with auth/slurm, a running slurmd's sack socket: a stopped slurmd has neither). One action
 * process resumes one unit, so this file-scope slot is all the state there is. */
static char *resume_pending_why;

/* Resume's reconcile: starts what is stopped, then lifts the pending drain and looks again,
 * so that the status is the node's as it is now. */
static int reconcile_resumed(struct juju_ctx *ctx, const struct charm_paths *paths,
        struct charm_outcome *out, struct strbuf *err) {
        int r = reconcile(ctx, paths, out, err);
        if (r < 0 || !resume_pending_why)
                return r;
        _cleanup_free_ char *node = charm_node_name(juju_env(ctx)->unit);
        if (undrain_ours(node, resume_pending_why) <= 0)
                return r;
        charm_outcome_done(out);
        *out = (struct charm_outcome) CHARM_OUTCOME_INIT;
        return reconcile(ctx, paths, out, err);
}

int slurmd_pause(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL, *node = charm_node_name(juju_env(ctx)->unit), *why = NULL;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, note = STRBUF_INIT;
        const cJSON *drain;
        int r;

        r = juju_action_param(ctx, "drain", &drain, err);
        if (r < 0)
                return r;
        r = charm_action_pause(ctx, &o->paths, &reason, err);
        if (r < 0)
                return r;
        strv_push(&kv, "paused");
        strv_push(&kv, "true");
        if (!drain || cJSON_IsTrue(drain)) {
                struct slurm_job_list jobs = { 0 };
                why = drain_reason(reason);
                r = slurm_config_path() ? slurm_node_drain(node, why, &e) : -ENOENT;
                if (r == -ENOENT)
                        strbuf_addf(&note, "node %s is not registered: nothing to drain", node);
                else if (r < 0)
                        strbuf_addf(&note, "drain failed: %s", e.buf);
                else if (slurm_jobs_on_node(node, &jobs, NULL) > 0)
                        strbuf_addf(&note,
                                "node %s drained; %zu job%s still running on it: a slurmd stopped longer "
                                "than "
                                "SlurmdTimeout makes the node DOWN, and Slurm requeues or kills its jobs",
                                node, jobs.n, jobs.n == 1 ? "" : "s");
                else
                        strbuf_addf(&note, "node %s drained, no job on it", node);
                slurm_job_list_done(&jobs);
                strv_push(&kv, "drained");
                strv_push(&kv, r >= 0 ? "true" : "false");
        }
        if (note.len) {
                strv_push(&kv, "note");
                strv_push(&kv, note.buf);
        }
        r = juju_action_set_many(ctx, &kv, err);
        if (r < 0)
                return r;
        sd_action_noted(ctx, &o->paths, node, reason, !drain || cJSON_IsTrue(drain) ? "drain=true" : "drain=false");
        char *services[3];
        charm_services(&o->paths, "slurmd.service", services);
        if (unit_bus_open(&bus, NULL) < 0)
                bus = NULL;
        charm_paused_outcome(bus, juju_env(ctx)->unit, reason, services, &out);
        return juju_status_set(ctx, false, out.status, out.message.buf, err);
}

int slurmd_resume(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL, *cleared = NULL, *node = charm_node_name(juju_env(ctx)->unit);
        int r;

        /* the pause's own drain is lifted first, so the reconcile reports the node as it is;
         * that RPC needs munge (22.05), which the admin may have stopped, or (24.11) a running
         * slurmd: then it is lifted after the reconcile has started slurmd */
        r = charm_paused(&o->paths, &reason);
        _cleanup_free_ char *why = r > 0 ? drain_reason(reason) : NULL;
        if (why) {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
                const char *auth = charm_caps(&o->paths)->auth_service;
                if (auth && unit_bus_open(&bus, NULL) >= 0)
                        (void) charm_unit_ensure(bus, auth, false, sd_unit_timeout(o), NULL);
                if (undrain_ours(node, why) < 0)
                        resume_pending_why = why;
        }
        r = charm_action_resume(ctx, &o->paths, reconcile_resumed, &cleared, err);
        resume_pending_why = NULL;
        if (r >= 0) {
                _cleanup_free_ char *d = cleared ? xasprintf("pause lifted (%s)", cleared) : xstrdup("was not paused");
                sd_action_noted(ctx, &o->paths, node, NULL, d);
        }
        return r;
}
