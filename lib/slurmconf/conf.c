/* SPDX-License-Identifier: Apache-2.0 */
/* The slurm.conf line model: one copy of the input, compact line records in a linked order,
 * a (kind, name) hash index, lazy re-reading of named lines, canonical rendering of edits. */
#include "util/macro.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>

#include "slurmconf/conf.h"
#include "util/alloc.h"
#include "util/banned.h"

#define NONE UINT32_MAX
#define TOMB (UINT32_MAX - 1)

/* Line kinds: the scopes (GLOBAL = a line of global keys, NODE… = a multi-key line), then: */
enum {
        LK_INCLUDE = _SLURMCONF_SCOPE_MAX,
        LK_OTHER, /* blank or comment only */
        _LK_MAX,
};

enum {
        LF_DELETED = 1 << 0,
        LF_EDITED = 1 << 1, /* text lives in c->edits, not c->data */
        LF_DEFAULT = 1 << 2,
        LF_INDEXED = 1 << 3,
};

struct line {
        uint32_t off, len; /* raw text, newline included, in data or edits */
        uint32_t next;     /* render order */
        uint32_t name;     /* offset in names, or NONE */
        uint32_t lineno;   /* first physical line (0 for added lines) */
        uint8_t kind, flags;
};

struct entry { /* one Key=Value of a global line */
        const struct slurmconf_key *key;
        uint32_t value; /* offset in names */
        uint32_t line;
        bool deleted;
};

struct slurmconf {
        char *path;
        char *data;
        size_t len;
        struct strbuf edits;
        struct strbuf names; /* NUL-terminated names, paths and global values */
        struct line *lines;
        size_t n_lines, alloc_lines;
        uint32_t head, tail;
        uint32_t last[_LK_MAX];
        struct entry *entries;
        size_t n_entries, alloc_entries;
        struct slot {
                uint32_t line, hash;
        } * index;
        size_t index_size, index_used;
        bool has_dups;
};

struct pair {
        const char *key, *val;
        size_t klen, vlen;
};

/* Reading state, shared by the parser and slurmconf_lookup(). */
struct reader {
        const char *path;
        struct strbuf *err;
        unsigned n_errors;
        struct strbuf scratch;
        struct pair *pairs;
        size_t n_pairs, alloc_pairs;
};

static bool is_blank(char ch) {
        return ch == ' ' || ch == '\t' || ch == '\r';
}

static bool is_key_char(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                ch == '_' || ch == '.';
}

static void add_sanitized(struct strbuf *sb, const char *s, size_t len) {
        size_t n = len > 40 ? 40 : len;
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char) s[i];
                strbuf_addch(sb, ch >= 0x20 && ch < 0x7f ? (char) ch : '?');
        }
        if (len > n)
                strbuf_addstr(sb, "...");
}

_printf_(3, 4) static void rerror(struct reader *r, unsigned lineno, const char *fmt, ...) {
        r->n_errors++;
        if (!r->err || r->n_errors > SLURMCONF_MAX_ERRORS + 1)
                return;
        if (r->err->len > 0 && r->err->buf[r->err->len - 1] != '\n')
                strbuf_addch(r->err, '\n');
        if (r->n_errors == SLURMCONF_MAX_ERRORS + 1) {
                strbuf_addf(r->err, "%s: more errors follow, not shown", r->path);
                return;
        }
        strbuf_addf(r->err, "%s:%u: ", r->path, lineno);
        va_list ap;
        va_start(ap, fmt);
        strbuf_vaddf(r->err, fmt, ap);
        va_end(ap);
}

/* Reads the logical line at d[pos]: appends its text to out with comments stripped and
 * continuations joined (escapes still in), returns the position after it. */
static size_t read_logical(
        const char *d, size_t len, size_t pos, struct strbuf *out, unsigned *ret_phys, bool *ret_cont_eof) {
        unsigned phys = 0;
        *ret_cont_eof = false;
        for (;;) {
                const char *nl = memchr(d + pos, '\n', len - pos);
                size_t end = nl ? (size_t) (nl - d) : len;
                size_t next = nl ? end + 1 : len;
                size_t cend = end, bs = 0;
                phys++;
                for (size_t i = pos; i < end; i++) {
                        if (d[i] == '#' && bs % 2 == 0) {
                                cend = i;
                                break;
                        }
                        bs = d[i] == '\\' ? bs + 1 : 0;
                }
                size_t e = cend, nbs = 0;
                while (e > pos && is_blank(d[e - 1]))
                        e--;
                while (e > pos && d[e - 1] == '\\') {
                        e--;
                        nbs++;
                }
                if (nbs % 2 == 1) {
                        strbuf_add(out, d + pos, e - pos + nbs - 1);
                        pos = next;
                        if (pos >= len) {
                                *ret_cont_eof = true;
                                break;
                        }
                        if (out->len > SLURMCONF_MAX_LINE)
                                break;
                        continue;
                }
                strbuf_add(out, d + pos, cend - pos);
                pos = next;
                break;
        }
        *ret_phys = phys;
        return pos;
}

static void unescape(struct strbuf *sb) {
        if (!memchr(sb->buf, '\\', sb->len))
                return;
        size_t j = 0;
        for (size_t i = 0; i < sb->len; i++) {
                if (sb->buf[i] == '\\' && ++i >= sb->len)
                        break;
                sb->buf[j++] = sb->buf[i];
        }
        strbuf_setlen(sb, j);
}

static void push_pair(struct reader *r, const char *k, size_t kl, const char *v, size_t vl) {
        if (r->n_pairs == r->alloc_pairs) {
                r->alloc_pairs = r->alloc_pairs ? r->alloc_pairs * 2 : 16;
                r->pairs = xrealloc(r->pairs, r->alloc_pairs * sizeof(*r->pairs));
        }
        r->pairs[r->n_pairs++] = (struct pair){ .key = k, .klen = kl, .val = v, .vlen = vl };
}

