/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/dbdconf: slurmdbd.conf rendering and the serving units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/slurmdbd/dbdconf.h"
#include "charm/slurmdbd/dbdops.h"

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

static void test_client_conf(void **state) {
        const struct dbd_unit p = { "slurmdbd/0", "h0", "10.0.0.3" }, b = { "slurmdbd/1", "h1", "10.0.0.4" };
        char *ctls[] = { "10.0.0.1:6817", "ctl-b:6817" };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        dbd_client_conf_render(slurm_caps_find("24.11"), "cluster-1", ctls, 2, &p, &b, &out);
        assert_non_null(
                strstr(out.buf, "\nClusterName=cluster-1\nSlurmctldHost=10.0.0.1\nSlurmctldHost=ctl-b\n"));
        assert_non_null(strstr(out.buf, "\nSlurmUser=slurm\nAuthType=auth/slurm\n"));
        assert_non_null(strstr(out.buf, "\nAccountingStorageHost=10.0.0.3\nAccountingStoragePort=6819\n"));
        assert_non_null(strstr(out.buf, "\nAccountingStorageBackupHost=10.0.0.4\n"));
}

/* The actions' names and text (charm/slurmdbd/dbdops.h). */
static void test_ops_names(void **state) {
        assert_true(dbd_ops_name_valid("physics-2_x"));
        assert_false(dbd_ops_name_valid("Physics"));
        assert_false(dbd_ops_name_valid("a b"));
        assert_false(dbd_ops_name_valid(""));
        assert_false(dbd_ops_name_valid(NULL));
        assert_true(dbd_ops_user_valid("_svc"));
        assert_false(dbd_ops_user_valid("1alice"));
        assert_false(dbd_ops_user_valid("abcdefghijklmnopqrstuvwxyz0123456"));
        assert_true(dbd_ops_text_valid("Physics dept, 3rd floor"));
        assert_false(dbd_ops_text_valid("it's"));
        assert_false(dbd_ops_text_valid("a\nb"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_render),
                cmocka_unit_test(test_pick),
                cmocka_unit_test(test_client_conf),
                cmocka_unit_test(test_ops_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
