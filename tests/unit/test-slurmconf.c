/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/keys and conf: the slurm.conf corpus in tests/data/slurmconf/
 * (round trip of the good files, expected errors of the bad ones), edits, includes, limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>

#include "slurmconf/conf.h"
#include "slurmconf/keys.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/banned.h"

static char *data_path(const char *rel) {
        const char *dir = getenv("TEST_DATA");
        assert_non_null(dir);
        return xasprintf("%s/slurmconf/%s", dir, rel);
}

static void read_file(const char *path, struct strbuf *out) {
        _cleanup_free_ char *d = NULL;
        size_t len;
        assert_int_equal(read_full_file(path, &d, &len), 0);
        strbuf_add(out, d, len);
}

static struct slurmconf *parse_ok(const char *text) {
        struct slurmconf *c = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = slurmconf_parse("t.conf", text, strlen(text), &c, &err);
        if (r < 0)
                print_error("%s\n", err.buf);
        assert_int_equal(r, 0);
        return c;
}

static void assert_render(const struct slurmconf *c, const char *expected) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        slurmconf_render(c, &out);
        if (!streq(out.buf, expected))
                print_error("rendered:\n%s\n--- expected:\n%s\n", out.buf, expected);
        assert_string_equal(out.buf, expected);
        /* what we render parses again */
        _cleanup_slurmconf_ _unused_ struct slurmconf *again = parse_ok(out.buf);
}

/* Replaces the one occurrence of from in sb by to. */
static void replace_once(struct strbuf *sb, const char *from, const char *to) {
        char *p = strstr(sb->buf, from);
        if (!p)
                print_error("not found: %s\n", from);
        assert_non_null(p);
        assert_null(strstr(p + 1, from));
        _cleanup_strbuf_ struct strbuf n = STRBUF_INIT;
        strbuf_add(&n, sb->buf, (size_t) (p - sb->buf));
        strbuf_addstr(&n, to);
        strbuf_addstr(&n, p + strlen(from));
        strbuf_reset(sb);
        strbuf_addbuf(sb, &n);
}

/* --- keys ------------------------------------------------------------------------------- */

static void test_keys(void **state) {
        const struct slurmconf_key *k = slurmconf_key_lookup(SLURMCONF_GLOBAL, "slurmctldhost");
        assert_non_null(k);
        assert_string_equal(k->name, "SlurmctldHost");
        assert_true(k->flags & SLURMCONF_KEY_MULTI);
        assert_true(slurmconf_key_supported(k));

        k = slurmconf_key_lookup(SLURMCONF_NODE, "PROCS");
        assert_non_null(k);
        assert_string_equal(slurmconf_key_canonical(k), "CPUs");
        assert_null(slurmconf_key_lookup(SLURMCONF_GLOBAL, "CPUs"));
        assert_non_null(slurmconf_key_lookup(SLURMCONF_PARTITION, "cpubind"));
        assert_non_null(slurmconf_key_lookup(SLURMCONF_NODE, "CpuBind"));
        assert_non_null(slurmconf_key_lookup(SLURMCONF_DOWNNODES, "reason"));
        assert_non_null(slurmconf_key_lookup(SLURMCONF_FRONTEND, "FrontendAddr"));
        assert_non_null(slurmconf_key_lookup(SLURMCONF_NODESET, "Feature"));
        assert_null(slurmconf_key_lookup(SLURMCONF_NODESET, "CPUs"));
        assert_true(slurmconf_key_lookup(SLURMCONF_GLOBAL, "PartitionName")->flags & SLURMCONF_KEY_LINE);

        k = slurmconf_key_lookup(SLURMCONF_GLOBAL, "HashPlugin");
        assert_non_null(k);
        assert_false(slurmconf_key_supported(k));
        assert_string_equal(k->since, "23.11");
        assert_null(slurmconf_key_lookup(SLURMCONF_GLOBAL, "NoSuchKey"));
        assert_null(slurmconf_key_lookup(SLURMCONF_GLOBAL, ""));
        assert_null(slurmconf_key_lookup(SLURMCONF_GLOBAL, NULL));
        assert_string_equal(slurmconf_scope_line_key(SLURMCONF_PARTITION), "PartitionName");
        assert_null(slurmconf_scope_line_key(SLURMCONF_GLOBAL));
        assert_string_equal(slurmconf_scope_name(SLURMCONF_DOWNNODES), "downnodes");
}