/* Splits s into Key=Value pairs (r->pairs, pointing into s). */
static int tokenize(struct reader *r, const char *s, size_t n, unsigned lineno) {
        size_t i = 0;
        r->n_pairs = 0;
        for (;;) {
                while (i < n && is_blank(s[i]))
                        i++;
                if (i >= n)
                        return 0;
                size_t ks = i;
                while (i < n && is_key_char(s[i]))
                        i++;
                size_t klen = i - ks, j = i;
                while (j < n && is_blank(s[j]))
                        j++;
                if (klen == 0 || j >= n || s[j] != '=') {
                        size_t e = ks;
                        while (e < n && !is_blank(s[e]))
                                e++;
                        struct strbuf m = STRBUF_INIT;
                        add_sanitized(&m, s + ks, e - ks);
                        if (klen == 0)
                                rerror(r, lineno, "unexpected \"%s\", expected Key=Value", m.buf);
                        else
                                rerror(r, lineno, "expected \"=\" after \"%.*s\"", (int) klen, s + ks);
                        strbuf_release(&m);
                        return -EINVAL;
                }
                i = j + 1;
                while (i < n && is_blank(s[i]))
                        i++;
                if (i >= n) {
                        rerror(r, lineno, "no value for \"%.*s\"", (int) klen, s + ks);
                        return -EINVAL;
                }
                const char *v;
                size_t vlen;
                if (s[i] == '"') {
                        const char *close = memchr(s + i + 1, '"', n - i - 1);
                        if (!close) {
                                rerror(r, lineno, "unbalanced quote in value of \"%.*s\"", (int) klen,
                                        s + ks);
                                return -EINVAL;
                        }
                        v = s + i + 1;
                        vlen = (size_t) (close - v);
                        i = (size_t) (close - s) + 1;
                        if (i < n && !is_blank(s[i])) {
                                rerror(r, lineno, "text after the closing quote in value of \"%.*s\"",
                                        (int) klen, s + ks);
                                return -EINVAL;
                        }
                } else {
                        v = s + i;
                        while (i < n && !is_blank(s[i]))
                                i++;
                        vlen = (size_t) (s + i - v);
                        if (memchr(v, '"', vlen)) {
                                rerror(r, lineno, "stray quote in value of \"%.*s\"", (int) klen, s + ks);
                                return -EINVAL;
                        }
                }
                push_pair(r, s + ks, klen, v, vlen);
        }
}

/* Reads the line text t[0..len) into r->scratch (unescaped) and its pairs. */
static int read_line_pairs(struct reader *r, const char *t, size_t len, unsigned lineno) {
        unsigned phys;
        bool cont_eof;
        strbuf_reset(&r->scratch);
        read_logical(t, len, 0, &r->scratch, &phys, &cont_eof);
        unescape(&r->scratch);
        return tokenize(r, r->scratch.buf, r->scratch.len, lineno);
}

static void reader_done(struct reader *r) {
        strbuf_release(&r->scratch);
        free(r->pairs);
}

/* --- the index --------------------------------------------------------------------------- */

static const char *line_name(const struct slurmconf *c, const struct line *l) {
        return l->name == NONE ? NULL : c->names.buf + l->name;
}

static uint32_t hash_name(unsigned kind, const char *name) {
        uint32_t h = 2166136261u ^ kind;
        for (const unsigned char *p = (const unsigned char *) name; *p; p++) {
                h ^= *p;
                h *= 16777619u;
        }
        h ^= h >> 16; /* finalizer: spread similar names ("node000001", "node000002") */
        h *= 0x85ebca6bu;
        h ^= h >> 13;
        h *= 0xc2b2ae35u;
        return h ^ (h >> 16);
}

/* Slots hold the line and its hash, so that a probe touches no line or name unless the
 * hashes match (the lines and names of 100,000 nodes do not fit in a cache). */
static uint32_t index_find_h(
        const struct slurmconf *c, unsigned kind, const char *name, uint32_t h, size_t *ret_slot) {
        if (c->index_size == 0)
                return NONE;
        size_t mask = c->index_size - 1, slot = h & mask;
        for (size_t probes = 0; probes < c->index_size; probes++, slot = (slot + 1) & mask) {
                uint32_t i = c->index[slot].line;
                if (i == NONE)
                        break;
                if (i == TOMB || c->index[slot].hash != h)
                        continue;
                const struct line *l = &c->lines[i];
                if (l->kind == kind && streq(line_name(c, l), name)) {
                        if (ret_slot)
                                *ret_slot = slot;
                        return i;
                }
        }
        return NONE;
}

static uint32_t index_find(const struct slurmconf *c, unsigned kind, const char *name, size_t *ret_slot) {
        return index_find_h(c, kind, name, hash_name(kind, name), ret_slot);
}

static void index_put(struct slurmconf *c, uint32_t idx, uint32_t h) {
        size_t mask = c->index_size - 1, slot = h & mask;
        while (c->index[slot].line != NONE && c->index[slot].line != TOMB)
                slot = (slot + 1) & mask;
        if (c->index[slot].line == NONE)
                c->index_used++;
        c->index[slot].line = idx;
        c->index[slot].hash = h;
}

static void index_rebuild(struct slurmconf *c, size_t want) {
        size_t size = 64;
        while (size < want * 2)
                size *= 2;
        struct slot *old = c->index;
        size_t old_size = c->index_size;
        c->index = xmalloc(size * sizeof(*c->index));
        memset(c->index, 0xff, size * sizeof(*c->index)); /* NONE */
        c->index_size = size;
        c->index_used = 0;
        for (size_t i = 0; i < old_size; i++)
                if (old[i].line != NONE && old[i].line != TOMB)
                        index_put(c, old[i].line, old[i].hash);
        free(old);
}

