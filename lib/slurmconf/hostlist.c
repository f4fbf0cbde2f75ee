/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm hostlist expressions: parse-then-generate expansion with a size bound, and
 * compression of a name set into prefix[ranges] groups. */
#include "util/macro.h"
#include "util/alloc.h"
#include "slurmconf/hostlist.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>

#include "util/banned.h"

#define MAX_DIGITS 18 /* 10^18 - 1 fits in uint64_t with room for +1 */

struct range {
        uint64_t lo, hi;
        int width; /* digits of lo as written: the zero padding */
};

/* An item is a list of segments: literal text, then a bracket, then text, … */
struct segment {
        const char *text; /* literal text before the bracket (may be empty) */
        size_t text_len;
        size_t first_range; /* index into the expansion's range array */
        size_t n_ranges;    /* 0: no bracket (the item's last literal) */
};

struct parsed {
        struct range *ranges;
        size_t n_ranges, alloc_ranges;
        struct segment *segs;
        size_t n_segs, alloc_segs;
        size_t *item_first_seg; /* item i has segments [item_first_seg[i], item_first_seg[i+1]) */
        size_t n_items, alloc_items;
};

static void parsed_free(struct parsed *p) {
        free(p->ranges);
        free(p->segs);
        free(p->item_first_seg);
}

static void push_range(struct parsed *p, struct range r) {
        if (p->n_ranges == p->alloc_ranges) {
                p->alloc_ranges = p->alloc_ranges ? p->alloc_ranges * 2 : 16;
                p->ranges = xrealloc(p->ranges, p->alloc_ranges * sizeof(*p->ranges));
        }
        p->ranges[p->n_ranges++] = r;
}

static void push_seg(struct parsed *p, struct segment s) {
        if (p->n_segs == p->alloc_segs) {
                p->alloc_segs = p->alloc_segs ? p->alloc_segs * 2 : 16;
                p->segs = xrealloc(p->segs, p->alloc_segs * sizeof(*p->segs));
        }
        p->segs[p->n_segs++] = s;
}

