/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurm/confcheck: candidate slurm.conf files judged by libslurm's reader in
 * a child (accepted, refused with Slurm's own words, missing plugins, timeout), and its cost. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pwd.h>
#include <time.h>

#include "util/macro.h"
#include "slurm/confcheck.h"
#include "slurm/plugfiles.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "tmpdir.h"
#include "util/banned.h"

/* templates/slurm.conf with ClusterName and SlurmctldHost filled in, plus extra. */
static void candidate(struct strbuf *out, const char *extra) {
        const char *top = getenv("TOP_SRCDIR");
        assert_non_null(top);
        _cleanup_free_ char *path = xasprintf("%s/templates/slurm.conf", top);
        _cleanup_free_ char *text = NULL;
        size_t len;
        assert_int_equal(read_full_file(path, &text, &len), 0);
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (streq(line, "ClusterName=unset"))
                        strbuf_addstr(out, "ClusterName=probe\n");
                else if (streq(line, "SlurmctldHost=unset"))
                        strbuf_addstr(out, "SlurmctldHost=probe-ctl\n");
                else
                        strbuf_addf(out, "%s\n", line);
        }
        if (extra)
                strbuf_addf(out, "%s\n", extra);
}

static int check(const char *extra, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf c = STRBUF_INIT;
        candidate(&c, extra);
        return slurm_conf_check(c.buf, c.len, err);
}

static void expect_refused(const char *extra, const char *words) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = check(extra, &err);
        if (r != -EINVAL || !strstr(err.buf, words))
                print_error("%s: got %d \"%s\", expected \"%s\"\n", extra, r, err.buf, words);
        assert_int_equal(r, -EINVAL);
        assert_non_null(strstr(err.buf, words));
        assert_null(strstr(err.buf, "Unable to process configuration file"));
        assert_null(strchr(err.buf, '\n'));
        assert_true(err.len < 260);
}

static int setup(void **state) {
        /* the reader looks SlurmUser (slurm) up */
        if (!getpwnam("slurm")) {
                print_message("no slurm user: slurm_conf_check() cannot accept the template here\n");
                return -1;
        }
        return 0;
}

static void test_accepts_template(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(check(NULL, &err), 0);
        assert_int_equal(err.len, 0);
        assert_int_equal(
                check("PartitionName=p MaxTime=1-00:00:00 State=UP\nNodeName=probe CPUs=4", &err), 0);
}

static void test_refuses_with_slurms_words(void **state) {
        expect_refused("PartitionName=cpu MaxTime=forever", "Bad value \"forever\" for MaxTime");
        expect_refused("PartitionName=cpu PriorityTier=99999999999999", "is greater than 65535");
        expect_refused("SlurmctldDebug=loud", "Invalid SlurmctldDebug loud");
        expect_refused("SlurmdTimeout=abc", "SlurmdTimeout value \"abc\" is not a valid number");
        expect_refused("NodeName=probe CPUs=abc", "CPUs value \"abc\" is not a valid number");
        /* a rule the reader keeps for slurmctld: the child runs as "slurmctld" */
        expect_refused("FastSchedule=2", "FastSchedule option has been removed");
        /* the line number points into "slurm.conf", not the memfd */
        expect_refused("Foo=bar", "slurm.conf");
        /* empty: no ClusterName */
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(slurm_conf_check("", 0, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "ClusterName"));
}

