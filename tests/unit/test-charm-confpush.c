/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/confpush: a compute unit's decision about the slurm.conf its slurmd fetched (idle:
 * restart; busy, down or unknown: wait, and a busy node behind for long is drained; a restart that
 * fetched the same copy for the same hash: not again), the published hash text, the records, the
 * cap on drained nodes, and the hash of the
 * configless copy (the controller's own hash, slurmconf_file_hash, of those bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "util/fileio.h"
#include "charm/common/confpush.h"
#include "slurmconf/conf.h"
#include "tmpdir.h"

#include "util/banned.h"

static void test_hash_text(void **state) {
        char t[9];
        uint32_t h = 0;
        confpush_hash_text(0xdeadbeefu, t);
        assert_string_equal(t, "deadbeef");
        assert_int_equal(confpush_hash_parse(t, &h), 0);
        assert_true(h == 0xdeadbeefu);
        confpush_hash_text(0x1fu, t);
        assert_string_equal(t, "0000001f");
        assert_int_equal(confpush_hash_parse(t, &h), 0);
        assert_true(h == 0x1fu);
        /* only 8 lowercase hex digits: a bag's value is the other side's input */
        const char *bad[] = { NULL, "", "1234567", "123456789", "DEADBEEF", "dead beef", "0x123456", "-1234567",
                "1234567g" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                h = 7;
                assert_int_equal(confpush_hash_parse(bad[i], &h), -EINVAL);
                assert_true(h == 7);
        }
}

static void test_next(void **state) {
        struct confpush_view v = { .running = 1, .fetched = 1, .now = 10000 };
        /* the same file: nothing, whatever the node does; held by the push: put back */
        v.busy = true;
        v.down = true;
        v.jobs = -1;
        assert_int_equal(confpush_next(&v), CONFPUSH_NONE);
        v.held = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_RELEASE);
        /* behind: idle restarts; a job, a busy state or an unknown count waits; down waits */
        v = (struct confpush_view){ .running = 2, .fetched = 1, .now = 10000, .behind_since = 10000 };
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.held = true; /* a run killed after its drain: goes on */
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.held = false;
        v.jobs = 1;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.jobs = -1;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.jobs = 0;
        v.busy = true; /* COMPLETING with no job left in the list */
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        /* busy for CONFPUSH_DRAIN_AFTER_S behind: drained (held), then it waits for its jobs */
        v.behind_since = 10000 - CONFPUSH_DRAIN_AFTER_S + 1;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.behind_since = 10000 - CONFPUSH_DRAIN_AFTER_S;
        assert_int_equal(confpush_next(&v), CONFPUSH_HOLD);
        v.held = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.busy = false; /* its jobs ended */
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.held = false;
        v.busy = true;
        v.behind_since = 20000; /* a clock stepped back: no hold */
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.behind_since = 0;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.busy = false;
        v.down = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_DOWN);
        v.down = false;
        /* a restart for this hash fetched this very copy: never again for the same pair (a
         * controller serving other bytes than it hashes would make a loop); either changing
         * tries again; held then: put back */
        v.record = true;
        v.record_running = 2;
        v.record_fetched = 1;
        v.boot = v.record_boot = 500;
        assert_int_equal(confpush_next(&v), CONFPUSH_STUCK);
        v.boot = 600; /* the controller started again (the primary back): once more */
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.boot = 500;
        v.held = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_RELEASE);
        v.held = false;
        v.record_fetched = 3;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.record_fetched = 1;
        v.record_running = 3;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
}