static void push_item_start(struct parsed *p, size_t first_seg) {
        if (p->n_items + 1 >= p->alloc_items) {
                p->alloc_items = p->alloc_items ? p->alloc_items * 2 : 16;
                p->item_first_seg = xrealloc(p->item_first_seg, p->alloc_items * sizeof(size_t));
        }
        p->item_first_seg[p->n_items] = first_seg;
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* Parses DIGITS at *s; advances *s. */
static int parse_number(const char **s, uint64_t *ret_value, int *ret_width) {
        const char *p = *s;
        uint64_t v = 0;
        int n = 0;
        while (is_digit(*p)) {
                if (++n > MAX_DIGITS)
                        return -EINVAL;
                v = v * 10 + (uint64_t) (*p - '0');
                p++;
        }
        if (n == 0)
                return -EINVAL;
        *s = p;
        *ret_value = v;
        *ret_width = n;
        return 0;
}

/* Multiplies/adds with saturation at UINT64_MAX. */
static uint64_t sat_mul(uint64_t a, uint64_t b) {
        if (a != 0 && b > UINT64_MAX / a)
                return UINT64_MAX;
        return a * b;
}
static uint64_t sat_add(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Parses a bracket body at *s (just after "["), up to and including "]". Appends its
 * ranges and returns the number of names it stands for (saturated) in *ret_count. */
static int parse_bracket(struct parsed *p, const char **s, uint64_t *ret_count) {
        const char *q = *s;
        uint64_t count = 0;
        for (;;) {
                struct range r;
                uint64_t hi;
                int hi_width;
                if (parse_number(&q, &r.lo, &r.width) < 0)
                        return -EINVAL;
                r.hi = r.lo;
                if (*q == '-') {
                        q++;
                        if (parse_number(&q, &hi, &hi_width) < 0)
                                return -EINVAL;
                        if (hi < r.lo)
                                return -EINVAL;
                        r.hi = hi;
                }
                push_range(p, r);
                count = sat_add(count, r.hi - r.lo + 1);
                if (*q == ',') {
                        q++;
                        continue;
                }
                if (*q == ']')
                        break;
                return -EINVAL;
        }
        *s = q + 1;
        *ret_count = count;
        return 0;
}

/* Parses the whole expression into p; returns the total number of names (saturated). */
static int parse_expr(const char *expr, struct parsed *p, uint64_t *ret_total) {
        const char *s = expr;
        uint64_t total = 0;

        if (isempty(expr))
                return -EINVAL;
        for (;;) {
                /* one item */
                uint64_t count = 1;
                bool any = false;
                push_item_start(p, p->n_segs);
                for (;;) {
                        const char *t = s;
                        while (*s && *s != '[' && *s != ']' && *s != ',') {
                                if ((unsigned char) *s <= ' ' || *s == 0x7f)
                                        return -EINVAL;
                                s++;
                        }
                        struct segment seg = { .text = t, .text_len = (size_t) (s - t) };
                        if (seg.text_len)
                                any = true;
                        if (*s == ']')
                                return -EINVAL;
                        if (*s != '[') {
                                /* end of item: text after a bracket is what Slurm 22.05 rejects */
                                if (seg.text_len && p->n_segs > p->item_first_seg[p->n_items])
                                        return -EINVAL;
                                if (seg.text_len)
                                        push_seg(p, seg);
                                break;
                        }
                        s++;
                        uint64_t n;
                        seg.first_range = p->n_ranges;
                        if (parse_bracket(p, &s, &n) < 0)
                                return -EINVAL;
                        seg.n_ranges = p->n_ranges - seg.first_range;
                        push_seg(p, seg);
                        count = sat_mul(count, n);
                        any = true;
                }
                if (!any)
                        return -EINVAL; /* empty item */
                p->n_items++;
                total = sat_add(total, count);
                if (*s == '\0')
                        break;
                /* *s == ',' */
                s++;
        }
        p->item_first_seg[p->n_items] = p->n_segs;
        *ret_total = total;
        return 0;
}

/* Appends every name of item i, leftmost bracket varying slowest. */
static void generate_item(const struct parsed *p, size_t i, struct strv *ret) {
        size_t a = p->item_first_seg[i], b = p->item_first_seg[i + 1];
        size_t n = b - a;
        _cleanup_free_ size_t *ri = xcalloc(n, sizeof(size_t));      /* range index per segment */
        _cleanup_free_ uint64_t *val = xcalloc(n, sizeof(uint64_t)); /* current value */
        struct strbuf name = STRBUF_INIT;

        for (size_t k = 0; k < n; k++)
                if (p->segs[a + k].n_ranges)
                        val[k] = p->ranges[p->segs[a + k].first_range].lo;

        for (;;) {
                strbuf_reset(&name);
                for (size_t k = 0; k < n; k++) {
                        const struct segment *sg = &p->segs[a + k];
                        strbuf_add(&name, sg->text, sg->text_len);
                        if (sg->n_ranges)
                                strbuf_addf(&name, "%0*" PRIu64, p->ranges[sg->first_range + ri[k]].width,
                                        val[k]);
                }
                strv_push(ret, name.buf);

                /* odometer: advance the rightmost bracket, carrying to the left */
                bool advanced = false;
                for (size_t k = n; k-- > 0;) {
                        const struct segment *sg = &p->segs[a + k];
                        if (!sg->n_ranges)
                                continue;
                        if (val[k] < p->ranges[sg->first_range + ri[k]].hi) {
                                val[k]++;
                                advanced = true;
                                break;
                        }
                        if (ri[k] + 1 < sg->n_ranges) {
                                ri[k]++;
                                val[k] = p->ranges[sg->first_range + ri[k]].lo;
                                advanced = true;
                                break;
                        }
                        ri[k] = 0;
                        val[k] = p->ranges[sg->first_range].lo;
                }
                if (!advanced)
                        break;
        }
        strbuf_release(&name);
}

int hostlist_expand(const char *expr, size_t max, struct strv *ret) {
        struct parsed p = { 0 };
        uint64_t total;
        int r;

        r = parse_expr(expr, &p, &total);
        if (r < 0)
                goto out;
        if (total > max || total > INT_MAX) {
                r = -E2BIG;
                goto out;
        }
        for (size_t i = 0; i < p.n_items; i++)
                generate_item(&p, i, ret);
        r = (int) total;
out:
        parsed_free(&p);
        return r;
}

struct entry {
        const char *name;
        size_t prefix_len; /* bytes before the trailing number (all of name without one) */
        bool has_num;
        uint64_t value;
        int width; /* digits of the number as written */
};

static int prefix_cmp(const struct entry *a, const struct entry *b) {
        size_t l = a->prefix_len < b->prefix_len ? a->prefix_len : b->prefix_len;
        int c = memcmp(a->name, b->name, l);
        if (c != 0)
                return c;
        if (a->prefix_len != b->prefix_len)
                return a->prefix_len < b->prefix_len ? -1 : 1;
        return (int) a->has_num - (int) b->has_num;
}

static int entry_cmp(const void *x, const void *y) {
        const struct entry *a = x, *b = y;
        int c = prefix_cmp(a, b);
        if (c != 0)
                return c;
        if (a->value != b->value)
                return a->value < b->value ? -1 : 1;
        return a->width - b->width;
}

static int parse_name(const char *name, struct entry *ret) {
        size_t len = strlen(name), i = len;
        if (len == 0)
                return -EINVAL;
        for (const char *c = name; *c; c++)
                if (*c == '[' || *c == ']' || *c == ',' || (unsigned char) *c <= ' ' || *c == 0x7f)
                        return -EINVAL;
        while (i > 0 && is_digit(name[i - 1]))
                i--;
        *ret = (struct entry){ .name = name, .prefix_len = len };
        if (i < len && len - i <= MAX_DIGITS) {
                const char *d = name + i;
                int w;
                if (parse_number(&d, &ret->value, &w) < 0)
                        return -EINVAL;
                ret->prefix_len = i;
                ret->has_num = true;
                ret->width = w;
        }
        return 0;
}

/* Printed length of value with zero padding to width. */
static int printed_len(uint64_t value, int width) {
        int n = 1;
        while (value >= 10) {
                value /= 10;
                n++;
        }
        return n > width ? n : width;
}

static void add_range(struct strbuf *sb, const struct range *r) {
        strbuf_addf(sb, "%0*" PRIu64, r->width, r->lo);
        if (r->hi != r->lo)
                strbuf_addf(sb, "-%0*" PRIu64, r->width, r->hi);
}

/* Writes one group of numbered names sharing a prefix (sorted, no duplicates). */
static void compress_group(const struct entry *e, size_t n, struct strbuf *out) {
        _cleanup_free_ struct range *ranges = xcalloc(n, sizeof(struct range));
        _cleanup_free_ size_t *active = xcalloc(n, sizeof(size_t)); /* ranges ending at prev value */
        _cleanup_free_ size_t *next = xcalloc(n, sizeof(size_t));
        _cleanup_free_ bool *used = xcalloc(n, sizeof(bool));
        size_t n_ranges = 0, n_active = 0;

        for (size_t i = 0; i < n;) {
                uint64_t v = e[i].value;
                size_t j = i, n_next = 0;
                bool continues = i > 0 && e[i - 1].value + 1 == v;
                if (!continues)
                        n_active = 0;
                for (size_t a = 0; a < n_active; a++)
                        used[a] = false;
                /* all entries of value v, by increasing written width */
                for (; j < n && e[j].value == v; j++) {
                        size_t a;
                        for (a = 0; a < n_active; a++)
                                if (!used[a] && printed_len(v, ranges[active[a]].width) == e[j].width)
                                        break;
                        if (a < n_active) {
                                used[a] = true;
                                ranges[active[a]].hi = v;
                                next[n_next++] = active[a];
                        } else {
                                ranges[n_ranges] = (struct range){ .lo = v, .hi = v, .width = e[j].width };
                                next[n_next++] = n_ranges++;
                        }
                }
                memcpy(active, next, n_next * sizeof(size_t));
                n_active = n_next;
                i = j;
        }

        strbuf_add(out, e[0].name, e[0].prefix_len);
        if (n_ranges == 1 && ranges[0].lo == ranges[0].hi) {
                add_range(out, &ranges[0]);
                return;
        }
        strbuf_addch(out, '[');
        for (size_t k = 0; k < n_ranges; k++) {
                if (k)
                        strbuf_addch(out, ',');
                add_range(out, &ranges[k]);
        }
        strbuf_addch(out, ']');
}

int hostlist_compress(char *const *names, struct strbuf *ret) {
        size_t n = strv_length(names), m = 0;
        _cleanup_free_ struct entry *e = xcalloc(n, sizeof(struct entry));
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;

        for (size_t i = 0; i < n; i++)
                if (parse_name(names[i], &e[i]) < 0)
                        return -EINVAL;
        if (n > 1)
                qsort(e, n, sizeof(struct entry), entry_cmp);
        /* drop duplicates */
        for (size_t i = 0; i < n; i++)
                if (m == 0 || entry_cmp(&e[m - 1], &e[i]) != 0)
                        e[m++] = e[i];

        for (size_t i = 0; i < m;) {
                size_t j = i + 1;
                if (out.len)
                        strbuf_addch(&out, ',');
                if (!e[i].has_num) {
                        strbuf_addstr(&out, e[i].name);
                        i = j;
                        continue;
                }
                while (j < m && prefix_cmp(&e[i], &e[j]) == 0)
                        j++;
                compress_group(e + i, j - i, &out);
                i = j;
        }
        strbuf_addbuf(ret, &out);
        return 0;
}