/* Indexes line idx (its name not indexed yet) under hash h. */
static void index_add_h(struct slurmconf *c, uint32_t idx, uint32_t h) {
        if ((c->index_used + 1) * 2 > c->index_size) {
                size_t live = 0;
                for (size_t i = 0; i < c->index_size; i++)
                        live += c->index[i].line != NONE && c->index[i].line != TOMB;
                index_rebuild(c, live * 2 + 2);
        }
        c->lines[idx].flags |= LF_INDEXED;
        index_put(c, idx, h);
}

static void index_add(struct slurmconf *c, uint32_t idx) {
        const struct line *l = &c->lines[idx];
        index_add_h(c, idx, hash_name(l->kind, line_name(c, l)));
}

/* --- lines ------------------------------------------------------------------------------- */

static uint32_t add_name(struct slurmconf *c, const char *s, size_t len) {
        uint32_t off = (uint32_t) c->names.len;
        strbuf_add(&c->names, s, len);
        strbuf_addch(&c->names, '\0');
        return off;
}

static uint32_t new_line(struct slurmconf *c, unsigned kind) {
        if (c->n_lines == c->alloc_lines) {
                c->alloc_lines = c->alloc_lines ? c->alloc_lines * 2 : 64;
                c->lines = xrealloc(c->lines, c->alloc_lines * sizeof(*c->lines));
        }
        uint32_t idx = (uint32_t) c->n_lines++;
        c->lines[idx] = (struct line){ .next = NONE, .name = NONE, .kind = (uint8_t) kind };
        return idx;
}

static void append_order(struct slurmconf *c, uint32_t idx) {
        if (c->tail == NONE)
                c->head = idx;
        else
                c->lines[c->tail].next = idx;
        c->tail = idx;
}

static void insert_after(struct slurmconf *c, uint32_t anchor, uint32_t idx) {
        if (anchor == NONE || anchor == c->tail) {
                append_order(c, idx);
                return;
        }
        c->lines[idx].next = c->lines[anchor].next;
        c->lines[anchor].next = idx;
}

static const char *line_text(const struct slurmconf *c, const struct line *l) {
        return (l->flags & LF_EDITED ? c->edits.buf : c->data) + l->off;
}

static void set_line_text(struct slurmconf *c, uint32_t idx, const char *text, size_t len) {
        c->lines[idx].off = (uint32_t) c->edits.len;
        c->lines[idx].len = (uint32_t) len;
        c->lines[idx].flags |= LF_EDITED;
        strbuf_add(&c->edits, text, len);
}

static void push_entry(struct slurmconf *c, const struct slurmconf_key *k, uint32_t value, uint32_t line) {
        if (c->n_entries == c->alloc_entries) {
                c->alloc_entries = c->alloc_entries ? c->alloc_entries * 2 : 32;
                c->entries = xrealloc(c->entries, c->alloc_entries * sizeof(*c->entries));
        }
        c->entries[c->n_entries++] = (struct entry){ .key = k, .value = value, .line = line };
}

/* Where a new line of kind goes: after the last line of its kind, else of a related kind. */
static uint32_t anchor_for(const struct slurmconf *c, unsigned kind) {
        static const int8_t chains[_LK_MAX][5] = {
                [SLURMCONF_GLOBAL] = { SLURMCONF_GLOBAL, -1 },
                [SLURMCONF_NODE] = { SLURMCONF_NODE, SLURMCONF_GLOBAL, -1 },
                [SLURMCONF_NODESET] = { SLURMCONF_NODESET, SLURMCONF_NODE, SLURMCONF_GLOBAL, -1 },
                [SLURMCONF_PARTITION] = { SLURMCONF_PARTITION, SLURMCONF_NODESET, SLURMCONF_NODE,
                        SLURMCONF_GLOBAL, -1 },
                [SLURMCONF_DOWNNODES] = { SLURMCONF_DOWNNODES, SLURMCONF_NODE, SLURMCONF_GLOBAL, -1 },
                [SLURMCONF_FRONTEND] = { SLURMCONF_FRONTEND, SLURMCONF_GLOBAL, -1 },
                [LK_INCLUDE] = { LK_INCLUDE, -1 },
                [LK_OTHER] = { -1 },
        };
        for (size_t i = 0; i < 5 && chains[kind][i] >= 0; i++)
                if (c->last[chains[kind][i]] != NONE)
                        return c->last[chains[kind][i]];
        return c->tail;
}

/* The comment at the end of a line's last physical line ("# …", no newline), if any. */
static void trailing_comment(const char *t, size_t len, const char **ret, size_t *ret_len) {
        *ret = NULL;
        *ret_len = 0;
        while (len > 0 && (t[len - 1] == '\n' || t[len - 1] == '\r'))
                len--;
        const char *nl = memrchr(t, '\n', len);
        size_t start = nl ? (size_t) (nl - t) + 1 : 0, bs = 0;
        for (size_t i = start; i < len; i++) {
                if (t[i] == '#' && bs % 2 == 0) {
                        *ret = t + i;
                        *ret_len = len - i;
                        return;
                }
                bs = t[i] == '\\' ? bs + 1 : 0;
        }
}

static void add_value(struct strbuf *sb, const char *v) {
        bool quote = !*v || strpbrk(v, " \t\r");
        if (quote)
                strbuf_addch(sb, '"');
        for (; *v; v++) {
                if (*v == '\\' || *v == '#')
                        strbuf_addch(sb, '\\');
                strbuf_addch(sb, *v);
        }
        if (quote)
                strbuf_addch(sb, '"');
}

