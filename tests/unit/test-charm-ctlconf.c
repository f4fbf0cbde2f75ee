/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/ctlconf: the controller's slurm.conf rendered from the real template
 * (templates/slurm.conf) and decoded relation data; bad inputs refused with clear messages;
 * same inputs give the same bytes; restart-or-reconfigure; cluster names; status line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ctlconf.h"
#include "slurm/caps.h"
#include "charm/slurmctld/slurmctld.h"
#include "slurmconf/conf.h"
#include "util/fileio.h"

#include "util/banned.h"

static char *tmpl;
static size_t tmpl_len;

static int load_template(void **state) {
        const char *top = getenv("TOP_SRCDIR");
        _cleanup_free_ char *path = xasprintf("%s/templates/slurm.conf", top ? top : ".");
        return read_full_file(path, &tmpl, &tmpl_len) < 0 ? -1 : 0;
}

static int free_template(void **state) {
        free(tmpl);
        return 0;
}

static void decode(const char *app, const char *params, struct compute_data *ret) {
        _cleanup_strbuf_ struct strbuf part = STRBUF_INIT, ns = STRBUF_INIT, err = STRBUF_INIT;
        strbuf_addf(&part, "{\"PartitionName\":\"%s\",\"Nodes\":\"%s\"%s%s}", app, app, params ? "," : "",
                params ? params : "");
        strbuf_addf(&ns, "{\"NodeSet\":\"%s\",\"Feature\":\"%s\"}", app, app);
        int r = compute_data_decode(app, part.buf, ns.buf, ret, &err);
        if (r < 0)
                fail_msg("decode %s: %s", app, err.buf);
}

static const struct ctl_controller ctl1[] = { { "juju-m-0", "10.1.2.3" } };

static struct ctl_conf_input input(const struct compute_data *parts, size_t n) {
        return (struct ctl_conf_input){
                .template_path = "templates/slurm.conf",
                .template_data = tmpl,
                .template_len = tmpl_len,
                .cluster_name = "cluster-0badcafe",
                .controllers = ctl1,
                .n_controllers = 1,
                .partitions = parts,
                .n_partitions = n,
        };
}

static int count_lines(const char *s, const char *prefix) {
        int n = 0;
        for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (startswith(p, prefix))
                        n++;
        return n;
}

