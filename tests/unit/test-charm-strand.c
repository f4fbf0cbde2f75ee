/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/strand's pure parts: the admin comment of a stranded job, and which
 * node record of a unit's own name is another machine's (a departed node's placeholder). The
 * holds, placeholders and cancels run against real daemons in tests/cluster/charm-strand.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/common/strand.h"
#include "slurm/stranded.h"

#include "util/banned.h"

static void test_why(void **state) {
        (void) state;
        _cleanup_free_ char *a = strand_why("cpu-1", "cpu/1"), *b = strand_why("cpu-1", NULL);
        assert_string_equal(a, "requires node cpu-1, which left the cluster with unit cpu/1: cancel this job, or set "
                               "its ReqNodeList and release it");
        assert_string_equal(b, "requires node cpu-1, which left the cluster: cancel this job, or set its ReqNodeList "
                               "and release it");
}

static void test_foreign_record(void **state) {
        (void) state;
        /* the placeholder's feature, which 22.05 and 24.11 keep on a registration onto it */
        assert_true(strand_foreign_record(SLURM_STRANDED_PLACEHOLDER_FEATURE));
        assert_true(strand_foreign_record("big,departed-node-placeholder"));
        assert_true(strand_foreign_record("departed-node-placeholder,x"));
        /* this unit's own features, a longer name, nothing */
        assert_false(strand_foreign_record("slurmd"));
        assert_false(strand_foreign_record("slurmd,big"));
        assert_false(strand_foreign_record("departed-node-placeholder2,x"));
        assert_false(strand_foreign_record("x-departed-node-placeholder"));
        assert_false(strand_foreign_record(""));
        assert_false(strand_foreign_record(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_why),
                cmocka_unit_test(test_foreign_record),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
