/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd charm's pause and resume actions: the unit's maintenance switch (charm/pause.h)
 * plus a drain of the node that resume lifts again when it is still the pause's own. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/pause.h"
#include "charm/slurmd-internal.h"
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
         * that RPC needs munge (22.05), which the admin may have stopped */
        r = charm_paused(&o->paths, &reason);
        if (r > 0 && slurm_config_path()) {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
                const char *auth = charm_caps(&o->paths)->auth_service;
                if (auth && unit_bus_open(&bus, NULL) >= 0)
                        (void) charm_unit_ensure(bus, auth, false, sd_unit_timeout(o), NULL);
                _cleanup_free_ char *why = drain_reason(reason);
                struct slurm_node n = { 0 };
                if (slurm_node_get(node, &n, NULL) >= 0 && slurm_state_drain(n.state) != SLURM_DRAIN_NONE &&
                        streq_ptr(n.reason, why))
                        (void) slurm_node_undrain(node, NULL);
                slurm_node_done(&n);
        }
        return charm_action_resume(ctx, &o->paths, reconcile, &cleared, err);
}
