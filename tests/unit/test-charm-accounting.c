/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/accounting's state: the slurmdbd hosts taken last (acct_store) and
 * the ClusterID released from StateSaveLocation/clustername when slurmctld is to meet other
 * slurmdbd hosts on a generation that keeps the id there (24.11), under a temporary root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/accounting.h"
#include "charm/common/charm.h"
#include "slurm/caps.h"
#include "util/fileio.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tmpdir.h"

#include "util/banned.h"

static char *read_text(const char *path) {
        char *data = NULL;
        if (read_full_file(path, &data, NULL) < 0)
                return NULL;
        return data;
}

static void put(const char *path, const char *text, mode_t mode) {
        assert_int_equal(write_file_atomic(path, text, strlen(text), mode, (uid_t) -1, (gid_t) -1), 0);
}

/* the view of a relation naming hosts (NULL-terminated) */
static void view_of(struct acct_view *v, const char *const *hosts) {
        for (size_t i = 0; hosts[i]; i++)
                strv_push(&v->hosts, hosts[i]);
}

static void test_release_24_11(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root, .caps = slurm_caps_find("24.11") };
        assert_non_null(p.caps);
        _cleanup_free_ char *sdir = xasprintf("%s/state", root), *file = xasprintf("%s/clustername", sdir);
        assert_int_equal(mkdir_p(sdir, 0700), 0);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        static const char *const one[] = { "10.0.0.3:6819", NULL },
                                 *const two[] = { "10.0.0.3:6819", "10.0.0.5:6819", NULL };

        /* no accounting wanted: nothing touched */
        _cleanup_(acct_view_done) struct acct_view none = ACCT_VIEW_INIT;
        put(file, "cluster-x|917", 0644);
        assert_int_equal(acct_cluster_id_release(&p, &none, sdir, &err), 0);
        _cleanup_free_ char *t0 = read_text(file);
        assert_string_equal(t0, "cluster-x|917");

        /* accounting turned on (no hosts taken before): the id goes, the name, mode stay */
        _cleanup_(acct_view_done) struct acct_view v1 = ACCT_VIEW_INIT;
        view_of(&v1, one);
        assert_int_equal(acct_cluster_id_release(&p, &v1, sdir, &err), 1);
        _cleanup_free_ char *t1 = read_text(file);
        assert_string_equal(t1, "cluster-x");
        struct stat st;
        assert_int_equal(stat(file, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(err.len, 0);

        /* slurmctld wrote the id slurmdbd gave; the same hosts taken since: left alone */
        assert_int_equal(acct_store(&p, &v1, &err), 0);
        put(file, "cluster-x|4242", 0644);
        assert_int_equal(acct_cluster_id_release(&p, &v1, sdir, &err), 0);
        _cleanup_free_ char *t2 = read_text(file);
        assert_string_equal(t2, "cluster-x|4242");

        /* a second slurmdbd host (the list differs): released again */
        _cleanup_(acct_view_done) struct acct_view v2 = ACCT_VIEW_INIT;
        view_of(&v2, two);
        assert_int_equal(acct_cluster_id_release(&p, &v2, sdir, &err), 1);
        _cleanup_free_ char *t3 = read_text(file);
        assert_string_equal(t3, "cluster-x");

        /* no id in the file, or no file (a first start): nothing to do */
        assert_int_equal(acct_cluster_id_release(&p, &v2, sdir, &err), 0);
        assert_int_equal(unlink(file), 0);
        assert_int_equal(acct_cluster_id_release(&p, &v2, sdir, &err), 0);
        assert_int_equal(access(file, F_OK), -1);
        assert_int_equal(err.len, 0);

        /* an unreadable state directory is an error with the path, not a silent skip */
        _cleanup_free_ char *notdir = xasprintf("%s/plainfile", root);
        put(notdir, "x", 0600);
        assert_true(acct_cluster_id_release(&p, &v2, notdir, &err) < 0);
        assert_non_null(strstr(err.buf, "plainfile/clustername"));
}

static void test_release_22_05_never(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root, .caps = slurm_caps_find("22.05") };
        _cleanup_free_ char *sdir = xasprintf("%s/state22", root), *file = xasprintf("%s/clustername", sdir);
        assert_int_equal(mkdir_p(sdir, 0700), 0);
        put(file, "cluster-y|12", 0600);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        static const char *const one[] = { "10.0.0.3:6819", NULL };
        _cleanup_(acct_view_done) struct acct_view v = ACCT_VIEW_INIT;
        view_of(&v, one);
        assert_int_equal(acct_cluster_id_release(&p, &v, sdir, &err), 0);
        _cleanup_free_ char *t = read_text(file);
        assert_string_equal(t, "cluster-y|12");
}

