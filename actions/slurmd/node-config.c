/* SPDX-License-Identifier: Apache-2.0 */
/* Action node-config: admin node parameters for slurmd --conf, applied by drain, wait, delete
 * and re-registration (slurmd_node_config() in lib/charm). */
#include "util/macro.h"
#include "charm/slurmd/slurmd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmd_opts opts = { .event = "node-config" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "node-config: %s\n", err.buf);
                return 1;
        }
        r = slurmd_node_config(ctx, &opts, &err);
        return charm_action_finish(ctx, "node-config", r, &err);
}
