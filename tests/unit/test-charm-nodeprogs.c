/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/nodeprogs: which items of slurm-conf-parameters are slurmd's
 * programs and files, the gate (held back until every compute unit judged them: waiting,
 * refused, judged another set, removals and unchanged items never held), and a compute unit's
 * judgement on its machine (the roots too, unlike the guard of the fetched file). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "charm/common/nodeprogs.h"
#include "interfaces/slurmd.h"
#include "tmpdir.h"

#include "util/banned.h"

/* node-programs-verdict for the set in params (why NULL: safe); caller frees. */
static char *verdict(const char *params, const char *why) {
        _cleanup_(slurm_options_clearp) struct slurm_options s = SLURM_OPTIONS_INIT;
        char *json = NULL;
        assert_int_equal(node_progs_of_params(params, &s, NULL), 0);
        assert_int_equal(node_verdict_encode(&s, why, &json), 0);
        return json;
}

static void test_of_params(void **state) {
        _cleanup_(slurm_options_clearp) struct slurm_options s = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(node_progs_of_params("MaxJobCount=20000 prolog=/etc/slurm/scripts/p "
                                              "PrologSlurmctld=/etc/slurm/scripts/c SlurmdUser=root "
                                              "TmpFS=/var/tmp",
                                 &s, &e),
                0);
        assert_int_equal(s.n, 3);
        assert_string_equal(slurm_options_get(&s, "Prolog"), "/etc/slurm/scripts/p");
        assert_string_equal(s.items[0].key, "Prolog"); /* canonical spelling */
        assert_string_equal(slurm_options_get(&s, "SlurmdUser"), "root");
        assert_string_equal(slurm_options_get(&s, "TmpFS"), "/var/tmp");
        assert_null(slurm_options_get(&s, "PrologSlurmctld")); /* slurmctld's, judged there */
        assert_int_equal(node_progs_of_params(NULL, &s, &e), 0);
        assert_int_equal(s.n, 0);
        assert_int_equal(node_progs_of_params("NoSuchKey=1", &s, &e), -EINVAL);
}

static void test_same(void **state) {
        _cleanup_(slurm_options_clearp) struct slurm_options a = SLURM_OPTIONS_INIT, b = SLURM_OPTIONS_INIT;
        assert_int_equal(node_progs_of_params("Prolog=/etc/slurm/scripts/p Epilog=/etc/slurm/scripts/e", &a, NULL), 0);
        assert_int_equal(node_progs_of_params("Epilog=/etc/slurm/scripts/e Prolog=/etc/slurm/scripts/p", &b, NULL), 0);
        assert_true(node_progs_same(&a, &b));
        assert_int_equal(node_progs_of_params("Epilog=/etc/slurm/scripts/e", &b, NULL), 0);
        assert_false(node_progs_same(&a, &b));
        assert_false(node_progs_same(&b, &a));
}

#define P_NEW "MaxJobCount=20000 Prolog=/etc/slurm/scripts/p"

static void test_gate_nothing_new(void **state) {
        struct node_progs_gate g = NODE_PROGS_GATE_INIT;
        const struct node_progs_vote none[] = { { "cpu/0", NULL } };
        /* the same program as live: no verdict needed, even from a unit that never answered */
        assert_int_equal(node_progs_gate(P_NEW " MaxArraySize=100", P_NEW, none, 1, &g), 0);
        assert_string_equal(g.params, P_NEW " MaxArraySize=100");
        assert_false(g.held);
        /* a removal needs none either */
        assert_int_equal(node_progs_gate("MaxJobCount=20000", P_NEW, none, 1, &g), 0);
        assert_string_equal(g.params, "MaxJobCount=20000");
        assert_false(g.held);
        /* no compute unit at all: nothing to wait for */
        assert_int_equal(node_progs_gate(P_NEW, NULL, NULL, 0, &g), 0);
        assert_string_equal(g.params, P_NEW);
        assert_false(g.held);
        /* parameters the parser refuses pass as they are (refused there, rendered never) */
        assert_int_equal(node_progs_gate("Bogus=1 Prolog=/x", NULL, none, 1, &g), 0);
        assert_string_equal(g.params, "Bogus=1 Prolog=/x");
        assert_false(g.held);
        node_progs_gate_done(&g);
}

