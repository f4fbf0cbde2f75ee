/* SPDX-License-Identifier: Apache-2.0 */
/* lib/slurm/sackguard: the bookkeeping and the verdict, and the thread cutting a wait on a socket
 * that accepted into its backlog and never answers: a stopped daemon's sack socket (a SIGSTOPped
 * child listens) after the limit, in this process and in a forked child; a daemon that runs (this
 * process listens) only after the wedged limit; a socket of another path never. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/macro.h"
#include "slurm/sackguard.h"

static void test_track(void **state) {
        struct sack_track t = { .n = 0 };
        size_t due[SACK_TRACK_MAX];
        struct sack_seen a = { .fd = 5, .dev = 1, .ino = 100 }, b = { .fd = 6, .dev = 1, .ino = 200 };
        struct sack_seen now[2] = { a, b };
        assert_int_equal(sack_track_step(&t, now, 2, 1000, 500, due), 0);
        assert_int_equal(t.n, 2);
        assert_int_equal(sack_track_step(&t, now, 2, 1499, 500, due), 0);
        /* both due at the limit, kept with their first time */
        assert_int_equal(sack_track_step(&t, now, 2, 1500, 500, due), 2);
        assert_int_equal(due[0], 0);
        assert_int_equal(due[1], 1);
        assert_int_equal(t.v[0].since_ms, 1000);
        /* fd 5 now another socket: it starts again; fd 6 gone: dropped */
        struct sack_seen c = { .fd = 5, .dev = 1, .ino = 300 };
        assert_int_equal(sack_track_step(&t, &c, 1, 1600, 500, due), 0);
        assert_int_equal(t.n, 1);
        assert_int_equal(t.v[0].since_ms, 1600);
        assert_int_equal(sack_track_step(&t, &c, 1, 2100, 500, due), 1);
        assert_int_equal(due[0], 0);
        /* nothing open: nothing kept */
        assert_int_equal(sack_track_step(&t, NULL, 0, 2200, 500, due), 0);
        assert_int_equal(t.n, 0);
}

static void test_cut_due(void **state) {
        /* stopped (T, or t under a debugger): the limit, the short one soon after a cut */
        assert_false(sack_cut_due('T', 14999, false, 15000, 1500, 120000));
        assert_true(sack_cut_due('T', 15000, false, 15000, 1500, 120000));
        assert_true(sack_cut_due('t', 1500, true, 15000, 1500, 120000));
        assert_false(sack_cut_due('T', 1499, true, 15000, 1500, 120000));
        /* unknown (the daemon not found): as stopped, the guard's first rule */
        assert_false(sack_cut_due('?', 14999, false, 15000, 1500, 120000));
        assert_true(sack_cut_due('?', 15000, false, 15000, 1500, 120000));
        assert_true(sack_cut_due('?', 1500, true, 15000, 1500, 120000));
        /* running, sleeping, in the disk: only the wedged limit, a cut before or not */
        const char run[] = { 'R', 'S', 'D', 'Z' };
        for (size_t i = 0; i < ELEMENTSOF(run); i++) {
                assert_false(sack_cut_due(run[i], 15000, false, 15000, 1500, 120000));
                assert_false(sack_cut_due(run[i], 119999, true, 15000, 1500, 120000));
                assert_true(sack_cut_due(run[i], 120000, false, 15000, 1500, 120000));
        }
}

static char dir[64], sack_path[108], live_path[108], other_path[108], reexec_path[108];

static int listener(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof sa), 0);
        assert_int_equal(listen(fd, 8), 0); /* never accepted: a stopped daemon */
        return fd;
}

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* connects to path, writes a request and waits (at most wait_ms) for the end: the ms it took,
 * or -1 when nothing came */
static int64_t ask(const char *path, int wait_ms) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &sa, sizeof sa), 0);
        assert_int_equal(write(fd, "req", 3), 3);
        int64_t t0 = now_ms();
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int n = poll(&p, 1, wait_ms);
        int64_t took = now_ms() - t0;
        char c;
        if (n == 1)
                assert_int_equal(read(fd, &c, 1), 0); /* the end, as sack_create's read sees it */
        close(fd);
        return n == 1 ? took : -1;
}

static const char *paths[3];
/* the third path's daemon is found by name: its listener re-executed (a new pid) */
static const char *const daemons[3][3] = { { NULL }, { NULL }, { "sg-daemon", NULL, NULL } };

static int setup(void **state) {
        snprintf(dir, sizeof dir, "/tmp/test-sackguard.XXXXXX");
        assert_non_null(mkdtemp(dir));
        snprintf(sack_path, sizeof sack_path, "%s/sack.socket", dir);
        snprintf(live_path, sizeof live_path, "%s/live.socket", dir);
        snprintf(other_path, sizeof other_path, "%s/other.socket", dir);
        snprintf(reexec_path, sizeof reexec_path, "%s/reexec.socket", dir);
        paths[0] = sack_path;
        paths[1] = live_path;
        paths[2] = reexec_path;
        return 0;
}

/* the test's daemons: killed by the teardown also when an assertion ended the test early */
static pid_t kids[4];

