/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/util/http: URLs taken and refused, and POSTs to a receiver on this
 * machine's loopback (a child process that answers as told: a status, garbage, silence, a
 * close before the answer), with the request it got checked byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/alloc.h"
#include "util/http.h"
#include "util/macro.h"
#include "loopback.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/banned.h"

static void test_url_ok(void **state) {
        static const char *const v[][5] = {
                /* url, host, port, path, authority */
                { "http://recv.example:8080/ingest", "recv.example", "8080", "/ingest", "recv.example:8080" },
                { "http://10.0.0.1", "10.0.0.1", "80", "/", "10.0.0.1" },
                { "HTTP://Host/a/b?x=1&y=%20", "Host", "80", "/a/b?x=1&y=%20", "Host" },
                { "http://[::1]:9/p", "::1", "9", "/p", "[::1]:9" },
                { "http://[fe80::1]/", "fe80::1", "80", "/", "[fe80::1]" },
                { "http://h:65535", "h", "65535", "/", "h:65535" },
                { "http://h:0080/", "h", "80", "/", "h:0080" },
                { "http://recv_1:9/it's", "recv_1", "9", "/it's", "recv_1:9" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                struct http_url u = { 0 };
                assert_int_equal(http_url_parse(v[i][0], &u, NULL), 0);
                assert_string_equal(u.host, v[i][1]);
                assert_string_equal(u.port, v[i][2]);
                assert_string_equal(u.path, v[i][3]);
                assert_string_equal(u.authority, v[i][4]);
                http_url_done(&u);
        }
}

static void test_url_refused(void **state) {
        static const char *const v[][2] = {
                { "", "empty" },
                { "https://h/", "https is not supported" },
                { "ftp://h/", "not an http:// URL" },
                { "h:80/x", "not an http:// URL" },
                { "http://user:pw@h/", "user information" },
                { "http://h/#frag", "fragment" },
                { "http://h /x", "spaces" },
                { "http://h/x\ny", "control characters" },
                { "http://h/\"x", "quotes" },
                { "http://h/<x>", "quotes" },
                { "http://h/x\\y", "backslashes" },
                { "http://h:0/", "port must be" },
                { "http://h:65536/", "port must be" },
                { "http://h:/", "port must be" },
                { "http://h:8o/", "port must be" },
                { "http://-h/", "no valid host" },
                { "http:///x", "no valid host" },
                { "http://h~x/", "no valid host" },
                { "http://[zz::1]/", "bracketed IPv6" },
                { "http://[::1/", "bracketed IPv6" },
                { "http://[::1]x/", "junk after the host" },
                { "http://h?q=1", "a query needs a path" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                struct http_url u = { 0 };
                assert_int_equal(http_url_parse(v[i][0], &u, &err), -EINVAL);
                if (!strstr(err.buf, v[i][1]))
                        fail_msg("%s: %s (want %s)", v[i][0], err.buf, v[i][1]);
        }
        /* too long */
        _cleanup_free_ char *big = xmalloc(HTTP_URL_MAX + 32);
        memcpy(big, "http://h/", 9);
        memset(big + 9, 'a', HTTP_URL_MAX);
        big[HTTP_URL_MAX + 9] = '\0';
        struct http_url u = { 0 };
        assert_int_equal(http_url_parse(big, &u, NULL), -EINVAL);
}

/* --- a receiver on the loopback ---------------------------------------------------------------- */

enum answer { ANSWER_200, ANSWER_503, ANSWER_GARBAGE, ANSWER_SILENT, ANSWER_CLOSE, ANSWER_SPLIT, ANSWER_INTERIM };

struct receiver {
        pid_t pid;
        int port;
        int pipe_fd; /* what the receiver read: the whole request, then EOF */
};

static void serve(int lfd, enum answer a, int out_fd) {
        int c = accept(lfd, NULL, NULL);
        if (c < 0)
                _exit(1);
        char buf[65536];
        size_t got = 0;
        /* read the head, then Content-Length bytes */
        for (;;) {
                ssize_t n = read(c, buf + got, sizeof(buf) - got);
                if (n <= 0)
                        break;
                got += (size_t) n;
                char *end = memmem(buf, got, "\r\n\r\n", 4);
                if (end) {
                        const char *cl = memmem(buf, (size_t) (end - buf), "Content-Length: ", 16);
                        size_t want = cl ? strtoul(cl + 16, NULL, 10) : 0;
                        if (got >= (size_t) (end - buf) + 4 + want)
                                break;
                }
        }
        if (write(out_fd, buf, got) != (ssize_t) got)
                _exit(1);
        static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        static const char busy[] = "HTTP/1.0 503 Service Unavailable\r\n\r\n";
        static const char junk[] = "SSH-2.0-OpenSSH_9.2\r\n";
        switch (a) {
        case ANSWER_200:
                (void) !write(c, ok, sizeof(ok) - 1);
                break;
        case ANSWER_503:
                (void) !write(c, busy, sizeof(busy) - 1);
                break;
        case ANSWER_GARBAGE:
                (void) !write(c, junk, sizeof(junk) - 1);
                break;
        case ANSWER_SILENT:
                sleep(5);
                break;
        case ANSWER_CLOSE:
                break;
        case ANSWER_INTERIM:
                /* 100 Continue and 103 Early Hints before the final answer */
                (void) !write(c, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n", 65);
                usleep(50 * 1000);
                (void) !write(c, "HTTP/1.1 201 Created\r\n\r\n", 24);
                break;
        case ANSWER_SPLIT:
                /* the status line in pieces */
                (void) !write(c, "HTTP/1.1 2", 10);
                usleep(100 * 1000);
                (void) !write(c, "04 No Content\r\n\r\n", 17);
                break;
        }
        close(c);
        _exit(0);
}

static void receiver_start(struct receiver *rx, enum answer a) {
        int port = 0;
        int lfd = loopback_listen(&port);
        assert_true(lfd >= 0);
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                serve(lfd, a, p[1]);
        }
        close(lfd);
        close(p[1]);
        *rx = (struct receiver) { .pid = pid, .port = port, .pipe_fd = p[0] };
}

/* the request the receiver read (caller frees); reaps it. The receiver wrote it to the pipe
 * before it answered (or went silent), so it is there once http_post() returned. */
static char *receiver_end(struct receiver *rx) {
        char buf[65536];
        size_t got = 0;
        ssize_t n;
        kill(rx->pid, SIGKILL);
        while ((n = read(rx->pipe_fd, buf + got, sizeof(buf) - 1 - got)) > 0)
                got += (size_t) n;
        buf[got] = '\0';
        close(rx->pipe_fd);
        (void) waitpid(rx->pid, NULL, 0);
        return xstrdup(buf);
}

static void url_for(struct receiver *rx, const char *path, struct http_url *u) {
        _cleanup_free_ char *s = xasprintf("http://127.0.0.1:%d%s", rx->port, path);
        assert_int_equal(http_url_parse(s, u, NULL), 0);
}

static void test_post_ok(void **state) {
        struct receiver rx;
        struct http_url u = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        static const char body[] = "{\"seq\":1}\n{\"seq\":2}\n";
        static const char *const hdr[] = { "X-Log-Id: 3f9a1c20", "X-Bad: a\r\nInjected: 1", NULL };

        receiver_start(&rx, ANSWER_200);
        url_for(&rx, "/in?x=1", &u);
        assert_int_equal(http_post(&u, "application/x-ndjson", body, sizeof(body) - 1, hdr, 5000, &err), 200);
        _cleanup_free_ char *req = receiver_end(&rx);
        _cleanup_free_ char *want = xasprintf(
                "POST /in?x=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: slurm-charms\r\n"
                "Content-Type: application/x-ndjson\r\nContent-Length: %zu\r\nConnection: close\r\n"
                "X-Log-Id: 3f9a1c20\r\n\r\n%s",
                rx.port, sizeof(body) - 1, body);
        assert_string_equal(req, want);
        http_url_done(&u);
}

static void test_post_answers(void **state) {
        static const struct {
                enum answer a;
                int want;
                const char *msg;
        } v[] = {
                { ANSWER_503, 503, NULL },
                { ANSWER_SPLIT, 204, NULL },
                { ANSWER_INTERIM, 201, NULL },
                { ANSWER_GARBAGE, -EPROTO, "not HTTP" },
                { ANSWER_CLOSE, -ECONNRESET, "answer from 127.0.0.1" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                struct receiver rx;
                struct http_url u = { 0 };
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                receiver_start(&rx, v[i].a);
                url_for(&rx, "/", &u);
                assert_int_equal(http_post(&u, "text/plain", "x", 1, NULL, 5000, &err), v[i].want);
                if (v[i].msg && !strstr(err.buf, v[i].msg))
                        fail_msg("answer %d: %s", (int) v[i].a, err.buf);
                free(receiver_end(&rx));
                http_url_done(&u);
        }
}

static void test_post_deadline(void **state) {
        struct receiver rx;
        struct http_url u = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct timespec a, b;

        receiver_start(&rx, ANSWER_SILENT);
        url_for(&rx, "/", &u);
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(http_post(&u, "text/plain", "x", 1, NULL, 300, &err), -ETIMEDOUT);
        clock_gettime(CLOCK_MONOTONIC, &b);
        long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
        assert_true(ms >= 290 && ms < 3000);
        assert_non_null(strstr(err.buf, "no answer in time"));
        free(receiver_end(&rx));
        http_url_done(&u);
}

static void test_post_refused(void **state) {
        /* a port nobody listens on: listen on one, learn it, close it */
        int port = 0, fd = loopback_listen(&port);
        assert_true(fd >= 0);
        close(fd);
        _cleanup_free_ char *s = xasprintf("http://127.0.0.1:%d/", port);
        struct http_url u = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(http_url_parse(s, &u, NULL), 0);
        assert_int_equal(http_post(&u, "text/plain", "x", 1, NULL, 2000, &err), -ECONNREFUSED);
        assert_non_null(strstr(err.buf, "connect to 127.0.0.1:"));
        http_url_done(&u);

        /* a name that does not resolve (.invalid never does: RFC 2606) */
        _cleanup_strbuf_ struct strbuf e2 = STRBUF_INIT;
        assert_int_equal(http_url_parse("http://no-such-host.invalid/", &u, NULL), 0);
        assert_true(http_post(&u, "text/plain", "x", 1, NULL, 2000, &e2) < 0);
        assert_non_null(strstr(e2.buf, "no-such-host.invalid"));
        http_url_done(&u);
}

int main(void) {
        signal(SIGPIPE, SIG_IGN);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_url_ok),
                cmocka_unit_test(test_url_refused),
                cmocka_unit_test(test_post_ok),
                cmocka_unit_test(test_post_answers),
                cmocka_unit_test(test_post_deadline),
                cmocka_unit_test(test_post_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
