/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/proc: exit codes, signals, exec errors, large stdin/stdout/stderr,
 * environment, cwd, timeout, fd and signal hygiene of the child, SIGPIPE safety. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "proc/proc.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "util/banned.h"

static int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sh(struct proc *p, const char *script) {
        strv_pushl(&p->argv, "/bin/sh", "-c", script, NULL);
}

static void test_exit_codes(void **state) {
        const int codes[] = { 0, 1, 2, 42, 127, 255 };
        for (size_t i = 0; i < ELEMENTSOF(codes); i++) {
                _cleanup_proc_ struct proc p = PROC_INIT;
                _cleanup_free_ char *s = xasprintf("exit %d", codes[i]);
                sh(&p, s);
                assert_int_equal(proc_run(&p), codes[i]);
        }
}

static void test_signal(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        sh(&p, "kill -TERM $$");
        assert_int_equal(proc_run(&p), 128 + SIGTERM);

        _cleanup_proc_ struct proc q = PROC_INIT;
        sh(&q, "kill -KILL $$");
        assert_int_equal(proc_run(&q), 128 + SIGKILL);
}

/* A pidfd names its process: a signal through it reaches that one, and none once it ended
 * (its pid may be another process's by then). */
static void test_pidfd(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        sh(&p, "sleep 30");
        pid_t pid = 0;
        assert_int_equal(proc_run_background(&p, &pid), 0);
        int fd = proc_pidfd_open(pid);
        assert_true(fd >= 0);
        assert_int_equal(proc_pidfd_kill(fd, 0), 0);
        assert_int_equal(proc_pidfd_kill(fd, SIGKILL), 0);
        int status = 0, r = 0;
        for (int i = 0; i < 500 && (r = proc_reap(pid, &status)) == 0; i++)
                usleep(10000);
        assert_int_equal(r, 1);
        assert_int_equal(proc_pidfd_kill(fd, SIGKILL), -ESRCH);
        close(fd);
        assert_int_equal(proc_pidfd_open(0x3fffffff), -ESRCH);
}

static void test_exec_errors(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_push(&p.argv, "no-such-program-h3-xyz");
        assert_int_equal(proc_run(&p), -ENOENT);

        _cleanup_proc_ struct proc q = PROC_INIT;
        strv_push(&q.argv, "/nonexistent/dir/prog");
        assert_int_equal(proc_run(&q), -ENOENT);

        /* not executable: EACCES, distinct from a program that ran and exited 126/127 */
        _cleanup_proc_ struct proc e = PROC_INIT;
        strv_push(&e.argv, "/etc/passwd");
        assert_int_equal(proc_run(&e), -EACCES);

        _cleanup_proc_ struct proc x = PROC_INIT;
        sh(&x, "exit 127");
        assert_int_equal(proc_run(&x), 127);

        _cleanup_proc_ struct proc c = PROC_INIT;
        strv_push(&c.argv, "true");
        c.cwd = "/nonexistent-h3-dir";
        assert_int_equal(proc_run(&c), -ENOENT);

        _cleanup_proc_ struct proc z = PROC_INIT;
        assert_int_equal(proc_run(&z), -EINVAL);
}

static void test_capture(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        sh(&p, "printf 'out\\n'; printf 'ERROR bad thing\\n' >&2; exit 1");
        p.capture_out = p.capture_err = true;
        assert_int_equal(proc_run(&p), 1);
        assert_string_equal(p.out.buf, "out\n");
        assert_string_equal(p.err.buf, "ERROR bad thing\n");

        /* argv is passed as is: no shell ever sees it */
        _cleanup_proc_ struct proc q = PROC_INIT;
        strv_pushl(&q.argv, "printf", "%s|", "a b", "$HOME", "'\"", "; rm -rf /", NULL);
        q.capture_out = true;
        assert_int_equal(proc_run(&q), 0);
        assert_string_equal(q.out.buf, "a b|$HOME|'\"|; rm -rf /|");

        /* running again empties the buffers */
        assert_int_equal(proc_run(&q), 0);
        assert_string_equal(q.out.buf, "a b|$HOME|'\"|; rm -rf /|");
}

static void fill_pattern(char *buf, size_t n) {
        uint32_t x = 2463534242u;
        for (size_t i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                buf[i] = (char) (x & 0xff);
        }
}

