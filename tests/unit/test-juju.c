/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/juju against fake hook tools: shell scripts written into a temp dir put
 * first on PATH, which record argv and stdin per call and print canned output and exit codes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "juju/juju.h"

#include <ftw.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <yaml.h>

#include "util/banned.h"

/* The fake tool. Per call N it writes call.N.argv (NUL-terminated args, tool name first) and
 * call.N.stdin; prints out.TOOL.LASTARG (slashes as '_') or out.TOOL, err.TOOL to stderr;
 * sleeps sleep.TOOL seconds; exits with rc.TOOL (default 0). */
static const char fake_tool[] =
        "#!/bin/sh\n"
        "d=\"$FAKE_DIR\"\n"
        "name=${0##*/}\n"
        "n=$(cat \"$d/count\" 2>/dev/null || echo 0)\n"
        "n=$((n + 1))\n"
        "echo \"$n\" > \"$d/count\"\n"
        "for a in \"$name\" \"$@\"; do printf '%s\\000' \"$a\"; done > \"$d/call.$n.argv\"\n"
        "cat > \"$d/call.$n.stdin\"\n"
        "last=\n"
        "for last in \"$@\"; do :; done\n"
        "key=$(printf '%s' \"$last\" | tr / _)\n"
        "if [ -f \"$d/out.$name.$key\" ]; then cat \"$d/out.$name.$key\";\n"
        "elif [ -f \"$d/out.$name\" ]; then cat \"$d/out.$name\"; fi\n"
        "if [ -f \"$d/err.$name\" ]; then cat \"$d/err.$name\" >&2; fi\n"
        "if [ -f \"$d/sleep.$name\" ]; then sleep \"$(cat \"$d/sleep.$name\")\"; fi\n"
        "if [ -f \"$d/rc.$name\" ]; then exit \"$(cat \"$d/rc.$name\")\"; fi\n"
        "exit 0\n";

static const char *const tools[] = {
        "relation-ids",
        "relation-list",
        "relation-get",
        "relation-set",
        "config-get",
        "is-leader",
        "goal-state",
        "status-set",
        "application-version-set",
        "juju-log",
        "action-get",
        "action-set",
        "action-fail",
        "action-log",
        "secret-add",
        "secret-get",
        "secret-set",
        "secret-grant",
        "secret-revoke",
        "secret-remove",
        "secret-ids",
        "secret-info-get",
        "state-get",
        "state-set",
        "state-delete",
        "open-port",
        "close-port",
        "unit-get",
        "network-get",
};

struct fake {
        char dir[64];
        struct strv env;
        struct juju_ctx *ctx;
        struct strbuf err;
};

static void write_file(const char *dir, const char *name, const char *content, mode_t mode) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(content, f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(path, mode), 0);
}

static void fake_set(struct fake *f, const char *name, const char *content) {
        write_file(f->dir, name, content, 0644);
}

