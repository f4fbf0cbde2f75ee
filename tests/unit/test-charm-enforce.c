/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/enforce: the option's words (case, spaces, repeats, every
 * bad form), the value kept from the live file when the option is refused, slurm-conf-parameters
 * that set the key, the pending jobs enforcement holds and the status notes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/enforce.h"

#include <errno.h>
#include <slurm/slurm.h>
#include <string.h>

#include "util/banned.h"

static void test_parse(void **state) {
        static const struct {
                const char *in, *want;
        } good[] = {
                { "associations", "associations" },
                { "Associations,LIMITS", "associations,limits" },
                { "associations, limits ,qos", "associations,limits,qos" },
                { "safe", "safe" },
                { "all", "all" },
                { "wckeys,nojobs,nosteps", "wckeys,nojobs,nosteps" },
        };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *v = NULL;
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                assert_int_equal(enforce_parse(good[i].in, &v, &err), 0);
                assert_string_equal(v, good[i].want);
                assert_int_equal(err.len, 0);
        }
        char *v = (char *) "untouched";
        assert_int_equal(enforce_parse("", &v, NULL), 0);
        assert_null(v);
        v = (char *) "untouched";
        assert_int_equal(enforce_parse(NULL, &v, NULL), 0);
        assert_null(v);

        static const struct {
                const char *in, *msg;
        } bad[] = {
                { "assoc", "\"assoc\" is not one of Slurm's words" },
                { "1", "\"1\" is not one of Slurm's words" },
                { "associations,", "has an empty word" },
                { ",limits", "has an empty word" },
                { "limits,,qos", "has an empty word" },
                { " ", "has an empty word" },
                { "qos,QOS", "\"qos\" is given twice" },
                { "associations limits", "\"associations limits\" is not one of Slurm's words" },
                { "associations=1", "is not one of Slurm's words" },
                { "limits;qos", "is not one of Slurm's words" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                v = (char *) "untouched";
                assert_int_equal(enforce_parse(bad[i].in, &v, &err), -EINVAL);
                assert_string_equal(v, "untouched");
                if (!strstr(err.buf, bad[i].msg))
                        fail_msg("%s: %s", bad[i].in, err.buf);
        }
}

static void test_choose(void **state) {
        static const char live[] = "ClusterName=c\nAccountingStorageType=accounting_storage/slurmdbd\n"
                                   "AccountingStorageEnforce=associations,qos\n";
        static const char live_none[] = "ClusterName=c\n";
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        char *v = NULL;

        assert_int_equal(enforce_choose("Limits", live, sizeof live - 1, &v, &why), 0);
        assert_string_equal(v, "limits");
        assert_int_equal(why.len, 0);
        free(v);
        /* refused: the live value stays, and the status says why */
        assert_int_equal(enforce_choose("limit", live, sizeof live - 1, &v, &why), 0);
        assert_string_equal(v, "associations,qos");
        assert_non_null(strstr(why.buf, "accounting-enforce: \"limit\" is not one of Slurm's words"));
        assert_non_null(strstr(why.buf, "(nothing changed)"));
        free(v);
        strbuf_reset(&why);
        assert_int_equal(enforce_choose("limit", live_none, sizeof live_none - 1, &v, &why), 0);
        assert_null(v);
        assert_true(why.len > 0);
        strbuf_reset(&why);
        assert_int_equal(enforce_choose("limit", NULL, 0, &v, &why), 0);
        assert_null(v);
        strbuf_reset(&why);
        /* cleared: none, whatever the live file has */
        assert_int_equal(enforce_choose("", live, sizeof live - 1, &v, &why), 0);
        assert_null(v);
        assert_int_equal(why.len, 0);
}

static void test_params(void **state) {
        assert_true(enforce_params_set("AccountingStorageEnforce=qos"));
        assert_true(enforce_params_set("SlurmctldDebug=debug accountingstorageenforce=limits"));
        assert_false(enforce_params_set("SlurmctldDebug=debug"));
        assert_false(enforce_params_set(""));
        assert_false(enforce_params_set(NULL));
        assert_false(enforce_params_set("NoSuchKey=1 AccountingStorageEnforce=qos")); /* refused: sets nothing */
}

static void test_waiting(void **state) {
        struct slurm_jobinfo v[] = {
                { .job_id = 1, .state = JOB_PENDING, .state_reason = (char *) "InvalidAccount", .user = (char *) "bob" },
                { .job_id = 2, .state = JOB_PENDING, .state_reason = (char *) "InvalidQOS", .user = (char *) "carol" },
                { .job_id = 3, .state = JOB_PENDING, .state_reason = (char *) "InvalidAccount", .user = (char *) "bob" },
                { .job_id = 4, .state = JOB_PENDING, .state_reason = (char *) "Resources", .user = (char *) "dave" },
                { .job_id = 5, .state = JOB_PENDING, .state_reason = NULL, .user = (char *) "erin" },
                { .job_id = 6, .state = JOB_RUNNING, .state_reason = (char *) "InvalidAccount", .user = (char *) "frank" },
                { .job_id = 7, .state = JOB_PENDING, .state_reason = (char *) "InvalidAccount", .user_id = 2007 },
        };
        const struct slurm_jobinfo_list jobs = { .v = v, .n = ELEMENTSOF(v) };
        _cleanup_(enforce_waiting_done) struct enforce_waiting w = ENFORCE_WAITING_INIT;
        enforce_waiting_count(&jobs, &w);
        assert_int_equal(w.n, 4);
        assert_int_equal(w.users.n, 3);
        assert_string_equal(w.users.v[0], "bob");
        assert_string_equal(w.users.v[1], "carol");
        assert_string_equal(w.users.v[2], "uid 2007");
}

static void test_note(void **state) {
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        _cleanup_(enforce_waiting_done) struct enforce_waiting w = ENFORCE_WAITING_INIT;

        enforce_status_note(NULL, true, NULL, &msg);
        enforce_status_note("", false, NULL, &msg);
        enforce_status_note("associations", true, NULL, &msg);
        enforce_status_note("associations", true, &w, &msg);
        assert_int_equal(msg.len, 0);

        enforce_status_note("associations", false, &w, &msg);
        assert_string_equal(msg.buf, "; accounting-enforce=associations waits for slurmdbd (integrate with slurmdbd)");
        strbuf_reset(&msg);

        w.n = 1;
        strv_push(&w.users, "bob");
        enforce_status_note("associations", true, &w, &msg);
        assert_string_equal(msg.buf, "; 1 pending job of bob has no association (accounting-enforce=associations): "
                                     "it runs once the user is added (slurmdbd's user-add)");
        strbuf_reset(&msg);

        w.n = 9;
        static const char *const more[] = { "carol", "dave", "erin", "frank", "gina", "hugo" };
        for (size_t i = 0; i < ELEMENTSOF(more); i++)
                strv_push(&w.users, more[i]);
        enforce_status_note("limits", true, &w, &msg);
        assert_string_equal(msg.buf, "; 9 pending jobs of bob, carol, dave, erin, frank and 2 more have no association "
                                     "(accounting-enforce=limits): they run once the users are added (slurmdbd's user-add)");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_choose),
                cmocka_unit_test(test_params),
                cmocka_unit_test(test_waiting),
                cmocka_unit_test(test_note),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
