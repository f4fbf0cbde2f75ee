/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/standby: which running jobs may still ask a displaced controller
 * first (22.05: steps keep the list they started with; 24.11: slurmd hands its list to running
 * steps at its start), the displaced times the leader keeps (who is displaced by a new first
 * one, later times winning, the new first and departed units dropped, malformed words
 * ignored), and the hold record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/standby.h"
#include "tmpdir.h"

#include "util/banned.h"

static void test_job_old(void **state) {
        const time_t since = 1000;
        /* 22.05: a job started before the order changed is old on every node */
        time_t after[] = { 1010, 1020 };
        assert_true(standby_job_old(900, after, 2, since, false));
        /* started after both slurmds restarted with the new list: not old */
        assert_false(standby_job_old(1030, after, 2, since, false));
        /* started between the two restarts: its steps on the second node began under the old one */
        assert_true(standby_job_old(1015, after, 2, since, false));
        /* 24.11: the restarts handed the running steps the new list */
        assert_false(standby_job_old(900, after, 2, since, true));
        assert_false(standby_job_old(1015, after, 2, since, true));
        /* one slurmd not restarted since the change: old on either generation */
        time_t one_old[] = { 1010, 990 };
        assert_true(standby_job_old(1030, one_old, 2, since, true));
        assert_true(standby_job_old(1030, one_old, 2, since, false));
        /* a node unknown (0) counts as old */
        time_t unknown[] = { 0 };
        assert_true(standby_job_old(1030, unknown, 1, since, true));
        /* no node known: by the job's start */
        assert_true(standby_job_old(999, NULL, 0, since, true));
        assert_false(standby_job_old(1000, NULL, 0, since, false));
}

/* The hold ends ahead of SlurmctldTimeout by min(T/2, 10 s), and never within two heartbeat
 * periods (min(T/4, 30) s) of the last beat. */
/* The status says when SlurmctldTimeout is too short for a failover to keep a job's end: only
 * with several controllers, below STANDBY_HA_TIMEOUT_MIN_S. */
static void test_timeout_note(void **state) {
        struct strbuf sb = STRBUF_INIT;
        standby_timeout_note(10, 1, &sb);
        assert_int_equal(sb.len, 0);
        standby_timeout_note(STANDBY_HA_TIMEOUT_MIN_S, 3, &sb);
        assert_int_equal(sb.len, 0);
        standby_timeout_note(120, 2, &sb);
        assert_int_equal(sb.len, 0);
        standby_timeout_note(STANDBY_HA_TIMEOUT_MIN_S - 1, 2, &sb);
        assert_non_null(strstr(sb.buf, "; slurmctld-timeout=19 is short for 2 controllers"));
        strbuf_reset(&sb);
        standby_timeout_note(10, 3, &sb);
        assert_string_equal(sb.buf,
                "; slurmctld-timeout=10 is short for 3 controllers (use 20 or more): a job that ends while the "
                "controller in charge is lost may stay RUNNING, its end being reported within 1.5 x 10 s while a "
                "failover takes about 17 s");
        /* one part of a "; "-separated status */
        assert_null(strstr(sb.buf + 2, "; "));
        strbuf_release(&sb);
}

static void test_release(void **state) {
        assert_int_equal(standby_release_s(10), 5);
        assert_int_equal(standby_release_s(20), 10);
        assert_int_equal(standby_release_s(21), 11);
        assert_int_equal(standby_release_s(30), 20);
        assert_int_equal(standby_release_s(120), 110);
        assert_int_equal(standby_release_s(3), 2);
        assert_int_equal(standby_release_s(0), 0);
        /* the heartbeat's period, late past two of them, and the query's bound */
        assert_int_equal(standby_beat_period(10), 2);
        assert_int_equal(standby_beat_period(3), 1);
        assert_int_equal(standby_beat_period(300), 30);
        assert_false(standby_heartbeat_late(4, 10));
        assert_true(standby_heartbeat_late(5, 10));
        assert_false(standby_heartbeat_late(60, 120));
        assert_true(standby_heartbeat_late(61, 120));
        assert_int_equal(standby_query_timeout_ms(0, 10), 5000);
        assert_int_equal(standby_query_timeout_ms(4, 10), 2000);
        assert_int_equal(standby_query_timeout_ms(0, 120), STANDBY_QUERY_TIMEOUT_MS);
        assert_int_equal(standby_query_timeout_ms(100, 120), 10000);
        for (unsigned t = 4; t <= 65535; t++) {
                unsigned period = t / 4 < 30 ? t / 4 : 30;
                assert_true(standby_release_s(t) >= 2 * period);
                assert_true(standby_release_s(t) < t);
                assert_true(t - standby_release_s(t) <= STANDBY_START_LEAD_S);
        }
}