static void finish_line_text(struct slurmconf *c, uint32_t idx, struct strbuf *text, bool keep_comment) {
        if (keep_comment) {
                const struct line *l = &c->lines[idx];
                const char *cm;
                size_t cl;
                trailing_comment(line_text(c, l), l->len, &cm, &cl);
                if (cm) {
                        strbuf_addch(text, ' ');
                        strbuf_add(text, cm, cl);
                }
        }
        strbuf_addch(text, '\n');
        set_line_text(c, idx, text->buf, text->len);
}

/* --- parsing ----------------------------------------------------------------------------- */

static void report_key(struct reader *r, unsigned lineno, const struct pair *p, enum slurmconf_scope scope,
        const struct slurmconf_key *k) {
        if (k) {
                rerror(r, lineno, "key \"%s\" is not supported by Slurm 22.05 (added in %s)", k->name,
                        k->since);
                return;
        }
        bool elsewhere = false;
        for (unsigned s = 0; s < _SLURMCONF_SCOPE_MAX && !elsewhere; s++)
                elsewhere = s != scope && slurmconf_key_lookup_n(s, p->key, p->klen);
        if (elsewhere && scope == SLURMCONF_GLOBAL)
                rerror(r, lineno, "key \"%.*s\" is not a global key", (int) p->klen, p->key);
        else if (elsewhere)
                rerror(r, lineno, "key \"%.*s\" is not valid on a %s line", (int) p->klen, p->key,
                        slurmconf_scope_line_key(scope));
        else
                rerror(r, lineno, "unknown key \"%.*s\"", (int) p->klen, p->key);
}

static void parse_one(struct slurmconf *c, struct reader *r, size_t start, size_t next, unsigned lineno) {
        const char *s = r->scratch.buf;
        size_t n = r->scratch.len;

        size_t i = 0;
        while (i < n && is_blank(s[i]))
                i++;
        if (n - i > 7 && strncasecmp(s + i, "include", 7) == 0 && is_blank(s[i + 7])) {
                i += 7;
                while (i < n && is_blank(s[i]))
                        i++;
                size_t ps = i;
                while (i < n && !is_blank(s[i]))
                        i++;
                size_t pe = i;
                while (i < n && is_blank(s[i]))
                        i++;
                if (pe == ps) {
                        rerror(r, lineno, "Include without a path");
                        return;
                }
                if (i < n) {
                        rerror(r, lineno, "text after the Include path");
                        return;
                }
                uint32_t idx = new_line(c, LK_INCLUDE);
                c->lines[idx].off = (uint32_t) start;
                c->lines[idx].len = (uint32_t) (next - start);
                c->lines[idx].lineno = lineno;
                c->lines[idx].name = add_name(c, s + ps, pe - ps);
                append_order(c, idx);
                c->last[LK_INCLUDE] = idx;
                if (index_find(c, LK_INCLUDE, line_name(c, &c->lines[idx]), NULL) != NONE)
                        c->has_dups = true;
                else
                        index_add(c, idx);
                return;
        }

        if (tokenize(r, s, n, lineno) < 0)
                return;

        unsigned kind = LK_OTHER;
        const char *name = NULL;
        size_t name_len = 0;
        if (r->n_pairs > 0) {
                const struct pair *p = &r->pairs[0];
                const struct slurmconf_key *k = slurmconf_key_lookup_n(SLURMCONF_GLOBAL, p->key, p->klen);
                if (!slurmconf_key_supported(k)) {
                        report_key(r, lineno, p, SLURMCONF_GLOBAL, k);
                        return;
                }
                if (k->flags & SLURMCONF_KEY_LINE) {
                        for (unsigned sc = 1; sc < _SLURMCONF_SCOPE_MAX; sc++)
                                if (strcaseeq(slurmconf_scope_line_key(sc), k->name))
                                        kind = sc;
                        name = p->val;
                        name_len = p->vlen;
                        if (name_len == 0) {
                                rerror(r, lineno, "empty %s", k->name);
                                return;
                        }
                        if (kind == SLURMCONF_NODE && name_len == 3 && strncasecmp(name, "ALL", 3) == 0) {
                                rerror(r, lineno, "\"ALL\" is a reserved word, not a NodeName");
                                return;
                        }
                        for (size_t j = 1; j < r->n_pairs; j++) {
                                const struct pair *q = &r->pairs[j];
                                const struct slurmconf_key *kk =
                                        slurmconf_key_lookup_n(kind, q->key, q->klen);
                                if (!slurmconf_key_supported(kk)) {
                                        report_key(r, lineno, q, kind, kk);
                                        return;
                                }
                        }
                } else {
                        kind = SLURMCONF_GLOBAL;
                        for (size_t j = 1; j < r->n_pairs; j++) {
                                const struct pair *q = &r->pairs[j];
                                const struct slurmconf_key *kk =
                                        slurmconf_key_lookup_n(SLURMCONF_GLOBAL, q->key, q->klen);
                                if (!slurmconf_key_supported(kk)) {
                                        report_key(r, lineno, q, SLURMCONF_GLOBAL, kk);
                                        return;
                                }
                                if (kk->flags & SLURMCONF_KEY_LINE) {
                                        rerror(r, lineno, "\"%s\" must start its line", kk->name);
                                        return;
                                }
                        }
                }
        }
        if (r->n_errors > 0)
                return; /* the model is thrown away: only keep looking for errors */

        uint32_t idx = new_line(c, kind);
        struct line *l = &c->lines[idx];
        l->off = (uint32_t) start;
        l->len = (uint32_t) (next - start);
        l->lineno = lineno;
        append_order(c, idx);
        if (kind == LK_OTHER)
                return;
        c->last[kind] = idx;
        if (kind == SLURMCONF_GLOBAL) {
                for (size_t j = 0; j < r->n_pairs; j++) {
                        const struct pair *q = &r->pairs[j];
                        push_entry(c, slurmconf_key_lookup_n(SLURMCONF_GLOBAL, q->key, q->klen),
                                add_name(c, q->val, q->vlen), idx);
                }
                return;
        }
        uint32_t noff = add_name(c, name, name_len);
        l = &c->lines[idx];
        l->name = noff;
        uint32_t h = hash_name(kind, c->names.buf + noff);
        if (strcaseeq(c->names.buf + noff, "DEFAULT"))
                l->flags |= LF_DEFAULT;
        else if (index_find_h(c, kind, c->names.buf + noff, h, NULL) != NONE)
                c->has_dups = true;
        else
                index_add_h(c, idx, h);
}

