/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/util/base64: RFC 4648 vectors, every byte value, the strict refusals (out
 * unchanged), and the offsets Go's base64.StdEncoding names for the same inputs (juju-sim's
 * secret tools), newlines skipped as Go skips them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/base64.h"

#include <errno.h>
#include <string.h>

#include "util/banned.h"

static void test_vectors(void **state) {
        static const char *const v[][2] = {
                { "", "" },
                { "f", "Zg==" },
                { "fo", "Zm8=" },
                { "foo", "Zm9v" },
                { "foob", "Zm9vYg==" },
                { "fooba", "Zm9vYmE=" },
                { "foobar", "Zm9vYmFy" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_strbuf_ struct strbuf enc = STRBUF_INIT, dec = STRBUF_INIT;
                base64_encode(v[i][0], strlen(v[i][0]), &enc);
                assert_string_equal(enc.buf, v[i][1]);
                assert_int_equal(base64_decode(v[i][1], &dec), 0);
                assert_string_equal(dec.buf, v[i][0]);
        }
        /* all 256 byte values survive, appended after what out held */
        unsigned char all[256];
        for (int i = 0; i < 256; i++)
                all[i] = (unsigned char) i;
        _cleanup_strbuf_ struct strbuf enc = STRBUF_INIT, dec = STRBUF_INIT;
        base64_encode(all, sizeof all, &enc);
        strbuf_addstr(&dec, "x");
        assert_int_equal(base64_decode(enc.buf, &dec), 0);
        assert_int_equal(dec.len, 1 + sizeof all);
        assert_memory_equal(dec.buf + 1, all, sizeof all);
}

/* input, offset of Go's CorruptInputError (same without newline skipping) */
static const struct {
        const char *in;
        size_t bad;
} refused[] = {
        { "Zg=", 3 },      /* a lone "=" of two at the end */
        { "Zg", 0 },       /* unfinished quantum: its start */
        { "abc", 0 },
        { "Zm9vY", 4 },
        { "Z===", 1 },     /* "=" as a quantum's second */
        { "=Zm9", 0 },
        { "Zm=v", 2 },     /* "=" then no second "=" */
        { "Zm9*", 3 },
        { "Zm 9v", 2 },
        { "Zm9v====", 4 },
        { "Zg==Zg==", 4 }, /* nothing after the padding */
        { "Zg==\nx", 5 },
};

static void test_refuses(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                for (unsigned flags = 0; flags <= BASE64_SKIP_NEWLINES; flags++) {
                        _cleanup_strbuf_ struct strbuf dec = STRBUF_INIT;
                        size_t bad = 99;
                        strbuf_addstr(&dec, "keep");
                        assert_int_equal(base64_decode_at(refused[i].in, flags, &dec, &bad), -EINVAL);
                        assert_string_equal(dec.buf, "keep");
                        /* without skipping, "Zg==\nx" fails at the newline */
                        size_t want = (!flags && strchr(refused[i].in, '\n')) ? 4 : refused[i].bad;
                        if (bad != want)
                                fail_msg("\"%s\" (flags %u): bad byte %zu, want %zu", refused[i].in, flags, bad,
                                        want);
                }
        }
        /* the strict form refuses newlines and whitespace anywhere */
        static const char *const strict[] = { "Zm9v\n", "\nZm9v", "Zm9v\r\n", "Zm\n9v" };
        for (size_t i = 0; i < ELEMENTSOF(strict); i++) {
                _cleanup_strbuf_ struct strbuf dec = STRBUF_INIT;
                assert_int_equal(base64_decode(strict[i], &dec), -EINVAL);
                assert_int_equal(dec.len, 0);
        }
}

static void test_newlines_skipped(void **state) {
        static const char *const v[][2] = {
                { "Zm9v\nYmFy", "foobar" },
                { "Zm9v\r\n", "foo" },
                { "\n", "" },
                { "Zg=\n=", "f" },
                { "Z\ng\n=\n=\n", "f" },
                { "Zm8\r=", "fo" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_strbuf_ struct strbuf dec = STRBUF_INIT;
                size_t bad = 99;
                assert_int_equal(base64_decode_at(v[i][0], BASE64_SKIP_NEWLINES, &dec, &bad), 0);
                assert_string_equal(dec.buf, v[i][1]);
                assert_int_equal(bad, 99); /* untouched on success */
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_vectors),
                cmocka_unit_test(test_refuses),
                cmocka_unit_test(test_newlines_skipped),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
