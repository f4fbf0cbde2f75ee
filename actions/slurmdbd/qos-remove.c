/* SPDX-License-Identifier: Apache-2.0 */
/* Action qos-remove of the slurmdbd charm (lib/charm/slurmdbd/dbdops.h). */
#include "util/macro.h"
#include "charm/slurmdbd/dbdops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmdbd_opts opts = { .event = "qos-remove" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "qos-remove: %s\n", err.buf);
                return 1;
        }
        r = dbd_ops_qos_remove(ctx, &opts, &err);
        return charm_action_finish(ctx, "qos-remove", r, &err);
}