static void test_render_basic(void **state) {
        struct compute_data d[2] = { COMPUTE_DATA_INIT, COMPUTE_DATA_INIT };
        decode("zeta", "\"MaxTime\":\"1-00:00:00\"", &d[0]);
        decode("compute", NULL, &d[1]);
        struct ctl_conf_input in = input(d, 2);
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, out2 = STRBUF_INIT, err = STRBUF_INIT;

        assert_int_equal(ctl_conf_render(&in, &out, &err), 0);
        assert_non_null(strstr(out.buf, "\nClusterName=cluster-0badcafe\n"));
        assert_non_null(strstr(out.buf, "\nSlurmctldHost=juju-m-0(10.1.2.3)\n"));
        assert_non_null(strstr(out.buf, "\nNodeSet=compute Feature=compute\n"));
        assert_non_null(strstr(out.buf, "\nNodeSet=zeta Feature=zeta\n"));
        /* written sorted by name; the first of the input is the default when default-partition
         * is empty */
        assert_non_null(strstr(out.buf, "\nPartitionName=compute Nodes=compute\n"));
        assert_non_null(strstr(out.buf, "\nPartitionName=zeta Nodes=zeta MaxTime=1-00:00:00 Default=YES\n"));
        assert_true(strstr(out.buf, "PartitionName=compute") < strstr(out.buf, "PartitionName=zeta"));
        assert_non_null(strstr(out.buf, "\nSlurmctldParameters=enable_configless\n"));
        assert_non_null(strstr(out.buf, "\nMaxNodeCount=1024\n"));
        assert_non_null(strstr(out.buf, "\nReturnToService=2\n"));
        assert_non_null(strstr(out.buf, "\nSelectType=select/cons_tres\n"));
        assert_int_equal(count_lines(out.buf, "NodeName="), 0);

        /* the result parses with the slurm.conf model */
        struct slurmconf *c = NULL;
        assert_int_equal(slurmconf_parse("x", out.buf, out.len, &c, &err), 0);
        slurmconf_free(c);

        /* same inputs, same bytes */
        assert_int_equal(ctl_conf_render(&in, &out2, &err), 0);
        assert_string_equal(out.buf, out2.buf);
        /* the input order only moves the default */
        struct compute_data swapped[2] = { d[1], d[0] };
        struct ctl_conf_input in2 = input(swapped, 2);
        strbuf_reset(&out2);
        assert_int_equal(ctl_conf_render(&in2, &out2, &err), 0);
        assert_non_null(strstr(out2.buf, "\nPartitionName=compute Nodes=compute Default=YES\n"));
        assert_non_null(strstr(out2.buf, "\nPartitionName=zeta Nodes=zeta MaxTime=1-00:00:00\n"));

        /* the auth plugins are the generation's, whatever the build: munge on 22.05, Slurm's
         * own on 24.11, and nothing else of the file changes with them */
        in.caps = slurm_caps_find("22.05");
        strbuf_reset(&out2);
        assert_int_equal(ctl_conf_render(&in, &out2, &err), 0);
        assert_non_null(strstr(out2.buf, "\nAuthType=auth/munge\nCredType=cred/munge\n"));
        in.caps = slurm_caps_find("24.11");
        _cleanup_strbuf_ struct strbuf out3 = STRBUF_INIT;
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_non_null(strstr(out3.buf, "\nAuthType=auth/slurm\nCredType=cred/slurm\n"));
        assert_null(strstr(out3.buf, "munge"));
        assert_non_null(strstr(out3.buf, "\nSlurmctldPidFile=/run/slurmctld/slurmctld.pid\n"));
        assert_non_null(strstr(out3.buf, "\nSlurmdPidFile=/run/slurm/slurmd.pid\n"));
        /* both run slurmctld as SlurmUser, in its own runtime directory */
        assert_non_null(strstr(out2.buf, "\nSlurmctldPidFile=/run/slurmctld/slurmctld.pid\n"));
        /* only those values differ */
        assert_int_equal(out3.len, out2.len + strlen("/slurm"));
        /* a key 24.11 no longer reads is refused there, with nothing rendered; 22.05 takes it */
        in.extra_params = "MessageTimeout=20 SlurmctldPlugstack=nonstop";
        strbuf_reset(&out3);
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), -EINVAL);
        assert_string_equal(err.buf,
                "slurm-conf-parameters: SlurmctldPlugstack is not read by Slurm 24.11 any more (defunct or "
                "moved)");
        assert_int_equal(out3.len, 0);
        in.caps = slurm_caps_find("22.05");
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_non_null(strstr(out3.buf, "\nSlurmctldPlugstack=nonstop\n"));
        in.caps = slurm_caps_find("24.11");
        in.extra_params = "DebugFlags=Backfill,TimeCray";
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), -EINVAL);
        /* a 22.05 build's option parser knows TimeCray and the caps refuse it for 24.11; a 24.11
         * build's option parser refuses it itself (slurmconf/subopts.h) */
        if (streq(slurm_caps_built()->release, "22.05"))
                assert_string_equal(
                        err.buf, "slurm-conf-parameters: DebugFlags: Slurm 24.11 has no TimeCray any more");
        else
                assert_non_null(strstr(err.buf, "\"TimeCray\" is not read by Slurm 24.11 (only by 22.05)"));
        /* a word 24.11 added: refused for 22.05 by the sub-option check, whichever the build */
        in.caps = slurm_caps_find("22.05");
        in.extra_params = "DebugFlags=Backfill,AuditRPCs";
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "\"AuditRPCs\" is not read by Slurm 22.05 (only by 24.11)"));
        in.extra_params = "SchedulerParameters=bf_continue,bf_interval=abc";
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "slurm-conf-parameters: SchedulerParameters: \"bf_interval=abc\""));
        in.extra_params = NULL;
        in.caps = NULL;

        /* accounting: slurmdbd's address and port, the backup's address; none: no key */
        char *acct[] = { "10.0.0.3:6819", "10.0.0.5:6819" };
        in.accounting = acct;
        in.n_accounting = 1;
        strbuf_reset(&out3);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_non_null(strstr(out3.buf,
                "\nAccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=10.0.0.3\n"
                "AccountingStoragePort=6819\n"));
        assert_null(strstr(out3.buf, "AccountingStorageBackupHost"));
        in.n_accounting = 2;
        strbuf_reset(&out3);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_non_null(strstr(out3.buf, "\nAccountingStorageBackupHost=10.0.0.5\n"));
        /* accounting-enforce: rendered with accounting, and first over slurm-conf-parameters' */
        in.accounting_enforce = "associations,limits";
        in.extra_params = "AccountingStorageEnforce=qos SlurmctldDebug=debug";
        strbuf_reset(&out3);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_non_null(strstr(out3.buf, "\nAccountingStorageEnforce=associations,limits\n"));
        assert_null(strstr(out3.buf, "=qos"));
        assert_non_null(strstr(out3.buf, "\nSlurmctldDebug=debug\n"));
        in.accounting_enforce_wait = true; /* the first file with slurmdbd: the option follows its start */
        strbuf_reset(&out3);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_null(strstr(out3.buf, "AccountingStorageEnforce"));
        in.accounting_enforce_wait = false;
        in.n_accounting = 0; /* no slurmdbd: the option waits, and the parameters' own stays out */
        strbuf_reset(&out3);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_null(strstr(out3.buf, "AccountingStorageEnforce=associations"));
        assert_null(strstr(out3.buf, "AccountingStorageEnforce=qos"));
        in.accounting_enforce = NULL;
        strbuf_reset(&out3);
        assert_int_equal(ctl_conf_render(&in, &out3, &err), 0);
        assert_non_null(strstr(out3.buf, "\nAccountingStorageEnforce=qos\n"));
        in.extra_params = NULL;
        assert_null(strstr(out2.buf, "AccountingStorage"));

        compute_data_clear(&d[0]);
        compute_data_clear(&d[1]);
}

