/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/trigops: trigger-set's and trigger-unset's parameters
 * (every event, every refusal), the program's look on a machine (a test root), which triggers
 * are the charm's, what an unset removes and keeps, and the result fields. Setting, listing
 * and clearing against slurmctld: the cluster test charm-events. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "charm/slurmctld/trigops.h"
#include "charm/slurmctld/eventspool.h"
#include "tmpdir.h"

#include "util/banned.h"

static cJSON *json(const char *text) {
        cJSON *j = cJSON_Parse(text);
        assert_non_null(j);
        return j;
}

/* Parses text; returns r and leaves the message in msg (reset first). */
static int set_parse(const char *text, struct trigops_set_req *q, struct strbuf *msg) {
        cJSON *p = json(text);
        strbuf_reset(msg);
        *q = (struct trigops_set_req){ 0 };
        int r = trigops_set_parse(p, q, msg);
        cJSON_Delete(p);
        return r;
}

static void refused(const char *text, const char *needle) {
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        struct trigops_set_req q;
        int r = set_parse(text, &q, &msg);
        if (r >= 0 || !strstr(msg.buf, needle))
                fail_msg("%s: r=%d msg=\"%s\" (wanted \"%s\")", text, r, msg.buf, needle);
        assert_null(q.program); /* nothing handed out on a refusal */
}

static void test_set_events(void **state) {
        static const struct {
                const char *event;
                unsigned res;
                uint32_t bit;
        } ok[] = {
                { "up", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_UP },
                { "down", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_DOWN },
                { "drained", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_DRAINED },
                { "reconfig", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_RECONFIG },
                { "primary_slurmctld_failure", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_PRI_FAIL },
                { "primary_slurmctld_resumed_operation", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_PRI_RES_OP },
                { "primary_slurmctld_resumed_control", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_PRI_RES_CTRL },
                { "backup_slurmctld_failure", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_BU_FAIL },
                { "backup_slurmctld_resumed_operation", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_BU_RES_OP },
                { "backup_slurmctld_assumed_control", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_BU_AS_CTRL },
        };
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                _cleanup_free_ char *text = xasprintf(
                        "{\"event\":\"%s\",\"program\":\"/etc/slurm/scripts/alert\"}", ok[i].event);
                struct trigops_set_req q;
                assert_int_equal(set_parse(text, &q, &msg), 0);
                assert_int_equal(q.res_type, ok[i].res);
                assert_int_equal(q.event, ok[i].bit);
                assert_string_equal(q.event_name, ok[i].event);
                assert_string_equal(q.path, "/etc/slurm/scripts/alert");
                /* a node trigger is on every node; a controller one has no resource */
                if (ok[i].res == SLURM_TRIGGER_RES_NODE)
                        assert_string_equal(q.resource, "*");
                else
                        assert_null(q.resource);
                assert_int_equal(q.offset, 0);
                assert_false(q.permanent);
                trigops_set_req_done(&q);
        }
        /* job events need a job id; [string, integer] */
        struct trigops_set_req q;
        assert_int_equal(set_parse("{\"event\":\"fini\",\"program\":\"/usr/bin/logger x\",\"job-id\":42}", &q, &msg), 0);
        assert_int_equal(q.res_type, SLURM_TRIGGER_RES_JOB);
        assert_int_equal(q.event, SLURM_JOB_EVENT_FINI);
        assert_string_equal(q.resource, "42");
        assert_string_equal(q.program, "/usr/bin/logger x");
        assert_string_equal(q.path, "/usr/bin/logger");
        trigops_set_req_done(&q);
        assert_int_equal(set_parse("{\"event\":\"time\",\"program\":\"/usr/bin/true\",\"job-id\":\"7\",\"offset\":-300}",
                                 &q, &msg),
                0);
        assert_int_equal(q.offset, -300);
        assert_int_equal(q.event, SLURM_JOB_EVENT_TIME);
        trigops_set_req_done(&q);
        assert_int_equal(set_parse("{\"event\":\"up\",\"program\":\"/usr/sbin/x\",\"nodes\":\"*\",\"offset\":32000,"
                                   "\"permanent\":true}",
                                 &q, &msg),
                0);
        assert_int_equal(q.offset, 32000);
        assert_true(q.permanent);
        trigops_set_req_done(&q);
}

