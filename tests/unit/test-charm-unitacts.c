/* SPDX-License-Identifier: Apache-2.0 */
/* charm/slurmctld/unitacts: what the controller leader saw recorded of each compute unit's own
 * actions (the file that spares a sweep the log's lock). The rest is hook tools: charm-events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/unitacts.h"

#include "util/banned.h"

static void test_seen(void **state) {
        assert_int_equal(unitacts_seen_get(NULL, "cpu/0", "0123456789abcdef"), 0);
        _cleanup_free_ char *a = unitacts_seen_set(NULL, "cpu/0", "0123456789abcdef", 3);
        assert_string_equal(a, "cpu/0 0123456789abcdef 3\n");
        _cleanup_free_ char *b = unitacts_seen_set(a, "cpu/10", "0123456789abcdef", 7);
        _cleanup_free_ char *c = unitacts_seen_set(b, "cpu/0", "0123456789abcdef", 5);
        assert_string_equal(c, "cpu/10 0123456789abcdef 7\ncpu/0 0123456789abcdef 5\n");
        assert_int_equal(unitacts_seen_get(c, "cpu/0", "0123456789abcdef"), 5);
        assert_int_equal(unitacts_seen_get(c, "cpu/1", "0123456789abcdef"), 0); /* not cpu/10's */
        assert_int_equal(unitacts_seen_get(c, "cpu/0", "fedcba9876543210"), 0); /* another list */
        /* bounded: the line set longest ago goes */
        char *d = xstrdup(c);
        for (int i = 0; i < UNITACTS_SEEN_MAX; i++) {
                char unit[32];
                snprintf(unit, sizeof unit, "x/%d", i);
                char *next = unitacts_seen_set(d, unit, "0123456789abcdef", 1);
                free(d);
                d = next;
        }
        size_t lines = 0;
        for (const char *p = d; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, UNITACTS_SEEN_MAX);
        assert_int_equal(unitacts_seen_get(d, "cpu/0", "0123456789abcdef"), 0);
        assert_int_equal(unitacts_seen_get(d, "x/1023", "0123456789abcdef"), 1);
        free(d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_seen),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
