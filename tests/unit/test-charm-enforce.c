/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/enforce: the option's words (case, spaces, repeats, every
 * bad form), the option's last good value kept when it is refused, the live file's accounting,
 * slurm-conf-parameters that set the key, the pending jobs enforcement holds and the status notes. */
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
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        char *v = NULL;

        enforce_choose("Limits", "associations,qos", &v, &why);
        assert_string_equal(v, "limits");
        assert_int_equal(why.len, 0);
        free(v);
        /* refused: the option's last good value stays, and the status says why */
        enforce_choose("limit", "associations,qos", &v, &why);
        assert_string_equal(v, "associations,qos");
        assert_non_null(strstr(why.buf, "accounting-enforce: \"limit\" is not one of Slurm's words"));
        assert_non_null(strstr(why.buf, "(nothing changed)"));
        free(v);
        strbuf_reset(&why);
        /* never good before: none */
        enforce_choose("limit", NULL, &v, &why);
        assert_null(v);
        assert_true(why.len > 0);
        strbuf_reset(&why);
        enforce_choose("limit", "", &v, &why);
        assert_null(v);
        strbuf_reset(&why);
        /* cleared: none, whatever was before */
        enforce_choose("", "associations", &v, &why);
        assert_null(v);
        assert_int_equal(why.len, 0);
        /* a value with the YAML block's newline, tabs */
        enforce_choose("associations,\tlimits\n", NULL, &v, &why);
        assert_string_equal(v, "associations,limits");
        assert_int_equal(why.len, 0);
        free(v);
}

static void test_accounting_live(void **state) {
        static const char live[] = "ClusterName=c\nAccountingStorageType=accounting_storage/slurmdbd\n";
        static const char none[] = "ClusterName=c\n";
        static const char other[] = "ClusterName=c\nAccountingStorageType=accounting_storage/none\n";
        assert_true(enforce_accounting_live(live, sizeof live - 1));
        assert_false(enforce_accounting_live(none, sizeof none - 1));
        assert_false(enforce_accounting_live(other, sizeof other - 1));
        assert_false(enforce_accounting_live(NULL, 0));
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
        assert_int_equal(w.n, 3);
        assert_int_equal(w.n_qos, 1);
        assert_int_equal(w.users.n, 2);
        assert_string_equal(w.users.v[0], "bob");
        assert_string_equal(w.users.v[1], "uid 2007");
}

static void test_note(void **state) {
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        _cleanup_(enforce_waiting_done) struct enforce_waiting w = ENFORCE_WAITING_INIT;

        enforce_status_note(NULL, ENFORCE_APPLIED, NULL, &msg);
        enforce_status_note("", ENFORCE_NO_ACCOUNTING, NULL, &msg);
        enforce_status_note("associations", ENFORCE_APPLIED, NULL, &msg);
        enforce_status_note("associations", ENFORCE_APPLIED, &w, &msg);
        assert_int_equal(msg.len, 0);

        enforce_status_note("associations", ENFORCE_NO_ACCOUNTING, &w, &msg);
        assert_string_equal(msg.buf, "; accounting-enforce=associations waits for slurmdbd (integrate with slurmdbd)");
        strbuf_reset(&msg);
        enforce_status_note("associations", ENFORCE_FIRST_START, &w, &msg);
        assert_string_equal(msg.buf, "; accounting-enforce=associations follows slurmctld's first start with slurmdbd");
        strbuf_reset(&msg);

        w.n = 1;
        strv_push(&w.users, "bob");
        enforce_status_note("associations", ENFORCE_APPLIED, &w, &msg);
        assert_string_equal(msg.buf, "; 1 pending job of bob has no association (accounting-enforce=associations): "
                                     "it runs once the user is added (slurmdbd's user-add)");
        strbuf_reset(&msg);

        w.n = 9;
        w.n_qos = 2;
        static const char *const more[] = { "carol", "dave", "erin", "frank", "gina", "hugo" };
        for (size_t i = 0; i < ELEMENTSOF(more); i++)
                strv_push(&w.users, more[i]);
        enforce_status_note("limits", ENFORCE_APPLIED, &w, &msg);
        assert_string_equal(msg.buf, "; 9 pending jobs of bob, carol, dave, erin, frank and 2 more have no association "
                                     "(accounting-enforce=limits): they run once the users are added (slurmdbd's user-add); "
                                     "2 pending jobs ask for a QOS their association does not allow (accounting-enforce=limits)");
        strbuf_reset(&msg);
        strv_clear(&w.users);
        w.n = 0;
        w.n_qos = 1;
        enforce_status_note("qos", ENFORCE_APPLIED, &w, &msg);
        assert_string_equal(msg.buf, "; 1 pending job asks for a QOS its association does not allow (accounting-enforce=qos)");
        strbuf_reset(&msg);

        /* the words that turn accounting off are said, with or without waiting jobs */
        w.n_qos = 0;
        enforce_status_note("associations,nojobs", ENFORCE_APPLIED, NULL, &msg);
        assert_string_equal(msg.buf, "; accounting-enforce=associations,nojobs: slurmdbd records no jobs and no steps (nojobs)");
        strbuf_reset(&msg);
        enforce_status_note("nosteps,nojobs", ENFORCE_APPLIED, &w, &msg);
        assert_string_equal(msg.buf, "; accounting-enforce=nosteps,nojobs: slurmdbd records no jobs and no steps (nojobs)");
        strbuf_reset(&msg);
        enforce_status_note("nosteps", ENFORCE_APPLIED, &w, &msg);
        assert_string_equal(msg.buf, "; accounting-enforce=nosteps: slurmdbd records no job steps (nosteps)");
        strbuf_reset(&msg);
        enforce_status_note("nosteps", ENFORCE_FIRST_START, &w, &msg); /* not yet applied */
        assert_string_equal(msg.buf, "; accounting-enforce=nosteps follows slurmctld's first start with slurmdbd");
        strbuf_reset(&msg);
        enforce_status_note("associations", ENFORCE_APPLIED, &w, &msg); /* no word is a prefix of another */
        assert_int_equal(msg.len, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_choose),
                cmocka_unit_test(test_accounting_live),
                cmocka_unit_test(test_params),
                cmocka_unit_test(test_waiting),
                cmocka_unit_test(test_note),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
