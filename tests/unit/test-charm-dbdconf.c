/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/dbdconf: slurmdbd.conf rendering and the serving units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/dbdconf.h"

static const char tmpl[] =
        "# comment\nDbdPort=6819\nSlurmUser=slurm\nStoragePass=from-template\nAuthType=auth/none\n";

static void test_render(void **state) {
        const struct dbd_unit p = { "slurmdbd/0", "juju-m-3", "10.0.0.3" },
                              b = { "slurmdbd/2", "juju-m-5", "10.0.0.5" };
        struct dbd_conf_input in = {
                .caps = slurm_caps_find("22.05"),
                .template_data = tmpl,
                .template_len = sizeof tmpl - 1,
                .primary = &p,
                .db_host = "10.0.0.9",
                .db_port = 3306,
                .db_user = "rel3",
                .db_pass = "s3cretXYZ",
                .db_name = "slurm_acct_db",
        };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
        assert_int_equal(dbd_conf_render(&in, &out, &err), 0);
        /* the template's own lines stay, the charm's keys replace the template's */
        assert_non_null(strstr(out.buf, "# comment\nDbdPort=6819\nSlurmUser=slurm\n"));
        assert_null(strstr(out.buf, "from-template"));
        assert_null(strstr(out.buf, "auth/none"));
        assert_non_null(strstr(out.buf, "\nAuthType=auth/munge\n"));
        assert_non_null(strstr(out.buf, "\nDbdHost=juju-m-3\nDbdAddr=10.0.0.3\n"));
        assert_null(strstr(out.buf, "DbdBackupHost"));
        assert_non_null(strstr(out.buf,
                "\nStorageHost=10.0.0.9\nStoragePort=3306\nStorageUser=rel3\nStoragePass="
                "s3cretXYZ\nStorageLoc=slurm_acct_db\n"));

        /* a backup; Slurm's own auth on 24.11 */
        in.backup = &b;
        in.caps = slurm_caps_find("24.11");
        strbuf_reset(&out);
        assert_int_equal(dbd_conf_render(&in, &out, &err), 0);
        assert_non_null(strstr(out.buf, "\nDbdBackupHost=juju-m-5\n"));
        assert_non_null(strstr(out.buf, "\nAuthType=auth/slurm\n"));

        /* a missing input renders nothing */
        in.db_pass = "";
        strbuf_reset(&out);
        assert_int_equal(dbd_conf_render(&in, &out, &err), -EINVAL);
        assert_int_equal(out.len, 0);
        in.db_pass = "x12345678";
        in.primary = NULL;
        assert_int_equal(dbd_conf_render(&in, &out, &err), -EINVAL);
}

static void test_pick(void **state) {
        const struct dbd_unit u[] = {
                { "slurmdbd/4", "h4", "a4" },
                { "slurmdbd/1", "h1", "a1" },
                { "slurmdbd/bad", "hx", "ax" },
                { "slurmdbd/12", "h12", "a12" },
                { "slurmdbd/2", "h2", "a2" },
        };
        long p, b;
        dbd_pick_serving(u, ELEMENTSOF(u), &p, &b);
        assert_int_equal(p, 1); /* the lowest unit numbers, not the first listed */
        assert_int_equal(b, 4);
        dbd_pick_serving(u, 1, &p, &b);
        assert_int_equal(p, 0);
        assert_int_equal(b, -1);
        dbd_pick_serving(u, 0, &p, &b);
        assert_int_equal(p, -1);
        assert_int_equal(b, -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_render),
                cmocka_unit_test(test_pick),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