static void fake_unset(struct fake *f, const char *name) {
        _cleanup_free_ char *path = xasprintf("%s/%s", f->dir, name);
        unlink(path);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void base_env(struct fake *f) {
        strv_pushf(&f->env, "PATH=%s/bin:/usr/bin:/bin", f->dir);
        strv_pushf(&f->env, "FAKE_DIR=%s", f->dir);
        strv_pushl(&f->env, "LANG=C.UTF-8", "JUJU_UNIT_NAME=slurmd/2", "JUJU_MODEL_NAME=m1",
                "JUJU_MACHINE_ID=4", "JUJU_CHARM_DIR=/var/lib/juju/charm",
                "JUJU_HOOK_NAME=slurmctld-relation-changed",
                "JUJU_DISPATCH_PATH=hooks/slurmctld-relation-changed", "JUJU_RELATION=slurmctld",
                "JUJU_RELATION_ID=slurmctld:3", "JUJU_REMOTE_UNIT=slurmctld/0", "JUJU_REMOTE_APP=slurmctld",
                "JUJU_DEPARTING_UNIT=", NULL);
}

static int teardown(void **state);

static int setup(void **state) {
        struct fake *f = xcalloc(1, sizeof(*f));
        snprintf(f->dir, sizeof(f->dir), "/tmp/test-juju-XXXXXX");
        if (!mkdtemp(f->dir)) {
                free(f);
                return -1;
        }
        *state = f;
        strv_init(&f->env);
        strbuf_init(&f->err, 0);
        _cleanup_free_ char *bin = xasprintf("%s/bin", f->dir);
        _cleanup_free_ char *tool = xasprintf("%s/fake-tool", bin);
        FILE *fp = NULL;
        if (mkdir(bin, 0755) < 0 || !(fp = fopen(tool, "we")) || fputs(fake_tool, fp) < 0)
                goto fail;
        if (fclose(TAKE_PTR(fp)) != 0 || chmod(tool, 0755) < 0)
                goto fail;
        for (size_t i = 0; i < ELEMENTSOF(tools); i++) {
                _cleanup_free_ char *link = xasprintf("%s/%s", bin, tools[i]);
                if (symlink("fake-tool", link) < 0)
                        goto fail;
        }
        base_env(f);
        if (juju_ctx_from_envp(f->env.v, &f->ctx, &f->err) < 0)
                goto fail;
        return 0;
fail:
        if (fp)
                fclose(fp);
        teardown(state); /* cmocka skips teardown when setup fails */
        *state = NULL;
        return -1;
}

static int teardown(void **state) {
        struct fake *f = *state;
        if (!f)
                return 0;
        juju_ctx_free(f->ctx);
        nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        strv_clear(&f->env);
        strbuf_release(&f->err);
        free(f);
        return 0;
}

static unsigned ncalls(struct fake *f) {
        _cleanup_free_ char *path = xasprintf("%s/count", f->dir);
        FILE *fp = fopen(path, "re");
        unsigned n = 0;
        if (fp) {
                if (fscanf(fp, "%u", &n) != 1)
                        n = 0;
                fclose(fp);
        }
        return n;
}

static void read_all(const char *path, struct strbuf *sb) {
        FILE *fp = fopen(path, "re");
        assert_non_null(fp);
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
                strbuf_add(sb, buf, n);
        fclose(fp);
}

/* Call n's argv joined with " | " (so one assert shows the whole command on failure). */
static char *call_argv(struct fake *f, unsigned n) {
        _cleanup_free_ char *path = xasprintf("%s/call.%u.argv", f->dir, n);
        _cleanup_strbuf_ struct strbuf raw = STRBUF_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        read_all(path, &raw);
        for (size_t i = 0; i < raw.len; i++) {
                if (raw.buf[i])
                        strbuf_addch(&out, raw.buf[i]);
                else if (i + 1 < raw.len)
                        strbuf_addstr(&out, " | ");
        }
        return strbuf_detach(&out, NULL);
}

static char *call_stdin(struct fake *f, unsigned n) {
        _cleanup_free_ char *path = xasprintf("%s/call.%u.stdin", f->dir, n);
        _cleanup_strbuf_ struct strbuf raw = STRBUF_INIT;
        read_all(path, &raw);
        return strbuf_detach(&raw, NULL);
}

#define assert_call(f, n, expected)                        \
        do {                                               \
                _cleanup_free_ char *_a = call_argv(f, n); \
                assert_string_equal(_a, expected);         \
        } while (0)

/* Parses a YAML document that must be one mapping of double-quoted scalars (what relation-set
 * gets) with libyaml; appends key, value, key, value… to ret. */
static void yaml_parse_map(const char *doc, struct strv *ret) {
        yaml_parser_t parser;
        yaml_event_t ev;
        bool in_map = false, done = false;
        assert_true(yaml_parser_initialize(&parser));
        yaml_parser_set_input_string(&parser, (const unsigned char *) doc, strlen(doc));
        for (int guard = 0; !done && guard < 100000; guard++) {
                if (!yaml_parser_parse(&parser, &ev)) {
                        print_error("yaml: %s at offset %zu\n", parser.problem, parser.problem_offset);
                        yaml_parser_delete(&parser);
                        fail();
                }
                switch (ev.type) {
                case YAML_MAPPING_START_EVENT:
                        assert_false(in_map);
                        in_map = true;
                        break;
                case YAML_SCALAR_EVENT:
                        assert_true(in_map);
                        assert_int_equal(ev.data.scalar.style, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
                        strv_push_take(
                                ret, xstrndup((const char *) ev.data.scalar.value, ev.data.scalar.length));
                        break;
                case YAML_SEQUENCE_START_EVENT:
                case YAML_ALIAS_EVENT:
                        fail_msg("unexpected YAML node");
                        break;
                case YAML_STREAM_END_EVENT:
                        done = true;
                        break;
                default:
                        break;
                }
                yaml_event_delete(&ev);
        }
        yaml_parser_delete(&parser);
        assert_true(done);
        assert_int_equal(ret->n % 2, 0);
}

/* --- context -------------------------------------------------------------------------------- */

static void test_ctx_env(void **state) {
        struct fake *f = *state;
        const struct juju_env *e = juju_env(f->ctx);
        assert_string_equal(e->unit, "slurmd/2");
        assert_string_equal(e->app, "slurmd");
        assert_string_equal(e->model_name, "m1");
        assert_string_equal(e->machine_id, "4");
        assert_string_equal(e->charm_dir, "/var/lib/juju/charm");
        assert_string_equal(e->hook_name, "slurmctld-relation-changed");
        assert_string_equal(e->event, "slurmctld-relation-changed");
        assert_false(e->is_action);
        assert_string_equal(e->relation, "slurmctld");
        assert_string_equal(e->relation_id, "slurmctld:3");
        assert_string_equal(e->relation_event, "changed");
        assert_string_equal(e->remote_unit, "slurmctld/0");
        assert_string_equal(e->remote_app, "slurmctld");
        assert_null(e->departing_unit); /* set but empty */
        assert_null(e->action_name);
        assert_null(e->secret_id);
        assert_int_equal(juju_tool_calls(f->ctx), 0);

        /* an action */
        _cleanup_strv_ struct strv env = STRV_INIT;
        strv_pushl(&env, "JUJU_UNIT_NAME=slurmctld-x/10", "JUJU_HOOK_NAME=", "JUJU_ACTION_NAME=drain",
                "JUJU_DISPATCH_PATH=actions/drain", "JUJU_SECRET_ID=secret:abc", "JUJU_SECRET_LABEL=munge",
                NULL);
        _cleanup_juju_ctx_ struct juju_ctx *a = NULL;
        assert_int_equal(juju_ctx_from_envp(env.v, &a, NULL), 0);
        e = juju_env(a);
        assert_string_equal(e->app, "slurmctld-x");
        assert_true(e->is_action);
        assert_string_equal(e->event, "drain");
        assert_string_equal(e->action_name, "drain");
        assert_null(e->hook_name);
        assert_null(e->relation_id);
        assert_null(e->relation_event);
        assert_string_equal(e->secret_id, "secret:abc");
        assert_string_equal(e->secret_label, "munge");

        /* not in a hook, or a bad unit name */
        _cleanup_strv_ struct strv none = STRV_INIT;
        strv_push(&none, "PATH=/bin");
        _cleanup_juju_ctx_ struct juju_ctx *n = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(juju_ctx_from_envp(none.v, &n, &err), -ENXIO);
        assert_null(n);
        assert_non_null(strstr(err.buf, "JUJU_UNIT_NAME"));
        const char *bad[] = { "JUJU_UNIT_NAME=slurmd", "JUJU_UNIT_NAME=slurmd/", "JUJU_UNIT_NAME=/0",
                "JUJU_UNIT_NAME=Slurmd/0", "JUJU_UNIT_NAME=slurmd/x", NULL };
        for (size_t i = 0; bad[i]; i++) {
                char *l[] = { (char *) bad[i], NULL };
                assert_int_equal(juju_ctx_from_envp(l, &n, NULL), -EINVAL);
        }

        /* the tools run with the ctx's environment, not ours */
        fake_set(f, "out.unit-get", "10.0.0.7\n");
        _cleanup_free_ char *addr = NULL;
        assert_int_equal(juju_private_address(f->ctx, &addr, &f->err), 0);
        assert_string_equal(addr, "10.0.0.7");
        assert_call(f, 1, "unit-get | private-address");
}

/* --- relations ------------------------------------------------------------------------------ */

static void test_relation_get_cached(void **state) {
        struct fake *f = *state;
        fake_set(f, "out.relation-get.slurmctld_0", "{\"hostname\":\"ctl0\",\"port\":\"6817\"}\n");
        fake_set(f, "out.relation-get.slurmctld", "{\"cluster\":\"c1\"}\n");
        fake_set(f, "out.relation-get.slurmctld_1", "{}\n");

        const cJSON *bag;
        const char *v;
        for (int i = 0; i < 5; i++) {
                assert_int_equal(juju_relation_get(f->ctx, NULL, "slurmctld/0", &bag, &f->err), 0);
                assert_int_equal(cJSON_GetArraySize(bag), 2);
                assert_int_equal(
                        juju_relation_get_value(f->ctx, "slurmctld:3", "slurmctld/0", "port", &v, &f->err),
                        0);
                assert_string_equal(v, "6817");
                assert_int_equal(
                        juju_relation_get_value(f->ctx, NULL, "slurmctld/0", "nope", &v, &f->err), 0);
                assert_null(v);
        }
        assert_int_equal(ncalls(f), 1);
        assert_call(f, 1, "relation-get | -r | slurmctld:3 | --format=json | - | slurmctld/0");

        for (int i = 0; i < 3; i++) {
                assert_int_equal(
                        juju_relation_get_value(f->ctx, NULL, "slurmctld", "cluster", &v, &f->err), 0);
                assert_string_equal(v, "c1");
        }
        assert_int_equal(ncalls(f), 2);
        assert_call(f, 2, "relation-get | -r | slurmctld:3 | --app | --format=json | - | slurmctld");

        /* the same unit in another relation is another bag */
        assert_int_equal(juju_relation_get(f->ctx, "slurmctld:9", "slurmctld/0", &bag, &f->err), 0);
        assert_int_equal(juju_relation_get(f->ctx, "slurmctld:9", "slurmctld/0", &bag, &f->err), 0);
        assert_int_equal(juju_relation_get(f->ctx, NULL, "slurmctld/1", &bag, &f->err), 0);
        assert_int_equal(cJSON_GetArraySize(bag), 0);
        assert_int_equal(ncalls(f), 4);
        assert_call(f, 3, "relation-get | -r | slurmctld:9 | --format=json | - | slurmctld/0");
        assert_int_equal(juju_tool_calls(f->ctx), 4);
        assert_string_equal(f->err.buf, "");
}

static void test_relation_ids_list(void **state) {
        struct fake *f = *state;
        fake_set(f, "out.relation-ids", "[\"slurmctld:3\",\"slurmctld:9\"]\n");
        fake_set(f, "out.relation-list", "[\"slurmctld/0\",\"slurmctld/1\"]\n");
        _cleanup_strv_ struct strv ids = STRV_INIT, units = STRV_INIT;
        assert_int_equal(juju_relation_ids(f->ctx, "slurmctld", &ids, &f->err), 2);
        assert_string_equal(ids.v[1], "slurmctld:9");
        assert_call(f, 1, "relation-ids | --format=json | slurmctld");
        assert_int_equal(juju_relation_list(f->ctx, "slurmctld:9", &units, &f->err), 2);
        assert_string_equal(units.v[0], "slurmctld/0");
        assert_call(f, 2, "relation-list | -r | slurmctld:9 | --format=json");

        fake_set(f, "out.relation-list", "\"slurmctld\"\n");
        _cleanup_free_ char *app = NULL;
        assert_int_equal(juju_relation_remote_app(f->ctx, NULL, &app, &f->err), 0);
        assert_string_equal(app, "slurmctld");
        assert_call(f, 3, "relation-list | -r | slurmctld:3 | --app | --format=json");

        /* output that is not a list of strings */
        fake_set(f, "out.relation-ids", "{\"a\":1}\n");
        assert_int_equal(juju_relation_ids(f->ctx, "x", &ids, &f->err), -EBADMSG);
        assert_int_equal(ids.n, 2);
        fake_set(f, "out.relation-ids", "[1, 2\n");
        strbuf_reset(&f->err);
        assert_int_equal(juju_relation_ids(f->ctx, "x", &ids, &f->err), -EBADMSG);
        assert_string_equal(f->err.buf, "relation-ids: output is not valid JSON");
}

static void test_relation_set_batched(void **state) {
        struct fake *f = *state;
        fake_set(f, "out.relation-get.slurmd_2", "{\"old\":\"1\",\"keep\":\"k\"}\n");

        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "hostname", "node1", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "cpus", "8", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "hostname", "node2", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "old", NULL, &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, true, "partition", "batch", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, true, "weight", "", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, "slurmctld:9", false, "x", "y", &f->err), 0);
        assert_true(juju_has_pending(f->ctx));
        assert_int_equal(ncalls(f), 0);

        /* reading our own bag: one relation-get, pending writes visible */
        const char *v;
        assert_int_equal(juju_relation_get_value(f->ctx, NULL, "slurmd/2", "hostname", &v, &f->err), 0);
        assert_string_equal(v, "node2");
        assert_int_equal(juju_relation_get_value(f->ctx, NULL, "slurmd/2", "old", &v, &f->err), 0);
        assert_null(v);
        assert_int_equal(juju_relation_get_value(f->ctx, NULL, "slurmd/2", "keep", &v, &f->err), 0);
        assert_string_equal(v, "k");
        assert_int_equal(ncalls(f), 1);
        /* and a write after the read updates the cached bag */
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "keep", "", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "late", "yes", &f->err), 0);
        assert_int_equal(juju_relation_get_value(f->ctx, NULL, "slurmd/2", "keep", &v, &f->err), 0);
        assert_null(v);
        assert_int_equal(juju_relation_get_value(f->ctx, NULL, "slurmd/2", "late", &v, &f->err), 0);
        assert_string_equal(v, "yes");
        assert_int_equal(ncalls(f), 1);

        assert_int_equal(juju_flush(f->ctx, &f->err), 0);
        assert_false(juju_has_pending(f->ctx));
        assert_int_equal(ncalls(f), 4); /* one relation-set per bag */
        assert_call(f, 2, "relation-set | -r | slurmctld:3 | --file | -");
        assert_call(f, 3, "relation-set | -r | slurmctld:3 | --app | --file | -");
        assert_call(f, 4, "relation-set | -r | slurmctld:9 | --file | -");

        _cleanup_free_ char *in2 = call_stdin(f, 2);
        _cleanup_strv_ struct strv kv = STRV_INIT;
        yaml_parse_map(in2, &kv);
        _cleanup_free_ char *j = strv_join(&kv, ",");
        assert_string_equal(j, "hostname,node2,cpus,8,old,,keep,,late,yes");

        _cleanup_free_ char *in3 = call_stdin(f, 3);
        _cleanup_strv_ struct strv kv3 = STRV_INIT;
        yaml_parse_map(in3, &kv3);
        _cleanup_free_ char *j3 = strv_join(&kv3, ",");
        assert_string_equal(j3, "partition,batch,weight,");

        /* nothing left to send */
        assert_int_equal(juju_flush(f->ctx, &f->err), 0);
        assert_int_equal(ncalls(f), 4);
        assert_string_equal(f->err.buf, "");
}

