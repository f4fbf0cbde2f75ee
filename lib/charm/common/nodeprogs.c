/* SPDX-License-Identifier: Apache-2.0 */
/* The programs slurm.conf names for slurmd, published once every compute unit judged them safe
 * (see nodeprogs.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/nodeprogs.h"
#include "charm/common/nodepaths.h"
#include "interfaces/slurmd.h"
#include "juju/juju.h"

#include <errno.h>
#include <stdlib.h>

#include "util/banned.h"

int node_progs_of_params(const char *params, struct slurm_options *ret, struct strbuf *err) {
        _cleanup_(slurm_options_clearp) struct slurm_options all = SLURM_OPTIONS_INIT, set = SLURM_OPTIONS_INIT;
        if (!isempty(params)) {
                int r = slurm_options_parse(params, SLURM_OPTIONS_GLOBAL, &all, err);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < all.n; i++) {
                const char *key = slurmd_iface_node_prog_key(all.items[i].key);
                if (key && !isempty(all.items[i].value))
                        slurm_options_set(&set, key, all.items[i].value);
        }
        slurm_options_clear(ret);
        *ret = set;
        set = (struct slurm_options) SLURM_OPTIONS_INIT;
        return 0;
}

bool node_progs_same(const struct slurm_options *a, const struct slurm_options *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!streq_ptr(slurm_options_get(b, a->items[i].key), a->items[i].value))
                        return false;
        return true;
}

void node_progs_gate_done(struct node_progs_gate *g) {
        free(g->params);
        g->params = NULL;
        g->held = false;
        free(g->pending);
        g->pending = NULL;
        strv_clear(&g->refused);
        strv_clear(&g->waiting);
        slurm_options_clear(&g->want);
        slurm_options_clear(&g->live);
}

char *node_progs_text(const struct slurm_options *set) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        slurm_options_render(set, &s);
        return strbuf_detach(&s, NULL);
}

/* Whether an item of want is new or changed (not live already): only those need verdicts. */
static bool needs_verdict(const struct slurm_options *want, const struct slurm_options *live, size_t i) {
        return !streq_ptr(slurm_options_get(live, want->items[i].key), want->items[i].value);
}

bool node_progs_pending(const char *params, const char *live_params) {
        _cleanup_(slurm_options_clearp) struct slurm_options want = SLURM_OPTIONS_INIT, live = SLURM_OPTIONS_INIT;
        if (node_progs_of_params(params, &want, NULL) < 0)
                return false;
        if (node_progs_of_params(live_params, &live, NULL) < 0)
                slurm_options_clear(&live);
        for (size_t i = 0; i < want.n; i++)
                if (needs_verdict(&want, &live, i))
                        return true;
        return false;
}

int node_progs_gate(const char *params, const char *params_applied, const struct node_progs_vote *votes,
        size_t n_votes, struct node_progs_gate *ret) {
        bool needs = false;
        node_progs_gate_done(ret);
        if (node_progs_of_params(params, &ret->want, NULL) < 0) {
                /* refused by the option parser anyway: nothing of it is rendered */
                slurm_options_clear(&ret->want);
                ret->params = xstrdup(strempty(params));
                return 0;
        }
        if (node_progs_of_params(params_applied, &ret->live, NULL) < 0)
                slurm_options_clear(&ret->live);
        for (size_t i = 0; i < ret->want.n; i++)
                needs = needs || needs_verdict(&ret->want, &ret->live, i);
        if (!needs) {
                ret->params = xstrdup(strempty(params));
                return 0;
        }
        for (size_t i = 0; i < n_votes; i++) {
                _cleanup_(slurm_options_clearp) struct slurm_options judged = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT; /* bad data: no verdict */
                _cleanup_free_ char *why = NULL;
                if (node_verdict_decode(votes[i].verdict, &judged, &why, &e) < 0 ||
                        !node_progs_same(&judged, &ret->want))
                        strv_push(&ret->waiting, votes[i].unit);
                else if (!isempty(why))
                        strv_pushf(&ret->refused, "%s: %s", votes[i].unit, why);
        }
        if (ret->waiting.n == 0 && ret->refused.n == 0) {
                ret->params = xstrdup(strempty(params));
                return 0;
        }
        /* held back: each new or changed item set back to its live value, or dropped */
        _cleanup_(slurm_options_clearp) struct slurm_options all = SLURM_OPTIONS_INIT, pending = SLURM_OPTIONS_INIT;
        if (slurm_options_parse(params, SLURM_OPTIONS_GLOBAL, &all, NULL) < 0)
                return -EINVAL; /* parsed above */
        for (size_t i = 0; i < ret->want.n; i++) {
                if (!needs_verdict(&ret->want, &ret->live, i))
                        continue;
                slurm_options_set(&pending, ret->want.items[i].key, ret->want.items[i].value);
                const char *key = ret->want.items[i].key, *old = slurm_options_get(&ret->live, key);
                /* (keys compare without case: the admin's spelling may differ) */
                while (slurm_options_unset(&all, key))
                        ;
                if (old)
                        slurm_options_set(&all, key, old);
        }
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        slurm_options_render(&all, &s);
        ret->params = strbuf_detach(&s, NULL);
        ret->pending = node_progs_text(&pending);
        ret->held = true;
        return 0;
}

