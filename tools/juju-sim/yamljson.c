/* SPDX-License-Identifier: Apache-2.0 */
/* YAML <-> cJSON for juju-sim: a libyaml event parser building cJSON trees, a small block-style
 * YAML printer, and Juju's smart/json/yaml output formats. */
#include "util/macro.h"

#include <ctype.h>
#include <math.h>
#include <yaml.h>

#include "yamljson.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/banned.h"

const char *jstr(const cJSON *o, const char *k) {
        cJSON *v = jget(o, k);
        return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *jobj(cJSON *o, const char *k) {
        cJSON *v = jget(o, k);
        if (cJSON_IsObject(v))
                return v;
        v = cJSON_CreateObject();
        jset(o, k, v);
        return v;
}

cJSON *jarr(cJSON *o, const char *k) {
        cJSON *v = jget(o, k);
        if (cJSON_IsArray(v))
                return v;
        v = cJSON_CreateArray();
        jset(o, k, v);
        return v;
}

void jset(cJSON *o, const char *k, cJSON *v) {
        if (jget(o, k))
                cJSON_ReplaceItemInObjectCaseSensitive(o, k, v);
        else
                cJSON_AddItemToObject(o, k, v);
}

void jset_str(cJSON *o, const char *k, const char *s) {
        jset(o, k, cJSON_CreateString(strempty(s)));
}

void jset_num(cJSON *o, const char *k, double d) {
        jset(o, k, cJSON_CreateNumber(d));
}

double jnum(const cJSON *o, const char *k, double def) {
        cJSON *v = jget(o, k);
        return cJSON_IsNumber(v) ? v->valuedouble : def;
}

int jarr_find(const cJSON *a, const char *s) {
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, a) {
                if (cJSON_IsString(e) && streq(e->valuestring, s))
                        return i;
                i++;
        }
        return -1;
}

void jarr_remove_str(cJSON *a, const char *s) {
        int i;
        while ((i = jarr_find(a, s)) >= 0)
                cJSON_DeleteItemFromArray(a, i);
}

