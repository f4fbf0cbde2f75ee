/* SPDX-License-Identifier: Apache-2.0 */
/* Action node-resume: resume the named DOWN/DRAIN/FAIL nodes; the others stay unchanged
 * (charm/slurmctld/ops.h, ops_node_resume()). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/ops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "node-resume: %s\n", err.buf);
                return 1;
        }
        r = ops_node_resume(ctx, &err);
        return charm_action_finish(ctx, "node-resume", r, &err);
}
