/* SPDX-License-Identifier: Apache-2.0 */
/* Option strings from admins ("Key=Value …"): strict tokenizer, validation against the
 * slurm.conf key tables and the keys the charm owns, normalization and list helpers. */
#include "util/macro.h"

#include "slurmconf/options.h"
#include "slurmconf/values.h"
#include "util/alloc.h"
#include "util/banned.h"

static const char *const kind_names[_SLURM_OPTIONS_KIND_MAX] = {
        [SLURM_OPTIONS_PARTITION] = "partition",
        [SLURM_OPTIONS_NODE] = "node",
        [SLURM_OPTIONS_GLOBAL] = "global",
};

static const char *const owned_partition[] = { "PartitionName", "Nodes", NULL };
static const char *const owned_node[] = { "NodeName", "NodeAddr", "NodeHostname", "Port", "State", NULL };
static const char *const owned_global[] = { "ClusterName", "SlurmctldHost", "ControlMachine", "ControlAddr",
        "BackupController", "BackupAddr", "SlurmctldPort", "SlurmctldParameters", "AuthType", "AuthInfo",
        "AuthAltTypes", "AuthAltParameters", "CredType", "SlurmUser", "StateSaveLocation",
        "SlurmctldTimeout", "MaxNodeCount", "SelectType", "Include",
        /* files a root daemon creates or loads code from (slurmconf/pathkeys.h) */
        "SlurmctldPidFile", "SlurmdPidFile", "SlurmdSpoolDir", "PluginDir", "JobCredentialPrivateKey",
        "JobCredentialPublicCertificate",
        /* 22.05's munge socket for the accounting messages (auth/munge reads it for any message
         * flagged so: a socket a user serves would vouch for any uid) */
        "AccountingStoragePass",
        /* a password in slurm.conf, which every machine of the cluster holds world-readable
         * (configless copies on compute and login units): attack on the login charm, stop 58 */
        "JobCompPass", NULL };

const char *slurm_options_kind_name(enum slurm_options_kind kind) {
        return (unsigned) kind < _SLURM_OPTIONS_KIND_MAX ? kind_names[kind] : "unknown";
}

int slurm_options_kind_from_string(const char *s, enum slurm_options_kind *ret) {
        for (size_t i = 0; i < _SLURM_OPTIONS_KIND_MAX; i++)
                if (s && strcaseeq(s, kind_names[i])) {
                        *ret = (enum slurm_options_kind) i;
                        return 0;
                }
        return -EINVAL;
}

enum slurmconf_scope slurm_options_kind_scope(enum slurm_options_kind kind) {
        switch (kind) {
        case SLURM_OPTIONS_PARTITION:
                return SLURMCONF_PARTITION;
        case SLURM_OPTIONS_NODE:
                return SLURMCONF_NODE;
        default:
                return SLURMCONF_GLOBAL;
        }
}

/* The owned key spelled name[0..len) (case-insensitive), in its canonical spelling, or NULL. */
static const char *key_owned(enum slurm_options_kind kind, const char *name, size_t len) {
        const char *const *l = kind == SLURM_OPTIONS_PARTITION ? owned_partition
                : kind == SLURM_OPTIONS_NODE                   ? owned_node
                                                               : owned_global;
        for (; *l; l++)
                if (strlen(*l) == len && strncasecmp(*l, name, len) == 0)
                        return *l;
        return NULL;
}

static bool value_char_ok(enum slurm_options_kind kind, unsigned char ch) {
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
                return true;
        if (ch == '%')
                return kind != SLURM_OPTIONS_NODE;
        return ch && strchr("_-.,:/=+*@()[]", ch);
}

/* Appends s[0..len) for a message: non-printable bytes as "?", at most 40 bytes. */
static void add_sanitized(struct strbuf *sb, const char *s, size_t len) {
        size_t n = len > 40 ? 40 : len;
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char) s[i];
                strbuf_addch(sb, ch >= 0x20 && ch < 0x7f ? (char) ch : '?');
        }
        if (len > n)
                strbuf_addstr(sb, "...");
}