static void test_gate_held(void **state) {
        struct node_progs_gate g = NODE_PROGS_GATE_INIT;
        _cleanup_free_ char *ok = verdict(P_NEW, NULL), *other = verdict("Prolog=/etc/slurm/scripts/q", NULL),
                            *bad = verdict(P_NEW, "Prolog: \"/etc/slurm/scripts/p\" does not exist on this machine");
        /* one unit safe, one not answered: held, the rest applies */
        const struct node_progs_vote v1[] = { { "cpu/0", ok }, { "cpu/1", NULL } };
        assert_int_equal(node_progs_gate(P_NEW, "MaxJobCount=10", v1, 2, &g), 0);
        assert_true(g.held);
        assert_string_equal(g.params, "MaxJobCount=20000");
        assert_int_equal(g.waiting.n, 1);
        assert_string_equal(g.waiting.v[0], "cpu/1");
        assert_int_equal(g.refused.n, 0);
        /* a verdict on another set counts as none; a refusal is named with its reason */
        const struct node_progs_vote v2[] = { { "cpu/0", other }, { "big/0", bad }, { "cpu/1", "{bad json" } };
        assert_int_equal(node_progs_gate(P_NEW, NULL, v2, 3, &g), 0);
        assert_true(g.held);
        assert_int_equal(g.waiting.n, 2);
        assert_int_equal(g.refused.n, 1);
        assert_string_equal(g.refused.v[0], "big/0: Prolog: \"/etc/slurm/scripts/p\" does not exist on this machine");
        /* a changed program is set back to the live one, in any spelling of the key */
        const struct node_progs_vote v3[] = { { "cpu/0", NULL } };
        assert_int_equal(node_progs_gate("prolog=/etc/slurm/scripts/p", "Prolog=/etc/slurm/scripts/old", v3, 1, &g), 0);
        assert_true(g.held);
        assert_string_equal(g.params, "Prolog=/etc/slurm/scripts/old");
        assert_string_equal(g.pending, "Prolog=/etc/slurm/scripts/p");
        /* a removal goes through while a new item is held */
        assert_int_equal(node_progs_gate("Epilog=/etc/slurm/scripts/e", "Prolog=/etc/slurm/scripts/old", v3, 1, &g), 0);
        assert_true(g.held);
        assert_string_equal(g.params, "");
        /* every unit safe for exactly this set: the admin's string as it is */
        const struct node_progs_vote v4[] = { { "cpu/0", ok }, { "cpu/1", ok } };
        assert_int_equal(node_progs_gate(P_NEW, "MaxJobCount=10", v4, 2, &g), 0);
        assert_false(g.held);
        assert_null(g.pending);
        assert_string_equal(g.params, P_NEW);
        assert_int_equal(g.waiting.n + g.refused.n, 0);
        _cleanup_free_ char *text = node_progs_text(&g.want);
        assert_string_equal(text, "Prolog=/etc/slurm/scripts/p");
        node_progs_gate_done(&g);
}

