/* SPDX-License-Identifier: Apache-2.0 */
/* Action user-add of the slurmdbd charm (lib/charm/slurmdbd/dbdops.h). */
#include "util/macro.h"
#include "charm/slurmdbd/dbdops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmdbd_opts opts = { .event = "user-add" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "user-add: %s\n", err.buf);
                return 1;
        }
        r = dbd_ops_user_add(ctx, &opts, &err);
        return charm_action_finish(ctx, "user-add", r, &err);
}
