/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/nodeevents (the parts without Slurm): the trigger set and what is
 * missing from a listing, spool records as hints, the action's parameters, and the files the
 * controller installs (trigger program, spool, watcher unit) under a test root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/nodeevents.h"
#include "interfaces/nodeactions.h"
#include "util/fileio.h"

#include <ftw.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/banned.h"

#define PROG EVSPOOL_HOME "/" EVSPOOL_PROGRAM

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void test_trigger_specs(void **state) {
        struct slurm_trigger_spec s[NODEEVENTS_N_TRIGGERS];
        char progs[NODEEVENTS_N_TRIGGERS][256];
        nodeevents_trigger_specs(PROG, s, progs);
        assert_false(s[0].controller);
        assert_int_equal(s[0].event, SLURM_NODE_EVENT_DOWN);
        assert_string_equal(s[0].program, "/var/lib/slurm/charm-events/node-event-trigger down");
        assert_string_equal(s[1].program, PROG " drained");
        assert_string_equal(s[2].program, PROG " up");
        assert_int_equal(s[3].event, SLURM_NODE_EVENT_RECONFIG);
        assert_string_equal(s[3].program, PROG " reconfig");
        assert_true(s[4].controller && s[5].controller);
        assert_int_equal(s[4].event, SLURM_CTLD_EVENT_PRI_RES_CTRL);
        assert_int_equal(s[5].event, SLURM_CTLD_EVENT_BU_AS_CTRL);
        assert_string_equal(s[4].program, PROG " slurmctld");
        /* never `fail` (it never fires in 22.05) and never a node name (fatal at restore) */
        for (size_t i = 0; i < NODEEVENTS_N_TRIGGERS; i++)
                assert_false(!s[i].controller && s[i].event == SLURM_NODE_EVENT_FAIL);
}

static void test_triggers_missing(void **state) {
        struct slurm_trigger_spec s[NODEEVENTS_N_TRIGGERS];
        char progs[NODEEVENTS_N_TRIGGERS][256];
        bool missing[NODEEVENTS_N_TRIGGERS];
        nodeevents_trigger_specs(PROG, s, progs);
        struct slurm_trigger have[] = {
                /* ours, as slurmctld lists them */
                { .id = 1,
                        .node_trigger = true,
                        .events = SLURM_NODE_EVENT_DOWN,
                        .resource = (char *) "*",
                        .program = progs[0],
                        .user_id = 64030,
                        .permanent = true },
                { .id = 2,
                        .node_trigger = true,
                        .events = SLURM_NODE_EVENT_RECONFIG,
                        .resource = (char *) "*",
                        .program = progs[3],
                        .user_id = 64030,
                        .permanent = true },
                { .id = 3,
                        .ctld_trigger = true,
                        .events = SLURM_CTLD_EVENT_PRI_RES_CTRL,
                        .resource = (char *) "*",
                        .program = progs[4],
                        .user_id = 64030,
                        .permanent = true },
                /* look-alikes that do not count */
                { .id = 4,
                        .node_trigger = true,
                        .events = SLURM_NODE_EVENT_DRAINED,
                        .resource = (char *) "*",
                        .program = progs[1],
                        .user_id = 0,
                        .permanent = true }, /* root's */
                { .id = 5,
                        .node_trigger = true,
                        .events = SLURM_NODE_EVENT_UP,
                        .resource = (char *) "*",
                        .program = progs[2],
                        .user_id = 64030,
                        .permanent = false }, /* one-shot */
                { .id = 6,
                        .node_trigger = true,
                        .events = SLURM_NODE_EVENT_UP,
                        .resource = (char *) "n1",
                        .program = progs[2],
                        .user_id = 64030,
                        .permanent = true }, /* one node */
                { .id = 7,
                        .node_trigger = true,
                        .events = SLURM_CTLD_EVENT_BU_AS_CTRL,
                        .resource = (char *) "*",
                        .program = progs[5],
                        .user_id = 64030,
                        .permanent = true }, /* not ctld */
        };
        struct slurm_trigger_list l = { .v = have, .n = ELEMENTSOF(have) };
        assert_int_equal(nodeevents_triggers_missing(&l, s, NODEEVENTS_N_TRIGGERS, 64030, missing), 3);
        assert_false(missing[0]);
        assert_true(missing[1]);
        assert_true(missing[2]);
        assert_false(missing[3]);
        assert_false(missing[4]);
        assert_true(missing[5]);
        assert_int_equal(nodeevents_triggers_missing(NULL, s, NODEEVENTS_N_TRIGGERS, 64030, missing), 6);
}

