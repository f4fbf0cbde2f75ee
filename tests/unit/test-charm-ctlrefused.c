/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/ctlrefused: every refused candidate is remembered (a second refusal
 * does not make the first one new again: attack atk7 F1), the reason comes back without its
 * mark, a timeout under the ceiling is refused for a while then tried once more, at most
 * CTL_REFUSED_MAX are kept (the oldest go), and an earlier charm's single file is taken in. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/macro.h"
#include "charm/slurmctld/ctlrefused.h"
#include "util/fileio.h"
#include "tmpdir.h"

#include "util/banned.h"

static int match(const struct charm_paths *p, const char *data, char **reason) {
        free(*reason);
        *reason = NULL;
        return ctl_refused_match(p, data, strlen(data), reason);
}

static void store(const struct charm_paths *p, const char *data, const char *why, bool once) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(ctl_refused_store(p, data, strlen(data), NULL, 0, why, once, &e), 0);
}

/* Sets every entry's time s seconds back. */
static void age(const struct charm_paths *p, time_t s) {
        _cleanup_free_ char *dir = xasprintf("%s%s/%s", p->root, CHARM_PATH_STATE_DIR, CTL_REFUSED_DIR);
        _cleanup_closedir_ DIR *d = opendir(dir);
        assert_non_null(d);
        struct timespec t[2] = { { .tv_sec = time(NULL) - s }, { .tv_sec = time(NULL) - s } };
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.')
                        assert_int_equal(utimensat(dirfd(d), de->d_name, t, 0), 0);
}

static void test_several(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_free_ char *reason = NULL;
        assert_int_equal(match(&p, "A=1\n", &reason), 0);
        store(&p, "A=1\n", "fatal: one", false);
        store(&p, "A=1\nB=2\n", "fatal: two\nsecond line dropped", false);
        /* the first is still known after the second */
        assert_int_equal(match(&p, "A=1\n", &reason), 1);
        assert_string_equal(reason, "fatal: one");
        assert_int_equal(match(&p, "A=1\nB=2\n", &reason), 1);
        assert_string_equal(reason, "fatal: two");
        assert_int_equal(match(&p, "A=1\nB=3\n", &reason), 0);
        assert_null(reason);
}

static void test_once(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_free_ char *reason = NULL;
        store(&p, "C=1\n", "no answer within 5.0 s", true);
        assert_int_equal(match(&p, "C=1\n", &reason), 1);
        /* the retry said with the reason: a later reconcile's status is this (issue 28) */
        assert_string_equal(reason, "no answer within 5.0 s; tried once more, with the full start time, in 10 minutes");
        age(&p, CTL_REFUSED_RETRY_AFTER_S - 30);
        assert_int_equal(match(&p, "C=1\n", &reason), 1);
        assert_string_equal(reason, "no answer within 5.0 s; tried once more, with the full start time, in 1 minute");
        age(&p, CTL_REFUSED_RETRY_AFTER_S + 60);
        assert_int_equal(match(&p, "C=1\n", &reason), CTL_REFUSED_RETRY);
        /* missed the ceiling too: refused for good, however old */
        store(&p, "C=1\n", "no answer within 20.0 s", false);
        age(&p, CTL_REFUSED_RETRY_AFTER_S + 60);
        assert_int_equal(match(&p, "C=1\n", &reason), 1);
        assert_string_equal(reason, "no answer within 20.0 s");
}

/* A refusal a little ahead of now (a file's fine-grained time ahead of time(), CI on Linux 6.18
 * saw it) is a fresh one; far ahead (the clock went back), due. */
static void test_skew(void **state) {
        _cleanup_free_ char *reason = NULL;
        assert_int_equal(ctl_refused_verdict(true, 1001, 1000, NULL, "slow", &reason), 1);
        assert_string_equal(reason, "slow; tried once more, with the full start time, in 10 minutes");
        free(reason);
        reason = NULL;
        assert_int_equal(ctl_refused_verdict(true, 1000 + CTL_REFUSED_SKEW_S, 1000, "u: ", "slow", &reason), 1);
        free(reason);
        reason = NULL;
        assert_int_equal(ctl_refused_verdict(true, 1001 + CTL_REFUSED_SKEW_S, 1000, "u: ", "slow", &reason),
                CTL_REFUSED_RETRY);
        assert_string_equal(reason, "u: slow");
        free(reason);
        reason = NULL;
        assert_int_equal(ctl_refused_verdict(false, 5000, 1000, NULL, "fatal", &reason), 1);
        assert_string_equal(reason, "fatal");
}

/* A file refused with the running partitions: its settings are refused with any partitions; one
 * refused with other partitions is refused only as it is. */
