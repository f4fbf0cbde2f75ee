/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/events: state classes, the difference of two snapshots as events,
 * trigger sources and transients, record format, and the files (commit, crash recovery,
 * partial lines, rotation that never reuses a seq, reading pages, lock, a corrupt snapshot). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/events.h"
#include "util/fileio.h"

#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "evwaiter.h"

#include "util/banned.h"

#define IDLE NODE_STATE_IDLE
#define ALLOC NODE_STATE_ALLOCATED
#define DOWN NODE_STATE_DOWN
#define DRAIN NODE_STATE_DRAIN
#define DYN NODE_STATE_DYNAMIC_NORM
#define T0 1700000000000LL /* ms */

/* --- helpers ------------------------------------------------------------------------------------- */

struct row {
        const char *name;
        uint32_t state;
        const char *reason;
};

static void table_rows(struct ev_table *t, const struct row *r, size_t n) {
        ev_table_done(t);
        for (size_t i = 0; i < n; i++)
                ev_table_add(t, r[i].name, r[i].state, r[i].reason, T0 / 1000, 1000);
}
#define TABLE(t, ...)                                    \
        do {                                             \
                const struct row r_[] = { __VA_ARGS__ }; \
                table_rows(&(t), r_, ELEMENTSOF(r_));    \
        } while (0)

/* A step: prev → next with the table (NULL: unchanged) and hints; prev becomes next; the
 * records are returned as "event:node:source[:transient][:inferred]" lines in ret. */
struct hist {
        struct ev_state s;
        int64_t now;
};

static void hist_init(struct hist *h) {
        *h = (struct hist){ .s = { .next_seq = 1, .log_id = "0badc0de" }, .now = T0 };
}

static int step(struct hist *h, const struct ev_table *t, const struct ev_hint *hints, size_t n_hints,
        struct strv *ret) {
        struct ev_state next;
        struct ev_records recs;
        struct ev_observation obs = {
                .table = t,
                .table_time = h->now / 1000,
                .hints = hints,
                .n_hints = n_hints,
                .cause = "test",
                .now_ms = h->now,
        };
        int r = ev_step(&h->s, &obs, &next, &recs);
        strv_clear(ret);
        for (size_t i = 0; i < recs.n; i++) {
                assert_int_equal(recs.v[i].seq, h->s.next_seq + i);
                strv_pushf(ret, "%s:%s:%s%s%s", ev_kind_name(recs.v[i].kind), strempty(recs.v[i].node),
                        recs.v[i].from_trigger ? "trigger" : "reconcile",
                        recs.v[i].transient ? ":transient" : "", recs.v[i].inferred ? ":inferred" : "");
        }
        assert_int_equal(next.next_seq, h->s.next_seq + recs.n);
        if (recs.n > 0)
                assert_int_equal(next.pending.n, recs.n);
        ev_records_done(&recs);
        ev_state_done(&h->s);
        h->s = next;
        h->now += 1000;
        return r;
}

static void assert_strv(const struct strv *got, const char *const *want, size_t n) {
        _cleanup_free_ char *j = strv_join(got, " | ");
        if (got->n != n)
                fail_msg("got %zu records: %s", got->n, j);
        for (size_t i = 0; i < n; i++)
                if (!streq(got->v[i], want[i]))
                        fail_msg("record %zu: got \"%s\", want \"%s\" (all: %s)", i, got->v[i], want[i], j);
}
#define ASSERT_RECORDS(got, ...)                          \
        do {                                              \
                const char *const w_[] = { __VA_ARGS__ }; \
                assert_strv(got, w_, ELEMENTSOF(w_));     \
        } while (0)
#define ASSERT_NONE(got) assert_int_equal((got)->n, 0)

static void hint(struct ev_hint *h, enum ev_hint_kind k, int64_t t, const char *nodes) {
        *h = (struct ev_hint){ .kind = k, .time_ms = t, .nodes = STRV_INIT };
        if (nodes) {
                _cleanup_free_ char *copy = xstrdup(nodes);
                for (char *s = copy, *save = NULL, *tok; (tok = strtok_r(s, ",", &save)); s = NULL)
                        strv_push(&h->nodes, tok);
        }
}

