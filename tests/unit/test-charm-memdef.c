/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/memdef: the record of the compute units' resources (parse,
 * format, set, drop, units no longer related, thousands of lines), the smallest memory per CPU of
 * an application (units below the floor not counted, named), when DefMemPerCPU goes into a
 * partition (its own defaults win, its MaxMemPerCPU caps) and the global keys named beside auto. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/memdef.h"

#include <errno.h>
#include <string.h>

#include "util/banned.h"

static const struct node_resources small = { .cpus = 2, .real_memory = 24105, .mem_spec_limit = 0 };
static const struct node_resources big = { .cpus = 64, .real_memory = 515000, .mem_spec_limit = 4000 };

static void test_mode(void **state) {
        enum memdef_mode m = MEMDEF_AUTO;
        assert_int_equal(memdef_mode_parse("none", &m), 0);
        assert_int_equal(m, MEMDEF_NONE);
        assert_int_equal(memdef_mode_parse("auto", &m), 0);
        assert_int_equal(m, MEMDEF_AUTO);
        static const char *const bad[] = { "", "Auto", "yes", "auto ", "1024" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_int_equal(memdef_mode_parse(bad[i], &m), -EINVAL);
                assert_int_equal(m, MEMDEF_AUTO); /* untouched */
        }
        assert_int_equal(memdef_mode_parse(NULL, &m), -EINVAL);
        assert_string_equal(memdef_mode_name(MEMDEF_NONE), "none");
}

static void test_record(void **state) {
        _cleanup_(memdef_units_done) struct memdef_units u = { 0 };
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        assert_true(memdef_units_set(&u, "cpu/1", "cpu", &small));
        assert_true(memdef_units_set(&u, "big/0", "big", &big));
        assert_true(memdef_units_set(&u, "cpu/0", "cpu", &small));
        assert_false(memdef_units_set(&u, "cpu/0", "cpu", &small)); /* the same: no change */
        memdef_units_format(&u, &t);
        assert_string_equal(t.buf, "big/0 big 64 515000 4000\ncpu/0 cpu 2 24105 0\ncpu/1 cpu 2 24105 0\n");

        /* read back, with lines that are not records skipped */
        _cleanup_(memdef_units_done) struct memdef_units back = { 0 };
        _cleanup_strbuf_ struct strbuf t2 = STRBUF_INIT, mixed = STRBUF_INIT;
        strbuf_addstr(&mixed, t.buf);
        strbuf_addstr(&mixed, "junk\nx/1 x 0 100 0\nx/2 x 2 100 100\nx/3 x 2 -5 0\nx/4 x 70000 100 0\nx/5 x 2 100 0 9\n\n");
        memdef_units_parse(mixed.buf, &back);
        memdef_units_format(&back, &t2);
        assert_string_equal(t2.buf, t.buf);
        memdef_units_parse(NULL, &back);
        assert_int_equal(back.n, 0);

        assert_true(memdef_units_drop(&u, "cpu/1"));
        assert_false(memdef_units_drop(&u, "cpu/1"));
        struct node_resources more = small;
        more.real_memory = 30000;
        assert_true(memdef_units_set(&u, "cpu/0", "cpu", &more)); /* replaced */
        assert_true(memdef_units_has(&u, "big/0"));
        assert_false(memdef_units_has(&u, "cpu/1"));
        char *listed[] = { (char *) "cpu/0", (char *) "cpu/9" };
        assert_int_equal(memdef_units_keep_units(&u, listed, 2), 1); /* big/0 not listed: dropped */
        strbuf_reset(&t);
        memdef_units_format(&u, &t);
        assert_string_equal(t.buf, "cpu/0 cpu 2 30000 0\n");
}

