/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for tools/juju-sim/gnuflag (Juju's flag grammar, juju/gnuflag flag.go) and the
 * hook tools' flag table (toolflags): each case is a rule of gnuflag's parseOne/parseFlagArg. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "gnuflag.h"
#include "toolflags.h"

/* relation-get's flags: -r/--relation (string), --app (bool), --format, -o/--output */
static const struct gnuflag defs[] = {
        { "r", GNUFLAG_STRING, 0 },
        { "relation", GNUFLAG_STRING, 0 },
        { "app", GNUFLAG_BOOL, 1 },
        { "format", GNUFLAG_STRING, 2 },
        { "o", GNUFLAG_STRING, 3 },
        { "a", GNUFLAG_BOOL, 4 },
};

struct res {
        int r;
        struct gnuflag_value v[5];
        struct strv args;
        struct strbuf err;
};

static void run(struct res *res, bool intersperse, ...) {
        const char *av[32];
        size_t n = 0;
        va_list ap;
        va_start(ap, intersperse);
        for (const char *a; (a = va_arg(ap, const char *)) && n < 31;)
                av[n++] = a;
        va_end(ap);
        av[n] = NULL;
        *res = (struct res){ .args = STRV_INIT, .err = STRBUF_INIT };
        res->r = gnuflag_parse(defs, ELEMENTSOF(defs), res->v, 5, intersperse, (char *const *) av, NULL,
                NULL, &res->args, &res->err);
}

static void done(struct res *res) {
        strv_clear(&res->args);
        strbuf_release(&res->err);
}

static void test_long_forms(void **state) {
        struct res x;
        run(&x, true, "--relation=db:1", "--format", "json", "key", NULL);
        assert_int_equal(x.r, 0);
        assert_string_equal(x.v[0].value, "db:1");
        assert_string_equal(x.v[0].as, "relation");
        assert_string_equal(x.v[2].value, "json");
        assert_int_equal(x.args.n, 1);
        assert_string_equal(x.args.v[0], "key");
        done(&x);
        run(&x, true, "--r", "3", "--format=", NULL); /* a one-letter flag written long; an empty value */
        assert_int_equal(x.r, 0);
        assert_string_equal(x.v[0].value, "3");
        assert_string_equal(x.v[2].value, "");
        done(&x);
}

static void test_short_forms(void **state) {
        struct res x;
        run(&x, true, "-r", "1", NULL);
        assert_string_equal(x.v[0].value, "1");
        done(&x);
        run(&x, true, "-r0", NULL); /* -fx: the rest is the value */
        assert_string_equal(x.v[0].value, "0");
        done(&x);
        run(&x, true, "-r=0", NULL); /* a short flag keeps the "=" */
        assert_string_equal(x.v[0].value, "=0");
        done(&x);
        run(&x, true, "-ar", "5", NULL); /* a cluster: bool a, then r takes the next argument */
        assert_int_equal(x.r, 0);
        assert_true(x.v[4].b);
        assert_string_equal(x.v[0].value, "5");
        done(&x);
}

static void test_bools(void **state) {
        static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
        static const char *const no[] = { "0", "f", "F", "FALSE", "false", "False" };
        struct res x;
        char buf[32];
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                snprintf(buf, sizeof(buf), "--app=%s", yes[i]);
                run(&x, true, buf, NULL);
                assert_int_equal(x.r, 0);
                assert_true(x.v[1].set && x.v[1].b);
                done(&x);
                snprintf(buf, sizeof(buf), "--app=%s", no[i]);
                run(&x, true, buf, NULL);
                assert_int_equal(x.r, 0);
                assert_true(x.v[1].set && !x.v[1].b);
                done(&x);
        }
        run(&x, true, "--app", "false", NULL); /* "--bool V": V stays an argument */
        assert_true(x.v[1].b);
        assert_int_equal(x.args.n, 1);
        assert_string_equal(x.args.v[0], "false");
        done(&x);
        run(&x, true, "--app=yes", NULL);
        assert_int_equal(x.r, -EINVAL);
        assert_string_equal(x.err.buf,
                "invalid value \"yes\" for option --app: strconv.ParseBool: parsing \"yes\": invalid "
                "syntax");
        done(&x);
        run(&x, true, "-a=true", NULL); /* the short form keeps "=": ParseBool("=true") */
        assert_int_equal(x.r, -EINVAL);
        assert_string_equal(x.err.buf,
                "invalid value \"=true\" for option -a: strconv.ParseBool: parsing \"=true\": invalid "
                "syntax");
        done(&x);
}