static void test_set_refusals(void **state) {
        /* events Slurm has but that are wrong here, and names it has not */
        refused("{\"event\":\"fail\",\"program\":\"/usr/bin/true\"}", "never fires");
        refused("{\"event\":\"burst_buffer\",\"program\":\"/usr/bin/true\"}", "no burst buffer");
        refused("{\"event\":\"idle\",\"program\":\"/usr/bin/true\"}", "whether or not a node is idle");
        refused("{\"event\":\"DOWN\",\"program\":\"/usr/bin/true\"}", "unknown event \"DOWN\"");
        refused("{\"event\":\"primary_slurmctld_acct_buffer_full\",\"program\":\"/usr/bin/true\"}", "unknown event");
        refused("{\"event\":\"\",\"program\":\"/usr/bin/true\"}", "event: give");
        refused("{\"program\":\"/usr/bin/true\"}", "event: give");
        refused("{\"event\":3,\"program\":\"/usr/bin/true\"}", "event: expected a string");
        refused("{\"event\":\"down\"}", "program: give");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"extra\":1}", "unknown parameter \"extra\"");
        /* programs: the PROGRAM roots, the lexical rule, the words */
        refused("{\"event\":\"down\",\"program\":\"/tmp/x\"}", "program:");
        refused("{\"event\":\"down\",\"program\":\"/etc/passwd\"}", "program:");
        refused("{\"event\":\"down\",\"program\":\"relative\"}", "program:");
        refused("{\"event\":\"down\",\"program\":\"/etc/slurm/scripts/../../shadow\"}", "program:");
        refused("{\"event\":\"down\",\"program\":\"/var/lib/slurm/charm-events/node-event-trigger\"}", "program:");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/*\"}", "program:");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true  two\"}", "single spaces");
        refused("{\"event\":\"down\",\"program\":\" /usr/bin/true\"}", "single spaces");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true \"}", "single spaces");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true a;b\"}", "argument \"a;b\"");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true \\\"q\\\"\"}", "argument");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true $HOME\"}", "argument");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true a b c d e f g h i j k l m n o p q\"}",
                "more than 16 arguments");
        /* nodes: "*" only, node events only */
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"nodes\":\"cpu-0\"}", "only \"*\"");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"nodes\":\"cpu-[0-3]\"}", "Incomplete trigger");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"nodes\":\"\"}", "only \"*\"");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":1,\"nodes\":\"*\"}", "only for a node event");
        /* job ids */
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\"}", "job-id: give");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":0}", "job-id:");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":\"12_3\"}", "job-id: \"12_3\"");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":\"-1\"}", "job-id:");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":67043329}", "job-id:");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":1.5}", "job-id:");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"job-id\":4}", "only for a job event");
        refused("{\"event\":\"backup_slurmctld_failure\",\"program\":\"/usr/bin/true\",\"job-id\":4}",
                "only for a job event");
        /* offsets and permanence */
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"offset\":-1}", "only for time");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":3,\"offset\":-10}", "only for time");
        refused("{\"event\":\"time\",\"program\":\"/usr/bin/true\",\"job-id\":3,\"offset\":-32001}", "offset:");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":3,\"offset\":60}", "MinJobAge");
        refused("{\"event\":\"up\",\"program\":\"/usr/bin/true\",\"offset\":32001}", "offset:");
        refused("{\"event\":\"up\",\"program\":\"/usr/bin/true\",\"offset\":1.5}", "offset:");
        refused("{\"event\":\"up\",\"program\":\"/usr/bin/true\",\"offset\":\"5\"}", "offset:");
        refused("{\"event\":\"fini\",\"program\":\"/usr/bin/true\",\"job-id\":3,\"permanent\":true}", "permanent:");
        refused("{\"event\":\"down\",\"program\":\"/usr/bin/true\",\"permanent\":\"yes\"}", "permanent:");
}

static void mk(const char *root, const char *rel, bool dir, mode_t mode) {
        assert_int_equal(test_mk(root, rel, dir, mode), 0);
}