static int fail(struct strbuf *err, const char *pre, const char *what, size_t what_len, const char *post) {
        if (err) {
                strbuf_addstr(err, pre);
                if (what) {
                        strbuf_addch(err, '"');
                        add_sanitized(err, what, what_len);
                        strbuf_addch(err, '"');
                }
                strbuf_addstr(err, post);
        }
        return -EINVAL;
}

/* The key of the token around position pos: the bytes from the token's start to "=", a
 * space or the end. */
static void token_key_at(const char *s, size_t len, size_t pos, const char **ret, size_t *ret_len) {
        size_t start = pos;
        while (start > 0 && s[start - 1] != ' ')
                start--;
        size_t end = start;
        while (end < len && s[end] != '=' && s[end] != ' ')
                end++;
        *ret = s + start;
        *ret_len = end - start;
}

static void options_push(struct slurm_options *o, char *key, char *value) {
        if (o->n == o->alloc) {
                o->alloc = o->alloc ? o->alloc * 2 : 8;
                o->items = xrealloc(o->items, o->alloc * sizeof(*o->items));
        }
        o->items[o->n++] = (struct slurm_option){ .key = key, .value = value };
}

int slurm_options_parse_mem(const char *s, size_t len, enum slurm_options_kind kind,
        struct slurm_options *ret, struct strbuf *err) {
        if ((unsigned) kind >= _SLURM_OPTIONS_KIND_MAX)
                return -EINVAL;
        if (!s)
                len = 0;
        if (len > SLURM_OPTIONS_MAX_LEN) {
                if (err)
                        strbuf_addf(err, "option string too long (%zu bytes, at most %d)", len,
                                SLURM_OPTIONS_MAX_LEN);
                return -EINVAL;
        }

        /* Characters that are wrong wherever they are, named by the key they sit in. */
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char) s[i];
                const char *k;
                size_t kl;
                if (ch < 0x20 || ch == 0x7f) {
                        token_key_at(s, len, i, &k, &kl);
                        return fail(err, "newline, tab or control character in ", k, kl, "");
                }
                if (ch == '#') {
                        token_key_at(s, len, i, &k, &kl);
                        return fail(err, "comment character \"#\" in ", k, kl, "");
                }
        }

        _cleanup_slurm_options_ struct slurm_options list = SLURM_OPTIONS_INIT;
        enum slurmconf_scope scope = slurm_options_kind_scope(kind);
        size_t i = 0;
        for (;;) {
                while (i < len && s[i] == ' ')
                        i++;
                if (i >= len)
                        break;

                size_t ks = i;
                while (i < len && s[i] != '=' && s[i] != ' ')
                        i++;
                const char *key = s + ks;
                size_t klen = i - ks;
                if (i >= len || s[i] != '=')
                        return fail(err, "expected Key=Value, got ", key, klen, "");
                if (klen == 0) {
                        size_t e = i;
                        while (e < len && s[e] != ' ')
                                e++;
                        return fail(err, "missing key before \"=\" in ", key, e - ks, "");
                }
                for (size_t j = 0; j < klen; j++) {
                        char ch = key[j];
                        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                                    (ch >= '0' && ch <= '9') || ch == '_'))
                                return fail(err, "invalid key ", key, klen, "");
                }

                const char *owned = key_owned(kind, key, klen);
                if (owned) {
                        if (!err)
                                return -EINVAL;
                        /* keys with an option of their own say which */
                        if (streq(owned, "StateSaveLocation"))
                                strbuf_addstr(err,
                                        "key \"StateSaveLocation\" is set by the slurmctld option "
                                        "state-save-location");
                        else if (streq(owned, "SlurmctldTimeout"))
                                strbuf_addstr(err,
                                        "key \"SlurmctldTimeout\" is set by the slurmctld option "
                                        "slurmctld-timeout");
                        else if (streq(owned, "JobCompPass"))
                                strbuf_addstr(err,
                                        "key \"JobCompPass\" would be a password in slurm.conf, which every "
                                        "machine holds readable by all users: use jobcomp/elasticsearch or "
                                        "jobcomp/kafka without one, or accounting (the slurmdbd charm)");
                        else
                                strbuf_addf(err, "key \"%s\" is managed by the charm", owned);
                        return -EINVAL;
                }
                const struct slurmconf_key *k = slurmconf_key_lookup_n(scope, key, klen);
                if (!k) {
                        char pre[64];
                        snprintf(pre, sizeof(pre), "unknown %s key ", kind_names[kind]);
                        return fail(err, pre, key, klen, "");
                }
                if (!slurmconf_key_supported(k)) {
                        if (err)
                                strbuf_addf(err, "key \"%s\" is not supported by Slurm 22.05 (added in %s)",
                                        k->name, k->since);
                        return -EINVAL;
                }
                const char *canonical = slurmconf_key_canonical(k);
                if ((k->flags & SLURMCONF_KEY_LINE) || key_owned(kind, canonical, strlen(canonical))) {
                        if (err)
                                strbuf_addf(err, "key \"%s\" is managed by the charm", k->name);
                        return -EINVAL;
                }
                if (kind == SLURM_OPTIONS_PARTITION && streq(canonical, "Default")) {
                        if (err)
                                strbuf_addstr(err,
                                        "key \"Default\" is set by the slurmctld option default-partition");
                        return -EINVAL;
                }
                for (size_t j = 0; j < list.n; j++)
                        if (strcaseeq(list.items[j].key, canonical)) {
                                if (err)
                                        strbuf_addf(err, "key \"%s\" is given twice", canonical);
                                return -EINVAL;
                        }

                i++; /* "=" */
                const char *val;
                size_t vlen;
                bool quoted = false;
                if (i < len && s[i] == '"') {
                        if (kind == SLURM_OPTIONS_NODE)
                                return fail(err, "quotes are not allowed in node options: value of ",
                                        canonical, strlen(canonical), "");
                        const char *close = memchr(s + i + 1, '"', len - i - 1);
                        if (!close)
                                return fail(err, "unbalanced quote in value of ", canonical,
                                        strlen(canonical), "");
                        val = s + i + 1;
                        vlen = (size_t) (close - val);
                        i = (size_t) (close - s) + 1;
                        if (i < len && s[i] != ' ')
                                return fail(err, "text after the closing quote in value of ", canonical,
                                        strlen(canonical), "");
                        quoted = true;
                } else {
                        val = s + i;
                        while (i < len && s[i] != ' ')
                                i++;
                        vlen = (size_t) (s + i - val);
                        if (memchr(val, '"', vlen))
                                return fail(err, "unbalanced quote in value of ", canonical,
                                        strlen(canonical), "");
                }
                if (vlen == 0)
                        return fail(err, "empty value for ", canonical, strlen(canonical), "");
                if (quoted && (val[0] == ' ' || val[vlen - 1] == ' ' || memmem(val, vlen, "  ", 2)))
                        return fail(err, "stray spaces in value of ", canonical, strlen(canonical), "");
                for (size_t j = 0; j < vlen; j++) {
                        unsigned char ch = (unsigned char) val[j];
                        if (ch == ' ' && quoted)
                                continue;
                        if (!value_char_ok(kind, ch)) {
                                if (err) {
                                        strbuf_addf(err,
                                                "value of \"%s\" has a character that is not allowed (",
                                                canonical);
                                        if (ch >= 0x21 && ch < 0x7f)
                                                strbuf_addf(err, "\"%c\")", ch);
                                        else if (ch == ' ')
                                                strbuf_addstr(err, "a space)");
                                        else
                                                strbuf_addf(err, "byte 0x%02x)", ch);
                                }
                                return -EINVAL;
                        }
                }
                _cleanup_free_ char *value = xstrndup(val, vlen);
                int r = slurmconf_value_check(scope, canonical, value, err);
                if (r < 0)
                        return r;
                options_push(&list, xstrdup(canonical), TAKE_PTR(value));
        }

        int r = slurm_options_check_set(kind, &list, NULL, err);
        if (r < 0)
                return r;

        slurm_options_clear(ret);
        *ret = list;
        list = (struct slurm_options) SLURM_OPTIONS_INIT;
        return 0;
}