static void test_relation_set_yaml_quoting(void **state) {
        struct fake *f = *state;
        static const char *const nasty[] = {
                "plain",
                "with \"double\" and 'single' quotes",
                "line1\nline2\n\nline4\n",
                "key: value",
                "a:b",
                "  leading and trailing spaces  ",
                "# not a comment",
                "value # trailing comment?",
                "unicode é 日本語 🚀 ß",
                "back\\slash \\n not a newline",
                "tab\there",
                "cr\r\nlf",
                "ctl\x01\x1f\x7f end",
                "nel\xc2\x85 ls\xe2\x80\xa8 ps\xe2\x80\xa9 bom\xef\xbb\xbf c1\xc2\x90",
                "null",
                "~",
                "true",
                "no",
                "0x1F",
                "1e3",
                "- item",
                "[a, b]",
                "{a: b}",
                "&anchor",
                "*alias",
                "!tag",
                "%directive",
                "@at `tick`",
                "---",
                "...",
                "|",
                ">",
                "?",
                ",",
                " ",
                "\xf4\x8f\xbf\xbd",
        };
        for (size_t i = 0; i < ELEMENTSOF(nasty); i++) {
                _cleanup_free_ char *key = xasprintf("k%zu", i);
                assert_int_equal(juju_relation_set(f->ctx, NULL, false, key, nasty[i], &f->err), 0);
        }
        /* nasty keys too */
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "key: with colon", "v", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "\"q\" #", "w", &f->err), 0);
        /* invalid UTF-8 is refused at once */
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "bad", "\xc3\x28", &f->err), -EILSEQ);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "bad", "\xed\xa0\x80", &f->err), -EILSEQ);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "bad", "\xc0\xaf", &f->err), -EILSEQ);
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "", "v", &f->err), -EINVAL);

        strbuf_reset(&f->err);
        assert_int_equal(juju_flush(f->ctx, &f->err), 0);
        assert_int_equal(ncalls(f), 1);
        _cleanup_free_ char *in = call_stdin(f, 1);
        _cleanup_strv_ struct strv kv = STRV_INIT;
        yaml_parse_map(in, &kv);
        assert_int_equal(kv.n, 2 * (ELEMENTSOF(nasty) + 2));
        for (size_t i = 0; i < ELEMENTSOF(nasty); i++) {
                _cleanup_free_ char *key = xasprintf("k%zu", i);
                assert_string_equal(kv.v[2 * i], key);
                assert_string_equal(kv.v[2 * i + 1], nasty[i]);
        }
        assert_string_equal(kv.v[2 * ELEMENTSOF(nasty)], "key: with colon");
        assert_string_equal(kv.v[2 * ELEMENTSOF(nasty) + 2], "\"q\" #");
        /* one line per key: nothing was folded */
        size_t lines = 0;
        for (const char *p = in; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, ELEMENTSOF(nasty) + 2);
}

