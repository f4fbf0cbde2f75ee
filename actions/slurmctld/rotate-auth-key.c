/* SPDX-License-Identifier: Apache-2.0 */
/* Action rotate-auth-key: a new cluster auth key, rolled out in stages (slurmctld_rotate_auth_key()). */
#include "util/macro.h"
#include "charm/slurmctld/slurmctld.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct slurmctld_opts opts = { .event = "rotate-auth-key" };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "rotate-auth-key: %s\n", err.buf);
                return 1;
        }
        r = slurmctld_rotate_auth_key(ctx, &opts, &err);
        return charm_action_finish(ctx, "rotate-auth-key", r, &err);
}