static void test_program_check(void **state) {
        const char *root = *state;
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        const uid_t slurm_uid = 64030;
        const gid_t slurm_gid = 64030;
        assert_int_equal(chmod(root, 0755), 0);
        static const char *const dirs[] = { "/etc", "/etc/slurm", "/etc/slurm/scripts", "/usr", "/usr/bin", NULL };
        for (size_t i = 0; dirs[i]; i++)
                mk(root, dirs[i], true, 0755);
        mk(root, "/etc/slurm/scripts/alert", false, 0755);
        mk(root, "/etc/slurm/scripts/private", false, 0750); /* group root: SlurmUser is "other" */
        mk(root, "/etc/slurm/scripts/open", false, 0777);
        mk(root, "/usr/bin/notexec", false, 0644);

        assert_int_equal(trigops_program_check(root, "/etc/slurm/scripts/alert", slurm_uid, slurm_gid, &msg), 0);
        strbuf_reset(&msg);
        assert_int_equal(
                trigops_program_check(root, "/etc/slurm/scripts/private", slurm_uid, slurm_gid, &msg), -EACCES);
        assert_non_null(strstr(msg.buf, "not executable by SlurmUser"));
        /* the same file with SlurmUser's group: executable by it */
        _cleanup_free_ char *private = xasprintf("%s/etc/slurm/scripts/private", root);
        assert_int_equal(chown(private, 0, slurm_gid), 0);
        strbuf_reset(&msg);
        assert_int_equal(trigops_program_check(root, "/etc/slurm/scripts/private", slurm_uid, slurm_gid, &msg), 0);
        strbuf_reset(&msg);
        assert_true(trigops_program_check(root, "/etc/slurm/scripts/open", slurm_uid, slurm_gid, &msg) < 0);
        assert_non_null(strstr(msg.buf, "program:"));
        strbuf_reset(&msg);
        assert_int_equal(
                trigops_program_check(root, "/etc/slurm/scripts/missing", slurm_uid, slurm_gid, &msg), -ENOENT);
        strbuf_reset(&msg);
        assert_true(trigops_program_check(root, "/usr/bin/notexec", slurm_uid, slurm_gid, &msg) < 0);
        /* a file SlurmUser owns is not root's: refused whatever its mode */
        mk(root, "/etc/slurm/scripts/slurms", false, 0755);
        _cleanup_free_ char *slurms = xasprintf("%s/etc/slurm/scripts/slurms", root);
        assert_int_equal(chown(slurms, slurm_uid, slurm_gid), 0);
        strbuf_reset(&msg);
        assert_true(trigops_program_check(root, "/etc/slurm/scripts/slurms", slurm_uid, slurm_gid, &msg) < 0);
        /* a directory on the way that others may write */
        _cleanup_free_ char *scripts = xasprintf("%s/etc/slurm/scripts", root);
        assert_int_equal(chmod(scripts, 0777), 0);
        strbuf_reset(&msg);
        assert_true(trigops_program_check(root, "/etc/slurm/scripts/alert", slurm_uid, slurm_gid, &msg) < 0);
        assert_int_equal(chmod(scripts, 0755), 0);
        /* a link out of the roots */
        _cleanup_free_ char *link = xasprintf("%s/etc/slurm/scripts/link", root);
        assert_int_equal(symlink("/etc/passwd", link), 0);
        strbuf_reset(&msg);
        assert_true(trigops_program_check(root, "/etc/slurm/scripts/link", slurm_uid, slurm_gid, &msg) < 0);

        /* the status note: site triggers only, the first failure named, the others counted */
        struct slurm_trigger v[] = {
                { .id = 1, .program = (char *) EVSPOOL_HOME "/" EVSPOOL_PROGRAM " down" }, /* the charm's */
                { .id = 2, .program = (char *) "/etc/slurm/scripts/alert drained" },
                { .id = 3, .program = (char *) "/etc/slurm/scripts/missing x" },
                { .id = 4, .program = (char *) "/etc/slurm/scripts/open" },
                { .id = 5, .program = NULL },
        };
        struct slurm_trigger_list have = { v, ELEMENTSOF(v) };
        _cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
        assert_int_equal(trigops_programs_note(&have, root, slurm_uid, slurm_gid, &note), 2);
        assert_non_null(strstr(note.buf, "trigger 3: program:"));
        assert_non_null(strstr(note.buf, "missing"));
        assert_non_null(strstr(note.buf, "+1 more"));
        assert_null(strstr(note.buf, "trigger 2"));
        struct slurm_trigger_list good = { v, 3 - 1 };
        strbuf_reset(&note);
        assert_int_equal(trigops_programs_note(&good, root, slurm_uid, slurm_gid, &note), 0);
        assert_int_equal(note.len, 0);
}

