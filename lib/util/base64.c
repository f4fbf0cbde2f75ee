/* SPDX-License-Identifier: Apache-2.0 */
/* Standard base64, padding required (util/base64.h). */
#include "util/macro.h"
#include "util/base64.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/banned.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const void *data, size_t len, struct strbuf *out) {
        const unsigned char *p = data;
        strbuf_grow(out, (len + 2) / 3 * 4);
        for (size_t i = 0; i < len; i += 3) {
                uint32_t v = (uint32_t) p[i] << 16;
                if (i + 1 < len)
                        v |= (uint32_t) p[i + 1] << 8;
                if (i + 2 < len)
                        v |= p[i + 2];
                strbuf_addch(out, alphabet[(v >> 18) & 63]);
                strbuf_addch(out, alphabet[(v >> 12) & 63]);
                strbuf_addch(out, i + 1 < len ? alphabet[(v >> 6) & 63] : '=');
                strbuf_addch(out, i + 2 < len ? alphabet[v & 63] : '=');
        }
}

static int value_of(char c) {
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        if (c == '+')
                return 62;
        if (c == '/')
                return 63;
        return -1;
}

static bool newline(char c, unsigned flags) {
        return (flags & BASE64_SKIP_NEWLINES) && (c == '\n' || c == '\r');
}

/* The steps of Go's decodeQuantum (encoding/base64), so that juju-sim's errors name the same
 * byte as Juju's. */
int base64_decode_at(const char *s, unsigned flags, struct strbuf *out, size_t *ret_bad) {
        size_t n = strlen(s), start = out->len, si = 0, bad;
        while (si < n) {
                uint32_t w = 0;
                size_t j = 0;
                while (j < 4) {
                        if (si == n) {
                                if (j == 0)
                                        goto done; /* only newlines after the last quantum */
                                bad = si - j;      /* unfinished, no padding */
                                goto refuse;
                        }
                        char c = s[si++];
                        int v = value_of(c);
                        if (v >= 0) {
                                w = w << 6 | (uint32_t) v;
                                j++;
                                continue;
                        }
                        if (newline(c, flags))
                                continue;
                        if (c != '=' || j < 2) {
                                bad = si - 1;
                                goto refuse;
                        }
                        if (j == 2) { /* "==" wanted: the second one */
                                while (si < n && newline(s[si], flags))
                                        si++;
                                if (si == n) {
                                        bad = n;
                                        goto refuse;
                                }
                                if (s[si] != '=') {
                                        bad = si - 1;
                                        goto refuse;
                                }
                                si++;
                        }
                        while (si < n && newline(s[si], flags))
                                si++;
                        if (si < n) { /* nothing may follow the padding */
                                bad = si;
                                goto refuse;
                        }
                        break;
                }
                /* j sextets: 4 give 3 bytes, 3 give 2, 2 give 1 */
                w <<= 6 * (4 - j);
                strbuf_addch(out, (char) (w >> 16));
                if (j >= 3)
                        strbuf_addch(out, (char) (w >> 8));
                if (j == 4)
                        strbuf_addch(out, (char) w);
        }
done:
        return 0;
refuse:
        strbuf_setlen(out, start);
        if (ret_bad)
                *ret_bad = bad;
        return -EINVAL;
}