struct slurmconf *slurmconf_new(const char *path) {
        struct slurmconf *c = xcalloc(1, sizeof(*c));
        c->path = xstrdup(path ? path : "slurm.conf");
        c->data = xstrdup("");
        strbuf_init(&c->edits, 0);
        strbuf_init(&c->names, 0);
        c->head = c->tail = NONE;
        for (size_t i = 0; i < _LK_MAX; i++)
                c->last[i] = NONE;
        return c;
}

void slurmconf_free(struct slurmconf *c) {
        if (!c)
                return;
        free(c->path);
        free(c->data);
        strbuf_release(&c->edits);
        strbuf_release(&c->names);
        free(c->lines);
        free(c->entries);
        free(c->index);
        free(c);
}

const char *slurmconf_path(const struct slurmconf *c) {
        return c->path;
}

int slurmconf_parse(
        const char *path, const char *data, size_t len, struct slurmconf **ret, struct strbuf *err) {
        if (!path)
                path = "slurm.conf";
        if (len > SLURMCONF_MAX_FILE) {
                if (err)
                        strbuf_addf(err, "%s: file too large (%zu bytes, at most %zu)", path, len,
                                SLURMCONF_MAX_FILE);
                return -EFBIG;
        }
        struct reader r = { .path = path, .err = err, .scratch = STRBUF_INIT };
        const char *nul = memchr(data, '\0', len);
        if (nul) {
                unsigned lineno = 1;
                for (const char *p = data; p < nul; p++)
                        lineno += *p == '\n';
                rerror(&r, lineno, "NUL byte");
                return -EINVAL;
        }

        _cleanup_slurmconf_ struct slurmconf *c = slurmconf_new(path);
        free(c->data);
        c->data = xmalloc(len + 1);
        memcpy(c->data, data, len);
        c->data[len] = '\0';
        c->len = len;
        strbuf_init(&r.scratch, 256);

        size_t pos = 0;
        unsigned lineno = 1;
        while (pos < len) {
                unsigned phys;
                bool cont_eof;
                size_t start = pos;
                strbuf_reset(&r.scratch);
                pos = read_logical(c->data, len, pos, &r.scratch, &phys, &cont_eof);
                unsigned this_line = lineno;
                lineno += phys;
                if (r.scratch.len > SLURMCONF_MAX_LINE) {
                        rerror(&r, this_line, "line too long (more than %zu bytes)", SLURMCONF_MAX_LINE);
                        continue;
                }
                if (cont_eof) {
                        rerror(&r, this_line, "line continues past the end of the file");
                        break;
                }
                bool bad = false;
                for (size_t i = 0; i < r.scratch.len && !bad; i++) {
                        unsigned char ch = (unsigned char) r.scratch.buf[i];
                        if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f) {
                                rerror(&r, this_line, "control character (byte 0x%02x)", ch);
                                bad = true;
                        }
                }
                if (bad)
                        continue;
                unescape(&r.scratch);
                parse_one(c, &r, start, pos, this_line);
        }
        unsigned n_errors = r.n_errors;
        reader_done(&r);
        if (n_errors > 0)
                return -EINVAL;
        *ret = TAKE_PTR(c);
        return 0;
}

int slurmconf_parse_file(const char *path, struct slurmconf **ret, struct strbuf *err) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                int r = -errno;
                if (err)
                        strbuf_addf(err, "%s: %s", path, strerror(errno));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                if (err)
                        strbuf_addf(err, "%s: not a regular file", path);
                return -EINVAL;
        }
        if ((size_t) st.st_size > SLURMCONF_MAX_FILE) {
                if (err)
                        strbuf_addf(err, "%s: file too large (%jd bytes, at most %zu)", path,
                                (intmax_t) st.st_size, SLURMCONF_MAX_FILE);
                return -EFBIG;
        }
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        strbuf_grow(&sb, (size_t) st.st_size + 1);
        for (;;) {
                strbuf_grow(&sb, 65536);
                ssize_t n = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        int r = -errno;
                        if (err)
                                strbuf_addf(err, "%s: %s", path, strerror(errno));
                        return r;
                }
                if (n == 0)
                        break;
                strbuf_setlen(&sb, sb.len + (size_t) n);
                if (sb.len > SLURMCONF_MAX_FILE) {
                        if (err)
                                strbuf_addf(err, "%s: file too large (at most %zu bytes)", path,
                                        SLURMCONF_MAX_FILE);
                        return -EFBIG;
                }
        }
        return slurmconf_parse(path, sb.buf, sb.len, ret, err);
}

/* --- global keys ------------------------------------------------------------------------- */

static const struct slurmconf_key *global_key(const char *key) {
        const struct slurmconf_key *k = slurmconf_key_lookup(SLURMCONF_GLOBAL, key);
        return k && !(k->flags & SLURMCONF_KEY_LINE) ? k : NULL;
}

static bool entry_is(const struct slurmconf *c, const struct entry *e, const struct slurmconf_key *k) {
        return !e->deleted && !(c->lines[e->line].flags & LF_DELETED) && strcaseeq(e->key->name, k->name);
}

const char *slurmconf_get(const struct slurmconf *c, const char *key) {
        const struct slurmconf_key *k = global_key(key);
        if (!k)
                return NULL;
        for (size_t i = c->n_entries; i > 0; i--)
                if (entry_is(c, &c->entries[i - 1], k))
                        return c->names.buf + c->entries[i - 1].value;
        return NULL;
}