static bool parse_int(const char *s, long long *ret) {
        char *end;
        int base = 10;
        const char *p = s;
        if (*p == '+' || *p == '-')
                p++;
        if (!isdigit((unsigned char) *p))
                return false;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
                base = 16;
        else if (p[0] == '0' && (p[1] == 'o'))
                return false;
        errno = 0;
        long long v = strtoll(s, &end, base);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

static bool parse_float(const char *s, double *ret) {
        char *end;
        const char *p = s;
        if (*p == '+' || *p == '-')
                p++;
        if (!isdigit((unsigned char) *p) && !(*p == '.' && isdigit((unsigned char) p[1])))
                return false;
        errno = 0;
        double v = strtod(s, &end);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

cJSON *yaml_scalar_typed(const char *s) {
        long long i;
        double d;
        if (streq(s, "") || streq(s, "~") || streq(s, "null") || streq(s, "Null") || streq(s, "NULL"))
                return cJSON_CreateNull();
        /* yaml.v2's resolve table (YAML 1.1): y, yes, on are true; n, no, off false */
        static const char *const yes[] = { "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On",
                "ON" };
        static const char *const no[] = { "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off",
                "Off", "OFF" };
        for (size_t k = 0; k < ELEMENTSOF(yes); k++) {
                if (streq(s, yes[k]))
                        return cJSON_CreateTrue();
                if (streq(s, no[k]))
                        return cJSON_CreateFalse();
        }
        if (parse_int(s, &i))
                return cJSON_CreateNumber((double) i);
        if (parse_float(s, &d))
                return cJSON_CreateNumber(d);
        return cJSON_CreateString(s);
}

/* One open collection while parsing: the node and, for a map, the pending key. */
struct frame {
        cJSON *node;
        char *key;
};

static int add_node(struct frame *stack, int depth, cJSON **root, cJSON *node, struct strbuf *err) {
        if (depth == 0) {
                if (*root) {
                        cJSON_Delete(node);
                        return 0;
                }
                *root = node;
                return 0;
        }
        struct frame *f = &stack[depth - 1];
        if (cJSON_IsArray(f->node)) {
                cJSON_AddItemToArray(f->node, node);
                return 0;
        }
        if (!f->key) {
                if (!cJSON_IsString(node)) {
                        cJSON_Delete(node);
                        strbuf_addstr(err, "yaml: map keys must be scalars");
                        return -EINVAL;
                }
                f->key = xstrdup(node->valuestring);
                cJSON_Delete(node);
                return 0;
        }
        jset(f->node, f->key, node);
        free(f->key);
        f->key = NULL;
        return 0;
}

int yaml_to_json(const char *data, size_t len, bool typed, cJSON **ret, struct strbuf *err) {
        yaml_parser_t parser;
        yaml_event_t ev;
        struct frame stack[64] = {};
        int depth = 0, r = 0;
        cJSON *root = NULL;
        bool done = false, in_doc = false;

        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) data, len);
        while (!done) {
                if (!yaml_parser_parse(&parser, &ev)) {
                        strbuf_addf(err, "yaml: %s at line %zu", strempty(parser.problem),
                                parser.problem_mark.line + 1);
                        r = -EINVAL;
                        break;
                }
                switch (ev.type) {
                case YAML_STREAM_END_EVENT:
                        done = true;
                        break;
                case YAML_DOCUMENT_START_EVENT:
                        in_doc = true;
                        break;
                case YAML_DOCUMENT_END_EVENT:
                        done = in_doc;
                        break;
                case YAML_ALIAS_EVENT:
                        strbuf_addstr(err, "yaml: aliases are not supported");
                        r = -EINVAL;
                        break;
                case YAML_SCALAR_EVENT: {
                        const char *s = (const char *) ev.data.scalar.value;
                        bool plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                        bool is_key =
                                depth > 0 && cJSON_IsObject(stack[depth - 1].node) && !stack[depth - 1].key;
                        cJSON *n =
                                (typed && plain && !is_key) ? yaml_scalar_typed(s) : cJSON_CreateString(s);
                        r = add_node(stack, depth, &root, n, err);
                        break;
                }
                case YAML_SEQUENCE_START_EVENT:
                case YAML_MAPPING_START_EVENT:
                        if (depth >= (int) ELEMENTSOF(stack)) {
                                strbuf_addstr(err, "yaml: nested too deeply");
                                r = -EINVAL;
                                break;
                        }
                        stack[depth].node = ev.type == YAML_SEQUENCE_START_EVENT ? cJSON_CreateArray()
                                                                                 : cJSON_CreateObject();
                        stack[depth].key = NULL;
                        depth++;
                        break;
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT: {
                        depth--;
                        cJSON *n = stack[depth].node;
                        free(stack[depth].key);
                        stack[depth].node = NULL;
                        stack[depth].key = NULL;
                        r = add_node(stack, depth, &root, n, err);
                        break;
                }
                default:
                        break;
                }
                yaml_event_delete(&ev);
                if (r < 0)
                        break;
        }
        yaml_parser_delete(&parser);
        for (int i = 0; i < depth; i++) {
                cJSON_Delete(stack[i].node);
                free(stack[i].key);
        }
        if (r < 0) {
                cJSON_Delete(root);
                return r;
        }
        *ret = root ? root : cJSON_CreateNull();
        return 0;
}

int yaml_file_to_json(const char *path, bool typed, cJSON **ret, struct strbuf *err) {
        _cleanup_free_ char *data = NULL;
        size_t len;
        int r = read_full_file(path, &data, &len);
        if (r < 0) {
                if (r != -ENOENT)
                        strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        r = yaml_to_json(data, len, typed, ret, &e);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, e.buf);
        return r;
}

/* --- the YAML emitter: gopkg.in/yaml.v2 (encode.go stringv) over libyaml's emitter (emitterc.go:
 * analyze_scalar, select_scalar_style, write_plain/single/double/literal), best_width 80 ------- */

enum scalar_style { STYLE_PLAIN, STYLE_SINGLE, STYLE_DOUBLE, STYLE_LITERAL };

#define BEST_WIDTH 80