static int teardown(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(kids); i++)
                if (kids[i] > 0) {
                        kill(kids[i], SIGKILL);
                        (void) waitpid(kids[i], NULL, 0);
                        kids[i] = 0;
                }
        unlink(sack_path);
        unlink(live_path);
        unlink(reexec_path);
        unlink(other_path);
        rmdir(dir);
        return 0;
}

static void test_cut(void **state) {
        /* an heir whose parent ends is this process's to reap (no zombie left to pid 1) */
        assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        /* the stopped daemon: a child that listens, then stops itself */
        pid_t daemon = fork();
        assert_true(daemon >= 0);
        if (daemon == 0) {
                (void) listener(sack_path);
                raise(SIGSTOP);
                for (;;)
                        pause();
        }
        kids[0] = daemon;
        int st;
        assert_int_equal(waitpid(daemon, &st, WUNTRACED), daemon);
        assert_true(WIFSTOPPED(st));
        int ll = listener(live_path), lo = listener(other_path);
        const struct sack_guard_opts o = { .paths = paths, .daemons = daemons, .n_paths = 3, .tick_ms = 50,
                .limit_ms = 600, .again_ms = 150, .again_for_ms = 1500, .wedged_ms = 2500 };
        assert_int_equal(sack_guard_start(&o), 0);
        assert_int_equal(sack_guard_start(&o), 0); /* once per process */
        assert_int_equal(sack_guard_cuts(), 0);
        /* another path's silent socket: never cut */
        assert_int_equal(ask(other_path, 1000), -1);
        assert_int_equal(sack_guard_cuts(), 0);
        /* the first wait: cut at the limit, not before */
        int64_t first = ask(sack_path, 10000);
        assert_true(first >= 600 - 50);
        assert_int_equal(sack_guard_cuts(), 1);
        /* the next: after the short limit */
        int64_t again = ask(sack_path, 10000);
        assert_true(again >= 150 - 50);
        assert_int_equal(sack_guard_cuts(), 2);
        /* past again_for_ms after the last cut: the full limit again (a daemon process) */
        usleep(1600 * 1000);
        int64_t later = ask(sack_path, 10000);
        assert_true(later >= 600 - 50);
        assert_int_equal(sack_guard_cuts(), 3);
        /* a forked child (no thread of its own until it starts one): cut there too */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int ok = sack_guard_start(&o) == 0 && sack_guard_cuts() == 0 && ask(sack_path, 10000) >= 0 &&
                        sack_guard_cuts() == 1;
                _exit(ok ? 0 : 1);
        }
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        /* a daemon that runs (this process listens): left past the limit, even soon after a cut,
         * and cut at the wedged limit */
        unsigned before = sack_guard_cuts();
        assert_int_equal(ask(live_path, 1200), -1);
        assert_int_equal(sack_guard_cuts(), before);
        int64_t wedged = ask(live_path, 10000);
        assert_true(wedged >= 2500 - 50);
        assert_int_equal(sack_guard_cuts(), before + 1);
        /* a daemon that re-executed (24.11's reconfigure keeps the listening socket, the new
         * process has another pid): the listener forks its heir, named as the daemon, and ends;
         * the peer pid is gone, the heir found by name. Running: left past the limit; stopped:
         * cut at the limit (well past the short window of the cuts above) */
        usleep(1600 * 1000);
        int pp[2];
        assert_int_equal(pipe(pp), 0);
        pid_t lst = fork();
        assert_true(lst >= 0);
        if (lst == 0) {
                (void) listener(reexec_path);
                pid_t heir = fork();
                if (heir == 0) {
                        prctl(PR_SET_NAME, "sg-daemon");
                        for (;;)
                                pause();
                }
                (void) !write(pp[1], &heir, sizeof heir);
                _exit(0);
        }
        pid_t heir = 0;
        assert_int_equal(read(pp[0], &heir, sizeof heir), (ssize_t) sizeof heir);
        assert_true(heir > 0);
        kids[1] = heir;
        assert_int_equal(waitpid(lst, &st, 0), lst);
        close(pp[0]);
        close(pp[1]);
        before = sack_guard_cuts();
        assert_int_equal(ask(reexec_path, 1200), -1);
        assert_int_equal(sack_guard_cuts(), before);
        kill(heir, SIGSTOP);
        int64_t heir_cut = ask(reexec_path, 10000);
        if (heir_cut < 600 - 50 || heir_cut >= 2500)
                print_message("re-executed, stopped: cut after %lld ms\n", (long long) heir_cut);
        assert_true(heir_cut >= 600 - 50 && heir_cut < 2500);
        assert_int_equal(sack_guard_cuts(), before + 1);
        kill(heir, SIGKILL);
        assert_int_equal(waitpid(heir, &st, 0), heir); /* ours: this process is their subreaper */
        kids[1] = 0;
        print_message("stopped daemon: first wait cut after %lld ms, the next after %lld ms, one after the "
                      "window %lld ms; running daemon: cut after %lld ms; re-executed, stopped: %lld ms\n",
                (long long) first, (long long) again, (long long) later, (long long) wedged,
                (long long) heir_cut);
        kill(daemon, SIGKILL);
        assert_int_equal(waitpid(daemon, &st, 0), daemon);
        kids[0] = 0;
        close(ll);
        close(lo);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_track),
                cmocka_unit_test(test_cut_due),
                cmocka_unit_test_setup_teardown(test_cut, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