const char *slurmconf_get_key(const char *key, void *conf) {
        return slurmconf_get(conf, key);
}

int slurmconf_get_all(const struct slurmconf *c, const char *key, struct strv *ret) {
        const struct slurmconf_key *k = global_key(key);
        int n = 0;
        if (!k)
                return 0;
        /* entries of added lines are at the end of the array: walk in render order instead */
        for (uint32_t li = c->head; li != NONE; li = c->lines[li].next) {
                if (c->lines[li].kind != SLURMCONF_GLOBAL || (c->lines[li].flags & LF_DELETED))
                        continue;
                for (size_t i = 0; i < c->n_entries; i++)
                        if (c->entries[i].line == li && entry_is(c, &c->entries[i], k)) {
                                strv_push(ret, c->names.buf + c->entries[i].value);
                                n++;
                        }
        }
        return n;
}

static int check_value(const char *what, const char *value, struct strbuf *err) {
        if (!value) {
                if (err)
                        strbuf_addf(err, "%s: no value", what);
                return -EINVAL;
        }
        for (const unsigned char *p = (const unsigned char *) value; *p; p++)
                if (*p < 0x20 || *p == 0x7f || *p == '"') {
                        if (err)
                                strbuf_addf(err, "value of \"%s\": %s not allowed", what,
                                        *p == '"' ? "double quote" : "newline or control character");
                        return -EINVAL;
                }
        return 0;
}

static const struct slurmconf_key *settable_key(const char *key, struct strbuf *err) {
        const struct slurmconf_key *k = slurmconf_key_lookup(SLURMCONF_GLOBAL, key ? key : "");
        if (!k) {
                if (err) {
                        strbuf_addstr(err, "unknown key \"");
                        add_sanitized(err, key ? key : "", key ? strlen(key) : 0);
                        strbuf_addch(err, '"');
                }
                return NULL;
        }
        if (!slurmconf_key_supported(k)) {
                if (err)
                        strbuf_addf(err, "key \"%s\" is not supported by Slurm 22.05 (added in %s)", k->name,
                                k->since);
                return NULL;
        }
        if (k->flags & SLURMCONF_KEY_LINE) {
                if (err)
                        strbuf_addf(
                                err, "key \"%s\" starts a line of its own, not a global setting", k->name);
                return NULL;
        }
        return k;
}

static void rerender_global(struct slurmconf *c, uint32_t li) {
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        for (size_t i = 0; i < c->n_entries; i++) {
                const struct entry *e = &c->entries[i];
                if (e->line != li || e->deleted)
                        continue;
                if (t.len > 0)
                        strbuf_addch(&t, ' ');
                strbuf_addf(&t, "%s=", e->key->name);
                add_value(&t, c->names.buf + e->value);
        }
        if (t.len == 0) {
                c->lines[li].flags |= LF_DELETED;
                return;
        }
        finish_line_text(c, li, &t, true);
}

static uint32_t add_global_line(
        struct slurmconf *c, uint32_t anchor, const struct slurmconf_key *k, const char *value) {
        uint32_t idx = new_line(c, SLURMCONF_GLOBAL);
        push_entry(c, k, add_name(c, value, strlen(value)), idx);
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        strbuf_addf(&t, "%s=", k->name);
        add_value(&t, value);
        finish_line_text(c, idx, &t, false);
        insert_after(c, anchor, idx);
        if (anchor == NONE || anchor == c->last[SLURMCONF_GLOBAL] || c->last[SLURMCONF_GLOBAL] == NONE)
                c->last[SLURMCONF_GLOBAL] = idx;
        return idx;
}

int slurmconf_set_all(
        struct slurmconf *c, const char *key, char *const *values, size_t n, struct strbuf *err) {
        const struct slurmconf_key *k = settable_key(key, err);
        if (!k)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (check_value(k->name, values[i], err) < 0)
                        return -EINVAL;
        if (n == 0) {
                int r = slurmconf_unset(c, key);
                return r == -ENOENT ? 0 : r;
        }

        /* the entry that stays: the last one for a plain key (its value counted), the first
         * one for a repeated key (its position starts the list) */
        size_t keep = SIZE_MAX;
        for (size_t i = 0; i < c->n_entries; i++)
                if (entry_is(c, &c->entries[i], k) && (keep == SIZE_MAX || n == 1))
                        keep = i;
        uint32_t anchor;
        if (keep == SIZE_MAX)
                anchor = add_global_line(c, anchor_for(c, SLURMCONF_GLOBAL), k, values[0]);
        else {
                for (size_t i = 0; i < c->n_entries; i++) {
                        struct entry *e = &c->entries[i];
                        if (!entry_is(c, e, k))
                                continue;
                        if (i == keep)
                                e->value = add_name(c, values[0], strlen(values[0]));
                        else
                                e->deleted = true;
                        rerender_global(c, e->line);
                }
                anchor = c->entries[keep].line;
        }
        for (size_t i = 1; i < n; i++)
                anchor = add_global_line(c, anchor, k, values[i]);
        return 0;
}

int slurmconf_set(struct slurmconf *c, const char *key, const char *value, struct strbuf *err) {
        char *const v[] = { (char *) value, NULL };
        return slurmconf_set_all(c, key, v, 1, err);
}

int slurmconf_unset(struct slurmconf *c, const char *key) {
        const struct slurmconf_key *k = global_key(key);
        bool found = false;
        if (!k)
                return -ENOENT;
        for (size_t i = 0; i < c->n_entries; i++) {
                struct entry *e = &c->entries[i];
                if (!entry_is(c, e, k))
                        continue;
                e->deleted = true;
                found = true;
                rerender_global(c, e->line);
        }
        return found ? 0 : -ENOENT;
}

/* --- named lines ------------------------------------------------------------------------- */

