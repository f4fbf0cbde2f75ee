/* SPDX-License-Identifier: Apache-2.0 */
/* Action resume: the unit's maintenance switch (charm/common/pause.h, sackd_resume()). */
#include "util/macro.h"
#include "charm/sackd/sackd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct sackd_opts opts = { .event = "resume" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "resume: %s\n", err.buf);
                return 1;
        }
        r = sackd_resume(ctx, &opts, &err);
        return charm_action_finish(ctx, "resume", r, &err);
}
