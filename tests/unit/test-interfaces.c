/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for interfaces/slurmd: encode/decode of both sides' databags, and refusal of
 * everything malformed or hostile the other side could send. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/strbuf.h"
#include "database.h"
#include "slurmd.h"
#include "slurmdbd.h"
#include "util/alloc.h"

static void test_compute_round_trip(void **state) {
        _cleanup_slurm_options_ struct slurm_options params = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(slurm_options_parse("MaxTime=1-00:00:00 DefaultTime=01:00:00",
                                 SLURM_OPTIONS_PARTITION, &params, &err),
                0);

        _cleanup_free_ char *part = NULL, *ns = NULL;
        assert_int_equal(compute_data_encode("compute", &params, &part, &ns), 0);
        assert_string_equal(ns, "{\"NodeSet\":\"compute\",\"Feature\":\"compute\"}");
        assert_non_null(strstr(part, "\"PartitionName\":\"compute\""));

        struct compute_data d = COMPUTE_DATA_INIT;
        assert_int_equal(compute_data_decode("compute", part, ns, &d, &err), 0);
        assert_string_equal(d.name, "compute");
        assert_int_equal(d.partition.n, 2);
        assert_string_equal(slurm_options_get(&d.partition, "MaxTime"), "1-00:00:00");
        assert_null(slurm_options_get(&d.partition, "PartitionName"));
        compute_data_clear(&d);
}

static void test_compute_encode_refuses(void **state) {
        _cleanup_slurm_options_ struct slurm_options params = SLURM_OPTIONS_INIT;
        char *part = NULL, *ns = NULL;
        assert_int_equal(compute_data_encode("Bad_Name", &params, &part, &ns), -EINVAL);
        slurm_options_set(&params, "Nodes", "x");
        assert_int_equal(compute_data_encode("compute", &params, &part, &ns), -EINVAL);
        assert_null(part);
}

static void test_compute_not_ready(void **state) {
        struct compute_data d = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(compute_data_decode("compute", NULL, NULL, &d, &err), -ENODATA);
        assert_int_equal(compute_data_decode("compute", "", "{}", &d, &err), -ENODATA);
        assert_int_equal(err.len, 0);
        assert_null(d.name);
}

static const char *const good_ns = "{\"NodeSet\":\"compute\",\"Feature\":\"compute\"}";

static void expect_bad_compute(const char *part, const char *ns, const char *msg) {
        struct compute_data d = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = compute_data_decode("compute", part, ns, &d, &err);
        if (r != -EINVAL)
                fail_msg("decode of %.80s gave %d, not -EINVAL", part, r);
        if (!strstr(err.buf, msg))
                fail_msg("message \"%s\" lacks \"%s\"", err.buf, msg);
        assert_null(d.name);
        assert_null(strchr(err.buf, '\n'));
}

