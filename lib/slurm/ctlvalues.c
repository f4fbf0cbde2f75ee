/* SPDX-License-Identifier: Apache-2.0 */
/* The running controller's configuration as key/value pairs (slurm_load_ctl_conf() and
 * libslurm's slurm_ctl_conf_2_key_pairs()), and key lookup ignoring case, '_' and '-'. */
#include "util/macro.h"
#include "slurm/ctlvalues.h"

#include <ctype.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

/* config_key_pair_t of src/common/read_config.h (22.05): not in the public headers. */
struct key_pair {
        char *name;
        char *value;
};

/* The next character of a key that counts, or '\0' at the end. */
static char next_key_char(const char **p) {
        while (**p == '_' || **p == '-')
                (*p)++;
        if (!**p)
                return '\0';
        return (char) tolower((unsigned char) *(*p)++);
}

bool slurm_conf_key_match(const char *a, const char *b) {
        bool any = false;
        if (!a || !b)
                return false;
        for (;;) {
                char ca = next_key_char(&a), cb = next_key_char(&b);
                if (ca != cb)
                        return false;
                if (!ca)
                        return any;
                any = true;
        }
}

long slurm_conf_pairs_find(char *const *pairs, size_t n_strings, const char *item) {
        for (size_t i = 0; i + 1 < n_strings; i += 2)
                if (slurm_conf_key_match(pairs[i], item))
                        return (long) (i / 2);
        return -1;
}

static void push_pair(struct strv *out, const char *key, const char *value) {
        for (size_t i = 0; i + 1 < out->n; i += 2)
                if (streq(out->v[i], key))
                        return; /* the first value stays */
        strv_push(out, key);
        strv_push(out, strempty(value));
}

int slurm_ctl_conf_values(struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv out = STRV_INIT;
        _cleanup_strbuf_ struct strbuf hosts = STRBUF_INIT;
        slurm_conf_t *c = NULL;
        slurm_list_t l;
        int r;

        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_ctl_conf((time_t) 0, &c);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load the controller's configuration");
        for (uint32_t i = 0; i < c->control_cnt && c->control_machine; i++) {
                if (hosts.len)
                        strbuf_addch(&hosts, ',');
                strbuf_addstr(&hosts, strempty(c->control_machine[i]));
                if (c->control_addr && !isempty(c->control_addr[i]))
                        strbuf_addf(&hosts, "(%s)", c->control_addr[i]);
        }
        push_pair(&out, "SlurmctldHost", hosts.buf);
        l = slurm_ctl_conf_2_key_pairs(c);
        if (l) {
                slurm_list_itr_t it = slurm_list_iterator_create(l);
                const struct key_pair *kp;
                while ((kp = slurm_list_next(it)))
                        if (!isempty(kp->name))
                                push_pair(&out, kp->name, kp->value);
                slurm_list_iterator_destroy(it);
                slurm_list_destroy(l);
        }
        slurm_free_ctl_conf(c);
        strv_pushv(ret, out.v);
        return (int) (out.n / 2);
}
