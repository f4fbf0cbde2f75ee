/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/nodepaths: which keys a compute unit checks on its machine (the
 * NODE ones, not the controller's), SlurmdLogFile's owner from SlurmdUser, and whose drain
 * reason is the charm's. The guard's drain and resume talk to slurmctld: the cluster test
 * charm-paths covers them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "charm/common/nodepaths.h"
#include "tmpdir.h"

#include "util/banned.h"

static char *root;

static void mk(const char *rel, bool dir, mode_t mode) {
        assert_int_equal(test_mk(root, rel, dir, mode), 0);
}

static int setup(void **state) {
        root = test_tmpdir_make("test-charm-nodepaths");
        assert_non_null(root);
        assert_int_equal(chmod(root, 0755), 0);
        static const char *const dirs[] = { "/etc", "/etc/slurm", "/etc/slurm/scripts", "/var", "/var/log",
                "/var/log/slurm", NULL };
        for (size_t i = 0; dirs[i]; i++)
                mk(dirs[i], true, 0755);
        mk("/etc/slurm/scripts/prolog", false, 0755);
        mk("/etc/slurm/scripts/open", false, 0777);
        mk("/var/log/slurm/slurmd.log", false, 0644);
        return 0;
}

static int teardown(void **state) {
        test_tmpdir_remove(root);
        return 0;
}

static int check(const char *text, struct strbuf *why) {
        const struct charm_paths p = { .root = root };
        strbuf_reset(why);
        return node_paths_check(&p, text, strlen(text), why);
}

static void test_check(void **state) {
        if (geteuid() != 0)
                skip(); /* the files must be root's */
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(check("Prolog=/etc/slurm/scripts/prolog\nSlurmdLogFile=/var/log/slurm/slurmd.log\n", &why), 0);
        /* the controller's programs are not this machine's to judge */
        assert_int_equal(check("PrologSlurmctld=/etc/slurm/scripts/missing\n", &why), 0);
        assert_int_equal(check("Epilog=/etc/slurm/scripts/open\n", &why), 1);
        assert_non_null(strstr(why.buf, "Epilog: \"/etc/slurm/scripts/open\" is not root's alone"));
        assert_int_equal(check("HealthCheckProgram=/etc/slurm/scripts/missing\n", &why), 1);
        assert_non_null(strstr(why.buf, "HealthCheckProgram: "));
        /* SlurmdUser decides the log's owner: root's file, SlurmdUser=nobody → refused */
        assert_int_equal(check("SlurmdUser=nobody\nSlurmdLogFile=/var/log/slurm/slurmd.log\n", &why), 1);
        assert_non_null(strstr(why.buf, "belongs to uid 0"));
        assert_int_equal(check("SlurmdUser=0\nSlurmdLogFile=/var/log/slurm/slurmd.log\n", &why), 0);
}

static void test_reason(void **state) {
        assert_true(node_paths_reason_ours(NODE_PATHS_REASON));
        assert_false(node_paths_reason_ours("admin: bad disk"));
        assert_false(node_paths_reason_ours(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_check, setup, teardown),
                cmocka_unit_test(test_reason),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