static void test_relation_errors(void **state) {
        struct fake *f = *state;
        const cJSON *bag;

        /* the tool ran and failed: its ERROR text, -EREMOTEIO, nothing cached, we live on */
        fake_set(f, "err.relation-get", "ERROR permission denied\n");
        fake_set(f, "rc.relation-get", "1");
        assert_int_equal(juju_relation_get(f->ctx, NULL, "slurmd", &bag, &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf, "relation-get: ERROR permission denied");
        fake_set(f, "err.relation-get",
                "ERROR invalid value \"slurmctld:99\" for option -r: relation not found\n");
        fake_set(f, "rc.relation-get", "2");
        strbuf_reset(&f->err);
        assert_int_equal(juju_relation_get(f->ctx, "slurmctld:99", "slurmd", &bag, &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf,
                "relation-get: ERROR invalid value \"slurmctld:99\" for option -r: relation not found");
        assert_int_equal(ncalls(f), 2);

        /* a failure without stderr still says something */
        fake_unset(f, "err.relation-get");
        fake_set(f, "rc.relation-get", "3");
        strbuf_reset(&f->err);
        assert_int_equal(juju_relation_get(f->ctx, NULL, "slurmd", &bag, &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf, "relation-get: exited with status 3");

        /* no relation id anywhere */
        _cleanup_strv_ struct strv env = STRV_INIT;
        strv_pushf(&env, "PATH=%s/bin:/usr/bin:/bin", f->dir);
        strv_pushf(&env, "FAKE_DIR=%s", f->dir);
        strv_push(&env, "JUJU_UNIT_NAME=slurmd/0");
        _cleanup_juju_ctx_ struct juju_ctx *c = NULL;
        assert_int_equal(juju_ctx_from_envp(env.v, &c, NULL), 0);
        strbuf_reset(&f->err);
        assert_int_equal(juju_relation_get(c, NULL, "slurmd/1", &bag, &f->err), -EINVAL);
        assert_int_equal(juju_relation_set(c, NULL, false, "a", "b", &f->err), -EINVAL);
        assert_int_equal(ncalls(f), 3);

        /* a flush that fails keeps the writes for a retry */
        fake_set(f, "err.relation-set", "ERROR cannot write relation settings\n");
        fake_set(f, "rc.relation-set", "1");
        assert_int_equal(juju_relation_set(f->ctx, NULL, false, "a", "1", &f->err), 0);
        assert_int_equal(juju_relation_set(f->ctx, NULL, true, "b", "2", &f->err), 0);
        strbuf_reset(&f->err);
        assert_int_equal(juju_flush(f->ctx, &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf,
                "relation-set: ERROR cannot write relation settings; relation-set: ERROR cannot write "
                "relation settings");
        assert_true(juju_has_pending(f->ctx));
        fake_unset(f, "rc.relation-set");
        assert_int_equal(juju_flush(f->ctx, NULL), 0);
        assert_false(juju_has_pending(f->ctx));
        assert_int_equal(ncalls(f), 7);
}

static void test_missing_tool(void **state) {
        struct fake *f = *state;
        _cleanup_free_ char *link = xasprintf("%s/bin/relation-get", f->dir);
        assert_int_equal(unlink(link), 0);
        const cJSON *bag;
        assert_int_equal(juju_relation_get(f->ctx, NULL, "slurmd/1", &bag, &f->err), -ENOENT);
        assert_string_equal(f->err.buf, "could not run relation-get: No such file or directory");

        /* not executable: could not run, EACCES */
        _cleanup_free_ char *other = xasprintf("%s/bin/is-leader", f->dir);
        assert_int_equal(unlink(other), 0);
        write_file(f->dir, "bin/is-leader", "#!/bin/sh\necho true\n", 0644);
        bool leader;
        strbuf_reset(&f->err);
        assert_int_equal(juju_is_leader(f->ctx, &leader, &f->err), -EACCES);
        assert_string_equal(f->err.buf, "could not run is-leader: Permission denied");
        assert_int_equal(ncalls(f), 0);

        /* a tool killed by a signal, and one that hangs past the timeout */
        write_file(f->dir, "bin/is-leader", "#!/bin/sh\nkill -KILL $$\n", 0755);
        strbuf_reset(&f->err);
        assert_int_equal(juju_is_leader(f->ctx, &leader, &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf, "is-leader: killed by signal 9");

        fake_set(f, "sleep.config-get", "30");
        juju_set_tool_timeout(f->ctx, 300);
        const cJSON *cfg;
        strbuf_reset(&f->err);
        assert_int_equal(juju_config(f->ctx, &cfg, &f->err), -ETIME);
        assert_string_equal(f->err.buf, "config-get: timed out after 300 ms");
}

/* --- config, leader, status, log ------------------------------------------------------------ */

static void test_config(void **state) {
        struct fake *f = *state;
        fake_set(f, "out.config-get",
                "{\"cluster-name\":\"c1\",\"port\":6817,\"big\":4000000000,\"ratio\":0.5,\"debug\":true,"
                "\"unset\":null}\n");
        const char *s;
        int64_t i;
        double d;
        bool b;
        assert_int_equal(juju_config_string(f->ctx, "cluster-name", &s, &f->err), 0);
        assert_string_equal(s, "c1");
        assert_int_equal(juju_config_int(f->ctx, "port", &i, &f->err), 0);
        assert_int_equal(i, 6817);
        assert_int_equal(juju_config_int(f->ctx, "big", &i, &f->err), 0);
        assert_true(i == 4000000000LL);
        assert_int_equal(juju_config_float(f->ctx, "ratio", &d, &f->err), 0);
        assert_true(d == 0.5);
        assert_int_equal(juju_config_float(f->ctx, "port", &d, &f->err), 0);
        assert_int_equal(juju_config_bool(f->ctx, "debug", &b, &f->err), 0);
        assert_true(b);
        assert_string_equal(f->err.buf, "");
        assert_int_equal(juju_config_string(f->ctx, "unset", &s, &f->err), -ENOENT);
        assert_string_equal(f->err.buf, "config \"unset\": not set");
        assert_int_equal(juju_config_string(f->ctx, "nope", &s, NULL), -ENOENT);
        assert_int_equal(juju_config_int(f->ctx, "ratio", &i, NULL), -EINVAL);
        assert_int_equal(juju_config_bool(f->ctx, "port", &b, NULL), -EINVAL);
        assert_int_equal(juju_config_string(f->ctx, "port", &s, NULL), -EINVAL);
        assert_int_equal(ncalls(f), 1);
        assert_call(f, 1, "config-get | --all | --format=json");
}

static void test_unit_dying(void **state) {
        struct fake *f = *state;
        bool dying = true;
        fake_set(f, "out.goal-state",
                "{\"units\":{\"slurmd/2\":{\"status\":\"active\",\"since\":\"2026-01-02 03:04:05Z\"}},"
                "\"relations\":{}}\n");
        assert_int_equal(juju_unit_dying(f->ctx, &dying, &f->err), 0);
        assert_false(dying);
        assert_call(f, 1, "goal-state | --format=json");
        fake_set(f, "out.goal-state",
                "{\"units\":{\"slurmd/2\":{\"status\":\"dying\",\"since\":\"2026-01-02 03:04:05Z\"}}}\n");
        assert_int_equal(juju_unit_dying(f->ctx, &dying, &f->err), 0);
        assert_true(dying);
        fake_set(f, "out.goal-state", "{\"units\":{}}\n"); /* not listed: not dying */
        assert_int_equal(juju_unit_dying(f->ctx, &dying, &f->err), 0);
        assert_false(dying);
        fake_set(f, "out.goal-state", "[1]\n");
        assert_int_equal(juju_unit_dying(f->ctx, &dying, &f->err), -EBADMSG);
}

static void test_leader_status_log(void **state) {
        struct fake *f = *state;
        bool leader = false;
        fake_set(f, "out.is-leader", "true\n");
        assert_int_equal(juju_is_leader(f->ctx, &leader, &f->err), 0);
        assert_true(leader);
        assert_int_equal(juju_is_leader(f->ctx, &leader, &f->err), 0);
        assert_int_equal(ncalls(f), 1);
        assert_call(f, 1, "is-leader | --format=json");

        assert_int_equal(juju_status_set(f->ctx, false, JUJU_STATUS_ACTIVE, "ready: 3 nodes", &f->err), 0);
        assert_call(f, 2, "status-set | active | ready: 3 nodes");
        assert_int_equal(juju_status_set(f->ctx, true, JUJU_STATUS_BLOCKED, "need a slurmctld", &f->err), 0);
        assert_call(f, 3, "status-set | --application | blocked | need a slurmctld");
        assert_int_equal(juju_status_set(f->ctx, false, JUJU_STATUS_MAINTENANCE, NULL, &f->err), 0);
        assert_call(f, 4, "status-set | maintenance");
        assert_int_equal(juju_status_set(f->ctx, false, JUJU_STATUS_WAITING, "-dash first", &f->err), 0);
        assert_call(f, 5, "status-set | waiting | -- | -dash first");
        assert_int_equal(juju_status_set(f->ctx, false, (enum juju_status) 9, "x", &f->err), -EINVAL);

        assert_int_equal(juju_log(f->ctx, JUJU_LOG_WARNING, "disk almost full", &f->err), 0);
        assert_call(f, 6, "juju-log | -l | WARNING | disk almost full");
        assert_int_equal(juju_logf(f->ctx, JUJU_LOG_DEBUG, &f->err, "n=%d", 3), 0);
        assert_call(f, 7, "juju-log | -l | DEBUG | n=3");
        assert_int_equal(juju_application_version_set(f->ctx, "22.05.8", &f->err), 0);
        assert_call(f, 8, "application-version-set | 22.05.8");
        assert_int_equal(ncalls(f), 8);

        /* juju-log failing is reported, not fatal */
        fake_set(f, "rc.juju-log", "1");
        fake_set(f, "err.juju-log", "ERROR cannot connect to agent\n");
        strbuf_reset(&f->err);
        assert_int_equal(juju_log(f->ctx, JUJU_LOG_INFO, "x", &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf, "juju-log: ERROR cannot connect to agent");

        fake_set(f, "out.is-leader", "maybe\n");
        _cleanup_juju_ctx_ struct juju_ctx *c = NULL;
        assert_int_equal(juju_ctx_from_envp(f->env.v, &c, NULL), 0);
        assert_int_equal(juju_is_leader(c, &leader, NULL), -EBADMSG);
}

/* --- actions -------------------------------------------------------------------------------- */

static void test_actions(void **state) {
        struct fake *f = *state;
        fake_set(f, "out.action-get",
                "{\"nodes\":\"node[1-3]\",\"opts\":{\"force\":true,\"reason\":\"maint\"}}\n");
        const cJSON *p;
        assert_int_equal(juju_action_param(f->ctx, "nodes", &p, &f->err), 0);
        assert_string_equal(p->valuestring, "node[1-3]");
        assert_int_equal(juju_action_param(f->ctx, "opts.reason", &p, &f->err), 0);
        assert_string_equal(p->valuestring, "maint");
        assert_int_equal(juju_action_param(f->ctx, "opts.force", &p, &f->err), 0);
        assert_true(cJSON_IsTrue(p));
        assert_int_equal(juju_action_param(f->ctx, "opts.nope.deeper", &p, &f->err), 0);
        assert_null(p);
        assert_int_equal(juju_action_param(f->ctx, "nodes.x", &p, &f->err), 0);
        assert_null(p);
        assert_int_equal(ncalls(f), 1);
        assert_call(f, 1, "action-get | --format=json");

        assert_int_equal(juju_action_set(f->ctx, "result.conf", "a=b\nc: d", &f->err), 0);
        assert_call(f, 2, "action-set | result.conf=a=b\nc: d");
        _cleanup_strv_ struct strv kv = STRV_INIT;
        strv_pushl(&kv, "drained", "3", "node-1.state", "idle", "x-1.y2.z", "", NULL);
        assert_int_equal(juju_action_set_many(f->ctx, &kv, &f->err), 0);
        assert_call(f, 3, "action-set | drained=3 | node-1.state=idle | x-1.y2.z=");

        const char *bad[] = { "", "Upper", "a..b", ".a", "a.", "-a", "a-", "a.-b", "a_b", "a b", "stdout",
                "stderr", "stdout-encoding", "ключ", "a=b" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_false(juju_action_key_valid(bad[i]));
                assert_int_equal(juju_action_set(f->ctx, bad[i], "v", NULL), -EINVAL);
        }
        assert_false(juju_action_key_valid("stdout.x")); /* action-set.go checks every segment */
        assert_false(juju_action_key_valid("x.stderr-encoding"));
        assert_true(juju_action_key_valid("0"));
        strv_push(&kv, "odd");
        assert_int_equal(juju_action_set_many(f->ctx, &kv, NULL), -EINVAL);
        assert_int_equal(ncalls(f), 3);

        assert_int_equal(juju_action_fail(f->ctx, "node \"x\" unknown", &f->err), 0);
        assert_call(f, 4, "action-fail | node \"x\" unknown");
        assert_int_equal(juju_action_fail(f->ctx, NULL, &f->err), 0);
        assert_call(f, 5, "action-fail");
        assert_int_equal(juju_action_log(f->ctx, "draining node1", &f->err), 0);
        assert_call(f, 6, "action-log | draining node1");
        assert_string_equal(f->err.buf, "");
}

/* --- secrets -------------------------------------------------------------------------------- */

static void test_secrets(void **state) {
        struct fake *f = *state;
        _cleanup_juju_cjson_ cJSON *content = cJSON_CreateObject();
        cJSON_AddStringToObject(content, "key", "c2VjcmV0 with spaces\nand newline");
        cJSON_AddStringToObject(content, "munge-key2", "x=y");
        fake_set(f, "out.secret-add", "secret:cvh7kq7mp25c7bgtt0v0\n");
        _cleanup_free_ char *id = NULL;
        assert_int_equal(juju_secret_add(f->ctx, content, "munge", "munge key",
                                 JUJU_SECRET_OWNER_APPLICATION, &id, &f->err),
                0);
        assert_string_equal(id, "secret:cvh7kq7mp25c7bgtt0v0");
        assert_call(f, 1,
                "secret-add | --label | munge | --description | munge key | --owner | application | "
                "key=c2VjcmV0 with spaces\nand newline | munge-key2=x=y");
        _cleanup_free_ char *id2 = NULL;
        assert_int_equal(
                juju_secret_add(f->ctx, content, NULL, NULL, JUJU_SECRET_OWNER_UNIT, &id2, &f->err), 0);
        assert_call(f, 2,
                "secret-add | --owner | unit | key=c2VjcmV0 with spaces\nand newline | munge-key2=x=y");

        /* bad keys never reach the tool */
        const char *bad[] = { "ab", "1abc", "Abc", "a--b", "abc-", "a_bc", "" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_false(juju_secret_key_valid(bad[i]));
                _cleanup_juju_cjson_ cJSON *c = cJSON_CreateObject();
                cJSON_AddStringToObject(c, bad[i], "v");
                _cleanup_free_ char *x = NULL;
                assert_int_equal(juju_secret_add(f->ctx, c, NULL, NULL, 0, &x, NULL), -EINVAL);
        }
        assert_true(juju_secret_key_valid("abc"));
        assert_true(juju_secret_key_valid("a-b-c"));
        assert_int_equal(ncalls(f), 2);

        fake_set(f, "out.secret-get", "{\"key\":\"v1\",\"other\":\"v2\"}\n");
        cJSON *got = NULL;
        assert_int_equal(juju_secret_get(f->ctx, id, NULL, JUJU_SECRET_PEEK, &got, &f->err), 0);
        assert_string_equal(cJSON_GetObjectItem(got, "other")->valuestring, "v2");
        cJSON_Delete(got);
        assert_call(f, 3, "secret-get | --peek | --format=json | secret:cvh7kq7mp25c7bgtt0v0");
        _cleanup_free_ char *val = NULL;
        assert_int_equal(
                juju_secret_get_value(f->ctx, NULL, "munge", JUJU_SECRET_REFRESH, "key", &val, &f->err), 0);
        assert_string_equal(val, "v1");
        assert_call(f, 4, "secret-get | --label | munge | --refresh | --format=json");
        _cleanup_free_ char *val2 = NULL;
        assert_int_equal(
                juju_secret_get_value(f->ctx, id, "munge", JUJU_SECRET_CURRENT, "missing", &val2, NULL),
                -ENOENT);
        assert_call(f, 5, "secret-get | --label | munge | --format=json | secret:cvh7kq7mp25c7bgtt0v0");
        assert_int_equal(juju_secret_get(f->ctx, NULL, NULL, 0, &got, NULL), -EINVAL);

        fake_set(f, "rc.secret-get", "1");
        fake_set(f, "err.secret-get", "ERROR secret \"secret:nope\" not found\n");
        assert_int_equal(juju_secret_get(f->ctx, "secret:nope", NULL, 0, &got, &f->err), -EREMOTEIO);
        assert_string_equal(f->err.buf, "secret-get: ERROR secret \"secret:nope\" not found");
        strbuf_reset(&f->err);

        assert_int_equal(juju_secret_set(f->ctx, id, content, NULL, "rotated", &f->err), 0);
        assert_call(f, 7,
                "secret-set | --description | rotated | secret:cvh7kq7mp25c7bgtt0v0 | "
                "key=c2VjcmV0 with spaces\nand newline | munge-key2=x=y");
        assert_int_equal(juju_secret_grant(f->ctx, id, "slurmd:4", NULL, &f->err), 0);
        assert_call(f, 8, "secret-grant | -r | slurmd:4 | secret:cvh7kq7mp25c7bgtt0v0");
        assert_int_equal(juju_secret_grant(f->ctx, id, NULL, "slurmctld/0", &f->err), 0);
        assert_call(f, 9,
                "secret-grant | -r | slurmctld:3 | --unit | slurmctld/0 | secret:cvh7kq7mp25c7bgtt0v0");
        assert_int_equal(juju_secret_revoke(f->ctx, id, "slurmd:4", NULL, &f->err), 0);
        assert_call(f, 10, "secret-revoke | -r | slurmd:4 | secret:cvh7kq7mp25c7bgtt0v0");
        assert_int_equal(juju_secret_remove(f->ctx, id, 0, &f->err), 0);
        assert_call(f, 11, "secret-remove | secret:cvh7kq7mp25c7bgtt0v0");
        assert_int_equal(juju_secret_remove(f->ctx, id, 3, &f->err), 0);
        assert_call(f, 12, "secret-remove | --revision | 3 | secret:cvh7kq7mp25c7bgtt0v0");

        fake_set(f, "out.secret-ids", "[\"secret:a\",\"secret:b\"]\n");
        _cleanup_strv_ struct strv ids = STRV_INIT;
        assert_int_equal(juju_secret_ids(f->ctx, &ids, &f->err), 2);
        assert_string_equal(ids.v[1], "secret:b");
        assert_call(f, 13, "secret-ids | --format=json");

        fake_set(f, "out.secret-info-get",
                "{\"cvh7kq7mp25c7bgtt0v0\":{\"revision\":2,\"label\":\"munge\",\"owner\":\"application\"}}"
                "\n");
        cJSON *info = NULL;
        assert_int_equal(juju_secret_info_get(f->ctx, NULL, "munge", &info, &f->err), 0);
        assert_int_equal(cJSON_GetObjectItem(info, "revision")->valueint, 2);
        cJSON_Delete(info);
        assert_call(f, 14, "secret-info-get | --label | munge | --format=json");
        assert_string_equal(f->err.buf, "");
}

/* --- state, ports, network ------------------------------------------------------------------ */

static void test_state_ports_network(void **state) {
        struct fake *f = *state;
        fake_set(f, "out.state-get.configured", "\"yes, v2\"\n");
        _cleanup_free_ char *v = NULL;
        assert_int_equal(juju_state_get(f->ctx, "configured", &v, &f->err), 0);
        assert_string_equal(v, "yes, v2");
        assert_call(f, 1, "state-get | --format=json | configured");
        char *none = (char *) "sentinel";
        assert_int_equal(juju_state_get(f->ctx, "missing", &none, &f->err), 0);
        assert_null(none);
        assert_int_equal(juju_state_set(f->ctx, "configured", "a=b c", &f->err), 0);
        assert_call(f, 3, "state-set | configured=a=b c");
        assert_int_equal(juju_state_delete(f->ctx, "configured", &f->err), 0);
        assert_call(f, 4, "state-delete | configured");
        assert_int_equal(juju_state_set(f->ctx, "a=b", "c", NULL), -EINVAL);

        assert_int_equal(juju_open_port(f->ctx, 6817, NULL, &f->err), 0);
        assert_call(f, 5, "open-port | 6817/tcp");
        assert_int_equal(juju_close_port(f->ctx, 6818, "udp", &f->err), 0);
        assert_call(f, 6, "close-port | 6818/udp");
        assert_int_equal(juju_open_port(f->ctx, 0, NULL, NULL), -EINVAL);
        assert_int_equal(juju_open_port(f->ctx, 70000, NULL, NULL), -EINVAL);
        assert_int_equal(juju_open_port(f->ctx, 22, "sctp", NULL), -EINVAL);

        fake_set(f, "out.network-get",
                "{\"bind-addresses\":[{\"interface-name\":\"eth0\",\"addresses\":[{\"value\":\"10.1.2.3\","
                "\"cidr\":\"10.1.2.0/24\"}]}],\"egress-subnets\":[\"10.1.2.3/32\"],"
                "\"ingress-addresses\":[\"10.1.2.3\"]}\n");
        cJSON *net = NULL;
        assert_int_equal(juju_network_get(f->ctx, "slurmctld", &net, &f->err), 0);
        assert_string_equal(
                cJSON_GetArrayItem(cJSON_GetObjectItem(net, "ingress-addresses"), 0)->valuestring,
                "10.1.2.3");
        cJSON_Delete(net);
        assert_call(f, 7, "network-get | --format=json | slurmctld");

        fake_set(f, "out.unit-get", "two\nlines\n");
        _cleanup_free_ char *addr = NULL;
        assert_int_equal(juju_private_address(f->ctx, &addr, NULL), -EBADMSG);
        assert_null(addr);
        assert_int_equal(ncalls(f), 8);
        assert_string_equal(f->err.buf, "");
}

/* A hook or action process ignores SIGPIPE from its first library call on: a send to a peer
 * that went away returns EPIPE (CI: a slurmctld dying at start killed a hook with rc 141). */
static void test_ctx_env_ignores_sigpipe(void **state) {
        (void) state;
        signal(SIGPIPE, SIG_DFL);
        _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
        assert_int_equal(setenv("JUJU_UNIT_NAME", "slurmctld/0", 1), 0);
        assert_int_equal(juju_ctx_from_env(&ctx, NULL), 0);
        struct sigaction sa;
        assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
        assert_true(sa.sa_handler == SIG_IGN);
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        close(fds[0]);
        assert_int_equal(write(fds[1], "x", 1), -1);
        assert_int_equal(errno, EPIPE);
        close(fds[1]);
        unsetenv("JUJU_UNIT_NAME");
        signal(SIGPIPE, SIG_DFL);
}

static void test_yaml_map_direct(void **state) {
        _cleanup_juju_cjson_ cJSON *m = cJSON_CreateObject();
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        assert_int_equal(juju_yaml_map(m, &out, NULL), 0);
        assert_string_equal(out.buf, "{}\n");
        strbuf_reset(&out);
        cJSON_AddStringToObject(m, "a", "x\"y\\z\n\x01\xc2\x85");
        assert_int_equal(juju_yaml_map(m, &out, NULL), 0);
        assert_string_equal(out.buf, "\"a\": \"x\\\"y\\\\z\\n\\x01\\u0085\"\n");
        cJSON_AddNumberToObject(m, "n", 1);
        assert_int_equal(juju_yaml_map(m, &out, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_ctx_env, setup, teardown),
                cmocka_unit_test_setup_teardown(test_relation_get_cached, setup, teardown),
                cmocka_unit_test_setup_teardown(test_relation_ids_list, setup, teardown),
                cmocka_unit_test_setup_teardown(test_relation_set_batched, setup, teardown),
                cmocka_unit_test_setup_teardown(test_relation_set_yaml_quoting, setup, teardown),
                cmocka_unit_test_setup_teardown(test_relation_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_tool, setup, teardown),
                cmocka_unit_test_setup_teardown(test_config, setup, teardown),
                cmocka_unit_test_setup_teardown(test_leader_status_log, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unit_dying, setup, teardown),
                cmocka_unit_test_setup_teardown(test_actions, setup, teardown),
                cmocka_unit_test_setup_teardown(test_secrets, setup, teardown),
                cmocka_unit_test_setup_teardown(test_state_ports_network, setup, teardown),
                cmocka_unit_test(test_yaml_map_direct),
                cmocka_unit_test(test_ctx_env_ignores_sigpipe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
