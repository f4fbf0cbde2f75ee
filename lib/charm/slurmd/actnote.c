/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit's own actions for the node event log (actnote.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmd/actnote.h"

#include <stdlib.h>
#include <time.h>

#include "charm/slurmd/slurmd.h"
#include "interfaces/nodeactions.h"

#include "util/banned.h"

/* The list as kept: empty (log "") when there is none or it cannot be read (a list made anew
 * has a new log id, so the controllers record its actions from seq 1 on). */
static void list_load(const struct charm_paths *p, struct node_actions *ret) {
        _cleanup_free_ char *data = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        *ret = (struct node_actions){ 0 };
        if (charm_state_note_read(p, SD_ACTIONS_FILE, &data) > 0)
                (void) node_actions_decode(data, ret, &e);
}

int sd_actions_publish(struct juju_ctx *ctx, const struct charm_paths *p, const char *rel, struct strbuf *err) {
        _cleanup_free_ char *data = NULL;
        if (!rel || charm_state_note_read(p, SD_ACTIONS_FILE, &data) <= 0)
                return 0;
        const char *there = NULL;
        int r = juju_relation_get_value(ctx, rel, juju_env(ctx)->unit, NODE_ACTIONS_KEY, &there, err);
        if (r < 0)
                return r;
        /* the file holds what node_actions_encode() wrote: compared as bytes */
        if (streq_ptr(there, data))
                return 0;
        return juju_relation_set(ctx, rel, false, NODE_ACTIONS_KEY, data, err);
}

int sd_action_note(struct juju_ctx *ctx, const struct charm_paths *p, const char *node, const char *reason,
        const char *detail, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_(node_actions_done) struct node_actions a = { 0 };
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t ms = (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;
        list_load(p, &a);
        int r = node_actions_push(&a, ms, strempty(env->action_name), strempty(env->action_uuid), node, reason, detail);
        if (r < 0) {
                strbuf_addf(err, "%s: cannot note action %s on %s", NODE_ACTIONS_KEY, strempty(env->action_name),
                        strempty(node));
                return r;
        }
        _cleanup_free_ char *json = node_actions_encode(&a);
        r = charm_state_note_write(p, SD_ACTIONS_FILE, json, false, err);
        if (r < 0)
                return r;
        _cleanup_strv_ struct strv ids = STRV_INIT;
        r = juju_relation_ids(ctx, SLURMD_CONTROLLER_ENDPOINT, &ids, err);
        for (size_t i = 0; r >= 0 && i < ids.n; i++)
                r = sd_actions_publish(ctx, p, ids.v[i], err);
        return r;
}

void sd_action_noted(struct juju_ctx *ctx, const struct charm_paths *p, const char *node, const char *reason,
        const char *detail) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (sd_action_note(ctx, p, node, reason, detail, &e) < 0)
                (void) juju_action_set(ctx, "event-log", e.buf, NULL);
}
