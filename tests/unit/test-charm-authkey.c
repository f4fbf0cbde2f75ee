/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/authkey and the shared charm helpers: key generation, munge.key
 * installation under a temporary root (owner, 0400, only written when changed, never with the
 * key in a message), node names, unit numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/authkey.h"
#include "util/base64.h"
#include "charm/common/charm.h"
#include "util/fileio.h"

#include <sys/stat.h>
#include <unistd.h>

#include "tmpdir.h"

#include "util/banned.h"

static void test_generate(void **state) {
        _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, raw = STRBUF_INIT;
        assert_int_equal(auth_key_generate_base64(&a), 0);
        assert_int_equal(auth_key_generate_base64(&b), 0);
        assert_string_not_equal(a.buf, b.buf);
        assert_int_equal(base64_decode(a.buf, &raw), 0);
        assert_int_equal(raw.len, AUTH_KEY_LEN);
}

static void test_install(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root, .key_user = "root", .caps = slurm_caps_find("22.05") };
        _cleanup_strbuf_ struct strbuf key = STRBUF_INIT, key2 = STRBUF_INIT, err = STRBUF_INIT;
        _cleanup_free_ char *path = xasprintf("%s/etc/munge/munge.key", root), *data = NULL;
        struct stat st, st2;
        size_t len;

        assert_int_equal(auth_key_generate_base64(&key), 0);
        assert_int_equal(auth_key_install(&p, key.buf, &err), 1);
        assert_int_equal(err.len, 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0400);
        assert_int_equal(st.st_uid, 0);
        assert_int_equal(read_full_file(path, &data, &len), 0);
        assert_int_equal(len, AUTH_KEY_LEN);

        /* same key: nothing written (same inode, same mtime) */
        assert_int_equal(auth_key_install(&p, key.buf, &err), 0);
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(st.st_ino, st2.st_ino);
        assert_int_equal(st.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);

        /* a new key replaces it */
        assert_int_equal(auth_key_generate_base64(&key2), 0);
        assert_int_equal(auth_key_install(&p, key2.buf, &err), 1);

        /* bad keys: refused, file untouched, message without the text */
        const char *bad[] = { "", "not base64!", "Zm9v" /* 3 bytes: too short */ };
        assert_int_equal(stat(path, &st), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                assert_int_equal(auth_key_install(&p, bad[i], &err), -EINVAL);
                assert_true(err.len > 0);
                if (*bad[i])
                        assert_null(strstr(err.buf, bad[i]));
        }
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(st.st_ino, st2.st_ino);

        /* an unknown owner is an error naming the user */
        const struct charm_paths q = { .root = root, .key_user = "no-such-user-h7", .caps = p.caps };
        strbuf_reset(&err);
        assert_int_equal(auth_key_install(&q, key.buf, &err), -ENOENT);
        assert_non_null(strstr(err.buf, "no-such-user-h7"));
}

/* 24.11 (auth/slurm): the same bytes to /etc/slurm/slurm.key, no munge directory; a missing
 * /etc/slurm is made 0755 and left root's (slurmd reads slurm.conf there), the key 0400. */