/* --- corpus ------------------------------------------------------------------------------ */

static int list_confs(const char *dir, struct strv *ret) {
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        int n = 0;
        while ((de = readdir(d)) && n < 1000) {
                size_t l = strlen(de->d_name);
                if (l > 5 && streq(de->d_name + l - 5, ".conf")) {
                        strv_pushf(ret, "%s/%s", dir, de->d_name);
                        n++;
                }
        }
        closedir(d);
        return n;
}

static void test_roundtrip_corpus(void **state) {
        _cleanup_strv_ struct strv files = STRV_INIT;
        _cleanup_free_ char *good = data_path("good"), *inc = data_path("good/include.d");
        list_confs(good, &files);
        list_confs(inc, &files);
        assert_true(files.n >= 7);
        for (size_t i = 0; i < files.n; i++) {
                _cleanup_strbuf_ struct strbuf orig = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
                _cleanup_slurmconf_ struct slurmconf *c = NULL;
                read_file(files.v[i], &orig);
                int r = slurmconf_parse_file(files.v[i], &c, &err);
                if (r < 0)
                        print_error("%s\n", err.buf);
                assert_int_equal(r, 0);
                slurmconf_render(c, &out);
                assert_int_equal(out.len, orig.len);
                assert_memory_equal(out.buf, orig.buf, orig.len);
        }
        /* the top-level good files also pass the check with their includes */
        _cleanup_strv_ struct strv top = STRV_INIT;
        list_confs(good, &top);
        for (size_t i = 0; i < top.n; i++) {
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                int r = slurmconf_check_file(top.v[i], &err);
                if (r < 0)
                        print_error("%s\n", err.buf);
                assert_int_equal(r, 0);
                assert_int_equal(err.len, 0);
        }
}

static void test_bad_corpus(void **state) {
        _cleanup_strv_ struct strv files = STRV_INIT;
        _cleanup_free_ char *bad = data_path("bad");
        assert_true(list_confs(bad, &files) >= 15);
        for (size_t i = 0; i < files.n; i++) {
                _cleanup_strbuf_ struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
                read_file(files.v[i], &text);
                int r = slurmconf_check_file(files.v[i], &err);
                if (r == 0)
                        print_error("%s: accepted\n", files.v[i]);
                assert_true(r < 0);
                /* the parser alone fails too, unless the error is in an include */
                _cleanup_slurmconf_ struct slurmconf *c = NULL;
                bool parsed = slurmconf_parse(files.v[i], text.buf, text.len, &c, NULL) == 0;
                assert_true(parsed == !!strstr(text.buf, "Include"));

                int expectations = 0;
                const char *base = strrchr(files.v[i], '/') + 1;
                for (const char *p = text.buf; (p = strstr(p, "# expect: ")); expectations++) {
                        p += strlen("# expect: ");
                        size_t l = strcspn(p, "\n");
                        _cleanup_free_ char *want = *p >= '0' && *p <= '9'
                                ? xasprintf("%s:%.*s", base, (int) l, p)
                                : xstrndup(p, l);
                        if (!strstr(err.buf, want))
                                print_error("%s: expected \"%s\" in:\n%s\n", files.v[i], want, err.buf);
                        assert_non_null(strstr(err.buf, want));
                }
                assert_true(expectations >= 1);
        }
}

/* --- edits -------------------------------------------------------------------------------- */

