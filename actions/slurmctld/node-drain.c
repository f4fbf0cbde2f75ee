/* SPDX-License-Identifier: Apache-2.0 */
/* Action node-drain: drain the named nodes with a reason (running jobs finish)
 * (charm/slurmctld/ops.h, ops_node_drain()). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/ops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "node-drain: %s\n", err.buf);
                return 1;
        }
        r = ops_node_drain(ctx, &err);
        return charm_action_finish(ctx, "node-drain", r, &err);
}
