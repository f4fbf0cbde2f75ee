/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/pushfollow: which watcher follows the push, when a run is asked for
 * (pending and no job holding a node), how often again while the push stays pending, and that
 * a look with no pending push asks nothing of slurmctld. The count itself is slurm/jobs.h's
 * (the cluster test charm-paths follows a push with no hook). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/macro.h"
#include "charm/slurmctld/pushfollow.h"
#include "tmpdir.h"

#include "util/banned.h"

#define S (1000 * 1000ULL)

static void test_wanted(void **state) {
        assert_true(pushfollow_wanted("slurmctld.service"));
        assert_false(pushfollow_wanted("slurmd.service"));
        assert_false(pushfollow_wanted("munge.service"));
        assert_false(pushfollow_wanted(NULL));
}

static void test_note(void **state) {
        struct pushfollow f = PUSHFOLLOW_INIT;
        /* nothing pending: never a run */
        assert_false(pushfollow_note(&f, false, 0, 100 * S));
        assert_int_equal(f.rate.next_look, 100 * S + PUSHFOLLOW_POLL_USEC);
        /* pending, jobs running or not known: no run */
        assert_false(pushfollow_note(&f, true, 3, 110 * S));
        assert_false(pushfollow_note(&f, true, -ETIME, 120 * S));
        /* pending and idle: one run */
        assert_true(pushfollow_note(&f, true, 0, 130 * S));
        /* still pending (the push failed, or a job came between): not again before AGAIN */
        assert_false(pushfollow_note(&f, true, 0, 140 * S));
        assert_false(pushfollow_note(&f, true, 0, 130 * S + PUSHFOLLOW_AGAIN_USEC - 1));
        assert_true(pushfollow_note(&f, true, 0, 130 * S + PUSHFOLLOW_AGAIN_USEC));
        /* done: a later push is followed at once */
        assert_false(pushfollow_note(&f, false, 0, 300 * S));
        assert_true(pushfollow_note(&f, true, 0, 310 * S));
}

static void test_look_no_file(void **state) {
        struct pushfollow f = PUSHFOLLOW_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        char *root = test_tmpdir_make("test-charm-pushfollow");
        assert_non_null(root);
        /* no push file under root: 0 at once, no RPC (no slurm.conf here to reach one with) */
        assert_int_equal(pushfollow_look(&f, root, 5 * S, &e), 0);
        assert_int_equal(e.len, 0);
        assert_int_equal(f.rate.next_look, 5 * S + PUSHFOLLOW_POLL_USEC);
        /* not due: nothing looked at */
        assert_int_equal(pushfollow_look(&f, root, 6 * S, &e), 0);
        assert_int_equal(f.rate.next_look, 5 * S + PUSHFOLLOW_POLL_USEC);
        test_tmpdir_remove(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wanted),
                cmocka_unit_test(test_note),
                cmocka_unit_test(test_look_no_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
