/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmdbd/wedgefollow: which watcher follows slurmdbd's answers, when a
 * run is asked for (its look disagrees with what the status says, at most once a minute while it
 * does), what is no news, the record the reconcile keeps, and that a look without it (or on a
 * paused unit) asks nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "charm/common/charm.h"
#include "charm/common/pause.h"
#include "charm/slurmdbd/wedgefollow.h"
#include "tmpdir.h"

#include "util/banned.h"

#define S (1000 * 1000ULL)

static void test_wanted(void **state) {
        assert_true(wedgefollow_wanted("slurmdbd.service"));
        assert_false(wedgefollow_wanted("slurmctld.service"));
        assert_false(wedgefollow_wanted("slurmd.service"));
        assert_false(wedgefollow_wanted(NULL));
}

/* The record's stamp as the reconcile leaves it: a new one each time its words change (it is
 * rewritten only then), none without a record. */
static uint64_t stamp_of(enum wedge_told told) {
        static enum wedge_told last = WEDGE_TOLD_NONE;
        static uint64_t stamp = 1000;
        if (told != last)
                stamp++;
        last = told;
        return told == WEDGE_TOLD_NONE ? 0 : stamp;
}

static void test_note(void **state) {
        struct wedgefollow f = WEDGEFOLLOW_INIT;
        /* no record (not serving, paused): nothing, whatever the ping */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_NONE, stamp_of(WEDGE_TOLD_NONE), -ETIMEDOUT, 10 * S));
        assert_int_equal(f.rate.next_look, 10 * S + WEDGEFOLLOW_POLL_USEC);
        /* answers, as the status says: no news */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), 0, 40 * S));
        /* one timeout: looked at again soon, no run yet (a slow moment is not silence) */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 70 * S));
        assert_int_equal(f.rate.next_look, 70 * S + WEDGEFOLLOW_AGAIN_USEC);
        /* an answer in between: counted from the start again */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), 0, 75 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 105 * S));
        /* a failure at once (refused while systemd restarts it) is no silence: counted again */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ECONNREFUSED, 110 * S));
        assert_int_equal(f.misses, 0);
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 112 * S));
        /* the second timeout in a row while the status says "answers": one run */
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 115 * S));
        assert_true(f.silent);
        assert_int_equal(f.rate.next_look, 115 * S + WEDGEFOLLOW_POLL_USEC);
        /* the run's own probe got an answer (the status still says "answers"): asked again
         * once a minute at most while they disagree */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 145 * S));
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 175 * S));
        /* the status says "silent" now: silence is no news */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_SILENT, stamp_of(WEDGE_TOLD_SILENT), -ETIMEDOUT, 205 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_SILENT, stamp_of(WEDGE_TOLD_SILENT), -ETIMEDOUT, 235 * S));
        /* any result but a timeout while the status says "silent": one run at once */
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_SILENT, stamp_of(WEDGE_TOLD_SILENT), -EACCES, 265 * S));
        assert_false(f.silent);
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), 0, 295 * S));
        /* the case a first version missed: silence told (a SIGSTOP), then a run of another
         * cause says "answers" (the stop's end) and the daemon is frozen before the next look:
         * the status is what is compared, so the silence is told again */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 300 * S));
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 305 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_SILENT, stamp_of(WEDGE_TOLD_SILENT), -ETIMEDOUT, 335 * S));
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 365 * S));
        /* the same with no look while the record said "silent" (the stop's run and its end's
         * both between two looks: "answers" at both, rewritten in between): asked at once,
         * not a minute after the last ask */
        (void) stamp_of(WEDGE_TOLD_SILENT);
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 395 * S));
        /* the same record after the ask: once a minute */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 425 * S));
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 455 * S));
        /* the status names the database: slurmdbd's handshake fails at once or waits with it,
         * no news; one that succeeds is (the database is back), once a minute at most */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), -EIO, 456 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), -ETIMEDOUT, 457 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), -ETIMEDOUT, 458 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), -ETIMEDOUT, 459 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), -ECONNREFUSED, 460 * S));
        assert_true(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), 0, 461 * S));
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_DB, stamp_of(WEDGE_TOLD_DB), 0, 491 * S));
        /* no longer serving (another unit serves, the unit paused): reset, so that serving again
         * counts afresh */
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_NONE, stamp_of(WEDGE_TOLD_NONE), 0, 530 * S));
        assert_false(f.silent);
        assert_int_equal(f.misses, 0);
        assert_false(wedgefollow_note(&f, WEDGE_TOLD_ANSWERS, stamp_of(WEDGE_TOLD_ANSWERS), -ETIMEDOUT, 560 * S));
        assert_int_equal(f.rate.next_look, 560 * S + WEDGEFOLLOW_AGAIN_USEC);
}