static void test_settings(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_free_ char *reason = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const char *live = "A=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu\n";
        const char *hang = "A=1\nJobCompType=jobcomp/lua\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu\n";
        assert_int_equal(ctl_refused_store(&p, hang, strlen(hang), live, strlen(live), "no answer", false, &e), 0);
        const char *more = "A=1\nJobCompType=jobcomp/lua\nNodeSet=cpu Feature=cpu\n"
                           "PartitionName=cpu Nodes=cpu MaxTime=500\n"
                           "NodeSet=big Feature=big\nPartitionName=big Nodes=big\n";
        assert_int_equal(match(&p, more, &reason), 1);
        assert_string_equal(reason, "no answer");
        /* other settings, the same partitions: not refused */
        const char *other = "A=2\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu MaxTime=500\n";
        assert_int_equal(match(&p, other, &reason), 0);
        /* a partition's value refused: only that file */
        const char *part = "A=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu TRESBillingWeights=x\n";
        assert_int_equal(ctl_refused_store(&p, part, strlen(part), live, strlen(live), "fatal: TRES", false, &e), 0);
        assert_int_equal(match(&p, part, &reason), 1);
        const char *live2 = "A=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu MaxTime=9\n";
        assert_int_equal(match(&p, live2, &reason), 0);
        /* the settings' refusal ages like any other: a timeout under the ceiling, once */
        const char *slow = "B=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu\n";
        const char *live3 = "NodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu\n";
        assert_int_equal(ctl_refused_store(&p, slow, strlen(slow), live3, strlen(live3), "no answer within 5.0 s", true, &e), 0);
        const char *slow2 = "B=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu MaxTime=7\n";
        assert_int_equal(match(&p, slow2, &reason), 1);
        assert_string_equal(reason, "no answer within 5.0 s; tried once more, with the full start time, in 10 minutes");
        age(&p, CTL_REFUSED_RETRY_AFTER_S + 60);
        assert_int_equal(match(&p, slow2, &reason), CTL_REFUSED_RETRY);
        assert_int_equal(match(&p, hang, &reason), 1);
        /* a file due for its one retry whose settings were refused for good since: refused */
        const char *slow3 = "B=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu MaxTime=8\n";
        const char *live4 = "NodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu MaxTime=8\n";
        assert_int_equal(ctl_refused_store(&p, slow3, strlen(slow3), live4, strlen(live4), "fatal: B", false, &e), 0);
        assert_int_equal(match(&p, slow, &reason), 1);
        assert_string_equal(reason, "fatal: B");
        /* the applied settings themselves are never refused for the settings (review R2) */
        const char *same = "C=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu\n";
        assert_int_equal(ctl_refused_store(&p, same, strlen(same), same, strlen(same), "odd", false, &e), 0);
        const char *same2 = "C=1\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu MaxTime=3\n";
        assert_int_equal(match(&p, same2, &reason), 0);
}

static void test_prune(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_free_ char *reason = NULL;
        store(&p, "OLD=1\n", "old", false);
        age(&p, 3600);
        for (int i = 0; i < CTL_REFUSED_MAX; i++) {
                _cleanup_free_ char *data = xasprintf("N=%d\n", i);
                store(&p, data, "new", false);
        }
        assert_int_equal(match(&p, "OLD=1\n", &reason), 0);
        assert_int_equal(match(&p, "N=0\n", &reason), 1);
        assert_int_equal(match(&p, "N=15\n", &reason), 1);
}

static void test_legacy(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_free_ char *reason = NULL, *dir = xasprintf("%s%s", p.root, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *legacy = xasprintf("%s/%s", dir, CTL_REFUSED_LEGACY_FILE);
        assert_int_equal(mkdir_p(dir, 0700), 0);
        const char *old = "(once) no answer within 5.0 s\nL=1\n";
        assert_int_equal(write_file_atomic(legacy, old, strlen(old), 0600, (uid_t) -1, (gid_t) -1), 0);
        struct timespec t[2] = { { .tv_sec = time(NULL) - 7200 }, { .tv_sec = time(NULL) - 7200 } };
        assert_int_equal(utimensat(AT_FDCWD, legacy, t, 0), 0);
        /* taken in with its time: past the hold, tried once more */
        assert_int_equal(match(&p, "L=1\n", &reason), CTL_REFUSED_RETRY);
        assert_string_equal(reason, "no answer within 5.0 s");
        assert_int_equal(access(legacy, F_OK), -1);
}

/* retry-refused (atk8 G4): every record forgotten, the legacy file too; nothing to forget is 0 */
static void test_forget(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *reason = NULL;
        size_t n = 99;
        assert_int_equal(ctl_refused_forget(&p, &n, &e), 0); /* no directory yet */
        assert_int_equal(n, 0);
        store(&p, "A=1\n", "fatal: one", false);
        store(&p, "B=1\n", "no answer", true);
        _cleanup_free_ char *dir = xasprintf("%s%s", p.root, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *legacy = xasprintf("%s/%s", dir, CTL_REFUSED_LEGACY_FILE);
        const char *old = "fatal: legacy\nL=1\n";
        assert_int_equal(write_file_atomic(legacy, old, strlen(old), 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ctl_refused_forget(&p, &n, &e), 0);
        assert_int_equal(n, 3);
        assert_int_equal(match(&p, "A=1\n", &reason), 0);
        assert_int_equal(match(&p, "B=1\n", &reason), 0);
        assert_int_equal(match(&p, "L=1\n", &reason), 0);
        assert_int_equal(access(legacy, F_OK), -1);
        assert_int_equal(ctl_refused_forget(&p, &n, &e), 0);
        assert_int_equal(n, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_several, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_once, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_skew),
                cmocka_unit_test_setup_teardown(test_settings, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_prune, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_legacy, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_forget, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