static void test_render_default_and_removal(void **state) {
        struct compute_data d[2] = { COMPUTE_DATA_INIT, COMPUTE_DATA_INIT };
        /* the option parser refuses Default (slurm_options_parse()); render still drops one */
        decode("compute", NULL, &d[0]);
        slurm_options_set(&d[0].partition, "Default", "YES");
        decode("gpu", NULL, &d[1]);
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

        struct ctl_conf_input in = input(d, 2);
        in.default_partition = "gpu";
        assert_int_equal(ctl_conf_render(&in, &out, &err), 0);
        /* Default is the controller's: partition-config's Default=YES is dropped */
        assert_non_null(strstr(out.buf, "\nPartitionName=compute Nodes=compute\n"));
        assert_non_null(strstr(out.buf, "\nPartitionName=gpu Nodes=gpu Default=YES\n"));

        /* gpu no longer related: its lines are gone, and the named default being absent the
         * oldest application is the default (the cluster always has one) */
        strbuf_reset(&out);
        in.n_partitions = 1;
        assert_int_equal(ctl_conf_render(&in, &out, &err), 0);
        assert_null(strstr(out.buf, "NodeSet=gpu"));
        assert_null(strstr(out.buf, "PartitionName=gpu"));
        assert_int_equal(count_lines(out.buf, "PartitionName="), 1);
        assert_non_null(strstr(out.buf, "\nPartitionName=compute Nodes=compute Default=YES\n"));
        assert_int_equal(count_lines(out.buf, "NodeSet="), 1);

        /* no partitions at all */
        strbuf_reset(&out);
        in.n_partitions = 0;
        assert_int_equal(ctl_conf_render(&in, &out, &err), 0);
        assert_int_equal(count_lines(out.buf, "PartitionName="), 0);

        compute_data_clear(&d[0]);
        compute_data_clear(&d[1]);
}

