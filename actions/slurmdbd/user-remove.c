/* SPDX-License-Identifier: Apache-2.0 */
/* Action user-remove of the slurmdbd charm (lib/charm/slurmdbd/dbdops.h). */
#include "util/macro.h"
#include "charm/slurmdbd/dbdops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmdbd_opts opts = { .event = "user-remove" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "user-remove: %s\n", err.buf);
                return 1;
        }
        r = dbd_ops_user_remove(ctx, &opts, &err);
        return charm_action_finish(ctx, "user-remove", r, &err);
}
