/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/hostlist: expansion, compression, bounds, bad input, and
 * round trips expand(compress(x)) == x as sets on generated name sets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "slurmconf/hostlist.h"

#include "util/banned.h"

/* Expands expr and compares with the space-separated list want. */
static void check_expand(const char *expr, const char *want) {
        _cleanup_strv_ struct strv sv = STRV_INIT;
        int r = hostlist_expand(expr, 100000, &sv);
        if (r < 0)
                fail_msg("expand \"%s\": %s", expr, strerror(-r));
        assert_int_equal(r, sv.n);
        _cleanup_free_ char *got = strv_join(&sv, " ");
        if (!streq(got, want))
                fail_msg("expand \"%s\": got \"%s\", want \"%s\"", expr, got, want);
}

static void check_compress(const char *list, const char *want) {
        _cleanup_strv_ struct strv in = STRV_INIT;
        _cleanup_free_ char *copy = xstrdup(list);
        char *save = NULL;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strv_push(&in, w);
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        assert_int_equal(hostlist_compress(in.v, &sb), 0);
        if (!streq(sb.buf, want))
                fail_msg("compress \"%s\": got \"%s\", want \"%s\"", list, sb.buf, want);
}

static void test_expand(void **state) {
        check_expand("node1", "node1");
        check_expand("node[01-10,12]",
                "node01 node02 node03 node04 node05 node06 node07 node08 node09 node10 node12");
        check_expand("n[8-10]", "n8 n9 n10");
        check_expand("n[08-10]", "n08 n09 n10");
        check_expand("n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10");
        check_expand("n[007]", "n007");
        check_expand("n[1,1]", "n1 n1");
        check_expand("a[1-2],b,c[05-06]", "a1 a2 b c05 c06");
        check_expand("[1-3]", "1 2 3");
        check_expand("rack[0-1]_blade[0-2]",
                "rack0_blade0 rack0_blade1 rack0_blade2 rack1_blade0 rack1_blade1 rack1_blade2");
        check_expand("r[0-1]x[3,5]y[7]", "r0x3y7 r0x5y7 r1x3y7 r1x5y7");
        check_expand("n[1-2]-[3-4]", "n1-3 n1-4 n2-3 n2-4");
        check_expand("n[1-2][0-1]", "n10 n11 n20 n21");
        check_expand("node-1.example,x[9-11]", "node-1.example x9 x10 x11");
        check_expand("n[999999999999999998-999999999999999999]", "n999999999999999998 n999999999999999999");
        check_expand("n[3,1-2]", "n3 n1 n2");
}

static void test_expand_appends(void **state) {
        _cleanup_strv_ struct strv sv = STRV_INIT;
        strv_push(&sv, "old");
        assert_int_equal(hostlist_expand("n[1-2]", 10, &sv), 2);
        assert_int_equal(sv.n, 3);
        assert_string_equal(sv.v[0], "old");
        assert_string_equal(sv.v[2], "n2");
}

static void test_expand_bad(void **state) {
        static const char *const bad[] = {
                "",
                "n[",
                "n]",
                "n[1-2",
                "n1]",
                "n[[1]]",
                "n[1-[2]]",
                "n[]",
                "n[1-]",
                "n[-1]",
                "n[a]",
                "n[1-b]",
                "n[10-8]",
                "n[1,]",
                "n[,1]",
                "n[1--2]",
                "a,,b",
                ",a",
                "a,",
                ",",
                "n[1-2]-ib",
                "a[1-2]b[3-4]c",
                "n[1]x",
                "a b",
                "a\tb",
                "n[ 1]",
                "n[1234567890123456789]",
                "n[1-2]]",
                "n[1:2]",
                "n[+1]",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_strv_ struct strv sv = STRV_INIT;
                strv_push(&sv, "keep");
                int r = hostlist_expand(bad[i], 1000, &sv);
                if (r != -EINVAL)
                        fail_msg("expand \"%s\": got %d, want -EINVAL", bad[i], r);
                assert_int_equal(sv.n, 1); /* unchanged on error */
        }
        assert_int_equal(hostlist_expand(NULL, 10, &(struct strv) STRV_INIT), -EINVAL);
}

static void test_expand_bounds(void **state) {
        _cleanup_strv_ struct strv sv = STRV_INIT;
        assert_int_equal(hostlist_expand("n[0-999999999]", 1000000, &sv), -E2BIG);
        assert_int_equal(hostlist_expand("n[0-999999999999999999]", SIZE_MAX, &sv), -E2BIG);
        /* the product overflows 64 bits: still only -E2BIG */
        assert_int_equal(hostlist_expand("a[0-999999999999999999]b[0-999999999999999999]"
                                         "c[0-999999999999999999]",
                                 SIZE_MAX, &sv),
                -E2BIG);
        assert_int_equal(hostlist_expand("n[1-10]", 9, &sv), -E2BIG);
        assert_int_equal(hostlist_expand("n[1-5],m[1-5]", 9, &sv), -E2BIG);
        assert_int_equal(hostlist_expand("r[0-3]_b[0-7]", 31, &sv), -E2BIG);
        assert_int_equal(sv.n, 0);
        assert_int_equal(hostlist_expand("r[0-3]_b[0-7]", 32, &sv), 32);
        assert_int_equal(hostlist_expand("n[1-10]", 10, &sv), 10);
        assert_int_equal(sv.n, 42);
}