static void test_render_params(void **state) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
        struct ctl_conf_input in = input(NULL, 0);

        in.extra_params = "SlurmctldDebug=debug5 SchedulerType=sched/builtin";
        assert_int_equal(ctl_conf_render(&in, &out, &err), 0);
        assert_non_null(strstr(out.buf, "\nSlurmctldDebug=debug5\n"));
        /* replaces the template's value, no duplicate */
        assert_int_equal(count_lines(out.buf, "SchedulerType="), 1);
        assert_non_null(strstr(out.buf, "\nSchedulerType=sched/builtin\n"));

        static const char *const bad[][2] = {
                { "Foo=bar", "slurm-conf-parameters: " },
                { "MaxNodeCount=5", "slurm-conf-parameters: " },
                { "ClusterName=x", "slurm-conf-parameters: " },
                { "PartitionName=x", "slurm-conf-parameters: " },
                { "SlurmctldDebug=a;b", "slurm-conf-parameters: " },
                { "SlurmctldDebug", "slurm-conf-parameters: " },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&out);
                strbuf_reset(&err);
                in.extra_params = bad[i][0];
                assert_int_equal(ctl_conf_render(&in, &out, &err), -EINVAL);
                assert_non_null(startswith(err.buf, bad[i][1]));
                assert_int_equal(out.len, 0);
        }
        in.extra_params = NULL;
        in.default_partition = "Not An App";
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out, &err), -EINVAL);
        assert_non_null(startswith(err.buf, "default-partition: "));
        in.default_partition = NULL;
        in.cluster_name = "Bad Name";
        strbuf_reset(&err);
        assert_int_equal(ctl_conf_render(&in, &out, &err), -EINVAL);
        assert_non_null(startswith(err.buf, "cluster-name: "));
}

/* stands for slurm_partition_key_live(): MaxTime, Default and State, nothing else */
static bool live_keys(const char *key, const char *value) {
        return strcaseeq(key, "MaxTime") || strcaseeq(key, "Default") || strcaseeq(key, "State");
}