/* The waves: how many for a cluster, their published text, each node's turn. */
static void test_waves(void **state) {
        assert_int_equal(confpush_waves(0), 1);
        assert_int_equal(confpush_waves(1), 1);
        assert_int_equal(confpush_waves(4), 4);
        assert_int_equal(confpush_waves(10), 10);
        assert_int_equal(confpush_waves(1000), CONFPUSH_WAVES_MAX);
        assert_int_equal(confpush_waves_parse("4"), 4);
        assert_int_equal(confpush_waves_parse("10"), 10);
        /* anything else: one wave (an older leader, a bad value) */
        assert_int_equal(confpush_waves_parse(NULL), 1);
        assert_int_equal(confpush_waves_parse(""), 1);
        assert_int_equal(confpush_waves_parse("0"), 1);
        assert_int_equal(confpush_waves_parse("11"), 1);
        assert_int_equal(confpush_waves_parse("-3"), 1);
        assert_int_equal(confpush_waves_parse("4x"), 1);
        assert_int_equal(confpush_waves_parse("100"), 1);

        time_t since = 1800000000;
        /* one wave: when it saw the file; no time known: 0 (now) */
        assert_int_equal(confpush_turn("cpu-0", 0xabcdef01, 1, since), since);
        assert_int_equal(confpush_wave("cpu-0", 0xabcdef01, 1), 0);
        assert_int_equal(confpush_wave("cpu-0", 0xabcdef01, 0), 0);
        assert_int_equal(confpush_turn("cpu-0", 0xabcdef01, 10, 0), 0);
        /* the same on every unit; within the waves; whole waves apart */
        size_t per[CONFPUSH_WAVES_MAX] = { 0 };
        size_t moved = 0;
        for (int i = 0; i < 1000; i++) {
                char name[32];
                snprintf(name, sizeof name, "cpu-%d", i);
                time_t t = confpush_turn(name, 0xabcdef01, 10, since);
                assert_int_equal(t, confpush_turn(name, 0xabcdef01, 10, since));
                assert_true(t >= since && t < since + 10 * CONFPUSH_WAVE_S);
                assert_int_equal((t - since) % CONFPUSH_WAVE_S, 0);
                per[(t - since) / CONFPUSH_WAVE_S]++;
                /* another file: another wave for most nodes (the first wave is not always the same nodes') */
                if (confpush_turn(name, 0x12345678, 10, since) != t)
                        moved++;
        }
        /* about a tenth in each wave: none empty, none over twice its share */
        for (size_t w = 0; w < CONFPUSH_WAVES_MAX; w++)
                assert_true(per[w] > 50 && per[w] < 200);
        assert_true(moved > 800);
}

/* The canary: a later wave waits for an earlier wave's idle hold of this file, not for its own
 * wave's or a later one's, a busy hold, or an older file's hold. */
static void test_canary(void **state) {
        const uint32_t run = 0xabcdef01;
        const unsigned waves = 4;
        char names[64][16];
        const char *by_wave[4] = { NULL };
        const char *second[4] = { NULL };
        for (int i = 0; i < 64; i++) {
                snprintf(names[i], sizeof names[i], "cpu-%d", i);
                unsigned w = confpush_wave(names[i], run, waves);
                if (!by_wave[w])
                        by_wave[w] = names[i];
                else if (!second[w])
                        second[w] = names[i];
        }
        for (unsigned w = 0; w < waves; w++)
                assert_non_null(second[w]);
        const time_t behind = 1800000000;
        struct confpush_peer p[] = {
                { .name = by_wave[0], .held_idle = true, .since = behind + 1 },
        };
        /* the first wave waits for nobody; a later one for the first wave's hold */
        assert_null(confpush_canary_wait(by_wave[0], run, waves, behind, p, 1));
        assert_null(confpush_canary_wait(second[0], run, waves, behind, p, 1));
        assert_ptr_equal(confpush_canary_wait(by_wave[1], run, waves, behind, p, 1), &p[0]);
        assert_ptr_equal(confpush_canary_wait(by_wave[3], run, waves, behind, p, 1), &p[0]);
        /* one wave (an older leader): nobody waits */
        assert_null(confpush_canary_wait(by_wave[1], run, 1, behind, p, 1));
        /* a hold made well before this node saw the file is another file's */
        p[0].since = behind - CONFPUSH_CANARY_SLACK_S - 1;
        assert_null(confpush_canary_wait(by_wave[1], run, waves, behind, p, 1));
        p[0].since = behind - CONFPUSH_CANARY_SLACK_S;
        assert_ptr_equal(confpush_canary_wait(by_wave[1], run, waves, behind, p, 1), &p[0]);
        /* a busy hold (jobs still on the node) is no restart yet */
        p[0].held_idle = false;
        assert_null(confpush_canary_wait(by_wave[1], run, waves, behind, p, 1));
        /* its own wave's or a later wave's hold: no wait (the same wave restarts together) */
        struct confpush_peer q[] = {
                { .name = second[2], .held_idle = true, .since = behind },
                { .name = by_wave[3], .held_idle = true, .since = behind },
                { .name = by_wave[2], .held_idle = true, .since = behind }, /* self: skipped */
        };
        assert_null(confpush_canary_wait(by_wave[2], run, waves, behind, q, 3));
        q[1].name = by_wave[1];
        assert_ptr_equal(confpush_canary_wait(by_wave[2], run, waves, behind, q, 3), &q[1]);
}