/* yaml.v2 resolve(): would the plain text read back as something other than a string? */
static bool resolves_non_str(const char *s) {
        if (!*s || streq(s, "<<"))
                return true;
        cJSON *t = yaml_scalar_typed(s);
        bool typed = !cJSON_IsString(t);
        cJSON_Delete(t);
        if (typed)
                return true;
        static const char *const special[] = { ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf",
                "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF" };
        for (size_t i = 0; i < ELEMENTSOF(special); i++)
                if (streq(s, special[i]))
                        return true;
        /* strconv.ParseInt(s, 0, 64): 0b, 0o, 0x, leading-0 octal, underscores */
        const char *p = s + (*s == '+' || *s == '-');
        if (isdigit((unsigned char) *p)) {
                bool ok = true, digit = false;
                int base = 10;
                if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
                        base = 2, p += 2;
                else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
                        base = 8, p += 2;
                else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
                        base = 16, p += 2;
                else if (p[0] == '0' && p[1])
                        base = 8, p += 1;
                for (; *p && ok; p++) {
                        if (*p == '_')
                                continue;
                        int d = isdigit((unsigned char) *p)    ? *p - '0'
                                : isxdigit((unsigned char) *p) ? (tolower((unsigned char) *p) - 'a' + 10)
                                                               : 99;
                        ok = d < base;
                        digit = digit || ok;
                }
                if (ok && digit)
                        return true;
        }
        /* a timestamp (2006-01-02, 2006-01-02T15:04:05…) starts yyyy-mm-dd */
        if (strlen(s) >= 10 && isdigit((unsigned char) s[0]) && isdigit((unsigned char) s[1]) &&
                isdigit((unsigned char) s[2]) && isdigit((unsigned char) s[3]) && s[4] == '-' &&
                isdigit((unsigned char) s[5]) && s[7] == '-' && isdigit((unsigned char) s[8]) &&
                (s[10] == '\0' || s[10] == 'T' || s[10] == 't' || s[10] == ' '))
                return true;
        /* isBase60Float: [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)? */
        p = s + (*s == '+' || *s == '-');
        if (isdigit((unsigned char) *p)) {
                while (isdigit((unsigned char) *p) || *p == '_')
                        p++;
                int groups = 0;
                while (*p == ':') {
                        p++;
                        if (!isdigit((unsigned char) *p))
                                return false;
                        if (isdigit((unsigned char) p[1])) {
                                if (*p > '5')
                                        return false;
                                p++;
                        }
                        p++;
                        groups++;
                }
                if (groups && *p == '.')
                        for (p++; isdigit((unsigned char) *p) || *p == '_'; p++)
                                ;
                if (groups && !*p)
                        return true;
        }
        return false;
}

static size_t u8len(const unsigned char *p) {
        return *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 1;
}

/* libyaml's is_printable (tab is not) */
static bool printable(const unsigned char *p) {
        if (*p == 0x0a || (*p >= 0x20 && *p <= 0x7e))
                return true;
        if (*p < 0x80)
                return false;
        if (p[0] == 0xc2)
                return p[1] >= 0xa0;
        if (p[0] == 0xed)
                return p[1] < 0xa0;
        if (p[0] == 0xef)
                return !(p[1] == 0xbb && p[2] == 0xbf) && !(p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf));
        return p[0] > 0xc2;
}

static bool is_break_at(const unsigned char *p) {
        return *p == '\n' || *p == '\r' || (p[0] == 0xc2 && p[1] == 0x85) ||
                (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9));
}

struct analysis {
        bool block_plain, single, block;
};

/* yaml_emitter_analyze_scalar, for block context */
static struct analysis analyze(const char *value) {
        const unsigned char *v = (const unsigned char *) value;
        size_t n = strlen(value);
        if (!n)
                return (struct analysis){ .block_plain = true, .single = true, .block = false };
        bool block_ind = false, special = false, lead_space = false, trail_space = false, lead_break = false,
             trail_break = false, break_space = false, space_break = false, prev_space = false,
             prev_break = false, line_breaks = false;
        if (startswith(value, "---") || startswith(value, "..."))
                block_ind = true;
        bool preceded_ws = true;
        for (size_t i = 0, w; i < n; i += w) {
                w = u8len(v + i);
                bool followed_ws =
                        i + w >= n || v[i + w] == ' ' || v[i + w] == '\t' || is_break_at(v + i + w);
                char c = (char) v[i];
                if (i == 0) {
                        if (strchr("#,[]{}&*!|>'\"%@`", c) && c)
                                block_ind = true;
                        else if ((c == '?' || c == ':' || c == '-') && followed_ws)
                                block_ind = true;
                } else if ((c == ':' && followed_ws) || (c == '#' && preceded_ws))
                        block_ind = true;
                if (!printable(v + i))
                        special = true;
                if (c == ' ') {
                        lead_space = lead_space || i == 0;
                        trail_space = trail_space || i + w == n;
                        break_space = break_space || prev_break;
                        prev_space = true, prev_break = false;
                } else if (is_break_at(v + i)) {
                        line_breaks = true;
                        lead_break = lead_break || i == 0;
                        trail_break = trail_break || i + w == n;
                        space_break = space_break || prev_space;
                        prev_space = false, prev_break = true;
                } else
                        prev_space = prev_break = false;
                preceded_ws = c == ' ' || c == '\t' || is_break_at(v + i);
        }
        struct analysis a = { .block_plain = true, .single = true, .block = true };
        if (lead_space || lead_break || trail_space || trail_break)
                a.block_plain = false;
        if (trail_space)
                a.block = false;
        if (break_space)
                a.block_plain = a.single = false;
        if (space_break || special)
                a.block_plain = a.single = a.block = false;
        if (line_breaks || block_ind)
                a.block_plain = false;
        return a;
}

