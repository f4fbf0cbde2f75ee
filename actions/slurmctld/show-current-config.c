/* SPDX-License-Identifier: Apache-2.0 */
/* Action show-current-config: the controller's slurm.conf as the result key "slurm-conf". */
#include "util/macro.h"
#include "charm/slurmctld/slurmctld.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmctld_opts opts = { .event = "show-current-config" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "show-current-config: %s\n", err.buf);
                return 1;
        }
        r = slurmctld_show_current_config(ctx, &opts, &err);
        return charm_action_finish(ctx, "show-current-config", r, &err);
}
