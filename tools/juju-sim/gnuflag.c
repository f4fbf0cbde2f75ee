/* SPDX-License-Identifier: Apache-2.0 */
/* gnuflag: Juju's command-line grammar (juju/gnuflag flag.go) for juju-sim's hook tools and
 * CLI; the rules and messages are listed in gnuflag.h. */
#include "util/macro.h"

#include "gnuflag.h"
#include "util/alloc.h"
#include "util/banned.h"

int gnuflag_parse_bool(const char *s, bool *ret) {
        static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
        static const char *const no[] = { "0", "f", "F", "FALSE", "false", "False" };
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (streq(s, yes[i])) {
                        *ret = true;
                        return 0;
                }
                if (streq(s, no[i])) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

void gnuflag_quote(struct strbuf *out, const char *s) {
        strbuf_addch(out, '"');
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"':
                        strbuf_addstr(out, "\\\"");
                        break;
                case '\\':
                        strbuf_addstr(out, "\\\\");
                        break;
                case '\a':
                        strbuf_addstr(out, "\\a");
                        break;
                case '\b':
                        strbuf_addstr(out, "\\b");
                        break;
                case '\f':
                        strbuf_addstr(out, "\\f");
                        break;
                case '\n':
                        strbuf_addstr(out, "\\n");
                        break;
                case '\r':
                        strbuf_addstr(out, "\\r");
                        break;
                case '\t':
                        strbuf_addstr(out, "\\t");
                        break;
                case '\v':
                        strbuf_addstr(out, "\\v");
                        break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                strbuf_addf(out, "\\x%02x", *p);
                        else
                                strbuf_addch(out, (char) *p);
                }
        }
        strbuf_addch(out, '"');
}

const char *gnuflag_dashes(const char *name) {
        return strlen(name) > 1 ? "--" : "-";
}

static const struct gnuflag *lookup(const struct gnuflag *defs, size_t n, const char *name, size_t len) {
        for (size_t i = 0; i < n; i++)
                if (strlen(defs[i].name) == len && strncmp(defs[i].name, name, len) == 0)
                        return &defs[i];
        return NULL;
}

/* The length of the UTF-8 sequence starting at p (1 for a stray byte), as DecodeRuneInString. */
static size_t rune_len(const char *p) {
        unsigned char c = (unsigned char) *p;
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        for (size_t i = 1; i < n; i++)
                if (((unsigned char) p[i] >> 6) != 2)
                        return 1;
        return n;
}

static int invalid(struct strbuf *err, const char *value, const char *name, const char *why) {
        strbuf_addstr(err, "invalid value ");
        gnuflag_quote(err, value);
        strbuf_addf(err, " for option %s%s: %s", gnuflag_dashes(name), name, why);
        return -EINVAL;
}

/* One flag occurrence (parseFlagArg): name[0..len) given long or in a cluster; *rest is what
 * follows it in the same word ("=v" for a long flag, the rest of a cluster), consumed here when
 * it is the value; *i indexes the next argument, advanced when that is taken as the value. */
static int flag_arg(const struct gnuflag *defs, size_t ndefs, struct gnuflag_value *values, size_t nslots,
        const char *name, size_t len, bool long_, const char **rest, char *const *args, size_t *i,
        gnuflag_set_fn set, void *ud, struct strbuf *err) {
        const struct gnuflag *f = lookup(defs, ndefs, name, len);
        if (!f) {
                if ((len == 4 && strncmp(name, "help", 4) == 0) || (len == 1 && name[0] == 'h'))
                        return GNUFLAG_HELP;
                strbuf_addf(err, "option provided but not defined: %s%.*s", len > 1 ? "--" : "-", (int) len,
                        name);
                return -EINVAL;
        }
        if (f->slot >= nslots)
                return -EINVAL;
        struct gnuflag_value *v = &values[f->slot];
        if (f->kind == GNUFLAG_BOOL && **rest != '=') {
                v->set = true;
                v->b = true;
                v->as = f->name;
                return 0;
        }
        const char *value;
        if (**rest) {
                value = long_ ? *rest + 1 : *rest; /* a long flag's rest starts with '=' */
                *rest = "";
        } else if (args[*i])
                value = args[(*i)++];
        else {
                strbuf_addf(err, "option needs an argument: %s%s", gnuflag_dashes(f->name), f->name);
                return -EINVAL;
        }
        if (f->kind == GNUFLAG_BOOL) {
                bool b;
                if (gnuflag_parse_bool(value, &b) < 0) {
                        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
                        strbuf_addstr(&why, "strconv.ParseBool: parsing ");
                        gnuflag_quote(&why, value);
                        strbuf_addstr(&why, ": invalid syntax");
                        return invalid(err, value, f->name, why.buf);
                }
                v->set = true;
                v->b = b;
                v->as = f->name;
                return 0;
        }
        if (set) {
                _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
                if (set(ud, f, value, &why) < 0)
                        return invalid(err, value, f->name, why.buf);
        }
        v->set = true;
        v->value = value;
        v->as = f->name;
        return 0;
}

int gnuflag_parse(const struct gnuflag *defs, size_t ndefs, struct gnuflag_value *values, size_t nslots,
        bool intersperse, char *const *args, gnuflag_set_fn set, void *ud, struct strv *ret_args,
        struct strbuf *err) {
        _cleanup_strv_ struct strv pos = STRV_INIT;
        size_t i = 0;
        while (args[i]) {
                const char *a = args[i];
                if (a[0] != '-' || a[1] == '\0') { /* "", "-" and words are arguments */
                        if (!intersperse) {
                                for (; args[i]; i++)
                                        strv_push(&pos, args[i]);
                                break;
                        }
                        strv_push(&pos, a);
                        i++;
                        continue;
                }
                if (streq(a, "--")) {
                        for (i++; args[i]; i++)
                                strv_push(&pos, args[i]);
                        break;
                }
                i++;
                int r;
                if (a[1] == '-') {
                        const char *name = a + 2, *eq = strchr(name, '=');
                        size_t len = eq ? (size_t) (eq - name) : strlen(name);
                        if (eq && len == 0) {
                                strbuf_addstr(err, "empty option in argument ");
                                gnuflag_quote(err, a);
                                return -EINVAL;
                        }
                        const char *rest = eq ? eq : "";
                        r = flag_arg(
                                defs, ndefs, values, nslots, name, len, true, &rest, args, &i, set, ud, err);
                        if (r != 0)
                                return r;
                        continue;
                }
                /* a cluster of one-letter flags; a non-boolean one takes the rest as its value */
                const char *rest = a + 1;
                for (size_t guard = 0; *rest && guard < 4096; guard++) {
                        size_t n = rune_len(rest);
                        const char *name = rest;
                        rest += n;
                        r = flag_arg(
                                defs, ndefs, values, nslots, name, n, false, &rest, args, &i, set, ud, err);
                        if (r != 0)
                                return r;
                }
        }
        strv_clear(ret_args);
        *ret_args = pos;
        pos = (struct strv) STRV_INIT;
        return 0;
}
