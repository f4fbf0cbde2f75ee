/* SPDX-License-Identifier: Apache-2.0 */
/* GRES counts by name (slurmconf/grescount.h). */
#include "slurmconf/grescount.h"
#include "util/alloc.h"
#include "util/macro.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "util/banned.h"

void gres_counts_done(struct gres_counts *c) {
        for (size_t i = 0; i < c->n; i++)
                free(c->v[i].name);
        free(c->v);
        *c = (struct gres_counts) GRES_COUNTS_INIT;
}

uint64_t gres_counts_get(const struct gres_counts *c, const char *name) {
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->v[i].name, name))
                        return c->v[i].total;
        return 0;
}

static void add(struct gres_counts *c, const char *name, size_t len, uint64_t cnt) {
        for (size_t i = 0; i < c->n; i++)
                if (strlen(c->v[i].name) == len && strncmp(c->v[i].name, name, len) == 0) {
                        c->v[i].total = c->v[i].total > UINT64_MAX - cnt ? UINT64_MAX : c->v[i].total + cnt;
                        return;
                }
        c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
        c->v[c->n++] = (struct gres_count){ .name = xstrndup(name, len), .total = cnt };
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
                /* NAME[:TYPE][:COUNT]: the count is the last field when it is a number */
                const char *colon = memchr(p, ':', len);
                size_t name_len = colon ? (size_t) (colon - p) : len;
                const char *last = p + len;
                while (last > p && last[-1] != ':')
                        last--;
                uint64_t cnt = 1;
                int r = colon ? count_of(last, (size_t) (p + len - last), &cnt) : 0;
                if (name_len == 0 || r < 0 || (colon && last == p + len)) {
                        strbuf_addf(err, "GRES item \"%.*s\": not NAME[:TYPE][:COUNT]", (int) n, p);
                        gres_counts_done(&add_to);
                        return -EINVAL;
                }
                if (r == 0)
                        cnt = 1;
                add(&add_to, p, name_len, cnt);
                p += n;
                if (*p == ',')
                        p++;
        }
        for (size_t i = 0; i < add_to.n; i++)
                add(c, add_to.v[i].name, strlen(add_to.v[i].name), add_to.v[i].total);
        gres_counts_done(&add_to);
        return 0;
}
