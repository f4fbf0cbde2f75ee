/* SPDX-License-Identifier: Apache-2.0 */
#include "util/http.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/strbuf.h"

#include "util/banned.h"

void http_url_done(struct http_url *u) {
        free(u->host);
        free(u->port);
        free(u->path);
        free(u->authority);
        *u = (struct http_url) { 0 };
}

static int bad_url(struct strbuf *err, const char *url, const char *why) {
        if (err)
                strbuf_addf(err, "\"%.200s\": %s", url, why);
        return -EINVAL;
}

/* letters, digits, '-', '_' and '.': a DNS name (a container's service name may hold '_'), an IPv4
 * address as written */
static bool host_name(const char *s, size_t n) {
        if (n == 0 || n > 253 || s[0] == '.' || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_'))
                        return false;
        }
        return true;
}

static bool hex_or_colon(const char *s, size_t n) {
        if (n < 2 || n > 45)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9') || c == ':' ||
                            c == '.'))
                        return false;
        }
        return memchr(s, ':', n) != NULL;
}

int http_url_parse(const char *url, struct http_url *ret, struct strbuf *err) {
        struct http_url u = { 0 };
        const char *p, *host, *host_end, *auth_end;

        if (!url || !*url)
                return bad_url(err, "", "empty");
        if (strlen(url) > HTTP_URL_MAX)
                return bad_url(err, url, "longer than 2048 bytes");
        for (p = url; *p; p++)
                if ((unsigned char) *p <= ' ' || *p == 0x7f || *p == '"' || *p == '\\' || *p == '<' || *p == '>' ||
                        *p == '`')
                        return bad_url(err, url, "spaces, control characters, double quotes, backslashes and <>` are "
                                                 "not allowed (percent-encode them)");
        if (startswith_no_case(url, "https://"))
                return bad_url(err, url,
                        "https is not supported (the charm carries no TLS library): use http:// to a relay "
                        "on the machine or a trusted network");
        p = startswith_no_case(url, "http://");
        if (!p)
                return bad_url(err, url, "not an http:// URL");
        if (strchr(url, '#'))
                return bad_url(err, url, "a fragment (#…) means nothing to a receiver");
        auth_end = p + strcspn(p, "/?");
        if (memchr(p, '@', (size_t) (auth_end - p)))
                return bad_url(err, url, "user information (user@) is not supported");
        if (*auth_end == '?')
                return bad_url(err, url, "a query needs a path (http://host/path?query)");
        /* host: [v6] or a name */
        if (*p == '[') {
                host = p + 1;
                host_end = memchr(host, ']', (size_t) (auth_end - host));
                if (!host_end || !hex_or_colon(host, (size_t) (host_end - host)))
                        return bad_url(err, url, "not a bracketed IPv6 address");
                p = host_end + 1;
        } else {
                host = p;
                host_end = p + strcspn(p, ":/");
                if (host_end > auth_end)
                        host_end = auth_end;
                if (!host_name(host, (size_t) (host_end - host)))
                        return bad_url(err, url, "no valid host name (letters, digits, '-', '_' and '.')");
                p = host_end;
        }
        if (p < auth_end) {
                unsigned long port = 0;
                if (*p != ':')
                        return bad_url(err, url, "junk after the host");
                _cleanup_free_ char *digits = xstrndup(p + 1, (size_t) (auth_end - p - 1));
                if (!*digits || strspn(digits, "0123456789") != strlen(digits) || !parse_ulong(digits, 65535, &port) ||
                        port == 0)
                        return bad_url(err, url, "the port must be a number from 1 to 65535");
                u.port = xasprintf("%lu", port);
        } else
                u.port = xstrdup("80");
        u.host = xstrndup(host, (size_t) (host_end - host));
        u.authority = xstrndup(startswith_no_case(url, "http://"),
                (size_t) (auth_end - startswith_no_case(url, "http://")));
        u.path = xstrdup(*auth_end ? auth_end : "/");
        *ret = u;
        return 0;
}

static int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(int64_t deadline) {
        int64_t left = deadline - mono_ms();
        return left > 0 ? (int) (left > INT32_MAX ? INT32_MAX : left) : 0;
}

/* waits for events on fd until the deadline: 0 ready, -ETIMEDOUT, or -errno */
static int wait_fd(int fd, short events, int64_t deadline) {
        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = events };
                int ms = left_ms(deadline);
                if (ms == 0)
                        return -ETIMEDOUT;
                int n = poll(&pfd, 1, ms);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -ETIMEDOUT;
                return 0;
        }
}

static int connect_one(const struct addrinfo *ai, int64_t deadline) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0)
                return -errno;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
                if (errno != EINPROGRESS) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
                int r = wait_fd(fd, POLLOUT, deadline);
                int so = 0;
                socklen_t sl = sizeof(so);
                if (r == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) < 0)
                        r = -errno;
                else if (r == 0 && so != 0)
                        r = -so;
                if (r < 0) {
                        close(fd);
                        return r;
                }
        }
        return fd;
}

