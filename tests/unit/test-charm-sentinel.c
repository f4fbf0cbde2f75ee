/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/sentinel: when the save nudge is due (the first look, a job started
 * by either scheduler, counters reset) and when not (submits and completions alone, which
 * slurmctld saves by itself). The loop on real daemons is in tests/cluster/charm-statesave.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/slurmctld/sentinel.h"

#include "util/banned.h"

static struct slurm_ctl_stats look(uint32_t submitted, uint32_t started, uint32_t bf, uint32_t completed) {
        return (struct slurm_ctl_stats){ .jobs_submitted = submitted,
                .jobs_started = started,
                .bf_started = bf,
                .jobs_completed = completed };
}

static void test_nudge_due(void **state) {
        struct sentinel_nudge n = { 0 };
        struct slurm_ctl_stats a = look(5, 3, 1, 2);
        assert_true(sentinel_nudge_due(&n, &a));     /* first look: what came before is unknown */
        assert_false(sentinel_nudge_due(&n, &a));    /* nothing new */
        struct slurm_ctl_stats b = look(7, 3, 1, 4); /* submits and completions: saved by slurmctld */
        assert_false(sentinel_nudge_due(&n, &b));
        struct slurm_ctl_stats c = look(7, 3, 2, 4); /* a backfill start */
        assert_true(sentinel_nudge_due(&n, &c));
        assert_false(sentinel_nudge_due(&n, &c));
        struct slurm_ctl_stats d = look(7, 4, 2, 4); /* a main scheduler start */
        assert_true(sentinel_nudge_due(&n, &d));
        struct slurm_ctl_stats reset = look(0, 0, 0, 0); /* slurmctld restarted, or midnight */
        assert_true(sentinel_nudge_due(&n, &reset));
        assert_false(sentinel_nudge_due(&n, &reset));
        struct slurm_ctl_stats only_submit_reset = look(1, 4, 2, 4); /* submits went down: reset */
        n.last = look(9, 4, 2, 4);
        assert_true(sentinel_nudge_due(&n, &only_submit_reset));
        sentinel_nudge_reset(&n); /* not in charge for a while: the next look is a first one */
        assert_true(sentinel_nudge_due(&n, &only_submit_reset));
}

static void test_conf_private(void **state) {
        const char conf[] = "ClusterName=c\n"
                            "SlurmctldHost=juju-m-0(10.0.0.1)\n"
                            "  slurmctldhost=juju-m-1(10.0.0.2)\n"
                            "SlurmctldHost=juju-m-10\n"
                            "SlurmctldPort=6817\n"
                            " MessageTimeout=30\n"
                            "StateSaveLocation=/srv/state";
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int n = -1, self = -2;
        assert_int_equal(sentinel_conf_private(conf, "juju-m-1", &out, &n, &self), 1);
        assert_int_equal(n, 3);
        assert_int_equal(self, 1);
        assert_string_equal(out.buf,
                "ClusterName=c\n  slurmctldhost=juju-m-1(10.0.0.2)\nSlurmctldPort=6817\n"
                "StateSaveLocation=/srv/state\nMessageTimeout=2\n");
        /* a prefix of another host's name is not this host */
        strbuf_reset(&out);
        assert_int_equal(sentinel_conf_private(conf, "juju-m-1", &out, &n, &self), 1);
        strbuf_reset(&out);
        assert_int_equal(sentinel_conf_private(conf, "juju-m-10", &out, &n, &self), 2);
        assert_non_null(strstr(out.buf, "SlurmctldHost=juju-m-10\n"));
        assert_null(strstr(out.buf, "juju-m-0"));
        strbuf_reset(&out);
        assert_int_equal(sentinel_conf_private(conf, "juju-m-", &out, &n, &self), -1);
        assert_int_equal(n, 3);
        assert_null(strstr(out.buf, "SlurmctldHost"));
}

/* A freeze of 28 s inside a tick (1 s ticks), after the loop measured the gap since the last
 * tick: the fence look that follows knows it (charm-fence 24.11 under concurrency judged that
 * look with no freeze known), and the next tick's start does not count it again. */
static void test_late(void **state) {
        const uint64_t tick = 1000000, s0 = 5000000;
        assert_int_equal(sentinel_late_usec(0, s0, tick), 0);                 /* the first tick */
        assert_int_equal(sentinel_late_usec(s0, s0 + tick, tick), 0);         /* on time */
        assert_int_equal(sentinel_late_usec(s0, s0 + tick + 300, tick), 300); /* a little late */
        /* tick 1 starts on time, is frozen 28 s before its fence look */
        uint64_t start1 = s0 + tick, look1 = start1 + 28 * tick + 2000;
        assert_int_equal(sentinel_late_usec(s0, start1, tick), 0);
        assert_int_equal(sentinel_late_usec(start1, look1, tick), 27 * tick + 2000);
        /* tick 2 starts a tick after the look: counted from the look, nothing more */
        uint64_t start2 = look1 + tick;
        assert_int_equal(sentinel_late_usec(look1 > start1 ? look1 : start1, start2, tick), 0);
        /* without the look's time it would be counted twice */
        assert_true(sentinel_late_usec(start1, start2, tick) > 27 * tick);
}

/* The in-charge file's host: its own when in charge; another's fresh charge mark before the
 * heartbeat's index (wrong while the order changes: CI's takeover); nothing unknown or stale. */
static void test_charge_who(void **state) {
        _cleanup_strv_ struct strv names = STRV_INIT, one = STRV_INIT;
        strv_pushl(&names, "juju-m-0", "juju-m-1", "juju-m-2", NULL);
        strv_pushl(&one, "juju-m-0", NULL);
        assert_string_equal(sentinel_charge_who(&names, 1, true, 0, "juju-m-0", true), "juju-m-1");
        /* a fresh mark of another host of the list: before the heartbeat's index */
        assert_string_equal(sentinel_charge_who(&names, 0, false, 0, "juju-m-1", true), "juju-m-1");
        assert_string_equal(sentinel_charge_who(&names, 0, false, 2, "juju-m-1", true), "juju-m-1");
        /* a stale mark, this host's own, or one of a host not listed: the heartbeat's */
        assert_string_equal(sentinel_charge_who(&names, 0, false, 2, "juju-m-1", false), "juju-m-2");
        assert_string_equal(sentinel_charge_who(&names, 0, false, 2, "juju-m-0", true), "juju-m-2");
        assert_string_equal(sentinel_charge_who(&names, 0, false, 2, "juju-m-1x", true), "juju-m-2");
        assert_string_equal(sentinel_charge_who(&names, 0, false, 2, NULL, true), "juju-m-2");
        /* the heartbeat naming this host, or out of the list, or none: unknown */
        assert_string_equal(sentinel_charge_who(&names, 0, false, 0, NULL, false), "");
        assert_string_equal(sentinel_charge_who(&names, 0, false, 3, NULL, false), "");
        assert_string_equal(sentinel_charge_who(&names, 0, false, -1, "juju-m-2", false), "");
        /* not in the list, or a sole controller not in charge */
        assert_string_equal(sentinel_charge_who(&names, -1, true, 1, "juju-m-1", true), "");
        assert_string_equal(sentinel_charge_who(&names, 3, true, 1, "juju-m-1", true), "");
        assert_string_equal(sentinel_charge_who(&one, 0, false, -1, "juju-m-1", true), "");
        assert_string_equal(sentinel_charge_who(&one, 0, true, -1, NULL, false), "juju-m-0");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nudge_due),
                cmocka_unit_test(test_late),
                cmocka_unit_test(test_conf_private),
                cmocka_unit_test(test_charge_who),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
