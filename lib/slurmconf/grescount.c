/* SPDX-License-Identifier: Apache-2.0 */
/* GRES counts by name (slurmconf/grescount.h). */
#include "slurmconf/grescount.h"
#include "util/alloc.h"
#include "util/macro.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "util/banned.h"

void gres_counts_done(struct gres_counts *c) {
        for (size_t i = 0; i < c->n; i++) {
                free(c->v[i].name);
                free(c->v[i].type);
        }
        free(c->v);
        *c = (struct gres_counts) GRES_COUNTS_INIT;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t gres_counts_get(const struct gres_counts *c, const char *name) {
        uint64_t t = 0;
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->v[i].name, name))
                        t = sat_add(t, c->v[i].total);
        return t;
}

uint64_t gres_counts_get_type(const struct gres_counts *c, const char *name, const char *type) {
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->v[i].name, name) && streq_ptr(c->v[i].type, type))
                        return c->v[i].total;
        return 0;
}

bool gres_counts_no_consume(const struct gres_counts *c, const char *name) {
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->v[i].name, name) && c->v[i].no_consume)
                        return true;
        return false;
}

static void add(struct gres_counts *c, const char *name, const char *type, uint64_t cnt, bool no_consume) {
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->v[i].name, name) && streq_ptr(c->v[i].type, type)) {
                        c->v[i].total = sat_add(c->v[i].total, cnt);
                        c->v[i].no_consume |= no_consume;
                        return;
                }
        c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
        c->v[c->n++] = (struct gres_count){
                .name = xstrdup(name), .type = type ? xstrdup(type) : NULL, .total = cnt, .no_consume = no_consume
        };
}

/* COUNT[K|M|G|T|P]: 1 with *ret, 0 when s is not a count (a TYPE). */
static int count_of(const char *s, size_t len, uint64_t *ret) {
        size_t d = 0;
        uint64_t v = 0;
        while (d < len && isdigit((unsigned char) s[d])) {
                unsigned digit = (unsigned) (s[d] - '0');
                if (v > (UINT64_MAX - digit) / 10)
                        return -ERANGE;
                v = v * 10 + digit;
                d++;
        }
        if (d == 0)
                return 0;
        if (d < len - 1)
                return -EINVAL;
        if (d == len - 1) {
                const char *p = strchr("KMGTP", toupper((unsigned char) s[d]));
                if (!p || !s[d])
                        return -EINVAL;
                for (const char *q = "KMGTP"; q <= p; q++) {
                        if (v > UINT64_MAX / 1024)
                                return -ERANGE;
                        v *= 1024;
                }
        }
        *ret = v;
        return 1;
}

int gres_counts_parse(const char *spec, struct gres_counts *c, struct strbuf *err) {
        struct gres_counts add_to = GRES_COUNTS_INIT;
        if (!spec || !*spec || streq(spec, "(null)"))
                return 0;
        for (const char *p = spec; *p;) {
                size_t n = strcspn(p, ",");
                /* a "(S:…)" binding may hold commas: "(S:0,1)" */
                const char *paren = memchr(p, '(', n);
                if (paren) {
                        const char *close = strchr(paren, ')');
                        if (!close) {
                                strbuf_addf(err, "GRES \"%s\": an unclosed socket binding", spec);
                                gres_counts_done(&add_to);
                                return -EINVAL;
                        }
                        n = (size_t) (close + 1 - p);
                        if (p[n] && p[n] != ',') {
                                strbuf_addf(err, "GRES item \"%.*s\": text after its socket binding", (int) n, p);
                                gres_counts_done(&add_to);
                                return -EINVAL;
                        }
                }
                size_t len = paren ? (size_t) (paren - p) : n;
                /* NAME[:TYPE][:no_consume][:COUNT]: the count is the last field when it is a
                 * number; no_consume (any case) anywhere after the name */
                _cleanup_free_ char *item = xstrndup(p, len), *type = NULL;
                char *name = item, *save = NULL, *f;
                bool no_consume = false, bad = false;
                uint64_t cnt = 1;
                char *colon = strchr(item, ':');
                if (colon)
                        *colon = '\0';
                for (f = colon ? colon + 1 : NULL; f; f = save) {
                        char *next = strchr(f, ':');
                        if (next)
                                *next++ = '\0';
                        save = next;
                        int r = next ? 0 : count_of(f, strlen(f), &cnt);
                        if (!*f || r < 0)
                                bad = true;
                        else if (r == 1)
                                continue;
                        else if (strcasecmp(f, "no_consume") == 0)
                                no_consume = true;
                        else if (type)
                                bad = true; /* two types */
                        else
                                type = xstrdup(f);
                }
                if (!*name || bad) {
                        strbuf_addf(err, "GRES item \"%.*s\": not NAME[:TYPE][:COUNT]", (int) n, p);
                        gres_counts_done(&add_to);
                        return -EINVAL;
                }
                add(&add_to, name, type, cnt, no_consume);
                p += n;
                if (*p == ',')
                        p++;
        }
        for (size_t i = 0; i < add_to.n; i++)
                add(c, add_to.v[i].name, add_to.v[i].type, add_to.v[i].total, add_to.v[i].no_consume);
        gres_counts_done(&add_to);
        return 0;
}