static void test_edit_small(void **state) {
        _cleanup_slurmconf_ struct slurmconf *c =
                parse_ok("# head\n"
                         "clustername=demo   # the name\n"
                         "SlurmdTimeout=300 slurmctldtimeout=120 MessageTimeout=30\n"
                         "SlurmctldHost=a\n"
                         "\n"
                         "NodeSet=ns1 Feature=ns1\n"
                         "PartitionName=ns1 Nodes=ns1 default=YES   # first\n"
                         "# tail\n");
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_slurm_options_ struct slurm_options p = SLURM_OPTIONS_INIT;

        assert_string_equal(slurmconf_get(c, "ClusterName"), "demo");
        assert_string_equal(slurmconf_get(c, "SLURMCTLDTIMEOUT"), "120");
        assert_null(slurmconf_get(c, "MaxNodeCount"));

        assert_int_equal(slurmconf_set(c, "ClusterName", "prod", &err), 0);
        assert_int_equal(slurmconf_set(c, "SlurmctldTimeout", "60", &err), 0);
        assert_int_equal(slurmconf_set(c, "MaxNodeCount", "100", &err), 0);
        assert_int_equal(slurmconf_set(c, "Reason", "x", &err), -EINVAL); /* not global */
        assert_non_null(strstr(err.buf, "unknown key \"Reason\""));
        char *hosts[] = { "a(10.0.0.1)", "b(10.0.0.2)" };
        assert_int_equal(slurmconf_set_all(c, "slurmctldhost", hosts, 2, &err), 0);

        slurm_options_set(&p, "Feature", "ns2");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODESET, "ns2", &p, &err), 1);
        slurm_options_clear(&p);
        slurm_options_set(&p, "Nodes", "ns1");
        slurm_options_set(&p, "maxtime", "1-00:00:00");
        slurm_options_set(&p, "Shared", "YES");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "ns1", &p, &err), 0);
        slurm_options_clear(&p);
        slurm_options_set(&p, "Nodes", "ns2");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "ns2", &p, &err), 1);
        assert_int_equal(slurmconf_include_add(c, "nodes.conf", &err), 1);
        assert_int_equal(slurmconf_include_add(c, "nodes.conf", &err), 0);

        assert_render(c,
                "# head\n"
                "ClusterName=prod # the name\n"
                "SlurmdTimeout=300 SlurmctldTimeout=60 MessageTimeout=30\n"
                "SlurmctldHost=a(10.0.0.1)\n"
                "SlurmctldHost=b(10.0.0.2)\n"
                "MaxNodeCount=100\n"
                "\n"
                "NodeSet=ns1 Feature=ns1\n"
                "NodeSet=ns2 Feature=ns2\n"
                "PartitionName=ns1 Nodes=ns1 MaxTime=1-00:00:00 OverSubscribe=YES # first\n"
                "PartitionName=ns2 Nodes=ns2\n"
                "# tail\n"
                "Include nodes.conf\n");

        _cleanup_strv_ struct strv names = STRV_INIT, vals = STRV_INIT;
        assert_int_equal(slurmconf_names(c, SLURMCONF_PARTITION, &names), 2);
        assert_string_equal(names.v[1], "ns2");
        assert_int_equal(slurmconf_get_all(c, "SlurmctldHost", &vals), 2);
        assert_string_equal(vals.v[1], "b(10.0.0.2)");

        /* unset from a line with several keys, then the last key of a line */
        assert_int_equal(slurmconf_unset(c, "SlurmdTimeout"), 0);
        assert_int_equal(slurmconf_unset(c, "SlurmdTimeout"), -ENOENT);
        assert_int_equal(slurmconf_unset(c, "MaxNodeCount"), 0);
        assert_int_equal(slurmconf_remove(c, SLURMCONF_NODESET, "ns1"), 0);
        assert_int_equal(slurmconf_remove(c, SLURMCONF_NODESET, "ns1"), -ENOENT);
        assert_int_equal(slurmconf_include_remove(c, "nodes.conf"), 0);
        assert_int_equal(slurmconf_include_remove(c, "nodes.conf"), -ENOENT);
        assert_int_equal(slurmconf_set_all(c, "SlurmctldHost", NULL, 0, &err), 0);
        assert_render(c,
                "# head\n"
                "ClusterName=prod # the name\n"
                "SlurmctldTimeout=60 MessageTimeout=30\n"
                "\n"
                "NodeSet=ns2 Feature=ns2\n"
                "PartitionName=ns1 Nodes=ns1 MaxTime=1-00:00:00 OverSubscribe=YES # first\n"
                "PartitionName=ns2 Nodes=ns2\n"
                "# tail\n");
}