static void test_live_changes(void **state) {
        _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        struct compute_data d[2] = { COMPUTE_DATA_INIT, COMPUTE_DATA_INIT },
                            e[2] = { COMPUTE_DATA_INIT, COMPUTE_DATA_INIT };
        decode("compute", "\"MaxTime\":\"60\"", &d[0]);
        decode("gpu", NULL, &d[1]);
        struct ctl_conf_input in = input(d, 2);
        assert_int_equal(ctl_conf_render(&in, &a, &err), 0);

        /* nothing changed: nothing to do live (and nothing else either) */
        assert_int_equal(ctl_conf_live_changes(a.buf, a.len, a.buf, a.len, live_keys, &kv), 0);
        assert_int_equal(kv.n, 0);

        /* a live key changed and one added: live, only those */
        decode("compute", "\"MaxTime\":\"120\"", &e[0]);
        decode("gpu", "\"State\":\"DOWN\"", &e[1]);
        in.partitions = e;
        assert_int_equal(ctl_conf_render(&in, &b, &err), 0);
        assert_int_equal(ctl_conf_live_changes(a.buf, a.len, b.buf, b.len, live_keys, &kv), 1);
        assert_int_equal(kv.n, 6);
        assert_string_equal(kv.v[0], "compute");
        assert_string_equal(kv.v[1], "MaxTime");
        assert_string_equal(kv.v[2], "120");
        assert_string_equal(kv.v[3], "gpu");
        assert_string_equal(kv.v[4], "State");
        assert_string_equal(kv.v[5], "DOWN");

        /* the default moving to another partition is live (setting it elsewhere moves it) */
        strv_clear(&kv);
        in.partitions = d;
        in.default_partition = "gpu";
        strbuf_reset(&b);
        assert_int_equal(ctl_conf_render(&in, &b, &err), 0);
        assert_int_equal(ctl_conf_live_changes(a.buf, a.len, b.buf, b.len, live_keys, &kv), 1);
        assert_int_equal(kv.n, 3);
        assert_string_equal(kv.v[0], "gpu");
        assert_string_equal(kv.v[1], "Default");

        /* a key the RPC does not take, a removed key, a partition added or removed, a global
         * key: not live */
        in.default_partition = NULL;
        const char *not_live[][2] = {
                { "\"MaxTime\":\"60\",\"SelectTypeParameters\":\"CR_Core\"", NULL },
                { NULL, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(not_live); i++) {
                struct compute_data f = COMPUTE_DATA_INIT;
                decode("compute", not_live[i][0], &f);
                struct compute_data pair[2] = { f, d[1] };
                in.partitions = pair;
                strbuf_reset(&b);
                strv_clear(&kv);
                assert_int_equal(ctl_conf_render(&in, &b, &err), 0);
                assert_int_equal(ctl_conf_live_changes(a.buf, a.len, b.buf, b.len, live_keys, &kv), 0);
                compute_data_clear(&f);
        }
        in.partitions = d;
        in.n_partitions = 1;
        strbuf_reset(&b);
        assert_int_equal(ctl_conf_render(&in, &b, &err), 0);
        assert_int_equal(ctl_conf_live_changes(a.buf, a.len, b.buf, b.len, live_keys, &kv), 0);
        in.n_partitions = 2;
        in.extra_params = "SlurmctldDebug=debug";
        strbuf_reset(&b);
        assert_int_equal(ctl_conf_render(&in, &b, &err), 0);
        assert_int_equal(ctl_conf_live_changes(a.buf, a.len, b.buf, b.len, live_keys, &kv), 0);
        assert_int_equal(ctl_conf_live_changes("garbage line\n", 13, b.buf, b.len, live_keys, &kv), 0);
        assert_int_equal(kv.n, 0);
        for (size_t i = 0; i < 2; i++) {
                compute_data_clear(&d[i]);
                compute_data_clear(&e[i]);
        }
}

static void test_cluster_name(void **state) {
        _cleanup_free_ char *a = NULL, *b = NULL;
        assert_int_equal(ctl_cluster_name_generate(&a), 0);
        assert_int_equal(ctl_cluster_name_generate(&b), 0);
        assert_true(ctl_cluster_name_valid(a));
        assert_int_equal(strlen(a), strlen("cluster-") + 8);
        assert_string_not_equal(a, b);
        assert_false(ctl_cluster_name_valid(""));
        assert_false(ctl_cluster_name_valid(NULL));
        assert_false(ctl_cluster_name_valid("Upper"));
        assert_false(ctl_cluster_name_valid("1abc"));
        assert_false(ctl_cluster_name_valid("a b"));
        assert_true(ctl_cluster_name_valid("hpc_1-a"));
}

static void test_status_message(void **state) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        slurmctld_status_message(3, 1, &s);
        assert_string_equal(s.buf, "3 nodes in 1 partition");
        strbuf_reset(&s);
        slurmctld_status_message(1, 2, &s);
        assert_string_equal(s.buf, "1 node in 2 partitions");
        strbuf_reset(&s);
        slurmctld_status_message(0, 0, &s);
        assert_string_equal(s.buf, "0 nodes, no partition: relate a slurmd application");
}