static int check_name(const char *what, const char *name, struct strbuf *err) {
        const char *bad = NULL;
        if (isempty(name))
                bad = "empty";
        else if (strlen(name) > 1024)
                bad = "too long";
        else if (strcaseeq(name, "DEFAULT"))
                bad = "DEFAULT lines are positional and are not edited by name";
        else
                for (const unsigned char *p = (const unsigned char *) name; *p && !bad; p++)
                        if (*p <= 0x20 || *p == 0x7f || strchr("\"'#\\=", *p))
                                bad = "blank, quote, \"#\", \"\\\", \"=\" or control character not allowed";
        if (!bad)
                return 0;
        if (err) {
                strbuf_addf(err, "%s \"", what);
                add_sanitized(err, strempty(name), strlen(strempty(name)));
                strbuf_addf(err, "\": %s", bad);
        }
        return -EINVAL;
}

static bool named_kind(enum slurmconf_scope kind) {
        return kind > SLURMCONF_GLOBAL && kind < _SLURMCONF_SCOPE_MAX;
}

/* Deletes the not-indexed duplicates of (kind, name). */
static void remove_dups(struct slurmconf *c, unsigned kind, const char *name, uint32_t keep) {
        if (!c->has_dups)
                return;
        for (size_t i = 0; i < c->n_lines; i++) {
                struct line *l = &c->lines[i];
                if (i != keep && l->kind == kind && !(l->flags & LF_DELETED) && l->name != NONE &&
                        streq(line_name(c, l), name))
                        l->flags |= LF_DELETED;
        }
}

int slurmconf_upsert(struct slurmconf *c, enum slurmconf_scope kind, const char *name,
        const struct slurm_options *params, struct strbuf *err) {
        if (!named_kind(kind)) {
                if (err)
                        strbuf_addstr(err, "upsert: not a kind of named line");
                return -EINVAL;
        }
        const char *line_key = slurmconf_scope_line_key(kind);
        if (check_name(line_key, name, err) < 0)
                return -EINVAL;
        if (kind == SLURMCONF_NODE && strcaseeq(name, "ALL")) {
                if (err)
                        strbuf_addstr(err, "NodeName \"ALL\" is a reserved word");
                return -EINVAL;
        }

        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        strbuf_addf(&t, "%s=", line_key);
        add_value(&t, name);
        for (size_t i = 0; params && i < params->n; i++) {
                const char *key = params->items[i].key;
                const struct slurmconf_key *k = slurmconf_key_lookup(kind, key);
                if (!slurmconf_key_supported(k)) {
                        if (err) {
                                if (k)
                                        strbuf_addf(err,
                                                "key \"%s\" is not supported by Slurm 22.05 (added in %s)",
                                                k->name, k->since);
                                else {
                                        strbuf_addstr(err, "unknown key \"");
                                        add_sanitized(err, strempty(key), strlen(strempty(key)));
                                        strbuf_addf(err, "\" for a %s line", line_key);
                                }
                        }
                        return -EINVAL;
                }
                if (check_value(k->name, params->items[i].value, err) < 0)
                        return -EINVAL;
                strbuf_addf(&t, " %s=", slurmconf_key_canonical(k));
                add_value(&t, params->items[i].value);
        }

        uint32_t idx = index_find(c, kind, name, NULL);
        if (idx != NONE) {
                finish_line_text(c, idx, &t, true);
                remove_dups(c, kind, name, idx);
                return 0;
        }
        uint32_t anchor = anchor_for(c, kind);
        idx = new_line(c, kind);
        c->lines[idx].name = add_name(c, name, strlen(name));
        finish_line_text(c, idx, &t, false);
        insert_after(c, anchor, idx);
        c->last[kind] = idx;
        index_add(c, idx);
        return 1;
}

static int remove_named(struct slurmconf *c, unsigned kind, const char *name) {
        size_t slot;
        uint32_t idx = name ? index_find(c, kind, name, &slot) : NONE;
        if (idx == NONE)
                return -ENOENT;
        c->lines[idx].flags |= LF_DELETED;
        c->lines[idx].flags &= (uint8_t) ~LF_INDEXED;
        c->index[slot].line = TOMB;
        remove_dups(c, kind, name, NONE);
        return 0;
}

int slurmconf_remove(struct slurmconf *c, enum slurmconf_scope kind, const char *name) {
        if (!named_kind(kind))
                return -EINVAL;
        return remove_named(c, kind, name);
}

int slurmconf_lookup(
        const struct slurmconf *c, enum slurmconf_scope kind, const char *name, struct slurm_options *ret) {
        if (!named_kind(kind) || !name)
                return -EINVAL;
        uint32_t idx = index_find(c, kind, name, NULL);
        if (idx == NONE)
                return -ENOENT;
        const struct line *l = &c->lines[idx];
        struct reader r = { .path = c->path, .scratch = STRBUF_INIT };
        int rr = read_line_pairs(&r, line_text(c, l), l->len, l->lineno);
        if (rr >= 0) {
                for (size_t i = 1; i < r.n_pairs; i++) {
                        const struct pair *p = &r.pairs[i];
                        const struct slurmconf_key *key = slurmconf_key_lookup_n(kind, p->key, p->klen);
                        _cleanup_free_ char *k =
                                key ? xstrdup(slurmconf_key_canonical(key)) : xstrndup(p->key, p->klen);
                        _cleanup_free_ char *v = xstrndup(p->val, p->vlen);
                        slurm_options_set(ret, k, v);
                }
        }
        reader_done(&r);
        return rr < 0 ? -EIO : 0;
}

