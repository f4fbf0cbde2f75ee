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
        /* 22.05's backup may take control without its main scheduler (fixed in 23.02.4) */
        assert_true(old->backup_sched_lost);
        assert_false(new->backup_sched_lost);
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

static void test_takes_slurmd(void **state) {
        static const struct {
                const char *ctl, *ctl_auth, *d, *d_auth;
                int want;
        } v[] = {
                { "22.05.8", "auth/munge", "22.05.8", "auth/munge", 0 },
                { "22.05.8", "auth/munge", "22.05.2", "auth/munge", 0 },
                { "22.05.2", "auth/munge", "22.05.8", "auth/munge", 0 }, /* one major: any micro */
                { "22.05.8", "auth/munge", "21.08.8", "auth/munge", 0 },
                { "22.05.8", "auth/munge", "20.11.9", "auth/munge", 0 },       /* two before */
                { "22.05.8", "auth/munge", "20.02.7", "auth/munge", -EPROTO }, /* three */
                { "24.11.5", "auth/slurm", "24.05.1", "auth/slurm", 0 },
                { "24.11.5", "auth/slurm", "23.02.7", "auth/slurm", 0 },       /* three from 24.11 on */
                { "24.11.5", "auth/slurm", "22.05.8", "auth/slurm", -EPROTO }, /* four */
                { "25.05.0", "auth/slurm", "23.11.0", "auth/slurm", 0 },
                { "25.05.0", "auth/slurm", "23.02.0", "auth/slurm", -EPROTO },
                { "26.05.1", "auth/slurm", "24.11.5", "auth/slurm", 0 }, /* past the table */
                { "26.05.1", "auth/slurm", "24.05.5", "auth/slurm", -EPROTO },
                { "22.05.8", "auth/munge", "24.11.5", "auth/slurm", -EPROTO }, /* newer slurmd */
                { "24.11.5", "auth/slurm", "24.11.5", "auth/munge", -EPROTO }, /* two AuthTypes */
                { "24.11.5", "auth/slurm", "23.05.1", "auth/slurm", -EINVAL }, /* no such major */
                { "24.11.5", "auth/slurm", "2411", "auth/slurm", -EINVAL },
                { "x", "auth/slurm", "24.11.5", "auth/slurm", -EINVAL },
                { "24.12.0", "auth/slurm", "24.11.5", "auth/slurm", -EINVAL },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
                int r = slurm_caps_takes_slurmd(v[i].ctl, v[i].ctl_auth, v[i].d, v[i].d_auth, &why);
                if (r != v[i].want)
                        fail_msg("%s/%s takes %s/%s: %d (%s), want %d", v[i].ctl, v[i].ctl_auth, v[i].d,
                                v[i].d_auth, r, why.buf, v[i].want);
                assert_int_equal(why.len == 0, r == 0);
        }
        /* the message names what differs */
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        slurm_caps_takes_slurmd("22.05.8", "auth/munge", "24.11.5", "auth/slurm", &why);
        assert_string_equal(
                why.buf, "slurmd 24.11.5 is newer than slurmctld 22.05.8 (slurmctld takes no newer slurmd)");
        /* the names are the caller's: slurmdbd serves the controllers */
        strbuf_reset(&why);
        assert_int_equal(slurm_caps_takes("slurmdbd", "22.05.8", "auth/munge", "slurmctld", "24.11.5",
                                 "auth/slurm", &why),
                -EPROTO);
        assert_string_equal(why.buf,
                "slurmctld 24.11.5 is newer than slurmdbd 22.05.8 (slurmdbd takes no newer slurmctld)");
        strbuf_reset(&why);
        assert_int_equal(slurm_caps_takes("slurmdbd", "24.11.5", "auth/slurm", "slurmctld", "24.11.5",
                                 "auth/munge", &why),
                -EPROTO);
        assert_string_equal(
                why.buf, "slurmctld uses auth/munge, slurmdbd auth/slurm (one AuthType for the cluster)");
        assert_int_equal(slurm_caps_takes("slurmdbd", "24.11.5", "auth/slurm", "slurmctld", "23.02.7",
                                 "auth/slurm", NULL),
                0);
        /* the library's own version is one of the generations it knows */
        const char *b = slurm_version_built();
        assert_int_equal(strncmp(b, slurm_caps_built()->release, 5), 0);
        assert_int_equal(slurm_caps_takes_slurmd(b, "auth/x", b, "auth/x", NULL), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_built),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_consistent),
                cmocka_unit_test(test_takes_slurmd),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