static char *tmpdir(void) {
        char tmpl[] = "/tmp/test-events.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        return xstrdup(tmpl);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void rm_rf(const char *dir) {
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- pure ---------------------------------------------------------------------------------------- */

static void test_names(void **state) {
        enum ev_hint_kind k;
        assert_string_equal(ev_kind_name(EV_SLURMCTLD_STARTED), "slurmctld-started");
        assert_string_equal(ev_kind_name(EV_CONTROL_MOVED), "control-moved");
        assert_null(ev_kind_name(EV_KIND_MAX));
        assert_int_equal(ev_hint_parse("drained", &k), 0);
        assert_int_equal(k, EV_HINT_DRAINED);
        assert_int_equal(ev_hint_parse("fail", &k), -EINVAL);
        assert_int_equal(ev_hint_parse(NULL, &k), -EINVAL);
        assert_string_equal(ev_hint_name(EV_HINT_SLURMCTLD), "slurmctld");
}

static void test_classes(void **state) {
        assert_int_equal(ev_state_class(IDLE | DYN), 0);
        assert_int_equal(ev_state_class(ALLOC), 0); /* busy counts only with a drain */
        assert_int_equal(ev_state_class(DOWN | DYN), EV_CLS_DOWN);
        assert_int_equal(ev_state_class(IDLE | DRAIN), EV_CLS_DRAIN);
        assert_int_equal(ev_state_class(IDLE | NODE_STATE_FAIL), EV_CLS_DRAIN);
        assert_int_equal(ev_state_class(ALLOC | DRAIN), EV_CLS_DRAIN | EV_CLS_BUSY);
        assert_int_equal(ev_state_class(NODE_STATE_MIXED | DRAIN), EV_CLS_DRAIN | EV_CLS_BUSY);
        assert_int_equal(ev_state_class(IDLE | DRAIN | NODE_STATE_COMPLETING), EV_CLS_DRAIN | EV_CLS_BUSY);
        assert_int_equal(ev_state_class(DOWN | DRAIN), EV_CLS_DOWN | EV_CLS_DRAIN);
        assert_int_equal(ev_state_class(IDLE | NODE_STATE_NO_RESPOND), 0);
}

static void test_first_step_is_baseline(void **state) {
        struct hist h;
        _cleanup_strv_ struct strv got = STRV_INIT;
        struct ev_table t = { 0 };
        hist_init(&h);
        TABLE(t, { "a", IDLE | DYN, NULL }, { "b", DOWN, "disk" });
        assert_int_equal(step(&h, &t, NULL, 0, &got), 1); /* a snapshot to keep */
        ASSERT_NONE(&got);
        assert_true(h.s.exists);
        assert_int_equal(h.s.nodes.n, 2);
        /* the same table again: nothing to record and nothing to write */
        assert_int_equal(step(&h, &t, NULL, 0, &got), 0);
        ASSERT_NONE(&got);
        ev_table_done(&t);
        ev_state_done(&h.s);
}

/* A scripted life of four nodes, one change at a time. */
static void test_diff_sequence(void **state) {
        struct hist h;
        _cleanup_strv_ struct strv got = STRV_INIT;
        struct ev_table t = { 0 };
        hist_init(&h);
        TABLE(t, { "n1", IDLE, NULL }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_NONE(&got);

        /* drained (idle), then the reason changes, then resumed */
        TABLE(t, { "n1", IDLE | DRAIN, "maint" }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "drained:n1:reconcile");
        TABLE(t, { "n1", IDLE | DRAIN, "maint 2" }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "reason:n1:reconcile");
        TABLE(t, { "n1", IDLE, NULL }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "resumed:n1:reconcile");

        /* draining while a job runs, drained once it ends */
        TABLE(t, { "n1", ALLOC | DRAIN, "leaving" }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "draining:n1:reconcile");
        TABLE(t, { "n1", IDLE | DRAIN, "leaving" }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "drained:n1:reconcile");

        /* n2 down, then up; a job start on n2 (ALLOCATED) is no event */
        TABLE(t, { "n1", IDLE | DRAIN, "leaving" }, { "n2", DOWN, "gone" });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "down:n2:reconcile");
        TABLE(t, { "n1", IDLE | DRAIN, "leaving" }, { "n2", ALLOC, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "up:n2:reconcile");
        TABLE(t, { "n1", IDLE | DRAIN, "leaving" }, { "n2", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_NONE(&got);

        /* n1 removed, n3 added drained, n0 added: by name order */
        TABLE(t, { "n3", IDLE | DRAIN, "burn-in" }, { "n2", ALLOC, NULL }, { "n0", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "added:n0:reconcile", "removed:n1:reconcile", "added:n3:reconcile",
                "drained:n3:reconcile");
        /* down and drained at once: both */
        TABLE(t, { "n3", IDLE | DRAIN, "burn-in" }, { "n2", ALLOC, NULL }, { "n0", DOWN | DRAIN, "x" });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "down:n0:reconcile", "drained:n0:reconcile");
        /* a resume of DOWN+DRAIN: up and resumed */
        TABLE(t, { "n3", IDLE | DRAIN, "burn-in" }, { "n2", ALLOC, NULL }, { "n0", IDLE, NULL });
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "up:n0:reconcile", "resumed:n0:reconcile");
        /* duplicates in a table count once */
        TABLE(t, { "n3", IDLE | DRAIN, "burn-in" }, { "n2", ALLOC, NULL }, { "n0", IDLE, NULL },
                { "n0", DOWN, "dup" });
        step(&h, &t, NULL, 0, &got);
        ASSERT_NONE(&got);
        assert_int_equal(h.s.next_seq, 16);
        ev_table_done(&t);
        ev_state_done(&h.s);
}

static void test_rebooted_and_controller(void **state) {
        struct hist h;
        _cleanup_strv_ struct strv got = STRV_INIT;
        struct ev_table t = { 0 };
        struct ev_records recs;
        struct ev_state next;
        hist_init(&h);
        ev_table_add(&t, "n1", IDLE, NULL, 0, 5000);
        struct ev_observation obs = { .table = &t, .ctl_boot = 100, .cause = "x", .now_ms = T0 };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 1);
        assert_int_equal(recs.n, 0);
        ev_records_done(&recs);
        ev_state_done(&h.s);
        h.s = next;
        /* boot time within the slack: the same boot; beyond it: rebooted */
        t.v[0].boot_time = 5000 + EV_BOOT_SLACK_S;
        step(&h, &t, NULL, 0, &got);
        ASSERT_NONE(&got);
        t.v[0].boot_time = 9000;
        step(&h, &t, NULL, 0, &got);
        ASSERT_RECORDS(&got, "rebooted:n1:reconcile");

        /* the controller's boot time changes: one record, first, from the trigger if one said so */
        struct ev_hint hs[1];
        hint(&hs[0], EV_HINT_SLURMCTLD, T0, NULL);
        obs = (struct ev_observation){
                .table = NULL, .ctl_boot = 200, .hints = hs, .n_hints = 1, .now_ms = T0
        };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 1);
        assert_int_equal(recs.n, 1);
        assert_int_equal(recs.v[0].kind, EV_SLURMCTLD_STARTED);
        assert_true(recs.v[0].from_trigger);
        assert_int_equal(recs.v[0].boot_time, 200);
        assert_null(recs.v[0].controller); /* the trigger named no host */
        assert_int_equal(next.ctl_boot, 200);
        ev_records_done(&recs);
        ev_state_done(&h.s);
        h.s = next;
        /* a failover: the trigger ran on the host that took control, which the record names */
        struct ev_hint hs2[2];
        hint(&hs2[0], EV_HINT_SLURMCTLD, T0, NULL);
        hint(&hs2[1], EV_HINT_SLURMCTLD, T0 + 5, NULL);
        hs2[0].host = xstrdup("ctl-a");
        hs2[1].host = xstrdup("ctl-b");
        obs = (struct ev_observation){
                .table = NULL, .ctl_boot = 300, .hints = hs2, .n_hints = 2, .now_ms = T0 + 10
        };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 1);
        assert_int_equal(recs.n, 1);
        assert_string_equal(recs.v[0].controller, "ctl-b");
        {
                _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
                ev_record_format(&recs.v[0], "abcd0123", &line);
                assert_non_null(strstr(line.buf, "\"event\":\"slurmctld-started\""));
                assert_non_null(strstr(line.buf, "\"controller\":\"ctl-b\""));
        }
        ev_hint_done(&hs2[0]);
        ev_hint_done(&hs2[1]);
        ev_records_done(&recs);
        assert_string_equal(next.ctl_host, "ctl-b"); /* the first host learned: no control-moved */
        ev_state_done(&h.s);
        h.s = next;
        /* a restart and another host in charge (the charge mark, no trigger yet): both records */
        obs = (struct ev_observation){
                .table = NULL, .ctl_boot = 400, .ctl_host = "ctl-c", .ctl_host_ms = T0 + 20, .now_ms = T0 + 20
        };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 1);
        assert_int_equal(recs.n, 2);
        assert_int_equal(recs.v[0].kind, EV_SLURMCTLD_STARTED);
        assert_string_equal(recs.v[0].controller, "ctl-c");
        assert_int_equal(recs.v[1].kind, EV_CONTROL_MOVED);
        assert_string_equal(recs.v[1].controller, "ctl-c");
        assert_string_equal(recs.v[1].previous, "ctl-b");
        assert_false(recs.v[1].from_trigger);
        {
                _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
                ev_record_format(&recs.v[1], "abcd0123", &line);
                assert_non_null(strstr(line.buf,
                        "\"event\":\"control-moved\",\"source\":\"reconcile\""));
                assert_non_null(strstr(line.buf, "\"controller\":\"ctl-c\",\"previous-controller\":\"ctl-b\""));
        }
        ev_records_done(&recs);
        ev_state_done(&h.s);
        h.s = next;
        /* a failover whose backup keeps its boot time: control-moved alone, from the trigger;
         * the lost controller's last mark (older than that) never moves it back */
        struct ev_hint hs3[1];
        hint(&hs3[0], EV_HINT_SLURMCTLD, T0 + 40, NULL);
        hs3[0].host = xstrdup("ctl-d");
        obs = (struct ev_observation){ .table = NULL, .ctl_boot = 400, .ctl_host = "ctl-c",
                .ctl_host_ms = T0 + 30, .hints = hs3, .n_hints = 1, .now_ms = T0 + 41 };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 1);
        assert_int_equal(recs.n, 1);
        assert_int_equal(recs.v[0].kind, EV_CONTROL_MOVED);
        assert_string_equal(recs.v[0].controller, "ctl-d");
        assert_string_equal(recs.v[0].previous, "ctl-c");
        assert_true(recs.v[0].from_trigger);
        ev_hint_done(&hs3[0]);
        ev_records_done(&recs);
        ev_state_done(&h.s);
        h.s = next;
        obs = (struct ev_observation){
                .table = NULL, .ctl_boot = 400, .ctl_host = "ctl-c", .ctl_host_ms = T0 + 35, .now_ms = T0 + 50
        };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 0); /* stale: nothing, not even a commit */
        assert_int_equal(recs.n, 0);
        ev_state_done(&next);
        /* the same host renewing its mark: nothing */
        obs = (struct ev_observation){
                .table = NULL, .ctl_boot = 400, .ctl_host = "ctl-d", .ctl_host_ms = T0 + 60, .now_ms = T0 + 60
        };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 0);
        assert_int_equal(recs.n, 0);
        ev_records_done(&recs);
        ev_state_done(&h.s);
        h.s = next;
        /* unknown (0) keeps the last one: no record */
        obs = (struct ev_observation){ .table = NULL, .ctl_boot = 0, .now_ms = T0 };
        assert_int_equal(ev_step(&h.s, &obs, &next, &recs), 0);
        assert_int_equal(recs.n, 0);
        ev_records_done(&recs);
        ev_state_done(&next);
        ev_hint_done(&hs[0]);
        ev_table_done(&t);
        ev_state_done(&h.s);
}