static void test_compute_bad(void **state) {
        expect_bad_compute("{", good_ns, "not valid JSON");
        expect_bad_compute("[]", good_ns, "not a JSON object");
        expect_bad_compute("{\"PartitionName\":\"other\",\"Nodes\":\"compute\"}", good_ns,
                "PartitionName \"other\" is not the application name");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"ALL\"}", good_ns, "Nodes \"ALL\"");
        expect_bad_compute("{\"PartitionName\":\"compute\"}", good_ns, "has no Nodes");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"MaxTime\":5}", good_ns,
                "\"MaxTime\" is not a string");
        expect_bad_compute(
                "{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"Bogus\":\"1\"}", good_ns, "Bogus");
        /* a value that would smuggle a second line or key into slurm.conf */
        expect_bad_compute(
                "{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"MaxTime\":\"1\\nNodeName=x\"}",
                good_ns, "partition:");
        expect_bad_compute(
                "{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"MaxTime\":\"1\\\" Nodes=\\\"x\"}",
                good_ns, "partition:");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"MaxTime\":\"1\\u0000x\"}",
                good_ns, "partition");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"TRESBillingWeights\":"
                           "\"CPU=1.0 Nodes=ALL\"}",
                good_ns, "TRESBillingWeights: \"CPU=1.0 Nodes=ALL\"");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"MaxTime\":\"forever\"}",
                good_ns, "MaxTime: \"forever\" is not a time");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"compute\"}",
                "{\"NodeSet\":\"compute\",\"Feature\":\"compute\",\"Nodes\":\"x\"}", "other than NodeSet");
        expect_bad_compute("{\"PartitionName\":\"compute\",\"Nodes\":\"compute\"}",
                "{\"NodeSet\":\"compute\",\"Feature\":\"gpu\"}", "Feature \"gpu\"");

        /* a value with a space stays one (quoted) value: it cannot become a second key */
        {
                struct compute_data d = COMPUTE_DATA_INIT;
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
                assert_int_equal(compute_data_decode("compute",
                                         "{\"PartitionName\":\"compute\",\"Nodes\":\"compute\","
                                         "\"AllowGroups\":\"hpc Nodes\"}",
                                         good_ns, &d, &err),
                        0);
                assert_int_equal(d.partition.n, 1);
                slurm_options_render(&d.partition, &line);
                assert_string_equal(line.buf, "AllowGroups=\"hpc Nodes\"");
                compute_data_clear(&d);
        }

        /* oversized */
        _cleanup_strbuf_ struct strbuf big = STRBUF_INIT;
        strbuf_addstr(&big, "{\"PartitionName\":\"compute\",\"Nodes\":\"compute\",\"x\":\"");
        for (int i = 0; i < SLURMD_IFACE_MAX_VALUE; i++)
                strbuf_addch(&big, 'a');
        strbuf_addstr(&big, "\"}");
        expect_bad_compute(big.buf, good_ns, "larger than");

        /* a remote application whose name cannot be a partition */
        struct compute_data d = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(compute_data_decode("a b", "{}", "{}", &d, &err), -EINVAL);
}