static void test_plugins(void **state) {
        expect_refused("SchedulerType=sched/nosuch", "plugin sched/nosuch is not installed");
        expect_refused("TaskPlugin=affinity,task/nosuch", "plugin task/nosuch is not installed");
        expect_refused("MpiDefault=nosuch", "plugin mpi/nosuch is not installed");
        expect_refused("PriorityType=multifactor", "\"multifactor\" is not a priority plugin");
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(check("TaskPlugin=affinity,task/cgroup\nPriorityType=priority/multifactor", &err), 0);

        /* a plugin that cannot start without its own file (slurm/plugfiles.h): refused while
         * the file is missing from the configuration directory, accepted once it is there */
        expect_refused("TopologyPlugin=topology/tree",
                "TopologyPlugin: plugin topology/tree needs /etc/slurm/topology.conf, which is not there");
        expect_refused("JobSubmitPlugins=lua", "plugin job_submit/lua needs /etc/slurm/job_submit.lua");
        char *dir = test_tmpdir_make("test-confcheck");
        assert_non_null(dir);
        _cleanup_free_ char *topo = xasprintf("%s/topology.conf", dir), *lua = xasprintf("%s/job_submit.lua", dir);
        assert_int_equal(write_file_atomic(topo, "SwitchName=s0 Nodes=n[1-2]\n", 27, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(write_file_atomic(lua, "-- site\n", 8, 0644, (uid_t) -1, (gid_t) -1), 0);
        _cleanup_strbuf_ struct strbuf cand = STRBUF_INIT;
        candidate(&cand, "TopologyPlugin=topology/tree\nJobSubmitPlugins=lua");
        struct slurm_conf_check_opts with_files = { .conf_dir = dir };
        strbuf_reset(&err);
        assert_int_equal(slurm_conf_check_opts(cand.buf, cand.len, &with_files, &err), 0);
        assert_int_equal(test_tmpdir_remove(dir), 0);
        assert_string_equal(slurm_plugin_needs_file("topology", "tree"), "topology.conf");
        assert_null(slurm_plugin_needs_file("topology", "none"));
        assert_null(slurm_plugin_needs_file("sched", "backfill"));

        /* without the plugin check the reader alone accepts it */
        _cleanup_strbuf_ struct strbuf c = STRBUF_INIT;
        candidate(&c, "SchedulerType=sched/nosuch");
        struct slurm_conf_check_opts o = { .no_plugin_check = 1 };
        assert_int_equal(slurm_conf_check_opts(c.buf, c.len, &o, &err), 0);
}

static void test_log_of_accepted(void **state) {
        /* the reader reports and ignores: accepted, with the error in the log */
        _cleanup_strbuf_ struct strbuf c = STRBUF_INIT, log = STRBUF_INIT, err = STRBUF_INIT;
        candidate(&c, "DebugFlags=Task\nPartitionName=p OverSubscribe=YES:1");
        struct slurm_conf_check_opts o = { .log = &log };
        assert_int_equal(slurm_conf_check_opts(c.buf, c.len, &o, &err), 0);
        assert_non_null(strstr(log.buf, "DebugFlag Task has been removed"));
        assert_non_null(strstr(log.buf, "Ignoring bad OverSubscribe value"));
}

static void test_timeout(void **state) {
        /* 64 MiB of comments cannot be written and read in 1 ms */
        _cleanup_strbuf_ struct strbuf c = STRBUF_INIT, err = STRBUF_INIT;
        candidate(&c, NULL);
        strbuf_grow(&c, 64 << 20);
        while (c.len < (64 << 20))
                strbuf_addstr(&c, "# padding padding padding padding padding padding padding padding\n");
        struct slurm_conf_check_opts o = { .timeout_ms = 1 };
        assert_int_equal(slurm_conf_check_opts(c.buf, c.len, &o, &err), -ETIMEDOUT);
        assert_non_null(strstr(err.buf, "did not finish"));
}

static void test_cost(void **state) {
        _cleanup_strbuf_ struct strbuf c = STRBUF_INIT;
        candidate(&c, "PartitionName=p MaxTime=60");
        enum { N = 50 };
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < N; i++)
                assert_int_equal(slurm_conf_check(c.buf, c.len, NULL), 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = ((double) (b.tv_sec - a.tv_sec) * 1e3 + (double) (b.tv_nsec - a.tv_nsec) / 1e6) / N;
        print_message("slurm_conf_check: %.2f ms per check (mean of %d, template + one partition)\n", ms, N);
        assert_true(ms < 1000);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_accepts_template),
                cmocka_unit_test(test_refuses_with_slurms_words),
                cmocka_unit_test(test_plugins),
                cmocka_unit_test(test_log_of_accepted),
                cmocka_unit_test(test_timeout),
                cmocka_unit_test(test_cost),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
