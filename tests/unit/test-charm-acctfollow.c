/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/slurmctld/acctfollow: which watcher follows accounting that waits,
 * when a run is asked for (the wait file there, its time passed, a host answering), how often
 * again while the file stays, and the look itself against a listener on loopback (and a port
 * nothing listens on). The file is the one acct_wait_record writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/charm.h"
#include "charm/common/pause.h"
#include "charm/slurmctld/accounting.h"
#include "charm/slurmctld/acctfollow.h"
#include "slurm/caps.h"
#include "util/fileio.h"
#include "tmpdir.h"

#include "util/banned.h"

#define S (1000 * 1000ULL)

static void test_wanted(void **state) {
        assert_true(acctfollow_wanted("slurmctld.service"));
        assert_false(acctfollow_wanted("slurmd.service"));
        assert_false(acctfollow_wanted("slurmdbd.service"));
        assert_false(acctfollow_wanted(NULL));
}

static void test_note(void **state) {
        struct acctfollow f = ACCTFOLLOW_INIT;
        /* no wait: never a run */
        assert_false(acctfollow_note(&f, false, true, 100 * S));
        assert_int_equal(f.rate.next_look, 100 * S + ACCTFOLLOW_POLL_USEC);
        /* waiting, not ready (no answer, or deferred): no run */
        assert_false(acctfollow_note(&f, true, false, 110 * S));
        /* ready: one run, then not again before AGAIN while the file stays */
        assert_true(acctfollow_note(&f, true, true, 120 * S));
        assert_false(acctfollow_note(&f, true, true, 130 * S));
        assert_true(acctfollow_note(&f, true, true, 120 * S + ACCTFOLLOW_AGAIN_USEC));
        /* taken (no file): a later wait is followed at once */
        assert_false(acctfollow_note(&f, false, false, 300 * S));
        assert_true(acctfollow_note(&f, true, true, 310 * S));
}

/* A socket on 127.0.0.1 (its port in *ret_port), listening or only bound (a port that refuses
 * connections and that nothing else can take meanwhile), or -1. */
static int listener(unsigned *ret_port, bool listening) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof a;
        if (fd < 0 || bind(fd, (struct sockaddr *) &a, sizeof a) < 0 || (listening && listen(fd, 4) < 0) ||
                getsockname(fd, (struct sockaddr *) &a, &len) < 0) {
                if (fd >= 0)
                        close(fd);
                return -1;
        }
        *ret_port = ntohs(a.sin_port);
        return fd;
}

static void test_look(void **state) {
        char *root = test_tmpdir_make("test-charm-acctfollow");
        assert_non_null(root);
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct acctfollow f = ACCTFOLLOW_INIT;
        int64_t now_s = (int64_t) time(NULL);
        /* no file: nothing, no connection */
        assert_int_equal(acctfollow_look(&f, root, 5 * S, now_s), 0);
        assert_int_equal(f.rate.next_look, 5 * S + ACCTFOLLOW_POLL_USEC);
        /* not due: nothing looked at */
        assert_int_equal(acctfollow_look(&f, root, 6 * S, now_s), 0);

        unsigned port = 0, dead = 0;
        int fd = listener(&port, true);
        assert_true(fd >= 0);
        int gone = listener(&dead, false);
        assert_true(gone >= 0);

        _cleanup_(acct_view_done) struct acct_view v = ACCT_VIEW_INIT;
        strv_pushf(&v.waiting_hosts, "127.0.0.1:%u", dead);
        assert_int_equal(acct_wait_record(&p, &v, &e), 0);
        /* waiting, the host does not answer: no run */
        assert_int_equal(acctfollow_look(&f, root, 20 * S, now_s), 0);
        /* a second host answers: a run */
        strv_pushf(&v.waiting_hosts, "127.0.0.1:%u", port);
        assert_int_equal(acct_wait_record(&p, &v, &e), 0);
        assert_int_equal(acctfollow_look(&f, root, 40 * S, now_s), 1);
        /* deferred until later: no run before that time, one after */
        struct acctfollow g = ACCTFOLLOW_INIT;
        v.waiting_until = now_s + 100;
        assert_int_equal(acct_wait_record(&p, &v, &e), 0);
        assert_int_equal(acctfollow_look(&g, root, 50 * S, now_s), 0);
        assert_int_equal(acctfollow_look(&g, root, 70 * S, now_s + 100), 1);
        /* a paused unit: no run while the pause lasts */
        struct acctfollow k = ACCTFOLLOW_INIT;
        _cleanup_free_ char *pause = xasprintf("%s/var/lib/slurm/charm/%s", root, PAUSE_FILE);
        FILE *fp = fopen(pause, "we");
        assert_non_null(fp);
        fclose(fp);
        assert_int_equal(acctfollow_look(&k, root, 75 * S, now_s + 100), 0);
        assert_int_equal(unlink(pause), 0);
        /* a standby's wait that its saved state ends: a run once the state is there, with no
         * host answering (accounting.h, struct acct_standby; 22.05: no ClusterID needed) */
        const struct charm_paths p22 = { .root = root, .caps = slurm_caps_find("22.05") };
        assert_true(acct_state_ready(&p22, root, 1, NULL) == false);
        _cleanup_free_ char *sdir = xasprintf("%s/state", root);
        assert_int_equal(mkdir_p(sdir, 0700), 0);
        _cleanup_(acct_view_done) struct acct_view sv = ACCT_VIEW_INIT;
        strv_pushf(&sv.waiting_hosts, "127.0.0.1:%u", dead);
        sv.waiting_state = xstrdup(sdir);
        /* files saved before the primary took slurmdbd (its run without accounting): not yet */
        sv.waiting_since_ms = (now_s + 3600) * 1000;
        assert_int_equal(acct_wait_record(&p, &sv, &e), 0);
        struct acctfollow s = ACCTFOLLOW_INIT;
        assert_int_equal(acctfollow_look(&s, root, 90 * S, now_s), 0);
        static const char *const names[] = { "last_tres", "assoc_mgr_state", "clustername" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *file = xasprintf("%s/%s", sdir, names[i]);
                /* (assoc_mgr_state past its bare header, ACCT_ASSOC_STATE_BARE) */
                static const char data[] = "c|4 ........................................................................";
                assert_int_equal(write_file_atomic(file, data, sizeof data - 1, 0600, (uid_t) -1, (gid_t) -1), 0);
        }
        assert_int_equal(acctfollow_look(&s, root, 100 * S, now_s), 0);
        /* saved since: a run */
        sv.waiting_since_ms = (now_s - 5) * 1000;
        assert_int_equal(acct_wait_record(&p, &sv, &e), 0);
        assert_int_equal(acctfollow_look(&s, root, 110 * S, now_s), 1);
        /* nothing waits: the file is gone, no run */
        strv_clear(&v.waiting_hosts);
        assert_int_equal(acct_wait_record(&p, &v, &e), 0);
        struct acctfollow h = ACCTFOLLOW_INIT;
        assert_int_equal(acctfollow_look(&h, root, 80 * S, now_s + 200), 0);
        close(fd);
        close(gone);
        test_tmpdir_remove(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wanted),
                cmocka_unit_test(test_note),
                cmocka_unit_test(test_look),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
