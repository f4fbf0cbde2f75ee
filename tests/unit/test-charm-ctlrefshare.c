/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/ctlrefshare (issue 26, attack G9b): a unit's refusals, listed
 * from its store, published and read back by another unit, refuse the same file there (by its
 * bytes, or by its settings for a settings refusal), name the unit, keep the retry rule of a
 * timeout, and are ignored once an admin's retry-refused is newer; bad peer data is skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <time.h>

#include "util/macro.h"
#include "charm/slurmctld/ctlrefshare.h"
#include "util/strbuf.h"
#include "tmpdir.h"

#include "util/banned.h"

static const char live[] = "ClusterName=c\nNodeSet=cpu Feature=cpu\nPartitionName=cpu Nodes=cpu\n";
static const char hang[] = "ClusterName=c\nJobCompType=jobcomp/script\nNodeSet=cpu Feature=cpu\n"
                           "PartitionName=cpu Nodes=cpu\n";
/* hang's settings with another partition line: refused for its settings alone */
static const char hang2[] = "ClusterName=c\nJobCompType=jobcomp/script\nNodeSet=cpu Feature=cpu\n"
                            "PartitionName=cpu Nodes=cpu MaxTime=10\n";

/* What unit/0 publishes after storing refusals, read back as another unit reads it. */
static void published(const struct charm_paths *p, struct ctl_refusals *ret) {
        struct ctl_refusals mine = {};
        assert_int_equal(ctl_refused_list(p, &mine), 0);
        _cleanup_free_ char *json = ctl_refshare_encode(&mine);
        ctl_refusals_clear(&mine);
        assert_int_equal(ctl_refshare_decode(json, "slurmctld/0", ret), 0);
}

static int match(const struct ctl_refusals *l, const char *data, int64_t forget, char **reason) {
        free(*reason);
        *reason = NULL;
        return ctl_refshare_match(l, data, strlen(data), forget, (int64_t) time(NULL), reason);
}

static void test_roundtrip(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *reason = NULL;
        struct ctl_refusals l = {};
        published(&p, &l);
        assert_int_equal(l.n, 0);
        assert_int_equal(match(&l, hang, 0, &reason), 0);

        /* refused for its settings (its partitions are the live ones) */
        assert_int_equal(ctl_refused_store(&p, hang, strlen(hang), live, strlen(live), "no answer in 5 s", false, &e), 0);
        published(&p, &l);
        assert_int_equal(l.n, 1);
        assert_true(l.v[0].global);
        assert_string_equal(l.v[0].unit, "slurmctld/0");
        assert_int_equal(match(&l, hang, 0, &reason), 1);
        assert_string_equal(reason, "on slurmctld/0: no answer in 5 s");
        /* the same settings with another partition line: refused too, as on the unit itself */
        assert_int_equal(match(&l, hang2, 0, &reason), 1);
        assert_int_equal(match(&l, live, 0, &reason), 0);
        /* an admin's retry-refused at or after its time: ignored */
        assert_int_equal(match(&l, hang, l.v[0].at, &reason), 0);
        assert_int_equal(match(&l, hang, l.v[0].at - 1, &reason), 1);
        ctl_refusals_clear(&l);
}

