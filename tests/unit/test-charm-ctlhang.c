/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/ctlhang: which log ends are a reconfigure stuck after its
 * state save (24.11's lines, from controller.c), and the quiet time read from the log's mtime.
 * The cure itself (a kill through systemd, slurmdbd's handshake) is the cluster test's:
 * charm-restart-debian13 stops slurmscriptd so that a reconfigure hangs where 24.11.5's does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "util/macro.h"
#include "util/fileio.h"
#include "charm/slurmctld/ctlhang.h"
#include "tmpdir.h"

#include "util/banned.h"

#define T(s) "[2026-12-05T05:00:00.000] " s "\n"
#define START T("slurmctld version 24.11.5 started on cluster c(123)")
#define HUP T("Reconfigure signal (SIGHUP) received")
#define SAVE T("Saving all slurm state")

static void test_in_log(void **state) {
        /* the hang: SIGHUP, the save, nothing that ends the stretch */
        assert_true(ctl_hang_in_log(START HUP SAVE));
        assert_true(ctl_hang_in_log(START HUP T("Processing Reconfiguration Request") SAVE
                        T("error: agent_fini: left 1 agent threads active")));
        /* a reconfigure that went on: exec'd, or a new process */
        assert_false(ctl_hang_in_log(START HUP SAVE T("Attempting to reconfigure")));
        assert_false(ctl_hang_in_log(START HUP SAVE T("Attempting to reconfigure") T("Relinquishing control to new child")));
        assert_false(ctl_hang_in_log(START HUP SAVE START));
        /* a stop asked meanwhile (its own hang is systemd's: TimeoutStopSec) */
        assert_false(ctl_hang_in_log(START HUP SAVE T("Terminate signal SIGTERM received")));
        /* not saved yet (still flushing RPCs): not this hang */
        assert_false(ctl_hang_in_log(START HUP));
        /* a stop's save, no SIGHUP: systemd's */
        assert_false(ctl_hang_in_log(START T("Terminate signal SIGTERM received") SAVE));
        assert_false(ctl_hang_in_log(START));
        assert_false(ctl_hang_in_log(""));
        assert_false(ctl_hang_in_log(NULL));
        /* only the last SIGHUP counts: an earlier stuck-looking one that a kill ended */
        assert_false(ctl_hang_in_log(HUP SAVE START HUP T("Attempting to reconfigure") START));
        assert_true(ctl_hang_in_log(HUP SAVE T("Attempting to reconfigure") START HUP SAVE));
        /* 22.05 reconfigures in place: a SIGHUP with no save */
        assert_false(ctl_hang_in_log(START HUP T("Reconfiguration completed") ));
        /* an admin's reload after the hang: still the hang (the signal handler logs, the main
         * thread waits on) */
        assert_true(ctl_hang_in_log(START HUP SAVE HUP HUP));
        /* the flush answered, then slurmctld waits for power scripts: legitimate, not this */
        assert_false(ctl_hang_in_log(START HUP SAVE T("waiting for 1 running processes")));
        /* a failed exec went on in the same process, then a second reconfigure hung */
        assert_true(ctl_hang_in_log(START HUP SAVE T("Attempting to reconfigure") HUP SAVE));
        /* a stop's save after an earlier completed reconfigure of the same process: not this */
        assert_false(ctl_hang_in_log(START HUP SAVE T("Attempting to reconfigure") T("Terminate signal SIGTERM received") SAVE));
        /* a user's text carrying both lines, then the controller runs on: the log alone says
         * yes (the thread check is the cure's proof), but a start line after it says no */
        assert_false(ctl_hang_in_log(START T("_slurm_rpc_submit_batch_job: invalid partition specified: "
                "Reconfigure signal (SIGHUP) received Saving all slurm state") START));
}

static void write_log(const char *path, const char *text, time_t mtime) {
        assert_int_equal(write_file_atomic(path, text, strlen(text), 0640, (uid_t) -1, (gid_t) -1), 0);
        struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
        assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_look(void **state) {
        char *dir = test_tmpdir_make("test-charm-ctlhang");
        assert_non_null(dir);
        _cleanup_free_ char *path = xasprintf("%s/slurmctld.log", dir);
        time_t now = 1800000000;
        /* no log */
        assert_false(ctl_hang_look(path, now));
        /* the hang's lines, quiet long enough, or not yet */
        write_log(path, START HUP SAVE, now - CTL_HANG_QUIET_S);
        assert_true(ctl_hang_look(path, now));
        write_log(path, START HUP SAVE, now - CTL_HANG_QUIET_S + 1);
        assert_false(ctl_hang_look(path, now));
        /* quiet but went on */
        write_log(path, START HUP SAVE T("Attempting to reconfigure"), now - 600);
        assert_false(ctl_hang_look(path, now));
        /* a link to such a log is not read (the log's directory is SlurmUser's) */
        _cleanup_free_ char *real = xasprintf("%s/real.log", dir), *link = xasprintf("%s/link.log", dir);
        write_log(real, START HUP SAVE, now - 600);
        assert_int_equal(symlink(real, link), 0);
        assert_true(ctl_hang_look(real, now));
        assert_false(ctl_hang_look(link, now));
        /* more than 64 KiB after the SIGHUP: what is read is the end, holding the save only */
        size_t big = 70000;
        const char head[] = HUP SAVE;
        size_t at = sizeof head - 1;
        char *text = xmalloc(at + big + 2);
        memcpy(text, head, at);
        memset(text + at, 'x', big);
        memcpy(text + at + big, "\n", 2);
        write_log(path, text, now - 600);
        assert_false(ctl_hang_look(path, now));
        free(text);
        test_tmpdir_remove(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_in_log),
                cmocka_unit_test(test_look),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
