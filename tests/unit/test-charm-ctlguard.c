/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/ctlguard: each input's new value where the judge accepts it, its last
 * good value where not, the culprit search, and how many candidates are judged (a fake judge
 * that refuses marked values stands in for Slurm's reader). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ctlguard.h"
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

static const struct ctl_controller ctl1[] = { { "juju-m-0", "10.1.2.3" } };

/* The fake judge: refuses a candidate holding any of the words (the "values Slurm refuses"),
 * counts its calls, and can be made to fail outright. */
struct judge {
        const char *refuse[4];
        int calls;
        int error; /* when set: returned instead of judging */
};

static int fake_judge(const char *data, size_t len, struct strbuf *err, void *userdata) {
        struct judge *j = userdata;
        j->calls++;
        if (j->error)
                return j->error;
        for (size_t i = 0; i < ELEMENTSOF(j->refuse) && j->refuse[i]; i++)
                if (memmem(data, len, j->refuse[i], strlen(j->refuse[i]))) {
                        strbuf_addf(err, "Bad value for %s", j->refuse[i]);
                        return -EINVAL;
                }
        return 0;
}

static void decode(const char *app, const char *params, struct compute_data *ret) {
        _cleanup_strbuf_ struct strbuf part = STRBUF_INIT, ns = STRBUF_INIT, err = STRBUF_INIT;
        strbuf_addf(&part, "{\"PartitionName\":\"%s\",\"Nodes\":\"%s\"%s%s}", app, app, params ? "," : "",
                params ? params : "");
        strbuf_addf(&ns, "{\"NodeSet\":\"%s\",\"Feature\":\"%s\"}", app, app);
        if (compute_data_decode(app, part.buf, ns.buf, ret, &err) < 0)
                fail_msg("decode %s: %s", app, err.buf);
}

static struct ctl_guard_input input(struct judge *j, const struct ctl_guard_app *apps, size_t n) {
        return (struct ctl_guard_input){
                .conf = {
                        .template_path = "templates/slurm.conf",
                        .template_data = tmpl,
                        .template_len = tmpl_len,
                        .cluster_name = "cluster-0badcafe",
                        .controllers = ctl1,
                        .n_controllers = 1,
                },
                .apps = apps,
                .n_apps = n,
                .judge = fake_judge,
                .judge_userdata = j,
        };
}

static bool has_line(const struct strbuf *conf, const char *line) {
        _cleanup_free_ char *want = xasprintf("\n%s\n", line);
        return strstr(conf->buf, want) != NULL;
}

static void test_all_good(void **state) {
        struct judge j = { 0 };
        struct compute_data a = COMPUTE_DATA_INIT, b = COMPUTE_DATA_INIT;
        decode("cpu", "\"MaxTime\":\"60\"", &a);
        decode("big", NULL, &b);
        const struct ctl_guard_app apps[] = { { "cpu", &a }, { "big", &b } };
        struct ctl_guard_input in = input(&j, apps, 2);
        in.params = "SlurmctldDebug=info";
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result again = CTL_GUARD_RESULT_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        assert_int_equal(ctl_guard_render(&in, &r, &err), 0);
        assert_int_equal(j.calls, 1); /* one judgement of the whole candidate */
        assert_int_equal(r.refused.n, 0);
        assert_string_equal(r.params_applied, "SlurmctldDebug=info");
        assert_true(has_line(&r.conf, "PartitionName=cpu Nodes=cpu MaxTime=60 Default=YES"));
        assert_true(has_line(&r.conf, "PartitionName=big Nodes=big"));
        assert_true(has_line(&r.conf, "SlurmctldDebug=info"));
        assert_int_equal(r.rendered.n, 2);

        /* the live file already is this candidate: nothing to judge */
        in.old_data = r.conf.buf;
        in.old_len = r.conf.len;
        j.calls = 0;
        assert_int_equal(ctl_guard_render(&in, &again, &err), 0);
        assert_int_equal(j.calls, 0);
        assert_string_equal(again.conf.buf, r.conf.buf);
        compute_data_clear(&a);
        compute_data_clear(&b);
}

static void test_one_bad_application(void **state) {
        struct judge j = { 0 };
        struct compute_data a = COMPUTE_DATA_INIT, b = COMPUTE_DATA_INIT, a2 = COMPUTE_DATA_INIT,
                            b2 = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        decode("cpu", "\"MaxTime\":\"60\"", &a);
        decode("big", "\"MaxTime\":\"10\"", &b);
        const struct ctl_guard_app apps[] = { { "cpu", &a }, { "big", &b } };
        struct ctl_guard_input in = input(&j, apps, 2);
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result live = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &live, &err), 0);

        /* cpu sends a value the judge refuses, big a good change, in the same round */
        decode("cpu", "\"MaxTime\":\"666\"", &a2);
        decode("big", "\"MaxTime\":\"20\"", &b2);
        const struct ctl_guard_app apps2[] = { { "cpu", &a2 }, { "big", &b2 } };
        in = input(&j, apps2, 2);
        in.old_data = live.conf.buf;
        in.old_len = live.conf.len;
        j = (struct judge){ .refuse = { "MaxTime=666" } };
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r, &err), 0);
        assert_true(has_line(&r.conf, "PartitionName=cpu Nodes=cpu MaxTime=60 Default=YES"));
        assert_true(has_line(&r.conf, "PartitionName=big Nodes=big MaxTime=20"));
        assert_int_equal(r.refused.n, 1);
        assert_string_equal(r.refused.v[0], "relation with \"cpu\": Bad value for MaxTime=666");
        assert_false(r.params_refused);
        /* all new, all last good, then cpu and big one at a time: 4 */
        assert_int_equal(j.calls, 4);
        compute_data_clear(&a);
        compute_data_clear(&b);
        compute_data_clear(&a2);
        compute_data_clear(&b2);
}