/* The fatal lines of slurmctld 22.05/24.11 that blame slurmdbd's absence, as charm_log_last_error
 * returns them; anything else (another fatal, an error line with the same words, nothing) is the
 * file's. */
static void test_start_fault(void **state) {
        (void) state;
        assert_true(acct_start_fault("fatal: You are running with a database but for some reason we have no "
                                     "TRES from it.  This should only happen if the database is down and you "
                                     "don't have any state files."));
        assert_true(acct_start_fault("fatal: You are running with a database but for some reason we have less "
                                     "TRES than should be here (3 < 8) and/or the \"billing\" TRES is missing."));
        assert_true(acct_start_fault("fatal: slurmdbd and/or database must be up at slurmctld start time"));
        assert_true(acct_start_fault("fatal: slurmdbd must be up at slurmctld start time"));
        assert_true(acct_start_fault("fatal: load_assoc_mgr_state: Unable to run cache without TRES, please "
                                     "make sure you have a connection to your database to continue."));
        assert_false(acct_start_fault(NULL));
        assert_false(acct_start_fault(""));
        assert_false(acct_start_fault("fatal: Unable to find scheduler plugin sched/nope"));
        assert_false(acct_start_fault("error: we have no TRES from it (an error, not an exit)"));
}

/* A start that failed for want of slurmdbd keeps its hosts out for ACCT_DEFER_S, for those
 * hosts only; taking hosts (acct_store) forgets it. */
static void test_defer(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root, .caps = slurm_caps_find("22.05") };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        static const char *const one[] = { "10.0.0.3:6819", NULL }, *const two[] = { "10.0.0.4:6819", NULL };
        _cleanup_(acct_view_done) struct acct_view v = ACCT_VIEW_INIT, w = ACCT_VIEW_INIT;
        view_of(&v, one);
        view_of(&w, two);
        char *why = NULL;
        assert_int_equal(acct_deferred(&p, &v.hosts, (int64_t) time(NULL), &why), 0);
        assert_null(why);
        assert_int_equal(acct_defer(&p, &v, "fatal: no TRES\nsecond line", &err), 0);
        int64_t now = (int64_t) time(NULL);
        long left = acct_deferred(&p, &v.hosts, now, &why);
        assert_true(left > ACCT_DEFER_S - 5 && left <= ACCT_DEFER_S);
        assert_string_equal(why, "fatal: no TRES");
        free(why);
        why = NULL;
        assert_int_equal(acct_deferred(&p, &w.hosts, now, &why), 0);
        assert_int_equal(acct_deferred(&p, &v.hosts, now + ACCT_DEFER_S + 1, &why), 0);
        /* the watcher follows it from its end: the wait file names the hosts and that time */
        _cleanup_free_ char *wait_path = xasprintf("%s/var/lib/slurm/charm/%s", root, ACCT_WAIT_FILE);
        _cleanup_free_ char *wait = read_text(wait_path);
        _cleanup_free_ char *want = xasprintf("%lld\n10.0.0.3:6819\n", (long long) (now + ACCT_DEFER_S));
        assert_string_equal(wait, want);
        /* the last hosts stored again while the deferred ones wait (acct_read's swap): kept */
        strv_pushv(&w.waiting_hosts, v.hosts.v);
        assert_int_equal(acct_store(&p, &w, &err), 0);
        left = acct_deferred(&p, &v.hosts, now, &why);
        assert_true(left > 0);
        free(why);
        why = NULL;
        /* the hosts taken (nothing waits): forgotten */
        assert_int_equal(acct_store(&p, &v, &err), 0);
        assert_int_equal(acct_deferred(&p, &v.hosts, now, &why), 0);
        assert_null(why);
        /* no reason given: still a deferral ("-") */
        assert_int_equal(acct_defer(&p, &v, NULL, &err), 0);
        assert_true(acct_deferred(&p, &v.hosts, now, &why) > 0);
        assert_string_equal(why, "-");
        free(why);
}

