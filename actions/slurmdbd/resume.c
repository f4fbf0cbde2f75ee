/* SPDX-License-Identifier: Apache-2.0 */
/* Action resume: the unit's maintenance switch (charm/common/pause.h, slurmdbd_resume()). */
#include "util/macro.h"
#include "charm/slurmdbd/slurmdbd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmdbd_opts opts = { .event = "resume" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "resume: %s\n", err.buf);
                return 1;
        }
        r = slurmdbd_resume(ctx, &opts, &err);
        return charm_action_finish(ctx, "resume", r, &err);
}