static void test_app_names(void **state) {
        assert_true(slurmd_iface_valid_app_name("slurmd"));
        assert_true(slurmd_iface_valid_app_name("gpu-nodes2"));
        assert_false(slurmd_iface_valid_app_name(""));
        assert_false(slurmd_iface_valid_app_name("2nodes"));
        assert_false(slurmd_iface_valid_app_name("nodes-"));
        assert_false(slurmd_iface_valid_app_name("a--b"));
        assert_false(slurmd_iface_valid_app_name("Nodes"));
        assert_false(slurmd_iface_valid_app_name("a_b"));
        assert_false(slurmd_iface_valid_app_name("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
        /* Juju's grammar: every part after a hyphen holds a letter, so no application name
         * equals a node name "<app>-<unit number>" */
        assert_false(slurmd_iface_valid_app_name("cpu-1"));
        assert_false(slurmd_iface_valid_app_name("cpu-12-gpu-3"));
        assert_true(slurmd_iface_valid_app_name("cpu-1a"));
        assert_true(slurmd_iface_valid_app_name("cpu-a1-b"));
        assert_true(slurmd_iface_valid_app_name("h100"));
        /* Slurm keywords where application names go */
        assert_non_null(slurmd_iface_reserved_name("all"));
        assert_non_null(slurmd_iface_reserved_name("default"));
        assert_non_null(slurmd_iface_reserved_name("DEFAULT"));
        assert_null(slurmd_iface_reserved_name("defaults"));
        assert_false(slurmd_iface_usable_app_name("all"));
        assert_true(slurmd_iface_usable_app_name("allgpu"));
}

static void test_controllers(void **state) {
        char *list[] = { "juju-m-0:6817", "10.1.2.3:6817", NULL };
        _cleanup_free_ char *json = NULL;
        assert_int_equal(controllers_encode(list, &json), 0);
        assert_string_equal(json, "[\"juju-m-0:6817\",\"10.1.2.3:6817\"]");

        struct controller_data d = CONTROLLER_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(controller_data_decode("secret:cn5ljhpgrlb5n1u1dns0", json, &d, &err), 0);
        assert_int_equal(d.controllers.n, 2);
        assert_string_equal(d.controllers.v[0], "juju-m-0:6817");
        assert_string_equal(d.auth_key_id, "secret:cn5ljhpgrlb5n1u1dns0");
        controller_data_clear(&d);

        assert_int_equal(controller_data_decode(NULL, json, &d, &err), -ENODATA);
        assert_int_equal(controller_data_decode("secret:x", NULL, &d, &err), -ENODATA);

        char *bad[] = { "host", NULL };
        char *out = NULL;
        assert_int_equal(controllers_encode(bad, &out), -EINVAL);
        char *none[] = { NULL };
        assert_int_equal(controllers_encode(none, &out), -EINVAL);
}

static void expect_bad_ctl(const char *id, const char *json, const char *msg) {
        struct controller_data d = CONTROLLER_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(controller_data_decode(id, json, &d, &err), -EINVAL);
        if (!strstr(err.buf, msg))
                fail_msg("message \"%s\" lacks \"%s\"", err.buf, msg);
        assert_null(d.auth_key_id);
}

static void test_controllers_bad(void **state) {
        const char *id = "secret:abc";
        expect_bad_ctl("key-in-clear", "[\"a:1\"]", "not a secret id");
        expect_bad_ctl("secret:a b", "[\"a:1\"]", "not a secret id");
        expect_bad_ctl(id, "{}", "not a JSON list");
        expect_bad_ctl(id, "[]", "empty");
        expect_bad_ctl(id, "[1]", "not host:port");
        expect_bad_ctl(id, "[\"a\"]", "not host:port");
        expect_bad_ctl(id, "[\"a:0\"]", "not host:port");
        expect_bad_ctl(id, "[\"a:65536\"]", "not host:port");
        expect_bad_ctl(id, "[\"a b:1\"]", "not host:port");
        expect_bad_ctl(id, "[\"-a:1\"]", "not host:port");
        expect_bad_ctl(id, "[\"a:1 --conf x\"]", "not host:port");
        expect_bad_ctl(id, "[\"a:1\",\"a:1\"]", "twice");
        expect_bad_ctl(id,
                "[\"a:1\",\"a:2\",\"a:3\",\"a:4\",\"a:5\",\"a:6\",\"a:7\",\"a:8\",\"a:9\",\"a:10\","
                "\"a:11\",\"a:12\",\"a:13\",\"a:14\",\"a:15\",\"a:16\",\"a:17\"]",
                "more than");
}

/* gpu-devices: a unit's device files, checked before any of it reaches gres.conf */
static void test_node_resources(void **state) {
        const struct node_resources good = { .cpus = 2, .real_memory = 24105, .mem_spec_limit = 0 };
        _cleanup_free_ char *json = NULL;
        assert_int_equal(node_resources_encode(&good, &json), 0);
        assert_string_equal(json, "{\"cpus\":2,\"real-memory\":24105,\"mem-spec-limit\":0}");
        struct node_resources back = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(node_resources_decode(json, &back, &err), 0);
        assert_int_equal(back.cpus, 2);
        assert_int_equal(back.real_memory, 24105);
        assert_int_equal(back.mem_spec_limit, 0);
        /* mem-spec-limit may be left out */
        assert_int_equal(node_resources_decode("{\"cpus\":64,\"real-memory\":515000}", &back, &err), 0);
        assert_int_equal(back.cpus, 64);
        assert_int_equal(node_resources_decode("", &back, &err), -ENODATA);
        assert_int_equal(node_resources_decode(NULL, &back, &err), -ENODATA);
        static const char *const bad[] = {
                "[]", "{", "{\"cpus\":2}", "{\"real-memory\":100}", "{\"cpus\":0,\"real-memory\":100}",
                "{\"cpus\":65536,\"real-memory\":100}", "{\"cpus\":1.5,\"real-memory\":100}",
                "{\"cpus\":-1,\"real-memory\":100}", "{\"cpus\":\"2\",\"real-memory\":100}",
                "{\"cpus\":2,\"real-memory\":100,\"mem-spec-limit\":100}",
                "{\"cpus\":2,\"real-memory\":2e15}", "{\"cpus\":2,\"real-memory\":100,\"gpus\":1}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                back = (struct node_resources){ .cpus = 7 };
                if (node_resources_decode(bad[i], &back, &err) != -EINVAL)
                        fail_msg("accepted %s", bad[i]);
                assert_int_equal(back.cpus, 7); /* untouched */
                assert_true(err.len > 0);
        }
        const struct node_resources wrong = { .cpus = 2, .real_memory = 100, .mem_spec_limit = 100 };
        _cleanup_free_ char *j2 = NULL;
        assert_int_equal(node_resources_encode(&wrong, &j2), -EINVAL);
}

static void test_gpu_devices(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_strv_ struct strv v = STRV_INIT;
        _cleanup_free_ char *json = NULL;
        char *files[] = { (char *) "/dev/nvidia0", (char *) "/dev/dri/card1", NULL };

        assert_int_equal(gpu_devices_encode(files, &json), 0);
        assert_string_equal(json, "[\"/dev/nvidia0\",\"/dev/dri/card1\"]");
        assert_int_equal(gpu_devices_decode(json, &v, &err), 0);
        assert_int_equal(v.n, 2);
        assert_string_equal(v.v[1], "/dev/dri/card1");
        strv_clear(&v);
        assert_int_equal(gpu_devices_decode(NULL, &v, &err), 0); /* absent: no GPUs */
        assert_int_equal(gpu_devices_decode("[]", &v, &err), 0);
        assert_int_equal(v.n, 0);

        const struct {
                const char *json, *msg;
        } bad[] = {
                { "{}", "gpu-devices: not a JSON list" },
                { "nope", "gpu-devices: not a JSON list" },
                { "[1]", "gpu-devices: an item is not a device file path under /dev" },
                { "[\"/etc/passwd\"]", "gpu-devices: \"/etc/passwd\" is not a device file path under /dev" },
                { "[\"/dev/../etc/shadow\"]", "is not a device file path" },
                { "[\"/dev/./nvidia0\"]", "is not a device file path" },
                { "[\"/dev//nvidia0\"]", "is not a device file path" },
                { "[\"/dev/nvidia0/\"]", "is not a device file path" },
                { "[\"/dev/\"]", "is not a device file path" },
                { "[\"/dev/nvidia0 File=/x\"]", "is not a device file path" },
                { "[\"/dev/nvidia0\\nNodeName=x\"]", "is not a device file path" },
                { "[\"/dev/nvidia0\",\"/dev/nvidia0\"]", "listed twice" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                if (gpu_devices_decode(bad[i].json, &v, &err) != -EINVAL || !strstr(err.buf, bad[i].msg))
                        fail_msg("%s: \"%s\"", bad[i].json, err.buf);
                assert_int_equal(v.n, 0); /* nothing half-decoded */
        }
        /* 65 devices: too many */
        _cleanup_strbuf_ struct strbuf many = STRBUF_INIT;
        strbuf_addch(&many, '[');
        for (int i = 0; i < 65; i++)
                strbuf_addf(&many, "%s\"/dev/nvidia%d\"", i ? "," : "", i);
        strbuf_addch(&many, ']');
        assert_int_equal(gpu_devices_decode(many.buf, &v, &err), -EINVAL);
        char *twice[] = { (char *) "/dev/nvidia0", (char *) "/dev/nvidia0", NULL };
        char *badp[] = { (char *) "/dev/../x", NULL };
        _cleanup_free_ char *j2 = NULL;
        assert_int_equal(gpu_devices_encode(twice, &j2), -EINVAL);
        assert_int_equal(gpu_devices_encode(badp, &j2), -EINVAL);
}

/* gres: which nodes the controller serves with which files */
static void test_gres_served(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char *two[] = { (char *) "/dev/nvidia0", (char *) "/dev/nvidia1", NULL };
        char *one[] = { (char *) "/dev/nvidia0", NULL };
        const char *served = "{\"/dev/nvidia0,/dev/nvidia1\":\"gpu-[0-2,5]\",\"/dev/nvidia0\":\"gpu-7\"}";

        assert_int_equal(gres_served_covers(served, "gpu-1", two, &err), 1);
        assert_int_equal(gres_served_covers(served, "gpu-7", one, &err), 1);
        assert_int_equal(gres_served_covers(served, "gpu-7", two, &err), 0); /* other files */
        assert_int_equal(gres_served_covers(served, "gpu-3", two, &err), 0); /* not listed */
        assert_int_equal(gres_served_covers(NULL, "gpu-1", two, &err), 0);   /* nothing yet */
        assert_int_equal(gres_served_covers("{}", "gpu-1", two, &err), 0);
        assert_int_equal(err.len, 0);
        assert_int_equal(gres_served_covers("[]", "gpu-1", two, &err), -EINVAL);
        assert_int_equal(gres_served_covers("{\"/dev/nvidia0\":\"gpu-[\"}", "gpu-1", one, &err), -EINVAL);
        assert_int_equal(gres_served_covers("{\"/dev/nvidia0\":3}", "gpu-1", one, &err), -EINVAL);
}

/* interfaces/slurmdbd.h: where slurmdbd serves, the key from the controllers */
static void test_slurmdbd(void **state) {
        _cleanup_strv_ struct strv h = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *key = NULL;
        assert_int_equal(dbd_hosts_decode(NULL, &h, &err), -ENODATA);
        assert_int_equal(dbd_hosts_decode("[\"10.0.0.3:6819\",\"10.0.0.5:6819\"]", &h, &err), 0);
        assert_int_equal(h.n, 2);
        assert_string_equal(h.v[0], "10.0.0.3:6819");
        const char *bad[] = { "[]", "[\"a:1\",\"b:1\",\"c:1\"]", "[\"a:1\",\"a:1\"]", "[\"a b:1\"]",
                "[\"a:0\"]", "{}", "[1]", "x" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                assert_int_equal(dbd_hosts_decode(bad[i], &h, &err), -EINVAL);
                assert_true(err.len > 0);
                assert_int_equal(h.n, 2); /* untouched */
        }
        assert_int_equal(dbd_auth_key_decode("", &key, &err), -ENODATA);
        assert_int_equal(dbd_auth_key_decode("not-a-secret", &key, &err), -EINVAL);
        assert_null(key);
        assert_int_equal(dbd_auth_key_decode("secret:abc123", &key, &err), 0);
        assert_string_equal(key, "secret:abc123");

        _cleanup_free_ char *name = NULL;
        _cleanup_strv_ struct strv ctls = STRV_INIT;
        assert_int_equal(dbd_cluster_decode("c1", NULL, &name, &ctls, &err), -ENODATA);
        assert_int_equal(dbd_cluster_decode("Bad!", "[\"h:1\"]", &name, &ctls, &err), -EINVAL);
        assert_int_equal(dbd_cluster_decode("c1", "[]", &name, &ctls, &err), -EINVAL);
        assert_null(name);
        assert_int_equal(
                dbd_cluster_decode("cluster-0badcafe", "[\"10.0.0.1:6817\"]", &name, &ctls, &err), 0);
        assert_string_equal(name, "cluster-0badcafe");
        assert_int_equal(ctls.n, 1);
}

/* interfaces/database.h: the mysql_client provider's answer, the credentials */
static void test_database(void **state) {
        struct db_provider_data d = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(db_provider_data_decode(NULL, "secret:x1", "db", "db", &d, &err), -ENODATA);
        assert_int_equal(db_provider_data_decode("10.0.0.9:3306", NULL, "db", "db", &d, &err), -ENODATA);
        assert_int_equal(
                db_provider_data_decode("10.0.0.9:3306,10.0.0.10:3306", "secret:x1", "db", "db", &d, &err),
                0);
        assert_string_equal(d.host, "10.0.0.9");
        assert_int_equal(d.port, 3306);
        assert_string_equal(d.secret_id, "secret:x1");
        const char *bad[][3] = { { "10.0.0.9", "secret:x1", "db" }, { "h:99999", "secret:x1", "db" },
                { "h:1", "password=x", "db" }, { "h:1", "secret:x1", "other" } };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                assert_int_equal(
                        db_provider_data_decode(bad[i][0], bad[i][1], bad[i][2], "db", &d, &err), -EINVAL);
                assert_string_equal(d.host, "10.0.0.9"); /* untouched */
        }
        db_provider_data_clear(&d);
        assert_true(db_name_valid("slurm_acct_db"));
        assert_false(db_name_valid("Slurm"));
        assert_false(db_name_valid("a;drop"));
        assert_false(db_name_valid(""));

        assert_int_equal(db_credentials_check("rel3", "Abc123xyz", &err), 0);
        const char *badpass[] = { "short", "has space1", "hash#tag1", "quote\"1234", "back\\slash1" };
        for (size_t i = 0; i < ELEMENTSOF(badpass); i++) {
                strbuf_reset(&err);
                assert_int_equal(db_credentials_check("rel3", badpass[i], &err), -EINVAL);
                assert_null(strstr(err.buf, badpass[i])); /* never quoted */
        }
        assert_int_equal(db_credentials_check("", "Abc123xyz", &err), -EINVAL);
        assert_int_equal(db_credentials_check("a'b", "Abc123xyz", &err), -EINVAL);
}

static void test_generation(void **state) {
        _cleanup_free_ char *json = NULL;
        assert_int_equal(slurm_generation_encode("24.11.5", "auth/slurm", &json), 0);
        assert_string_equal(json, "{\"version\":\"24.11.5\",\"auth\":\"auth/slurm\"}");
        _cleanup_(slurm_generation_clear) struct slurm_generation g = SLURM_GENERATION_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(slurm_generation_decode(json, &g, &err), 0);
        assert_string_equal(g.version, "24.11.5");
        assert_string_equal(g.auth, "auth/slurm");
        /* absent: a charm from before the key */
        assert_int_equal(slurm_generation_decode(NULL, &g, &err), -ENODATA);
        assert_int_equal(slurm_generation_decode("", &g, &err), -ENODATA);
        assert_string_equal(g.version, "24.11.5");
        /* the encoder takes only the shapes the decoder accepts */
        static const char *const bad_versions[] = { "24.11", "24.11.5.1", "24..5", ".24.11", "24.11.",
                "v24.11.5", "24.11.5-1", "1234567.1.1", "", NULL };
        for (size_t i = 0; bad_versions[i]; i++) {
                char *x = NULL;
                assert_int_equal(slurm_generation_encode(bad_versions[i], "auth/slurm", &x), -EINVAL);
                assert_null(x);
        }
        static const char *const bad_auth[] = { "slurm", "auth/", "auth/Slurm", "auth/slurm;x",
                "auth/munge ", NULL };
        for (size_t i = 0; bad_auth[i]; i++) {
                char *x = NULL;
                assert_int_equal(slurm_generation_encode("22.05.8", bad_auth[i], &x), -EINVAL);
        }
        /* bad data from the other side: one message, ret untouched */
        static const char *const bad[] = { "[]", "{", "{\"version\":\"24.11.5\"}",
                "{\"version\":24,\"auth\":\"auth/slurm\"}",
                "{\"version\":\"24.11\",\"auth\":\"auth/slurm\"}",
                "{\"version\":\"24.11.5\",\"auth\":\"munge\"}",
                "{\"version\":\"24.11.5\",\"auth\":\"auth/sl\\u0000x\"}", NULL };
        for (size_t i = 0; bad[i]; i++) {
                strbuf_reset(&err);
                if (slurm_generation_decode(bad[i], &g, &err) != -EINVAL)
                        fail_msg("accepted %s", bad[i]);
                assert_true(err.len > 0);
                assert_null(strchr(err.buf, '\n'));
                assert_string_equal(g.version, "24.11.5");
        }
        strbuf_reset(&err);
        slurm_generation_decode("{\"version\":\"9.9.9.9\",\"auth\":\"auth/slurm\"}", &g, &err);
        assert_string_equal(
                err.buf, "relation data: slurm has no version of the form 24.11.5 (\"9.9.9.9\")");
}


/* node-programs and node-programs-verdict (issue 26 item 1): sets over slurmd's program keys,
 * keys sorted, canonical spelling; anything else from the other side refused. */
static void test_node_progs(void **state) {
        _cleanup_(slurm_options_clearp) struct slurm_options want = SLURM_OPTIONS_INIT, live = SLURM_OPTIONS_INIT,
                                                             w2 = SLURM_OPTIONS_INIT, l2 = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *json = NULL, *v = NULL, *why = NULL;
        assert_string_equal(slurmd_iface_node_prog_key("prolog"), "Prolog");
        assert_string_equal(slurmd_iface_node_prog_key("SLURMDUSER"), "SlurmdUser");
        assert_null(slurmd_iface_node_prog_key("PrologSlurmctld"));
        assert_null(slurmd_iface_node_prog_key("MaxJobCount"));
        slurm_options_set(&want, "Prolog", "/etc/slurm/scripts/p");
        slurm_options_set(&want, "Epilog", "/etc/slurm/scripts/e");
        assert_int_equal(node_progs_encode(&want, &live, &json), 0);
        assert_string_equal(json,
                "{\"live\":{},\"want\":{\"Epilog\":\"/etc/slurm/scripts/e\",\"Prolog\":\"/etc/slurm/scripts/p\"}}");
        assert_int_equal(node_progs_decode(json, &w2, &l2, &e), 0);
        assert_int_equal(w2.n, 2);
        assert_int_equal(l2.n, 0);
        assert_string_equal(slurm_options_get(&w2, "Prolog"), "/etc/slurm/scripts/p");
        assert_int_equal(node_progs_decode(NULL, &w2, &l2, &e), -ENODATA);
        assert_int_equal(node_progs_decode("", &w2, &l2, &e), -ENODATA);
        static const char *const bad[] = {
                "[]",
                "{\"want\":{}}",
                "{\"want\":{\"MaxJobCount\":\"1\"},\"live\":{}}",
                "{\"want\":{\"prolog\":\"/x\"},\"live\":{}}",
                "{\"want\":{\"Prolog\":1},\"live\":{}}",
                "{\"want\":{\"Prolog\":\"/x y\"},\"live\":{}}",
                "{\"want\":{\"Prolog\":\"\"},\"live\":{}}",
                "{\"want\":{\"Prolog\":\"/a\",\"Prolog\":\"/b\"},\"live\":{}}",
                NULL,
        };
        for (size_t i = 0; bad[i]; i++) {
                strbuf_reset(&e);
                assert_int_equal(node_progs_decode(bad[i], &w2, &l2, &e), -EINVAL);
                assert_true(e.len > 0);
        }
        assert_int_equal(w2.n, 2); /* untouched */
        /* a key the encoder may not send */
        slurm_options_set(&live, "MaxJobCount", "1");
        free(json);
        json = NULL;
        assert_int_equal(node_progs_encode(&want, &live, &json), -EINVAL);
        /* the verdict */
        assert_int_equal(node_verdict_encode(&want, NULL, &v), 0);
        assert_string_equal(v,
                "{\"judged\":{\"Epilog\":\"/etc/slurm/scripts/e\",\"Prolog\":\"/etc/slurm/scripts/p\"},\"why\":\"\"}");
        assert_int_equal(node_verdict_decode(v, &w2, &why, &e), 0);
        assert_string_equal(why, "");
        assert_int_equal(w2.n, 2);
        free(v);
        v = NULL;
        assert_int_equal(node_verdict_encode(&want, "Prolog: missing", &v), 0);
        free(why);
        why = NULL;
        assert_int_equal(node_verdict_decode(v, &w2, &why, &e), 0);
        assert_string_equal(why, "Prolog: missing");
        free(why);
        why = NULL;
        strbuf_reset(&e);
        assert_int_equal(node_verdict_decode("{\"judged\":{},\"why\":\"a\\nb\"}", &w2, &why, &e), -EINVAL);
        assert_int_equal(node_verdict_decode("{\"judged\":{},\"why\":7}", &w2, &why, &e), -EINVAL);
        assert_int_equal(node_verdict_decode("{\"why\":\"\"}", &w2, &why, &e), -EINVAL);
        assert_null(why);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_compute_round_trip),
                cmocka_unit_test(test_generation),
                cmocka_unit_test(test_compute_encode_refuses),
                cmocka_unit_test(test_compute_not_ready),
                cmocka_unit_test(test_compute_bad),
                cmocka_unit_test(test_app_names),
                cmocka_unit_test(test_controllers),
                cmocka_unit_test(test_controllers_bad),
                cmocka_unit_test(test_gpu_devices),
                cmocka_unit_test(test_gres_served),
                cmocka_unit_test(test_slurmdbd),
                cmocka_unit_test(test_database),
                cmocka_unit_test(test_node_progs),
                cmocka_unit_test(test_node_resources),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