/* encode.go stringv + select_scalar_style */
static enum scalar_style string_style(const char *s, bool simple_key) {
        struct analysis a = analyze(s);
        enum scalar_style st = strchr(s, '\n') ? STYLE_LITERAL
                : resolves_non_str(s)          ? STYLE_DOUBLE
                                               : STYLE_PLAIN;
        if (st == STYLE_PLAIN && (!a.block_plain || (!*s && simple_key)))
                st = STYLE_SINGLE;
        if (st == STYLE_SINGLE && !a.single)
                st = STYLE_DOUBLE;
        if (st == STYLE_LITERAL && (!a.block || simple_key))
                st = STYLE_DOUBLE;
        return st;
}

static size_t column(const struct strbuf *out) {
        size_t col = 0;
        for (size_t i = out->len; i > 0 && out->buf[i - 1] != '\n'; i--)
                col += ((unsigned char) out->buf[i - 1] & 0xc0) != 0x80;
        return col;
}

static void write_indent(struct strbuf *out, int ind) {
        strbuf_addch(out, '\n');
        for (int i = 0; i < ind; i++)
                strbuf_addch(out, ' ');
}

static void write_double(struct strbuf *out, const char *s, int ind, bool breaks) {
        static const char hex[] = "0123456789ABCDEF";
        const unsigned char *v = (const unsigned char *) s;
        size_t n = strlen(s);
        bool spaces = false;
        strbuf_addch(out, '"');
        for (size_t i = 0, w; i < n; i += w) {
                w = u8len(v + i);
                if (!printable(v + i) || is_break_at(v + i) || v[i] == '"' || v[i] == '\\' ||
                        (v[i] == 0xef && v[i + 1] == 0xbb && v[i + 2] == 0xbf)) {
                        unsigned cp = v[i];
                        if (w == 2)
                                cp = (v[i] & 0x1fu) << 6 | (v[i + 1] & 0x3fu);
                        else if (w == 3)
                                cp = (v[i] & 0x0fu) << 12 | (v[i + 1] & 0x3fu) << 6 | (v[i + 2] & 0x3fu);
                        else if (w == 4)
                                cp = (v[i] & 0x07u) << 18 | (v[i + 1] & 0x3fu) << 12 |
                                        (v[i + 2] & 0x3fu) << 6 | (v[i + 3] & 0x3fu);
                        const char *e = cp == 0 ? "0"
                                : cp == 7       ? "a"
                                : cp == 8       ? "b"
                                : cp == 9       ? "t"
                                : cp == 10      ? "n"
                                : cp == 11      ? "v"
                                : cp == 12      ? "f"
                                : cp == 13      ? "r"
                                : cp == 0x1b    ? "e"
                                : cp == '"'     ? "\""
                                : cp == '\\'    ? "\\"
                                : cp == 0x85    ? "N"
                                : cp == 0xa0    ? "_"
                                : cp == 0x2028  ? "L"
                                : cp == 0x2029  ? "P"
                                                : NULL;
                        strbuf_addch(out, '\\');
                        if (e)
                                strbuf_addstr(out, e);
                        else {
                                int digits = cp <= 0xff ? 2 : cp <= 0xffff ? 4 : 8;
                                strbuf_addch(out, digits == 2 ? 'x' : digits == 4 ? 'u' : 'U');
                                for (int k = digits - 1; k >= 0; k--)
                                        strbuf_addch(out, hex[(cp >> (4 * k)) & 15]);
                        }
                        spaces = false;
                } else if (v[i] == ' ') {
                        if (breaks && !spaces && column(out) > BEST_WIDTH && i != 0 && i != n - 1) {
                                write_indent(out, ind);
                                if (v[i + 1] == ' ')
                                        strbuf_addch(out, '\\');
                        } else
                                strbuf_addch(out, ' ');
                        spaces = true;
                } else {
                        strbuf_add(out, v + i, w);
                        spaces = false;
                }
        }
        strbuf_addch(out, '"');
}

