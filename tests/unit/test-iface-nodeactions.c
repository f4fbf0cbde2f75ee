/* SPDX-License-Identifier: Apache-2.0 */
/* interfaces/nodeactions: a compute unit's own actions for the node event log (issue 29). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "interfaces/nodeactions.h"
#include "util/alloc.h"

static void test_push_round_trip(void **state) {
        struct node_actions a = { 0 }, b = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(node_actions_push(&a, 1700000000123, "pause", "12", "cpu-0", "disk swap", NULL), 0);
        assert_int_equal(strlen(a.log), NODE_ACTIONS_LOG_LEN);
        assert_int_equal(node_actions_push(&a, 1700000000456, "node-config", "13", "cpu-0", NULL, "Weight=10"), 0);
        assert_int_equal(a.n, 2);
        assert_int_equal(a.v[0].seq, 1);
        assert_int_equal(a.v[1].seq, 2);
        _cleanup_free_ char *json = node_actions_encode(&a);
        assert_int_equal(node_actions_decode(json, &b, &err), 0);
        assert_string_equal(b.log, a.log);
        assert_int_equal(b.n, 2);
        assert_int_equal(b.v[0].time_ms, 1700000000123);
        assert_string_equal(b.v[0].action, "pause");
        assert_string_equal(b.v[0].reason, "disk swap");
        assert_null(b.v[0].detail);
        assert_string_equal(b.v[1].id, "13");
        assert_string_equal(b.v[1].detail, "Weight=10");
        assert_null(b.v[1].reason);
        /* a list taken back goes on from its own seq and log */
        char log[NODE_ACTIONS_LOG_LEN + 1];
        memcpy(log, b.log, sizeof log);
        assert_int_equal(node_actions_push(&b, 1700000000789, "resume", "14", "cpu-0", NULL, NULL), 0);
        assert_int_equal(b.v[2].seq, 3);
        assert_string_equal(b.log, log);
        node_actions_done(&a);
        node_actions_done(&b);
}

/* the newest NODE_ACTIONS_MAX stay, seq goes on */
static void test_push_bounded(void **state) {
        struct node_actions a = { 0 };
        for (int i = 0; i < NODE_ACTIONS_MAX + 5; i++)
                assert_int_equal(node_actions_push(&a, 1700000000000 + i, "resume", "x", "cpu-1", NULL, NULL), 0);
        assert_int_equal(a.n, NODE_ACTIONS_MAX);
        assert_int_equal(a.v[0].seq, 6);
        assert_int_equal(a.v[NODE_ACTIONS_MAX - 1].seq, NODE_ACTIONS_MAX + 5);
        node_actions_done(&a);
}

/* texts cut at the bound (a UTF-8 character kept whole), control characters made spaces;
 * names that are not valid change nothing */
static void test_push_texts(void **state) {
        struct node_actions a = { 0 };
        char long_reason[400];
        memset(long_reason, 'a', sizeof long_reason);
        memcpy(long_reason + NODE_ACTIONS_TEXT_MAX - 1, "\xc3\xa9", 2); /* é across the bound */
        long_reason[sizeof long_reason - 1] = '\0';
        const int64_t T = 1700000000000;
        assert_int_equal(node_actions_push(&a, T, "pause", "1", "cpu-0", long_reason, "a\tb\nc\xc2\x85" "d\xe2\x80\xae" "e\xff"), 0);
        assert_int_equal(strlen(a.v[0].reason), NODE_ACTIONS_TEXT_MAX - 1);
        /* tab, newline, C1 NEL, a right-to-left override, a byte that is not UTF-8: spaces */
        assert_string_equal(a.v[0].detail, "a b c d e ");
        assert_int_equal(node_actions_push(&a, T, "Pause", "1", "cpu-0", NULL, NULL), -EINVAL);
        assert_int_equal(node_actions_push(&a, T, "down", "1", "cpu-0", NULL, NULL), -EINVAL); /* not the charm's */
        assert_int_equal(node_actions_push(&a, T, "pause", "a b", "cpu-0", NULL, NULL), -EINVAL);
        assert_int_equal(node_actions_push(&a, T, "pause", "1", "cpu 0", NULL, NULL), -EINVAL);
        assert_int_equal(node_actions_push(&a, 1, "pause", "1", "cpu-0", NULL, NULL), -EINVAL); /* 1970 */
        assert_int_equal(node_actions_push(&a, 99999999999999, "pause", "1", "cpu-0", NULL, NULL), -EINVAL); /* 5138 */
        assert_int_equal(a.n, 1);
        node_actions_done(&a);
}