/* An idle node before its turn waits; at its turn, or held by the push already, it restarts. */
static void test_next_turn(void **state) {
        struct confpush_view v = { .running = 1, .fetched = 2, .now = 1000, .turn = 1010 };
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_TURN);
        v.now = 1010;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.now = 1000;
        v.held = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
        v.held = false;
        /* the turn is for idle nodes only: busy waits for its jobs, down for its return */
        v.busy = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_JOBS);
        v.busy = false;
        v.down = true;
        assert_int_equal(confpush_next(&v), CONFPUSH_WAIT_DOWN);
        v.down = false;
        /* up to date: nothing, whatever the turn */
        v.fetched = 1;
        assert_int_equal(confpush_next(&v), CONFPUSH_NONE);
        /* no turn: at once */
        v.fetched = 2;
        v.turn = 0;
        assert_int_equal(confpush_next(&v), CONFPUSH_RESTART);
}

static void test_record(void **state) {
        _cleanup_free_ char *t = confpush_record_format(0xabcdef01u, 0x12u, 1699999000, 1700000000);
        assert_string_equal(t, "abcdef01 00000012 1699999000 1700000000\n");
        uint32_t a = 0, b = 0;
        time_t boot = 0, when = 0;
        assert_int_equal(confpush_record_parse(t, &a, &b, &boot, &when), 0);
        assert_true(a == 0xabcdef01u && b == 0x12u);
        assert_true(boot == 1699999000 && when == 1700000000);
        const char *bad[] = { NULL, "", "abcdef01", "abcdef01 00000012", "abcdef01 00000012 12",
                "abcdef01 00000012 x 12", "abcdef01 00000012 12 13 14", "ABCDEF01 00000012 12 13",
                "abcdef01 00000012 -5 12", "abcdef0 00000012 12 13", "abcdef01  00000012 12 13",
                "abcdef01 00000012 12  13", "abcdef01 00000012 12 13\n\n" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(confpush_record_parse(bad[i], &a, &b, &boot, &when), -EINVAL);
        _cleanup_free_ char *u = confpush_behind_format(0x1u, 99);
        assert_string_equal(u, "00000001 99\n");
        assert_int_equal(confpush_behind_parse(u, &a, &when), 0);
        assert_true(a == 1 && when == 99);
        assert_int_equal(confpush_behind_parse("00000001", &a, &when), -EINVAL);
        assert_int_equal(confpush_behind_parse(t, &a, &when), -EINVAL);
        /* the cap: a tenth of the nodes, at least one */
        /* the order that decides who keeps a hold beyond the cap (F4): earlier first, then the
         * lower name; the same answer on every unit */
        const struct confpush_holder h[] = { { "cpu-2", 100 }, { "cpu-0", 101 }, { "cpu-1", 101 } };
        assert_false(confpush_hold_yields("cpu-2", 100, h, 3, 1)); /* the earliest keeps it */
        assert_true(confpush_hold_yields("cpu-0", 101, h, 3, 1));  /* later, though lower-named */
        assert_true(confpush_hold_yields("cpu-1", 101, h, 3, 1));
        assert_false(confpush_hold_yields("cpu-0", 101, h, 3, 2)); /* cap 2: the second keeps it */
        assert_true(confpush_hold_yields("cpu-1", 101, h, 3, 2));  /* the same second: by name */
        assert_false(confpush_hold_yields("cpu-9", 50, h, 3, 1));  /* earlier than all */
        assert_false(confpush_hold_yields("cpu-2", 100, h, 1, 1)); /* alone */
        assert_int_equal(confpush_hold_cap(0), 1);
        assert_int_equal(confpush_hold_cap(19), 1);
        assert_int_equal(confpush_hold_cap(20), 2);
        assert_int_equal(confpush_hold_cap(1000), 100);
}

/* The copy's hash is the controller's hash of those very bytes (comments, newlines included). */
static void test_fetched(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root };
        uint32_t h = 0;
        assert_int_equal(confpush_fetched_hash(&p, &h), -ENOENT);
        _cleanup_free_ char *dir = xasprintf("%s/run/slurm/conf", root);
        assert_int_equal(mkdir_p(dir, 0755), 0);
        _cleanup_free_ char *path = xasprintf("%s/slurm.conf", dir);
        const char conf[] = "# a comment\nClusterName=c\nSlurmctldHost=h\n";
        assert_int_equal(write_file_atomic(path, conf, strlen(conf), 0644, 0, 0), 0);
        assert_int_equal(confpush_fetched_hash(&p, &h), 0);
        assert_true(h == slurmconf_file_hash(conf, strlen(conf)));
        const char other[] = "# a comment\nClusterName=c\nSlurmctldHost=g\n";
        assert_true(h != slurmconf_file_hash(other, strlen(other)));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hash_text),
                cmocka_unit_test(test_next),
                cmocka_unit_test(test_waves),
                cmocka_unit_test(test_next_turn),
                cmocka_unit_test(test_canary),
                cmocka_unit_test(test_record),
                cmocka_unit_test_setup_teardown(test_fetched, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
