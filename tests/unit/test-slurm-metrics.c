/* SPDX-License-Identifier: Apache-2.0 */
/* slurm/metrics.h: the render of a snapshot (counts as Slurm 25.11 counts them, labels escaped,
 * a well-formed exposition), the reason and RPC tables. The collection itself meets a real
 * slurmctld in tests/cluster/charm-metrics.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <slurm/slurm.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "slurm/metrics.h"
#include "util/alloc.h"
#include "util/strv.h"
#include "proc/proc.h"

static char **parts(const char *a, const char *b) {
        struct strv v = STRV_INIT;
        if (a)
                strv_push(&v, a);
        if (b)
                strv_push(&v, b);
        return v.n ? strv_detach(&v) : (strv_clear(&v), NULL);
}

static void add_node(struct metrics_snapshot *s, const char *name, uint32_t state, uint16_t cpus, uint16_t alloc,
        const char *p1, const char *p2) {
        s->nodes = xrealloc(s->nodes, (s->n_nodes + 1) * sizeof(*s->nodes));
        s->nodes[s->n_nodes++] = (struct metrics_node){
                .name = xstrdup(name),
                .state = state,
                .cpus = cpus,
                .alloc_cpus = alloc,
                .memory_mb = 1024,
                .alloc_memory_mb = alloc * 100,
                .free_memory_mb = UINT64_MAX,
                .partitions = parts(p1, p2),
        };
}

static void add_job(struct metrics_snapshot *s, uint32_t state, uint16_t reason, const char *part, const char *user,
        const char *acct, uint32_t cpus, uint32_t tasks) {
        s->jobs = xrealloc(s->jobs, (s->n_jobs + 1) * sizeof(*s->jobs));
        s->jobs[s->n_jobs++] = (struct metrics_job){
                .state = state,
                .reason = reason,
                .partition = part ? xstrdup(part) : NULL,
                .user = xstrdup(user),
                .account = acct ? xstrdup(acct) : NULL,
                .cpus = cpus,
                .nodes = (state & JOB_STATE_BASE) == JOB_RUNNING ? 1 : 0,
                .memory_mb = (state & JOB_STATE_BASE) == JOB_RUNNING ? 500 : 0,
                .tasks = tasks,
        };
}

static void add_part(struct metrics_snapshot *s, const char *name, uint32_t cpus, uint32_t nodes) {
        s->parts = xrealloc(s->parts, (s->n_parts + 1) * sizeof(*s->parts));
        s->parts[s->n_parts++] = (struct metrics_partition){ .name = xstrdup(name), .total_cpus = cpus, .total_nodes = nodes };
}

/* The value of the sample line that starts with "NAME " or "NAME{...} " exactly; -1 when absent. */
static double value_of(const char *text, const char *sample) {
        size_t n = strlen(sample);
        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
                if (strncmp(p, sample, n) == 0 && p[n] == ' ')
                        return strtod(p + n + 1, NULL);
        }
        return -1;
}

/* Every sample's family has one HELP and one TYPE before its samples, and a family's samples
 * are together (what Prometheus' text parser requires); every line is a comment or a sample. */
static void assert_well_formed(const char *text) {
        struct strv typed = STRV_INIT;
        char last[256] = "";
        const char *p = text;
        while (*p) {
                const char *nl = strchr(p, '\n');
                assert_non_null(nl);
                _cleanup_free_ char *line = xstrndup(p, (size_t) (nl - p));
                p = nl + 1;
                if (strncmp(line, "# HELP ", 7) == 0)
                        continue;
                if (strncmp(line, "# TYPE ", 7) == 0) {
                        char name[256];
                        assert_int_equal(sscanf(line + 7, "%255s", name), 1);
                        assert_false(strv_contains(&typed, name)); /* one TYPE per family */
                        strv_push(&typed, name);
                        snprintf(last, sizeof(last), "%s", name);
                        continue;
                }
                size_t k = strcspn(line, "{ ");
                assert_true(k > 0);
                _cleanup_free_ char *name = xstrndup(line, k);
                assert_string_equal(name, last); /* under its own family's TYPE */
                const char *sp = strrchr(line, ' ');
                assert_non_null(sp);
                char *end;
                (void) strtod(sp + 1, &end);
                assert_true(*end == '\0');
        }
        strv_clear(&typed);
}

