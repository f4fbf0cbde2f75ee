/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/options: the corpus of bad and good option strings in
 * tests/data/options/, normalization round trips, and the list helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurmconf/options.h"
#include "slurmconf/values.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Decodes \t \n \r \\ \xNN. */
static void decode(const char *s, struct strbuf *out) {
        for (; *s; s++) {
                if (*s != '\\' || !s[1]) {
                        strbuf_addch(out, *s);
                        continue;
                }
                s++;
                switch (*s) {
                case 't':
                        strbuf_addch(out, '\t');
                        break;
                case 'n':
                        strbuf_addch(out, '\n');
                        break;
                case 'r':
                        strbuf_addch(out, '\r');
                        break;
                case 'x': {
                        char hex[3] = { s[1], s[1] ? s[2] : 0, 0 };
                        strbuf_addch(out, (char) strtol(hex, NULL, 16));
                        s += 2;
                        break;
                }
                default:
                        strbuf_addch(out, *s);
                }
        }
}

/* Calls fn(kind, string, expected) for each line of tests/data/options/NAME; returns the count. */
static int for_each_case(
        const char *name, void (*fn)(enum slurm_options_kind, const char *, size_t, const char *)) {
        const char *dir = getenv("TEST_DATA");
        assert_non_null(dir);
        _cleanup_free_ char *path = xasprintf("%s/options/%s", dir, name);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        assert_non_null(f);
        char line[8192];
        int n = 0;
        while (fgets(line, sizeof(line), f) && n < 10000) {
                line[strcspn(line, "\n")] = '\0';
                if (line[0] == '#' || line[0] == '\0')
                        continue;
                char *t1 = strchr(line, '\t');
                assert_non_null(t1);
                char *t2 = strchr(t1 + 1, '\t');
                assert_non_null(t2);
                *t1 = *t2 = '\0';
                enum slurm_options_kind kind;
                assert_int_equal(slurm_options_kind_from_string(line, &kind), 0);
                _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
                decode(t1 + 1, &s);
                fn(kind, s.buf, s.len, t2 + 1);
                n++;
        }
        return n;
}

static void check_bad(enum slurm_options_kind kind, const char *s, size_t len, const char *expected) {
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        slurm_options_set(&o, "Keep", "me");
        int r = slurm_options_parse_mem(s, len, kind, &o, &err);
        if (r != -EINVAL || !strstr(err.buf, expected))
                print_error("string \"%s\": got %d \"%s\", expected \"%s\"\n", s, r, err.buf, expected);
        assert_int_equal(r, -EINVAL);
        assert_non_null(strstr(err.buf, expected));
        /* one short line for juju status */
        assert_null(strchr(err.buf, '\n'));
        assert_true(err.len <= 120);
        /* a rejected string changes nothing */
        assert_int_equal(o.n, 1);
        assert_string_equal(o.items[0].key, "Keep");
        assert_string_equal(o.items[0].value, "me");
}

static void test_bad_corpus(void **state) {
        assert_true(for_each_case("bad.txt", check_bad) >= 50);
}

static void check_good(enum slurm_options_kind kind, const char *s, size_t len, const char *expected) {
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT, again = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, out2 = STRBUF_INIT;
        slurm_options_set(&o, "Old", "value");
        int r = slurm_options_parse_mem(s, len, kind, &o, &err);
        if (r < 0)
                print_error("string \"%s\": %s\n", s, err.buf);
        assert_int_equal(r, 0);
        slurm_options_render(&o, &out);
        assert_string_equal(out.buf, expected);
        /* the normalized form parses to the same list */
        assert_int_equal(slurm_options_parse(out.buf, kind, &again, &err), 0);
        slurm_options_render(&again, &out2);
        assert_string_equal(out2.buf, out.buf);
        assert_int_equal(again.n, o.n);
}

static void test_good_corpus(void **state) {
        assert_true(for_each_case("good.txt", check_good) >= 10);
}

static void test_nul_and_length(void **state) {
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, big = STRBUF_INIT;
        static const char with_nul[] = "CPUs=2\0 RealMemory=1";
        assert_int_equal(
                slurm_options_parse_mem(with_nul, sizeof(with_nul) - 1, SLURM_OPTIONS_NODE, &o, &err),
                -EINVAL);
        assert_non_null(strstr(err.buf, "control character in \"CPUs\""));

        strbuf_reset(&err);
        for (int i = 0; i < 500; i++)
                strbuf_addstr(&big, "Weight=1 ");
        assert_int_equal(slurm_options_parse(big.buf, SLURM_OPTIONS_NODE, &o, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "too long"));
        assert_int_equal(o.n, 0);

        /* NULL and empty are the empty list */
        assert_int_equal(slurm_options_parse(NULL, SLURM_OPTIONS_NODE, &o, NULL), 0);
        assert_int_equal(slurm_options_parse("", SLURM_OPTIONS_GLOBAL, &o, NULL), 0);
        assert_int_equal(o.n, 0);
        assert_int_equal(slurm_options_parse("x", _SLURM_OPTIONS_KIND_MAX, &o, NULL), -EINVAL);
}

