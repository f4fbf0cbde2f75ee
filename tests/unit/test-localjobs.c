/* SPDX-License-Identifier: Apache-2.0 */
/* lib/slurm/localjobs: listjobs' JSON answer, and the refusal where Slurm has no listjobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "util/macro.h"
#include "slurm/caps.h"
#include "slurm/localjobs.h"
#include "tmpdir.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_parse(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        uint32_t *ids = NULL;
        size_t n = 99;

        /* 24.11.5's answer with no slurmstepd on the node (trimmed meta) */
        assert_int_equal(slurm_local_jobs_parse(
                                 "{\"jobs\":[],\"meta\":{\"plugin\":{}},\"errors\":[]}", &ids, &n, &err),
                0);
        assert_int_equal(n, 0);
        free(ids);
        ids = NULL;
        /* jobs come sorted and once each (a job with two steps has two slurmstepd) */
        assert_int_equal(
                slurm_local_jobs_parse(
                        "{\"jobs\":[{\"job_id\":12},{\"job_id\":3},{\"job_id\":12}]}", &ids, &n, &err),
                0);
        assert_int_equal(n, 2);
        assert_int_equal(ids[0], 3);
        assert_int_equal(ids[1], 12);
        free(ids);

        /* anything else is refused, and *ret is left alone */
        const char *bad[] = {
                NULL,
                "",
                "No slurmstepd's found on this node",
                "{}",
                "{\"jobs\":{}}",
                "{\"jobs\":[{}]}",
                "{\"jobs\":[{\"job_id\":\"7\"}]}",
                "{\"jobs\":[{\"job_id\":0}]}",
                "{\"jobs\":[{\"job_id\":-1}]}",
                "{\"jobs\":[{\"job_id\":1.5}]}",
                "{\"jobs\":[{\"job_id\":4294967296}]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint32_t *keep = (uint32_t *) &n;
                ids = keep;
                strbuf_reset(&err);
                assert_int_equal(slurm_local_jobs_parse(bad[i], &ids, &n, &err), -EINVAL);
                assert_ptr_equal(ids, keep);
                assert_true(err.len > 0);
        }
}

static void test_generation(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        uint32_t *ids = NULL;
        size_t n = 0;
        if (slurm_caps_built()->listjobs)
                skip(); /* the real command runs in the cluster tests of that base */
        assert_int_equal(slurm_local_jobs("node-0", 1000, &ids, &n, &err), -EOPNOTSUPP);
        assert_non_null(strstr(err.buf, "no scontrol listjobs"));
        assert_null(ids);
}

