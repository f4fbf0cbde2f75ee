/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for tools/juju-sim/bases: Juju 3.x's machine-charm bases, os-release values, and
 * juju-sim's machine bases (the host's, and debian@13 only where its root file system is). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "bases.h"

static void test_juju_bases(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(juju_base_check("ubuntu", "24.04", &err), 0);
        assert_int_equal(juju_base_check("ubuntu", "22.04/stable", &err), 0);
        assert_int_equal(juju_base_check("debian", "13", &err), -EINVAL);
        assert_string_equal(err.buf, "os \"debian\" not valid");
}

static void test_os_release_value(void **state) {
        const char *text = "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nVERSION_ID=\"13\"\nID=debian\n";
        _cleanup_free_ char *id = os_release_value(text, "ID"), *ver = os_release_value(text, "VERSION_ID");
        _cleanup_free_ char *none = os_release_value(text, "VERSION");
        assert_string_equal(id, "debian");
        assert_string_equal(ver, "13");
        assert_null(none);
}

static void test_machine_bases(void **state) {
        char dir[] = "/var/tmp/test-jsim-bases.XXXXXX";
        assert_non_null(mkdtemp(dir));
        setenv("SLURM_CHARMS_CACHE", dir, 1);
        _cleanup_free_ char *host = sim_host_base(), *rootfs = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        /* the host's base runs on the host's file system */
        if (host && !streq(host, "debian@13")) {
                char *none = xstrdup("unset");
                char *keep = none;
                assert_int_equal(sim_base_rootfs(host, &none, &err), 0);
                assert_null(none);
                free(keep);
        }
        /* debian@13 only once its tree is there (the stamp of tools/rootfs/build.sh) */
        if (!streq_ptr(host, "debian@13")) {
                assert_int_equal(sim_base_rootfs("debian@13", &rootfs, &err), -ENOENT);
                assert_non_null(strstr(err.buf, "tools/rootfs/build.sh debian@13"));
                _cleanup_free_ char *root = xasprintf("%s/rootfs/debian-13/root", dir);
                _cleanup_free_ char *stamp = xasprintf("%s/.slurm-charms-rootfs", root);
                assert_int_equal(mkdir_p(root, 0755), 0);
                assert_int_equal(write_file_atomic(stamp, "x\n", 2, 0644, (uid_t) -1, (gid_t) -1), 0);
                assert_int_equal(sim_base_rootfs("debian@13", &rootfs, &err), 0);
                assert_string_equal(rootfs, root);
                unlink(stamp);
                rmdir(root);
                _cleanup_free_ char *d1 = xasprintf("%s/rootfs/debian-13", dir),
                                    *d2 = xasprintf("%s/rootfs", dir);
                rmdir(d1);
                rmdir(d2);
        }
        strbuf_reset(&err);
        assert_int_equal(sim_base_rootfs("ubuntu@22.04", &rootfs, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "juju-sim has no machines of that base"));
        rmdir(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_juju_bases),
                cmocka_unit_test(test_os_release_value),
                cmocka_unit_test(test_machine_bases),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
