/* SPDX-License-Identifier: Apache-2.0 */
/* bin/node-events-changed: run by the node event watcher through juju-exec (hook context) when
 * the node event log got news; the controller's reconcile, as update-status runs it, sets the
 * status from the node table now (charm/slurmctld/nodeevents.h). */
#include "util/macro.h"
#include "charm/slurmctld/slurmctld.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        const struct slurmctld_opts opts = { .event = "node-events-changed", .automatic = true };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "node-events-changed: %s\n", err.buf);
                return 1;
        }
        r = slurmctld_reconcile(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