static void test_install_slurm_key(void **state) {
        const char *root = *state;
        const struct slurm_caps *caps = slurm_caps_find("24.11");
        assert_non_null(caps);
        const struct charm_paths p = { .root = root, .key_user = "root", .caps = caps };
        _cleanup_strbuf_ struct strbuf key = STRBUF_INIT, err = STRBUF_INIT, raw = STRBUF_INIT;
        _cleanup_free_ char *path = xasprintf("%s/etc/slurm/slurm.key", root),
                            *dir = xasprintf("%s/etc/slurm", root),
                            *munge = xasprintf("%s/etc/munge/munge.key", root), *data = NULL;
        struct stat st;
        size_t len;

        (void) unlink(munge);
        assert_int_equal(auth_key_generate_base64(&key), 0);
        assert_int_equal(auth_key_install(&p, key.buf, &err), 1);
        assert_int_equal(err.len, 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0400);
        assert_int_equal(stat(dir, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(read_full_file(path, &data, &len), 0);
        assert_int_equal(base64_decode(key.buf, &raw), 0);
        assert_int_equal(len, raw.len);
        assert_memory_equal(data, raw.buf, len);
        assert_int_equal(access(munge, F_OK), -1); /* no munge key on 24.11 */
        assert_int_equal(auth_key_install(&p, key.buf, &err), 0);

        /* the owner is the generation's SlurmUser unless a test says otherwise */
        const struct charm_paths q = { .root = root, .key_user = "no-such-user-h7", .caps = caps };
        strbuf_reset(&err);
        assert_int_equal(auth_key_install(&q, key.buf, &err), -ENOENT);
        assert_null(strstr(err.buf, key.buf));
        assert_int_equal(unlink(path), 0);
}

/* The services of a unit: the daemon, and munge only where the generation has it and the daemon
 * is not munge. */
static void test_services(void **state) {
        char *s[3];
        const struct charm_paths old = { .caps = slurm_caps_find("22.05") },
                                 new = { .caps = slurm_caps_find("24.11") };
        assert_int_equal(charm_services(&old, "slurmd.service", s), 2);
        assert_string_equal(s[0], "slurmd.service");
        assert_string_equal(s[1], "munge.service");
        assert_null(s[2]);
        assert_int_equal(charm_services(&new, "slurmctld.service", s), 1);
        assert_string_equal(s[0], "slurmctld.service");
        assert_null(s[1]);
        /* a 22.05 login unit's daemon is munged itself: named once */
        assert_int_equal(charm_services(&old, "munge.service", s), 1);
        assert_string_equal(s[0], "munge.service");
        assert_null(s[1]);
        assert_ptr_equal(charm_caps(NULL), slurm_caps_built());
        assert_ptr_equal(charm_caps(&new), new.caps);
}

/* The other side's Slurm against this charm's generation, in either direction. */
static void test_generation_check(void **state) {
        const struct charm_paths old = { .caps = slurm_caps_find("22.05") },
                                 new = { .caps = slurm_caps_find("24.11") };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        /* nothing published (a charm from before the key): no check */
        assert_int_equal(charm_generation_check(&new, NULL, false, "slurmctld", "slurmdbd", &e), 0);
        assert_int_equal(charm_generation_check(&new, "", true, "slurmctld", "slurmd", &e), 0);
        assert_int_equal(e.len, 0);
        /* a 24.11 controller and a 22.05 slurmdbd: slurmdbd serves, and is older */
        const char *dbd22 = "{\"version\":\"22.05.8\",\"auth\":\"auth/munge\"}";
        assert_int_equal(charm_generation_check(&new, dbd22, false, "slurmctld", "slurmdbd", &e), -EPROTO);
        assert_non_null(strstr(e.buf, "is newer than slurmdbd 22.05.8 (slurmdbd takes no newer slurmctld)"));
        assert_int_equal(strncmp(e.buf, "slurmctld 24.11.", 16), 0);
        /* the same pair seen from the slurmdbd (22.05) side */
        strbuf_reset(&e);
        const char *ctl24 = "{\"version\":\"24.11.5\",\"auth\":\"auth/slurm\"}";
        assert_int_equal(charm_generation_check(&old, ctl24, true, "slurmdbd", "slurmctld", &e), -EPROTO);
        assert_non_null(strstr(e.buf, "slurmctld 24.11.5 is newer than slurmdbd 22.05."));
        /* a 24.11 slurmdbd serves a 24.11 controller; a 22.05 controller takes a 21.08 slurmd */
        strbuf_reset(&e);
        assert_int_equal(charm_generation_check(&new, ctl24, true, "slurmdbd", "slurmctld", &e), 0);
        assert_int_equal(charm_generation_check(&old, "{\"version\":\"21.08.8\",\"auth\":\"auth/munge\"}",
                                 true, "slurmctld", "slurmd", &e),
                0);
        assert_int_equal(e.len, 0);
        /* one AuthType */
        assert_int_equal(charm_generation_check(&new, "{\"version\":\"24.11.5\",\"auth\":\"auth/munge\"}",
                                 true, "slurmctld", "slurmd", &e),
                -EPROTO);
        assert_non_null(strstr(e.buf, "slurmd uses auth/munge, slurmctld auth/slurm"));
        /* bad data */
        strbuf_reset(&e);
        assert_int_equal(
                charm_generation_check(&new, "{\"version\":7}", true, "slurmctld", "slurmd", &e), -EINVAL);
        assert_true(e.len > 0);
}

static void test_helpers(void **state) {
        _cleanup_free_ char *a = charm_node_name("compute/12");
        assert_string_equal(a, "compute-12");
        /* a departure's drain reason, and nothing else, is one */
        _cleanup_free_ char *lr = charm_leaving_reason("compute/12");
        assert_string_equal(lr, "unit compute/12 is leaving");
        assert_true(charm_reason_is_leaving(lr));
        assert_false(charm_reason_is_leaving("unit  is leaving"));
        assert_false(charm_reason_is_leaving("burnin"));
        assert_false(charm_reason_is_leaving("unit compute/12 is leaving soon"));
        assert_false(charm_reason_is_leaving(NULL));
        /* a daemon's log line: stamped unless journald stamps it */
        char ts[CHARM_LOG_PREFIX_MAX];
        unsetenv("JOURNAL_STREAM");
        const char *pre = charm_log_prefix(ts);
        assert_int_equal(strlen(pre), strlen("2026-11-28T21:31:16.143Z "));
        assert_true(pre[4] == '-' && pre[10] == 'T' && pre[19] == '.' && pre[23] == 'Z' && pre[24] == ' ');
        /* a JOURNAL_STREAM inherited from a parent whose stderr it was: still stamped */
        setenv("JOURNAL_STREAM", "8:1234", 1);
        assert_int_equal(strlen(charm_log_prefix(ts)), strlen("2026-11-28T21:31:16.143Z "));
        /* stderr is that stream: the journal stamps it */
        struct stat st;
        char js[64];
        assert_int_equal(fstat(STDERR_FILENO, &st), 0);
        snprintf(js, sizeof js, "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        setenv("JOURNAL_STREAM", js, 1);
        assert_string_equal(charm_log_prefix(ts), "");
        unsetenv("JOURNAL_STREAM");
        assert_int_equal(charm_unit_number("slurmctld/3"), 3);
        assert_int_equal(charm_unit_number("slurmctld/"), -1);
        assert_int_equal(charm_unit_number("slurmctld"), -1);
        assert_int_equal(charm_unit_number("x/1a"), -1);
        const struct charm_paths p = { .root = "/tmp/r" }, q = { .root = "/" };
        _cleanup_free_ char *b = charm_path(&p, "/etc/x"), *c = charm_path(&q, "/etc/x"),
                            *d = charm_path(NULL, "/y");
        assert_string_equal(b, "/tmp/r/etc/x");
        assert_string_equal(c, "/etc/x");
        assert_string_equal(d, "/y");
        _cleanup_free_ char *t = charm_template_path(NULL, "/charm", "slurm.conf");
        assert_string_equal(t, "/charm/templates/slurm.conf");
        _cleanup_free_ char *v = charm_slurm_version();
        assert_non_null(strchr(v, '.'));

        struct charm_outcome o = CHARM_OUTCOME_INIT;
        charm_outcome_set(&o, JUJU_STATUS_BLOCKED, "x: %d", 1);
        charm_outcome_set(&o, JUJU_STATUS_WAITING, "y");
        assert_int_equal(o.status, JUJU_STATUS_WAITING);
        assert_string_equal(o.message.buf, "y");
        charm_outcome_done(&o);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_generate),
                cmocka_unit_test_setup_teardown(test_install, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(
                        test_install_slurm_key, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_services),
                cmocka_unit_test(test_generation_check),
                cmocka_unit_test(test_helpers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