static void test_nodes(void **state) {
        struct metrics_snapshot s = { .cluster = true };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        add_node(&s, "cpu-0", NODE_STATE_IDLE, 4, 0, "cpu", NULL);
        add_node(&s, "cpu-1", NODE_STATE_MIXED, 4, 2, "cpu", NULL);
        add_node(&s, "cpu-2", NODE_STATE_ALLOCATED, 4, 4, "cpu", "all");
        add_node(&s, "cpu-3", NODE_STATE_IDLE | NODE_STATE_DRAIN, 4, 0, "cpu", NULL);   /* drained */
        add_node(&s, "cpu-4", NODE_STATE_MIXED | NODE_STATE_DRAIN, 4, 1, "cpu", NULL);  /* draining */
        add_node(&s, "big-0", NODE_STATE_DOWN | NODE_STATE_NO_RESPOND, 8, 0, "big", NULL);
        add_node(&s, "big-1", NODE_STATE_FUTURE | NODE_STATE_DYNAMIC_FUTURE, 8, 0, "big", NULL);
        /* 22.05 reports a node with some CPUs allocated as ALLOCATED: mixed by its CPUs */
        add_node(&s, "big-2", NODE_STATE_ALLOCATED | NODE_STATE_DYNAMIC_NORM, 8, 3, "big", NULL);
        add_part(&s, "cpu", 20, 5);
        add_part(&s, "big", 24, 3);
        add_part(&s, "all", 4, 1);
        add_part(&s, "empty", 0, 0);
        metrics_render(&s, &out);
        const char *t = out.buf;
        assert_well_formed(t);
        assert_true(value_of(t, "slurm_nodes") == 8);
        assert_true(value_of(t, "slurm_nodes_idle") == 2);
        assert_true(value_of(t, "slurm_nodes_mixed") == 3);
        assert_true(value_of(t, "slurm_nodes_alloc") == 1);
        assert_true(value_of(t, "slurm_nodes_down") == 1);
        assert_true(value_of(t, "slurm_nodes_future") == 1);
        assert_true(value_of(t, "slurm_nodes_drain") == 1);
        assert_true(value_of(t, "slurm_nodes_drained") == 1);
        assert_true(value_of(t, "slurm_nodes_draining") == 1);
        assert_true(value_of(t, "slurm_nodes_noresp") == 1);
        assert_true(value_of(t, "slurm_nodes_dyn_future") == 1);
        assert_true(value_of(t, "slurm_nodes_dyn_normal") == 1);
        assert_true(value_of(t, "slurm_nodes_cpus") == 44);
        assert_true(value_of(t, "slurm_nodes_cpus_alloc") == 10);
        assert_true(value_of(t, "slurm_nodes_cpus_idle") == 34);
        assert_true(value_of(t, "slurm_nodes_memory_bytes") == 8.0 * 1024 * 1024 * 1024);
        assert_true(value_of(t, "slurm_node_cpus_alloc{node=\"cpu-1\"}") == 2);
        assert_true(value_of(t, "slurm_node_cpus_idle{node=\"cpu-1\"}") == 2);
        assert_true(value_of(t, "slurm_node_memory_alloc_bytes{node=\"cpu-2\"}") == 400.0 * 1024 * 1024);
        /* free memory unknown: no sample rather than a false 0 */
        assert_true(value_of(t, "slurm_node_memory_free_bytes{node=\"cpu-0\"}") == -1);
        assert_true(value_of(t, "slurm_node_up{node=\"cpu-0\"}") == 1);
        assert_true(value_of(t, "slurm_node_up{node=\"cpu-1\"}") == 1);
        assert_true(value_of(t, "slurm_node_up{node=\"cpu-3\"}") == 0);
        assert_true(value_of(t, "slurm_node_up{node=\"big-0\"}") == 0);
        assert_true(value_of(t, "slurm_node_up{node=\"big-1\"}") == 0);
        /* partitions, a node in two; an empty partition still has its zeros */
        assert_true(value_of(t, "slurm_partitions") == 4);
        assert_true(value_of(t, "slurm_partition_nodes{partition=\"cpu\"}") == 5);
        assert_true(value_of(t, "slurm_partition_nodes{partition=\"all\"}") == 1);
        assert_true(value_of(t, "slurm_partition_nodes_alloc{partition=\"all\"}") == 1);
        assert_true(value_of(t, "slurm_partition_nodes_draining{partition=\"cpu\"}") == 1);
        assert_true(value_of(t, "slurm_partition_nodes_mixed{partition=\"big\"}") == 1);
        assert_true(value_of(t, "slurm_partition_nodes{partition=\"empty\"}") == 0);
        assert_true(value_of(t, "slurm_partition_cpus{partition=\"big\"}") == 24);
        metrics_snapshot_done(&s);
}