static void test_trigger_sources_and_transients(void **state) {
        struct hist h;
        _cleanup_strv_ struct strv got = STRV_INIT;
        struct ev_table up = { 0 }, a_down = { 0 };
        struct ev_hint hs[3];
        hist_init(&h);
        ev_table_add(&up, "a", IDLE, NULL, 0, 0);
        ev_table_add(&up, "b", IDLE, NULL, 0, 0);
        ev_table_add(&a_down, "a", DOWN, "dead", 0, 0);
        ev_table_add(&a_down, "b", IDLE, NULL, 0, 0);
        step(&h, &up, NULL, 0, &got);
        h.now += EV_TRIGGER_WINDOW_MS; /* known long enough for a trigger's name to count */

        /* the down trigger names a: the difference's record has the trigger as source; a reconfig
         * trigger is only a cause */
        hint(&hs[0], EV_HINT_DOWN, h.now, "a");
        hint(&hs[1], EV_HINT_RECONFIG, h.now, NULL);
        step(&h, &a_down, hs, 2, &got);
        ASSERT_RECORDS(&got, "down:a:trigger");
        ev_hint_done(&hs[0]);
        ev_hint_done(&hs[1]);

        /* back up, seen by a reconcile first (update-status), the up trigger comes 10 s later:
         * recorded once */
        step(&h, &up, NULL, 0, &got);
        ASSERT_RECORDS(&got, "up:a:reconcile");
        hint(&hs[0], EV_HINT_UP, h.now + 10000, "a");
        step(&h, NULL, hs, 1, &got);
        ASSERT_NONE(&got);
        ev_hint_done(&hs[0]);

        /* down and back up between two steps: only the triggers saw it (transients, down
         * first since a was up; b is up again too, after a down of its own) */
        h.now += 60000;
        hint(&hs[0], EV_HINT_UP, h.now, "a,b");
        hint(&hs[1], EV_HINT_DOWN, h.now, "a");
        hint(&hs[2], EV_HINT_DOWN, h.now, "b");
        step(&h, &up, hs, 3, &got);
        ASSERT_RECORDS(&got, "down:a:trigger:transient", "up:a:trigger:transient",
                "down:b:trigger:transient", "up:b:trigger:transient");
        /* the same spool records again (the watcher died before removing them): nothing */
        step(&h, &up, hs, 3, &got);
        ASSERT_NONE(&got);
        for (int i = 0; i < 3; i++)
                ev_hint_done(&hs[i]);

        /* a was down: up then down again between two steps, the order follows */
        h.now += 60000;
        step(&h, &a_down, NULL, 0, &got);
        ASSERT_RECORDS(&got, "down:a:reconcile");
        h.now += 60000;
        hint(&hs[0], EV_HINT_DOWN, h.now, "a");
        hint(&hs[1], EV_HINT_UP, h.now, "a");
        step(&h, &a_down, hs, 2, &got);
        ASSERT_RECORDS(&got, "up:a:trigger:transient", "down:a:trigger:transient");
        ev_hint_done(&hs[0]);
        ev_hint_done(&hs[1]);

        /* one removed right after a drain: the drain goes before the removal; a name no
         * snapshot knew (a node that came and went, or slurmctld's index reuse) is no witness */
        h.now += 60000;
        hint(&hs[0], EV_HINT_DRAINED, h.now, "ghost,b");
        struct ev_table only_a = { 0 };
        ev_table_add(&only_a, "a", DOWN, "dead", 0, 0);
        step(&h, &only_a, hs, 1, &got);
        ASSERT_RECORDS(&got, "drained:b:trigger:transient", "removed:b:reconcile");
        ev_hint_done(&hs[0]);

        /* slurmctld 22.05 names pending bits by node index: b's slot taken by c before the
         * pass makes "drained c" out of b's drain; c is new (or too new): not believed */
        struct ev_table with_c = { 0 };
        ev_table_add(&with_c, "a", DOWN, "dead", 0, 0);
        ev_table_add(&with_c, "c", IDLE, NULL, 0, 0);
        hint(&hs[0], EV_HINT_DRAINED, h.now, "c");
        step(&h, &with_c, hs, 1, &got);
        ASSERT_RECORDS(&got, "added:c:reconcile");
        step(&h, &with_c, hs, 1, &got); /* known for less than the window */
        ASSERT_NONE(&got);
        ev_hint_done(&hs[0]);
        ev_table_done(&with_c);

        /* issue 29: a drain undone between two steps (Slurm has no resume trigger): the
         * transient drain is closed by an inferred resume, so the log ends where the node is */
        h.now += 60000;
        struct ev_table c_idle = { 0 };
        ev_table_add(&c_idle, "a", DOWN, "dead", 0, 0);
        ev_table_add(&c_idle, "c", IDLE, NULL, 0, 0);
        hint(&hs[0], EV_HINT_DRAINED, h.now, "c");
        step(&h, &c_idle, hs, 1, &got);
        ASSERT_RECORDS(&got, "drained:c:trigger:transient", "resumed:c:reconcile:transient:inferred");
        ev_hint_done(&hs[0]);
        /* a node drained before, resumed and drained again between two steps: the resume is
         * inferred before the transient drain (the first drain was recorded long before) */
        struct ev_table c_drained = { 0 };
        ev_table_add(&c_drained, "a", DOWN, "dead", 0, 0);
        ev_table_add(&c_drained, "c", IDLE | DRAIN, "maint", 0, 0);
        step(&h, &c_drained, NULL, 0, &got);
        ASSERT_RECORDS(&got, "drained:c:reconcile");
        h.now += 60000;
        hint(&hs[0], EV_HINT_DRAINED, h.now, "c");
        step(&h, &c_drained, hs, 1, &got);
        ASSERT_RECORDS(&got, "resumed:c:reconcile:transient:inferred", "drained:c:trigger:transient");
        ev_hint_done(&hs[0]);
        /* down, back up and down again between two steps, only the down trigger seen (the up
         * one lost): up inferred before the transient down, and the story ends down as c is */
        struct ev_table c_down = { 0 };
        ev_table_add(&c_down, "a", DOWN, "dead", 0, 0);
        ev_table_add(&c_down, "c", DOWN | DRAIN, "maint", 0, 0);
        step(&h, &c_down, NULL, 0, &got);
        ASSERT_RECORDS(&got, "down:c:reconcile");
        h.now += 60000;
        hint(&hs[0], EV_HINT_DOWN, h.now, "c");
        step(&h, &c_down, hs, 1, &got);
        ASSERT_RECORDS(&got, "up:c:reconcile:transient:inferred", "down:c:trigger:transient");
        ev_hint_done(&hs[0]);
        /* went up, then down again, between two steps with only the up trigger seen: the down
         * that ends the story is inferred; then resumed and up for real: no inference */
        h.now += 60000;
        hint(&hs[0], EV_HINT_UP, h.now, "c");
        step(&h, &c_down, hs, 1, &got);
        ASSERT_RECORDS(&got, "up:c:trigger:transient", "down:c:reconcile:transient:inferred");
        ev_hint_done(&hs[0]);
        step(&h, &c_idle, NULL, 0, &got);
        ASSERT_RECORDS(&got, "up:c:reconcile", "resumed:c:reconcile");
        /* a draining node down and up between two steps and drained now (its job ended): the
         * difference says drained while the flag stayed set, no resume is inferred (review E1) */
        struct ev_table c_alloc_drain = { 0 }, c_idle_drain = { 0 };
        ev_table_add(&c_alloc_drain, "a", DOWN, "dead", 0, 0);
        ev_table_add(&c_alloc_drain, "c", ALLOC | DRAIN, "maint", 0, 0);
        ev_table_add(&c_idle_drain, "a", DOWN, "dead", 0, 0);
        ev_table_add(&c_idle_drain, "c", IDLE | DRAIN, "maint", 0, 0);
        step(&h, &c_alloc_drain, NULL, 0, &got);
        ASSERT_RECORDS(&got, "draining:c:reconcile");
        h.now += 60000;
        hint(&hs[0], EV_HINT_DOWN, h.now, "c");
        hint(&hs[1], EV_HINT_UP, h.now, "c");
        step(&h, &c_idle_drain, hs, 2, &got);
        ASSERT_RECORDS(&got, "down:c:trigger:transient", "up:c:trigger:transient", "drained:c:reconcile");
        ev_hint_done(&hs[0]);
        ev_hint_done(&hs[1]);
        step(&h, &c_idle, NULL, 0, &got);
        ASSERT_RECORDS(&got, "resumed:c:reconcile");
        ev_table_done(&c_alloc_drain);
        ev_table_done(&c_idle_drain);
        ev_table_done(&c_down);
        ev_table_done(&c_drained);
        ev_table_done(&c_idle); /* (the same table as with_c: the next step goes on from it) */

        /* a hint of a drain the difference shows as drained: one record, from the trigger */
        struct ev_table a_drained = { 0 };
        ev_table_add(&a_drained, "a", DOWN | DRAIN, "dead", 0, 0);
        hint(&hs[0], EV_HINT_DRAINED, h.now, "a");
        step(&h, &a_drained, hs, 1, &got);
        ASSERT_RECORDS(&got, "drained:a:trigger", "removed:c:reconcile");
        ev_hint_done(&hs[0]);

        ev_table_done(&a_drained);
        ev_table_done(&only_a);
        ev_table_done(&up);
        ev_table_done(&a_down);
        ev_state_done(&h.s);
}

