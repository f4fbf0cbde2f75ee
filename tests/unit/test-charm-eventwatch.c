/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/eventwatch: the start round, one round per burst of trigger
 * records (doorbell + window), records removed only after a good round, retries, the safety
 * poll, the cause text, and the status refresh run in a child. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/eventwatch.h"
#include "util/fileio.h"
#include "util/strv.h"

#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/banned.h"

static char *tmpdir(void) {
        char tmpl[] = "/tmp/test-eventwatch.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        return xstrdup(tmpl);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static int64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What the callback saw, round by round ("cause/records"), and what it does next. */
struct rec {
        const char *spool;
        struct strv rounds;
        int fail_rounds; /* fail this many rounds first */
        int news;        /* the value returned by good rounds */
};

static int cb(void *userdata, const struct evspool_list *records, const char *cause, struct strbuf *err) {
        struct rec *r = userdata;
        size_t valid = 0;
        for (size_t i = 0; i < records->n; i++)
                valid += records->v[i].valid;
        strv_pushf(&r->rounds, "%s/%zu", cause, valid);
        if (r->fail_rounds > 0) {
                r->fail_rounds--;
                strbuf_addstr(err, "slurmctld not answering");
                return -ECONNREFUSED;
        }
        return r->news;
}

static void assert_rounds(const struct strv *got, const char *const *want, size_t n) {
        _cleanup_free_ char *j = strv_join(got, " | ");
        if (got->n != n)
                fail_msg("rounds: %s", j);
        for (size_t i = 0; i < n; i++)
                if (!streq(got->v[i], want[i]))
                        fail_msg("round %zu: \"%s\" (all: %s)", i, got->v[i], j);
}
#define ASSERT_ROUNDS(got, ...)                           \
        do {                                              \
                const char *const w_[] = { __VA_ARGS__ }; \
                assert_rounds(got, w_, ELEMENTSOF(w_));   \
        } while (0)

/* The watcher over dir, rounds reported to r. */
static struct eventwatch_opts watch_opts(const char *dir, struct rec *r, uint64_t window_usec, unsigned max_rounds) {
        return (struct eventwatch_opts){
                .spool = dir,
                .spool_uid = (uid_t) -1,
                .spool_gid = (gid_t) -1,
                .window_usec = window_usec,
                .max_rounds = max_rounds,
                .reconcile = cb,
                .userdata = r,
        };
}

static size_t spool_count(const char *dir) {
        struct evspool_list l;
        assert_true(evspool_read(dir, 0, &l) >= 0);
        size_t n = l.n;
        evspool_list_done(&l);
        return n;
}

static void test_cause(void **state) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        struct evspool_entry e[] = {
                { .valid = true, .kind = (char *) "reconfig" },
                { .valid = true, .kind = (char *) "drained" },
                { .valid = false },
                { .valid = true, .kind = (char *) "reconfig" },
        };
        struct evspool_list l = { .v = e, .n = ELEMENTSOF(e) };
        eventwatch_cause(&l, "poll", &s);
        assert_string_equal(s.buf, "trigger:drained,reconfig");
        strbuf_reset(&s);
        l.n = 0;
        eventwatch_cause(&l, "poll", &s);
        assert_string_equal(s.buf, "poll");
}