static int send_all(int fd, const char *data, size_t len, int64_t deadline) {
        while (len > 0) {
                ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                        int r = wait_fd(fd, POLLOUT, deadline);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (n < 0)
                        return -errno;
                data += n;
                len -= (size_t) n;
        }
        return 0;
}

/* "HTTP/1.x NNN …": the code, or -EPROTO */
static int status_code(const char *head, size_t len) {
        if (len < 12 || (memcmp(head, "HTTP/1.1 ", 9) != 0 && memcmp(head, "HTTP/1.0 ", 9) != 0))
                return -EPROTO;
        if (head[9] < '1' || head[9] > '5' || head[10] < '0' || head[10] > '9' || head[11] < '0' ||
                head[11] > '9' || (len > 12 && head[12] != ' ' && head[12] != '\r'))
                return -EPROTO;
        return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
}

static int fail(struct strbuf *err, const struct http_url *u, int r, const char *what) {
        if (err)
                strbuf_addf(err, "%s %s:%s: %s", what, u->host, u->port,
                        r == -ETIMEDOUT ? "no answer in time" : r == -EPROTO ? "the answer is not HTTP" : strerror(-r));
        return r;
}

int http_post(const struct http_url *u, const char *content_type, const char *body, size_t len,
        const char *const *extra_headers, int timeout_ms, struct strbuf *err) {
        int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 1);
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG };
        struct addrinfo *res = NULL;
        _cleanup_close_ int fd = -1;
        _cleanup_strbuf_ struct strbuf req = STRBUF_INIT;
        int r;

        r = getaddrinfo(u->host, u->port, &hints, &res);
        if (r != 0) {
                int e = r == EAI_SYSTEM && errno > 0 ? -errno : -EHOSTUNREACH;
                if (err)
                        strbuf_addf(err, "resolve %s: %s", u->host, gai_strerror(r));
                return e;
        }
        r = -EHOSTUNREACH;
        for (const struct addrinfo *ai = res; ai && left_ms(deadline) > 0; ai = ai->ai_next) {
                /* an address that drops packets does not take the others' time: each but the last
                 * gets half of what is left, 3 s at most */
                int64_t until = deadline;
                if (ai->ai_next) {
                        int slice = left_ms(deadline) / 2;
                        until = mono_ms() + (slice < 3000 ? slice : 3000);
                }
                r = connect_one(ai, until);
                if (r >= 0) {
                        fd = r;
                        break;
                }
        }
        freeaddrinfo(res);
        if (fd < 0)
                return fail(err, u, r, "connect to");

        strbuf_addf(&req,
                "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: slurm-charms\r\nContent-Type: %s\r\n"
                "Content-Length: %zu\r\nConnection: close\r\n",
                u->path, u->authority, content_type, len);
        for (size_t i = 0; extra_headers && extra_headers[i]; i++) {
                if (strpbrk(extra_headers[i], "\r\n"))
                        continue;
                strbuf_addf(&req, "%s\r\n", extra_headers[i]);
        }
        strbuf_addstr(&req, "\r\n");
        r = send_all(fd, req.buf, req.len, deadline);
        if (r >= 0 && len > 0)
                r = send_all(fd, body, len, deadline);
        if (r < 0 && r != -EPIPE && r != -ECONNRESET)
                return fail(err, u, r, "send to");
        /* a receiver may answer (413, 503) and close before taking the whole body: read it */
        _cleanup_free_ char *head = xmalloc(HTTP_HEAD_MAX + 1);
        size_t got = 0;
        for (;;) {
                if (got >= 12 && memmem(head, got, "\r\n", 2)) {
                        /* an interim answer (1xx but 101, RFC 9110 15.2: 100 Continue, 103 Early
                         * Hints) is skipped once its header block is in; the final one follows */
                        int code = status_code(head, got);
                        if (code < 100 || code >= 200 || code == 101)
                                break; /* the final status line is in */
                        char *end = memmem(head, got, "\r\n\r\n", 4);
                        if (end) {
                                size_t used = (size_t) (end + 4 - head);
                                memmove(head, head + used, got - used);
                                got -= used;
                                continue;
                        }
                }
                if (got == HTTP_HEAD_MAX)
                        return fail(err, u, -EPROTO, "answer from");
                ssize_t n = recv(fd, head + got, HTTP_HEAD_MAX - got, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                        int w = wait_fd(fd, POLLIN, deadline);
                        if (w < 0)
                                return fail(err, u, w, "answer from");
                        continue;
                }
                if (n < 0)
                        return fail(err, u, -errno, "answer from");
                if (n == 0)
                        return fail(err, u, got ? -EPROTO : -ECONNRESET, "answer from");
                got += (size_t) n;
        }
        head[got] = '\0';
        r = status_code(head, got);
        if (r < 0)
                return fail(err, u, r, "answer from");
        return r;
}