static void test_record_format(void **state) {
        _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
        struct ev_record r = {
                .seq = 12,
                .time_ms = 1767323045678LL, /* 2026-01-02T03:04:05.678Z */
                .kind = EV_DRAINED,
                .node = (char *) "compute-0",
                .state = IDLE | DRAIN | DYN,
                .has_state = true,
                .reason = (char *) "disk \"sda\"",
                .from_trigger = true,
                .cause = (char *) "trigger:drained,reconfig",
        };
        ev_record_format(&r, "3f9a1c20", &line);
        assert_string_equal(line.buf,
                "{\"seq\":12,\"id\":\"3f9a1c20-12\",\"time\":\"2026-01-02T03:04:05.678Z\",\"event\":"
                "\"drained\","
                "\"node\":\"compute-0\",\"state\":\"IDLE+DRAIN+DYNAMIC_NORM\",\"reason\":\"disk "
                "\\\"sda\\\"\","
                "\"source\":\"trigger\",\"cause\":\"trigger:drained,reconfig\"}");
        strbuf_reset(&line);
        r = (struct ev_record){ .seq = 3000000000ULL,
                .time_ms = 1767323045000LL,
                .kind = EV_SLURMCTLD_STARTED,
                .boot_time = 1767323040,
                .transient = false };
        ev_record_format(&r, "3f9a1c20", &line);
        assert_string_equal(line.buf,
                "{\"seq\":3000000000,\"id\":\"3f9a1c20-3000000000\",\"time\":\"2026-01-02T03:04:05.000Z\","
                "\"event\":\"slurmctld-started\",\"source\":\"reconcile\",\"boot-time\":\"2026-01-02T03:04:"
                "00.000Z\"}");
}