struct set_lookup {
        const struct slurm_options *o, *base;
};

static const char *set_get(const char *key, void *userdata) {
        const struct set_lookup *l = userdata;
        const char *v = slurm_options_get(l->o, key);
        return v || !l->base ? v : slurm_options_get(l->base, key);
}

int slurm_options_check_set(enum slurm_options_kind kind, const struct slurm_options *o,
        const struct slurm_options *base, struct strbuf *err) {
        static const struct slurm_options empty = SLURM_OPTIONS_INIT;
        struct set_lookup l = { .o = o ? o : &empty, .base = base };
        if ((unsigned) kind >= _SLURM_OPTIONS_KIND_MAX)
                return -EINVAL;
        return slurmconf_values_check_set(slurm_options_kind_scope(kind), set_get, &l, err);
}

int slurm_options_parse(
        const char *s, enum slurm_options_kind kind, struct slurm_options *ret, struct strbuf *err) {
        return slurm_options_parse_mem(s, s ? strlen(s) : 0, kind, ret, err);
}

void slurm_options_clear(struct slurm_options *o) {
        if (!o)
                return;
        for (size_t i = 0; i < o->n; i++) {
                free(o->items[i].key);
                free(o->items[i].value);
        }
        free(o->items);
        *o = (struct slurm_options) SLURM_OPTIONS_INIT;
}