/* Edits on the big classic file: untouched lines keep their bytes, edited and new ones are
 * canonical and where they belong. */
static void test_edit_classic(void **state) {
        _cleanup_free_ char *path = data_path("good/classic.conf");
        _cleanup_strbuf_ struct strbuf expected = STRBUF_INIT, err = STRBUF_INIT;
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_slurm_options_ struct slurm_options p = SLURM_OPTIONS_INIT;
        read_file(path, &expected);
        assert_int_equal(slurmconf_parse_file(path, &c, &err), 0);

        assert_int_equal(slurmconf_set(c, "ClusterName", "andromeda", &err), 0);
        replace_once(&expected, "ClusterName=orion\n", "ClusterName=andromeda\n");

        char *hosts[] = { "h1", "h2", "h3" };
        assert_int_equal(slurmconf_set_all(c, "SlurmctldHost", hosts, 3, &err), 0);
        replace_once(&expected,
                "SlurmctldHost=orion-head1(192.168.1.1)\nSlurmctldHost=orion-head2(192.168.1.2)\n",
                "SlurmctldHost=h1\nSlurmctldHost=h2\nSlurmctldHost=h3\n");

        assert_int_equal(slurmconf_unset(c, "debugflags"), 0);
        replace_once(&expected, "DebugFlags=Backfill,Gres\n", "");

        assert_int_equal(slurmconf_set(c, "TreeWidth", "64", &err), 0);
        replace_once(&expected, "HealthCheckNodeState=ANY,CYCLE\n",
                "HealthCheckNodeState=ANY,CYCLE\nTreeWidth=64\n");

        slurm_options_set(&p, "Nodes", "cn[0001-0016]");
        slurm_options_set(&p, "maxtime", "00:45:00");
        slurm_options_set(&p, "PriorityTier", "100");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "debug", &p, &err), 0);
        replace_once(&expected,
                "PartitionName=debug Nodes=cn[0001-0008] MaxTime=00:30:00 MaxNodes=2 PriorityTier=100\n",
                "PartitionName=debug Nodes=cn[0001-0016] MaxTime=00:45:00 PriorityTier=100\n");

        slurm_options_clear(&p);
        slurm_options_set(&p, "Nodes", "amd");
        slurm_options_set(&p, "AllowGroups", "new users");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "new", &p, &err), 1);
        replace_once(
                &expected, "LLN=YES\n", "LLN=YES\nPartitionName=new Nodes=amd AllowGroups=\"new users\"\n");

        assert_int_equal(slurmconf_remove(c, SLURMCONF_NODESET, "gpus"), 0);
        replace_once(&expected, "NodeSet=gpus Nodes=gpu[001-020]\n", "");
        slurm_options_clear(&p);
        slurm_options_set(&p, "Feature", "intel");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODESET, "intel", &p, &err), 1);
        replace_once(&expected, "NodeSet=amd Feature=amd\n",
                "NodeSet=amd Feature=amd\nNodeSet=intel Feature=intel\n");

        slurm_options_clear(&p);
        slurm_options_set(&p, "Procs", "4");
        slurm_options_set(&p, "Reason", "a # b \\ c");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "cn[0001-0512]", &p, &err), 0);
        replace_once(&expected, "NodeName=cn[0001-0512] Weight=10 Features=amd,epyc,ib\n",
                "NodeName=cn[0001-0512] CPUs=4 Reason=\"a \\# b \\\\ c\"\n");

        slurm_options_clear(&p);
        slurm_options_set(&p, "State", "DRAIN");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_DOWNNODES, "cn0043", &p, &err), 1);
        replace_once(
                &expected, "Reason=fan_failure\n", "Reason=fan_failure\nDownNodes=cn0043 State=DRAIN\n");

        assert_int_equal(slurmconf_include_add(c, "site.conf", &err), 1);
        strbuf_addstr(&expected, "Include site.conf\n");

        if (err.len)
                print_error("%s\n", err.buf);
        assert_render(c, expected.buf);

        /* what was edited reads back */
        _cleanup_slurm_options_ struct slurm_options got = SLURM_OPTIONS_INIT;
        assert_int_equal(slurmconf_lookup(c, SLURMCONF_NODE, "cn[0001-0512]", &got), 0);
        assert_string_equal(slurm_options_get(&got, "Reason"), "a # b \\ c");
        assert_string_equal(slurm_options_get(&got, "CPUs"), "4");
        assert_string_equal(slurmconf_get(c, "TreeWidth"), "64");
}