static void test_jobs(void **state) {
        struct metrics_snapshot s = { .cluster = true };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        add_part(&s, "cpu", 8, 2);
        add_part(&s, "big", 8, 1);
        add_job(&s, JOB_RUNNING, WAIT_NO_REASON, "cpu", "alice", "physics", 2, 1);
        add_job(&s, JOB_RUNNING | JOB_COMPLETING, WAIT_NO_REASON, "cpu", "bob", "physics", 1, 1);
        add_job(&s, JOB_PENDING, WAIT_RESOURCES, "cpu", "alice", "physics", 1, 1);
        /* an array's pending record: 9 tasks ("1-3,5,7-15:2%4") */
        add_job(&s, JOB_PENDING, WAIT_PRIORITY, "big", "alice", NULL, 1, 9);
        add_job(&s, JOB_PENDING, WAIT_HELD_USER, "big", "bob", "chem", 1, 1);
        add_job(&s, JOB_PENDING, WAIT_DEP_INVALID, "cpu", "bob", "chem", 1, 1);
        add_job(&s, JOB_COMPLETE, WAIT_NO_REASON, "cpu", "carol", "chem", 1, 1);
        add_job(&s, JOB_CANCELLED, WAIT_NO_REASON, NULL, "carol", NULL, 1, 1);
        add_job(&s, JOB_OOM, WAIT_NO_REASON, "big", "carol", NULL, 1, 1);
        metrics_render(&s, &out);
        const char *t = out.buf;
        assert_well_formed(t);
        assert_true(value_of(t, "slurm_jobs") == 9);
        assert_true(value_of(t, "slurm_jobs_running") == 2);
        assert_true(value_of(t, "slurm_jobs_pending") == 12);
        assert_true(value_of(t, "slurm_jobs_hold") == 1);
        assert_true(value_of(t, "slurm_jobs_completing") == 1);
        assert_true(value_of(t, "slurm_jobs_completed") == 1);
        assert_true(value_of(t, "slurm_jobs_cancelled") == 1);
        assert_true(value_of(t, "slurm_jobs_outofmemory") == 1);
        assert_true(value_of(t, "slurm_jobs_cpus_alloc") == 3);
        assert_true(value_of(t, "slurm_jobs_nodes_alloc") == 2);
        assert_true(value_of(t, "slurm_jobs_memory_alloc") == 1000.0 * 1024 * 1024);
        assert_true(value_of(t, "slurm_jobs_pending_blocked") == 2);
        assert_true(value_of(t, "slurm_jobs_pending_reason{reason=\"Resources\"}") == 1);
        assert_true(value_of(t, "slurm_jobs_pending_reason{reason=\"Priority\"}") == 9);
        assert_true(value_of(t, "slurm_partition_jobs_pending{partition=\"big\"}") == 10);
        assert_true(value_of(t, "slurm_partition_jobs_running{partition=\"cpu\"}") == 2);
        assert_true(value_of(t, "slurm_partition_jobs_cpus_alloc{partition=\"cpu\"}") == 3);
        assert_true(value_of(t, "slurm_user_jobs_pending{username=\"alice\"}") == 10);
        assert_true(value_of(t, "slurm_user_jobs_running{username=\"bob\"}") == 1);
        assert_true(value_of(t, "slurm_user_jobs{username=\"carol\"}") == 3);
        assert_true(value_of(t, "slurm_account_jobs_pending{account=\"chem\"}") == 2);
        assert_true(value_of(t, "slurm_account_jobs{account=\"physics\"}") == 3);
        metrics_snapshot_done(&s);
}

