/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/nodecfgmark: the record of node-config's drain, its text, the process it names, and
 * what a reconcile does with a record whose action is gone (no Slurm: a node not known, or not
 * drained with the record's reason, is left alone). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/fileio.h"
#include "charm/slurmd/nodecfgmark.h"
#include "proc/proc.h"
#include "slurm/nodestate.h"
#include "tmpdir.h"

#include "util/banned.h"

static void test_format_parse(void **state) {
        const struct nodecfg_mark m = { .node = "cpu-0", .reason = "node-config: reconfiguring (unit cpu/0)",
                .pid = 4242, .start = 18446744073709551615ULL, .prior_state = 0x12345678u,
                .prior_reason = "admin \"quoted\" reason" };
        _cleanup_free_ char *text = nodecfg_mark_format(&m);
        _cleanup_(nodecfg_mark_done) struct nodecfg_mark back = { 0 };
        assert_int_equal(nodecfg_mark_parse(text, &back), 0);
        assert_string_equal(back.node, m.node);
        assert_string_equal(back.reason, m.reason);
        assert_int_equal(back.pid, 4242);
        assert_true(back.start == m.start); /* 64 bits exact */
        assert_int_equal(back.prior_state, 0x12345678u);
        assert_string_equal(back.prior_reason, m.prior_reason);

        /* no prior reason */
        const struct nodecfg_mark n = { .node = "a", .reason = "r", .pid = 1, .start = 5 };
        _cleanup_free_ char *t2 = nodecfg_mark_format(&n);
        _cleanup_(nodecfg_mark_done) struct nodecfg_mark b2 = { 0 };
        assert_int_equal(nodecfg_mark_parse(t2, &b2), 0);
        assert_null(b2.prior_reason);
        /* a record without "what" (written before it existed) is node-config's */
        assert_string_equal(b2.what, NODECFG_MARK_NODE_CONFIG);
        assert_string_equal(back.what, NODECFG_MARK_NODE_CONFIG);
        /* the push's own */
        const struct nodecfg_mark w = { .what = NODECFG_MARK_PUSH, .node = "a", .reason = "r", .pid = 1, .start = 5 };
        _cleanup_free_ char *t3 = nodecfg_mark_format(&w);
        _cleanup_(nodecfg_mark_done) struct nodecfg_mark b3 = { 0 };
        assert_int_equal(nodecfg_mark_parse(t3, &b3), 0);
        assert_string_equal(b3.what, NODECFG_MARK_PUSH);

        /* what is not a record */
        static const char *const bad[] = { "", "{", "[]", "{}", "null",
                "{\"node\":\"\",\"reason\":\"r\",\"pid\":1,\"start\":\"1\",\"prior-state\":0}",
                "{\"node\":\"a\",\"reason\":\"r\",\"pid\":0,\"start\":\"1\",\"prior-state\":0}",
                "{\"node\":\"a\",\"reason\":\"r\",\"pid\":1,\"start\":\"x1\",\"prior-state\":0}",
                "{\"node\":\"a\",\"reason\":\"r\",\"pid\":1,\"start\":1,\"prior-state\":0}",
                "{\"node\":\"a\",\"reason\":\"r\",\"pid\":1,\"start\":\"1\",\"prior-state\":-1}",
                "{\"node\":\"a\",\"reason\":\"r\",\"pid\":1,\"start\":\"1\",\"prior-state\":0,\"prior-reason\":3}",
                "{\"node\":\"a\",\"pid\":1,\"start\":\"1\",\"prior-state\":0}",
                "{\"what\":\"\",\"node\":\"a\",\"reason\":\"r\",\"pid\":1,\"start\":\"1\",\"prior-state\":0}",
                "{\"what\":2,\"node\":\"a\",\"reason\":\"r\",\"pid\":1,\"start\":\"1\",\"prior-state\":0}" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct nodecfg_mark x = { 0 };
                if (nodecfg_mark_parse(bad[i], &x) != -EINVAL)
                        fail_msg("accepted: %s", bad[i]);
                assert_null(x.node);
        }
        struct nodecfg_mark x = { 0 };
        assert_int_equal(nodecfg_mark_parse(NULL, &x), -EINVAL);
}

/* proc_pid_alive (lib/proc), as the record uses it: this process yes, a reaped child no, the
 * same pid with another start time no */
static void test_proc_alive(void **state) {
        unsigned long long self = 0;
        char st = 0;
        assert_int_equal(proc_pid_stat(getpid(), &self, &st), 0);
        assert_true(self > 0);
        assert_true(proc_pid_alive(getpid(), self));
        assert_false(proc_pid_alive(getpid(), self + 1));
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(0);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
        assert_int_equal(proc_pid_stat(pid, NULL, NULL), -ESRCH); /* reaped: gone */
        assert_false(proc_pid_alive(pid, self));
        assert_false(proc_pid_alive(0, 0));
}

/* store, then recover from another process's view: this one still runs, so nothing is done;
 * a record of a process that is gone is removed, and a node that does not carry its drain is
 * left as it is */
static void test_recover(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf note = STRBUF_INIT, err = STRBUF_INIT;
        const struct slurm_node saved = { .name = "cpu-0", .state = 1 /* IDLE */ };
        _cleanup_free_ char *path = xasprintf("%s/var/lib/slurm/charm/%s", root, NODECFG_MARK_FILE);

        assert_int_equal(nodecfg_mark_recover(&p, NULL, &note, &err), 0); /* no record */
        assert_int_equal(note.len, 0);

        assert_int_equal(nodecfg_mark_store(&p, NODECFG_MARK_FILE, &saved, NODECFG_MARK_NODE_CONFIG, "node-config: reconfiguring (unit cpu/0)", &err), 0);
        assert_int_equal(access(path, F_OK), 0);
        /* the action (this process) still runs: nothing undone, the record stays */
        assert_int_equal(nodecfg_mark_recover(&p, NULL, &note, &err), 0);
        assert_non_null(strstr(note.buf, "still runs"));
        assert_int_equal(access(path, F_OK), 0);

        /* the same pid later reused by another process (another start time): the action is gone */
        _cleanup_free_ char *data = NULL;
        assert_int_equal(read_full_file(path, &data, NULL), 0);
        _cleanup_(nodecfg_mark_done) struct nodecfg_mark m = { 0 };
        assert_int_equal(nodecfg_mark_parse(data, &m), 0);
        m.start += 1;
        _cleanup_free_ char *text = nodecfg_mark_format(&m);
        assert_int_equal(write_file_atomic(path, text, strlen(text), 0600, (uid_t) -1, (gid_t) -1), 0);
        /* the node as slurmctld has it now: the admin replaced the drain's reason meanwhile */
        const struct slurm_node now = { .name = "cpu-0", .state = 1 | 0x200 /* DRAIN */, .reason = "admin" };
        strbuf_reset(&note);
        assert_int_equal(nodecfg_mark_recover(&p, &now, &note, &err), 1);
        assert_non_null(strstr(note.buf, "no longer has its drain"));
        assert_int_equal(access(path, F_OK), -1);

        /* a record that cannot be read is removed and said */
        assert_int_equal(write_file_atomic(path, "{", 1, 0600, (uid_t) -1, (gid_t) -1), 0);
        strbuf_reset(&note);
        assert_int_equal(nodecfg_mark_recover(&p, NULL, &note, &err), 1);
        assert_non_null(strstr(note.buf, "could not be read"));
        assert_int_equal(access(path, F_OK), -1);

        /* clear: gone, and again is harmless */
        assert_int_equal(nodecfg_mark_store(&p, NODECFG_MARK_FILE, &saved, NODECFG_MARK_PUSH, "r", &err), 0);
        nodecfg_mark_clear(&p);
        assert_int_equal(access(path, F_OK), -1);
        nodecfg_mark_clear(&p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format_parse),
                cmocka_unit_test(test_proc_alive),
                cmocka_unit_test_setup_teardown(test_recover, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