static void test_lookup_names(void **state) {
        _cleanup_free_ char *path = data_path("good/classic.conf"), *inc = data_path("good/include.conf");
        _cleanup_slurmconf_ struct slurmconf *c = NULL, *ci = NULL;
        assert_int_equal(slurmconf_parse_file(path, &c, NULL), 0);
        assert_int_equal(slurmconf_parse_file(inc, &ci, NULL), 0);

        _cleanup_strv_ struct strv names = STRV_INIT;
        assert_int_equal(slurmconf_names(c, SLURMCONF_PARTITION, &names), 7);
        assert_string_equal(names.v[0], "debug");
        assert_string_equal(names.v[6], "scavenger");
        strv_clear(&names);
        assert_int_equal(slurmconf_names(c, SLURMCONF_NODE, &names), 7);
        assert_string_equal(names.v[4], "rack[0-3]_blade[0-7]");

        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        assert_int_equal(slurmconf_lookup(c, SLURMCONF_DOWNNODES, "cn0042", &o), 0);
        assert_string_equal(slurm_options_get(&o, "Reason"), "bad DIMM, ticket 4711");
        assert_int_equal(slurmconf_lookup(c, SLURMCONF_PARTITION, "DEFAULT", &o), -ENOENT);
        assert_int_equal(slurmconf_lookup(c, SLURMCONF_PARTITION, "Debug", &o), -ENOENT); /* names: case */
        _cleanup_strv_ struct strv hosts = STRV_INIT;
        assert_int_equal(slurmconf_get_all(c, "SlurmctldHost", &hosts), 2);
        assert_string_equal(slurmconf_get(c, "WaitTime"), "0"); /* spelled Waittime there */

        /* the include file: continuation lines, quotes, escapes, blanks around "=" */
        assert_string_equal(slurmconf_get(ci, "ClusterName"), "lab#2");
        assert_string_equal(slurmconf_get(ci, "SelectType"), "select/cons_tres");
        assert_string_equal(slurmconf_get(ci, "SchedulerParameters"),
                "bf_continue,bf_window=2880,default_queue_depth=200");
        assert_string_equal(slurmconf_get(ci, "HealthCheckProgram"), "/usr/sbin/nhc");
        slurm_options_clear(&o);
        assert_int_equal(slurmconf_lookup(ci, SLURMCONF_NODE, "lab[01-04]", &o), 0);
        assert_int_equal(o.n, 4);
        assert_string_equal(slurm_options_get(&o, "State"), "UNKNOWN");
        slurm_options_clear(&o);
        assert_int_equal(slurmconf_lookup(ci, SLURMCONF_DOWNNODES, "lab03", &o), 0);
        assert_string_equal(slurm_options_get(&o, "Reason"), "power supply \\ broken");
        strv_clear(&names);
        assert_int_equal(slurmconf_names(ci, SLURMCONF_PARTITION, &names), 2); /* lab and Lab */
        strv_clear(&names);
        assert_int_equal(slurmconf_includes(ci, &names), 3);
        assert_string_equal(names.v[1], "include.d/%c-nodes.conf");
        _cleanup_free_ char *resolved = slurmconf_include_resolve(ci, names.v[1]);
        assert_non_null(strstr(resolved, "/good/include.d/lab#2-nodes.conf"));
}

