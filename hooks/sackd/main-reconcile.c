/* SPDX-License-Identifier: Apache-2.0 */
/* The sackd (login node) hook of every event: compiled once per event name (HOOK_EVENT, see
 * hooks/meson.build); the decision is sackd_reconcile() in lib/charm, or sackd_leave() for stop
 * and remove. */
#include "util/macro.h"
#include "charm/sackd/sackd.h"

#include "util/banned.h"

int main(void) {
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        const struct sackd_opts opts = { .event = HOOK_EVENT };

        int r = juju_ctx_from_env(&ctx, &err);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", HOOK_EVENT, err.buf);
                return 1;
        }
        if (streq(HOOK_EVENT, "stop") || streq(HOOK_EVENT, "remove"))
                r = sackd_leave(ctx, &opts, &out, &err);
        else
                r = sackd_reconcile(ctx, &opts, &out, &err);
        return charm_hook_finish(ctx, r, &out, &err);
}
