/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurm/ctlvalues' pure parts: key matching ignoring case, '_' and '-', and
 * the lookup in a pair list. The RPC (slurm_ctl_conf_values) runs against a real slurmctld in
 * tests/cluster/charm-ops.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurm/ctlvalues.h"

#include "util/banned.h"

static void test_key_match(void **state) {
        assert_true(slurm_conf_key_match("TopologyPlugin", "TopologyPlugin"));
        assert_true(slurm_conf_key_match("TopologyPlugin", "topology_plugin"));
        assert_true(slurm_conf_key_match("TopologyPlugin", "topology-plugin"));
        assert_true(slurm_conf_key_match("TopologyPlugin", "TOPOLOGYPLUGIN"));
        assert_true(slurm_conf_key_match("BOOT_TIME", "boottime"));
        assert_true(slurm_conf_key_match("BOOT_TIME", "boot-time"));
        assert_true(slurm_conf_key_match("SLURM_CONF", "_slurm__conf-"));
        assert_false(slurm_conf_key_match("TopologyPlugin", "TopologyParam"));
        assert_false(slurm_conf_key_match("TopologyPlugin", "TopologyPlugins"));
        assert_false(slurm_conf_key_match("MaxJobCount", "MaxJob"));
        /* nothing left to compare matches nothing */
        assert_false(slurm_conf_key_match("", ""));
        assert_false(slurm_conf_key_match("__", "-"));
        assert_false(slurm_conf_key_match("A", NULL));
        assert_false(slurm_conf_key_match(NULL, NULL));
}

static void test_pairs_find(void **state) {
        char *pairs[] = { "SlurmctldHost", "m0(10.0.0.1)", "SlurmUser", "slurm(64030)", "BOOT_TIME",
                "2024-05-01T10:00:00", NULL };
        assert_int_equal(slurm_conf_pairs_find(pairs, 6, "slurm_user"), 1);
        assert_int_equal(slurm_conf_pairs_find(pairs, 6, "SLURMCTLDHOST"), 0);
        assert_int_equal(slurm_conf_pairs_find(pairs, 6, "boot-time"), 2);
        assert_int_equal(slurm_conf_pairs_find(pairs, 6, "slurm"), -1);
        /* the value is never taken for a key, and an odd count ignores the last string */
        assert_int_equal(slurm_conf_pairs_find(pairs, 6, "slurm(64030)"), -1);
        assert_int_equal(slurm_conf_pairs_find(pairs, 5, "boot_time"), -1);
        assert_int_equal(slurm_conf_pairs_find(pairs, 0, "SlurmUser"), -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key_match),
                cmocka_unit_test(test_pairs_find),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