static void test_list_helpers(void **state) {
        _cleanup_slurm_options_ struct slurm_options hw = SLURM_OPTIONS_INIT, admin = SLURM_OPTIONS_INIT,
                                                     copy = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;

        assert_int_equal(
                slurm_options_parse("CPUs=8 RealMemory=31000 Features=x86", SLURM_OPTIONS_NODE, &hw, NULL),
                0);
        assert_int_equal(
                slurm_options_parse("realmemory=30000 Gres=gpu:1", SLURM_OPTIONS_NODE, &admin, NULL), 0);
        assert_string_equal(slurm_options_get(&hw, "cpus"), "8");
        assert_null(slurm_options_get(&hw, "Gres"));

        slurm_options_merge(&hw, &admin);
        slurm_options_render(&hw, &out);
        assert_string_equal(out.buf, "CPUs=8 RealMemory=30000 Features=x86 Gres=gpu:1");

        slurm_options_copy(&copy, &hw);
        assert_true(slurm_options_unset(&copy, "features"));
        assert_false(slurm_options_unset(&copy, "features"));
        slurm_options_set(&copy, "Weight", "5");
        strbuf_reset(&out);
        slurm_options_render(&copy, &out);
        assert_string_equal(out.buf, "CPUs=8 RealMemory=30000 Gres=gpu:1 Weight=5");
        assert_int_equal(hw.n, 4);

        /* values with blanks are quoted by render, and an empty one too */
        slurm_options_set(&copy, "Reason", "two words");
        slurm_options_set(&copy, "Empty", "");
        strbuf_reset(&out);
        slurm_options_render(&copy, &out);
        assert_string_equal(
                out.buf, "CPUs=8 RealMemory=30000 Gres=gpu:1 Weight=5 Reason=\"two words\" Empty=\"\"");
        slurm_options_clear(&copy);
        assert_int_equal(copy.n, 0);
        slurm_options_clear(&copy); /* twice is fine */
}

static void test_kind_names(void **state) {
        enum slurm_options_kind k;
        assert_int_equal(slurm_options_kind_from_string("Partition", &k), 0);
        assert_int_equal(k, SLURM_OPTIONS_PARTITION);
        assert_int_equal(slurm_options_kind_from_string("node", &k), 0);
        assert_int_equal(k, SLURM_OPTIONS_NODE);
        assert_int_equal(slurm_options_kind_from_string("nodes", &k), -EINVAL);
        assert_string_equal(slurm_options_kind_name(SLURM_OPTIONS_GLOBAL), "global");
        assert_int_equal(slurm_options_kind_scope(SLURM_OPTIONS_NODE), SLURMCONF_NODE);
}

/* A value the grammar of vi accepts ("1" when there is none). */
static const char *valid_value(const struct slurmconf_value_info *vi) {
        static char buf[128];
        if (!vi)
                return "1";
        if (vi->examples)
                return vi->examples[0];
        switch (vi->type) {
        case SLURMCONF_VALUE_UINT:
                snprintf(buf, sizeof(buf), "%" PRIu64, vi->min);
                return buf;
        case SLURMCONF_VALUE_BOOL:
                return "YES";
        case SLURMCONF_VALUE_TIME:
                return "60";
        case SLURMCONF_VALUE_DEBUG_LEVEL:
                return "info";
        case SLURMCONF_VALUE_PLUGIN:
                if (vi->flags & SLURMCONF_VALUE_F_BARE)
                        return vi->words[0];
                snprintf(buf, sizeof(buf), "%s/%s", vi->plugin_type, vi->words[0]);
                return buf;
        case SLURMCONF_VALUE_ENUM:
        case SLURMCONF_VALUE_FLAGS:
        case SLURMCONF_VALUE_PLUGIN_LIST:
                return vi->words[0];
        default:
                return "1";
        }
}

/* Every 22.05 key of a scope is accepted for its kind, with a value its grammar accepts,
 * unless the charm owns it or Slurm removed it. */
struct table_state {
        int accepted, refused;
};

static int try_key(const struct slurmconf_key *k, void *userdata) {
        struct table_state *st = userdata;
        static const enum slurm_options_kind kinds[] = { SLURM_OPTIONS_PARTITION, SLURM_OPTIONS_NODE,
                SLURM_OPTIONS_GLOBAL };
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                if (!(k->scopes & SLURMCONF_SCOPE_BIT(slurm_options_kind_scope(kinds[i]))))
                        continue;
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                enum slurmconf_scope scope = slurm_options_kind_scope(kinds[i]);
                const struct slurmconf_value_info *vi =
                        slurmconf_value_info(scope, slurmconf_key_canonical(k));
                _cleanup_free_ char *s = xasprintf("%s=%s", k->name, valid_value(vi));
                int r = slurm_options_parse(s, kinds[i], &o, &err);
                if (r == 0) {
                        assert_true(slurmconf_key_supported(k));
                        assert_string_equal(o.items[0].key, slurmconf_key_canonical(k));
                        st->accepted++;
                } else {
                        /* owned, newer, removed, or valid only with another key ("… needs …") */
                        bool expected = strstr(err.buf, "managed by the charm") ||
                                strstr(err.buf, "not supported") || strstr(err.buf, "default-partition") ||
                                strstr(err.buf, "is set by the slurmctld option") ||
                                strstr(err.buf, "would be a password in slurm.conf") ||
                                strstr(err.buf, " needs ") || (vi && vi->type == SLURMCONF_VALUE_REMOVED);
                        if (!expected)
                                print_error("%s: %s\n", s, err.buf);
                        assert_true(expected);
                        st->refused++;
                }
        }
        return 0;
}

static void test_whole_table(void **state) {
        struct table_state st = { 0 };
        slurmconf_key_foreach(try_key, &st);
        assert_true(st.accepted > 200);
        assert_true(st.refused > 20);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bad_corpus),
                cmocka_unit_test(test_good_corpus),
                cmocka_unit_test(test_nul_and_length),
                cmocka_unit_test(test_list_helpers),
                cmocka_unit_test(test_kind_names),
                cmocka_unit_test(test_whole_table),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