static void test_leaving(void **state) {
        struct compute_data d[1] = { COMPUTE_DATA_INIT };
        _cleanup_(ctl_leaving_clear) struct ctl_leaving l = CTL_LEAVING_INIT, l2 = CTL_LEAVING_INIT;
        _cleanup_slurm_options_ struct slurm_options old = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, text = STRBUF_INIT;

        decode("compute", NULL, &d[0]);
        /* gpu left with jobs: kept with its old parameters, INACTIVE, never the default */
        assert_int_equal(slurm_options_parse("MaxTime=30 State=UP", SLURM_OPTIONS_PARTITION, &old, &err), 0);
        slurm_options_set(&old, "Default", "YES");
        ctl_leaving_add_partition(&l, "gpu", &old);
        strv_push(&l.nodesets, "old");
        assert_true(ctl_leaving_has(&l, "gpu"));
        assert_true(ctl_leaving_has(&l, "old"));
        assert_false(ctl_leaving_has(&l, "compute"));
        struct ctl_conf_input in = input(d, 1);
        in.leaving = l.parts;
        in.n_leaving = l.n_parts;
        assert_int_equal(ctl_conf_render(&in, &out, &err), 0);
        assert_non_null(strstr(out.buf, "\nNodeSet=gpu Feature=gpu\n"));
        assert_non_null(strstr(out.buf, "\nPartitionName=gpu Nodes=gpu MaxTime=30 State=INACTIVE\n"));
        assert_non_null(strstr(out.buf, "\nPartitionName=compute Nodes=compute Default=YES\n"));
        assert_null(strstr(out.buf, "NodeSet=old"));

        /* a related application of the same name wins over the leaving entry */
        struct ctl_conf_input in2 = input(d, 1);
        in2.leaving = d;
        in2.n_leaving = 1;
        strbuf_reset(&out);
        assert_int_equal(ctl_conf_render(&in2, &out, &err), 0);
        assert_null(strstr(out.buf, "INACTIVE"));

        /* the state file round-trips */
        ctl_leaving_format(&l, &text);
        assert_string_equal(text.buf, "partition gpu MaxTime=30\nnodeset old\n");
        assert_int_equal(ctl_leaving_parse(text.buf, &l2, &err), 0);
        assert_int_equal(l2.n_parts, 1);
        assert_string_equal(l2.parts[0].name, "gpu");
        assert_string_equal(slurm_options_get(&l2.parts[0].partition, "MaxTime"), "30");
        assert_int_equal(l2.nodesets.n, 1);
        assert_int_equal(ctl_leaving_parse("", &l2, &err), 0);
        assert_int_equal(l2.n_parts + l2.nodesets.n, 0);
        const char *bad[] = { "partition", "partition Bad_Name", "nodeset gpu extra", "junk gpu",
                "partition gpu Nodes=x", "partition gpu Foo=1" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                assert_int_equal(ctl_leaving_parse(bad[i], &l2, &err), -EINVAL);
                assert_true(err.len > 0);
        }
        compute_data_clear(&d[0]);
}

static void test_stamp(void **state) {
        _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
        strbuf_addstr(&a, "ClusterName=x");
        ctl_conf_stamp("gres.conf", "NodeName=gpu-0 Name=gpu File=/dev/nvidia0\n", &a);
        strbuf_addstr(&b, "ClusterName=x\n");
        ctl_conf_stamp("gres.conf", "NodeName=gpu-0 Name=gpu File=/dev/nvidia0\n", &b);
        strbuf_addstr(&c, "ClusterName=x\n");
        ctl_conf_stamp("gres.conf", "NodeName=gpu-0 Name=gpu File=/dev/nvidia1\n", &c);
        assert_string_equal(a.buf, b.buf); /* a newline first when missing */
        assert_string_not_equal(b.buf, c.buf);
        assert_non_null(strstr(b.buf, "\n# gres.conf served with this file"));
        assert_int_equal(b.buf[b.len - 1], '\n');
        /* the name is part of the line: two files with the same text stamp differently */
        _cleanup_strbuf_ struct strbuf d = STRBUF_INIT;
        ctl_conf_stamp("cgroup.conf", "NodeName=gpu-0 Name=gpu File=/dev/nvidia0\n", &d);
        assert_non_null(strstr(d.buf, "# cgroup.conf served with this file"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stamp),
                cmocka_unit_test(test_render_basic),
                cmocka_unit_test(test_render_default_and_removal),
                cmocka_unit_test(test_render_params),
                cmocka_unit_test(test_live_changes),
                cmocka_unit_test(test_cluster_name),
                cmocka_unit_test(test_status_message),
                cmocka_unit_test(test_leaving),
        };
        return cmocka_run_group_tests(tests, load_template, free_template);
}
