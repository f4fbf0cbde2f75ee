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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_generation),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