static void test_duplicates_and_defaults(void **state) {
        _cleanup_slurmconf_ struct slurmconf *c = parse_ok("PartitionName=DEFAULT State=UP\n"
                                                           "PartitionName=p Nodes=a\n"
                                                           "PartitionName=DEFAULT State=DOWN\n"
                                                           "PartitionName=p Nodes=b\n"
                                                           "ClusterName=one\n"
                                                           "ClusterName=two\n");
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_string_equal(slurmconf_get(c, "ClusterName"), "two"); /* the last one counts */
        assert_int_equal(slurmconf_lookup(c, SLURMCONF_PARTITION, "p", &o), 0);
        assert_string_equal(slurm_options_get(&o, "Nodes"), "a"); /* the first one counts */
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "DEFAULT", &o, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "DEFAULT"));
        slurm_options_set(&o, "Nodes", "c");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "p", &o, &err), 0);
        assert_int_equal(slurmconf_set(c, "ClusterName", "three", &err), 0);
        assert_render(c,
                "PartitionName=DEFAULT State=UP\n"
                "PartitionName=p Nodes=c\n"
                "PartitionName=DEFAULT State=DOWN\n"
                "ClusterName=three\n");
}

static void test_api_errors(void **state) {
        _cleanup_slurmconf_ struct slurmconf *c = parse_ok("ClusterName=x\n");
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        assert_int_equal(slurmconf_set(c, "HashPlugin", "hash/k12", &err), -EINVAL);
        assert_non_null(strstr(err.buf, "not supported by Slurm 22.05"));
        strbuf_reset(&err);
        assert_int_equal(slurmconf_set(c, "NodeName", "n1", &err), -EINVAL);
        assert_non_null(strstr(err.buf, "NodeName"));
        assert_int_equal(slurmconf_set(c, "ClusterName", "a\"b", NULL), -EINVAL);
        assert_int_equal(slurmconf_set(c, "ClusterName", "a\nMaxNodeCount=1", NULL), -EINVAL);
        assert_int_equal(slurmconf_set(c, "ClusterName", NULL, NULL), -EINVAL);

        slurm_options_set(&o, "CPUs", "2");
        strbuf_reset(&err);
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_PARTITION, "p", &o, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "unknown key \"CPUs\" for a PartitionName line"));
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "n 1", &o, NULL), -EINVAL);
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "n#1", &o, NULL), -EINVAL);
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "", &o, NULL), -EINVAL);
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "n=1", &o, NULL), -EINVAL);
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "all", &o, NULL), -EINVAL);
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_GLOBAL, "n1", &o, NULL), -EINVAL);
        slurm_options_set(&o, "NodeName", "evil");
        assert_int_equal(slurmconf_upsert(c, SLURMCONF_NODE, "n1", &o, NULL), -EINVAL);
        assert_int_equal(slurmconf_include_add(c, "a b.conf", NULL), -EINVAL);
        assert_int_equal(slurmconf_include_add(c, "", NULL), -EINVAL);
        assert_int_equal(slurmconf_remove(c, SLURMCONF_NODESET, "none"), -ENOENT);
        assert_int_equal(slurmconf_lookup(c, SLURMCONF_NODESET, "none", &o), -ENOENT);
        /* nothing of that reached the file */
        assert_render(c, "ClusterName=x\n");
}

