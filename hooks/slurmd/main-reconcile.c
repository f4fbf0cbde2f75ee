/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd hook of every event that reconciles: compiled once per event name (HOOK_EVENT, see
 * hooks/meson.build); the whole decision is slurmd_reconcile() in lib/charm, or slurmd_leave()
 * when the hook is this unit leaving the cluster (slurmd_event_leaves()). */
#include "util/macro.h"
#include "charm/slurmd/slurmd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        const struct slurmd_opts opts = { .event = HOOK_EVENT };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", HOOK_EVENT, err.buf);
                return 1;
        }
        if (slurmd_event_leaves(juju_env(ctx)))
                r = slurmd_leave(ctx, &opts, &out, &err);
        else
                r = slurmd_reconcile(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
