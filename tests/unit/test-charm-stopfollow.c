/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/common/stopfollow: which watcher follows a stop, and when a run is
 * asked for (the same process stopped or running again at two looks in a row; a tracer's stops of
 * a moment never; a new process counts as running; an unread state changes nothing). The look itself (MainPID over sd-bus) is followed on
 * a real slurmdbd in the cluster test charm-accounting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/common/stopfollow.h"

#include "util/banned.h"

static void test_wanted(void **state) {
        assert_true(stopfollow_wanted("slurmdbd.service"));
        assert_false(stopfollow_wanted("slurmctld.service"));
        assert_false(stopfollow_wanted("slurmd.service"));
        assert_false(stopfollow_wanted("munge.service"));
        assert_false(stopfollow_wanted(NULL));
}

static void test_same_process(void **state) {
        struct stopfollow f = STOPFOLLOW_INIT;
        assert_false(stopfollow_note(&f, 100, 'S')); /* first look, running: nothing to tell */
        assert_false(stopfollow_note(&f, 100, 'R'));
        assert_false(stopfollow_note(&f, 100, 'D'));
        assert_false(stopfollow_note(&f, 100, 'T')); /* stopped, one look: not yet */
        assert_false(f.stopped);
        assert_true(stopfollow_note(&f, 100, 'T')); /* two in a row: a run */
        assert_true(f.stopped);
        assert_false(stopfollow_note(&f, 100, 'T')); /* still: one run only */
        assert_false(stopfollow_note(&f, 100, 't')); /* traced is stopped too */
        assert_false(stopfollow_note(&f, 100, '?')); /* not read: no change */
        assert_true(f.stopped);
        assert_false(stopfollow_note(&f, 100, 'S')); /* continued, one look */
        assert_true(stopfollow_note(&f, 100, 'S'));  /* two: a run */
        assert_false(f.stopped);
        assert_false(stopfollow_note(&f, 100, 'S'));
        /* a tracer's stops of a moment (strace, gcore): never two looks in a row, no run */
        for (int i = 0; i < 6; i++) {
                assert_false(stopfollow_note(&f, 100, 't'));
                assert_false(stopfollow_note(&f, 100, 'S'));
        }
        assert_false(f.stopped);
        assert_false(stopfollow_note(&f, 100, 't')); /* a debugger that holds it */
        assert_true(stopfollow_note(&f, 100, 't'));
        assert_true(f.stopped);
        assert_false(stopfollow_note(&f, 100, 'R')); /* a look between two stops of a tracer */
        assert_false(stopfollow_note(&f, 100, 't'));
        assert_true(f.stopped);
}

static void test_new_process(void **state) {
        struct stopfollow f = STOPFOLLOW_INIT;
        assert_false(stopfollow_note(&f, 7, 'T')); /* the first look finds it stopped */
        assert_true(stopfollow_note(&f, 7, 'T'));  /* and the next */
        assert_false(stopfollow_note(&f, 8, 'S')); /* restarted by systemd: its own watch runs */
        assert_false(f.stopped);
        assert_false(stopfollow_note(&f, 9, 'T')); /* a new process, stopped */
        assert_true(stopfollow_note(&f, 9, 'T'));
        assert_false(stopfollow_note(&f, 0, '?')); /* none (systemd between two): nothing */
        assert_false(f.stopped);
        assert_false(stopfollow_note(&f, 0, 'T')); /* no process is never stopped */
        assert_false(stopfollow_note(&f, 0, 'T'));
        assert_false(f.stopped);
        assert_false(stopfollow_note(&f, 10, 'R'));
        assert_false(stopfollow_note(&f, 10, 'T'));
        assert_true(stopfollow_note(&f, 10, 'T'));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wanted),
                cmocka_unit_test(test_same_process),
                cmocka_unit_test(test_new_process),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
