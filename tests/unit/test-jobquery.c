/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurm/jobquery's pure parts: job ids as people write them (plain, array
 * task, het component) and which records they select, the find criteria, state words, and step
 * names as Slurm prints them. The RPCs run against a real slurmctld in
 * tests/cluster/charm-ops.sh (arrays, het jobs, three steps of one job). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurm/jobquery.h"

#include <slurm/slurm.h>

#include "util/banned.h"

static void assert_id(const char *s, uint32_t id, enum slurm_jobid_kind kind, uint32_t sub) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        struct slurm_jobid j;
        assert_int_equal(slurm_jobid_parse(s, &j), 0);
        assert_int_equal(j.id, id);
        assert_int_equal(j.kind, kind);
        assert_int_equal(j.sub, sub);
        slurm_jobid_format(&j, &out);
        assert_string_equal(out.buf, s);
}

static void test_jobid_parse(void **state) {
        assert_id("123", 123, SLURM_JOBID_PLAIN, 0);
        assert_id("123_4", 123, SLURM_JOBID_ARRAY_TASK, 4);
        assert_id("123+1", 123, SLURM_JOBID_HET, 1);
        assert_id("67043328", SLURM_JOBID_MAX, SLURM_JOBID_PLAIN, 0);
        assert_id("5_4000000", 5, SLURM_JOBID_ARRAY_TASK, SLURM_ARRAY_TASK_MAX);
        assert_id("5+127", 5, SLURM_JOBID_HET, 127);
        const char *bad[] = { "", "0", "-1", "12x", "x12", "12_", "12+", "12_x", "12.batch", "12_3_4",
                "12+1+2", "67043329", "99999999999", "5_4000001", "5+128", " 12", "12 ", "1e3", "0x10",
                "12_[1-3]" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct slurm_jobid j = { .id = 77 };
                if (slurm_jobid_parse(bad[i], &j) != -EINVAL)
                        fail_msg("\"%s\" parsed", bad[i]);
                assert_int_equal(j.id, 77);
        }
        struct slurm_jobid j;
        assert_int_equal(slurm_jobid_parse(NULL, &j), -EINVAL);
}

static void test_jobid_selects(void **state) {
        uint8_t pending[1] = { 0x0c }; /* tasks 2 and 3 not started yet */
        const struct slurm_jobinfo plain = { .job_id = 10, .array_task_id = UINT32_MAX };
        const struct slurm_jobinfo meta = { .job_id = 20,
                .array_job_id = 20,
                .array_task_id = UINT32_MAX,
                .pending_tasks = pending,
                .pending_tasks_len = 4 };
        const struct slurm_jobinfo task0 = { .job_id = 21, .array_job_id = 20, .array_task_id = 0 };
        const struct slurm_jobinfo het0 = {
                .job_id = 30, .het_job_id = 30, .het_job_offset = 0, .array_task_id = UINT32_MAX
        };
        const struct slurm_jobinfo het1 = {
                .job_id = 31, .het_job_id = 30, .het_job_offset = 1, .array_task_id = UINT32_MAX
        };
        struct slurm_jobid id;

        assert_int_equal(slurm_jobid_parse("10", &id), 0);
        assert_true(slurm_jobid_selects(&id, &plain));
        assert_false(slurm_jobid_selects(&id, &task0));
        /* the array id selects the meta record and every task; a task's own id only itself */
        assert_int_equal(slurm_jobid_parse("20", &id), 0);
        assert_true(slurm_jobid_selects(&id, &meta));
        assert_true(slurm_jobid_selects(&id, &task0));
        assert_int_equal(slurm_jobid_parse("21", &id), 0);
        assert_true(slurm_jobid_selects(&id, &task0));
        assert_false(slurm_jobid_selects(&id, &meta));
        /* a started task is its record; a pending one the meta record; others nothing */
        assert_int_equal(slurm_jobid_parse("20_0", &id), 0);
        assert_true(slurm_jobid_selects(&id, &task0));
        assert_false(slurm_jobid_selects(&id, &meta));
        assert_int_equal(slurm_jobid_parse("20_3", &id), 0);
        assert_true(slurm_jobid_selects(&id, &meta));
        assert_false(slurm_jobid_selects(&id, &task0));
        assert_int_equal(slurm_jobid_parse("20_1", &id), 0);
        assert_false(slurm_jobid_selects(&id, &meta));
        assert_int_equal(slurm_jobid_parse("20_9", &id), 0);
        assert_false(slurm_jobid_selects(&id, &meta));
        assert_int_equal(slurm_jobid_parse("10_0", &id), 0);
        assert_false(slurm_jobid_selects(&id, &plain));
        /* het: the leader's id selects every component, N+C one */
        assert_int_equal(slurm_jobid_parse("30", &id), 0);
        assert_true(slurm_jobid_selects(&id, &het0));
        assert_true(slurm_jobid_selects(&id, &het1));
        assert_int_equal(slurm_jobid_parse("30+1", &id), 0);
        assert_false(slurm_jobid_selects(&id, &het0));
        assert_true(slurm_jobid_selects(&id, &het1));
        assert_int_equal(slurm_jobid_parse("31", &id), 0);
        assert_true(slurm_jobid_selects(&id, &het1));
        assert_false(slurm_jobid_selects(&id, &het0));
}

