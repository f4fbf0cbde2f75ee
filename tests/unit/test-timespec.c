/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of Slurm's time string grammar (slurmconf/timespec.h), cases from Slurm's
 * _is_valid_timespec() and time_str2secs(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurmconf/timespec.h"

#include "util/banned.h"

static void test_forms(void **state) {
        static const char *const good[] = { "10", "0", "1:30", "01:02:03", "1-2", "1-2:3", "1-2:3:4", "-1",
                "INFINITE", "infinite", "UNLIMITED", "Unlimited" };
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                assert_true(slurmconf_time_spec_ok(good[i]));
        static const char *const bad[] = { "", "abc", "1h", "1.5", "1-2-3", "1:2:3:4", "1:2-3", ":",
                "1:", "1-2:", " 10", "10 ", "INF" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_false(slurmconf_time_spec_ok(bad[i]));
        assert_false(slurmconf_time_spec_ok(NULL));
        /* Slurm's grammar counts digit runs, dashes and colons only: "-2" passes it */
        assert_true(slurmconf_time_spec_ok("-2"));
}

/* the bare grammar: no INFINITE (time_str2secs() takes it before); "-1" passes as digits */
static void test_valid(void **state) {
        assert_true(slurmconf_timespec_valid("5"));
        assert_true(slurmconf_timespec_valid("2-00:00:00"));
        assert_true(slurmconf_timespec_valid("-1"));
        assert_false(slurmconf_timespec_valid("INFINITE"));
        assert_false(slurmconf_timespec_valid(""));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_forms),
                cmocka_unit_test(test_valid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
