/* SPDX-License-Identifier: Apache-2.0 */
/* Second stage of the slurmdbd install hook (bin/install-stage2 in the charm), exec'd by
 * hooks/install once the packages, and with them every library, are there. */
#include "util/macro.h"
#include "charm/slurmdbd/slurmdbd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        const struct slurmdbd_opts opts = { .event = "install" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "install: %s\n", err.buf);
                return 1;
        }
        r = slurmdbd_install(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
