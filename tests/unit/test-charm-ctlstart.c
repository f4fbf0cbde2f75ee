/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/ctlstart: the record of slurmctld's good starts and a candidate's bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "util/macro.h"
#include "charm/slurmctld/ctlstart.h"
#include "tmpdir.h"

#include "util/banned.h"

static void test_bound(void **state) {
        const long fast[] = { 500, 900, 700 }, slow[] = { 4000 }, huge[] = { 500, 9000 };
        /* no record: the ceiling */
        assert_int_equal(ctl_start_bound(NULL, 0, 20000), 20000);
        /* the slowest × 3 + slack, never under the floor */
        assert_int_equal(ctl_start_bound(fast, 3, 20000), CTL_START_MIN_MS);
        assert_int_equal(ctl_start_bound(slow, 1, 20000), 4000 * CTL_START_FACTOR + CTL_START_SLACK_MS);
        /* never over the ceiling, also where × 3 would overflow it */
        assert_int_equal(ctl_start_bound(huge, 2, 20000), 20000);
        const long absurd[] = { 0x7fffffffffffL };
        assert_int_equal(ctl_start_bound(absurd, 1, 20000), 20000);
        /* a ceiling under the floor wins (a caller's short answer timeout) */
        assert_int_equal(ctl_start_bound(fast, 3, 3000), 3000);
}

static void test_record(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        long ms[CTL_START_KEEP];
        size_t n;

        ctl_start_read(&p, ms, &n);
        assert_int_equal(n, 0);
        assert_int_equal(ctl_start_bound_for(&p, 20000), 20000);

        /* the last KEEP, newest last */
        for (long v = 1; v <= CTL_START_KEEP + 2; v++)
                assert_int_equal(ctl_start_note(&p, v * 1000, &e), 0);
        ctl_start_read(&p, ms, &n);
        assert_int_equal(n, CTL_START_KEEP);
        assert_int_equal(ms[0], 3000);
        assert_int_equal(ms[CTL_START_KEEP - 1], (CTL_START_KEEP + 2) * 1000);
        assert_int_equal(ctl_start_bound_for(&p, 60000), (CTL_START_KEEP + 2) * 1000 * CTL_START_FACTOR + CTL_START_SLACK_MS);

        /* a garbled record is no record: the ceiling, and the next note starts it again */
        char path[4096];
        snprintf(path, sizeof path, "%s%s/%s", p.root, CHARM_PATH_STATE_DIR, CTL_START_FILE);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("1200\nabc\n", f);
        fclose(f);
        ctl_start_read(&p, ms, &n);
        assert_int_equal(n, 0);
        assert_int_equal(ctl_start_bound_for(&p, 20000), 20000);
        assert_int_equal(ctl_start_note(&p, 700, &e), 0);
        ctl_start_read(&p, ms, &n);
        assert_int_equal(n, 1);
        assert_int_equal(ms[0], 700);
}

/* A start got on when the log since the restart has a primary's or a backup's line; a line
 * before the offset (an earlier start) does not count. */
static void test_getting_on(void **state) {
        char path[4096];
        snprintf(path, sizeof path, "%s/slurmctld.log", (const char *) *state);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("[t0] slurmctld running in background mode\n[t1] slurmctld version 22.05.8 started\n", f);
        fclose(f);
        assert_true(ctl_start_getting_on(path, 0));
        off_t from = (off_t) strlen("[t0] slurmctld running in background mode\n");
        assert_false(ctl_start_getting_on(path, from));
        f = fopen(path, "a");
        assert_non_null(f);
        fputs("[t2] Running as primary controller\n", f);
        fclose(f);
        assert_true(ctl_start_getting_on(path, from));
        snprintf(path, sizeof path, "%s/none.log", (const char *) *state);
        assert_false(ctl_start_getting_on(path, 0));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bound),
                cmocka_unit_test_setup_teardown(test_record, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_getting_on, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