static void test_exact_and_once(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *reason = NULL;
        /* refused as a whole file (no live file to compare): only its own bytes */
        assert_int_equal(ctl_refused_store(&p, hang, strlen(hang), NULL, 0, "fatal: x", false, &e), 0);
        struct ctl_refusals l = {};
        published(&p, &l);
        assert_false(l.v[0].global);
        assert_int_equal(match(&l, hang, 0, &reason), 1);
        assert_int_equal(match(&l, hang2, 0, &reason), 0);
        ctl_refusals_clear(&l);

        /* a timeout under the ceiling: refused for a while, then due for its one retry */
        struct ctl_refusals o = {};
        assert_int_equal(ctl_refshare_decode("[{\"hash\":\"0000000000000001\",\"once\":true,\"global\":false,"
                                             "\"at\":1,\"reason\":\"no answer\"}]",
                                 "slurmctld/2", &o),
                0);
        /* (the hash of the test's data, set by hand) */
        struct ctl_refusals mine = {};
        assert_int_equal(ctl_refused_list(&p, &mine), 0);
        o.v[0].hash = mine.v[0].hash;
        ctl_refusals_clear(&mine);
        o.v[0].at = (int64_t) time(NULL) - 30;
        assert_int_equal(match(&o, hang, 0, &reason), 1);
        assert_non_null(strstr(reason, "on slurmctld/2: no answer; tried once more"));
        o.v[0].at = (int64_t) time(NULL) - CTL_REFUSED_RETRY_AFTER_S;
        assert_int_equal(match(&o, hang, 0, &reason), CTL_REFUSED_RETRY);
        ctl_refusals_clear(&o);
}

static void test_bad_data(void **state) {
        struct ctl_refusals l = {};
        assert_int_equal(ctl_refshare_decode("not json", "u/1", &l), -EINVAL);
        assert_int_equal(ctl_refshare_decode("{}", "u/1", &l), -EINVAL);
        assert_int_equal(ctl_refshare_decode(NULL, "u/1", &l), -EINVAL);
        /* entries that are not complete records are skipped, the good one kept */
        assert_int_equal(ctl_refshare_decode("[1, \"x\", {\"hash\":\"12\"},"
                                             "{\"hash\":\"000000000000000g\",\"once\":false,\"global\":false,\"at\":1,\"reason\":\"r\"},"
                                             "{\"hash\":\"0000000000000001\",\"once\":false,\"global\":true,\"at\":1,\"reason\":\"r\"},"
                                             "{\"hash\":\"0000000000000001\",\"once\":false,\"global\":false,\"at\":-5,\"reason\":\"r\"},"
                                             "{\"hash\":\"00000000000000ff\",\"once\":false,\"global\":false,\"at\":7,\"reason\":\"good\"}]",
                                 "u/1", &l),
                0);
        assert_int_equal(l.n, 1);
        assert_true(l.v[0].hash == 0xff);
        assert_int_equal(l.v[0].at, 7);
        ctl_refusals_clear(&l);
        /* at most CTL_REFUSED_MAX taken from one unit */
        _cleanup_strbuf_ struct strbuf big = STRBUF_INIT;
        strbuf_addch(&big, '[');
        for (int i = 0; i < 3 * CTL_REFUSED_MAX; i++)
                strbuf_addf(&big, "%s{\"hash\":\"%016x\",\"once\":false,\"global\":false,\"at\":%d,\"reason\":\"r\"}",
                        i ? "," : "", i + 1, i + 1);
        strbuf_addch(&big, ']');
        assert_int_equal(ctl_refshare_decode(big.buf, "u/1", &l), 0);
        assert_int_equal(l.n, CTL_REFUSED_MAX);
        ctl_refusals_clear(&l);
        /* a reason is cut when published */
        char longr[1000];
        memset(longr, 'x', sizeof longr - 1);
        longr[sizeof longr - 1] = '\0';
        struct ctl_refusal one = { .hash = 1, .at = 5, .reason = longr };
        struct ctl_refusals src = { .v = &one, .n = 1 };
        _cleanup_free_ char *json = ctl_refshare_encode(&src);
        assert_int_equal(ctl_refshare_decode(json, NULL, &l), 0);
        assert_int_equal(strlen(l.v[0].reason), CTL_REFSHARE_REASON_MAX);
        ctl_refusals_clear(&l);
}

static void test_forget_at(void **state) {
        assert_int_equal(ctl_refshare_forget_at(NULL), 0);
        assert_int_equal(ctl_refshare_forget_at("abc"), 0);
        assert_int_equal(ctl_refshare_forget_at("-5"), 0);
        assert_int_equal(ctl_refshare_forget_at("1764547200"), 1764547200);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_roundtrip, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_exact_and_once, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_bad_data),
                cmocka_unit_test(test_forget_at),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