/* slurmstepd socket names of 22.05 and 24.11 (stepd_api.c): "<node>_<job>.<step>[.<comp>]" */
static void test_step_name(void **state) {
        uint32_t job = 0;
        assert_true(slurm_local_step_name("cpu-0_12.0", "cpu-0", &job));
        assert_int_equal(job, 12);
        /* the batch and extern steps are large step ids */
        assert_true(slurm_local_step_name("cpu-0_7.4294967291", "cpu-0", &job));
        assert_int_equal(job, 7);
        assert_true(slurm_local_step_name("cpu-0_4294967294.4294967292", "cpu-0", &job));
        assert_int_equal(job, 4294967294u);
        /* a heterogeneous step's component */
        assert_true(slurm_local_step_name("cpu-0_9.0.1", "cpu-0", &job));
        assert_int_equal(job, 9);
        job = 5;
        const char *bad[] = {
                "cpu-0_12",            /* no step */
                "cpu-0_12.",           /* empty step */
                "cpu-0_.0",            /* no job */
                "cpu-0_012.0",         /* a leading zero is not Slurm's %u */
                "cpu-0_12.0.",         /* empty component */
                "cpu-0_12.0.1.2",      /* too many parts */
                "cpu-0_12.0x",         /* trailing text */
                "cpu-0_4294967296.0",  /* past 32 bits */
                "cpu-0_4294967295.0",  /* NO_VAL is no job */
                "cpu-1_12.0",          /* another node's */
                "cpu-01_12.0",         /* a name that starts with ours */
                "cpu-0-12.0",          /* no separator */
                "cred_state",
                "cred_state.old",
                ".",
                "..",
                "",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_false(slurm_local_step_name(bad[i], "cpu-0", &job));
        assert_false(slurm_local_step_name("cpu-0_12.0", "", &job));
        assert_int_equal(job, 5);
}

static void test_steps_scan(void **state) {
        const char *dir = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char spool[512];
        uint32_t *ids = NULL;
        size_t n = 99;

        snprintf(spool, sizeof spool, "%s/spool", dir);
        /* slurmd never ran: no directory, no jobs */
        assert_int_equal(slurm_local_steps_scan(spool, "cpu-0", NULL, &ids, &n, &err), 0);
        assert_int_equal(n, 0);
        free(ids);
        assert_int_equal(mkdir(spool, 0700), 0);
        assert_int_equal(test_touch(spool, "cred_state"), 0);
        assert_int_equal(test_touch(spool, "cpu-0_30.4294967291"), 0);
        assert_int_equal(test_touch(spool, "cpu-0_30.0"), 0);
        assert_int_equal(test_touch(spool, "cpu-0_4.4294967292"), 0);
        assert_int_equal(test_touch(spool, "cpu-1_5.0"), 0);
        assert_int_equal(test_touch(spool, "cpu-0_12.0.1"), 0);
        ids = NULL;
        assert_int_equal(slurm_local_steps_scan(spool, "cpu-0", NULL, &ids, &n, &err), 0);
        assert_int_equal(n, 3);
        assert_int_equal(ids[0], 4);
        assert_int_equal(ids[1], 12);
        assert_int_equal(ids[2], 30);
        free(ids);
        /* with the table of bound sockets: a socket no process has bound (a killed slurmstepd's)
         * does not count; a table that cannot be read filters nothing */
        char table[600];
        snprintf(table, sizeof table, "%s/unix", dir);
        FILE *t = fopen(table, "w");
        assert_non_null(t);
        fprintf(t, "Num       RefCount Protocol Flags    Type St Inode Path\n"
                   "0000000000000000: 00000002 00000000 00010000 0001 01 21412 %s/cpu-0_30.4294967291\n"
                   "0000000000000000: 00000002 00000000 00010000 0001 01 21413 %s/cpu-0_12.0.1\n"
                   "0000000000000000: 00000003 00000000 00000000 0001 03 21414\n"
                   "0000000000000000: 00000002 00000000 00010000 0001 01 21415 /elsewhere/cpu-0_4.4294967292\n"
                   "0000000000000000: 00000002 00000000 00010000 0001 01 21416 @/abstract\n",
                spool, spool);
        fclose(t);
        ids = NULL;
        assert_int_equal(slurm_local_steps_scan(spool, "cpu-0", table, &ids, &n, &err), 0);
        assert_int_equal(n, 2);
        assert_int_equal(ids[0], 12);
        assert_int_equal(ids[1], 30);
        free(ids);
        ids = NULL;
        snprintf(table, sizeof table, "%s/no-such-table", dir);
        assert_int_equal(slurm_local_steps_scan(spool, "cpu-0", table, &ids, &n, &err), 0);
        assert_int_equal(n, 3);
        free(ids);
        /* a file where the directory should be: an error, *ret untouched */
        ids = NULL;
        char file[600];
        snprintf(file, sizeof file, "%s/cred_state", spool);
        assert_true(slurm_local_steps_scan(file, "cpu-0", NULL, &ids, &n, &err) < 0);
        assert_null(ids);
        assert_non_null(strstr(err.buf, "cred_state"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_generation),
                cmocka_unit_test(test_step_name),
                cmocka_unit_test_setup_teardown(test_steps_scan, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