static void test_long_reason_cut(void **state) {
        struct ev_table t = { 0 };
        char big[EV_REASON_MAX + 50];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        /* a multibyte character straddling the cut is not split */
        memcpy(big + EV_REASON_MAX - 1, "\xc3\xa9", 2);
        ev_table_add(&t, "n", DOWN, big, 1, 1);
        assert_int_equal(strlen(t.v[0].reason), EV_REASON_MAX - 1);
        ev_table_done(&t);
}

/* --- files ----------------------------------------------------------------------------------------- */

/* One step on dir as the glue does it: load, step, commit. Returns the number of records. */
static int file_step(const char *dir, const struct ev_log_opts *o, const struct ev_table *t, int64_t now) {
        struct ev_state prev, next;
        struct ev_records recs;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(ev_state_load(dir, o, &prev, &err), 0);
        struct ev_observation obs = { .table = t, .cause = "test", .now_ms = now };
        int changed = ev_step(&prev, &obs, &next, &recs);
        if (changed)
                assert_int_equal(ev_commit(dir, o, &next, &err), (int) recs.n);
        int n = (int) recs.n;
        ev_records_done(&recs);
        ev_state_done(&prev);
        ev_state_done(&next);
        return n;
}

/* Flips node n0 between IDLE and DOWN: one record per call after the first. */
static int flip(const char *dir, const struct ev_log_opts *o, int i) {
        struct ev_table t = { 0 };
        ev_table_add(&t, "n0", i % 2 ? DOWN : IDLE, i % 2 ? "flip" : NULL, 0, 0);
        int n = file_step(dir, o, &t, T0 + i * 1000);
        ev_table_done(&t);
        return n;
}

static char *read_file(const char *dir, const char *name) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        char *data = NULL;
        if (read_full_file(p, &data, NULL) < 0)
                return NULL;
        return data;
}

static size_t count_lines(const char *s) {
        size_t n = 0;
        for (; s && *s; s++)
                n += *s == '\n';
        return n;
}