static void test_syntax_details(void **state) {
        /* a value with "#" and blanks is escaped and quoted, and reads back */
        _cleanup_slurmconf_ struct slurmconf *c =
                parse_ok("SlurmctldHost=h\\\n1\nNodeName=n1 Reason = \"x y\"\n");
        assert_string_equal(slurmconf_get(c, "SlurmctldHost"), "h1");
        assert_int_equal(slurmconf_set(c, "MailProg", "/bin/mail #1", NULL), 0);
        /* a new global key goes after the last global line */
        assert_render(
                c, "SlurmctldHost=h\\\n1\nMailProg=\"/bin/mail \\#1\"\nNodeName=n1 Reason = \"x y\"\n");

        /* an even run of backslashes does not continue the line */
        _cleanup_slurmconf_ struct slurmconf *d = parse_ok("MailProg=a\\\\\nClusterName=c\n");
        assert_string_equal(slurmconf_get(d, "MailProg"), "a\\");
        assert_string_equal(slurmconf_get(d, "ClusterName"), "c");

        /* a file without a final newline gets one before an added line */
        _cleanup_slurmconf_ struct slurmconf *e = parse_ok("ClusterName=c");
        assert_int_equal(slurmconf_set(e, "MaxNodeCount", "5", NULL), 0);
        assert_render(e, "ClusterName=c\nMaxNodeCount=5\n");

        /* an empty model */
        _cleanup_slurmconf_ struct slurmconf *f = slurmconf_new("new.conf");
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        slurm_options_set(&o, "Nodes", "ns");
        assert_int_equal(slurmconf_upsert(f, SLURMCONF_PARTITION, "ns", &o, NULL), 1);
        assert_int_equal(slurmconf_set(f, "ClusterName", "c", NULL), 0);
        assert_render(f, "PartitionName=ns Nodes=ns\nClusterName=c\n");
        assert_string_equal(slurmconf_path(f), "new.conf");
}

static void expect_parse_error(const char *text, size_t len, const char *want) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = slurmconf_parse("x.conf", text, len, &c, &err);
        assert_true(r < 0);
        assert_null(c);
        if (!strstr(err.buf, want))
                print_error("expected \"%s\" in \"%s\"\n", want, err.buf);
        assert_non_null(strstr(err.buf, want));
}

static void test_limits(void **state) {
        static const char nul[] = "ClusterName=a\nMailProg=b\0c\n";
        expect_parse_error(nul, sizeof(nul) - 1, "x.conf:2: NUL byte");

        _cleanup_strbuf_ struct strbuf big = STRBUF_INIT;
        strbuf_addstr(&big, "ClusterName=c\nSchedulerParameters=");
        for (size_t i = 0; i < SLURMCONF_MAX_LINE; i++)
                strbuf_addch(&big, 'x');
        strbuf_addstr(&big, "\n");
        expect_parse_error(big.buf, big.len, "x.conf:2: line too long");

        /* a long line made of continuations */
        strbuf_reset(&big);
        for (size_t i = 0; i < 20000; i++)
                strbuf_addstr(&big, "bf_x,\\\n");
        strbuf_addstr(&big, "y\n");
        expect_parse_error(big.buf, big.len, "x.conf:1: line too long");

        /* too many errors are cut */
        strbuf_reset(&big);
        for (size_t i = 0; i < 100; i++)
                strbuf_addstr(&big, "Nope=1\n");
        expect_parse_error(big.buf, big.len, "more errors follow");

        char *huge = xmalloc(SLURMCONF_MAX_FILE + 1);
        memset(huge, '#', SLURMCONF_MAX_FILE + 1);
        struct slurmconf *c = NULL;
        assert_int_equal(slurmconf_parse("x.conf", huge, SLURMCONF_MAX_FILE + 1, &c, NULL), -EFBIG);
        free(huge);
        assert_null(c);
}

