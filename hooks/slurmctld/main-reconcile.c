/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmctld hook of every event that reconciles: compiled once per event name (HOOK_EVENT, see
 * hooks/meson.build); the whole decision is slurmctld_reconcile() in lib/charm. */
#include "util/macro.h"
#include "charm/slurmctld/slurmctld.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        const struct slurmctld_opts opts = { .event = HOOK_EVENT };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", HOOK_EVENT, err.buf);
                return 1;
        }
        r = slurmctld_reconcile(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
