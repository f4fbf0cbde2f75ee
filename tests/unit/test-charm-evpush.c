/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for charm/slurmctld/evpush: rounds of the node event log's consumer against a
 * receiver on the loopback that answers as scripted (200, 503, silence), in a log directory
 * of the test's own: every record arrives, in order, a failed batch is sent again and the
 * cursor stays, batches are bounded, records rotated out before delivery are counted and the
 * cursor moves past them, a new endpoint or a new log starts over, the push lock admits one,
 * and the status note. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "charm/slurmctld/events.h"
#include "charm/slurmctld/evpush.h"
#include "util/alloc.h"
#include "util/macro.h"
#include "loopback.h"
#include "tmpdir.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/banned.h"

#define LOG_ID "3f9a1c20"

static void append(const char *dir, const struct ev_log_opts *o, const char *log_id, uint64_t from, uint64_t to) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        for (uint64_t s = from; s <= to; s++) {
                _cleanup_free_ char *line = xasprintf("{\"seq\":%ju,\"id\":\"%s-%ju\",\"time\":\"2026-12-01T00:00:00.000Z\","
                                                      "\"event\":\"down\",\"node\":\"n%ju\",\"source\":\"reconcile\"}",
                        (uintmax_t) s, log_id, (uintmax_t) s, (uintmax_t) s);
                char *lines[] = { line };
                assert_true(ev_log_append(dir, o, lines, 1, &err) >= 0);
        }
}

/* --- a receiver: answers each request with the next status of its script, and writes each
 * body it got to a pipe as "<len>\n<body>" --------------------------------------------------- */

struct receiver {
        pid_t pid;
        int port;
        int pipe_fd;
};

static void serve(int lfd, const int *script, size_t n, int out_fd) {
        for (size_t k = 0; k < n; k++) {
                int c = accept(lfd, NULL, NULL);
                if (c < 0)
                        _exit(1);
                static char buf[1 << 20];
                size_t got = 0, head = 0, want = 0;
                for (;;) {
                        ssize_t m = read(c, buf + got, sizeof(buf) - got);
                        if (m <= 0)
                                break;
                        got += (size_t) m;
                        char *end = memmem(buf, got, "\r\n\r\n", 4);
                        if (end) {
                                head = (size_t) (end - buf) + 4;
                                const char *cl = memmem(buf, head, "Content-Length: ", 16);
                                want = cl ? strtoul(cl + 16, NULL, 10) : 0;
                                if (got >= head + want)
                                        break;
                        }
                }
                char len[32];
                int l = snprintf(len, sizeof(len), "%zu\n", want);
                if (write(out_fd, len, (size_t) l) != l || write(out_fd, buf + head, want) != (ssize_t) want)
                        _exit(1);
                if (script[k] == 0) {
                        sleep(5); /* silence */
                } else {
                        char ans[128];
                        int a = snprintf(ans, sizeof(ans), "HTTP/1.1 %d X\r\nContent-Length: 0\r\n\r\n", script[k]);
                        (void) !write(c, ans, (size_t) a);
                }
                close(c);
        }
        _exit(0);
}

static void receiver_start(struct receiver *rx, const int *script, size_t n) {
        int port = 0;
        int lfd = loopback_listen(&port);
        assert_true(lfd >= 0);
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                serve(lfd, script, n, p[1]);
        }
        close(lfd);
        close(p[1]);
        *rx = (struct receiver) { .pid = pid, .port = port, .pipe_fd = p[0] };
}

/* the next body the receiver got (caller frees) */
static char *receiver_body(struct receiver *rx) {
        char len[32];
        size_t i = 0;
        while (i < sizeof(len) - 1 && read(rx->pipe_fd, len + i, 1) == 1 && len[i] != '\n')
                i++;
        len[i] = '\0';
        size_t n = strtoul(len, NULL, 10), got = 0;
        char *body = xmalloc(n + 1);
        while (got < n) {
                ssize_t m = read(rx->pipe_fd, body + got, n - got);
                assert_true(m > 0);
                got += (size_t) m;
        }
        body[n] = '\0';
        return body;
}