/* After the hold ended (at 1000, T = 10 s, the heartbeat then written at 994): control is
 * taken once no heartbeat is T old, a heartbeat written since sends the charm to look at the
 * hold again, and the sentinel gives up after 2 T + 10 s. */
static void test_take_next(void **state) {
        const time_t since = 1000, beat = 994;
        /* no heartbeat at all, or older than T: take control */
        assert_int_equal(standby_take_next(1001, since, 10, 1, 2, false, 0, -1, 0), STANDBY_TAKE_NOW);
        assert_int_equal(standby_take_next(1005, since, 10, 1, 2, true, beat, 0, beat), STANDBY_TAKE_NOW);
        /* not T old yet (ended ahead of T): wait */
        assert_int_equal(standby_take_next(1001, since, 10, 1, 2, true, beat, 0, beat), STANDBY_TAKE_WAIT);
        assert_int_equal(standby_take_next(1004, since, 10, 1, 2, true, beat, 0, beat), STANDBY_TAKE_WAIT);
        /* written since by another controller (late, not lost; or one ahead took control): the
         * hold looked at again, whatever its age */
        assert_int_equal(standby_take_next(1002, since, 10, 1, 2, true, 995, 0, beat), STANDBY_TAKE_RECHECK);
        assert_int_equal(standby_take_next(1002, since, 10, 1, 3, true, 1001, 2, beat), STANDBY_TAKE_RECHECK);
        /* written by this unit: it is in charge */
        assert_int_equal(standby_take_next(1003, since, 10, 1, 2, true, 1002, 1, beat), STANDBY_TAKE_DONE);
        /* a clock ahead on the writer's side counts as fresh */
        assert_int_equal(standby_take_next(1001, since, 10, 1, 2, true, 1200, 0, 1200), STANDBY_TAKE_WAIT);
        /* the primary (index 0), one controller, a clock going back, or past 2 T + 10 s */
        assert_int_equal(standby_take_next(1001, since, 10, 0, 2, false, 0, -1, 0), STANDBY_TAKE_DONE);
        assert_int_equal(standby_take_next(1001, since, 10, 1, 1, false, 0, -1, 0), STANDBY_TAKE_DONE);
        assert_int_equal(standby_take_next(999, since, 10, 1, 2, false, 0, -1, 0), STANDBY_TAKE_DONE);
        assert_int_equal(standby_take_next(1030, since, 10, 1, 2, false, 0, -1, 0), STANDBY_TAKE_NOW);
        assert_int_equal(standby_take_next(1031, since, 10, 1, 2, false, 0, -1, 0), STANDBY_TAKE_DONE);
}

/* The charm keeps its hands off a standby started early only while no heartbeat was written
 * since the early end, and for 2 T + 10 s at most; the record round-trips. */