static void test_labels(void **state) {
        struct metrics_snapshot s = { .cluster = true };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        add_job(&s, JOB_PENDING, WAIT_PRIORITY, NULL, "we\"ird\\na\nme", NULL, 1, 1);
        /* not UTF-8: the byte in hex after a backslash; a backslash of the name doubled, so
         * that the two stay apart */
        add_job(&s, JOB_PENDING, WAIT_PRIORITY, NULL, "ok\xc3\xa9\xff tail", NULL, 1, 1);
        add_job(&s, JOB_PENDING, WAIT_PRIORITY, NULL, "ok\xc3\xa9\\xff tail", NULL, 1, 1);
        /* long values cut at a whole character, each with its own hash */
        char longname[400], longname2[400];
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        longname[METRICS_LABEL_MAX - 10] = '\xc3'; /* a 2-byte character across the cut */
        longname[METRICS_LABEL_MAX - 9] = '\xa9';
        memcpy(longname2, longname, sizeof(longname));
        longname2[sizeof(longname2) - 2] = 'y';
        add_job(&s, JOB_PENDING, WAIT_PRIORITY, NULL, longname, NULL, 1, 1);
        add_job(&s, JOB_PENDING, WAIT_PRIORITY, NULL, longname2, NULL, 1, 1);
        metrics_render(&s, &out);
        assert_well_formed(out.buf);
        assert_true(value_of(out.buf, "slurm_user_jobs_pending{username=\"we\\\"ird\\\\\\\\na\\nme\"}") == 1);
        assert_true(value_of(out.buf, "slurm_user_jobs_pending{username=\"ok\xc3\xa9\\\\xff tail\"}") == 1);
        assert_true(value_of(out.buf, "slurm_user_jobs_pending{username=\"ok\xc3\xa9\\\\\\\\xff tail\"}") == 1);
        for (int w = 0; w < 2; w++) {
                const char *name = w ? longname2 : longname;
                uint32_t h = 2166136261u;
                for (size_t i = 0; name[i]; i++)
                        h = (h ^ (unsigned char) name[i]) * 16777619u;
                char want[300];
                snprintf(want, sizeof(want), "slurm_user_jobs_pending{username=\"%.*s~%08x\"}", METRICS_LABEL_MAX - 10,
                        name, h);
                assert_true(value_of(out.buf, want) == 1);
        }
        metrics_snapshot_done(&s);
}