static void test_compress(void **state) {
        check_compress("", "");
        check_compress("node5", "node5");
        check_compress("node01 node02 node03 node05", "node[01-03,05]");
        check_compress("n8 n9 n10", "n[8-10]");
        check_compress("n08 n09 n10", "n[08-10]");
        check_compress("n8 n09 n10", "n[8,09-10]");
        check_compress("n1 n01 n2 n02 n3", "n[1-3,01-02]");
        check_compress("n3 n1 n2 n2 n1", "n[1-3]");
        check_compress("b c a", "a,b,c");
        check_compress("c05 a2 b a1 c06", "a[1-2],b,c[05-06]");
        check_compress("rack1_blade1 rack0_blade2 rack0_blade1", "rack0_blade[1-2],rack1_blade1");
        check_compress("n1-ib n2-ib", "n1-ib,n2-ib");
        check_compress("n n1 n2", "n,n[1-2]");
        check_compress("5 6 7 9", "[5-7,9]");
        check_compress("n99 n100 n101", "n[99-101]");
        check_compress("n099 n100", "n[099-100]");
        check_compress("n0 n00 n000 n1 n01 n001", "n[0-1,00-01,000-001]");
        check_compress("x1234567890123456789 x1", "x1,x1234567890123456789");
}

static void test_compress_bad(void **state) {
        static const char *const bad[] = { "", "n[1]", "a,b", "a b", "n]", "tab\t" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *names[] = { (char *) "ok1", (char *) bad[i], NULL };
                _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
                strbuf_addstr(&sb, "keep");
                assert_int_equal(hostlist_compress(names, &sb), -EINVAL);
                assert_string_equal(sb.buf, "keep");
        }
}

static int strp_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Sorted, deduplicated copy. */
static void set_of(const struct strv *in, struct strv *out) {
        strv_pushv(out, in->v);
        if (out->n > 1)
                qsort(out->v, out->n, sizeof(char *), strp_cmp);
        for (size_t i = 1; i < out->n;)
                if (streq(out->v[i - 1], out->v[i]))
                        strv_remove(out, i);
                else
                        i++;
}

static void round_trip(const struct strv *names) {
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        _cleanup_strv_ struct strv back = STRV_INIT, want = STRV_INIT, got = STRV_INIT;
        assert_int_equal(hostlist_compress(names->v, &sb), 0);
        if (names->n == 0) {
                assert_string_equal(sb.buf, ""); /* and "" does not expand: -EINVAL */
                return;
        }
        int r = hostlist_expand(sb.buf, 1000000, &back);
        if (r < 0)
                fail_msg("expand of compressed \"%s\": %s", sb.buf, strerror(-r));
        set_of(names, &want);
        set_of(&back, &got);
        /* compress drops duplicates, so the expansion is already a set */
        assert_int_equal(back.n, got.n);
        _cleanup_free_ char *a = strv_join(&want, " "), *b = strv_join(&got, " ");
        if (!streq(a, b))
                fail_msg("round trip via \"%s\":\n want %s\n got  %s", sb.buf, a, b);
        /* compressing again gives the same string */
        _cleanup_strbuf_ struct strbuf sb2 = STRBUF_INIT;
        assert_int_equal(hostlist_compress(back.v, &sb2), 0);
        assert_string_equal(sb.buf, sb2.buf);
}

static void test_round_trip(void **state) {
        static const char *const prefixes[] = { "n", "node", "rack0_b", "x-", "", "gpu1a" };
        unsigned seed = 12345;
        for (int round = 0; round < 300; round++) {
                _cleanup_strv_ struct strv names = STRV_INIT;
                int count = (int) (rand_r(&seed) % 40);
                for (int i = 0; i < count; i++) {
                        const char *p = prefixes[rand_r(&seed) % ELEMENTSOF(prefixes)];
                        int width = (int) (rand_r(&seed) % 4); /* 0: unpadded */
                        unsigned v = rand_r(&seed) % 130;
                        if (rand_r(&seed) % 10 == 0)
                                strv_pushf(&names, "%slit", p); /* no number */
                        else
                                strv_pushf(&names, "%s%0*u", p, width, v);
                }
                round_trip(&names);
        }
        /* and a few expressions */
        static const char *const exprs[] = { "node[01-10,12]", "rack[0-3]_blade[0-7]", "a[1-2],b,c[05-06]",
                "n[8-10],n[08-12],n[0008-0012]", "[0-200]" };
        for (size_t i = 0; i < ELEMENTSOF(exprs); i++) {
                _cleanup_strv_ struct strv sv = STRV_INIT;
                assert_true(hostlist_expand(exprs[i], 10000, &sv) > 0);
                round_trip(&sv);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_expand),
                cmocka_unit_test(test_expand_appends),
                cmocka_unit_test(test_expand_bad),
                cmocka_unit_test(test_expand_bounds),
                cmocka_unit_test(test_compress),
                cmocka_unit_test(test_compress_bad),
                cmocka_unit_test(test_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