static void test_dashdash_and_args(void **state) {
        struct res x;
        run(&x, true, "--app=False", "active", "--", "-msg", "--app", NULL);
        assert_int_equal(x.r, 0);
        assert_false(x.v[1].b);
        assert_int_equal(x.args.n, 3);
        assert_string_equal(x.args.v[0], "active");
        assert_string_equal(x.args.v[1], "-msg");
        assert_string_equal(x.args.v[2], "--app");
        done(&x);
        run(&x, true, "-", "", "x", "--app", NULL); /* "-" and "" are arguments; flags after them */
        assert_int_equal(x.args.n, 3);
        assert_string_equal(x.args.v[0], "-");
        assert_string_equal(x.args.v[1], "");
        assert_true(x.v[1].b);
        done(&x);
        run(&x, false, "x", "--app", NULL); /* without intersperse the first argument ends flags */
        assert_int_equal(x.args.n, 2);
        assert_false(x.v[1].set);
        done(&x);
}

static void test_errors(void **state) {
        struct res x;
        run(&x, true, "--nope", NULL);
        assert_int_equal(x.r, -EINVAL);
        assert_string_equal(x.err.buf, "option provided but not defined: --nope");
        done(&x);
        run(&x, true, "-z", NULL);
        assert_string_equal(x.err.buf, "option provided but not defined: -z");
        done(&x);
        run(&x, true, "-format", "json", NULL); /* one dash: a cluster of f, o, … */
        assert_string_equal(x.err.buf, "option provided but not defined: -f");
        done(&x);
        run(&x, true, "--relation", NULL);
        assert_string_equal(x.err.buf, "option needs an argument: --relation");
        done(&x);
        run(&x, true, "-r", NULL);
        assert_string_equal(x.err.buf, "option needs an argument: -r");
        done(&x);
        run(&x, true, "--=x", NULL);
        assert_string_equal(x.err.buf, "empty option in argument \"--=x\"");
        done(&x);
        run(&x, true, "--help", NULL);
        assert_int_equal(x.r, GNUFLAG_HELP);
        done(&x);
        run(&x, true, "-h", NULL);
        assert_int_equal(x.r, GNUFLAG_HELP);
        done(&x);
}

static int refuse(void *ud, const struct gnuflag *f, const char *value, struct strbuf *why) {
        if (streq(f->name, "format") && !streq(value, "json")) {
                strbuf_addstr(why, "unknown format ");
                gnuflag_quote(why, value);
                return -EINVAL;
        }
        return 0;
}

static void test_set_and_quote(void **state) {
        struct gnuflag_value v[5] = { { 0 } };
        _cleanup_strv_ struct strv args = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char *av[] = { "--format", "x\"y\n", NULL };
        assert_int_equal(
                gnuflag_parse(defs, ELEMENTSOF(defs), v, 5, true, av, refuse, NULL, &args, &err), -EINVAL);
        assert_string_equal(
                err.buf, "invalid value \"x\\\"y\\n\" for option --format: unknown format \"x\\\"y\\n\"");
}

static void test_toolflags(void **state) {
        const struct toolflags *t = toolflags_find("status-set");
        assert_non_null(t);
        struct gnuflag_value v[TF_NSLOTS] = { { 0 } };
        _cleanup_strv_ struct strv args = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char *av[] = { "status-set", "--application=False", "active", "--", "msg", NULL };
        assert_int_equal(toolflags_parse(t, av, v, NULL, NULL, &args, &err), 0);
        assert_int_equal(args.n, 2);
        /* status-set has no --format (no cmd.Output) */
        char *av2[] = { "status-set", "--format=json", "active", NULL };
        struct gnuflag_value v2[TF_NSLOTS] = { { 0 } };
        assert_int_equal(toolflags_parse(t, av2, v2, NULL, NULL, &args, &err), -EINVAL);
        assert_string_equal(err.buf, "option provided but not defined: --format");
        assert_null(toolflags_find("no-such-tool"));
        assert_int_equal(toolflags_slot(toolflags_find("config-get"), "a"),
                toolflags_slot(toolflags_find("config-get"), "all"));
        for (size_t i = 0; toolflags_names[i]; i++)
                assert_non_null(toolflags_find(toolflags_names[i]));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_long_forms),
                cmocka_unit_test(test_short_forms),
                cmocka_unit_test(test_bools),
                cmocka_unit_test(test_dashdash_and_args),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_set_and_quote),
                cmocka_unit_test(test_toolflags),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