/* a list never grows past what the other side takes whole (64 KiB of JSON): texts of quotes,
 * which JSON doubles, push the oldest out before NODE_ACTIONS_MAX */
static void test_push_size(void **state) {
        struct node_actions a = { 0 }, b = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char quotes[NODE_ACTIONS_TEXT_MAX + 1];
        memset(quotes, '"', NODE_ACTIONS_TEXT_MAX);
        quotes[NODE_ACTIONS_TEXT_MAX] = '\0';
        for (int i = 0; i < NODE_ACTIONS_MAX; i++)
                assert_int_equal(node_actions_push(&a, 1700000000000 + i, "node-config", "7", "cpu-0", quotes, quotes), 0);
        assert_true(a.n < NODE_ACTIONS_MAX);
        assert_int_equal(a.v[a.n - 1].seq, NODE_ACTIONS_MAX);
        _cleanup_free_ char *json = node_actions_encode(&a);
        assert_true(strlen(json) <= 64 * 1024);
        assert_int_equal(node_actions_decode(json, &b, &err), 0);
        /* a line separator or a direction mark is refused from the other side, a space here */
        assert_int_equal(node_actions_push(&b, 1700000000000, "pause", "8", "cpu-0", "a\xe2\x80\xa8" "b\xe2\x80\x8f" "c", NULL), 0);
        assert_string_equal(b.v[b.n - 1].reason, "a b c");
        node_actions_done(&a);
        node_actions_done(&b);
        struct node_actions c = { 0 };
        assert_int_equal(node_actions_decode("{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1700000000000,"
                                             "\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\",\"reason\":\"a\\u2028b\"}]}",
                                 &c, &err),
                -EINVAL);
}

/* the other side's data is checked: each bad form is refused with one message */
static void test_decode_bad(void **state) {
        static const char *const bad[] = {
                "[]",
                "{\"log\":\"xyz\",\"actions\":[]}",
                "{\"log\":\"0123456789abcdef\"}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[1]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":0,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":2,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\"},"
                "{\"seq\":2,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1.5,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1,\"action\":\"rm -rf\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1,\"action\":\"pause\",\"id\":\"\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"../x\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\",\"reason\":\"a\\nb\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\",\"detail\":7}]}",
        };
        /* what a hostile unit wrote (attack of stop 62, F2): another verb, times out of the log's
         * order, a direction override and a C1 control in the texts */
        static const char *const hostile[] = {
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1700000000000,\"action\":\"down\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":99999999999999,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1700000000000,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\",\"reason\":\"\\u202eevil\"}]}",
                "{\"log\":\"0123456789abcdef\",\"actions\":[{\"seq\":1,\"time\":1700000000000,\"action\":\"pause\",\"id\":\"1\",\"node\":\"n\",\"detail\":\"\\u0085x\"}]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(hostile); i++) {
                struct node_actions a = { 0 };
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                assert_int_equal(node_actions_decode(hostile[i], &a, &err), -EINVAL);
                assert_true(err.len > 0);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct node_actions a = { 0 };
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                assert_int_equal(node_actions_decode(bad[i], &a, &err), -EINVAL);
                assert_true(err.len > 0);
                assert_int_equal(a.n, 0);
        }
        struct node_actions a = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(node_actions_decode(NULL, &a, &err), -ENODATA);
        assert_int_equal(node_actions_decode("", &a, &err), -ENODATA);
        /* too many records */
        struct node_actions many = { 0 };
        for (int i = 0; i < NODE_ACTIONS_MAX; i++)
                assert_int_equal(node_actions_push(&many, 1700000000000, "resume", "x", "cpu-1", NULL, NULL), 0);
        _cleanup_free_ char *json = node_actions_encode(&many);
        assert_int_equal(node_actions_decode(json, &a, &err), 0);
        node_actions_done(&a);
        many.v = xrealloc(many.v, (many.n + 1) * sizeof *many.v);
        many.v[many.n] = (struct node_action){ .seq = 99, .time_ms = 1700000000000, .action = xstrdup("resume"),
                .id = xstrdup("x"), .node = xstrdup("cpu-1") };
        many.n++;
        _cleanup_free_ char *json2 = node_actions_encode(&many);
        strbuf_reset(&err);
        assert_int_equal(node_actions_decode(json2, &a, &err), -EINVAL);
        node_actions_done(&many);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_push_round_trip),
                cmocka_unit_test(test_push_bounded),
                cmocka_unit_test(test_push_texts),
                cmocka_unit_test(test_push_size),
                cmocka_unit_test(test_decode_bad),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