static void test_commit_and_read(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_page page;
        struct ev_held fd = EV_HELD_INIT;

        assert_int_equal(ev_lock(dir, 0, &fd, &err), 0);
        assert_int_equal(flip(dir, NULL, 0), 0); /* baseline */
        for (int i = 1; i <= 10; i++)
                assert_int_equal(flip(dir, NULL, i), 1);
        _cleanup_free_ char *log = read_file(dir, EV_LOG_FILE);
        assert_int_equal(count_lines(log), 10);
        assert_non_null(strstr(log, "{\"seq\":1,\"id\":\""));
        assert_non_null(
                strstr(log, "\"event\":\"down\",\"node\":\"n0\",\"state\":\"DOWN\",\"reason\":\"flip\""));
        struct stat st;
        _cleanup_free_ char *sp = xasprintf("%s/%s", dir, EV_STATE_FILE);
        assert_int_equal(stat(sp, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);

        /* the newest 3 without since; since=4 limit=3: 5..7, more; since=9: 10; since=10: none */
        assert_int_equal(ev_log_read(dir, false, 0, 3, 0, &page, &err), 3);
        assert_int_equal(page.first, 8);
        assert_int_equal(page.last, 10);
        assert_true(page.more);
        assert_int_equal(page.oldest, 1);
        assert_int_equal(page.latest, 10);
        ev_page_done(&page);
        assert_int_equal(ev_log_read(dir, true, 4, 3, 0, &page, &err), 3);
        assert_int_equal(page.first, 5);
        assert_int_equal(page.last, 7);
        assert_true(page.more);
        assert_int_equal(page.rotated_out, 0);
        assert_non_null(strstr(page.lines.v[0], "{\"seq\":5,"));
        ev_page_done(&page);
        assert_int_equal(ev_log_read(dir, true, 9, 100, 0, &page, &err), 1);
        assert_false(page.more);
        ev_page_done(&page);
        assert_int_equal(ev_log_read(dir, true, 10, 100, 0, &page, &err), 0);
        assert_int_equal(page.first, 0);
        ev_page_done(&page);
        /* a byte bound: whole records that fit (at least one), from either end */
        _cleanup_free_ char *all = read_file(dir, EV_LOG_FILE);
        size_t one = (size_t) (strchr(all, '\n') - all) + 1;
        assert_int_equal(ev_log_read(dir, true, 0, 100, 2 * one + 10, &page, &err), 2);
        assert_int_equal(page.last, 2);
        assert_true(page.more);
        ev_page_done(&page);
        assert_int_equal(ev_log_read(dir, true, 0, 100, 1, &page, &err), 1);
        ev_page_done(&page);
        assert_int_equal(ev_log_read(dir, false, 0, 100, 2 * one + 10, &page, &err), 2);
        assert_int_equal(page.first, 9);
        assert_true(page.more);
        ev_page_done(&page);
        ev_unlock(&fd);
        rm_rf(dir);
}

/* issue 29: an operator action's records go into the same sequence as the reconciles'
 * (one per node, source "action", who ran it), and the state change the action made is still
 * recorded by the next reconcile: the snapshot is not touched by a note. */
static void test_action_records(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_held fd = EV_HELD_INIT;
        assert_int_equal(ev_lock(dir, 0, &fd, &err), 0);
        assert_int_equal(flip(dir, NULL, 0), 0); /* baseline: n0 idle */

        char *nodes[] = { (char *) "n0", (char *) "n1" };
        const struct ev_note note = { .action = "node-drain",
                .by = "slurmctld/0 action 7",
                .nodes = nodes,
                .n_nodes = 2,
                .reason = "psu",
                .detail = NULL };
        struct ev_state s = { 0 };
        struct ev_records recs = { 0 };
        assert_int_equal(ev_state_load(dir, NULL, &s, &err), 0);
        uint64_t first = s.next_seq;
        assert_int_equal(ev_note_records(&s, &note, T0 + 500, &recs), 2);
        assert_int_equal(recs.n, 2);
        assert_int_equal(recs.v[0].seq, first);
        assert_int_equal(recs.v[1].seq, first + 1);
        assert_int_equal(recs.v[0].kind, EV_ACTION);
        assert_string_equal(recs.v[1].node, "n1");
        assert_int_equal(s.next_seq, first + 2);
        assert_int_equal(s.pending.n, 2);
        assert_true(ev_commit(dir, NULL, &s, &err) >= 0);
        ev_state_done(&s);
        ev_records_done(&recs);

        /* the drain itself: the next reconcile still sees n0 change (snapshot untouched) */
        assert_int_equal(flip(dir, NULL, 1), 1);
        _cleanup_free_ char *log = read_file(dir, EV_LOG_FILE);
        assert_int_equal(count_lines(log), 3);
        const char *a = strstr(log, "\"event\":\"action\",\"node\":\"n0\"");
        assert_non_null(a);
        assert_non_null(strstr(log, "\"reason\":\"psu\",\"source\":\"action\",\"action\":\"node-drain\","
                                    "\"by\":\"slurmctld/0 action 7\"}"));
        const char *d = strstr(log, "\"event\":\"down\",\"node\":\"n0\"");
        assert_non_null(d);
        assert_true(a < d); /* one sequence, in order */
        _cleanup_free_ char *seq3 = xasprintf("{\"seq\":%" PRIu64 ",", first + 2);
        assert_non_null(strstr(log, seq3));

        /* no nodes: one record without a node; long strings cut */
        char longr[EV_REASON_MAX + 50];
        memset(longr, 'r', sizeof longr - 1);
        longr[sizeof longr - 1] = '\0';
        const struct ev_note bare = { .action = "pause", .by = "x", .reason = longr, .detail = "d=1" };
        assert_int_equal(ev_state_load(dir, NULL, &s, &err), 0);
        assert_int_equal(ev_note_records(&s, &bare, T0 + 900, &recs), 1);
        assert_null(recs.v[0].node);
        assert_int_equal(strlen(recs.v[0].reason), EV_REASON_MAX);
        assert_string_equal(recs.v[0].detail, "d=1");
        assert_true(ev_commit(dir, NULL, &s, &err) >= 0);
        ev_state_done(&s);
        ev_records_done(&recs);
        free(log);
        log = read_file(dir, EV_LOG_FILE);
        assert_int_equal(count_lines(log), 4);
        assert_non_null(strstr(log, "\"detail\":\"d=1\""));
        ev_unlock(&fd);
        rm_rf(dir);
}

static void test_crash_recovery(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *logp = xasprintf("%s/%s", dir, EV_LOG_FILE);
        struct ev_page page;

        for (int i = 0; i <= 4; i++)
                flip(dir, NULL, i);
        /* the snapshot was written but the append never happened (killed in between): the log
         * loses its last line; the next load appends it from the snapshot, once */
        _cleanup_free_ char *log = read_file(dir, EV_LOG_FILE);
        char *last = log + strlen(log) - 1;
        while (last > log && last[-1] != '\n')
                last--;
        assert_int_equal(
                write_file_atomic(logp, log, (size_t) (last - log), 0600, (uid_t) -1, (gid_t) -1), 0);
        uint64_t seq;
        assert_int_equal(ev_log_last_seq(dir, &seq, &err), 0);
        assert_int_equal(seq, 3);
        assert_int_equal(flip(dir, NULL, 4), 0); /* no change: still, the pending record is back */
        assert_int_equal(ev_log_last_seq(dir, &seq, &err), 0);
        assert_int_equal(seq, 4);
        assert_int_equal(flip(dir, NULL, 5), 1);
        assert_int_equal(ev_log_read(dir, true, 0, 100, 0, &page, &err), 5);
        for (size_t i = 0; i < 5; i++) {
                _cleanup_free_ char *want = xasprintf("{\"seq\":%zu,", i + 1);
                assert_non_null(startswith(page.lines.v[i], want));
        }
        ev_page_done(&page);

        /* killed inside a write: a partial last line is not read, and cut by the next append */
        int fd = open(logp, O_WRONLY | O_APPEND);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "{\"seq\":6,\"id\":\"x", 16), 16);
        close(fd);
        assert_int_equal(ev_log_read(dir, true, 0, 100, 0, &page, &err), 5);
        ev_page_done(&page);
        assert_int_equal(flip(dir, NULL, 6), 1);
        _cleanup_free_ char *after = read_file(dir, EV_LOG_FILE);
        assert_int_equal(count_lines(after), 6);
        assert_null(strstr(after, "\"id\":\"x"));
        assert_int_equal(after[strlen(after) - 1], '\n');

        /* the snapshot lost (or corrupt): a new one, and the seq goes on after the log's last */
        _cleanup_free_ char *sp = xasprintf("%s/%s", dir, EV_STATE_FILE);
        assert_int_equal(write_file_atomic(sp, "{bad", 4, 0600, (uid_t) -1, (gid_t) -1), 0);
        struct ev_state s;
        assert_int_equal(ev_state_load(dir, NULL, &s, &err), 0);
        assert_false(s.exists);
        assert_int_equal(s.next_seq, 7);
        ev_state_done(&s);
        _cleanup_free_ char *bad = xasprintf("%s/%s.bad", dir, EV_STATE_FILE);
        assert_int_equal(access(bad, F_OK), 0);
        assert_int_equal(flip(dir, NULL, 7), 0); /* a new baseline */
        assert_int_equal(flip(dir, NULL, 8), 1);
        assert_int_equal(ev_log_last_seq(dir, &seq, &err), 0);
        assert_int_equal(seq, 7);
        rm_rf(dir);
}

/* The host in charge is kept in the snapshot (and an earlier snapshot without it loads). */
static void test_ctl_host_kept(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_state s, back;
        assert_int_equal(ev_state_load(dir, NULL, &s, &err), 0);
        assert_string_equal(s.ctl_host, "");
        s.exists = true;
        snprintf(s.ctl_host, sizeof(s.ctl_host), "%s", "ctl-x");
        s.ctl_host_ms = 1234567;
        assert_int_equal(ev_commit(dir, NULL, &s, &err), 0);
        assert_int_equal(ev_state_load(dir, NULL, &back, &err), 0);
        assert_string_equal(back.ctl_host, "ctl-x");
        assert_int_equal(back.ctl_host_ms, 1234567);
        ev_state_done(&back);
        ev_state_done(&s);
        rm_rf(dir);
}

/* issue 29: the compute units' actions recorded last, per unit and list: kept through a commit,
 * a reload and a reconcile step; moved last when set again; bounded */