static void write_single(struct strbuf *out, const char *s, int ind, bool breaks) {
        const unsigned char *v = (const unsigned char *) s;
        size_t n = strlen(s);
        bool spaces = false;
        strbuf_addch(out, '\'');
        for (size_t i = 0, w; i < n; i += w) {
                w = u8len(v + i);
                if (v[i] == ' ') {
                        if (breaks && !spaces && column(out) > BEST_WIDTH && i != 0 && i != n - 1 &&
                                v[i + 1] != ' ')
                                write_indent(out, ind);
                        else
                                strbuf_addch(out, ' ');
                        spaces = true;
                } else {
                        if (v[i] == '\'')
                                strbuf_addch(out, '\'');
                        strbuf_add(out, v + i, w);
                        spaces = false;
                }
        }
        strbuf_addch(out, '\'');
}

static void write_plain(struct strbuf *out, const char *s, int ind, bool breaks) {
        const unsigned char *v = (const unsigned char *) s;
        bool spaces = false;
        for (size_t i = 0; v[i]; i++) {
                if (v[i] == ' ') {
                        if (breaks && !spaces && column(out) > BEST_WIDTH && v[i + 1] != ' ')
                                write_indent(out, ind);
                        else
                                strbuf_addch(out, ' ');
                        spaces = true;
                } else {
                        strbuf_addch(out, (char) v[i]);
                        spaces = false;
                }
        }
}

/* |, |- or |+ by the trailing line breaks; an indentation hint when the text starts with a
 * space; each line at ind, empty lines empty. Ends with the line's newline. */
static void write_literal(struct strbuf *out, const char *s, int ind) {
        size_t n = strlen(s);
        strbuf_addch(out, '|');
        if (s[0] == ' ' || s[0] == '\n')
                strbuf_addch(out, '2');
        if (s[n - 1] != '\n')
                strbuf_addch(out, '-');
        else if (n == 1 || s[n - 2] == '\n')
                strbuf_addch(out, '+');
        strbuf_addch(out, '\n');
        const char *l = s;
        for (size_t guard = 0; *l && guard < n + 1; guard++) {
                const char *nl = strchr(l, '\n');
                size_t len = nl ? (size_t) (nl - l) : strlen(l);
                if (len) {
                        for (int i = 0; i < ind; i++)
                                strbuf_addch(out, ' ');
                        strbuf_add(out, l, len);
                }
                strbuf_addch(out, '\n');
                l += len + (nl != NULL);
        }
}

/* A string scalar at node indent ind; a key (simple) is never folded. Returns true when it
 * already ended its line (a literal). */
static bool add_string(struct strbuf *out, const char *s, int ind, bool simple_key) {
        switch (string_style(s, simple_key)) {
        case STYLE_PLAIN:
                write_plain(out, s, ind, !simple_key);
                return false;
        case STYLE_SINGLE:
                write_single(out, s, ind, !simple_key);
                return false;
        case STYLE_DOUBLE:
                write_double(out, s, ind, !simple_key);
                return false;
        case STYLE_LITERAL:
                write_literal(out, s, ind);
                return true;
        }
        return false;
}

static void add_number(struct strbuf *out, double d) {
        if (isfinite(d) && d == floor(d) && fabs(d) < 1e15)
                strbuf_addf(out, "%lld", (long long) d);
        else
                strbuf_addf(out, "%.15g", d);
}

/* One scalar at node indent ind, then the end of its line. */
static void add_scalar(struct strbuf *out, const cJSON *v, int ind) {
        if (cJSON_IsString(v)) {
                if (add_string(out, v->valuestring, ind, false))
                        return;
        } else if (cJSON_IsNumber(v))
                add_number(out, v->valuedouble);
        else if (cJSON_IsTrue(v))
                strbuf_addstr(out, "true");
        else if (cJSON_IsFalse(v))
                strbuf_addstr(out, "false");
        else if (cJSON_IsObject(v))
                strbuf_addstr(out, "{}");
        else if (cJSON_IsArray(v))
                strbuf_addstr(out, "[]");
        else
                strbuf_addstr(out, "null");
        strbuf_addch(out, '\n');
}

