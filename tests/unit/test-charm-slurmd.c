/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the slurmd charm's pure decisions: which hooks are the unit leaving the
 * cluster (slurmd_event_leaves), which start-only plugins a running slurmd lacks
 * (slurmd_plugins_missing). The departure itself is proven in tests/cluster/charm-depart.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/slurmd/slurmd.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <unistd.h>

#include "util/banned.h"

static struct juju_env env(
        const char *event, const char *relation, const char *rel_event, const char *departing) {
        return (struct juju_env){
                .unit = "slurmd/1",
                .app = "slurmd",
                .event = event,
                .relation = relation,
                .relation_event = rel_event,
                .departing_unit = departing,
        };
}

static void test_event_leaves(void **state) {
        struct juju_env e;
        /* remove-unit: departed naming this unit, once per controller unit */
        e = env("slurmctld-relation-departed", "slurmctld", "departed", "slurmd/1");
        assert_true(slurmd_event_leaves(&e));
        /* a controller unit leaves: the cluster stays */
        e = env("slurmctld-relation-departed", "slurmctld", "departed", "slurmctld/1");
        assert_false(slurmd_event_leaves(&e));
        e = env("slurmctld-relation-departed", "slurmctld", "departed", NULL);
        assert_false(slurmd_event_leaves(&e));
        /* remove-application / remove-relation */
        e = env("slurmctld-relation-broken", "slurmctld", "broken", NULL);
        assert_true(slurmd_event_leaves(&e));
        e = env("stop", NULL, NULL, NULL);
        assert_true(slurmd_event_leaves(&e));
        e = env("remove", NULL, NULL, NULL);
        assert_true(slurmd_event_leaves(&e));
        const char *stay[] = { "update-status", "config-changed", "upgrade-charm", "start", "install" };
        for (size_t i = 0; i < ELEMENTSOF(stay); i++) {
                e = env(stay[i], NULL, NULL, NULL);
                assert_false(slurmd_event_leaves(&e));
        }
        e = env("slurmctld-relation-changed", "slurmctld", "changed", NULL);
        assert_false(slurmd_event_leaves(&e));
        /* another endpoint's broken is not the cluster going */
        e = env("other-relation-broken", "other", "broken", NULL);
        assert_false(slurmd_event_leaves(&e));
        assert_false(slurmd_event_leaves(NULL));
}

#define LIB "7f0c1c2a1000-7f0c1c2a5000 r-xp 00000000 fe:01 1234 /usr/lib/x86_64-linux-gnu/slurm-wlm/"

static int missing(const char *conf, const char *maps, const char *want) {
        _cleanup_strbuf_ struct strbuf m = STRBUF_INIT;
        int n = slurmd_plugins_missing(conf, strlen(conf), maps, &m);
        assert_string_equal(m.buf, want);
        return n;
}

static void test_plugins_missing(void **state) {
        const char *conf =
                "ClusterName=c\nProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup,task/affinity\n";
        /* started under the older charm's file: every plugin of the new one is missing */
        const char *old = LIB "auth_munge.so\n" LIB "proctrack_linuxproc.so\n" LIB "task_none.so\n";
        assert_int_equal(missing(conf, old, "proctrack/cgroup,task/cgroup,task/affinity"), 3);
        const char *now = LIB "proctrack_cgroup.so\n" LIB "task_affinity.so\n" LIB "task_cgroup.so\n" LIB
                              "cgroup_v1.so\n";
        assert_int_equal(missing(conf, now, ""), 0);
        /* items without their type, as slurm.conf(5) allows */
        assert_int_equal(missing("TaskPlugin=affinity,cgroup\n", now, ""), 0);
        assert_int_equal(missing("TaskPlugin=affinity\n", LIB "task_none.so\n", "task/affinity"), 1);
        /* a type not loaded yet (slurmd just started) is not judged */
        assert_int_equal(missing(conf, LIB "auth_munge.so\n", ""), 0);
        /* a file that does not parse says nothing */
        assert_int_equal(missing("ProctrackType\n", old, ""), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_event_leaves),
                cmocka_unit_test(test_plugins_missing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