static void receiver_end(struct receiver *rx) {
        kill(rx->pid, SIGKILL);
        close(rx->pipe_fd);
        (void) waitpid(rx->pid, NULL, 0);
}

static char *url_of(const struct receiver *rx) {
        return xasprintf("http://127.0.0.1:%d/events", rx->port);
}

/* seqs of a body's lines, as "1,2,3" (caller frees) */
static char *seqs_of(const char *body) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        for (const char *p = body; (p = strstr(p, "{\"seq\":")); p++) {
                if (out.len)
                        strbuf_addch(&out, ',');
                strbuf_addf(&out, "%lu", strtoul(p + 7, NULL, 10));
        }
        return strbuf_detach(&out, NULL);
}

static int round_max(const char *dir, const char *url, size_t max, struct evpush_round *rd, struct strbuf *err) {
        struct http_url u = { 0 };
        assert_int_equal(http_url_parse(url, &u, NULL), 0);
        int r = evpush_round(dir, -1, url, &u, max, 1000, rd, err);
        http_url_done(&u);
        return r;
}

static int round_to(const char *dir, const char *url, struct evpush_round *rd, struct strbuf *err) {
        return round_max(dir, url, 0, rd, err);
}

static void test_deliver_retry(void **state) {
        const char *dir = *state;
        static const int script[] = { 503, 200, 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };

        append(dir, NULL, LOG_ID, 1, 3);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        /* 503: the cursor stays, the reason is kept */
        assert_int_equal(round_to(dir, url, &rd, &err), -EIO);
        assert_non_null(strstr(err.buf, "answered 503 to records 1-3"));
        _cleanup_free_ char *b1 = receiver_body(&rx), *s1 = seqs_of(b1);
        assert_string_equal(s1, "1,2,3");
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.delivered, 0);
        assert_non_null(c.error);
        evpush_cursor_done(&c);
        /* the same records again, taken */
        strbuf_reset(&err);
        assert_int_equal(round_to(dir, url, &rd, &err), 3);
        _cleanup_free_ char *b2 = receiver_body(&rx);
        assert_string_equal(b2, b1);
        assert_int_equal(rd.first, 1);
        assert_int_equal(rd.last, 3);
        assert_false(rd.more);
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.delivered, 3);
        assert_null(c.error);
        assert_string_equal(c.last_id, LOG_ID "-3");
        evpush_cursor_done(&c);
        /* nothing new: no request */
        assert_int_equal(round_to(dir, url, &rd, &err), 0);
        /* new records: only they go */
        append(dir, NULL, LOG_ID, 4, 5);
        assert_int_equal(round_to(dir, url, &rd, &err), 2);
        _cleanup_free_ char *b3 = receiver_body(&rx), *s3 = seqs_of(b3);
        assert_string_equal(s3, "4,5");
        receiver_end(&rx);
}

