/* SPDX-License-Identifier: Apache-2.0 */
/* Action destroy-jobs: requeue or cancel every job on this unit's node (forced departure). */
#include "util/macro.h"
#include "charm/slurmd/slurmd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmd_opts opts = { .event = "destroy-jobs" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "destroy-jobs: %s\n", err.buf);
                return 1;
        }
        r = slurmd_destroy_jobs(ctx, &opts, &err);
        return charm_action_finish(ctx, "destroy-jobs", r, &err);
}
