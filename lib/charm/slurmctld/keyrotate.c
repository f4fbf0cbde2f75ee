/* SPDX-License-Identifier: Apache-2.0 */
/* The auth key's rotation: who has not confirmed a stage, the leader's next stage, the start. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/keyrotate.h"
#include "charm/common/authkey.h"

#include "util/banned.h"

int keyrotate_waiting(struct juju_ctx *ctx, const struct strv *rels, const char *self_state, const char *want,
        struct strv *ret_waiting, struct strbuf *err) {
        if (!streq_ptr(isempty(self_state) ? AUTH_KEYRING_NEVER_ROTATED : self_state, want))
                strv_pushf(ret_waiting, "%s (%s)", juju_env(ctx)->unit, isempty(self_state) ? "nothing" : self_state);
        for (size_t i = 0; i < rels->n; i++) {
                _cleanup_strv_ struct strv units = STRV_INIT;
                int r = juju_relation_list(ctx, rels->v[i], &units, err);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < units.n; j++) {
                        const cJSON *bag = NULL;
                        r = juju_relation_get(ctx, rels->v[i], units.v[j], &bag, err);
                        if (r < 0)
                                return r;
                        const char *s = charm_bag_string(bag, AUTH_KEYRING_ACK_KEY);
                        if (isempty(s))
                                s = AUTH_KEYRING_NEVER_ROTATED; /* (charm_keys_confirm) */
                        if (!streq_ptr(s, want))
                                strv_pushf(ret_waiting, "%s (%s)", units.v[j], isempty(s) ? "nothing" : s);
                }
        }
        return 0;
}

/* Publishes k: a new revision of the secret, then its state in the peer application bag. */
static int publish(struct juju_ctx *ctx, const char *secret_id, const char *peer_rel, const struct auth_keyring *k,
        struct strbuf *err) {
        __attribute__((__cleanup__(strbuf_release_secret))) struct strbuf yaml = STRBUF_INIT;
        auth_keyring_yaml(k, &yaml);
        int r = charm_secret_set_private(ctx, secret_id, yaml.buf, err);
        if (r < 0 || !peer_rel)
                return r;
        _cleanup_free_ char *state = auth_keyring_state(k);
        return juju_relation_set(ctx, peer_rel, true, AUTH_KEYRING_ACK_KEY, state, err);
}

/* " and N more" after the first three. */
static void waiting_text(const struct strv *w, struct strbuf *out) {
        for (size_t i = 0; i < w->n && i < 3; i++)
                strbuf_addf(out, "%s%s", i ? ", " : "", w->v[i]);
        if (w->n > 3)
                strbuf_addf(out, " and %zu more", w->n - 3);
}

int keyrotate_advance(struct juju_ctx *ctx, const char *secret_id, const char *peer_rel, const struct strv *rels,
        const struct auth_keyring *cur, struct auth_keyring *ret_next, struct strbuf *note, struct strbuf *err) {
        _cleanup_strv_ struct strv waiting = STRV_INIT;
        if (cur->stage == AUTH_KEYRING_NONE)
                return 0;
        _cleanup_free_ char *want = auth_keyring_state(cur);
        int r = keyrotate_waiting(ctx, rels, want, want, &waiting, err);
        if (r < 0)
                return r;
        if (waiting.n > 0) {
                if (note) {
                        strbuf_addf(note, "auth key rotation at stage %s: waiting for ", auth_keyring_stage_name(cur->stage));
                        waiting_text(&waiting, note);
                }
                return 0;
        }
        r = auth_keyring_next(cur, ret_next, err);
        if (r >= 0)
                r = publish(ctx, secret_id, peer_rel, ret_next, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *now = auth_keyring_state(ret_next);
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "auth key rotation: every unit runs with %s; now %s", want, now);
        return 1;
}

int keyrotate_start(struct juju_ctx *ctx, const char *secret_id, const char *peer_rel, const struct strv *rels,
        const char *self_state, struct auth_keyring *ret_next, struct strv *kv, struct strbuf *err) {
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring cur = AUTH_KEYRING_INIT;
        _cleanup_strv_ struct strv waiting = STRV_INIT;
        _cleanup_free_ char *want = NULL;
        int r = auth_keyring_read(ctx, secret_id, JUJU_SECRET_CURRENT, &cur, err);
        if (r < 0)
                return r;
        want = auth_keyring_state(&cur);
        if (cur.stage != AUTH_KEYRING_NONE) {
                strbuf_addf(err, "a rotation runs (stage %s): it moves on as units confirm each stage; see the "
                                 "leader's status",
                        auth_keyring_stage_name(cur.stage));
                return -EBUSY;
        }
        r = keyrotate_waiting(ctx, rels, self_state, want, &waiting, err);
        if (r < 0)
                return r;
        if (waiting.n > 0) {
                strbuf_addf(err, "nothing changed: %zu unit%s not confirmed the current key (%s) yet: ", waiting.n,
                        waiting.n == 1 ? " has" : "s have", want);
                waiting_text(&waiting, err);
                return -EBUSY;
        }
        r = auth_keyring_next(&cur, ret_next, err);
        if (r >= 0)
                r = publish(ctx, secret_id, peer_rel, ret_next, err);
        if (r < 0)
                return r;
        strv_pushl(kv, "stage", auth_keyring_stage_name(ret_next->stage), "key-id", ret_next->other_kid, NULL);
        size_t n = 1;
        for (size_t i = 0; i < rels->n; i++) {
                _cleanup_strv_ struct strv units = STRV_INIT;
                if (juju_relation_list(ctx, rels->v[i], &units, NULL) >= 0)
                        n += units.n;
        }
        strv_push(kv, "units");
        strv_pushf(kv, "%zu", n);
        return 0;
}