static void test_params(void **state) {
        struct judge j = { 0 };
        struct compute_data a = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        decode("cpu", NULL, &a);
        const struct ctl_guard_app apps[] = { { "cpu", &a } };
        struct ctl_guard_input in = input(&j, apps, 1);

        /* the option parser refuses: refused at once, the last applied ones stay */
        in.params = "NoSuchKey=1";
        in.params_applied = "SlurmctldDebug=verbose";
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r, &err), 0);
        assert_true(r.params_refused);
        assert_int_equal(r.refused.n, 1);
        assert_non_null(
                startswith(r.refused.v[0], "slurm-conf-parameters: unknown global key \"NoSuchKey\""));
        assert_string_equal(r.params_applied, "SlurmctldDebug=verbose");
        assert_true(has_line(&r.conf, "SlurmctldDebug=verbose"));

        /* a key every slurmd reads only at its start: refused while the charms do not restart
         * slurmd for it; the template's own value is fine */
        in.params = "TaskPlugin=task/none";
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r1 = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r1, &err), 0);
        assert_true(r1.params_refused);
        assert_non_null(
                startswith(r1.refused.v[0], "slurm-conf-parameters: TaskPlugin: every slurmd reads it"));
        in.params = "TaskPlugin=task/cgroup,task/affinity";
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r3 = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r3, &err), 0);
        assert_false(r3.params_refused);

        /* the judge refuses: the same */
        in.params = "SlurmctldDebug=debug3";
        j = (struct judge){ .refuse = { "SlurmctldDebug=debug3" } };
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r2 = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r2, &err), 0);
        assert_true(r2.params_refused);
        assert_string_equal(r2.refused.v[0], "slurm-conf-parameters: Bad value for SlurmctldDebug=debug3");
        assert_string_equal(r2.params_applied, "SlurmctldDebug=verbose");
        assert_null(strstr(r2.conf.buf, "debug3"));
        compute_data_clear(&a);
}

/* An upgrade: the applied string holds an item today's rules refuse (a log file outside
 * /var/log/slurm, accepted by an older charm). The rest of it stays, the item goes, the status
 * says so: never "Slurm refuses even the last good settings". */
static void test_params_salvaged(void **state) {
        struct judge j = { 0 };
        struct compute_data a = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        decode("cpu", NULL, &a);
        const struct ctl_guard_app apps[] = { { "cpu", &a } };
        struct ctl_guard_input in = input(&j, apps, 1);
        in.params = "SlurmctldLogFile=/var/log/slurmctld.log SlurmctldDebug=verbose MinJobAge=\"300\"";
        in.params_applied = in.params;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r, &err), 0);
        assert_true(r.params_refused);
        assert_int_equal(r.refused.n, 2);
        assert_non_null(strstr(r.refused.v[0], "is refused now; kept: \"SlurmctldDebug=verbose MinJobAge=\"300\"\""));
        assert_non_null(strstr(r.refused.v[1], "SlurmctldLogFile: \"/var/log/slurmctld.log\" is outside"));
        assert_true(has_line(&r.conf, "SlurmctldDebug=verbose"));
        assert_null(strstr(r.conf.buf, "/var/log/slurmctld.log"));
        assert_string_equal(r.params_applied, "SlurmctldDebug=verbose MinJobAge=\"300\"");
        compute_data_clear(&a);
}