void slurm_options_render(const struct slurm_options *o, struct strbuf *out) {
        for (size_t i = 0; i < o->n; i++) {
                const char *v = o->items[i].value;
                if (i > 0)
                        strbuf_addch(out, ' ');
                if (strchr(v, ' ') || !*v)
                        strbuf_addf(out, "%s=\"%s\"", o->items[i].key, v);
                else
                        strbuf_addf(out, "%s=%s", o->items[i].key, v);
        }
}

static long options_find(const struct slurm_options *o, const char *key) {
        for (size_t i = 0; i < o->n; i++)
                if (strcaseeq(o->items[i].key, key))
                        return (long) i;
        return -1;
}

const char *slurm_options_get(const struct slurm_options *o, const char *key) {
        long i = options_find(o, key);
        return i >= 0 ? o->items[i].value : NULL;
}

void slurm_options_set(struct slurm_options *o, const char *key, const char *value) {
        long i = options_find(o, key);
        if (i >= 0) {
                char *v = xstrdup(value);
                free(o->items[i].value);
                o->items[i].value = v;
                return;
        }
        options_push(o, xstrdup(key), xstrdup(value));
}

bool slurm_options_unset(struct slurm_options *o, const char *key) {
        long i = options_find(o, key);
        if (i < 0)
                return false;
        free(o->items[i].key);
        free(o->items[i].value);
        memmove(&o->items[i], &o->items[i + 1], (o->n - (size_t) i - 1) * sizeof(*o->items));
        o->n--;
        return true;
}

void slurm_options_merge(struct slurm_options *dst, const struct slurm_options *src) {
        if (dst == src)
                return;
        for (size_t i = 0; i < src->n; i++)
                slurm_options_set(dst, src->items[i].key, src->items[i].value);
}

void slurm_options_copy(struct slurm_options *dst, const struct slurm_options *src) {
        if (dst == src)
                return;
        slurm_options_clear(dst);
        for (size_t i = 0; i < src->n; i++)
                options_push(dst, xstrdup(src->items[i].key), xstrdup(src->items[i].value));
}
