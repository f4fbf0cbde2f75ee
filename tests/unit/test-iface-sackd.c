/* SPDX-License-Identifier: Apache-2.0 */
/* interfaces/sackd: what the login units take from the controllers (issue 30 §2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "interfaces/sackd.h"
#include "util/alloc.h"

#define ID "secret:cuv2k0vmp25c7ek6kqag"
#define CTLS "[\"juju-m-0:6817\",\"juju-m-1:6817\"]"
static const char conf[] = "# Written by the slurmctld charm \xe2\x80\x94 a comment in UTF-8\n"
                           "ClusterName=alpha\nSlurmctldHost=juju-m-0(10.0.0.2)\n"
                           "SlurmctldHost=juju-m-1(10.0.0.3)\n\tMpiDefault=pmix\n";

static void test_decode(void **state) {
        struct login_data d = LOGIN_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(login_data_decode(ID, "alpha", CTLS, conf, &d, &err), 0);
        assert_string_equal(d.auth_key_id, ID);
        assert_string_equal(d.cluster, "alpha");
        assert_int_equal(d.controllers.n, 2);
        assert_string_equal(d.controllers.v[0], "juju-m-0:6817");
        assert_string_equal(d.controllers.v[1], "juju-m-1:6817");
        assert_string_equal(d.slurm_conf, conf);
        /* a second decode replaces the first */
        assert_int_equal(login_data_decode(ID, "alpha", "[\"juju-m-1:6817\"]", conf, &d, &err), 0);
        assert_int_equal(d.controllers.n, 1);
        login_data_clear(&d);
        assert_null(d.slurm_conf);
        assert_int_equal(d.controllers.n, 0);
}

/* any key missing or empty: not published yet */
static void test_not_yet(void **state) {
        struct login_data d = LOGIN_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(login_data_decode(NULL, "alpha", CTLS, conf, &d, &err), -ENODATA);
        assert_int_equal(login_data_decode(ID, "", CTLS, conf, &d, &err), -ENODATA);
        assert_int_equal(login_data_decode(ID, "alpha", NULL, conf, &d, &err), -ENODATA);
        assert_int_equal(login_data_decode(ID, "alpha", CTLS, "", &d, &err), -ENODATA);
        assert_int_equal(err.len, 0);
        assert_null(d.cluster);
}

/* bad data: refused with a message, what was decoded before kept */
static void test_refused(void **state) {
        struct login_data d = LOGIN_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(login_data_decode(ID, "alpha", CTLS, conf, &d, &err), 0);
        static const struct {
                const char *id, *cluster, *ctls, *conf, *msg;
        } cases[] = {
                { "not-a-secret", "alpha", CTLS, conf, "auth_key_id" },
                { ID, "Alpha!", CTLS, conf, "cluster_name is not a cluster name" },
                { ID, "alpha", "[\"juju-m-0\"]", conf, "controller" },
                { ID, "alpha", "{}", conf, "controllers" },
                { ID, "alpha", CTLS, "ClusterName=beta\n", "names cluster \"beta\", cluster_name \"alpha\"" },
                { ID, "alpha", CTLS, "SlurmctldHost=juju-m-0\n", "has no ClusterName" },
                { ID, "alpha", CTLS, "ClusterName=alpha\nInclude /etc/slurm/nodes.conf\n", "includes another file" },
                { ID, "alpha", CTLS, "ClusterName=alpha\n  include\tx.conf\n", "includes another file" },
                /* as Slurm reads it: an escape, a continued line, blanks around "=", several keys on
                 * a line (the last ClusterName counts) */
                { ID, "alpha", CTLS, "ClusterName=alpha\nIn\\clude /etc/shadow\n", "includes another file" },
                { ID, "alpha", CTLS, "ClusterName=alpha\nInc\\\nlude /etc/shadow\n", "includes another file" },
                { ID, "alpha", CTLS, "ClusterName=alpha\nClusterName = beta\n", "names cluster \"beta\"" },
                { ID, "alpha", CTLS, "ClusterName=alpha\nSlurmctldPort=6817 ClusterName=beta\n", "names cluster \"beta\"" },
                { ID, "alpha", CTLS, "ClusterName=alpha\nNoSuchKey=1\n", "NoSuchKey" },
                { ID, "alpha", CTLS, "ClusterName=alpha\nMpiDefault=pmix\x01\n", "slurm-conf: " },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                strbuf_reset(&err);
                assert_int_equal(login_data_decode(cases[i].id, cases[i].cluster, cases[i].ctls, cases[i].conf, &d, &err),
                        -EINVAL);
                if (!strstr(err.buf, cases[i].msg))
                        fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.buf, cases[i].msg);
                assert_string_equal(d.cluster, "alpha");
                assert_int_equal(d.controllers.n, 2);
        }
        /* what Slurm takes: a trailing comment, a quoted value, blanks around the value */
        strbuf_reset(&err);
        assert_int_equal(login_conf_text_check("alpha", "ClusterName=alpha # note\n", &err), 0);
        assert_int_equal(login_conf_text_check("alpha", "ClusterName=\"alpha\"\n", &err), 0);
        assert_int_equal(login_conf_text_check("alpha", " clustername = alpha \n", &err), 0);
        /* refused data left what was decoded before */
        assert_string_equal(d.slurm_conf, conf);
        assert_string_equal(d.auth_key_id, ID);
        /* too large */
        _cleanup_free_ char *big = xmalloc(SACKD_IFACE_MAX_CONF + 64);
        memset(big, '#', SACKD_IFACE_MAX_CONF + 63);
        memcpy(big, "ClusterName=alpha\n", 18);
        big[SACKD_IFACE_MAX_CONF + 63] = '\0';
        assert_int_equal(login_conf_text_check("alpha", big, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "more than"));
        login_data_clear(&d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decode),
                cmocka_unit_test(test_not_yet),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
