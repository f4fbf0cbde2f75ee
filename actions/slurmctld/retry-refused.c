/* SPDX-License-Identifier: Apache-2.0 */
/* Action retry-refused: the refused slurm.conf candidates forgotten and tried again (slurmctld_retry_refused()). */
#include "util/macro.h"
#include "charm/slurmctld/slurmctld.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmctld_opts opts = { .event = "retry-refused" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "retry-refused: %s\n", err.buf);
                return 1;
        }
        r = slurmctld_retry_refused(ctx, &opts, &err);
        return charm_action_finish(ctx, "retry-refused", r, &err);
}