/* The set as slurm.conf lines (caller frees). */
static char *conf_text(const struct slurm_options *set) {
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT;
        strbuf_addstr(&conf, "");
        for (size_t i = 0; i < set->n; i++)
                strbuf_addf(&conf, "%s=%s\n", set->items[i].key, set->items[i].value);
        return strbuf_detach(&conf, NULL);
}

/* The judgement of slurm.conf text (with the roots): 0 safe, 1 not. */
static int judge_text(const struct charm_paths *p, const char *text, struct strbuf *why) {
        int r = node_paths_check_flags(p, text, strlen(text), 0, why);
        return r < 0 ? 1 : r; /* not even readable as slurm.conf: not safe */
}

int node_progs_judge(const struct charm_paths *p, const struct slurm_options *set, struct strbuf *why) {
        _cleanup_free_ char *text = conf_text(set);
        return judge_text(p, text, why);
}

int node_progs_want_judge(const struct charm_paths *p, struct strbuf *why) {
        _cleanup_free_ char *text = NULL;
        if (charm_state_note_read(p, NODE_PROGS_WANT_FILE, &text) <= 0)
                return 0;
        return judge_text(p, text, why);
}

int node_progs_answer(struct juju_ctx *ctx, const struct charm_paths *p, const char *rel, const char *json,
        struct strbuf *live_why, struct strbuf *err) {
        _cleanup_(slurm_options_clearp) struct slurm_options want = SLURM_OPTIONS_INIT, live = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        _cleanup_free_ char *verdict = NULL;
        const cJSON *mine = NULL;
        int r = node_progs_decode(json, &want, &live, live_why);
        if (r < 0 && r != -ENODATA)
                return r;
        bool none = r == -ENODATA; /* nothing published: no verdict, no held set to follow */
        if (none)
                r = charm_state_note_remove(p, NODE_PROGS_WANT_FILE, err);
        else {
                _cleanup_free_ char *text = conf_text(&want);
                r = charm_state_note_write(p, NODE_PROGS_WANT_FILE, text, true, err);
        }
        if (r < 0)
                return r;
        if (!none) {
                (void) node_progs_judge(p, &want, &why);
                r = node_verdict_encode(&want, why.buf, &verdict);
                if (r < 0) {
                        strbuf_addstr(err, "node-programs-verdict: cannot encode");
                        return r;
                }
        }
        r = juju_relation_get(ctx, rel, juju_env(ctx)->unit, &mine, err);
        if (r >= 0)
                r = charm_bag_update(ctx, rel, false, mine, SLURMD_IFACE_NODE_VERDICT_KEY, strempty(verdict), err);
        if (r < 0)
                return r;
        return none ? 0 : node_progs_judge(p, &live, live_why);
}
