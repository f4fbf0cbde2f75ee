/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/ctlleave: the controller set history (parsed leniently, sorted sets,
 * noted only on a change, the order of hosts ignored, never dated before its last line, the last
 * CTLLEAVE_HISTORY_MAX kept, owner-only) and which running job may hold a set with no staying
 * controller (the slurmd that ran at the job's start, the sets in force during the lag before,
 * before the history its first set, unknown slurmd starts and an empty history unsafe). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/ctlleave.h"
#include "charm/ha.h"
#include "util/fileio.h"
#include "tmpdir.h"

#include "util/banned.h"

static void test_parse(void **state) {
        _cleanup_(ctlleave_history_done) struct ctlleave_history h = { 0 };
        assert_int_equal(ctlleave_history_parse("100 b,a\nbad line\n200 a\n-5 x\n300 \n400 c/d\n500 c", &h), 3);
        assert_int_equal(h.v[0].since, 100);
        assert_int_equal(h.v[0].hosts.n, 2);
        assert_string_equal(h.v[0].hosts.v[0], "a"); /* sorted */
        assert_string_equal(h.v[0].hosts.v[1], "b");
        assert_int_equal(h.v[1].since, 200);
        assert_int_equal(h.v[2].since, 500);
        assert_string_equal(h.v[2].hosts.v[0], "c");
}

static struct strv hosts_of(const char *a, const char *b) {
        struct strv sv = STRV_INIT;
        if (a)
                strv_push(&sv, a);
        if (b)
                strv_push(&sv, b);
        return sv;
}

static void test_note(void **state) {
        const char *dir = *state;
        uid_t uid = getuid();
        gid_t gid = getgid();
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_strv_ struct strv ab = hosts_of("m-1", "m-0"), ba = hosts_of("m-0", "m-1"), a = hosts_of("m-0", NULL);
        assert_int_equal(ctlleave_note(dir, &ab, 1000, uid, gid, &e), 1);
        assert_int_equal(ctlleave_note(dir, &ba, 1010, uid, gid, &e), 0); /* the same set */
        assert_int_equal(ctlleave_note(dir, &a, 990, uid, gid, &e), 1);   /* a clock behind */
        _cleanup_(ctlleave_history_done) struct ctlleave_history h = { 0 };
        assert_int_equal(ctlleave_history_read(dir, &h), 2);
        assert_int_equal(h.v[0].since, 1000);
        assert_int_equal(h.v[1].since, 1000);
        assert_int_equal(h.v[1].hosts.n, 1);
        _cleanup_free_ char *path = xasprintf("%s/%s/%s", dir, HA_MARKER_DIR, CTLLEAVE_HISTORY_FILE);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        /* a bad host name changes nothing */
        _cleanup_strv_ struct strv bad = hosts_of("a,b", NULL);
        assert_int_equal(ctlleave_note(dir, &bad, 2000, uid, gid, &e), -EINVAL);
        /* the last CTLLEAVE_HISTORY_MAX kept */
        for (int i = 0; i < CTLLEAVE_HISTORY_MAX + 5; i++) {
                _cleanup_strv_ struct strv one = STRV_INIT;
                strv_pushf(&one, "h-%d", i);
                assert_int_equal(ctlleave_note(dir, &one, 3000 + i, uid, gid, &e), 1);
        }
        ctlleave_history_done(&h);
        assert_int_equal(ctlleave_history_read(dir, &h), CTLLEAVE_HISTORY_MAX);
        assert_int_equal(h.v[CTLLEAVE_HISTORY_MAX - 1].since, 3000 + CTLLEAVE_HISTORY_MAX + 4);
        /* none yet elsewhere */
        _cleanup_(ctlleave_history_done) struct ctlleave_history none = { 0 };
        assert_int_equal(ctlleave_history_read("/nonexistent-dir", &none), 0);
}

static void test_unsafe(void **state) {
        /* 1000 {m0}; 1010 {m0,m1}; 2000 {m0} (m1 removed); 3000 {m0,m2} (m2 added) */
        _cleanup_(ctlleave_history_done) struct ctlleave_history h = { 0 };
        assert_int_equal(ctlleave_history_parse("1000 m0\n1010 m0,m1\n2000 m0\n3000 m0,m2\n", &h), 4);
        _cleanup_strv_ struct strv m0 = hosts_of("m0", NULL), m2 = hosts_of("m2", NULL), m1 = hosts_of("m1", NULL);
        const time_t lag = 120;
        /* removing m1 at 2000: every set has m0 */
        time_t started[] = { 1005 };
        assert_false(ctlleave_job_unsafe(&h, &m0, 1500, started, 1, lag));
        /* slurmd restarted after the job (at 2001, m1's removal): judged at the job's start */
        time_t restarted[] = { 2001 };
        assert_false(ctlleave_job_unsafe(&h, &m0, 1500, restarted, 1, lag));
        /* removing m0 later, m2 staying: a job from before m2 joined holds {m0} or {m0,m1} */
        assert_true(ctlleave_job_unsafe(&h, &m2, 1500, started, 1, lag));
        /* a job that started on a slurmd started past the lag after {m0,m2}: safe; one started
         * within the lag may have read the file before the new list reached it */
        time_t new_sd[] = { 3130 };
        assert_false(ctlleave_job_unsafe(&h, &m2, 3200, new_sd, 1, lag));
        time_t soon_sd[] = { 3005 };
        assert_true(ctlleave_job_unsafe(&h, &m2, 3200, soon_sd, 1, lag));
        /* the job started after m2 joined, but its node's slurmd before (not restarted): unsafe */
        time_t old_sd[] = { 2500 };
        assert_true(ctlleave_job_unsafe(&h, &m2, 3200, old_sd, 1, lag));
        /* the slurmd restarted after the job, which started within the lag after the change:
         * its slurmd may have had the set before */
        time_t later_sd[] = { 3300 };
        assert_true(ctlleave_job_unsafe(&h, &m2, 3050, later_sd, 1, lag));
        assert_false(ctlleave_job_unsafe(&h, &m2, 3150, later_sd, 1, lag));
        /* one node of two old */
        time_t two[] = { 3130, 2500 };
        assert_true(ctlleave_job_unsafe(&h, &m2, 3200, two, 2, lag));
        /* unknown slurmd start; no node known (judged at its start) */
        time_t unknown[] = { 0 };
        assert_true(ctlleave_job_unsafe(&h, &m0, 3200, unknown, 1, lag));
        assert_false(ctlleave_job_unsafe(&h, &m0, 3200, NULL, 0, lag));
        assert_true(ctlleave_job_unsafe(&h, &m1, 3200, NULL, 0, lag));
        /* before the history: its first set */
        time_t early[] = { 900 };
        assert_false(ctlleave_job_unsafe(&h, &m0, 950, early, 1, lag));
        assert_true(ctlleave_job_unsafe(&h, &m1, 950, early, 1, lag));
        /* no history, nobody staying: unsafe */
        struct ctlleave_history empty = { 0 };
        assert_true(ctlleave_job_unsafe(&empty, &m0, 3200, new_sd, 1, lag));
        struct strv nobody = STRV_INIT;
        assert_true(ctlleave_job_unsafe(&h, &nobody, 3200, new_sd, 1, lag));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test_setup_teardown(test_note, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_unsafe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
