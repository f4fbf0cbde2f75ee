/* SPDX-License-Identifier: Apache-2.0 */
/* Action node-events [since=SEQ] [limit=N]: the node event log of this controller unit
 * (nodeevents_action() in lib/charm). */
#include "util/macro.h"
#include "charm/slurmctld/nodeevents.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct charm_paths paths = { 0 };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "node-events: %s\n", err.buf);
                return 1;
        }
        r = nodeevents_action(ctx, &paths, &err);
        return charm_action_finish(ctx, "node-events", r, &err);
}