/* A port on 127.0.0.1 that refuses connections (bound, not listening; fd kept open). */
static int refusing_port(unsigned *ret_port) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof a;
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof a), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &len), 0);
        *ret_port = ntohs(a.sin_port);
        return fd;
}

/* A standby (struct acct_standby) takes hosts that do not answer here only when the primary
 * runs with them and the shared state lets it take control without slurmdbd; the primary's
 * ClusterID is then kept. */
static void test_standby(void **state) {
        const char *root = *state;
        const struct charm_paths p = { .root = root, .caps = slurm_caps_find("24.11") },
                                 p22 = { .root = root, .caps = slurm_caps_find("22.05") };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, missing = STRBUF_INIT;
        _cleanup_free_ char *sdir = xasprintf("%s/state", root);
        assert_int_equal(mkdir_p(sdir, 0700), 0);
        unsigned port;
        int fd = refusing_port(&port);
        _cleanup_free_ char *host = xasprintf("127.0.0.1:%u", port);

        /* the primary (no standby view): waits, as before */
        _cleanup_(acct_view_done) struct acct_view a = ACCT_VIEW_INIT;
        strv_push(&a.hosts, host);
        acct_take(&p, NULL, &a);
        assert_int_equal(a.hosts.n, 0);
        assert_int_equal(a.waiting_hosts.n, 1);
        assert_non_null(strstr(a.waiting.buf, "slurmctld cannot start with it until it does; no accounting"));
        assert_null(a.waiting_state);
        assert_false(a.primary_runs);

        /* a standby whose primary does not run with them: waits for either */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        const int64_t since = (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000 - 2000;
        struct acct_standby sb = { .primary = "slurmctld/0", .primary_hosts = NULL, .primary_since_ms = since,
                .state_dir = sdir };
        _cleanup_(acct_view_done) struct acct_view b = ACCT_VIEW_INIT;
        strv_push(&b.hosts, host);
        acct_take(&p, &sb, &b);
        assert_int_equal(b.hosts.n, 0);
        assert_non_null(strstr(b.waiting.buf, "and slurmctld/0 does not run with it yet"));
        assert_null(b.waiting_state);

        /* the primary runs with them, the state lacks what a takeover needs: waits for it */
        sb.primary_hosts = host;
        _cleanup_(acct_view_done) struct acct_view c = ACCT_VIEW_INIT;
        strv_push(&c.hosts, host);
        acct_take(&p, &sb, &c);
        assert_true(c.primary_runs);
        assert_int_equal(c.hosts.n, 0);
        assert_string_equal(c.waiting_state, sdir);
        assert_non_null(strstr(c.waiting.buf, "(last_tres, assoc_mgr_state, the ClusterID in clustername in"));
        /* the wait file carries the state directory for the watcher */
        assert_int_equal(acct_wait_record(&p, &c, &err), 0);
        int64_t until;
        _cleanup_strv_ struct strv hosts = STRV_INIT;
        _cleanup_free_ char *wstate = NULL;
        int64_t wsince;
        assert_true(acct_wait_load(&p, &until, &hosts, &wstate, &wsince));
        assert_int_equal(hosts.n, 1);
        assert_string_equal(hosts.v[0], host);
        assert_string_equal(wstate, sdir);
        assert_int_equal(wsince, since);

        /* the state there, but last_tres a link (SlurmUser's directory): not ready */
        _cleanup_free_ char *tres = xasprintf("%s/last_tres", sdir), *assoc = xasprintf("%s/assoc_mgr_state", sdir),
                            *name = xasprintf("%s/clustername", sdir), *elsewhere = xasprintf("%s/x", root);
        put(elsewhere, "tres", 0600);
        assert_int_equal(symlink(elsewhere, tres), 0);
        /* a bare header (a slurmctld without accounting: no users, no associations) */
        put(assoc, "assoc-header-20bytes", 0600);
        put(name, "cluster-x", 0644);
        assert_false(acct_state_ready(&p, sdir, since, &missing));
        assert_string_equal(missing.buf, "last_tres, assoc_mgr_state, the ClusterID in clustername");
        static const char users[] = "assoc_mgr_state with users and associations from slurmdbd, "
                                    "well past its header";
        put(assoc, users, 0600);
        /* 22.05 keeps no ClusterID there */
        assert_int_equal(unlink(tres), 0);
        put(tres, "tres", 0600);
        assert_true(acct_state_ready(&p22, sdir, since, NULL));
        assert_false(acct_state_ready(&p, sdir, since, NULL));
        put(name, "cluster-x|0", 0644);
        assert_false(acct_state_ready(&p, sdir, since, NULL));
        put(name, "cluster-x|4711", 0644);
        assert_true(acct_state_ready(&p, sdir, since, NULL));
        assert_false(acct_state_ready(&p, NULL, since, NULL));
        /* saved before the primary took slurmdbd (its run without accounting: header only),
         * or that time unknown: not ready */
        assert_false(acct_state_ready(&p, sdir, since + 60 * 1000, &missing));
        strbuf_reset(&missing);
        assert_false(acct_state_ready(&p, sdir, 0, &missing));
        assert_string_equal(missing.buf, "the time the primary took slurmdbd (not published)");
        /* the bare header again, saved after the time (a standby in charge without accounting
         * saved it): not ready */
        put(assoc, "assoc-header-20bytes", 0600);
        assert_false(acct_state_ready(&p, sdir, since, NULL));
        put(assoc, users, 0600);
        assert_true(acct_state_ready(&p, sdir, since, NULL));
        sb.primary_since_ms = since + 60 * 1000;
        _cleanup_(acct_view_done) struct acct_view old = ACCT_VIEW_INIT;
        strv_push(&old.hosts, host);
        acct_take(&p, &sb, &old);
        assert_int_equal(old.hosts.n, 0);
        assert_non_null(strstr(old.waiting.buf, "saved since it took slurmdbd"));
        sb.primary_since_ms = since;

        /* ready: taken although it does not answer, and the primary's ClusterID stays */
        _cleanup_(acct_view_done) struct acct_view d = ACCT_VIEW_INIT;
        strv_push(&d.hosts, host);
        acct_take(&p, &sb, &d);
        assert_int_equal(d.hosts.n, 1);
        assert_int_equal(d.waiting_hosts.n, 0);
        assert_int_equal(d.waiting.len, 0);
        assert_int_equal(acct_cluster_id_release(&p, &d, sdir, &err), 0);
        _cleanup_free_ char *kept = read_text(name);
        assert_string_equal(kept, "cluster-x|4711");
        /* stored: what this unit publishes for the standbys, and since when */
        assert_int_equal(acct_taken_since(&p), 0);
        assert_int_equal(acct_store(&p, &d, &err), 0);
        _cleanup_free_ char *joined = acct_taken_joined(&p);
        assert_string_equal(joined, host);
        int64_t taken = acct_taken_since(&p);
        assert_true(taken >= since);
        /* stored again: the time stays */
        assert_int_equal(acct_store(&p, &d, &err), 0);
        assert_int_equal(acct_taken_since(&p), taken);
        /* none: forgotten */
        _cleanup_(acct_view_done) struct acct_view none = ACCT_VIEW_INIT;
        assert_int_equal(acct_store(&p, &none, &err), 0);
        assert_int_equal(acct_taken_since(&p), 0);
        assert_int_equal(acct_store(&p, &d, &err), 0);
        /* a primary with other hosts: the new ones wait again */
        sb.primary_hosts = "10.9.9.9:6819";
        _cleanup_(acct_view_done) struct acct_view e = ACCT_VIEW_INIT;
        strv_pushf(&e.hosts, "127.0.0.1:%u", port);
        strv_push(&e.hosts, "127.0.0.1:1");
        acct_take(&p, &sb, &e);
        assert_false(e.primary_runs);
        assert_int_equal(e.hosts.n, 1); /* the last taken stay */
        assert_string_equal(e.hosts.v[0], host);
        assert_non_null(strstr(e.waiting.buf, "the slurmdbd hosts taken before stay"));
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_defer, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_start_fault),
                cmocka_unit_test_setup_teardown(test_standby, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_release_24_11, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(
                        test_release_22_05_never, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