static void test_batches(void **state) {
        const char *dir = *state;
        static const int script[] = { 200, 200, 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_log_opts o = { .cap = (size_t) 64 * 1024 * 1024 };

        append(dir, &o, LOG_ID, 1, 1200);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        uint64_t next = 1;
        for (int k = 0; k < 3; k++) {
                int want = k < 2 ? EVPUSH_BATCH_MAX : 1200 - 2 * EVPUSH_BATCH_MAX;
                assert_int_equal(round_to(dir, url, &rd, &err), want);
                assert_int_equal(rd.first, next);
                assert_int_equal(rd.more, k < 2);
                _cleanup_free_ char *b = receiver_body(&rx);
                assert_true(strlen(b) <= EVPUSH_BATCH_BYTES);
                next = rd.last + 1;
        }
        assert_int_equal(next, 1201);
        receiver_end(&rx);
}

static void test_rotated_out(void **state) {
        const char *dir = *state;
        static const int script[] = { 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        struct ev_log_opts o = { .cap = EV_LOG_CAP_MIN };

        /* the receiver took 1-2, then was away while the log rotated twice */
        append(dir, &o, LOG_ID, 1, 2);
        c.endpoint = xstrdup("http://127.0.0.1:1/x");
        c.last_id = xstrdup(LOG_ID "-2");
        c.delivered = 2;
        append(dir, &o, LOG_ID, 3, 200);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        free(c.endpoint);
        c.endpoint = xstrdup(url);
        assert_int_equal(evpush_cursor_save(dir, &c, NULL), 0);
        int n = round_to(dir, url, &rd, &err);
        assert_true(n > 0);
        assert_true(rd.lost_now > 0);
        assert_int_equal(rd.lost_from, 3);
        assert_int_equal(rd.lost_to + 1, rd.first);
        assert_int_equal(rd.last, 200);
        evpush_cursor_done(&c);
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.lost, rd.lost_now);
        assert_int_equal(c.delivered, 200);
        /* said in the status */
        _cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
        evpush_note_of(&c, c.lost_ms + 60 * 1000, &note);
        assert_non_null(strstr(note.buf, "rotated out before the receiver took them (last 60 s ago)"));
        strbuf_reset(&note);
        evpush_note_of(&c, c.lost_ms + EVPUSH_LOST_SHOWN_MS, &note);
        assert_int_equal(note.len, 0);
        receiver_end(&rx);
}

static void test_new_endpoint_new_log(void **state) {
        const char *dir = *state;
        static const int script[] = { 200, 200, 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        append(dir, NULL, LOG_ID, 1, 4);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx), *other = xasprintf("%s?again=1", url);
        assert_int_equal(round_to(dir, url, &rd, &err), 4);
        free(receiver_body(&rx));
        /* another endpoint: every record kept */
        assert_int_equal(round_to(dir, other, &rd, &err), 4);
        _cleanup_free_ char *b = receiver_body(&rx), *s = seqs_of(b);
        assert_string_equal(s, "1,2,3,4");
        /* the log started anew (another id, seq from 1 again, more records than before) */
        _cleanup_free_ char *log = xasprintf("%s/%s", dir, EV_LOG_FILE);
        assert_int_equal(unlink(log), 0);
        append(dir, NULL, "77aa0011", 1, 6);
        assert_int_equal(round_to(dir, other, &rd, &err), 6);
        _cleanup_free_ char *b2 = receiver_body(&rx), *s2 = seqs_of(b2);
        assert_string_equal(s2, "1,2,3,4,5,6");
        assert_non_null(strstr(b2, "77aa0011-6"));
        receiver_end(&rx);
}

static void test_no_answer(void **state) {
        const char *dir = *state;
        static const int script[] = { 0 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };

        append(dir, NULL, LOG_ID, 1, 2);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        assert_int_equal(round_to(dir, url, &rd, &err), -ETIMEDOUT);
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.delivered, 0);
        assert_int_equal(c.latest, 2);
        _cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
        evpush_note_of(&c, c.error_since_ms + 1000, &note);
        assert_int_equal(note.len, 0); /* too young to say */
        evpush_note_of(&c, c.error_since_ms + 5 * 60 * 1000, &note);
        assert_non_null(strstr(note.buf, "; event push: 2 records waiting, failing for 5 min (connect") ||
                strstr(note.buf, "; event push: 2 records waiting, failing for 5 min (answer from"));
        receiver_end(&rx);
}

/* review 1: new ids with seq going on (a snapshot lost midway) are no restart; review 2: a new
 * endpoint or an unreadable cursor on a rotated log counts nothing lost */