static void test_last_good_lines(void **state) {
        struct judge j = { 0 };
        struct compute_data a = COMPUTE_DATA_INIT, b = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        decode("cpu", "\"MaxTime\":\"60\"", &a);
        decode("big", "\"State\":\"INACTIVE\"", &b);
        const struct ctl_guard_app apps[] = { { "cpu", &a }, { "big", &b } };
        struct ctl_guard_input in = input(&j, apps, 2);
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result live = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &live, &err), 0);

        /* nothing usable from either (big re-related and not published yet, cpu refused by the
         * decoder), and a new application with nothing yet: the old lines stay, as they were,
         * the new one is left out */
        const struct ctl_guard_app none[] = { { "cpu", NULL }, { "big", NULL }, { "gpu", NULL } };
        in = input(&j, none, 3);
        in.old_data = live.conf.buf;
        in.old_len = live.conf.len;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r, &err), 0);
        assert_string_equal(r.conf.buf, live.conf.buf);
        assert_int_equal(r.rendered.n, 2);
        assert_false(strv_contains(&r.rendered, "gpu"));
        compute_data_clear(&a);
        compute_data_clear(&b);
}

static void test_nothing_acceptable(void **state) {
        struct judge j = { .refuse = { "ClusterName=" } }; /* even the template is refused */
        struct compute_data a = COMPUTE_DATA_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        decode("cpu", NULL, &a);
        const struct ctl_guard_app apps[] = { { "cpu", &a } };
        struct ctl_guard_input in = input(&j, apps, 1);
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        assert_int_equal(ctl_guard_render(&in, &r, &err), -EINVAL);
        assert_non_null(startswith(err.buf, "slurm.conf: Slurm refuses even the last good settings: "));
        assert_int_equal(r.conf.len, 0); /* untouched */

        /* a judge that cannot run is the hook's error, not a refusal */
        j = (struct judge){ .error = -ECHILD };
        strbuf_reset(&err);
        assert_int_equal(ctl_guard_render(&in, &r, &err), -ECHILD);
        compute_data_clear(&a);
}

/* the live file refused elsewhere (another controller unit's slurmctld: judge_live): judged
 * although the candidate is that file, and the last good settings come back */
static void test_judge_live(void **state) {
        struct judge j = { 0 };
        struct compute_data a = COMPUTE_DATA_INIT;
        decode("cpu", NULL, &a);
        const struct ctl_guard_app apps[] = { { "cpu", &a } };
        struct ctl_guard_input in = input(&j, apps, 1);
        in.params = "JobCompType=jobcomp/lua";
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result live = CTL_GUARD_RESULT_INIT;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result r = CTL_GUARD_RESULT_INIT;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result same = CTL_GUARD_RESULT_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(ctl_guard_render(&in, &live, &err), 0);
        assert_true(has_line(&live.conf, "JobCompType=jobcomp/lua"));

        /* now refused (the other unit's record), and the live file is that candidate */
        j = (struct judge){ .refuse = { "jobcomp/lua" } };
        in.old_data = live.conf.buf;
        in.old_len = live.conf.len;
        in.params_applied = "SlurmctldDebug=info"; /* the settings before it */
        assert_int_equal(ctl_guard_render(&in, &same, &err), 0);
        assert_int_equal(j.calls, 0); /* without judge_live: the live file, not judged */
        in.judge_live = true;
        assert_int_equal(ctl_guard_render(&in, &r, &err), 0);
        assert_true(j.calls >= 2);
        assert_false(has_line(&r.conf, "JobCompType=jobcomp/lua"));
        assert_true(has_line(&r.conf, "SlurmctldDebug=info"));
        assert_int_equal(r.refused.n, 1);
        compute_data_clear(&a);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_all_good),
                cmocka_unit_test(test_one_bad_application),
                cmocka_unit_test(test_params),
                cmocka_unit_test(test_params_salvaged),
                cmocka_unit_test(test_last_good_lines),
                cmocka_unit_test(test_nothing_acceptable),
                cmocka_unit_test(test_judge_live),
        };
        return cmocka_run_group_tests(tests, load_template, free_template);
}
