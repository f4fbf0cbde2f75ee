/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation wrappers that abort on failure. */
#include "util/macro.h"
#include "util/alloc.h"

#include <stdarg.h>

#include "util/banned.h"

static _noreturn_ void oom(void) {
        fputs("fatal: out of memory\n", stderr);
        abort();
}

void *xmalloc(size_t n) {
        void *p = malloc(n ? n : 1);
        if (!p)
                oom();
        return p;
}

void *xcalloc(size_t nmemb, size_t size) {
        void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
        if (!p)
                oom();
        return p;
}

void *xrealloc(void *p, size_t n) {
        void *q = realloc(p, n ? n : 1);
        if (!q)
                oom();
        return q;
}

char *xstrdup(const char *s) {
        char *p = strdup(s);
        if (!p)
                oom();
        return p;
}

char *xstrndup(const char *s, size_t n) {
        char *p = strndup(s, n);
        if (!p)
                oom();
        return p;
}

char *xasprintf(const char *fmt, ...) {
        va_list ap;
        char *p;
        va_start(ap, fmt);
        int r = vasprintf(&p, fmt, ap);
        va_end(ap);
        if (r < 0)
                oom();
        return p;
}