static void test_unit_noted(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_state s, back, next;
        struct ev_records recs = { 0 };
        assert_int_equal(ev_state_load(dir, NULL, &s, &err), 0);
        s.exists = true;
        assert_int_equal(ev_unit_noted(&s, "cpu/0", "0123456789abcdef"), 0);
        ev_unit_noted_set(&s, "cpu/0", "0123456789abcdef", 3);
        ev_unit_noted_set(&s, "cpu/1", "0123456789abcdef", 9);
        ev_unit_noted_set(&s, "cpu/0", "fedcba9876543210", 1); /* a new list of a unit of the same name */
        ev_unit_noted_set(&s, "cpu/0", "0123456789abcdef", 4);
        assert_int_equal(s.unit_noted.n, 3);
        assert_string_equal(s.unit_noted.v[2], "cpu/0 0123456789abcdef 4");
        assert_int_equal(ev_commit(dir, NULL, &s, &err), 0);
        assert_int_equal(ev_state_load(dir, NULL, &back, &err), 0);
        assert_int_equal(ev_unit_noted(&back, "cpu/0", "0123456789abcdef"), 4);
        assert_int_equal(ev_unit_noted(&back, "cpu/0", "fedcba9876543210"), 1);
        assert_int_equal(ev_unit_noted(&back, "cpu/1", "0123456789abcdef"), 9);
        assert_int_equal(ev_unit_noted(&back, "cpu/", "0123456789abcdef"), 0); /* no prefix match */
        /* a reconcile's step keeps them (it builds the next snapshot afresh) */
        struct ev_table t = { 0 };
        struct ev_observation obs = { .table = &t, .table_time = 5, .cause = "test", .now_ms = 5000 };
        (void) ev_step(&back, &obs, &next, &recs);
        assert_int_equal(ev_unit_noted(&next, "cpu/1", "0123456789abcdef"), 9);
        ev_records_done(&recs);
        /* bounded: the entry moved longest ago goes first */
        for (int i = 0; i < EV_UNIT_NOTED_MAX + 2; i++) {
                char unit[32];
                snprintf(unit, sizeof unit, "x/%d", i);
                ev_unit_noted_set(&next, unit, "0123456789abcdef", 1);
        }
        assert_int_equal(next.unit_noted.n, EV_UNIT_NOTED_MAX);
        assert_int_equal(ev_unit_noted(&next, "cpu/1", "0123456789abcdef"), 0);
        assert_int_equal(ev_unit_noted(&next, "x/2", "0123456789abcdef"), 1);
        ev_table_done(&t);
        ev_state_done(&next);
        ev_state_done(&back);
        ev_state_done(&s);
        rm_rf(dir);
}

static void test_rotation(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_log_opts o = { .cap = EV_LOG_CAP_MIN };
        struct ev_page page;
        int n = 200;

        for (int i = 0; i <= n; i++)
                flip(dir, &o, i);
        _cleanup_free_ char *cur = read_file(dir, EV_LOG_FILE), *old = read_file(dir, EV_LOG_OLD_FILE);
        assert_non_null(cur);
        assert_non_null(old);
        assert_true(strlen(cur) <= EV_LOG_CAP_MIN / 2);
        assert_true(strlen(old) <= EV_LOG_CAP_MIN / 2);
        /* what is kept is contiguous and ends at the last seq */
        assert_int_equal(ev_log_read(dir, true, 0, 1000, 0, &page, &err),
                (int) (count_lines(cur) + count_lines(old)));
        assert_int_equal(page.latest, (uint64_t) n);
        assert_true(page.oldest > 1);
        assert_int_equal(page.rotated_out, page.oldest - 1);
        assert_int_equal(page.last - page.first + 1, page.lines.n);
        ev_page_done(&page);
        /* since inside what is kept: no gap reported */
        assert_int_equal(ev_log_read(dir, true, (uint64_t) n - 2, 1000, 0, &page, &err), 2);
        assert_int_equal(page.rotated_out, 0);
        ev_page_done(&page);

        /* the snapshot and the newer part both lost: the seq never goes back */
        _cleanup_free_ char *sp = xasprintf("%s/%s", dir, EV_STATE_FILE),
                            *cp = xasprintf("%s/%s", dir, EV_LOG_FILE);
        assert_int_equal(unlink(sp), 0);
        uint64_t old_last;
        assert_int_equal(unlink(cp), 0);
        assert_int_equal(ev_log_last_seq(dir, &old_last, &err), 0);
        assert_true(old_last > 0 && old_last < (uint64_t) n);
        flip(dir, &o, n + 1); /* baseline */
        flip(dir, &o, n + 2);
        uint64_t seq;
        assert_int_equal(ev_log_last_seq(dir, &seq, &err), 0);
        assert_int_equal(seq, old_last + 1); /* not reused: above what the log still shows */
        rm_rf(dir);
}

/* A child that holds a lock until killed: ev_lock(path) (flags -1), or flock on path opened
 * with flags. Returns once it holds it. */
static pid_t hold_in_child(const char *path, int flags, int p[2]) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct ev_held held = EV_HELD_INIT;
                int fd = flags == -1 ? 0 : open(path, flags | O_CLOEXEC);
                if (flags == -1 ? ev_lock(path, 0, &held, NULL) < 0 : (fd < 0 || flock(fd, LOCK_EX) < 0))
                        _exit(1);
                (void) !write(p[1], "x", 1);
                pause();
                _exit(0);
        }
        char c;
        assert_int_equal(read(p[0], &c, 1), 1);
        return pid;
}

static void test_lock(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_held fd = EV_HELD_INIT, fd2 = EV_HELD_INIT;
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = hold_in_child(dir, -1, p);
        assert_int_equal(ev_lock(dir, 100, &fd, &err), -ETIMEDOUT);
        assert_non_null(strstr(err.buf, "still held"));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        assert_int_equal(ev_lock(dir, 100, &fd, &err), 0);
        assert_int_equal(ev_lock(dir, 50, &fd2, NULL), -ETIMEDOUT); /* another open file */
        ev_unlock(&fd);
        close(p[0]);
        close(p[1]);
        rm_rf(dir);
}

/* Review N1: the lock is flock on a regular file opened for writing, which an NFS client can
 * lock (it cannot lock a directory opened read-only: EBADF), and also the directory's own
 * flock, the lock of earlier versions. Either one held by another process keeps a writer out:
 * the file's alone is what a shared state save location on NFS has. A link or a FIFO at the
 * lock file's name is refused. */
static void test_lock_file(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_held held = EV_HELD_INIT;
        _cleanup_free_ char *lockf = xasprintf("%s/%s", dir, EV_DIRLOCK_FILE);
        int p[2];
        pid_t pid;
        assert_int_equal(pipe(p), 0);

        /* the file made, 0600, a regular file */
        assert_int_equal(ev_lock(dir, 0, &held, &err), 0);
        struct stat st;
        assert_int_equal(stat(lockf, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0600);
        ev_unlock(&held);
        assert_int_equal(held.dir, -1);
        assert_int_equal(held.lock, -1);

        /* the file's lock alone (as on NFS, where the directory's cannot be taken) */
        pid = hold_in_child(lockf, O_RDWR, p);
        strbuf_reset(&err);
        assert_int_equal(ev_lock(dir, 100, &held, &err), -ETIMEDOUT);
        assert_non_null(strstr(err.buf, "still held"));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        assert_int_equal(ev_lock(dir, 100, &held, &err), 0);
        ev_unlock(&held);

        /* the directory's alone (a unit of an earlier version) */
        pid = hold_in_child(dir, O_RDONLY | O_DIRECTORY, p);
        assert_int_equal(ev_lock(dir, 100, &held, NULL), -ETIMEDOUT);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);

        /* a link or a FIFO where the lock file is: refused, nothing followed */
        _cleanup_free_ char *target = xasprintf("%s.target", dir);
        assert_int_equal(unlink(lockf), 0);
        assert_int_equal(symlink(target, lockf), 0);
        strbuf_reset(&err);
        assert_int_equal(ev_lock(dir, 100, &held, &err), -EPERM);
        assert_non_null(strstr(err.buf, "a link"));
        assert_int_equal(access(target, F_OK), -1);
        assert_int_equal(unlink(lockf), 0);
        assert_int_equal(mkfifo(lockf, 0600), 0);
        strbuf_reset(&err);
        assert_int_equal(ev_lock(dir, 100, &held, &err), -EPERM);
        assert_non_null(strstr(err.buf, "not a regular file"));
        assert_int_equal(held.dir, -1);
        close(p[0]);
        close(p[1]);
        rm_rf(dir);
}

