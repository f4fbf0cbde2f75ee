/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurm/reservations' pure parts: the reservation flag words (parse for
 * creation, with the words refused and why; format in Slurm's order). Create, update and
 * delete run against a real slurmctld in tests/cluster/charm-ops.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurm/reservations.h"

#include <slurm/slurm.h>

#include "util/banned.h"

static void test_flags_parse(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        uint64_t f = 12345;

        assert_int_equal(slurm_resv_flags_parse("MAINT,IGNORE_JOBS,OVERLAP", &f, &err), 0);
        assert_true(f == (RESERVE_FLAG_MAINT | RESERVE_FLAG_IGN_JOBS | RESERVE_FLAG_OVERLAP));
        /* any case, Slurm's other spellings */
        assert_int_equal(slurm_resv_flags_parse("maintenance,static_alloc,Promiscuous", &f, &err), 0);
        assert_true(f == (RESERVE_FLAG_MAINT | RESERVE_FLAG_STATIC | RESERVE_FLAG_MAGNETIC));
        assert_int_equal(
                slurm_resv_flags_parse("daily,WEEKLY,flex,purge_comp,no_hold_jobs_after_end", &f, &err), 0);
        assert_true(f ==
                (RESERVE_FLAG_DAILY | RESERVE_FLAG_WEEKLY | RESERVE_FLAG_FLEX | RESERVE_FLAG_PURGE_COMP |
                        RESERVE_FLAG_NO_HOLD_JOBS));
        assert_int_equal(slurm_resv_flags_parse("", &f, &err), 0);
        assert_true(f == 0);
        assert_int_equal(slurm_resv_flags_parse(NULL, &f, &err), 0);
        assert_true(f == 0);
        assert_int_equal(err.len, 0);

        const struct {
                const char *in, *msg;
        } bad[] = {
                { "MAINT,FAST", "flags: unknown reservation flag \"FAST\"" },
                { "MAINT,,OVERLAP", "flags \"MAINT,,OVERLAP\": empty item" },
                { "MAINT,", "flags \"MAINT,\": empty item" },
                { "maint,MAINTENANCE", "flags: \"MAINTENANCE\" given twice" },
                { "ANY_NODES", "flags: \"ANY_NODES\" is not offered here: it reserves licenses" },
                { "LICENSE_ONLY", "flags: \"LICENSE_ONLY\" is not offered here" },
                { "PART_NODES", "flags: \"PART_NODES\" is not offered here: it needs a partition" },
                { "TIME_FLOAT", "flags: \"TIME_FLOAT\" is not offered here: it takes a start" },
                { "REPLACE", "flags: \"REPLACE\" is not offered here: it picks nodes itself" },
#ifdef RESERVE_FLAG_FIRST_CORES /* gone in 24.11: there it is an unknown flag */
                { "first_cores", "flags: \"first_cores\" is not offered here: it reserves cores" },
#else
                { "first_cores", "flags: unknown reservation flag \"first_cores\"" },
#endif
                { "NO_MAINT", "flags: \"NO_MAINT\" is not offered here: it only changes" },
                { "SPEC_NODES", "flags: \"SPEC_NODES\" is not offered here: it is set by Slurm" },
                { "MAINT OVERLAP", "flags: unknown reservation flag \"MAINT OVERLAP\"" },
                { "+MAINT", "flags: unknown reservation flag \"+MAINT\"" },
                { "MAI", "flags: unknown reservation flag \"MAI\"" }, /* no abbreviations here */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                f = 777;
                if (slurm_resv_flags_parse(bad[i].in, &f, &err) != -EINVAL)
                        fail_msg("flags \"%s\" accepted", bad[i].in);
                assert_true(f == 777);
                if (!startswith(err.buf, bad[i].msg))
                        fail_msg("flags \"%s\": message \"%s\", want \"%s…\"", bad[i].in, err.buf,
                                bad[i].msg);
        }
}

static void test_flags_format(void **state) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        slurm_resv_flags_format(0, &out);
        assert_string_equal(out.buf, "");
        slurm_resv_flags_format(
                RESERVE_FLAG_SPEC_NODES | RESERVE_FLAG_IGN_JOBS | RESERVE_FLAG_OVERLAP | RESERVE_FLAG_MAINT,
                &out);
        /* Slurm's own order (scontrol show reservation) */
        assert_string_equal(out.buf, "MAINT,OVERLAP,IGNORE_JOBS,SPEC_NODES");
        strbuf_reset(&out);
        slurm_resv_flags_format(
                RESERVE_FLAG_STATIC | RESERVE_FLAG_MAGNETIC | RESERVE_FLAG_NO_HOLD_JOBS, &out);
        assert_string_equal(out.buf, "STATIC,NO_HOLD_JOBS_AFTER_END,MAGNETIC");
        strbuf_reset(&out);
        slurm_resv_flags_format(RESERVE_FLAG_MAINT | (UINT64_C(1) << 60), &out);
        assert_string_equal(out.buf, "MAINT,0x1000000000000000");
        strbuf_reset(&out);
        slurm_resv_flags_format(UINT64_C(1) << 62, &out);
        assert_string_equal(out.buf, "0x4000000000000000");
        /* appends */
        strbuf_reset(&out);
        strbuf_addstr(&out, "flags=");
        slurm_resv_flags_format(RESERVE_FLAG_DAILY, &out);
        assert_string_equal(out.buf, "flags=DAILY");
}

static void test_flags_round_trip(void **state) {
        /* every flag parse takes, format prints back the same way (STATIC_ALLOC prints STATIC) */
        const char *words[] = { "MAINT", "OVERLAP", "IGNORE_JOBS", "FLEX", "MAGNETIC", "PURGE_COMP",
                "NO_HOLD_JOBS_AFTER_END", "STATIC", "HOURLY", "DAILY", "WEEKDAY", "WEEKEND", "WEEKLY" };
        for (size_t i = 0; i < ELEMENTSOF(words); i++) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                uint64_t f;
                assert_int_equal(slurm_resv_flags_parse(words[i], &f, NULL), 0);
                slurm_resv_flags_format(f, &out);
                assert_string_equal(out.buf, words[i]);
        }
}

static void test_create_checks(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        /* refused before any RPC (no slurm configuration is needed to get there) */
        const struct slurm_resv_create none = { .name = "m", .nodes = "cpu-0", .users = "root" };
        assert_int_equal(slurm_resv_create(&none, &err), -EINVAL);
        assert_string_equal(err.buf, "create reservation: name, nodes, users and a duration are required");
        const struct slurm_resv_create forever = {
                .name = "m", .nodes = "cpu-0", .users = "root", .duration_min = INFINITE
        };
        assert_int_equal(slurm_resv_create(&forever, NULL), -EINVAL);
        const struct slurm_resv_create nameless = { .nodes = "cpu-0", .users = "root", .duration_min = 5 };
        assert_int_equal(slurm_resv_create(&nameless, NULL), -EINVAL);
        assert_int_equal(slurm_resv_set_nodes("m", "", NULL), -EINVAL);
        assert_int_equal(slurm_resv_delete("", NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_flags_parse),
                cmocka_unit_test(test_flags_format),
                cmocka_unit_test(test_flags_round_trip),
                cmocka_unit_test(test_create_checks),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
