/* SPDX-License-Identifier: Apache-2.0 */
/* A growable, always NUL-terminated byte string (git's strbuf).
 *
 * Invariants: buf is never NULL (an empty strbuf points at a static ""), buf[len] == '\0',
 * and the contents may hold NUL bytes. The owner calls strbuf_release(), or takes the
 * string with strbuf_detach() (then owns it and frees it with free()). Allocation
 * failure aborts (see util/alloc.h). */
#pragma once

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
        size_t alloc;
        size_t len;
        char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT \
        { .alloc = 0, .len = 0, .buf = strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Returns the string (caller frees) and leaves sb empty and reusable. */
char *strbuf_detach(struct strbuf *sb, size_t *ret_len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb) {
        strbuf_setlen(sb, 0);
}

/* The add family takes sb NULL as a sink (nothing is added): the library's "err (may be NULL)"
 * arguments reach them through many callees, and one that forgot the check crashed the
 * controller's service watcher (attack atk7 F6). */
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((__format__(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((__format__(printf, 2, 0)));
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);

/* Removes trailing whitespace (space, tab, CR, LF). */
void strbuf_rtrim(struct strbuf *sb);
/* Removes leading and trailing whitespace. */
void strbuf_trim(struct strbuf *sb);

static inline void strbuf_releasep(struct strbuf *sb) {
        strbuf_release(sb);
}
#define _cleanup_strbuf_ __attribute__((__cleanup__(strbuf_releasep)))
