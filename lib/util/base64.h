/* SPDX-License-Identifier: Apache-2.0 */
/* Standard base64 (RFC 4648 §4: the "+/" alphabet, "=" padding required, no whitespace): the
 * auth key in relation data and secrets (charm/common/authkey), the "#base64" values of
 * juju-sim's secret tools (Go's base64.StdEncoding, whose error names the first bad byte).
 *
 * Results are appended to a strbuf of the caller; a refused input leaves it as it was. */
#pragma once

#include <stddef.h>

#include "util/strbuf.h"

/* base64 of len bytes, appended to out. */
void base64_encode(const void *data, size_t len, struct strbuf *out);

/* Go's decoder skips '\r' and '\n' anywhere (base64.StdEncoding); the charm's keys have none. */
#define BASE64_SKIP_NEWLINES 1u

/* Decodes s, appending the bytes to out: whole quanta of the alphabet, the last one padded
 * with one or two "=" when short. -EINVAL for anything else; out unchanged then, and *ret_bad
 * (may be NULL) the offset Go's base64 names in its error ("illegal base64 data at input byte
 * N"): the bad byte, the start of an unfinished quantum, the end after a lone "=" of two, or
 * the first byte after the padding. */
int base64_decode_at(const char *s, unsigned flags, struct strbuf *out, size_t *ret_bad);

static inline int base64_decode(const char *s, struct strbuf *out) {
        return base64_decode_at(s, 0, out, NULL);
}