/* Only a new or changed item needs the compute units' verdicts (the bags are read then only). */
static void test_pending(void **state) {
        assert_false(node_progs_pending(NULL, NULL));
        assert_false(node_progs_pending("MaxJobCount=5", NULL));
        assert_true(node_progs_pending(P_NEW, NULL));
        assert_false(node_progs_pending(P_NEW, "Prolog=/etc/slurm/scripts/p"));
        assert_true(node_progs_pending(P_NEW, "Prolog=/etc/slurm/scripts/q"));
        assert_false(node_progs_pending("MaxJobCount=5", "Prolog=/etc/slurm/scripts/q")); /* a removal */
        assert_false(node_progs_pending("Bogus=1", NULL));
        /* the released set as plain SET JSON (the controllers' peer app bag) */
        _cleanup_(slurm_options_clearp) struct slurm_options set = SLURM_OPTIONS_INIT, back = SLURM_OPTIONS_INIT;
        _cleanup_free_ char *json = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(node_progs_of_params(P_NEW, &set, NULL), 0);
        assert_int_equal(node_progs_set_encode(&set, &json), 0);
        assert_string_equal(json, "{\"Prolog\":\"/etc/slurm/scripts/p\"}");
        assert_int_equal(node_progs_set_decode(json, &back, &e), 0);
        assert_true(node_progs_same(&set, &back));
        assert_int_equal(node_progs_set_decode("{\"MaxJobCount\":\"5\"}", &back, &e), -EINVAL);
}

static char *root;

static void mk(const char *rel, bool dir, mode_t mode) {
        assert_int_equal(test_mk(root, rel, dir, mode), 0);
}

static int setup(void **state) {
        root = test_tmpdir_make("test-charm-nodeprogs");
        assert_non_null(root);
        assert_int_equal(chmod(root, 0755), 0);
        static const char *const dirs[] = { "/etc", "/etc/slurm", "/etc/slurm/scripts", "/opt", NULL };
        for (size_t i = 0; dirs[i]; i++)
                mk(dirs[i], true, 0755);
        mk("/etc/slurm/scripts/p", false, 0755);
        mk("/etc/slurm/scripts/open", false, 0777);
        mk("/opt/p", false, 0755);
        return 0;
}

static int teardown(void **state) {
        test_tmpdir_remove(root);
        return 0;
}

static int judge(const char *params, struct strbuf *why) {
        const struct charm_paths p = { .root = root };
        _cleanup_(slurm_options_clearp) struct slurm_options s = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        strbuf_reset(why);
        int r = node_progs_of_params(params, &s, &e);
        if (r < 0)
                print_message("%s: %s\n", params, e.buf);
        assert_int_equal(r, 0);
        return node_progs_judge(&p, &s, why);
}

static void test_judge(void **state) {
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        /* refusals that need no root: the roots, missing, others may write */
        assert_int_equal(judge("Prolog=/etc/slurm/scripts/missing", &why), 1);
        assert_non_null(strstr(why.buf, "Prolog: "));
        assert_int_equal(judge("Epilog=/etc/slurm/scripts/open", &why), 1);
        assert_non_null(strstr(why.buf, "Epilog: "));
        assert_int_equal(judge("Epilog=/etc/slurm/scripts/p TaskProlog=/etc/slurm/scripts/open", &why), 1);
        assert_non_null(strstr(why.buf, "TaskProlog: "));
        /* the roots hold here (the fetched file's guard judges only what the machine shows) */
        {
                const struct charm_paths p = { .root = root };
                _cleanup_(slurm_options_clearp) struct slurm_options s = SLURM_OPTIONS_INIT;
                slurm_options_set(&s, "Prolog", "/opt/p"); /* a relation's value, not the parser's */
                strbuf_reset(&why);
                assert_int_equal(node_progs_judge(&p, &s, &why), 1);
                assert_non_null(strstr(why.buf, "is outside /etc/slurm/scripts"));
        }
        if (geteuid() != 0)
                skip(); /* the safe files must be root's */
        assert_int_equal(judge("", &why), 0);
        assert_int_equal(judge("Prolog=/etc/slurm/scripts/p Epilog=/etc/slurm/scripts/p", &why), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_of_params),
                cmocka_unit_test(test_same),
                cmocka_unit_test(test_gate_nothing_new),
                cmocka_unit_test(test_gate_held),
                cmocka_unit_test(test_pending),
                cmocka_unit_test_setup_teardown(test_judge, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
