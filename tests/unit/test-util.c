/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/util: strbuf, strv, macros. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/parse.h"

static void test_strbuf_basic(void **state) {
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        assert_string_equal(sb.buf, "");
        strbuf_addstr(&sb, "hello");
        strbuf_addch(&sb, ' ');
        strbuf_addf(&sb, "%s-%d", "world", 42);
        assert_string_equal(sb.buf, "hello world-42");
        assert_int_equal(sb.len, 14);
        strbuf_setlen(&sb, 5);
        assert_string_equal(sb.buf, "hello");
        strbuf_reset(&sb);
        assert_string_equal(sb.buf, "");
        /* NULL is a sink for the add family (an "err may be NULL" reaching them) */
        struct strbuf *none = NULL;
        strbuf_addstr(none, "x");
        strbuf_addch(none, 'x');
        strbuf_addf(none, "%d", 1);
        strbuf_add(none, "x", 1);
        strbuf_addbuf(none, &sb);
}

static void test_strbuf_grow_large(void **state) {
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        for (int i = 0; i < 100000; i++)
                strbuf_addch(&sb, (char) ('a' + i % 26));
        assert_int_equal(sb.len, 100000);
        assert_int_equal(sb.buf[25], 'z');
        assert_int_equal(sb.buf[100000], '\0');
}

static void test_strbuf_trim_detach(void **state) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addstr(&sb, " \t x y \r\n");
        strbuf_trim(&sb);
        assert_string_equal(sb.buf, "x y");
        size_t len;
        _cleanup_free_ char *s = strbuf_detach(&sb, &len);
        assert_string_equal(s, "x y");
        assert_int_equal(len, 3);
        assert_string_equal(sb.buf, "");
        /* detaching an empty buffer still gives an owned string */
        _cleanup_free_ char *e = strbuf_detach(&sb, NULL);
        assert_string_equal(e, "");
}

static void test_strv(void **state) {
        _cleanup_strv_ struct strv sv = STRV_INIT;
        assert_null(sv.v[0]);
        strv_push(&sv, "a");
        strv_pushf(&sv, "b%d", 2);
        strv_pushl(&sv, "c", "d", NULL);
        assert_int_equal(sv.n, 4);
        assert_null(sv.v[4]);
        assert_true(strv_contains(&sv, "b2"));
        assert_int_equal(strv_find(&sv, "d"), 3);
        assert_int_equal(strv_find(&sv, "zz"), -1);
        {
                _cleanup_strv_ struct strv so = STRV_INIT;
                strv_pushl(&so, "a/2", "b", "a/10", NULL);
                strv_sort(&so);
                _cleanup_free_ char *sj = strv_join(&so, ",");
                assert_string_equal(sj, "a/10,a/2,b");
        }
        strv_remove(&sv, 1);
        _cleanup_free_ char *j = strv_join(&sv, ",");
        assert_string_equal(j, "a,c,d");
        strv_pop(&sv);
        assert_int_equal(sv.n, 2);
        _cleanup_strv_free_ char **l = strv_detach(&sv);
        assert_int_equal(strv_length(l), 2);
        assert_int_equal(sv.n, 0);
}

static void test_parse_ulong(void **state) {
        unsigned long v = 7;
        assert_true(parse_ulong("0", 10, &v));
        assert_int_equal(v, 0);
        assert_true(parse_ulong("86400", 86400, &v));
        assert_int_equal(v, 86400);
        v = 7;
        assert_false(parse_ulong("86401", 86400, &v));
        assert_false(parse_ulong("", 10, &v));
        assert_false(parse_ulong("-1", 10, &v));
        assert_false(parse_ulong("+1", 10, &v));
        assert_false(parse_ulong(" 1", 10, &v));
        assert_false(parse_ulong("1s", 10, &v));
        assert_false(parse_ulong("99999999999999999999999", ~0UL, &v));
        assert_false(parse_ulong(NULL, 10, &v));
        assert_int_equal(v, 7);
}

static void test_macros(void **state) {
        assert_true(streq("a", "a"));
        assert_true(strcaseeq("NodeName", "nodename"));
        assert_string_equal(startswith("NodeName=x", "NodeName="), "x");
        assert_null(startswith("Node", "NodeName"));
        assert_string_equal(startswith_no_case("nodename=x", "NodeName="), "x");
        assert_true(isempty(NULL) && isempty("") && !isempty("x"));
        _cleanup_free_ char *p = xstrdup("x");
        char *q = TAKE_PTR(p);
        assert_null(p);
        free(q);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strbuf_basic),
                cmocka_unit_test(test_strbuf_grow_large),
                cmocka_unit_test(test_strbuf_trim_detach),
                cmocka_unit_test(test_strv),
                cmocka_unit_test(test_macros),
                cmocka_unit_test(test_parse_ulong),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
