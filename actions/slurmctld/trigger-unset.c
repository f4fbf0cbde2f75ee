/* SPDX-License-Identifier: Apache-2.0 */
/* Action trigger-unset (issue 29; charm/slurmctld/trigops.h, trigops_unset()). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/trigops.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "trigger-unset: %s\n", err.buf);
                return 1;
        }
        r = trigops_unset(ctx, &err);
        return charm_action_finish(ctx, "trigger-unset", r, &err);
}