static bool is_block(const cJSON *v) {
        return (cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child;
}

static void indent(struct strbuf *out, int n) {
        for (int i = 0; i < n; i++)
                strbuf_addch(out, ' ');
}

static void emit(struct strbuf *out, const cJSON *v, int ind) {
        const cJSON *c;
        if (cJSON_IsObject(v) && v->child) {
                cJSON_ArrayForEach(c, v) {
                        indent(out, ind);
                        add_string(out, c->string, ind + 2, true);
                        strbuf_addch(out, ':');
                        if (cJSON_IsObject(c) && c->child) {
                                strbuf_addch(out, '\n');
                                emit(out, c, ind + 2);
                        } else if (cJSON_IsArray(c) && c->child) {
                                strbuf_addch(out, '\n');
                                emit(out, c, ind);
                        } else {
                                strbuf_addch(out, ' ');
                                add_scalar(out, c, ind + 2);
                        }
                }
        } else if (cJSON_IsArray(v) && v->child) {
                cJSON_ArrayForEach(c, v) {
                        indent(out, ind);
                        strbuf_addstr(out, "- ");
                        if (is_block(c)) {
                                _cleanup_strbuf_ struct strbuf sub = STRBUF_INIT;
                                emit(&sub, c, ind + 2);
                                strbuf_addstr(out, sub.buf + ind + 2);
                        } else
                                add_scalar(out, c, ind + 2);
                }
        } else {
                indent(out, ind);
                add_scalar(out, v, ind + 2);
        }
}

void json_to_yaml(struct strbuf *out, const cJSON *v) {
        emit(out, v, 0);
}

int parse_format(const char *s, enum out_format *ret) {
        if (streq(s, "smart"))
                *ret = FORMAT_SMART;
        else if (streq(s, "json"))
                *ret = FORMAT_JSON;
        else if (streq(s, "yaml"))
                *ret = FORMAT_YAML;
        else
                return -EINVAL;
        return 0;
}

static int key_cmp(const void *a, const void *b) {
        return strcmp((*(cJSON *const *) a)->string, (*(cJSON *const *) b)->string);
}

void json_sort_members(cJSON *o) {
        size_t n = 0;
        for (cJSON *c = cJSON_IsObject(o) ? o->child : NULL; c; c = c->next)
                n++;
        if (n < 2)
                return;
        cJSON **items = xmalloc(n * sizeof(*items));
        n = 0;
        for (cJSON *c = o->child; c; c = c->next)
                items[n++] = c;
        qsort(items, n, sizeof(*items), key_cmp);
        for (size_t i = 0; i < n; i++) {
                items[i]->prev = i ? items[i - 1] : items[n - 1]; /* cJSON: child->prev is the last */
                items[i]->next = i + 1 < n ? items[i + 1] : NULL;
        }
        o->child = items[0];
        free(items);
}

/* Sorts every object's members by key, recursively (Go's encoders print maps sorted). */
static void sort_keys(cJSON *v) {
        for (cJSON *c = v ? v->child : NULL; c; c = c->next)
                sort_keys(c);
        json_sort_members(v);
}

/* Go's strconv.FormatFloat(d, 'f' or 'e', -1, 64) as encoding/json uses it. */
static void add_go_number(struct strbuf *out, double d) {
        char buf[64];
        double a = fabs(d);
        if (!isfinite(d)) {
                strbuf_addstr(out, "null");
                return;
        }
        if (a == 0 || (a >= 1e-6 && a < 1e21)) {
                for (int p = 0; p <= 30; p++) {
                        snprintf(buf, sizeof(buf), "%.*f", p, d);
                        if (strtod(buf, NULL) == d)
                                break;
                }
                strbuf_addstr(out, buf);
                return;
        }
        for (int p = 0; p <= 17; p++) {
                snprintf(buf, sizeof(buf), "%.*e", p, d);
                if (strtod(buf, NULL) == d)
                        break;
        }
        size_t n = strlen(buf);
        if (n >= 4 && buf[n - 4] == 'e' && buf[n - 3] == '-' && buf[n - 2] == '0') {
                buf[n - 2] = buf[n - 1];
                buf[n - 1] = '\0';
        }
        strbuf_addstr(out, buf);
}

/* A JSON string as Go's encoding/json writes it (HTML-safe: <, >, & escaped; U+2028/9 too). */
static void add_go_string(struct strbuf *out, const char *s) {
        strbuf_addch(out, '"');
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"':
                        strbuf_addstr(out, "\\\"");
                        break;
                case '\\':
                        strbuf_addstr(out, "\\\\");
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
                case '\b':
                        strbuf_addstr(out, "\\b");
                        break;
                case '\f':
                        strbuf_addstr(out, "\\f");
                        break;
                case '<':
                case '>':
                case '&':
                        strbuf_addf(out, "\\u%04x", *p);
                        break;
                default:
                        if (*p < 0x20)
                                strbuf_addf(out, "\\u%04x", *p);
                        else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
                                strbuf_addf(out, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
                                p += 2;
                        } else
                                strbuf_addch(out, (char) *p);
                }
        }
        strbuf_addch(out, '"');
}