static void test_stdin_roundtrip(void **state) {
        const size_t n = 6 * 1024 * 1024 + 123;
        _cleanup_free_ char *buf = xmalloc(n);
        fill_pattern(buf, n);

        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_push(&p.argv, "cat");
        p.in = buf;
        p.in_len = n;
        p.capture_out = true;
        p.capture_err = true;
        assert_int_equal(proc_run(&p), 0);
        assert_int_equal(p.out.len, n);
        assert_memory_equal(p.out.buf, buf, n);
        assert_int_equal(p.err.len, 0);

        /* empty stdin (not NULL) gives EOF at once */
        _cleanup_proc_ struct proc e = PROC_INIT;
        strv_push(&e.argv, "cat");
        e.in = "";
        e.in_len = 0;
        e.capture_out = true;
        assert_int_equal(proc_run(&e), 0);
        assert_int_equal(e.out.len, 0);

        /* NULL stdin is /dev/null */
        _cleanup_proc_ struct proc d = PROC_INIT;
        sh(&d, "readlink /proc/self/fd/0");
        d.capture_out = true;
        assert_int_equal(proc_run(&d), 0);
        assert_string_equal(d.out.buf, "/dev/null\n");
}

static void test_big_stdout_and_stderr(void **state) {
        /* stderr is filled first: without polling both pipes this deadlocks */
        _cleanup_proc_ struct proc p = PROC_INIT;
        sh(&p, "head -c 3000000 /dev/zero >&2; head -c 5000000 /dev/zero; head -c 1000000 /dev/zero >&2");
        p.capture_out = p.capture_err = true;
        p.timeout_ms = 60000;
        assert_int_equal(proc_run(&p), 0);
        assert_int_equal(p.out.len, 5000000);
        assert_int_equal(p.err.len, 4000000);

        /* stdin, stdout and stderr all big at once */
        const size_t n = 4 * 1024 * 1024;
        _cleanup_free_ char *buf = xmalloc(n);
        fill_pattern(buf, n);
        _cleanup_proc_ struct proc q = PROC_INIT;
        sh(&q, "head -c 2000000 /dev/zero >&2; cat; head -c 2000000 /dev/zero >&2");
        q.in = buf;
        q.in_len = n;
        q.capture_out = q.capture_err = true;
        q.timeout_ms = 60000;
        assert_int_equal(proc_run(&q), 0);
        assert_int_equal(q.out.len, n);
        assert_memory_equal(q.out.buf, buf, n);
        assert_int_equal(q.err.len, 4000000);
}

static void test_sigpipe(void **state) {
        /* the child exits without reading 8 MiB of stdin: we get EPIPE, never SIGPIPE */
        const size_t n = 8 * 1024 * 1024;
        _cleanup_free_ char *buf = xcalloc(1, n);
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_push(&p.argv, "true");
        p.in = buf;
        p.in_len = n;
        assert_int_equal(proc_run(&p), 0);

        _cleanup_proc_ struct proc q = PROC_INIT;
        strv_pushl(&q.argv, "head", "-c", "10", NULL);
        q.in = buf;
        q.in_len = n;
        q.capture_out = true;
        assert_int_equal(proc_run(&q), 0);
        assert_int_equal(q.out.len, 10);

        /* and no SIGPIPE is left pending for us */
        sigset_t pending;
        sigpending(&pending);
        assert_false(sigismember(&pending, SIGPIPE));
}

static void test_env(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_push(&p.argv, "env");
        strv_pushl(&p.env, "FOO=bar baz", "PATH=/usr/bin:/bin", "EMPTY=", NULL);
        p.env_set = true;
        p.capture_out = true;
        assert_int_equal(proc_run(&p), 0);
        assert_string_equal(p.out.buf, "FOO=bar baz\nPATH=/usr/bin:/bin\nEMPTY=\n");

        /* PATH lookup uses the child's PATH */
        char dir[] = "/tmp/test-proc-XXXXXX";
        assert_non_null(mkdtemp(dir));
        _cleanup_free_ char *script = xasprintf("%s/h3-hello", dir);
        FILE *f = fopen(script, "we");
        assert_non_null(f);
        fputs("#!/bin/sh\necho hello \"$1\"\n", f);
        fclose(f);
        chmod(script, 0755);

        _cleanup_proc_ struct proc q = PROC_INIT;
        strv_pushl(&q.argv, "h3-hello", "world", NULL);
        strv_pushf(&q.env, "PATH=/nonexistent:%s:/usr/bin:/bin", dir);
        q.env_set = true;
        q.capture_out = true;
        int r = proc_run(&q);

        _cleanup_proc_ struct proc nopath = PROC_INIT;
        strv_push(&nopath.argv, "h3-hello");
        nopath.env_set = true; /* no PATH at all: the default, which lacks dir */
        int r2 = proc_run(&nopath);

        unlink(script);
        rmdir(dir);
        assert_int_equal(r, 0);
        assert_string_equal(q.out.buf, "hello world\n");
        assert_int_equal(r2, -ENOENT);
}

