/* SPDX-License-Identifier: Apache-2.0 */
/* Second stage of the sackd install hook (bin/install-stage2 in the charm), exec'd by
 * hooks/install once the packages, and with them every library, are there. */
#include "util/macro.h"
#include "charm/sackd/sackd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        const struct sackd_opts opts = { .event = "install" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "install: %s\n", err.buf);
                return 1;
        }
        r = sackd_install(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