static void test_hints(void **state) {
        struct evspool_entry e[] = {
                { .valid = true, .time_ms = 5, .kind = (char *) "down", .arg = (char *) "n[1-3]" },
                { .valid = true, .time_ms = 6, .kind = (char *) "reconfig", .arg = (char *) "reconfig" },
                { .valid = false },
                { .valid = true, .time_ms = 7, .kind = (char *) "fail", .arg = (char *) "n1" },
                { .valid = true, .time_ms = 8, .kind = (char *) "up", .arg = (char *) "bad[" },
                { .valid = true,
                        .time_ms = 9,
                        .kind = (char *) "slurmctld",
                        .arg = (char *) "primary_slurmctld_resumed_control" },
                /* the trigger program now writes the host that took control */
                { .valid = true, .time_ms = 10, .kind = (char *) "slurmctld", .arg = (char *) "ctl-b.example" },
                { .valid = true, .time_ms = 11, .kind = (char *) "slurmctld", .arg = (char *) "ctl b" },
        };
        struct evspool_list l = { .v = e, .n = ELEMENTSOF(e) };
        struct ev_hint *h;
        size_t n = nodeevents_hints(&l, &h);
        assert_int_equal(n, 6);
        assert_int_equal(h[0].kind, EV_HINT_DOWN);
        assert_int_equal(h[0].time_ms, 5);
        assert_int_equal(h[0].nodes.n, 3);
        assert_string_equal(h[0].nodes.v[2], "n3");
        assert_int_equal(h[1].kind, EV_HINT_RECONFIG);
        assert_int_equal(h[1].nodes.n, 0);
        assert_int_equal(h[2].kind, EV_HINT_UP);
        assert_int_equal(h[2].nodes.n, 0); /* not a hostlist: a wake-up only */
        assert_int_equal(h[3].kind, EV_HINT_SLURMCTLD);
        assert_null(h[3].host); /* an earlier program's event name is no host name */
        assert_string_equal(h[4].host, "ctl-b.example");
        assert_null(h[5].host);
        for (size_t i = 0; i < n; i++)
                ev_hint_done(&h[i]);
        free(h);
        assert_int_equal(nodeevents_hints(NULL, &h), 0);
        free(h);
}

static int parse(const char *json, struct nodeevents_params *p, struct strbuf *err) {
        cJSON *j = json ? cJSON_Parse(json) : NULL;
        strbuf_reset(err);
        int r = nodeevents_params_parse(j, p, err);
        cJSON_Delete(j);
        return r;
}