static void test_ids_change_seq_goes_on(void **state) {
        const char *dir = *state;
        static const int script[] = { 200, 200, 200, 200, 200, 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        struct ev_log_opts o = { .cap = (size_t) 64 * 1024 * 1024 };

        append(dir, &o, LOG_ID, 1, 300);
        append(dir, &o, "77aa0011", 301, 1200);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        uint64_t next = 1;
        for (int k = 0; k < 3; k++) {
                assert_true(round_to(dir, url, &rd, &err) > 0);
                assert_int_equal(rd.first, next);
                assert_int_equal(rd.lost_now, 0);
                free(receiver_body(&rx));
                next = rd.last + 1;
        }
        assert_int_equal(next, 1201);
        assert_int_equal(round_to(dir, url, &rd, &err), 0);
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.lost, 0);
        assert_string_equal(c.last_id, "77aa0011-1200");
        evpush_cursor_done(&c);
        receiver_end(&rx);
}

static void test_fresh_on_rotated_log(void **state) {
        const char *dir = *state;
        static const int script[] = { 200, 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        struct ev_log_opts o = { .cap = EV_LOG_CAP_MIN };

        append(dir, &o, LOG_ID, 1, 200);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        assert_true(round_to(dir, url, &rd, &err) > 0);
        assert_true(rd.first > 1);
        assert_int_equal(rd.last, 200);
        assert_int_equal(rd.lost_now, 0);
        free(receiver_body(&rx));
        /* an unreadable cursor: from the oldest kept again, nothing lost */
        _cleanup_free_ char *cur = xasprintf("%s/%s", dir, EVPUSH_CURSOR_FILE);
        FILE *f = fopen(cur, "w");
        assert_non_null(f);
        fputs("{not json", f);
        fclose(f);
        assert_true(round_to(dir, url, &rd, &err) > 0);
        assert_int_equal(rd.lost_now, 0);
        free(receiver_body(&rx));
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.lost, 0);
        assert_int_equal(c.delivered, 200);
        receiver_end(&rx);
}

/* 413: -EMSGSIZE (the loop halves its batch); a lock that is not the directory's: -ESTALE */
static void test_too_large_and_stale_lock(void **state) {
        const char *dir = *state;
        static const int script[] = { 413 };
        struct receiver rx;
        struct evpush_round rd;
        struct http_url u = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        append(dir, NULL, LOG_ID, 1, 3);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        assert_int_equal(round_to(dir, url, &rd, &err), -EMSGSIZE);
        free(receiver_body(&rx));
        receiver_end(&rx);

        int fd = -1;
        assert_int_equal(evpush_lock(dir, &fd, NULL), 1);
        assert_int_equal(http_url_parse(url, &u, NULL), 0);
        /* the lock file replaced under the holder */
        _cleanup_free_ char *lp = xasprintf("%s/%s", dir, EVPUSH_LOCK_FILE), *lp2 = xasprintf("%s.new", lp);
        FILE *f = fopen(lp2, "w");
        assert_non_null(f);
        fclose(f);
        assert_int_equal(rename(lp2, lp), 0);
        strbuf_reset(&err);
        assert_int_equal(evpush_round(dir, fd, url, &u, 0, 1000, &rd, &err), -ESTALE);
        assert_non_null(strstr(err.buf, "not this log's"));
        close(fd);
        http_url_done(&u);
}

/* second review 1: the record at the cursor rotated out: still no more than the batch's
 * records; 2: an empty log (its files lost) is no restart, and nothing is counted lost when
 * records come again with seq going on */