static void test_look(void **state) {
        const char *root = *state;
        struct wedgefollow f = WEDGEFOLLOW_INIT;
        /* no record: no handshake, nothing */
        assert_int_equal(wedgefollow_told(root, NULL), WEDGE_TOLD_NONE);
        assert_int_equal(wedgefollow_look(&f, root, 5 * S), 0);
        assert_int_equal(f.rate.next_look, 5 * S + WEDGEFOLLOW_POLL_USEC);
        /* not due: nothing looked at */
        assert_int_equal(wedgefollow_look(&f, root, 6 * S), 0);
        /* the record kept, read back, rewritten and removed */
        _cleanup_free_ char *path = xasprintf("%s%s/%s", root, CHARM_PATH_STATE_DIR, WEDGEFOLLOW_SERVING_FILE);
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_ANSWERS), 0);
        assert_int_equal(wedgefollow_told(root, NULL), WEDGE_TOLD_ANSWERS);
        uint64_t st1 = 0, st2 = 0, st3 = 0;
        assert_int_equal(wedgefollow_told(root, &st1), WEDGE_TOLD_ANSWERS);
        assert_true(st1 > 0);
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_ANSWERS), 0);
        assert_int_equal(wedgefollow_told(root, &st2), WEDGE_TOLD_ANSWERS);
        assert_true(st2 == st1); /* the same words: not rewritten, the same stamp */
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_SILENT), 0);
        assert_int_equal(wedgefollow_told(root, &st3), WEDGE_TOLD_SILENT);
        assert_true(st3 != st1);
        _cleanup_free_ char *data = NULL;
        assert_int_equal(read_full_file(path, &data, NULL), 0);
        assert_string_equal(data, "silent\n");
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_DB), 0);
        assert_int_equal(wedgefollow_told(root, NULL), WEDGE_TOLD_DB);
        /* an empty record (an older version's) reads "answers" */
        assert_int_equal(write_file_atomic(path, "", 0, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(wedgefollow_told(root, NULL), WEDGE_TOLD_ANSWERS);
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_SILENT), 0);
        /* a paused unit: no record read, no handshake */
        _cleanup_free_ char *pause = xasprintf("%s%s/%s", root, CHARM_PATH_STATE_DIR, PAUSE_FILE);
        FILE *fp = fopen(pause, "we");
        assert_non_null(fp);
        fclose(fp);
        assert_int_equal(wedgefollow_told(root, NULL), WEDGE_TOLD_NONE);
        f.misses = 1;
        assert_int_equal(wedgefollow_look(&f, root, 40 * S), 0);
        assert_int_equal(f.misses, 0);
        assert_int_equal(unlink(pause), 0);
        /* serving, said silent, no clients' file here: the handshake fails at once, which is no
         * silence: a run */
        assert_int_equal(wedgefollow_look(&f, root, 80 * S), 1);
        assert_false(f.silent);
        assert_int_equal(f.misses, 0);
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_ANSWERS), 0);
        assert_int_equal(wedgefollow_look(&f, root, 120 * S), 0);
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_NONE), 0);
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(wedgefollow_serving(root, WEDGE_TOLD_NONE), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wanted),
                cmocka_unit_test(test_note),
                cmocka_unit_test_setup_teardown(test_look, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
