/* SPDX-License-Identifier: Apache-2.0 */
/* Action takeover: this controller takes control (slurmctld_takeover()). */
#include "util/macro.h"
#include "charm/slurmctld/slurmctld.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmctld_opts opts = { .event = "takeover" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "takeover: %s\n", err.buf);
                return 1;
        }
        r = slurmctld_takeover(ctx, &opts, &err);
        return charm_action_finish(ctx, "takeover", r, &err);
}
