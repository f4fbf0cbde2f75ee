/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/mpiconf: 22.05 gets mpi.conf with PMIxEnv=PMIX_MCA_gds=hash
 * (one Key=Value line Slurm's reader takes: the value holds '=' but no space), 24.11 none; the
 * file is written once, left alone when unchanged, and removed where the generation has none. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/mpiconf.h"
#include "slurm/caps.h"
#include "util/fileio.h"

#include <sys/stat.h>
#include <unistd.h>

#include "tmpdir.h"

#include "util/banned.h"

static void test_render(void **state) {
        const char *root = *state;
        const struct charm_paths old = { .root = root, .caps = slurm_caps_find("22.05") };
        const struct charm_paths new = { .root = root, .caps = slurm_caps_find("24.11") };
        assert_non_null(old.caps);
        assert_non_null(new.caps);
        _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
        mpi_conf_render(&old, &a);
        assert_non_null(a.buf);
        /* the one setting line, whole; every other line a comment */
        assert_non_null(strstr(a.buf, "\nPMIxEnv=PMIX_MCA_gds=hash\n"));
        assert_non_null(startswith(a.buf, MPI_CONF_HEADER));
        size_t settings = 0;
        for (const char *l = a.buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (*l != '#' && *l != '\n')
                        settings++;
        assert_int_equal(settings, 1);
        assert_int_equal(a.buf[a.len - 1], '\n');
        mpi_conf_render(&new, &b);
        assert_int_equal(b.len, 0);
}

static void test_write(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root, .caps = slurm_caps_find("22.05") };
        _cleanup_free_ char *out = xasprintf("%s%s", root, CHARM_PATH_MPI_CONF);
        _cleanup_strbuf_ struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
        mpi_conf_render(&p, &text);

        /* nothing to remove: unchanged */
        assert_int_equal(mpi_conf_write(&p, NULL, 0, &err), 0);
        assert_int_equal(access(out, F_OK), -1);

        assert_int_equal(mpi_conf_write(&p, text.buf, text.len, &err), 1);
        struct stat st;
        assert_int_equal(stat(out, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        _cleanup_free_ char *got = NULL;
        size_t len = 0;
        assert_int_equal(read_full_file(out, &got, &len), 0);
        assert_int_equal(len, text.len);
        assert_memory_equal(got, text.buf, len);
        /* the same bytes again: not rewritten */
        assert_int_equal(mpi_conf_write(&p, text.buf, text.len, &err), 0);
        struct stat st2;
        assert_int_equal(stat(out, &st2), 0);
        assert_int_equal(st.st_ino, st2.st_ino);

        /* a generation without one: the charm's file goes */
        assert_int_equal(mpi_conf_write(&p, "", 0, &err), 1);
        assert_int_equal(access(out, F_OK), -1);
        assert_int_equal(err.len, 0);
        /* an admin's file there is left as it is */
        assert_int_equal(write_file_atomic(out, "PMIxTimeout=600\n", 16, 0644, 0, 0), 0);
        assert_int_equal(mpi_conf_write(&p, "", 0, &err), 0);
        _cleanup_free_ char *admin = NULL;
        assert_int_equal(read_full_file(out, &admin, NULL), 0);
        assert_string_equal(admin, "PMIxTimeout=600\n");
        assert_int_equal(err.len, 0);
}

static void test_write_error(void **state) {
        const char *root = *state;
        /* /etc/slurm is a file: the message names the path, nothing is written */
        _cleanup_free_ char *sub = xasprintf("%s/bad", root);
        assert_int_equal(mkdir(sub, 0755), 0);
        _cleanup_free_ char *etc = xasprintf("%s/etc", sub);
        assert_int_equal(mkdir(etc, 0755), 0);
        _cleanup_free_ char *slurm = xasprintf("%s/etc/slurm", sub);
        assert_int_equal(write_file_atomic(slurm, "x", 1, 0644, 0, 0), 0);
        const struct charm_paths p = { .root = sub, .caps = slurm_caps_find("22.05") };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_true(mpi_conf_write(&p, "PMIxEnv=A=b\n", 12, &err) < 0);
        assert_non_null(strstr(err.buf, "/etc/slurm/mpi.conf"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_render, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_write, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_write_error, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
