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
#include "charm/strand.h"
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
        const char *ph = SLURM_STRANDED_PLACEHOLDER_FEATURE;
        /* 22.05 keeps the placeholder's NodeHostName (its name); a registered node's is its
         * machine's */
        assert_true(strand_foreign_record("slurmd-1", NULL, "juju-m-5"));
        assert_true(strand_foreign_record("juju-m-4", NULL, "juju-m-5"));
        assert_true(strand_foreign_record("juju-m", NULL, "juju-m-5"));
        assert_true(strand_foreign_record("juju-m-5x", NULL, "juju-m-5"));
        /* 24.11 takes the machine's host name but keeps the placeholder's features */
        assert_true(strand_foreign_record("juju-m-5", ph, "juju-m-5"));
        assert_true(strand_foreign_record(NULL, ph, NULL));
        assert_true(strand_foreign_record("juju-m-5", "big,departed-node-placeholder", "juju-m-5"));
        assert_false(strand_foreign_record("juju-m-5", "departed-node-placeholder2,x", "juju-m-5"));
        assert_false(strand_foreign_record("juju-m-5", "slurmd,big", "juju-m-5"));
        /* this machine's, short or fully qualified on either side, any other reason */
        assert_false(strand_foreign_record("juju-m-5", NULL, "juju-m-5"));
        assert_false(strand_foreign_record("juju-m-5", "slurmd", "juju-m-5"));
        assert_false(strand_foreign_record("juju-m-5.lxd", NULL, "juju-m-5"));
        assert_false(strand_foreign_record("juju-m-5", NULL, "juju-m-5.example.org"));
        /* nothing to judge */
        assert_false(strand_foreign_record(NULL, NULL, "juju-m-5"));
        assert_false(strand_foreign_record("", NULL, "juju-m-5"));
        assert_false(strand_foreign_record("slurmd-1", NULL, NULL));
        assert_false(strand_foreign_record("slurmd-1", NULL, ""));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_why),
                cmocka_unit_test(test_foreign_record),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