static void test_start_and_bursts(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        struct rec r = { .spool = dir, .rounds = STRV_INIT };
        /* records left from before the watcher started: the start round takes them */
        assert_int_equal(evspool_write(dir, "up", "n1", now_ns()), 0);
        assert_int_equal(evspool_write(dir, "reconfig", "reconfig", now_ns()), 0);
        struct eventwatch_opts o = watch_opts(dir, &r, 400 * 1000, 3);
        /* while the watcher runs, another process writes a burst (one round), then one more */
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct timespec ts = { 0, 300 * 1000 * 1000 };
                nanosleep(&ts, NULL);
                /* a burst: three records 10 ms apart make one round */
                for (int i = 0; i < 3; i++) {
                        (void) evspool_write(dir, i == 1 ? "down" : "drained", "n[1-2]", now_ns());
                        ts.tv_nsec = 10 * 1000 * 1000;
                        nanosleep(&ts, NULL);
                }
                ts = (struct timespec){ 1, 500 * 1000 * 1000 };
                nanosleep(&ts, NULL);
                (void) evspool_write(dir, "slurmctld", "primary_slurmctld_resumed_control", now_ns());
                _exit(0);
        }
        assert_int_equal(eventwatch_run(&o, &err), 0);
        waitpid(pid, NULL, 0);
        ASSERT_ROUNDS(&r.rounds, "trigger:reconfig,up/2", "trigger:down,drained/3", "trigger:slurmctld/1");
        assert_int_equal(spool_count(dir), 0); /* all taken */
        strv_clear(&r.rounds);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* A reconfig record names no node: its round waits (once, pass_usec from the burst's first
 * ring) for the node records of the same trigger pass, which a loaded machine delivered 110 ms
 * later (past the quiet window): one round for both. A reconfig alone still gets its round. */