static void test_params(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct nodeevents_params p;
        assert_int_equal(parse(NULL, &p, &err), 0);
        assert_false(p.has_since);
        assert_int_equal(p.limit, NODEEVENTS_LIMIT_DEFAULT);
        assert_int_equal(parse("{\"since\": 0, \"limit\": 1}", &p, &err), 0);
        assert_true(p.has_since);
        assert_int_equal(p.since, 0);
        assert_int_equal(p.limit, 1);
        assert_int_equal(parse("{\"since\": 123456789012, \"limit\": 1000}", &p, &err), 0);
        assert_int_equal(p.since, 123456789012ULL);
        assert_int_equal(p.limit, 1000);
        static const struct {
                const char *json, *msg;
        } bad[] = {
                { "{\"since\": -1}", "node-events: since must be an integer of 0 or more (got -1)" },
                { "{\"since\": 1.5}", "node-events: since must be an integer of 0 or more (got 1.5)" },
                { "{\"since\": \"7\"}", "node-events: since must be an integer of 0 or more (got \"7\")" },
                { "{\"since\": 1e300}", "node-events: since must be an integer of 0 or more (got 1e+300)" },
                { "{\"limit\": 0}", "node-events: limit must be an integer from 1 to 1000 (got 0)" },
                { "{\"limit\": 1001}", "node-events: limit must be an integer from 1 to 1000 (got 1001)" },
                { "{\"limit\": true}", "node-events: limit must be an integer from 1 to 1000 (got true)" },
                { "{\"sinse\": 3}", "node-events: unknown parameter \"sinse\" (since, limit)" },
                { "[1]", "node-events: the parameters are not an object" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_int_equal(parse(bad[i].json, &p, &err), -EINVAL);
                assert_string_equal(err.buf, bad[i].msg);
        }
}

static const char *srcdir(void) {
        const char *s = getenv("TOP_SRCDIR");
        if (isempty(s))
                fail_msg("TOP_SRCDIR is not set (run through meson test)");
        return s;
}

static void test_write_files(void **state) {
        char tmpl[] = "/tmp/test-nodeevents.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        struct passwd *pw = getpwuid(geteuid());
        assert_non_null(pw);
        _cleanup_free_ char *user = xstrdup(pw->pw_name);
        _cleanup_free_ char *root = xasprintf("%s/root", tmpl), *charm = xasprintf("%s/charm", tmpl);
        _cleanup_free_ char *bin = xasprintf("%s/bin", charm), *tdir = xasprintf("%s/templates", charm);
        _cleanup_free_ char *src_trigger = xasprintf("%s/%s", charm, NODEEVENTS_TRIGGER_EXE);
        _cleanup_free_ char *src_unit = xasprintf("%s/templates/%s", srcdir(), NODEEVENTS_TEMPLATE);
        _cleanup_free_ char *dst_unit_tmpl = xasprintf("%s/%s", tdir, NODEEVENTS_TEMPLATE);
        _cleanup_free_ char *unit_text = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct charm_paths paths = { .root = root, .slurm_user = user };
        struct stat st;

        assert_int_equal(mkdir_p(bin, 0755), 0);
        assert_int_equal(mkdir_p(tdir, 0755), 0);
        assert_int_equal(write_file_atomic(src_trigger, "ELF v1", 6, 0755, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(read_full_file(src_unit, &unit_text, NULL), 0);
        assert_int_equal(
                write_file_atomic(dst_unit_tmpl, unit_text, strlen(unit_text), 0644, (uid_t) -1, (gid_t) -1),
                0);

        assert_int_equal(nodeevents_write_files(&paths, "slurmctld/0", charm, &err), 3);
        _cleanup_free_ char *home = xasprintf("%s%s", root, EVSPOOL_HOME);
        _cleanup_free_ char *prog = xasprintf("%s/%s", home, EVSPOOL_PROGRAM);
        _cleanup_free_ char *spool = nodeevents_spool(&paths);
        _cleanup_free_ char *unit = xasprintf("%s/etc/systemd/system/%s", root, NODEEVENTS_UNIT);
        assert_int_equal(stat(home, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(stat(prog, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(stat(spool, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        assert_int_equal(st.st_uid, pw->pw_uid);
        _cleanup_free_ char *text = NULL;
        assert_int_equal(read_full_file(unit, &text, NULL), 0);
        _cleanup_free_ char *want = xasprintf("\nExecStart=%s/bin/node-event-watcher --unit slurmctld/0 "
                                              "--handler %s/bin/node-events-changed\n",
                charm, charm);
        assert_non_null(strstr(text, want));
        assert_non_null(strstr(text, "\nType=notify\n"));
        assert_non_null(strstr(text, "\nKillMode=process\n"));

        /* again: nothing to write; a spool opened to others is closed again */
        assert_int_equal(nodeevents_write_files(&paths, "slurmctld/0", charm, &err), 0);
        assert_int_equal(chmod(spool, 0777), 0);
        assert_int_equal(nodeevents_write_files(&paths, "slurmctld/0", charm, &err), 0);
        assert_int_equal(stat(spool, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        /* an upgraded charm's program replaces the installed one */
        assert_int_equal(write_file_atomic(src_trigger, "ELF v2", 6, 0755, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(nodeevents_write_files(&paths, "slurmctld/0", charm, &err), 2);
        _cleanup_free_ char *installed = NULL;
        assert_int_equal(read_full_file(prog, &installed, NULL), 0);
        assert_string_equal(installed, "ELF v2");

        /* no such user, no charm dir: refused with a message */
        paths.slurm_user = "no-such-user-here";
        assert_true(nodeevents_write_files(&paths, "slurmctld/0", charm, &err) < 0);
        paths.slurm_user = user;
        strbuf_reset(&err);
        assert_int_equal(nodeevents_write_files(&paths, "slurmctld/0", NULL, &err), -EINVAL);
        nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* issue 29: a compute unit's own actions, each (list, seq) once in the log, whichever unit reads
 * the list and however often; a gap said; a new list of a unit of the same name starts again */
static void test_unit_actions(void **state) {
        char tmpl[] = "/tmp/test-nodeevents-acts.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        _cleanup_free_ char *root = xasprintf("%s/root", tmpl);
        struct charm_paths paths = { .root = root, .slurm_user = "root" };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *dir = nodeevents_dir(&paths);
        struct node_actions a = { 0 };

        assert_int_equal(node_actions_push(&a, 1700000000000, "pause", "7", "cpu-0", "disk", "drain=true"), 0);
        /* no log placed by a hook yet: nothing written */
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &a, 0, &err), -ENOENT);
        assert_int_equal(mkdir_p(dir, 0700), 0);
        strbuf_reset(&err);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &a, 0, &err), 1);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &a, 0, &err), 0);
        assert_int_equal(node_actions_push(&a, 1700000001000, "resume", "8", "cpu-0", NULL, NULL), 0);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &a, 0, &err), 1);
        /* more than the list keeps between two reads: the gap is said */
        for (int i = 0; i < NODE_ACTIONS_MAX + 3; i++)
                assert_int_equal(node_actions_push(&a, 1700000002000 + i, "resume", "9", "cpu-0", NULL, NULL), 0);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &a, 0, &err), NODE_ACTIONS_MAX);
        /* a list that went back is said, not recorded */
        struct node_actions back = { 0 };
        memcpy(back.log, a.log, sizeof back.log);
        assert_int_equal(node_actions_push(&back, 1700000008000, "pause", "2", "cpu-0", NULL, NULL), 0);
        strbuf_reset(&err);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &back, 0, &err), -ESTALE);
        _cleanup_free_ char *went_back = xasprintf("goes back to seq 1 after %d was recorded", NODE_ACTIONS_MAX + 5);
        assert_non_null(strstr(err.buf, went_back));
        node_actions_done(&back);
        /* a new list (the application deployed again): from its seq 1 on */
        struct node_actions b = { 0 };
        assert_int_equal(node_actions_push(&b, 1700000009000, "pause", "1", "cpu-0", NULL, NULL), 0);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &b, 0, &err), 1);

        _cleanup_free_ char *log = xasprintf("%s/node-events.jsonl", dir), *text = NULL;
        assert_int_equal(read_full_file(log, &text, NULL), 0);
        size_t lines = 0;
        for (const char *p = text; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, 2 + NODE_ACTIONS_MAX + 1);
        assert_non_null(strstr(text, "\"action\":\"pause\""));
        assert_non_null(strstr(text, "\"by\":\"cpu/0 action 7\""));
        assert_non_null(strstr(text, "\"reason\":\"disk\""));
        _cleanup_free_ char *gap = xasprintf("\"detail\":\"(3 earlier actions of cpu/0 not recorded: its list keeps the last %d)", NODE_ACTIONS_MAX);
        assert_non_null(strstr(text, gap));
        /* a snapshot that forgot the seqs (set aside, or written by a unit not upgraded yet):
         * the leader's own floor keeps what it saw recorded from being written again */
        _cleanup_free_ char *snap = xasprintf("%s/state.json", dir), *st = NULL;
        assert_int_equal(read_full_file(snap, &st, NULL), 0);
        char *k = strstr(st, ",\"unit-actions\"");
        assert_non_null(k);
        memcpy(k, "}\n", 3);
        assert_int_equal(write_file_atomic(snap, st, strlen(st), 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(node_actions_push(&b, 1700000009500, "resume", "2", "cpu-0", NULL, NULL), 0);
        assert_int_equal(nodeevents_note_unit_actions(&paths, "cpu/0", &b, 1, &err), 1);
        node_actions_done(&a);
        node_actions_done(&b);
        nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Every controller unit's hooks note expectations at once (Juju runs hooks of different machines
 * concurrently; the log directory is shared under HA): none is lost to another's rewrite of the
 * file (issue 28, attack F2). 8 writers, 25 notes each, each for its own nodes. */
static void test_expect_concurrent(void **state) {
        char tmpl[] = "/tmp/test-nodeevents-expect.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        _cleanup_free_ char *root = xasprintf("%s/root", tmpl);
        struct charm_paths paths = { .root = root, .slurm_user = "root" };
        enum { WRITERS = 8, NOTES = 25 };
        pid_t pids[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
                pids[w] = fork();
                assert_true(pids[w] >= 0);
                if (pids[w] > 0)
                        continue;
                int bad = 0;
                /* Slurm's table: every node still there (each leaving expectation stays open) */
                struct strv table = STRV_INIT;
                for (int x = 0; x < WRITERS; x++)
                        for (int i = 0; i < NOTES; i++)
                                strv_push_take(&table, xasprintf("w%d-n%d", x, i));
                for (int i = 0; i < NOTES; i++) {
                        _cleanup_free_ char *node = xasprintf("w%d-n%d", w, i);
                        struct strbuf err = STRBUF_INIT;
                        if (nodeevents_expect(&paths, EXPECT_LEAVING, node, &table, &err) != 1)
                                bad++;
                        strbuf_release(&err);
                }
                strv_clear(&table);
                _exit(bad ? 1 : 0);
        }
        for (int w = 0; w < WRITERS; w++) {
                int status = 0;
                assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        _cleanup_free_ char *dir = nodeevents_dir(&paths), *path = xasprintf("%s/%s", dir, EXPECT_FILE);
        _cleanup_free_ char *text = NULL;
        assert_int_equal(read_full_file(path, &text, NULL), 0);
        size_t lines = 0;
        for (const char *p = text; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, WRITERS * NOTES);
        for (int w = 0; w < WRITERS; w++)
                for (int i = 0; i < NOTES; i++) {
                        _cleanup_free_ char *want = xasprintf("leaving w%d-n%d ", w, i);
                        assert_non_null(strstr(text, want));
                }

        /* a unit leaves before its node ever registered: its joining line goes with the leaving
         * note (none is written: nothing to wait for), the others stay (F8) */
        struct strv table = STRV_INIT;
        strv_push(&table, "w0-n0");
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(nodeevents_expect(&paths, EXPECT_JOINING, "fresh-0", &table, &err), 1);
        free(text);
        text = NULL;
        assert_int_equal(read_full_file(path, &text, NULL), 0);
        assert_non_null(strstr(text, "joining fresh-0 "));
        assert_int_equal(nodeevents_expect(&paths, EXPECT_LEAVING, "fresh-0", &table, &err), 0);
        free(text);
        text = NULL;
        assert_int_equal(read_full_file(path, &text, NULL), 0);
        assert_null(strstr(text, "fresh-0"));
        assert_non_null(strstr(text, "leaving w0-n0 "));
        strv_clear(&table);
        nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_trigger_specs),
                cmocka_unit_test(test_triggers_missing),
                cmocka_unit_test(test_hints),
                cmocka_unit_test(test_params),
                cmocka_unit_test(test_write_files),
                cmocka_unit_test(test_expect_concurrent),
                cmocka_unit_test(test_unit_actions),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
