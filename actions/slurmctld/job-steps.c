/* SPDX-License-Identifier: Apache-2.0 */
/* Action job-steps: every step of the given jobs, named as Slurm names them
 * (charm/slurmctld/ops.h, ops_job_steps()). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/ops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "job-steps: %s\n", err.buf);
                return 1;
        }
        r = ops_job_steps(ctx, &err);
        return charm_action_finish(ctx, "job-steps", r, &err);
}