static int unset_parse(const char *text, struct trigops_unset_req *q, struct strbuf *msg) {
        cJSON *p = json(text);
        strbuf_reset(msg);
        *q = (struct trigops_unset_req){ 0 };
        int r = trigops_unset_parse(p, q, msg);
        cJSON_Delete(p);
        return r;
}

static void test_unset_parse(void **state) {
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        struct trigops_unset_req q;
        assert_int_equal(unset_parse("{\"ids\":\"3, 4,3 9\"}", &q, &msg), 0);
        assert_int_equal(q.n_ids, 3);
        assert_int_equal(q.ids[0], 3);
        assert_int_equal(q.ids[1], 4);
        assert_int_equal(q.ids[2], 9);
        assert_null(q.user);
        trigops_unset_req_done(&q);
        assert_int_equal(unset_parse("{\"ids\":12}", &q, &msg), 0);
        assert_int_equal(q.n_ids, 1);
        assert_int_equal(q.ids[0], 12);
        trigops_unset_req_done(&q);
        assert_int_equal(unset_parse("{\"user\":\"slurm\"}", &q, &msg), 0);
        assert_string_equal(q.user, "slurm");
        assert_null(q.ids);
        trigops_unset_req_done(&q);

        static const struct {
                const char *text, *needle;
        } bad[] = {
                { "{}", "give either" },
                { "{\"ids\":\"1\",\"user\":\"slurm\"}", "give either" },
                { "{\"ids\":\"\"}", "ids: give" },
                { "{\"ids\":\" , \"}", "ids: give" },
                { "{\"ids\":\"0\"}", "not a trigger id" },
                { "{\"ids\":\"x\"}", "not a trigger id" },
                { "{\"ids\":\"-3\"}", "not a trigger id" },
                { "{\"ids\":\"4294967296\"}", "not a trigger id" },
                { "{\"ids\":1.5}", "ids:" },
                { "{\"user\":\"\"}", "not a user name" },
                { "{\"user\":\"a b\"}", "not a user name" },
                { "{\"user\":\"../x\"}", "not a user name" },
                { "{\"user\":3}", "user: expected a string" },
                { "{\"all\":true}", "unknown parameter" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                int r = unset_parse(bad[i].text, &q, &msg);
                if (r >= 0 || !strstr(msg.buf, bad[i].needle))
                        fail_msg("%s: r=%d msg=\"%s\"", bad[i].text, r, msg.buf);
                assert_null(q.ids);
                assert_null(q.user);
        }
        /* more than the bound */
        _cleanup_strbuf_ struct strbuf many = STRBUF_INIT;
        strbuf_addstr(&many, "{\"ids\":\"");
        for (int i = 1; i <= TRIGOPS_IDS_MAX + 1; i++)
                strbuf_addf(&many, "%d,", i);
        strbuf_addstr(&many, "\"}");
        assert_int_equal(unset_parse(many.buf, &q, &msg), -E2BIG);
}

static struct slurm_trigger trig(uint32_t id, uint32_t uid, const char *program) {
        return (struct slurm_trigger){ .id = id,
                .node_trigger = true,
                .res_type = SLURM_TRIGGER_RES_NODE,
                .events = SLURM_NODE_EVENT_DOWN,
                .resource = (char *) "*",
                .program = (char *) program,
                .user_id = uid };
}

static void test_unset_plan(void **state) {
        struct slurm_trigger v[] = {
                trig(1, 64030, EVSPOOL_HOME "/" EVSPOOL_PROGRAM " down"),
                trig(2, 64030, "/etc/slurm/scripts/alert"),
                trig(3, 64030, "/usr/bin/logger a"),
                trig(4, 1000, "/usr/bin/logger b"),
                trig(5, 64030, EVSPOOL_HOME "/" EVSPOOL_PROGRAM " backup_slurmctld_assumed_control"),
        };
        struct slurm_trigger_list have = { v, ELEMENTSOF(v) };
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        assert_true(trigops_is_charm(&v[0]));
        assert_int_equal(trigops_site_count(&have), 3);
        assert_false(trigops_is_charm(&v[1]));
        /* a program that only starts like the charm's directory is not the charm's */
        struct slurm_trigger near = trig(9, 0, "/var/lib/slurm/charm-events-x/p");
        assert_false(trigops_is_charm(&near));

        uint32_t ids[] = { 2, 4 };
        struct trigops_unset_req q = { .ids = ids, .n_ids = 2 };
        _cleanup_strv_ struct strv clear = STRV_INIT, kept = STRV_INIT;
        assert_int_equal(trigops_unset_plan(&have, &q, 0, &clear, &kept, &msg), 0);
        assert_int_equal(clear.n, 2);
        assert_string_equal(clear.v[0], "2");
        assert_string_equal(clear.v[1], "4");
        assert_int_equal(kept.n, 0);
        strv_clear(&clear);

        /* a charm's id or an unknown one anywhere in the list: nothing at all */
        uint32_t with_charm[] = { 2, 5 };
        q = (struct trigops_unset_req){ .ids = with_charm, .n_ids = 2 };
        assert_int_equal(trigops_unset_plan(&have, &q, 0, &clear, &kept, &msg), -EPERM);
        assert_non_null(strstr(msg.buf, "trigger 5 is the charm's own"));
        assert_int_equal(clear.n, 0);
        uint32_t unknown[] = { 3, 77 };
        q = (struct trigops_unset_req){ .ids = unknown, .n_ids = 2 };
        strbuf_reset(&msg);
        assert_int_equal(trigops_unset_plan(&have, &q, 0, &clear, &kept, &msg), -ENOENT);
        assert_non_null(strstr(msg.buf, "trigger 77 does not exist"));
        assert_int_equal(clear.n, 0);

        /* by user: the site's go, the charm's stay and are named */
        q = (struct trigops_unset_req){ .user = (char *) "slurm" };
        assert_int_equal(trigops_unset_plan(&have, &q, 64030, &clear, &kept, &msg), 0);
        assert_int_equal(clear.n, 2);
        assert_string_equal(clear.v[0], "2");
        assert_string_equal(clear.v[1], "3");
        assert_int_equal(kept.n, 2);
        assert_string_equal(kept.v[0], "1");
        assert_string_equal(kept.v[1], "5");
}

static const char *kv_get(const struct strv *kv, const char *key) {
        for (size_t i = 0; i + 1 < kv->n; i += 2)
                if (streq(kv->v[i], key))
                        return kv->v[i + 1];
        return NULL;
}

static void test_fields(void **state) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        struct slurm_trigger t = { .id = 7,
                .res_type = SLURM_TRIGGER_RES_JOB,
                .events = SLURM_JOB_EVENT_TIME,
                .resource = (char *) "42",
                .program = (char *) "/usr/bin/logger x",
                .user_id = 0,
                .offset = -300 };
        trigops_fields(&t, "triggers.7.", &kv);
        assert_string_equal(kv_get(&kv, "triggers.7.event"), "time");
        assert_string_equal(kv_get(&kv, "triggers.7.resource-type"), "job");
        assert_string_equal(kv_get(&kv, "triggers.7.resource"), "42");
        assert_string_equal(kv_get(&kv, "triggers.7.offset"), "-300");
        assert_string_equal(kv_get(&kv, "triggers.7.program"), "/usr/bin/logger x");
        assert_string_equal(kv_get(&kv, "triggers.7.user"), "root");
        assert_string_equal(kv_get(&kv, "triggers.7.permanent"), "false");
        assert_string_equal(kv_get(&kv, "triggers.7.owner"), "site");

        strv_clear(&kv);
        t = (struct slurm_trigger){ .id = 1,
                .res_type = SLURM_TRIGGER_RES_NODE,
                .events = SLURM_NODE_EVENT_DOWN | SLURM_NODE_EVENT_DRAINED | (1U << 30),
                .program = (char *) EVSPOOL_HOME "/" EVSPOOL_PROGRAM " down",
                .user_id = 4000000000U,
                .permanent = true };
        trigops_fields(&t, "trigger.", &kv);
        assert_string_equal(kv_get(&kv, "trigger.event"), "down,drained,0x40000000");
        assert_string_equal(kv_get(&kv, "trigger.resource"), "");
        assert_string_equal(kv_get(&kv, "trigger.user"), "4000000000");
        assert_string_equal(kv_get(&kv, "trigger.permanent"), "true");
        assert_string_equal(kv_get(&kv, "trigger.owner"), "charm");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_set_events),
                cmocka_unit_test(test_set_refusals),
                cmocka_unit_test_setup_teardown(test_program_check, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_unset_parse),
                cmocka_unit_test(test_unset_plan),
                cmocka_unit_test(test_fields),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
