/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/sackd/loginconf: the login node's sackd options and its reading of scontrol ping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/sackd/loginconf.h"

static void test_defaults(void **state) {
        char *two[] = { "juju-m-0:6817", "juju-m-1:6817" };
        _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT, d = STRBUF_INIT;
        login_sackd_defaults_render(two, 2, "ClusterName=x\n", &a);
        assert_non_null(strstr(a.buf, "\nSACKD_OPTIONS=\"--conf-server juju-m-0:6817,juju-m-1:6817\"\n"));
        assert_int_equal(a.buf[a.len - 1], '\n');
        /* its first line tells this charm's file from another's (slurmdbd writes one on 24.11) */
        assert_non_null(startswith(a.buf, LOGIN_SACKD_DEFAULTS_HEAD));
        /* the same inputs, the same bytes (written only when they differ) */
        login_sackd_defaults_render(two, 2, "ClusterName=x\n", &b);
        assert_string_equal(a.buf, b.buf);
        /* another configuration: another file (sackd restarted), the options the same */
        login_sackd_defaults_render(two, 2, "ClusterName=x\nMaxJobCount=5000\n", &c);
        assert_string_not_equal(a.buf, c.buf);
        assert_non_null(strstr(c.buf, "\nSACKD_OPTIONS=\"--conf-server juju-m-0:6817,juju-m-1:6817\"\n"));
        /* another order: another file */
        char *swapped[] = { "juju-m-1:6817", "juju-m-0:6817" };
        login_sackd_defaults_render(swapped, 2, "ClusterName=x\n", &d);
        assert_non_null(strstr(d.buf, "--conf-server juju-m-1:6817,juju-m-0:6817\""));
}

/* Debian's own /etc/default/sackd (comments only) is not foreign, the charm's is not, and a
 * file that sets anything and is not the charm's is. */
static void test_defaults_foreign(void **state) {
        assert_false(login_sackd_defaults_foreign("# Additional options that are passed to the sackd daemon\n"
                                                  "#SACKD_OPTIONS=\"\"\n"));
        assert_false(login_sackd_defaults_foreign(""));
        assert_false(login_sackd_defaults_foreign("\n  \n\t# x\n"));
        assert_false(login_sackd_defaults_foreign(LOGIN_SACKD_DEFAULTS_HEAD ": x\nSACKD_OPTIONS=\"--conf-server a:6817\"\n"));
        assert_true(login_sackd_defaults_foreign("SACKD_OPTIONS=\"--conf-server other:6817\"\n"));
        assert_true(login_sackd_defaults_foreign("# site\n  SLURM_CONF=/etc/slurm/x.conf"));
        assert_false(login_sackd_defaults_foreign(NULL));
}

static void test_ping(void **state) {
        _cleanup_strv_ struct strv up = STRV_INIT, down = STRV_INIT;
        /* 22.05 and 24.11 print one line per controller */
        const char *out = "Slurmctld(primary) at juju-m-0 is UP\nSlurmctld(backup) at juju-m-1 is DOWN\n";
        assert_int_equal(login_ping_parse(out, &up, &down), 2);
        assert_int_equal(up.n, 1);
        assert_string_equal(up.v[0], "juju-m-0");
        assert_int_equal(down.n, 1);
        assert_string_equal(down.v[0], "juju-m-1");
        strv_clear(&up);
        strv_clear(&down);
        /* 24.11's form for a third controller, no final newline, noise around */
        out = "scontrol: error: something\n  Slurmctld(primary) at a is DOWN\nSlurmctld(backup1) at b is UP\n"
              "Slurmctld(backup2) at c is UP";
        assert_int_equal(login_ping_parse(out, &up, &down), 3);
        assert_int_equal(up.n, 2);
        assert_string_equal(up.v[1], "c");
        assert_string_equal(down.v[0], "a");
        strv_clear(&up);
        strv_clear(&down);
        /* nothing of that shape */
        assert_int_equal(login_ping_parse("", &up, &down), 0);
        assert_int_equal(login_ping_parse(NULL, &up, &down), 0);
        assert_int_equal(login_ping_parse("Slurmctld(primary) at  is UP\nSlurmctld(x) at h is MAYBE\n", &up, &down), 0);
        assert_int_equal(up.n + down.n, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_defaults_foreign),
                cmocka_unit_test(test_ping),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
