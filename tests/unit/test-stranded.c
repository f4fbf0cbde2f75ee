/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurm/stranded's pure parts: which required node strands a pending job, and
 * the status wording. Finding, holding and cancelling run against real daemons in
 * tests/cluster/charm-depart.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <slurm/slurm.h>
#include <string.h>

#include "util/macro.h"
#include "slurm/stranded.h"
#include "util/alloc.h"
#include "util/strv.h"

#include "util/banned.h"

static char *table[] = { "cpu-0", "cpu-2", "gpu-0", "gpu-1" }; /* sorted */

/* leaving: NULL, or one node name, or several separated by spaces */
static void check_needs(const char *req, const char *leaving, const char *want) {
        _cleanup_strv_ struct strv l = STRV_INIT;
        for (const char *p = leaving; p && *p;) {
                size_t n = strcspn(p, " ");
                strv_push_take(&l, xstrndup(p, n));
                p += n + (p[n] == ' ');
        }
        _cleanup_free_ char *got = slurm_stranded_needs(req, leaving ? &l : NULL, table, ELEMENTSOF(table));
        if (!want)
                assert_null(got);
        else {
                assert_non_null(got);
                assert_string_equal(got, want);
        }
}

static void test_needs(void **state) {
        check_needs(NULL, NULL, NULL);
        check_needs("", "cpu-0", NULL);
        check_needs("cpu-0", NULL, NULL);           /* present, nobody leaving */
        check_needs("cpu-0", "cpu-0", "cpu-0");     /* the leaving node */
        check_needs("cpu-1", NULL, "cpu-1");        /* gone already */
        check_needs("cpu-[0,2]", "cpu-2", "cpu-2"); /* a multi-node job needs them all */
        check_needs("cpu-[0-2]", NULL, "cpu-1");    /* the first missing one */
        check_needs("gpu-[0-1],cpu-0", "gpu-9", NULL);
        check_needs("gpu-0,cpu-1", "gpu-0", "gpu-0");
        /* several leaving at once (issue 28): any of them */
        check_needs("cpu-2", "cpu-0 cpu-2", "cpu-2");
        check_needs("gpu-[0-1]", "cpu-0 gpu-1", "gpu-1");
        check_needs("gpu-0", "cpu-0 cpu-2", NULL);
        check_needs("cpu-0", "", NULL); /* an empty list: nobody leaving */
        /* an empty table: every required node is gone */
        _cleanup_free_ char *got = slurm_stranded_needs("cpu-0", NULL, NULL, 0);
        assert_string_equal(got, "cpu-0");
}

static void test_describe(void **state) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        struct slurm_stranded_job one[] = { { 9, (char *) "slurmd-1", false } };
        struct slurm_stranded a = { .jobs = one, .n_jobs = 1 };
        slurm_stranded_describe_jobs(&a, &s);
        assert_string_equal(s.buf, "pending job 9 requires node slurmd-1");

        struct slurm_stranded_job two[] = { { 9, (char *) "slurmd-1", false },
                { 10, (char *) "slurmd-1", false } };
        struct slurm_stranded b = { .jobs = two, .n_jobs = 2 };
        strbuf_reset(&s);
        slurm_stranded_describe_jobs(&b, &s);
        assert_string_equal(s.buf, "pending jobs 9, 10 require node slurmd-1");

        struct slurm_stranded_job three[] = { { 9, (char *) "slurmd-1", false },
                { 12, (char *) "slurmd-3", false }, { 13, (char *) "slurmd-1", false } };
        struct slurm_stranded c = { .jobs = three, .n_jobs = 3 };
        strbuf_reset(&s);
        slurm_stranded_describe_jobs(&c, &s);
        assert_string_equal(s.buf, "pending jobs 9, 12, 13 require nodes slurmd-1, slurmd-3");

        struct slurm_stranded none = { 0 };
        strbuf_reset(&s);
        slurm_stranded_describe_jobs(&none, &s);
        assert_int_equal(s.len, 0);
}

static void test_held(void **state) {
        (void) state;
        assert_true(slurm_stranded_held(0, WAIT_HELD));
        assert_true(slurm_stranded_held(0, WAIT_HELD_USER));
        /* 22.05's scheduler: priority 0 with BadConstraints, lifted when node features change */
        assert_false(slurm_stranded_held(0, FAIL_BAD_CONSTRAINTS));
        assert_false(slurm_stranded_held(0, WAIT_NO_REASON));
        assert_false(slurm_stranded_held(1, WAIT_HELD));
        assert_false(slurm_stranded_held(4294901760u, WAIT_PRIORITY));
}

