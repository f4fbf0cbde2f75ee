/* SPDX-License-Identifier: Apache-2.0 */
/* Growable NULL-terminated string vector. */
#include "util/macro.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/strv.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/banned.h"

char *strv_empty_array[] = { NULL };

void strv_init(struct strv *sv) {
        *sv = (struct strv) STRV_INIT;
}

void strv_clear(struct strv *sv) {
        if (sv->alloc) {
                for (size_t i = 0; i < sv->n; i++)
                        free(sv->v[i]);
                free(sv->v);
        }
        strv_init(sv);
}

const char *strv_push_take(struct strv *sv, char *s) {
        if (sv->n + 2 > sv->alloc) {
                size_t n = sv->alloc ? sv->alloc * 2 : 8;
                char **v = sv->alloc ? sv->v : NULL;
                sv->v = xrealloc(v, n * sizeof(char *));
                sv->alloc = n;
        }
        sv->v[sv->n++] = s;
        sv->v[sv->n] = NULL;
        return s;
}

const char *strv_push(struct strv *sv, const char *s) {
        return strv_push_take(sv, xstrdup(s));
}

const char *strv_pushf(struct strv *sv, const char *fmt, ...) {
        struct strbuf sb = STRBUF_INIT;
        va_list ap;
        va_start(ap, fmt);
        strbuf_vaddf(&sb, fmt, ap);
        va_end(ap);
        return strv_push_take(sv, strbuf_detach(&sb, NULL));
}

void strv_pushv(struct strv *sv, char *const *list) {
        for (; list && *list; list++)
                strv_push(sv, *list);
}

void strv_pushl(struct strv *sv, ...) {
        va_list ap;
        const char *s;
        va_start(ap, sv);
        while ((s = va_arg(ap, const char *)))
                strv_push(sv, s);
        va_end(ap);
}

void strv_pop(struct strv *sv) {
        if (!sv->n)
                return;
        free(sv->v[--sv->n]);
        sv->v[sv->n] = NULL;
}

void strv_remove(struct strv *sv, size_t i) {
        if (i >= sv->n)
                return;
        free(sv->v[i]);
        memmove(sv->v + i, sv->v + i + 1, (sv->n - i) * sizeof(char *));
        sv->n--;
}

char **strv_detach(struct strv *sv) {
        char **v;
        if (!sv->alloc)
                v = xcalloc(1, sizeof(char *));
        else
                v = sv->v;
        strv_init(sv);
        return v;
}

static int cmp_strp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void strv_sort(struct strv *sv) {
        if (sv->n > 1)
                qsort(sv->v, sv->n, sizeof(char *), cmp_strp);
}

long strv_find(const struct strv *sv, const char *s) {
        for (size_t i = 0; i < sv->n; i++)
                if (streq(sv->v[i], s))
                        return (long) i;
        return -1;
}

char *strv_join(const struct strv *sv, const char *sep) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < sv->n; i++) {
                if (i)
                        strbuf_addstr(&sb, sep);
                strbuf_addstr(&sb, sv->v[i]);
        }
        return strbuf_detach(&sb, NULL);
}

size_t strv_length(char *const *l) {
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

void strv_free(char **l) {
        for (char **p = l; p && *p; p++)
                free(*p);
        free(l);
}