static void test_early(void **state) {
        assert_true(standby_early_valid(1000, 1000, 994, true, 994, 10));
        assert_true(standby_early_valid(1030, 1000, 994, true, 994, 10));
        assert_false(standby_early_valid(1031, 1000, 994, true, 994, 10));
        assert_false(standby_early_valid(1002, 1000, 994, true, 996, 10)); /* written again */
        assert_true(standby_early_valid(1002, 1000, 0, false, 0, 10));     /* none at all */
        assert_false(standby_early_valid(999, 1000, 994, true, 994, 10));  /* clock back */
        assert_int_equal(STANDBY_EARLY_BACKOFF(10), 120);
        assert_int_equal(STANDBY_EARLY_BACKOFF(120), 1200);
        _cleanup_free_ char *root = test_tmpdir_make("test-charm-standby-early");
        assert_non_null(root);
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        time_t when = 0, beat = 0;
        assert_int_equal(standby_early_read(&p, &when, &beat), 0);
        assert_true(standby_early_write(&p, 1000, 994, &e) >= 0);
        assert_int_equal(standby_early_read(&p, &when, &beat), 1);
        assert_int_equal(when, 1000);
        assert_int_equal(beat, 994);
        assert_int_equal(standby_early_clear(&p, &e), 0);
        assert_int_equal(standby_early_read(&p, &when, &beat), 0);
        test_tmpdir_remove(TAKE_PTR(root));
}

