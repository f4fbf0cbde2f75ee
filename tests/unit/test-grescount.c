/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/grescount: a node's Gres string summed by name (types, socket
 * bindings and count suffixes), and the items refused as malformed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "util/macro.h"
#include "slurmconf/grescount.h"

static uint64_t total(const char *spec, const char *name) {
        struct gres_counts c = GRES_COUNTS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(gres_counts_parse(spec, &c, &e), 0);
        uint64_t t = gres_counts_get(&c, name);
        gres_counts_done(&c);
        return t;
}

static void test_totals(void **state) {
        assert_int_equal(total("gpu:2", "gpu"), 2);
        assert_int_equal(total("gpu", "gpu"), 1);
        assert_int_equal(total("gpu:tesla", "gpu"), 1);
        assert_int_equal(total("gpu:tesla:2,gpu:a100:1", "gpu"), 3);
        assert_int_equal(total("gpu:2(S:0-1),shard:8", "gpu"), 2);
        assert_int_equal(total("gpu:2(S:0-1),shard:8", "shard"), 8);
        assert_int_equal(total("gpu:1(S:0,1),gpu:1(S:1)", "gpu"), 2);
        assert_int_equal(total("bandwidth:4K", "bandwidth"), 4096);
        assert_int_equal(total("bandwidth:1m", "bandwidth"), 1024 * 1024);
        assert_int_equal(total("gpu:0", "gpu"), 0);
        assert_int_equal(total("gpu:2", "shard"), 0);
        assert_int_equal(total(NULL, "gpu"), 0);
        assert_int_equal(total("", "gpu"), 0);
        assert_int_equal(total("(null)", "gpu"), 0);
        /* types and no_consume */
        struct gres_counts t = GRES_COUNTS_INIT;
        _cleanup_strbuf_ struct strbuf te = STRBUF_INIT;
        assert_int_equal(gres_counts_parse("gpu:tesla:2(S:0),gpu:a100:1(S:1),gpu:1,shard:no_consume:4", &t, &te), 0);
        assert_int_equal(gres_counts_get(&t, "gpu"), 4);
        assert_int_equal(gres_counts_get_type(&t, "gpu", "tesla"), 2);
        assert_int_equal(gres_counts_get_type(&t, "gpu", "a100"), 1);
        assert_int_equal(gres_counts_get_type(&t, "gpu", NULL), 1);
        assert_int_equal(gres_counts_get_type(&t, "gpu", "h100"), 0);
        assert_false(gres_counts_no_consume(&t, "gpu"));
        assert_true(gres_counts_no_consume(&t, "shard"));
        assert_int_equal(gres_counts_get_type(&t, "shard", NULL), 4);
        gres_counts_done(&t);
        assert_int_equal(total("gpu:No_Consume", "gpu"), 1);
        assert_int_equal(total("gpu:1g.5gb:2", "gpu"), 2);
        /* counts add up over calls */
        struct gres_counts c = GRES_COUNTS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(gres_counts_parse("gpu:1", &c, &e), 0);
        assert_int_equal(gres_counts_parse("gpu:tesla:2", &c, &e), 0);
        assert_int_equal(gres_counts_get(&c, "gpu"), 3);
        gres_counts_done(&c);
}

static void test_refused(void **state) {
        static const char *const bad[] = { ":2", "gpu:", "gpu::", "gpu:2x", "gpu:2KB", "gpu:2(S:0",
                "gpu:2(S:0)x", "gpu:99999999999999999999", "gpu:16777216P", ",", "gpu:a:b:2", "gpu::2", NULL };
        for (size_t i = 0; bad[i]; i++) {
                struct gres_counts c = GRES_COUNTS_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                assert_int_equal(gres_counts_parse("gpu:1", &c, &e), 0);
                int r = gres_counts_parse(bad[i], &c, &e);
                if (r != -EINVAL)
                        fail_msg("\"%s\" taken", bad[i]);
                assert_non_null(e.buf);
                /* unchanged */
                assert_int_equal(gres_counts_get(&c, "gpu"), 1);
                gres_counts_done(&c);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_totals),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