static void test_state_words(void **state) {
        assert_true(slurm_job_state_word_valid("RUNNING"));
        assert_true(slurm_job_state_word_valid("pending"));
        assert_true(slurm_job_state_word_valid("Out_Of_Memory"));
        assert_true(slurm_job_state_word_valid("COMPLETING"));
        assert_false(slurm_job_state_word_valid("RUNNIN"));
        assert_false(slurm_job_state_word_valid("R"));
        assert_false(slurm_job_state_word_valid(""));
        assert_false(slurm_job_state_word_valid(NULL));
        assert_true(slurm_job_state_is(JOB_RUNNING, "running"));
        assert_false(slurm_job_state_is(JOB_RUNNING, "PENDING"));
        assert_true(slurm_job_state_is(JOB_OOM, "OUT_OF_MEMORY"));
        assert_true(slurm_job_state_is(JOB_NODE_FAIL, "NODE_FAIL"));
        /* a completing job is both its base state and COMPLETING */
        assert_true(slurm_job_state_is(JOB_COMPLETE | JOB_COMPLETING, "COMPLETED"));
        assert_true(slurm_job_state_is(JOB_COMPLETE | JOB_COMPLETING, "completing"));
        assert_true(slurm_job_state_is(JOB_PENDING | JOB_REQUEUE, "REQUEUED"));
        assert_false(slurm_job_state_is(JOB_PENDING, "REQUEUED"));
        assert_false(slurm_job_state_is(JOB_PENDING, "bogus"));
}

static void test_filter(void **state) {
        const struct slurm_jobinfo j = {
                .job_id = 42,
                .user = (char *) "alice",
                .user_id = 1001,
                .state = JOB_RUNNING,
                .partition = (char *) "cpu",
                .name = (char *) "a, b",
                .account = (char *) "physics",
                .nodes = (char *) "cpu-[1-3]",
                .batch_host = (char *) "cpu-1",
        };
        const struct slurm_jobinfo pending = { .job_id = 43,
                .user = (char *) "bob",
                .user_id = 1002,
                .state = JOB_PENDING,
                .partition = (char *) "cpu,gpu" };
        char *alice[] = { (char *) "alice", NULL }, *uid[] = { (char *) "1001", NULL },
             *bob[] = { (char *) "bob", (char *) "carol", NULL };
        char *running[] = { (char *) "RUNNING", NULL },
             *pend_or_run[] = { (char *) "pending", (char *) "running", NULL };
        char *gpu[] = { (char *) "gpu", NULL }, *node2[] = { (char *) "cpu-2", NULL },
             *node9[] = { (char *) "cpu-9", (char *) "cpu-3", NULL },
             *node_none[] = { (char *) "cpu-9", NULL };
        char *host1[] = { (char *) "cpu-1", NULL }, *host2[] = { (char *) "cpu-2", NULL };
        char *name[] = { (char *) "a, b", NULL }, *acct[] = { (char *) "physics", NULL };

        assert_true(slurm_job_filter_match(NULL, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ 0 }, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .users = alice }, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .users = uid }, &j));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .users = bob }, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .users = bob }, &pending));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .states = running }, &j));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .states = running }, &pending));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .states = pend_or_run }, &pending));
        /* a pending job asking for several partitions matches each */
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .partitions = gpu }, &pending));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .partitions = gpu }, &j));
        /* nodes: inside the allocation's hostlist expression */
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .nodes = node2 }, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .nodes = node9 }, &j));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .nodes = node_none }, &j));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .nodes = node2 }, &pending));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .batch_hosts = host1 }, &j));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .batch_hosts = host2 }, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .names = name }, &j));
        assert_true(slurm_job_filter_match(&(struct slurm_job_filter){ .accounts = acct }, &j));
        assert_false(slurm_job_filter_match(&(struct slurm_job_filter){ .accounts = acct }, &pending));
        /* AND-ed */
        assert_true(slurm_job_filter_match(
                &(struct slurm_job_filter){ .users = alice, .nodes = node2, .states = running }, &j));
        assert_false(slurm_job_filter_match(
                &(struct slurm_job_filter){ .users = alice, .nodes = node_none, .states = running }, &j));
}

static void assert_step(
        uint32_t job, uint32_t array_job, uint32_t task, uint32_t step, uint32_t het, const char *want) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        slurm_step_id_format(job, array_job, task, step, het, &out);
        assert_string_equal(out.buf, want);
}

static void test_step_names(void **state) {
        assert_step(12, 0, NO_VAL, SLURM_BATCH_SCRIPT, NO_VAL, "12.batch");
        assert_step(12, 0, NO_VAL, SLURM_EXTERN_CONT, NO_VAL, "12.extern");
        assert_step(12, 0, NO_VAL, SLURM_INTERACTIVE_STEP, NO_VAL, "12.interactive");
        assert_step(12, 0, NO_VAL, SLURM_PENDING_STEP, NO_VAL, "12.TDB");
        assert_step(12, 0, NO_VAL, 0, NO_VAL, "12.0");
        assert_step(12, 0, NO_VAL, 7, UINT32_MAX, "12.7");
        assert_step(12, 0, NO_VAL, 0, 1, "12.0+1");
        /* an array task's step: the array's id and task (src/api/job_step_info.c) */
        assert_step(25, 20, 4, SLURM_BATCH_SCRIPT, NO_VAL, "20_4.batch");
        assert_step(25, 20, 4, 3, NO_VAL, "20_4.3");
        assert_string_equal(slurm_step_special_name(SLURM_EXTERN_CONT), "extern");
        assert_null(slurm_step_special_name(0));
        assert_null(slurm_step_special_name(123));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_jobid_parse),
                cmocka_unit_test(test_jobid_selects),
                cmocka_unit_test(test_state_words),
                cmocka_unit_test(test_filter),
                cmocka_unit_test(test_step_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