static void test_cwd(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_push(&p.argv, "pwd");
        p.cwd = "/usr/share";
        p.capture_out = true;
        assert_int_equal(proc_run(&p), 0);
        assert_string_equal(p.out.buf, "/usr/share\n");
}

static void test_timeout(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_pushl(&p.argv, "sleep", "30", NULL);
        p.timeout_ms = 200;
        int64_t t0 = mono_ms();
        assert_int_equal(proc_run(&p), -ETIME);
        int64_t dt = mono_ms() - t0;
        assert_true(dt >= 190 && dt < 5000);

        /* while still producing output */
        _cleanup_proc_ struct proc q = PROC_INIT;
        sh(&q, "while :; do echo x; sleep 0.01; done");
        q.capture_out = true;
        q.timeout_ms = 300;
        t0 = mono_ms();
        assert_int_equal(proc_run(&q), -ETIME);
        assert_true(mono_ms() - t0 < 5000);

        /* a quick child is not hurt by a timeout */
        _cleanup_proc_ struct proc r = PROC_INIT;
        sh(&r, "exit 3");
        r.timeout_ms = 10000;
        assert_int_equal(proc_run(&r), 3);
}

/* started without waiting: the caller goes on at once, reaps the status later; a timeout
 * still bounds the program; a missing program ends as 127 */
static void *named_thread(void *arg) {
        pthread_setname_np(pthread_self(), "sched_agent");
        int *go = arg;
        while (!__atomic_load_n(go, __ATOMIC_SEQ_CST)) {
                struct timespec ts = { 0, 1000 * 1000 };
                nanosleep(&ts, NULL);
        }
        return NULL;
}

/* A thread found by its name (slurmctld's main scheduler, charm/slurmctld/slurmctld.c), not another's. */
static void test_thread_named(void **state) {
        assert_int_equal(proc_thread_named(getpid(), "sched_agent"), 0);
        int go = 0;
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, named_thread, &go), 0);
        int found = 0;
        for (int i = 0; i < 2000 && !found; i++) { /* the thread names itself */
                found = proc_thread_named(getpid(), "sched_agent");
                if (!found) {
                        struct timespec ts = { 0, 1000 * 1000 };
                        nanosleep(&ts, NULL);
                }
        }
        assert_int_equal(found, 1);
        assert_int_equal(proc_thread_named(getpid(), "sched_agen"), 0); /* whole names only */
        __atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(proc_thread_named(getpid(), "sched_agent"), 0);
        assert_int_equal(proc_thread_named(0x3fffffff, "x"), -ENOENT);
}

static void test_background(void **state) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        pid_t pid = 0;
        int status = -1;
        sh(&p, "sleep 0.3; exit 5");
        int64_t t0 = mono_ms();
        assert_int_equal(proc_run_background(&p, &pid), 0);
        assert_true(mono_ms() - t0 < 200);
        assert_int_equal(proc_reap(pid, &status), 0);
        for (int i = 0; i < 100 && proc_reap(pid, &status) == 0; i++)
                usleep(50 * 1000);
        assert_int_equal(status, 5);
        assert_int_equal(proc_reap(pid, NULL), -ECHILD);

        _cleanup_proc_ struct proc q = PROC_INIT;
        strv_pushl(&q.argv, "sleep", "30", NULL);
        q.timeout_ms = 200;
        t0 = mono_ms();
        assert_int_equal(proc_run_background(&q, &pid), 0);
        int ended = 0;
        for (int i = 0; i < 100 && (ended = proc_reap(pid, &status)) == 0; i++)
                usleep(50 * 1000);
        assert_int_equal(ended, 1);
        assert_int_equal(status, 127); /* -ETIME: killed, proc_run's "could not run" */
        assert_true(mono_ms() - t0 < 5000);

        _cleanup_proc_ struct proc m = PROC_INIT;
        strv_pushl(&m.argv, "/nonexistent/program", NULL);
        assert_int_equal(proc_run_background(&m, &pid), 0);
        for (int i = 0; i < 100 && (ended = proc_reap(pid, &status)) == 0; i++)
                usleep(50 * 1000);
        assert_int_equal(status, 127);
}

