/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/confpush: a compute unit's decision about the slurm.conf its slurmd fetched (idle:
 * restart; busy, down or unknown: wait; a restart for the same hash that fetched another file:
 * not again before CONFPUSH_RETRY_S), the published hash text, the record, and the hash of the
 * configless copy (the controller's own hash, ctl_conf_slurm_hash, of those bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "util/fileio.h"
#include "charm/confpush.h"
#include "charm/ctlconf.h"
#include "tmpdir.h"

#include "util/banned.h"

static void test_hash_text(void **state) {
        char t[9];
        uint32_t h = 0;
        confpush_hash_text(0xdeadbeefu, t);
        assert_string_equal(t, "deadbeef");
        assert_int_equal(confpush_hash_parse(t, &h), 0);
        assert_true(h == 0xdeadbeefu);
        confpush_hash_text(0x1fu, t);
        assert_string_equal(t, "0000001f");
        assert_int_equal(confpush_hash_parse(t, &h), 0);
        assert_true(h == 0x1fu);
        /* only 8 lowercase hex digits: a bag's value is the other side's input */
        const char *bad[] = { NULL, "", "1234567", "123456789", "DEADBEEF", "dead beef", "0x123456", "-1234567",
                "1234567g" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                h = 7;
                assert_int_equal(confpush_hash_parse(bad[i], &h), -EINVAL);
                assert_true(h == 7);
        }
}

static void test_next(void **state) {
        struct confpush_view v = { .running = 1, .fetched = 1, .now = 10000 };
        /* the same file: nothing, whatever the node does */
        v.busy = true;
        v.down = true;
        v.jobs = -1;
        assert_int_equal(confpush_next(&v), CONFPUSH_NONE);
        /* behind: idle restarts; a job, a busy state or an unknown count waits; down waits */
        v = (struct confpush_view){ .running = 2, .fetched = 1, .now = 10000 };
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.jobs = 1;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.jobs = -1;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.jobs = 0;
        v.busy = true; /* COMPLETING with no job left in the list */
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.busy = false;
        v.down = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_DOWN);
        v.down = false;
        /* a restart for this hash was made and the node still differs: not again for
         * CONFPUSH_RETRY_S, then once more */
        v.record = true;
        v.record_hash = 2;
        v.record_time = 10000 - CONFPUSH_RETRY_S + 1;
        assert_int_equal(confpush_next(&v), CONFPUSH_STUCK);
        v.record_time = 10000 - CONFPUSH_RETRY_S;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        /* a record from the future (clock stepped back) does not block */
        v.record_time = 20000;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        /* a record for another hash (the controller changed its file since): restart */
        v.record_time = 9999;
        v.record_hash = 3;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
}

static void test_record(void **state) {
        _cleanup_free_ char *t = confpush_record_format(0xabcdef01u, 1700000000);
        assert_string_equal(t, "abcdef01 1700000000\n");
        uint32_t h = 0;
        time_t when = 0;
        assert_int_equal(confpush_record_parse(t, &h, &when), 0);
        assert_true(h == 0xabcdef01u);
        assert_true(when == 1700000000);
        const char *bad[] = { NULL, "", "abcdef01", "abcdef01 x", "abcdef01 12 13", "ABCDEF01 12", "abcdef01 -5",
                "abcdef0 12" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(confpush_record_parse(bad[i], &h, &when), -EINVAL);
}

/* The copy's hash is the controller's hash of those very bytes (comments, newlines included). */
static void test_fetched(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root };
        uint32_t h = 0;
        assert_int_equal(confpush_fetched_hash(&p, &h), -ENOENT);
        _cleanup_free_ char *dir = xasprintf("%s/run/slurm/conf", root);
        assert_int_equal(mkdir_p(dir, 0755), 0);
        _cleanup_free_ char *path = xasprintf("%s/slurm.conf", dir);
        const char conf[] = "# a comment\nClusterName=c\nSlurmctldHost=h\n";
        assert_int_equal(write_file_atomic(path, conf, strlen(conf), 0644, 0, 0), 0);
        assert_int_equal(confpush_fetched_hash(&p, &h), 0);
        assert_true(h == ctl_conf_slurm_hash(conf, strlen(conf)));
        const char other[] = "# a comment\nClusterName=c\nSlurmctldHost=g\n";
        assert_true(h != ctl_conf_slurm_hash(other, strlen(other)));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hash_text),
                cmocka_unit_test(test_next),
                cmocka_unit_test(test_record),
                cmocka_unit_test_setup_teardown(test_fetched, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
