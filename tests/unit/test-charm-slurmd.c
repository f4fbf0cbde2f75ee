/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the slurmd charm's pure decisions: which hooks are the unit leaving the
 * cluster (slurmd_event_leaves). The departure itself is proven in tests/cluster/charm-depart.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/slurmd.h"

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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_event_leaves),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