static void test_fd_and_signal_hygiene(void **state) {
        /* an inheritable fd of ours must not reach the child */
        int fd = open("/dev/null", O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(dup2(fd, 77), 77);
        close(fd);

        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGUSR1);
        sigprocmask(SIG_BLOCK, &block, &old);
        struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_usr2;
        sigaction(SIGINT, &ign, &old_int);
        sigaction(SIGUSR2, &ign, &old_usr2);

        /* exec'd directly (no shell, which may block signals of its own while it waits) */
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_pushl(&p.argv, "grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status", NULL);
        p.capture_out = p.capture_err = true;
        int r = proc_run(&p);
        _cleanup_proc_ struct proc q = PROC_INIT;
        strv_pushl(&q.argv, "ls", "-1", "/proc/self/fd", NULL);
        q.capture_out = q.capture_err = true;
        int r2 = proc_run(&q);

        sigprocmask(SIG_SETMASK, &old, NULL);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGUSR2, &old_usr2, NULL);
        close(77);

        assert_int_equal(r, 0);
        assert_int_equal(r2, 0);
        /* ls has 0, 1, 2 and the directory it reads (3); nothing of ours */
        assert_string_equal(q.out.buf, "0\n1\n2\n3\n");
        assert_non_null(strstr(p.out.buf, "SigBlk:\t0000000000000000\n"));
        assert_non_null(strstr(p.out.buf, "SigIgn:\t0000000000000000\n"));
}

/* --- proc_call_as ------------------------------------------------------------------------------ */

static int who_am_i(void *userdata, struct strbuf *out) {
        strbuf_addf(out, "uid=%u gid=%u groups=%d", (unsigned) geteuid(), (unsigned) getegid(),
                getgroups(0, NULL));
        return (int) geteuid();
}

static int fails(void *userdata, struct strbuf *out) {
        strbuf_addstr(out, "no such thing");
        return -ENOENT;
}

static int dies(void *userdata, struct strbuf *out) {
        _exit(3);
}

static _noreturn_ int hangs(void *userdata, struct strbuf *out) {
        for (;;)
                pause();
}

static int chatty(void *userdata, struct strbuf *out) {
        for (int i = 0; i < 2 * PROC_CALL_OUT_MAX; i++)
                strbuf_addch(out, 'x');
        return 7;
}

static void test_call_as(void **state) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        uid_t uid = geteuid();

        /* as oneself: no change is needed and fn's return and text come back */
        assert_int_equal(proc_call_as(uid, getegid(), 5000, who_am_i, NULL, &out), (int) uid);
        assert_non_null(strstr(out.buf, "uid="));
        assert_int_equal(proc_call_as(uid, getegid(), 5000, fails, NULL, &out), -ENOENT);
        assert_string_equal(out.buf, "no such thing");
        /* a child that dies without an answer, one that hangs past the timeout */
        assert_int_equal(proc_call_as(uid, getegid(), 5000, dies, NULL, &out), -ECHILD);
        int64_t t0 = mono_ms();
        assert_int_equal(proc_call_as(uid, getegid(), 200, hangs, NULL, &out), -ETIME);
        assert_true(mono_ms() - t0 < 3000);
        /* the answer is bounded */
        assert_int_equal(proc_call_as(uid, getegid(), 5000, chatty, NULL, &out), 7);
        assert_int_equal(out.len, PROC_CALL_OUT_MAX);
        assert_int_equal(proc_call_as(uid, getegid(), 5000, NULL, NULL, &out), -EINVAL);

        if (uid != 0)
                return; /* becoming another user needs root */
        /* root becomes nobody (65534) for the call, with that group alone, and stays root */
        assert_int_equal(proc_call_as(65534, 65534, 5000, who_am_i, NULL, &out), 65534);
        assert_string_equal(out.buf, "uid=65534 gid=65534 groups=1");
        assert_int_equal(geteuid(), 0);
}

