/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/pause: the pause file under a test root (set, read, replaced,
 * cleared), the reason check, the paused status line. The actions on real daemons are in
 * tests/cluster/charm-admin.sh (slurmctld, slurmd), charm-accounting.sh (slurmdbd) and
 * charm-login.sh (sackd). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/pause.h"
#include "util/fileio.h"

#include <sys/stat.h>

#include "util/banned.h"

static char root[] = "/tmp/test-pause.XXXXXX";

static int setup(void **state) {
        return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state) {
        /* the state dir's path under root, removed deepest first */
        _cleanup_free_ char *f = xasprintf("%s%s/%s", root, CHARM_PATH_STATE_DIR, PAUSE_FILE);
        (void) unlink(f);
        _cleanup_free_ char *d = xasprintf("%s%s", root, CHARM_PATH_STATE_DIR);
        while (strlen(d) > strlen(root)) {
                (void) rmdir(d);
                *strrchr(d, '/') = '\0';
        }
        return rmdir(root) < 0 ? -1 : 0;
}

static void test_pause_file(void **state) {
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *reason = NULL, *again = NULL;

        assert_int_equal(charm_paused(&p, &reason), 0);
        assert_null(reason);
        assert_int_equal(charm_pause_clear(&p, &err), 0); /* not paused: nothing to lift */

        assert_int_equal(charm_pause_set(&p, "new disk", &err), 0);
        assert_int_equal(charm_paused(&p, &reason), 1);
        assert_string_equal(reason, "new disk");
        /* root only, and its reason replaced by a second pause */
        _cleanup_free_ char *f = xasprintf("%s%s/%s", root, CHARM_PATH_STATE_DIR, PAUSE_FILE);
        struct stat st;
        assert_int_equal(stat(f, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(charm_pause_set(&p, "firmware", &err), 0);
        assert_int_equal(charm_paused(&p, &again), 1);
        assert_string_equal(again, "firmware");

        assert_int_equal(charm_pause_clear(&p, &err), 1);
        free(reason);
        reason = NULL;
        assert_int_equal(charm_paused(&p, &reason), 0);
}

static void test_reason_check(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct charm_paths p = { .root = root };
        assert_int_equal(charm_reason_check("reason", "swap the PSU (ticket 42)", &err), 0);
        const char *bad[] = { "", "tab\there", "new\nline", "caf\xc3\xa9" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                assert_int_equal(charm_reason_check("reason", bad[i], &err), -EINVAL);
                assert_non_null(startswith(err.buf, "reason: "));
                /* and nothing is written for it */
                assert_int_equal(charm_pause_set(&p, bad[i], &err), -EINVAL);
        }
        char longer[PAUSE_REASON_MAX + 2];
        memset(longer, 'x', sizeof longer - 1);
        longer[sizeof longer - 1] = '\0';
        strbuf_reset(&err);
        assert_int_equal(charm_reason_check("reason", longer, &err), -EINVAL);
        longer[PAUSE_REASON_MAX] = '\0';
        assert_int_equal(charm_reason_check("reason", longer, &err), 0);
        _cleanup_free_ char *reason = NULL;
        assert_int_equal(charm_paused(&p, &reason), 0);
}

static void test_outcome(void **state) {
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        /* without a bus the daemons' states are left out */
        char *services[] = { "slurmd.service", NULL };
        charm_paused_outcome(NULL, "cpu/1", "new disk", services, &out);
        assert_int_equal(out.status, JUJU_STATUS_MAINTENANCE);
        assert_string_equal(out.message.buf, "paused by admin: new disk (resume: juju run cpu/1 resume)");

        /* each daemon not running, and how a failed one ended */
        struct unit_state up = { .active_state = "active", .result = "success" };
        struct unit_state down = { .active_state = "inactive", .result = "success" };
        struct unit_state crashed = { .active_state = "failed", .result = "core-dump" };
        struct unit_state failed_unknown = { .active_state = "failed" };
        charm_paused_daemon_note(&out.message, "slurmd.service", &up);
        charm_paused_daemon_note(&out.message, "slurmd.service", &down);
        charm_paused_daemon_note(&out.message, "slurmctld.service", &crashed);
        charm_paused_daemon_note(&out.message, "munge", &failed_unknown);
        assert_string_equal(out.message.buf,
                "paused by admin: new disk (resume: juju run cpu/1 resume)"
                "; slurmd inactive; slurmctld failed (Result=core-dump)"
                "; munge failed");
}

/* The reconcile's gate: 0 and nothing said when not paused, 1 and the paused status when
 * paused, an error when the pause state cannot be read (a directory in the file's place). */
static void test_gate(void **state) {
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char *none[] = { NULL }; /* no daemon's state asked for: the host's manager is not the test's */
        {
                _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
                assert_int_equal(charm_paused_gate(NULL, &p, "sackd/0", none, &out, &err), 0);
                assert_int_equal(out.message.len, 0);
        }
        assert_int_equal(charm_pause_set(&p, "os update", &err), 0);
        {
                _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
                assert_int_equal(charm_paused_gate(NULL, &p, "sackd/0", none, &out, &err), 1);
                assert_int_equal(out.status, JUJU_STATUS_MAINTENANCE);
                assert_string_equal(out.message.buf, "paused by admin: os update (resume: juju run sackd/0 resume)");
        }
        assert_int_equal(charm_pause_clear(&p, &err), 1);
        _cleanup_free_ char *f = xasprintf("%s%s/%s", root, CHARM_PATH_STATE_DIR, PAUSE_FILE);
        assert_int_equal(mkdir(f, 0700), 0);
        {
                _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
                strbuf_reset(&err);
                assert_true(charm_paused_gate(NULL, &p, "sackd/0", none, &out, &err) < 0);
                assert_non_null(startswith(err.buf, "pause state: "));
        }
        assert_int_equal(rmdir(f), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pause_file),
                cmocka_unit_test(test_reason_check),
                cmocka_unit_test(test_outcome),
                cmocka_unit_test(test_gate),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