static void test_per_cpu(void **state) {
        _cleanup_(memdef_units_done) struct memdef_units u = { 0 };
        uint64_t v = 7;
        assert_int_equal(memdef_per_cpu(&u, "cpu", &v), -ENODATA);
        assert_int_equal(v, 7);
        (void) memdef_units_set(&u, "cpu/0", "cpu", &small);
        (void) memdef_units_set(&u, "big/0", "big", &big);
        assert_int_equal(memdef_per_cpu(&u, "cpu", &v), 0);
        assert_int_equal(v, 12052); /* 24105 / 2, rounded down */
        assert_int_equal(memdef_per_cpu(&u, "big", &v), 0);
        assert_int_equal(v, (515000 - 4000) / 64);
        /* the smallest node of the application decides */
        const struct node_resources tiny = { .cpus = 4, .real_memory = 8000, .mem_spec_limit = 1000 };
        (void) memdef_units_set(&u, "cpu/5", "cpu", &tiny);
        assert_int_equal(memdef_per_cpu(&u, "cpu", &v), 0);
        assert_int_equal(v, 1750);
        /* a unit below the floor is not counted (and named) */
        const struct node_resources starved = { .cpus = 128, .real_memory = 100, .mem_spec_limit = 0 };
        const struct node_resources spec = { .cpus = 2, .real_memory = 24105, .mem_spec_limit = 24000 };
        (void) memdef_units_set(&u, "cpu/6", "cpu", &starved);
        (void) memdef_units_set(&u, "cpu/7", "cpu", &spec);
        assert_int_equal(memdef_per_cpu(&u, "cpu", &v), 0);
        assert_int_equal(v, 1750);
        _cleanup_strv_ struct strv small_units = STRV_INIT;
        memdef_units_small(&u, &small_units);
        assert_int_equal(small_units.n, 2);
        assert_string_equal(small_units.v[0], "unit cpu/6 left out of the memory default: 0 MiB per CPU, below 100");
        assert_string_equal(small_units.v[1], "unit cpu/7 left out of the memory default: 52 MiB per CPU, below 100");
        /* only small units: none */
        _cleanup_(memdef_units_done) struct memdef_units only = { 0 };
        (void) memdef_units_set(&only, "x/0", "x", &starved);
        assert_int_equal(memdef_per_cpu(&only, "x", &v), -ENODATA);
        assert_int_equal(memdef_per_cpu(&u, "other", &v), -ENODATA);
}

static void parse(const char *s, enum slurm_options_kind kind, struct slurm_options *o) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurm_options_parse(s, kind, o, &e) < 0)
                fail_msg("%s: %s", s, e.buf);
}

static void test_apply(void **state) {
        static const struct {
                const char *partition;
                const char *want; /* DefMemPerCPU after, NULL: not set */
        } cases[] = {
                { "", "12052" },
                { "MaxTime=60", "12052" },
                { "DefMemPerCPU=500", "500" }, /* the admin's, untouched */
                { "DefMemPerNode=4000", NULL },
                { "DefMemPerGPU=4000", NULL },
                { "MaxMemPerCPU=3000", "3000" },
                { "MaxMemPerCPU=20000", "12052" },
                { "MaxMemPerCPU=UNLIMITED", "12052" },
                { "MaxMemPerNode=1000", "12052" }, /* per node: no per-CPU cap */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(slurm_options_clearp) struct slurm_options p = SLURM_OPTIONS_INIT;
                parse(cases[i].partition, SLURM_OPTIONS_PARTITION, &p);
                bool had = slurm_options_get(&p, "DefMemPerCPU") != NULL;
                int r = memdef_apply(&p, 12052);
                const char *got = slurm_options_get(&p, "DefMemPerCPU");
                if (cases[i].want && !had) {
                        assert_int_equal(r, 1);
                        assert_non_null(got);
                        if (!streq(got, cases[i].want))
                                fail_msg("case %zu: DefMemPerCPU=%s, want %s", i, got, cases[i].want);
                } else if (cases[i].want) {
                        assert_int_equal(r, 0);
                        assert_string_equal(got, cases[i].want);
                } else {
                        assert_int_equal(r, 0);
                        assert_null(got);
                }
        }
}

static void test_global_conflict(void **state) {
        assert_null(memdef_global_conflict(NULL));
        assert_null(memdef_global_conflict(""));
        assert_null(memdef_global_conflict("SchedulerType=sched/builtin MaxMemPerNode=100"));
        assert_string_equal(memdef_global_conflict("DefMemPerNode=700"), "DefMemPerNode");
        assert_string_equal(memdef_global_conflict("MinJobAge=5 DefMemPerCPU=700"), "DefMemPerCPU");
        assert_string_equal(memdef_global_conflict("DefMemPerGPU=700"), "DefMemPerGPU");
        assert_string_equal(memdef_global_conflict("MaxMemPerCPU=700"), "MaxMemPerCPU");
        assert_null(memdef_global_conflict("NotAKey=1 DefMemPerCPU=700")); /* does not parse */
}

static void test_parse_many(void **state) {
        /* a record of many units, out of order and with a unit twice: sorted, the first kept */
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        for (int i = 2999; i >= 0; i--)
                strbuf_addf(&t, "cpu/%d cpu 2 %d 0\n", i, 24000 + i);
        strbuf_addstr(&t, "cpu/5 cpu 2 1000 0\n");
        _cleanup_(memdef_units_done) struct memdef_units u = { 0 };
        memdef_units_parse(t.buf, &u);
        assert_int_equal(u.n, 3000);
        for (size_t i = 1; i < u.n; i++)
                assert_true(strcmp(u.v[i - 1].unit, u.v[i].unit) < 0);
        uint64_t v = 0;
        assert_int_equal(memdef_per_cpu(&u, "cpu", &v), 0);
        assert_int_equal(v, 12000);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mode),
                cmocka_unit_test(test_record),
                cmocka_unit_test(test_per_cpu),
                cmocka_unit_test(test_apply),
                cmocka_unit_test(test_global_conflict),
                cmocka_unit_test(test_parse_many),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
