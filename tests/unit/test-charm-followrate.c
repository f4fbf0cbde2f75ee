/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/common/followrate: the next look, one run when ready, not again
 * before the `again` interval while the wait stays, and a new wait followed from its start. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/common/followrate.h"

#include "util/banned.h"

#define S (1000 * 1000ULL)
#define POLL (10 * S)
#define AGAIN (60 * S)

static void test_note(void **state) {
        struct follow_rate f = FOLLOW_RATE_INIT;
        /* no wait: never a run, whatever ready says */
        assert_false(follow_rate_note(&f, false, true, 100 * S, POLL, AGAIN));
        assert_int_equal(f.next_look, 100 * S + POLL);
        assert_int_equal(f.asked_at, 0);
        /* waiting, not ready: no run */
        assert_false(follow_rate_note(&f, true, false, 110 * S, POLL, AGAIN));
        assert_int_equal(f.next_look, 110 * S + POLL);
        /* ready: one run, then none before AGAIN while it waits, ready or not */
        assert_true(follow_rate_note(&f, true, true, 120 * S, POLL, AGAIN));
        assert_false(follow_rate_note(&f, true, true, 130 * S, POLL, AGAIN));
        assert_false(follow_rate_note(&f, true, true, 120 * S + AGAIN - 1, POLL, AGAIN));
        assert_true(follow_rate_note(&f, true, true, 120 * S + AGAIN, POLL, AGAIN));
        /* the wait ended: a new one is followed at once */
        assert_false(follow_rate_note(&f, false, false, 300 * S, POLL, AGAIN));
        assert_true(follow_rate_note(&f, true, true, 310 * S, POLL, AGAIN));
        /* another poll interval is the caller's */
        assert_false(follow_rate_note(&f, true, false, 320 * S, 2 * S, AGAIN));
        assert_int_equal(f.next_look, 322 * S);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_note),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
