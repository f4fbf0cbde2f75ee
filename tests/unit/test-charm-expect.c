/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/expect: open, met and past expectations; notes replacing, pruning
 * and writing the file atomically with mode 0600. The watcher's fast poll runs on real daemons
 * in tests/cluster/charm-depart.sh (the status after a departure). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/expect.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "util/fileio.h"
#include "util/strv.h"

#include "util/banned.h"

static bool in_list(const char *node, void *u) {
        return strv_contains(u, node);
}

static void test_count(void **state) {
        _cleanup_strv_ struct strv t = STRV_INIT;
        strv_pushl(&t, "a-0", "a-1", NULL);
        const char *text = "leaving a-0 2000\n" /* still there: open */
                           "leaving a-2 2000\n" /* gone: met */
                           "joining a-1 2000\n" /* there: met */
                           "joining a-3 2000\n" /* not yet: open */
                           "joining a-4 500\n"  /* past */
                           "bogus a-5 2000\n"   /* not a line */
                           "leaving\n"
                           "leaving a-0 notanumber\n";
        assert_int_equal(expect_count_open(text, in_list, &t, 1000), 2);
        assert_int_equal(expect_count_open(text, in_list, &t, 3000), 0);
        assert_int_equal(expect_count_open("", in_list, &t, 0), 0);
        assert_int_equal(expect_count_open(NULL, in_list, &t, 0), 0);
        assert_int_equal(expect_count_open("leaving a-0 2000", in_list, &t, 0), 1); /* no newline */
}

static void test_note(void **state) {
        char dir[] = "/var/tmp/test-expect.XXXXXX";
        assert_non_null(mkdtemp(dir));
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EXPECT_FILE), *data = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_strv_ struct strv t = STRV_INIT;
        strv_pushl(&t, "a-0", "a-1", NULL);

        assert_int_equal(expect_open(dir, in_list, &t, 0), 0); /* no file */
        {
                _cleanup_strv_ struct strv none = STRV_INIT;
                expect_nodes(dir, EXPECT_LEAVING, 0, &none);
                assert_int_equal(none.n, 0);
        }
        assert_int_equal(expect_note(dir, EXPECT_LEAVING, "a-0", 5000, in_list, &t, 1000, &err), 0);
        assert_int_equal(expect_note(dir, EXPECT_JOINING, "a-7", 5000, in_list, &t, 1000, &err), 0);
        assert_int_equal(expect_open(dir, in_list, &t, 1000), 2);
        /* the same node again: replaced, not added */
        assert_int_equal(expect_note(dir, EXPECT_LEAVING, "a-0", 9000, in_list, &t, 1000, &err), 0);
        assert_int_equal(read_full_file(path, &data, NULL), 0);
        assert_string_equal(data, "joining a-7 5000\nleaving a-0 9000\n");
        /* the leaving nodes within their window (the status names them, issue 28) */
        {
                _cleanup_strv_ struct strv l = STRV_INIT;
                strv_push(&l, "a-0"); /* already there: not twice */
                expect_nodes(dir, EXPECT_LEAVING, 1000, &l);
                assert_int_equal(l.n, 1);
                assert_string_equal(l.v[0], "a-0");
                strv_clear(&l);
                expect_nodes(dir, EXPECT_JOINING, 1000, &l);
                assert_int_equal(l.n, 1);
                assert_string_equal(l.v[0], "a-7");
                strv_clear(&l);
                expect_nodes(dir, EXPECT_LEAVING, 9001, &l); /* past its window */
                assert_int_equal(l.n, 0);
        }
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        /* a-7 registered and a-0 left: both met; the next note drops them */
        strv_clear(&t);
        strv_pushl(&t, "a-7", NULL);
        assert_int_equal(expect_open(dir, in_list, &t, 2000), 0);
        assert_int_equal(expect_note(dir, EXPECT_JOINING, "a-8", 3000, in_list, &t, 2000, &err), 0);
        free(data);
        data = NULL;
        assert_int_equal(read_full_file(path, &data, NULL), 0);
        assert_string_equal(data, "joining a-8 3000\n");
        assert_int_equal(expect_open(dir, in_list, &t, 2500), 1);
        assert_int_equal(expect_open(dir, in_list, &t, 3001), 0); /* past its window */
        /* a unit that joined again: its line dropped, once */
        assert_int_equal(expect_drop(dir, "a-9", in_list, &t, 2500, &err), 0);
        assert_int_equal(expect_drop(dir, "a-8", in_list, &t, 2500, &err), 1);
        assert_int_equal(expect_open(dir, in_list, &t, 2500), 0);
        assert_int_equal(expect_drop(dir, "a-8", in_list, &t, 2500, &err), 0);
        /* names that would break the line format are refused */
        assert_int_equal(expect_note(dir, EXPECT_JOINING, "a b", 3000, in_list, &t, 2000, &err), -EINVAL);
        assert_int_equal(expect_note(dir, EXPECT_JOINING, "", 3000, in_list, &t, 2000, &err), -EINVAL);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_count),
                cmocka_unit_test(test_note),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