int slurmconf_names(const struct slurmconf *c, enum slurmconf_scope kind, struct strv *ret) {
        int n = 0;
        for (uint32_t i = c->head; i != NONE; i = c->lines[i].next) {
                const struct line *l = &c->lines[i];
                if (l->kind == (unsigned) kind && (l->flags & (LF_DELETED | LF_INDEXED)) == LF_INDEXED &&
                        named_kind(kind)) {
                        strv_push(ret, line_name(c, l));
                        n++;
                }
        }
        return n;
}

/* --- Include ------------------------------------------------------------------------------ */

int slurmconf_include_add(struct slurmconf *c, const char *path, struct strbuf *err) {
        if (check_name("Include path", path, err) < 0)
                return -EINVAL;
        if (index_find(c, LK_INCLUDE, path, NULL) != NONE)
                return 0;
        uint32_t anchor = anchor_for(c, LK_INCLUDE);
        uint32_t idx = new_line(c, LK_INCLUDE);
        c->lines[idx].name = add_name(c, path, strlen(path));
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        strbuf_addf(&t, "Include %s", path);
        finish_line_text(c, idx, &t, false);
        insert_after(c, anchor, idx);
        c->last[LK_INCLUDE] = idx;
        index_add(c, idx);
        return 1;
}

int slurmconf_include_remove(struct slurmconf *c, const char *path) {
        return remove_named(c, LK_INCLUDE, path);
}

int slurmconf_includes(const struct slurmconf *c, struct strv *ret) {
        int n = 0;
        for (uint32_t i = c->head; i != NONE; i = c->lines[i].next) {
                const struct line *l = &c->lines[i];
                if (l->kind == LK_INCLUDE && !(l->flags & LF_DELETED)) {
                        strv_push(ret, line_name(c, l));
                        n++;
                }
        }
        return n;
}

static char *include_resolve(const struct slurmconf *c, const char *inc, const char *cluster) {
        _cleanup_strbuf_ struct strbuf p = STRBUF_INIT;
        for (const char *s = inc; *s; s++) {
                if (s[0] == '%' && s[1] == 'c' && cluster) {
                        strbuf_addstr(&p, cluster);
                        s++;
                } else
                        strbuf_addch(&p, *s);
        }
        if (p.buf[0] == '/')
                return strbuf_detach(&p, NULL);
        const char *slash = strrchr(c->path, '/');
        if (!slash)
                return strbuf_detach(&p, NULL);
        return xasprintf("%.*s/%s", (int) (slash - c->path), c->path, p.buf);
}

char *slurmconf_include_resolve(const struct slurmconf *c, const char *include_path) {
        return include_resolve(c, include_path, slurmconf_get(c, "ClusterName"));
}

/* --- output ------------------------------------------------------------------------------ */

void slurmconf_render(const struct slurmconf *c, struct strbuf *out) {
        bool need_nl = false;
        strbuf_grow(out, c->len + c->edits.len);
        for (uint32_t i = c->head; i != NONE; i = c->lines[i].next) {
                const struct line *l = &c->lines[i];
                if (l->flags & LF_DELETED)
                        continue;
                if (need_nl)
                        strbuf_addch(out, '\n');
                const char *t = line_text(c, l);
                strbuf_add(out, t, l->len);
                need_nl = l->len == 0 || t[l->len - 1] != '\n';
        }
}

/* --- check with includes ------------------------------------------------------------------ */

static void err_sep(struct strbuf *err) {
        if (err->len > 0 && err->buf[err->len - 1] != '\n')
                strbuf_addch(err, '\n');
}

static int check_one(const char *path, unsigned depth, const char *cluster, struct strv *stack,
        struct strv *done, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (err)
                err_sep(err);
        int r = slurmconf_parse_file(path, &c, err);
        if (r < 0)
                return r;
        char *real = realpath(path, NULL);
        strv_push_take(done, real ? real : xstrdup(path));
        strv_push(stack, done->v[done->n - 1]);
        const char *my_cluster = slurmconf_get(c, "ClusterName");
        if (my_cluster)
                cluster = my_cluster;

        int ret = 0;
        for (uint32_t i = c->head; i != NONE; i = c->lines[i].next) {
                const struct line *l = &c->lines[i];
                if (l->kind != LK_INCLUDE)
                        continue;
                _cleanup_free_ char *target = include_resolve(c, line_name(c, l), cluster);
                _cleanup_free_ char *real_target = realpath(target, NULL);
                struct stat st;
                const char *why = NULL;
                if (real_target && strv_contains(stack, real_target))
                        why = "include loop";
                else if (depth >= 8)
                        why = "includes nested too deeply";
                else if (stat(target, &st) < 0)
                        why = strerror(errno);
                if (why) {
                        if (err) {
                                err_sep(err);
                                strbuf_addf(err, "%s:%u: Include \"", path, l->lineno);
                                add_sanitized(err, line_name(c, l), strlen(line_name(c, l)));
                                strbuf_addf(err, "\": %s: %s", target, why);
                        }
                        ret = -EINVAL;
                        continue;
                }
                if (real_target && strv_contains(done, real_target))
                        continue;
                r = check_one(target, depth + 1, cluster, stack, done, err);
                if (r < 0)
                        ret = -EINVAL;
        }
        strv_pop(stack);
        return ret;
}

int slurmconf_check_file(const char *path, struct strbuf *err) {
        _cleanup_strv_ struct strv stack = STRV_INIT, done = STRV_INIT;
        return check_one(path, 0, NULL, &stack, &done, err);
}

uint32_t slurmconf_file_hash(const char *data, size_t len) {
        uint32_t h = 0;
        for (size_t i = 0; i < len; i++) {
                /* the byte as Slurm's plain char, whose sign is the platform's (signed on
                 * amd64, unsigned on arm64): this library is built for the same one */
                h ^= (uint32_t) ((int32_t) (char) data[i] * 256);
                for (int bit = 0; bit < 8; bit++)
                        h = (h & 0x8000) ? (h << 1) ^ 4129u : h << 1;
        }
        return h;
}