static void test_batch_bound_and_empty_log(void **state) {
        const char *dir = *state;
        static const int script[] = { 200, 200, 200 };
        struct receiver rx;
        struct evpush_round rd;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        struct ev_log_opts o = { .cap = EV_LOG_CAP_MIN };

        append(dir, &o, LOG_ID, 1, 3);
        receiver_start(&rx, script, ELEMENTSOF(script));
        _cleanup_free_ char *url = url_of(&rx);
        assert_int_equal(round_max(dir, url, 3, &rd, &err), 3);
        free(receiver_body(&rx));
        append(dir, &o, LOG_ID, 4, 200); /* record 3 rotates out */
        assert_int_equal(round_max(dir, url, 2, &rd, &err), 2);
        _cleanup_free_ char *b = receiver_body(&rx);
        assert_int_equal(rd.last - rd.first + 1, 2);
        assert_true(rd.more);
        assert_true(rd.lost_now > 0);
        assert_int_equal(rd.lost_to + 1, rd.first);

        /* the log files gone (the snapshot kept): no restart, nothing lost */
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        uint64_t d = c.delivered, lost = c.lost;
        evpush_cursor_done(&c);
        _cleanup_free_ char *cur = xasprintf("%s/%s", dir, EV_LOG_FILE), *old = xasprintf("%s/%s", dir, EV_LOG_OLD_FILE);
        assert_int_equal(unlink(cur), 0);
        (void) unlink(old);
        assert_int_equal(round_to(dir, url, &rd, &err), 0);
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.delivered, d);
        evpush_cursor_done(&c);
        append(dir, &o, "77aa0011", d + 1, d + 3);
        assert_int_equal(round_to(dir, url, &rd, &err), 3);
        assert_int_equal(rd.first, d + 1);
        assert_int_equal(rd.lost_now, 0);
        free(receiver_body(&rx));
        assert_int_equal(evpush_cursor_load(dir, &c, NULL), 0);
        assert_int_equal(c.lost, lost);
        receiver_end(&rx);
}

/* The figures for the exporter: the cursor's numbers, failing time, its stamp; well formed
 * (each family a HELP and TYPE, one sample) */
static void test_metrics_of(void **state) {
        struct evpush_cursor c = { .latest = 120, .delivered = 100, .lost = 7 };
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        evpush_metrics_of(&c, 1700000000500, &t);
        static const char *const want[] = {
                "\nslurm_events_last_seq 120\n",
                "\nslurm_events_delivered_seq 100\n",
                "\nslurm_events_waiting 20\n",
                "\n# TYPE slurm_events_lost_total counter\nslurm_events_lost_total 7\n",
                "\nslurm_events_push_failing_seconds 0\n",
                "\nslurm_events_push_timestamp_seconds 1700000000\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_non_null(strstr(t.buf, want[i]));
        size_t helps = 0, samples = 0;
        for (const char *l = t.buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, "# HELP ", 7) == 0)
                        helps++;
                else if (*l != '#')
                        samples++;
        }
        assert_int_equal(helps, 6);
        assert_int_equal(samples, 6);
        assert_int_equal(t.buf[t.len - 1], '\n');
        /* failing for 90 s; a cursor behind the log's seq (a log started anew) waits nothing */
        c = (struct evpush_cursor){ .latest = 3, .delivered = 50, .error = (char *) "x", .error_since_ms = 1000 };
        strbuf_reset(&t);
        evpush_metrics_of(&c, 91000, &t);
        assert_non_null(strstr(t.buf, "\nslurm_events_push_failing_seconds 90\n"));
        assert_non_null(strstr(t.buf, "\nslurm_events_waiting 0\n"));
}

static void test_lock(void **state) {
        const char *dir = *state;
        int a = -1, b = -1;
        assert_int_equal(evpush_lock(dir, &a, NULL), 1);
        assert_int_equal(evpush_lock(dir, &b, NULL), 0);
        close(a);
        assert_int_equal(evpush_lock(dir, &b, NULL), 1);
        close(b);
}

static int setup(void **state) {
        char *dir = test_tmpdir_make("test-charm-evpush");
        if (!dir)
                return -1;
        *state = dir;
        return 0;
}

static int teardown(void **state) {
        test_tmpdir_remove(*state);
        return 0;
}

int main(void) {
        signal(SIGPIPE, SIG_IGN);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_deliver_retry, setup, teardown),
                cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rotated_out, setup, teardown),
                cmocka_unit_test_setup_teardown(test_new_endpoint_new_log, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_answer, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ids_change_seq_goes_on, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fresh_on_rotated_log, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_large_and_stale_lock, setup, teardown),
                cmocka_unit_test_setup_teardown(test_batch_bound_and_empty_log, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
                cmocka_unit_test(test_metrics_of),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
