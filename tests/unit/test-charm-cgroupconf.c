/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/cgroupconf: the template holds only Slurm 22.05 cgroup.conf keys and
 * the confinement a site sets; bad lines are refused by line; install under a test root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/cgroupconf.h"
#include "util/fileio.h"

#include <ftw.h>
#include <sys/stat.h>

#include "util/banned.h"

static char root[] = "/tmp/test-cgroupconf.XXXXXX";

static int setup(void **state) {
        return mkdtemp(root) ? 0 : -1;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static int teardown(void **state) {
        return nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static char *template_data(size_t *ret_len) {
        const char *top = getenv("TOP_SRCDIR");
        if (!top)
                fail_msg("TOP_SRCDIR is not set (run through meson test)");
        _cleanup_free_ char *path = xasprintf("%s/templates/cgroup.conf", top);
        char *data = NULL;
        assert_int_equal(read_full_file(path, &data, ret_len), 0);
        return data;
}

static void test_template(void **state) {
        size_t len;
        _cleanup_free_ char *data = template_data(&len);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(cgroup_conf_check("cgroup.conf", data, len, &err), 0);
        /* what a site confines (and GPU nodes rely on: a job without --gres sees no GPU) */
        static const char *const want[] = { "\nConstrainCores=yes\n", "\nConstrainRAMSpace=yes\n",
                "\nConstrainSwapSpace=yes\n", "\nConstrainDevices=yes\n", "\nCgroupPlugin=autodetect\n" };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_non_null(strstr(data, want[i]));
}

static void expect_refused(const char *text, const char *msg) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(cgroup_conf_check("t", text, strlen(text), &err), -EINVAL);
        if (!strstr(err.buf, msg))
                fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, err.buf, msg);
}

static void test_check(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const char *ok = "# comment\n\n  constraincores=Yes\nAllowedRAMSpace=98.5\nIgnoreSystemd=0\n";
        assert_int_equal(cgroup_conf_check("t", ok, strlen(ok), &err), 0);
        expect_refused("ConstrainCores=yes\nConstrainGPUs=yes\n",
                "t line 2: \"ConstrainGPUs\" is not a Slurm 22.05 cgroup.conf key");
        expect_refused("ConstrainCores=maybe", "t line 1: ConstrainCores takes yes or no, not \"maybe\"");
        expect_refused("ConstrainCores", "t line 1: not Key=Value");
        expect_refused("ConstrainCores=", "not Key=Value");
        expect_refused("ConstrainCores=yes no", "not Key=Value");
}

static void test_install(void **state) {
        _cleanup_free_ char *charm = xasprintf("%s/charm", root);
        _cleanup_free_ char *tdir = xasprintf("%s/templates", charm);
        _cleanup_free_ char *tmpl = xasprintf("%s/cgroup.conf", tdir);
        _cleanup_free_ char *out = xasprintf("%s%s", root, CHARM_PATH_CGROUP_CONF);
        const struct charm_paths p = { .root = root, .charm_dir = charm };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const char *v1 = "ConstrainCores=yes\n", *v2 = "ConstrainCores=yes\nConstrainDevices=yes\n";

        assert_int_equal(mkdir_p(tdir, 0755), 0);
        assert_int_equal(write_file_atomic(tmpl, v1, strlen(v1), 0644, (uid_t) -1, (gid_t) -1), 0);
        /* read and checked, then written; a second write changes nothing */
        _cleanup_strbuf_ struct strbuf text = STRBUF_INIT;
        assert_int_equal(cgroup_conf_render(&p, NULL, &text, &err), 0);
        assert_string_equal(text.buf, v1);
        assert_int_equal(cgroup_conf_write(&p, text.buf, text.len, &err), 1);
        _cleanup_free_ char *got = NULL;
        assert_int_equal(read_full_file(out, &got, NULL), 0);
        assert_string_equal(got, v1);
        struct stat st;
        assert_int_equal(stat(out, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(cgroup_conf_write(&p, text.buf, text.len, &err), 0);
        /* a new template (upgrade-charm): its text, written */
        assert_int_equal(write_file_atomic(tmpl, v2, strlen(v2), 0644, (uid_t) -1, (gid_t) -1), 0);
        strbuf_reset(&text);
        assert_int_equal(cgroup_conf_render(&p, NULL, &text, &err), 0);
        assert_string_equal(text.buf, v2);
        assert_int_equal(cgroup_conf_write(&p, text.buf, text.len, &err), 1);
        /* a bad template gives nothing to write */
        const char *bad = "ConstrainCores=yes\nNoSuchKey=1\n";
        assert_int_equal(write_file_atomic(tmpl, bad, strlen(bad), 0644, (uid_t) -1, (gid_t) -1), 0);
        strbuf_reset(&text);
        assert_int_equal(cgroup_conf_render(&p, NULL, &text, &err), -EINVAL);
        assert_int_equal(text.len, 0);
        assert_non_null(strstr(err.buf, "line 2: \"NoSuchKey\""));
        /* no template: the error names it */
        assert_int_equal(unlink(tmpl), 0);
        strbuf_reset(&err);
        assert_int_equal(cgroup_conf_render(&p, NULL, &text, &err), -ENOENT);
        assert_non_null(strstr(err.buf, "templates/cgroup.conf"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_template),
                cmocka_unit_test(test_check),
                cmocka_unit_test(test_install),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