static void test_sched_ctl_errors(void **state) {
        struct metrics_snapshot s = { .cluster = true };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        s.sched = (struct metrics_sched){ .valid = true, .dbd_agent_queue_size = 17, .bf_backfilled_jobs = 5 };
        s.sched.rpc_types = xcalloc(1, sizeof(*s.sched.rpc_types));
        s.sched.rpc_types[0] = (struct metrics_rpc){ .name = xstrdup("REQUEST_NODE_INFO"), .count = 3, .time_us = 1500000 };
        s.sched.n_rpc_types = 1;
        s.ctls = xcalloc(2, sizeof(*s.ctls));
        s.ctls[0] = (struct metrics_controller){ .host = xstrdup("ctl-0"), .up = false };
        s.ctls[1] = (struct metrics_controller){ .host = xstrdup("ctl-1"), .index = 1, .up = true, .in_charge = true };
        s.n_ctls = 2;
        s.error_jobs = xstrdup("load jobs: Unable to contact slurm controller");
        s.rpcs = 6;
        s.dbd = METRICS_DBD_DOWN;
        metrics_render(&s, &out);
        const char *t = out.buf;
        assert_true(value_of(t, "slurm_dbd_up") == 0);
        assert_well_formed(t);
        assert_true(value_of(t, "slurm_dbd_agent_queue_size") == 17);
        assert_true(value_of(t, "slurm_backfilled_jobs") == 5);
        assert_true(value_of(t, "slurm_rpc_type_calls_total{type=\"REQUEST_NODE_INFO\"}") == 3);
        assert_true(value_of(t, "slurm_rpc_type_seconds_total{type=\"REQUEST_NODE_INFO\"}") == 1.5);
        assert_true(value_of(t, "slurm_controller_up{host=\"ctl-0\"}") == 0);
        assert_true(value_of(t, "slurm_controller_in_charge{host=\"ctl-1\"}") == 1);
        /* who is in charge, told: only that host; none known: none */
        metrics_in_charge_set(&s, "ctl-0");
        assert_true(s.ctls[0].in_charge && !s.ctls[1].in_charge);
        metrics_in_charge_set(&s, "");
        assert_true(!s.ctls[0].in_charge && !s.ctls[1].in_charge);
        metrics_in_charge_set(&s, NULL);
        assert_true(!s.ctls[0].in_charge && !s.ctls[1].in_charge);
        assert_true(value_of(t, "slurm_scrape_rpcs") == 6);
        /* a part that failed: its families are missing, said in slurm_scrape_error */
        assert_true(value_of(t, "slurm_scrape_error{what=\"jobs\"}") == 1);
        assert_true(value_of(t, "slurm_scrape_error{what=\"nodes\"}") == 0);
        assert_true(value_of(t, "slurm_jobs_running") == -1);
        assert_true(value_of(t, "slurm_nodes") == 0);
        metrics_snapshot_done(&s);
        /* a standby's exporter: controllers and the scrape only */
        s = (struct metrics_snapshot){ .cluster = false };
        strbuf_reset(&out);
        metrics_render(&s, &out);
        assert_well_formed(out.buf);
        assert_true(value_of(out.buf, "slurm_nodes") == -1);
        assert_true(value_of(out.buf, "slurm_scrape_rpcs") == 0);
        assert_true(value_of(out.buf, "slurm_dbd_up") == -1); /* not configured, or not told */
        s.dbd = METRICS_DBD_UP;
        strbuf_reset(&out);
        metrics_render(&s, &out);
        assert_true(value_of(out.buf, "slurm_dbd_up") == 1);
        /* the pings alone (the tables timed out): every part failed, a failure already known kept */
        s = (struct metrics_snapshot){ .cluster = false };
        s.ctls = xcalloc(1, sizeof(*s.ctls));
        s.ctls[0] = (struct metrics_controller){ .host = xstrdup("ctl-0"), .up = true, .in_charge = true };
        s.n_ctls = 1;
        s.error_jobs = xstrdup("earlier");
        metrics_parts_failed(&s, "the collection took more than 6000 ms");
        assert_true(s.cluster);
        assert_string_equal(s.error_jobs, "earlier");
        assert_string_equal(s.error_stats, "the collection took more than 6000 ms");
        strbuf_reset(&out);
        metrics_render(&s, &out);
        assert_well_formed(out.buf);
        static const char *const what[] = { "nodes", "jobs", "partitions", "statistics" };
        for (size_t i = 0; i < ELEMENTSOF(what); i++) {
                char sample[64];
                snprintf(sample, sizeof(sample), "slurm_scrape_error{what=\"%s\"}", what[i]);
                assert_true(value_of(out.buf, sample) == 1);
        }
        assert_true(value_of(out.buf, "slurm_controller_up{host=\"ctl-0\"}") == 1);
        assert_true(value_of(out.buf, "slurm_nodes") == -1);
        assert_true(value_of(out.buf, "slurm_server_thread_cnt") == -1);
        metrics_snapshot_done(&s);
}

static void test_text_in_charge(void **state) {
        _cleanup_strbuf_ struct strbuf h = STRBUF_INIT;
        static const char t1[] = "# HELP x\nslurm_controller_in_charge{host=\"ctl-0\"} 0\n"
                                 "slurm_controller_in_charge{host=\"ctl-1\"} 1\nslurm_nodes 2\n";
        assert_true(metrics_text_in_charge(t1, sizeof(t1) - 1, &h));
        assert_string_equal(h.buf, "ctl-1");
        /* escaped quotes in the label; the last line without its newline */
        static const char t2[] = "slurm_controller_in_charge{host=\"a\\\"b\"} 1";
        assert_true(metrics_text_in_charge(t2, sizeof(t2) - 1, &h));
        assert_string_equal(h.buf, "a\\\"b");
        /* none in charge; other samples that look alike; a cut line */
        static const char *const none[] = {
                "slurm_controller_in_charge{host=\"ctl-0\"} 0\n",
                "slurm_controller_in_charge_x{host=\"ctl-0\"} 1\n",
                "slurm_controller_in_charge{host=\"ctl-0\"} 10\n",
                "slurm_controller_in_charge{host=\"ctl-0",
                "",
        };
        for (size_t i = 0; i < ELEMENTSOF(none); i++)
                assert_false(metrics_text_in_charge(none[i], strlen(none[i]), &h));
        strbuf_reset(&h);
        metrics_render_failovers(3, &h);
        assert_well_formed(h.buf);
        assert_true(value_of(h.buf, "slurm_controller_failovers_total") == 3);
}