static void test_done_zeroed(void **state) {
        struct slurm_stranded s = { 0 };
        struct slurm_stranded_report r = { 0 }, q = SLURM_STRANDED_REPORT_INIT;
        slurm_stranded_done(&s);
        slurm_stranded_report_done(&r);
        slurm_stranded_report_done(&q);
        slurm_stranded_done(NULL);
        slurm_stranded_report_done(NULL);
}

/* the leaving nodes a job's list names, sorted, once; none without leaving nodes */
static void test_required(void **state) {
        (void) state;
        _cleanup_strv_ struct strv r = STRV_INIT, leaving = STRV_INIT;
        slurm_stranded_required("cpu-[0-3]", NULL, &r);
        slurm_stranded_required("cpu-[0-3]", &leaving, &r);
        assert_int_equal(r.n, 0);
        strv_push(&leaving, "cpu-2");
        strv_push(&leaving, "big-0");
        slurm_stranded_required(NULL, &leaving, &r);
        slurm_stranded_required("", &leaving, &r);
        slurm_stranded_required("cpu-[0-1],gpu-0", &leaving, &r);
        assert_int_equal(r.n, 0);
        slurm_stranded_required("cpu-[0-3]", &leaving, &r);
        slurm_stranded_required("big-0,cpu-2", &leaving, &r);
        slurm_stranded_required("cpu-2", &leaving, &r);
        assert_int_equal(r.n, 2);
        assert_string_equal(r.v[0], "big-0");
        assert_string_equal(r.v[1], "cpu-2");
}

/* every required node without a record, sorted, once */
static void test_missing(void **state) {
        (void) state;
        _cleanup_strv_ struct strv m = STRV_INIT;
        slurm_stranded_missing(NULL, table, ELEMENTSOF(table), &m);
        slurm_stranded_missing("", table, ELEMENTSOF(table), &m);
        slurm_stranded_missing("cpu-[0,2],gpu-0", table, ELEMENTSOF(table), &m);
        assert_int_equal(m.n, 0);
        slurm_stranded_missing("cpu-[0-3]", table, ELEMENTSOF(table), &m);
        slurm_stranded_missing("gpu-[0-2],cpu-1", table, ELEMENTSOF(table), &m);
        slurm_stranded_missing("cpu-3,big-0", table, ELEMENTSOF(table), &m);
        assert_int_equal(m.n, 4);
        assert_string_equal(m.v[0], "big-0");
        assert_string_equal(m.v[1], "cpu-1");
        assert_string_equal(m.v[2], "cpu-3");
        assert_string_equal(m.v[3], "gpu-2");
        /* an empty table: every required node */
        _cleanup_strv_ struct strv e = STRV_INIT;
        slurm_stranded_missing("a,b", NULL, 0, &e);
        assert_int_equal(e.n, 2);
}

/* placeholders: created for the missing nodes that have none, deleted when none is missing */
static void test_placeholder_plan(void **state) {
        (void) state;
        struct slurm_stranded s = { 0 };
        _cleanup_strv_ struct strv create = STRV_INIT, drop = STRV_INIT;
        slurm_stranded_placeholder_plan(&s, &create, &drop);
        assert_int_equal(create.n + drop.n, 0);
        strv_push(&s.missing, "cpu-1");
        strv_push(&s.missing, "cpu-3");
        strv_push(&s.placeholders, "cpu-3");
        strv_push(&s.placeholders, "gpu-7");
        slurm_stranded_placeholder_plan(&s, &create, &drop);
        assert_int_equal(create.n, 1);
        assert_string_equal(create.v[0], "cpu-1");
        assert_int_equal(drop.n, 1);
        assert_string_equal(drop.v[0], "gpu-7");
        slurm_stranded_done(&s);
        assert_int_equal(s.missing.n + s.placeholders.n, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_needs),
                cmocka_unit_test(test_describe),
                cmocka_unit_test(test_held),
                cmocka_unit_test(test_done_zeroed),
                cmocka_unit_test(test_missing),
                cmocka_unit_test(test_required),
                cmocka_unit_test(test_placeholder_plan),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