static void test_reconfig_waits_for_its_pass(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        struct rec r = { .spool = dir, .rounds = STRV_INIT };
        struct eventwatch_opts o = watch_opts(dir, &r, 50 * 1000, 3);
        o.pass_usec = 1000 * 1000;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct timespec ts = { 0, 300 * 1000 * 1000 };
                nanosleep(&ts, NULL);
                (void) evspool_write(dir, "reconfig", "reconfig", now_ns());
                ts.tv_nsec = 200 * 1000 * 1000; /* past the window, within the pass */
                nanosleep(&ts, NULL);
                (void) evspool_write(dir, "drained", "n1", now_ns());
                ts = (struct timespec){ 1, 500 * 1000 * 1000 };
                nanosleep(&ts, NULL);
                (void) evspool_write(dir, "reconfig", "reconfig", now_ns());
                _exit(0);
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(eventwatch_run(&o, &err), 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        waitpid(pid, NULL, 0);
        ASSERT_ROUNDS(&r.rounds, "watcher-start/0", "trigger:drained,reconfig/2", "trigger:reconfig/1");
        /* the lone reconfig's round came after its wait: 0.3 + 0.2 + 1.5 + 1.0 s at least */
        long ms = (long) (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        assert_true(ms >= 2900);
        assert_int_equal(spool_count(dir), 0);
        strv_clear(&r.rounds);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_retry_keeps_records(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        struct rec r = { .spool = dir, .rounds = STRV_INIT, .fail_rounds = 2 };
        assert_int_equal(evspool_write(dir, "down", "n1", now_ns()), 0);
        struct eventwatch_opts o = {
                .spool = dir,
                .spool_uid = (uid_t) -1,
                .spool_gid = (gid_t) -1,
                .retry_usec = 20 * 1000,
                .max_rounds = 3,
                .reconcile = cb,
                .userdata = &r,
        };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(eventwatch_run(&o, &err), 0);
        /* failed twice: the record stayed and came again; the third took it */
        ASSERT_ROUNDS(&r.rounds, "trigger:down/1", "trigger:down/1", "trigger:down/1");
        assert_int_equal(spool_count(dir), 0);
        strv_clear(&r.rounds);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_poll_and_refresh(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_free_ char *out = xasprintf("%s/refreshed", dir);
        _cleanup_free_ char *script = xasprintf("echo refresh >> %s", out);
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", script, NULL };
        struct rec r = { .spool = dir, .rounds = STRV_INIT, .news = 1 };
        struct eventwatch_opts o = {
                .spool = dir,
                .spool_uid = (uid_t) -1,
                .spool_gid = (gid_t) -1,
                .poll_usec = 50 * 1000,
                .max_rounds = 3,
                .reconcile = cb,
                .refresh_argv = argv,
                .userdata = &r,
        };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(eventwatch_run(&o, &err), 0);
        ASSERT_ROUNDS(&r.rounds, "watcher-start/0", "poll/0", "poll/0");
        /* every round had news; refreshes never overlap and at least one ran */
        _cleanup_free_ char *data = NULL;
        assert_int_equal(read_full_file(out, &data, NULL), 0);
        assert_non_null(strstr(data, "refresh\n"));
        strv_clear(&r.rounds);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* The controller expects node changes: rounds every expect_poll_usec while expecting() says
 * some are open, long before the (hour-long) safety poll; then nothing more. A round that finds
 * fewer open than the last one refreshes the status although the log had no news (another
 * controller unit wrote the record: issue 28); one that finds as many or more does not. */
static size_t expect_seq[8];
static size_t expect_i;
static size_t expecting(void *userdata) {
        return expect_seq[expect_i < ELEMENTSOF(expect_seq) ? expect_i++ : ELEMENTSOF(expect_seq) - 1];
}

static void run_expecting(const char *dir, const size_t *seq, size_t n, unsigned rounds, struct rec *r) {
        _cleanup_free_ char *out = xasprintf("%s/refreshed", dir);
        _cleanup_free_ char *script = xasprintf("echo refresh >> %s", out);
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", script, NULL };
        memset(expect_seq, 0, sizeof expect_seq);
        memcpy(expect_seq, seq, n * sizeof *seq);
        expect_i = 0;
        struct eventwatch_opts o = {
                .spool = dir,
                .spool_uid = (uid_t) -1,
                .spool_gid = (gid_t) -1,
                .poll_usec = 3600ULL * 1000 * 1000,
                .max_rounds = rounds,
                .reconcile = cb,
                .refresh_argv = argv,
                .expecting = expecting,
                .expect_poll_usec = 20 * 1000,
                .userdata = r,
        };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(eventwatch_run(&o, &err), 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        /* 20 ms waits, not the hour */
        assert_true(b.tv_sec - a.tv_sec < 5);
}

static void test_expecting(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_free_ char *out = xasprintf("%s/refreshed", dir);
        _cleanup_free_ char *data = NULL;
        struct rec r = { .spool = dir, .rounds = STRV_INIT, .news = 0 };

        /* 2 open, then 1, then none: expect rounds until none, and a refresh without news */
        const size_t met[] = { 2, 1, 0 };
        run_expecting(dir, met, ELEMENTSOF(met), 3, &r);
        ASSERT_ROUNDS(&r.rounds, "watcher-start/0", "expect/0", "expect/0");
        assert_int_equal(read_full_file(out, &data, NULL), 0);
        assert_non_null(strstr(data, "refresh\n"));
        strv_clear(&r.rounds);
        (void) unlink(out);

        /* open and growing, none met: no refresh */
        const size_t open[] = { 1, 1, 2 };
        run_expecting(dir, open, ELEMENTSOF(open), 3, &r);
        ASSERT_ROUNDS(&r.rounds, "watcher-start/0", "expect/0", "expect/0");
        assert_int_equal(access(out, F_OK), -1);
        strv_clear(&r.rounds);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_bad_setup(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct eventwatch_opts o = { .spool = "/nonexistent/spool", .reconcile = cb };
        assert_int_equal(eventwatch_run(&o, &err), -ENOENT);
        assert_non_null(strstr(err.buf, ".doorbell"));
        o.reconcile = NULL;
        assert_int_equal(eventwatch_run(&o, &err), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cause),
                cmocka_unit_test(test_start_and_bursts),
                cmocka_unit_test(test_reconfig_waits_for_its_pass),
                cmocka_unit_test(test_retry_keeps_records),
                cmocka_unit_test(test_poll_and_refresh),
                cmocka_unit_test(test_expecting),
                cmocka_unit_test(test_bad_setup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