static char *next(const char *prev, const char *order, const char *first, const char *present, time_t now) {
        _cleanup_strv_ struct strv o = STRV_INIT, p = STRV_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        _cleanup_free_ char *oc = xstrdup(order), *pc = xstrdup(present);
        char *save = NULL;
        for (char *w = strtok_r(oc, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strv_push(&o, w);
        for (char *w = strtok_r(pc, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strv_push(&p, w);
        standby_displaced_next(prev, &o, first, &p, now, &out);
        return xstrdup(out.buf ? out.buf : "");
}

static void test_displaced(void **state) {
        const char *all = "c/0 c/1 c/2";
        /* c/1 first: c/0 was ahead of it */
        _cleanup_free_ char *a = next(NULL, "c/0 c/1 c/2", "c/1", all, 100);
        assert_string_equal(a, "c/0=100");
        /* then c/2 first: c/1 and c/0 ahead of it in [c/1 c/0 c/2] */
        _cleanup_free_ char *b = next(a, "c/1 c/0 c/2", "c/2", all, 200);
        assert_string_equal(b, "c/0=200 c/1=200");
        /* c/0 first again: its own entry dropped, c/2 and c/1 ahead of it */
        _cleanup_free_ char *c = next(b, "c/2 c/1 c/0", "c/0", all, 300);
        assert_string_equal(c, "c/1=300 c/2=300");
        /* no order change: kept; a departed unit dropped */
        _cleanup_free_ char *d = next(c, "c/0 c/2 c/1", NULL, "c/0 c/2", 400);
        assert_string_equal(d, "c/2=300");
        /* the first one already first: nobody displaced */
        _cleanup_free_ char *e = next("", "c/0 c/1", "c/0", all, 500);
        assert_string_equal(e, "");
        /* malformed words ignored, the later of two times kept */
        _cleanup_free_ char *f = next("x c/1=abc c/1=50 =7 c/1=70  c/2=-3", "c/0 c/1", NULL, all, 600);
        assert_string_equal(f, "c/1=70");

        assert_int_equal(standby_displaced_of("c/0=100 c/1=200", "c/1"), 200);
        assert_int_equal(standby_displaced_of("c/0=100 c/10=200", "c/1"), 0);
        assert_int_equal(standby_displaced_of(NULL, "c/1"), 0);
        assert_int_equal(standby_displaced_of("  c/1=5  ", "c/1"), 5);
}

static void test_job_lacks(void **state) {
        const time_t joined = 1000, settle = STANDBY_JOIN_SETTLE_S;
        const time_t before[] = { 990 }, after[] = { 1010 }, mixed[] = { 1010, 990 }, unknown[] = { 0 };
        /* a slurmd from before the join runs there: lacking, whatever the job's start */
        assert_true(standby_job_lacks(5000, before, 1, joined, false));
        assert_true(standby_job_lacks(5000, before, 1, joined, true));
        assert_true(standby_job_lacks(5000, mixed, 2, joined, true));
        assert_true(standby_job_lacks(5000, unknown, 1, joined, true));
        /* 24.11: a slurmd started since hands the running steps its list */
        assert_false(standby_job_lacks(900, after, 1, joined, true));
        /* 22.05: a job started under today's slurmd (started after the join) has its list; in
         * the same second as that start it may be an earlier slurmd's */
        assert_true(standby_job_lacks(1010, after, 1, joined, false));
        assert_false(standby_job_lacks(1011, after, 1, joined, false));
        assert_false(standby_job_lacks(1020, after, 1, joined, false));
        /* one started before that slurmd: by its start, with the settle time for the list to
         * arrive; a reorder later (every slurmd restarted again) changes nothing for a job
         * started after the settle time */
        assert_true(standby_job_lacks(900, after, 1, joined, false));
        const time_t restarted_later[] = { joined + settle + 100 };
        assert_true(standby_job_lacks(joined + settle - 1, restarted_later, 1, joined, false));
        assert_false(standby_job_lacks(joined + settle, restarted_later, 1, joined, false));
        assert_false(standby_job_lacks(joined + settle + 50, restarted_later, 1, joined, false));
        /* every node counts */
        const time_t two[] = { 1010, joined + settle + 100 };
        assert_true(standby_job_lacks(1020, two, 2, joined, false));
        assert_false(standby_job_lacks(1020, two, 2, joined, true));
        /* no node known: by the job's start */
        assert_true(standby_job_lacks(joined + 10, NULL, 0, joined, true));
        assert_false(standby_job_lacks(joined + settle, NULL, 0, joined, true));
}

static void split(const char *words, struct strv *out) {
        _cleanup_free_ char *c = xstrdup(words);
        char *save = NULL;
        for (char *w = strtok_r(c, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strv_push(out, w);
}

static char *joined(const char *prev, const char *prev_order, const char *order, time_t now) {
        _cleanup_strv_ struct strv po = STRV_INIT, o = STRV_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        split(prev_order, &po);
        split(order, &o);
        standby_joined_next(prev, &po, &o, now, &out);
        return xstrdup(out.buf ? out.buf : "");
}

static void test_joined(void **state) {
        /* the first deployment: every unit joins now */
        _cleanup_free_ char *a = joined(NULL, "", "c/0 c/1", 100);
        assert_string_equal(a, "c/0=100 c/1=100");
        /* a unit added later joins then; the others keep their times, in the new order */
        _cleanup_free_ char *b = joined(a, "c/0 c/1", "c/1 c/0 c/2", 200);
        assert_string_equal(b, "c/1=100 c/0=100 c/2=200");
        /* a departed unit dropped; a unit that comes back is new again */
        _cleanup_free_ char *c = joined(b, "c/1 c/0 c/2", "c/0 c/2", 300);
        assert_string_equal(c, "c/0=100 c/2=200");
        _cleanup_free_ char *d = joined(c, "c/0 c/2", "c/0 c/2 c/1", 400);
        assert_string_equal(d, "c/0=100 c/2=200 c/1=400");
        /* an order from before the record (upgrade): its units get no time, a new one does */
        _cleanup_free_ char *e = joined(NULL, "c/0 c/1", "c/0 c/1 c/3", 500);
        assert_string_equal(e, "c/3=500");
        assert_int_equal(standby_displaced_of(e, "c/0"), 0);
        assert_int_equal(standby_displaced_of(e, "c/3"), 500);
}

static void test_record(void **state) {
        _cleanup_free_ char *root = test_tmpdir_make("test-charm-standby");
        assert_non_null(root);
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        time_t since = 0;
        assert_int_equal(standby_record_read(&p, &since), 0);
        assert_true(standby_record_write(&p, 1234, 3, 17, &e) >= 0);
        assert_int_equal(standby_record_read(&p, &since), 1);
        assert_int_equal(since, 1234);
        assert_int_equal(standby_record_clear(&p, &e), 0);
        assert_int_equal(standby_record_read(&p, &since), 0);
        assert_int_equal(standby_record_clear(&p, &e), 0);
        test_tmpdir_remove(TAKE_PTR(root));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_job_old),
                cmocka_unit_test(test_release),
                cmocka_unit_test(test_take_next),
                cmocka_unit_test(test_early),
                cmocka_unit_test(test_displaced),
                cmocka_unit_test(test_job_lacks),
                cmocka_unit_test(test_joined),
                cmocka_unit_test(test_record),
                cmocka_unit_test(test_timeout_note),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