/* --- includes (temporary directory made by setup, removed by teardown) ---------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static int tmpdir_setup(void **state) {
        char tmpl[] = "/tmp/test-slurmconf-XXXXXX";
        if (!mkdtemp(tmpl))
                return -1;
        *state = xstrdup(tmpl);
        return 0;
}

static int tmpdir_teardown(void **state) {
        char *dir = *state;
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(dir);
        return 0;
}

static void put(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        assert_int_equal(write_file_atomic(p, text, strlen(text), 0644, (uid_t) -1, (gid_t) -1), 0);
}

static void test_check_includes(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *main_conf = xasprintf("%s/slurm.conf", dir);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        put(dir, "slurm.conf", "ClusterName=c1\nInclude sub/%c.conf\nInclude /nonexistent/x.conf\n");
        assert_true(slurmconf_check_file(main_conf, &err) < 0);
        assert_non_null(strstr(err.buf, "slurm.conf:2: Include \"sub/%c.conf\": "));
        assert_non_null(strstr(err.buf, "/sub/c1.conf: No such file or directory"));
        assert_non_null(strstr(err.buf, "slurm.conf:3: Include \"/nonexistent/x.conf\""));

        _cleanup_free_ char *sub = xasprintf("%s/sub", dir);
        assert_int_equal(mkdir(sub, 0755), 0);
        put(dir, "sub/c1.conf", "# nodes\nNodeName=n1 CPUs=2 Bogus=1\nInclude more.conf\n");
        put(dir, "sub/more.conf", "Include ../slurm.conf\n");
        put(dir, "slurm.conf", "ClusterName=c1\nInclude sub/%c.conf\n");
        strbuf_reset(&err);
        assert_true(slurmconf_check_file(main_conf, &err) < 0);
        assert_non_null(strstr(err.buf, "/sub/c1.conf:2: unknown key \"Bogus\""));

        put(dir, "sub/c1.conf", "# nodes\nNodeName=n1 CPUs=2\nInclude more.conf\n");
        strbuf_reset(&err);
        assert_true(slurmconf_check_file(main_conf, &err) < 0);
        assert_non_null(strstr(err.buf, "more.conf:1: Include \"../slurm.conf\""));
        assert_non_null(strstr(err.buf, "include loop"));

        put(dir, "sub/more.conf", "PartitionName=p Nodes=n1\n");
        strbuf_reset(&err);
        assert_int_equal(slurmconf_check_file(main_conf, &err), 0);
        assert_int_equal(err.len, 0);

        strbuf_reset(&err);
        _cleanup_free_ char *missing = xasprintf("%s/none.conf", dir);
        assert_int_equal(slurmconf_check_file(missing, &err), -ENOENT);
        assert_non_null(strstr(err.buf, "none.conf: No such file or directory"));
}

static void test_slurm_hash(void **state) {
        /* that it equals slurmctld's own HASH_VAL for the charm's file is proven with a real
         * daemon (tests/cluster/charm-repair.sh: no restart for an edit slurmctld never read,
         * one for an edit it read); here the algorithm's properties. The empty file is 0. */
        assert_int_equal(slurmconf_file_hash("", 0), 0);
        const char *one = "ClusterName=x\n";
        uint32_t h1 = slurmconf_file_hash(one, strlen(one));
        assert_int_not_equal(h1, 0);
        /* one byte more, or a comment, is another file */
        assert_int_not_equal(slurmconf_file_hash("ClusterName=y\n", 14), h1);
        assert_int_not_equal(slurmconf_file_hash("ClusterName=x\n#\n", 16), h1);
        /* the same bytes, the same hash */
        assert_int_equal(slurmconf_file_hash(one, strlen(one)), h1);
        /* a step by hand: "A" = 0x41 -> 0x4100, eight CRC-16 shifts of polynomial 0x1021 on an
         * unmasked 32-bit value */
        uint32_t h = 0x41u << 8;
        for (int i = 0; i < 8; i++)
                h = (h & 0x8000) ? (h << 1) ^ 4129u : h << 1;
        assert_int_equal(slurmconf_file_hash("A", 1), h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_keys),
                cmocka_unit_test(test_roundtrip_corpus),
                cmocka_unit_test(test_bad_corpus),
                cmocka_unit_test(test_edit_small),
                cmocka_unit_test(test_edit_classic),
                cmocka_unit_test(test_lookup_names),
                cmocka_unit_test(test_duplicates_and_defaults),
                cmocka_unit_test(test_api_errors),
                cmocka_unit_test(test_syntax_details),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_slurm_hash),
                cmocka_unit_test_setup_teardown(test_check_includes, tmpdir_setup, tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
