/* SPDX-License-Identifier: Apache-2.0 */
/* Growable string buffer. */
#include "util/macro.h"
#include "util/alloc.h"
#include "util/strbuf.h"

#include <ctype.h>

#include "util/banned.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint) {
        *sb = (struct strbuf) STRBUF_INIT;
        if (hint)
                strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb) {
        if (sb->alloc)
                free(sb->buf);
        *sb = (struct strbuf) STRBUF_INIT;
}

char *strbuf_detach(struct strbuf *sb, size_t *ret_len) {
        char *s;
        if (!sb->alloc)
                strbuf_grow(sb, 0);
        s = sb->buf;
        if (ret_len)
                *ret_len = sb->len;
        *sb = (struct strbuf) STRBUF_INIT;
        return s;
}

void strbuf_grow(struct strbuf *sb, size_t extra) {
        size_t need = sb->len + extra + 1;
        if (need < sb->len) /* overflow */
                abort();
        if (need <= sb->alloc)
                return;
        size_t n = sb->alloc ? sb->alloc : 64;
        while (n < need)
                n = n < 1024 * 1024 ? n * 2 : n + n / 2;
        if (!sb->alloc) {
                sb->buf = xmalloc(n);
                sb->buf[0] = '\0';
        } else
                sb->buf = xrealloc(sb->buf, n);
        sb->alloc = n;
}

void strbuf_setlen(struct strbuf *sb, size_t len) {
        if (!sb->alloc) {
                if (len == 0)
                        return;
                abort();
        }
        if (len >= sb->alloc)
                abort();
        sb->len = len;
        sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len) {
        if (!sb || len == 0)
                return;
        strbuf_grow(sb, len);
        memcpy(sb->buf + sb->len, data, len);
        sb->len += len;
        sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s) {
        if (sb)
                strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c) {
        if (!sb)
                return;
        strbuf_grow(sb, 1);
        sb->buf[sb->len++] = c;
        sb->buf[sb->len] = '\0';
}

void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other) {
        if (sb)
                strbuf_add(sb, other->buf, other->len);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) {
        if (!sb)
                return;
        va_list cp;
        char probe[1];
        va_copy(cp, ap);
        int n = vsnprintf(probe, sizeof(probe), fmt, cp);
        va_end(cp);
        if (n < 0)
                abort();
        strbuf_grow(sb, (size_t) n);
        vsnprintf(sb->buf + sb->len, (size_t) n + 1, fmt, ap);
        sb->len += (size_t) n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        strbuf_vaddf(sb, fmt, ap);
        va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb) {
        while (sb->len > 0 && isspace((unsigned char) sb->buf[sb->len - 1]))
                sb->len--;
        if (sb->alloc)
                sb->buf[sb->len] = '\0';
}

void strbuf_trim(struct strbuf *sb) {
        size_t i = 0;
        strbuf_rtrim(sb);
        while (i < sb->len && isspace((unsigned char) sb->buf[i]))
                i++;
        if (i > 0) {
                memmove(sb->buf, sb->buf + i, sb->len - i);
                strbuf_setlen(sb, sb->len - i);
        }
}
