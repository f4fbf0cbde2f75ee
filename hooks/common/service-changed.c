/* SPDX-License-Identifier: Apache-2.0 */
/* bin/service-changed SERVICE [ACTIVE_STATE]: run by the service watcher through juju-exec, in
 * hook context; sets the unit's status from the daemon's state (watcher_service_changed()). */
#include "util/macro.h"
#include "charm/common/watcher.h"
#if defined(CHARM_SLURMCTLD)
#include "charm/slurmctld/slurmctld.h"
#elif defined(CHARM_SLURMDBD)
#include "charm/slurmdbd/slurmdbd.h"
#elif defined(CHARM_SACKD)
#include "charm/sackd/sackd.h"
#else
#include "charm/slurmd/slurmd.h"
#endif

#include "util/banned.h"

/* This charm's reconcile, as update-status runs it (built once per charm: hooks/meson.build). */
static int reconcile(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
        struct strbuf *err) {
#if defined(CHARM_SLURMCTLD)
        const struct slurmctld_opts o = { .paths = *paths, .event = "update-status", .automatic = true };
        return slurmctld_reconcile(ctx, &o, out, err);
#elif defined(CHARM_SLURMDBD)
        const struct slurmdbd_opts o = { .paths = *paths, .event = "update-status" };
        return slurmdbd_reconcile(ctx, &o, out, err);
#elif defined(CHARM_SACKD)
        const struct sackd_opts o = { .paths = *paths, .event = "update-status" };
        return sackd_reconcile(ctx, &o, out, err);
#else
        const struct slurmd_opts o = { .paths = *paths, .event = "update-status", .automatic = true };
        return slurmd_reconcile(ctx, &o, out, err);
#endif
}

int main(int argc, char **argv) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;

        if (argc < 2 || argc > 3) {
                fprintf(stderr, "usage: service-changed SERVICE [ACTIVE_STATE]\n");
                return 2;
        }
        const struct watcher_handler_opts opts = {
                .service = argv[1],
                .hint_state = argc > 2 ? argv[2] : NULL,
#if defined(CHARM_SLURMCTLD)
                .daemon = "slurmctld.service",
#elif defined(CHARM_SLURMDBD)
                .daemon = "slurmdbd.service",
#elif defined(CHARM_SACKD)
                /* by generation: sackd, or munged where there is no sackd (22.05) */
                .daemon = sackd_client_service(&(const struct charm_paths){ 0 }),
#else
                .daemon = "slurmd.service",
#endif
                .reconcile = reconcile,
        };
        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "service-changed: %s\n", err.buf);
                return 1;
        }
        r = watcher_service_changed(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