static int big(void *userdata, struct strbuf *out) {
        size_t n = *(size_t *) userdata;
        for (size_t i = 0; i < n; i++)
                strbuf_addch(out, (char) ('a' + i % 26));
        return (int) getpid();
}

/* proc_call_max: an answer many times a pipe's size comes back whole, the cap cuts it, and
 * PROC_CALL_SAME_USER runs fn in a child of the same user (the metrics exporter's scrape) */
static void test_call_max(void **state) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        size_t n = (size_t) 3 * 1024 * 1024;
        int r = proc_call_max(PROC_CALL_SAME_USER, 0, 10000, (size_t) 8 * 1024 * 1024, big, &n, &out);
        assert_true(r > 0);
        assert_int_not_equal(r, (int) getpid());
        assert_int_equal(out.len, n);
        assert_int_equal(out.buf[n - 1], 'a' + (n - 1) % 26);
        r = proc_call_max(PROC_CALL_SAME_USER, 0, 10000, 100000, big, &n, &out);
        assert_true(r > 0);
        assert_int_equal(out.len, 100000);
        assert_int_equal(proc_call_max(PROC_CALL_SAME_USER, 0, 200, 1000, hangs, NULL, &out), -ETIME);
        assert_int_equal(proc_call_max(PROC_CALL_SAME_USER, 0, 5000, 1000, who_am_i, NULL, &out), (int) geteuid());
}

/* proc_pid_parent and proc_pid_program (what lib/systemd/strays.c reads of a process) */
static void test_pid_parent_program(void **state) {
        pid_t pp = 0;
        assert_int_equal(proc_pid_parent(getpid(), &pp), 0);
        assert_int_equal(pp, getppid());
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        assert_true(n > 0);
        self[n] = '\0';
        _cleanup_free_ char *prog = proc_pid_program(getpid());
        assert_non_null(prog);
        assert_string_equal(prog, self);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
                _exit(0);
        assert_int_equal(waitpid(child, NULL, 0), child);
        /* reaped: gone */
        assert_int_equal(proc_pid_parent(child, &pp), -ESRCH);
        assert_null(proc_pid_program(child));
}

/* proc_pid_started: this process started before the test and not long before; a child forked
 * 1.2 s later started after it, within a tick of its fork, and 2.2 s later still reads that
 * time (an implementation that said "now" fails here); a reaped one is gone */
static int64_t real_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_pid_started(void **state) {
        int64_t self = 0, kid = 0, t0 = real_ms();
        assert_int_equal(proc_pid_started(getpid(), &self), 0);
        assert_true(self <= t0 + 50 && self > t0 - 600 * 1000);
        usleep(1200 * 1000);
        int pp[2];
        assert_int_equal(pipe(pp), 0);
        int64_t forked = real_ms();
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                char c;
                close(pp[1]);
                (void) !read(pp[0], &c, 1);
                _exit(0);
        }
        close(pp[0]);
        assert_int_equal(proc_pid_started(child, &kid), 0);
        assert_true(kid >= forked - 50 && kid <= real_ms() + 50);
        assert_true(kid >= self + 1000);
        usleep(2200 * 1000);
        int64_t again = 0;
        assert_int_equal(proc_pid_started(child, &again), 0);
        assert_true(again >= forked - 50 && again <= forked + 500);
        assert_true(again <= real_ms() - 2000);
        close(pp[1]);
        assert_int_equal(waitpid(child, NULL, 0), child);
        assert_int_equal(proc_pid_started(child, &kid), -ESRCH);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_exit_codes),
                cmocka_unit_test(test_background),
                cmocka_unit_test(test_thread_named),
                cmocka_unit_test(test_signal),
                cmocka_unit_test(test_pidfd),
                cmocka_unit_test(test_exec_errors),
                cmocka_unit_test(test_capture),
                cmocka_unit_test(test_stdin_roundtrip),
                cmocka_unit_test(test_big_stdout_and_stderr),
                cmocka_unit_test(test_sigpipe),
                cmocka_unit_test(test_env),
                cmocka_unit_test(test_cwd),
                cmocka_unit_test(test_timeout),
                cmocka_unit_test(test_fd_and_signal_hygiene),
                cmocka_unit_test(test_call_as),
                cmocka_unit_test(test_call_max),
                cmocka_unit_test(test_pid_parent_program),
                cmocka_unit_test(test_pid_started),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
