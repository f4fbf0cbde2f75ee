/* SPDX-License-Identifier: Apache-2.0 */
/* A small HTTP/1.1 client for one thing: POST a body to a receiver and learn its status code
 * (the node event log's consumer, charm/slurmctld/evpush.h). Plain http only: the charms carry no
 * TLS library, so an https receiver is reached through a relay on the machine or its network.
 *
 * http_url_parse() takes "http://HOST[:PORT][/PATH[?QUERY]]": HOST a DNS name, an IPv4 address
 * ('_' allowed), an IPv4 address or a bracketed IPv6 address; PORT 1-65535 (80 when absent);
 * PATH "/" when absent. Refused, each with its own message: another scheme (https named as
 * such), user info ("user@"), a fragment, spaces, control characters, double quotes,
 * backslashes, <, > and ` anywhere, a URL over HTTP_URL_MAX bytes.
 *
 * http_post() resolves the host, connects to each address in turn (each but the last within half
 * the time left, 3 s at most), sends one request ("Connection: close", Content-Length) and reads
 * the answer's final status line (interim 1xx answers skipped; the headers and body are not
 * read), all within one deadline but the name's resolution (getaddrinfo has no timeout). Nothing
 * is retried here: the caller decides.
 *
 * Functions return 0 (or the status code) or a negative errno with one message appended to err
 * (may be NULL): -EINVAL a bad URL, -ETIMEDOUT the deadline passed, -ECONNREFUSED and the other
 * connect errors as the kernel gave them, -EHOSTUNREACH a name that does not resolve, -EPROTO an
 * answer that is not HTTP. */
#pragma once

#include <stddef.h>

#include "util/strbuf.h"

#define HTTP_URL_MAX 2048
#define HTTP_HEAD_MAX 16384 /* the answer's status line and headers */

struct http_url {
        char *host;  /* without brackets */
        char *port;  /* digits */
        char *path;  /* from the first "/", query included */
        char *authority; /* the Host header's value: host as written, ":port" when given */
};
void http_url_done(struct http_url *u);

int http_url_parse(const char *url, struct http_url *ret, struct strbuf *err);

/* POSTs body (len bytes, content_type) to u; extra_headers: NULL or lines "Name: value" without
 * CRLF, NULL-terminated (the caller's, not checked beyond CR/LF). Returns the answer's status
 * code (100-599). timeout_ms bounds the whole exchange. */
int http_post(const struct http_url *u, const char *content_type, const char *body, size_t len,
        const char *const *extra_headers, int timeout_ms, struct strbuf *err);