/* Prometheus' own linter takes a full exposition (every family, labels of every kind) */
static void test_promtool(void **state) {
        struct metrics_snapshot s = { .cluster = true };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        add_node(&s, "cpu-0", NODE_STATE_MIXED, 4, 2, "cpu", NULL);
        add_part(&s, "cpu", 4, 1);
        add_job(&s, JOB_RUNNING, WAIT_NO_REASON, "cpu", "alice", "physics", 2, 1);
        add_job(&s, JOB_PENDING, WAIT_HELD, "cpu", "bob", "chem", 1, 1);
        s.sched = (struct metrics_sched){ .valid = true };
        s.sched.rpc_types = xcalloc(1, sizeof(*s.sched.rpc_types));
        s.sched.rpc_types[0] = (struct metrics_rpc){ .name = xstrdup("REQUEST_PING"), .count = 1, .time_us = 10 };
        s.sched.n_rpc_types = 1;
        s.sched.rpc_users = xcalloc(1, sizeof(*s.sched.rpc_users));
        s.sched.rpc_users[0] = (struct metrics_rpc){ .name = xstrdup("root"), .count = 1, .time_us = 10 };
        s.sched.n_rpc_users = 1;
        s.ctls = xcalloc(1, sizeof(*s.ctls));
        s.ctls[0] = (struct metrics_controller){ .host = xstrdup("ctl-0"), .up = true, .in_charge = true };
        s.n_ctls = 1;
        metrics_render(&s, &out);
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_pushl(&p.argv, "promtool", "check", "metrics", NULL);
        p.in = out.buf;
        p.in_len = out.len;
        p.capture_out = p.capture_err = true;
        p.timeout_ms = 60000;
        int r = proc_run(&p);
        if (r != 0)
                print_error("promtool check metrics: %d\n%s%s\n", r, p.out.buf, p.err.buf);
        assert_int_equal(r, 0);
        metrics_snapshot_done(&s);
}

static void test_tables(void **state) {
        assert_string_equal(metrics_rpc_name(2007), "REQUEST_NODE_INFO");
        assert_string_equal(metrics_rpc_name(1008), "REQUEST_PING");
        assert_string_equal(metrics_rpc_name(4003), "REQUEST_SUBMIT_BATCH_JOB");
        assert_null(metrics_rpc_name(0));
        assert_null(metrics_rpc_name(65535));
        assert_true(metrics_reason_blocked(WAIT_HELD));
        assert_true(metrics_reason_blocked(WAIT_DEP_INVALID));
        assert_true(metrics_reason_blocked(WAIT_PART_TIME_LIMIT));
        assert_false(metrics_reason_blocked(WAIT_RESOURCES));
        assert_false(metrics_reason_blocked(WAIT_PRIORITY));
        assert_false(metrics_reason_blocked(WAIT_DEPENDENCY));
        assert_int_equal(metrics_array_tasks("1-3,5,7-15:2%4"), 9);
        assert_int_equal(metrics_array_tasks("0-99"), 100);
        assert_int_equal(metrics_array_tasks("7"), 1);
        assert_int_equal(metrics_array_tasks(NULL), 1);
        assert_int_equal(metrics_array_tasks("3-1"), 1);
        assert_int_equal(metrics_array_tasks("1-x"), 1);
        assert_int_equal(metrics_array_tasks("1-9:0"), 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nodes),
                cmocka_unit_test(test_jobs),
                cmocka_unit_test(test_labels),
                cmocka_unit_test(test_sched_ctl_errors),
                cmocka_unit_test(test_text_in_charge),
                cmocka_unit_test(test_promtool),
                cmocka_unit_test(test_tables),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
