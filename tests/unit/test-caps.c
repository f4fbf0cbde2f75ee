/* SPDX-License-Identifier: Apache-2.0 */
/* lib/slurm/caps: the generation built against, lookup, and the facts each one states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurm/caps.h"
#include "slurm/compat.h"

static void test_built(void **state) {
        const struct slurm_caps *c = slurm_caps_built();
        assert_non_null(c);
        /* the release the headers say, for the two generations built here */
#if SLURM_AT_LEAST(24, 11)
        assert_string_equal(c->release, "24.11");
#else
        assert_string_equal(c->release, "22.05");
#endif
        assert_ptr_equal(slurm_caps_find(c->release), c);
}

static void test_find(void **state) {
        assert_null(slurm_caps_find(NULL));
        assert_null(slurm_caps_find(""));
        assert_null(slurm_caps_find("23.11"));
        assert_null(slurm_caps_find("22.05.8")); /* a release, not a version */
        size_t n = 0;
        for (const struct slurm_caps *const *c = slurm_caps_all; *c; c++, n++)
                assert_ptr_equal(slurm_caps_find((*c)->release), *c);
        assert_int_equal(n, 2);
}

/* Each generation's facts hang together: munge has its own daemon and key directory, Slurm's
 * own auth has neither; the key is never readable by others (24.11 refuses to start). */
static void test_consistent(void **state) {
        for (const struct slurm_caps *const *p = slurm_caps_all; *p; p++) {
                const struct slurm_caps *c = *p;
                bool munge = streq(c->auth_type, "auth/munge");
                assert_true(munge || streq(c->auth_type, "auth/slurm"));
                assert_string_equal(c->cred_type, munge ? "cred/munge" : "cred/slurm");
                assert_int_equal(c->auth_service != NULL, munge);
                assert_int_equal(c->auth_package != NULL, munge);
                assert_int_equal(c->key_dir_private, munge);
                assert_true(startswith(c->key_path, c->key_dir));
                assert_int_equal(c->key_path[strlen(c->key_dir)], '/');
                assert_int_equal(c->key_mode & 0077, 0);
                assert_string_equal(c->key_owner, munge ? "munge" : "slurm");
                assert_true(startswith(c->ctld_pid_file, "/run/"));
                assert_true(startswith(c->slurmd_pid_file, "/run/"));
        }
        const struct slurm_caps *old = slurm_caps_find("22.05"), *new = slurm_caps_find("24.11");
        assert_false(old->listjobs);
        assert_true(new->listjobs);
        assert_false(old->service_notify);
        assert_true(new->service_notify);
        assert_false(old->reconfigure_reexecs);
        assert_true(new->reconfigure_reexecs);
        assert_string_equal(new->key_path, "/etc/slurm/slurm.key");
        /* keys 24.11 no longer reads, any case; 22.05 reads them all */
        assert_true(slurm_caps_key_gone(new, "SlurmctldPlugstack"));
        assert_true(slurm_caps_key_gone(new, "keepalivetime"));
        assert_false(slurm_caps_key_gone(new, "SlurmctldTimeout"));
        assert_false(slurm_caps_key_gone(new, NULL));
        assert_false(slurm_caps_key_gone(old, "SlurmctldPlugstack"));
        assert_string_equal(slurm_caps_item_gone(new, "debugflags", "Backfill,tIMEcray"), "TimeCray");
        assert_string_equal(slurm_caps_item_gone(new, "DebugFlags", "ExtSensors"), "ExtSensors");
        assert_null(slurm_caps_item_gone(new, "DebugFlags", "Backfill,TimeCrays,,Time"));
        assert_null(slurm_caps_item_gone(new, "DebugFlag", "TimeCray"));
        assert_null(slurm_caps_item_gone(new, "DebugFlags", NULL));
        assert_null(slurm_caps_item_gone(old, "DebugFlags", "TimeCray"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_built),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_consistent),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