static void add_go_json(struct strbuf *out, const cJSON *v) {
        const cJSON *c;
        if (cJSON_IsString(v))
                add_go_string(out, v->valuestring);
        else if (cJSON_IsNumber(v))
                add_go_number(out, v->valuedouble);
        else if (cJSON_IsTrue(v))
                strbuf_addstr(out, "true");
        else if (cJSON_IsFalse(v))
                strbuf_addstr(out, "false");
        else if (cJSON_IsObject(v)) {
                strbuf_addch(out, '{');
                cJSON_ArrayForEach(c, v) {
                        if (c != v->child)
                                strbuf_addch(out, ',');
                        add_go_string(out, c->string);
                        strbuf_addch(out, ':');
                        add_go_json(out, c);
                }
                strbuf_addch(out, '}');
        } else if (cJSON_IsArray(v)) {
                strbuf_addch(out, '[');
                cJSON_ArrayForEach(c, v) {
                        if (c != v->child)
                                strbuf_addch(out, ',');
                        add_go_json(out, c);
                }
                strbuf_addch(out, ']');
        } else
                strbuf_addstr(out, "null");
}

void json_to_go_json(struct strbuf *out, const cJSON *v) {
        add_go_json(out, v);
}

/* cmd.FormatJson / FormatYaml / FormatSmart (juju/cmd output.go). */
static void format_any(struct strbuf *out, const cJSON *v0, enum out_format f, bool sort) {
        _cleanup_json_ cJSON *copy = v0 && !cJSON_IsNull(v0) ? cJSON_Duplicate(v0, true) : NULL;
        const cJSON *v = copy;
        if (sort)
                sort_keys(copy);
        if (f == FORMAT_JSON) {
                add_go_json(out, v);
                strbuf_addch(out, '\n');
                return;
        }
        if (f == FORMAT_YAML) {
                if (v)
                        json_to_yaml(out, v);
                return;
        }
        if (!v)
                return;
        if (cJSON_IsString(v)) {
                if (*v->valuestring) {
                        strbuf_addstr(out, v->valuestring);
                        strbuf_addch(out, '\n');
                }
        } else if (cJSON_IsBool(v)) {
                strbuf_addstr(out, cJSON_IsTrue(v) ? "True\n" : "False\n");
        } else if (cJSON_IsNumber(v)) {
                json_to_yaml(out, v);
        } else if (cJSON_IsArray(v) && v->child) {
                const cJSON *c;
                bool strings = true;
                cJSON_ArrayForEach(c, v) strings = strings && cJSON_IsString(c);
                if (!strings) {
                        json_to_yaml(out, v);
                        return;
                }
                _cleanup_strbuf_ struct strbuf l = STRBUF_INIT;
                cJSON_ArrayForEach(c, v) {
                        if (c != v->child)
                                strbuf_addch(&l, '\n');
                        strbuf_addstr(&l, c->valuestring);
                }
                if (l.len) {
                        strbuf_addbuf(out, &l);
                        strbuf_addch(out, '\n');
                }
        } else if (cJSON_IsArray(v))
                return; /* an empty []string joins to "" */
        else
                json_to_yaml(out, v);
}

void format_value(struct strbuf *out, const cJSON *v, enum out_format f) {
        format_any(out, v, f, true);
}

void format_struct(struct strbuf *out, const cJSON *v, enum out_format f) {
        format_any(out, v, f, false);
}