/* A writer waiting on a log directory that is moved away and removed meanwhile (the unit's log
 * moved into the shared one and its old directory deleted, evshare.h): once the holder lets go
 * it cannot make the lock file in the removed directory, and takes the directory the name leads
 * to now (review of the lock file: it failed with ENOENT). */
static void test_lock_dir_removed(void **state) {
        _cleanup_free_ char *top = tmpdir();
        _cleanup_free_ char *dir = xasprintf("%s/log", top), *away = xasprintf("%s/away", top);
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = hold_in_child(dir, -1, p);
        struct ev_waiter w = { .dir = dir, .r = 1, .held = EV_HELD_INIT };
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, ev_waiter_run, &w), 0);
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        assert_int_equal(rename(dir, away), 0);
        assert_int_equal(mkdir(dir, 0700), 0);
        rm_rf(away);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(w.r, 0);
        struct stat a, b;
        assert_int_equal(fstat(w.held.dir, &a), 0);
        assert_int_equal(stat(dir, &b), 0);
        assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        ev_unlock(&w.held);
        close(p[0]);
        close(p[1]);
        rm_rf(top);
}

/* Review R6: the run works in the directory it locked. A directory renamed away once locked
 * and replaced by a link (SlurmUser owns the state save location the shared log lives in) gets
 * the writes, never the link's target; a link at the name that is not root's, or a directory
 * others may write, is refused before anything is written. As root only (the checks are). */
static void test_lock_pins_dir(void **state) {
        if (geteuid() != 0)
                skip();
        _cleanup_free_ char *top = tmpdir();
        _cleanup_free_ char *dir = xasprintf("%s/charm-events", top), *away = xasprintf("%s/away", top);
        _cleanup_free_ char *target = xasprintf("%s/target", top), *open_dir = xasprintf("%s/open", top);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_held fd = EV_HELD_INIT;

        assert_int_equal(ev_lock(dir, 0, &fd, &err), 0);
        _cleanup_free_ char *held = ev_lock_path(fd.dir);
        assert_int_equal(mkdir(target, 0700), 0);
        assert_int_equal(rename(dir, away), 0);
        assert_int_equal(symlink(target, dir), 0);
        assert_int_equal(flip(held, NULL, 0), 0);
        assert_int_equal(flip(held, NULL, 1), 1);
        _cleanup_free_ char *in_away = read_file(away, EV_LOG_FILE), *in_target = read_file(target, EV_LOG_FILE);
        assert_non_null(in_away);
        assert_null(in_target);
        _cleanup_free_ char *st_target = read_file(target, EV_STATE_FILE);
        assert_null(st_target);
        /* the charge mark's place, "<held>/..", is the real parent */
        _cleanup_free_ char *up = xasprintf("%s/..", held);
        struct stat a, b;
        assert_int_equal(stat(up, &a), 0);
        assert_int_equal(stat(top, &b), 0);
        assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        ev_unlock(&fd);

        /* a link that is not root's at the name: refused, nothing made where it leads */
        assert_int_equal(unlink(dir), 0);
        assert_int_equal(symlink(target, dir), 0);
        assert_int_equal(lchown(dir, 65534, 65534), 0);
        strbuf_reset(&err);
        assert_int_equal(ev_lock(dir, 0, &fd, &err), -EPERM);
        assert_non_null(strstr(err.buf, "not root's"));
        /* a directory others write: refused */
        assert_int_equal(mkdir(open_dir, 0700), 0);
        assert_int_equal(chmod(open_dir, 0777), 0);
        strbuf_reset(&err);
        assert_int_equal(ev_lock(open_dir, 0, &fd, &err), -EPERM);
        assert_non_null(strstr(err.buf, "only root writes"));
        /* a directory of another user's: refused */
        assert_int_equal(chmod(open_dir, 0700), 0);
        assert_int_equal(chown(open_dir, 65534, 65534), 0);
        strbuf_reset(&err);
        assert_int_equal(ev_lock(open_dir, 0, &fd, &err), -EPERM);
        rm_rf(top);
}

/* A synthetic 1,000-node table: one drain and one removal among them. */
static void test_thousand_nodes(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        struct ev_table t = { 0 };
        char name[32];
        for (int i = 0; i < 1000; i++) {
                snprintf(name, sizeof name, "compute-%d", i);
                ev_table_add(&t, name, IDLE | DYN, NULL, 0, 1000);
        }
        assert_int_equal(file_step(dir, NULL, &t, T0), 0);
        assert_int_equal(file_step(dir, NULL, &t, T0 + 1000), 0);
        t.v[500].state = IDLE | DRAIN | DYN;
        t.v[500].reason = xstrdup("disk");
        free(t.v[999].name);
        free(t.v[999].reason);
        t.n--;
        assert_int_equal(file_step(dir, NULL, &t, T0 + 2000), 2);
        assert_int_equal(file_step(dir, NULL, &t, T0 + 3000), 0);
        ev_table_done(&t);
        rm_rf(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_classes),
                cmocka_unit_test(test_first_step_is_baseline),
                cmocka_unit_test(test_diff_sequence),
                cmocka_unit_test(test_rebooted_and_controller),
                cmocka_unit_test(test_trigger_sources_and_transients),
                cmocka_unit_test(test_record_format),
                cmocka_unit_test(test_long_reason_cut),
                cmocka_unit_test(test_commit_and_read),
                cmocka_unit_test(test_action_records),
                cmocka_unit_test(test_crash_recovery),
                cmocka_unit_test(test_rotation),
                cmocka_unit_test(test_ctl_host_kept),
                cmocka_unit_test(test_unit_noted),
                cmocka_unit_test(test_lock),
                cmocka_unit_test(test_lock_file),
                cmocka_unit_test(test_lock_dir_removed),
                cmocka_unit_test(test_lock_pins_dir),
                cmocka_unit_test(test_thousand_nodes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
