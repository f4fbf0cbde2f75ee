/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/eventspool: records written durably with the trigger's kind and
 * argument, read oldest first, odd files refused, the spool's bound, the doorbell, fd 0-2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/eventspool.h"
#include "util/fileio.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util/banned.h"

static char *tmpdir(void) {
        char tmpl[] = "/tmp/test-eventspool.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        return xstrdup(tmpl);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void test_parse(void **state) {
        int64_t ms;
        char *kind, *arg;
        const char ok[] = "slurm-charm-node-event 1\n1700000000123456789\ndown\ncompute-[0-3]\n";
        assert_int_equal(evspool_parse(ok, strlen(ok), &ms, &kind, &arg), 0);
        assert_int_equal(ms, 1700000000123LL);
        assert_string_equal(kind, "down");
        assert_string_equal(arg, "compute-[0-3]");
        free(kind);
        free(arg);
        const char *bad[] = {
                "", "slurm-charm-node-event 1\n1\ndown\n",                   /* a line missing */
                "slurm-charm-node-event 2\n1\ndown\nx\n",                    /* another format */
                "slurm-charm-node-event 1\n1x\ndown\nx\n",                   /* not a number */
                "slurm-charm-node-event 1\n1\n\nx\n",                        /* no kind */
                "slurm-charm-node-event 1\n1\ndown\nx\nmore\n",              /* trailing lines */
                "slurm-charm-node-event 1\n1\ndown\nx",                      /* no final newline */
                "slurm-charm-node-event 1\n12345678901234567890\ndown\nx\n", /* too long */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(evspool_parse(bad[i], strlen(bad[i]), &ms, &kind, &arg), -EBADMSG);
}

static void test_write_read_remove(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        struct evspool_list l;
        assert_int_equal(evspool_write(dir, "up", "n1", 2000000000LL), 0);
        assert_int_equal(evspool_write(dir, "down", "n[1-2]", 1000000000LL), 0);
        assert_int_equal(evspool_write(dir, "reconfig", "reconfig", 3000000000LL), 0);
        assert_int_equal(evspool_write(dir, "bad\nkind", "x", 1), -EINVAL);
        assert_int_equal(evspool_write(dir, "down", "two\nlines", 1), -EINVAL);
        /* odd things in the spool: a directory, a symlink, garbage; and a temporary */
        _cleanup_free_ char *sub = xasprintf("%s/ev-00000000000000000005-1", dir);
        _cleanup_free_ char *lnk = xasprintf("%s/ev-00000000000000000006-1", dir);
        _cleanup_free_ char *junk = xasprintf("%s/ev-00000000000000000007-1", dir);
        _cleanup_free_ char *tmp = xasprintf("%s/.tmp-1-1", dir);
        assert_int_equal(mkdir(sub, 0700), 0);
        assert_int_equal(symlink("/etc/passwd", lnk), 0);
        assert_int_equal(write_file_atomic(junk, "hello\n", 6, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(write_file_atomic(tmp, "partial", 7, 0600, (uid_t) -1, (gid_t) -1), 0);

        assert_int_equal(evspool_read(dir, 0, &l), 6);
        /* oldest first (by the time in the name); odd files are there, invalid */
        assert_false(l.v[0].valid || l.v[1].valid || l.v[2].valid);
        assert_true(l.v[3].valid);
        assert_string_equal(l.v[3].kind, "down");
        assert_string_equal(l.v[3].arg, "n[1-2]");
        assert_int_equal(l.v[3].time_ms, 1000);
        assert_string_equal(l.v[4].kind, "up");
        assert_string_equal(l.v[5].kind, "reconfig");
        /* records are private to their writer */
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, l.v[3].name);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        rmdir(sub);
        assert_int_equal(evspool_remove(dir, &l), 5); /* the directory went by hand */
        evspool_list_done(&l);
        assert_int_equal(evspool_read(dir, 0, &l), 0);
        evspool_list_done(&l);
        assert_int_equal(access(tmp, F_OK), 0); /* a writer's temporary is not ours */
        /* max: only the oldest */
        for (int i = 0; i < 5; i++)
                assert_int_equal(evspool_write(dir, "up", "n", 100 + i), 0);
        assert_int_equal(evspool_read(dir, 2, &l), 2);
        assert_int_equal(l.v[1].time_ms, 0);
        evspool_list_done(&l);
        assert_int_equal(evspool_read("/nonexistent/spool", 0, &l), -ENOENT);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_full_spool(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        for (int i = 0; i < EVSPOOL_MAX_FILES; i++) {
                _cleanup_free_ char *f = xasprintf("%s/ev-%020d-1", dir, i);
                int fd = open(f, O_CREAT | O_WRONLY, 0600);
                assert_true(fd >= 0);
                close(fd);
        }
        assert_int_equal(evspool_write(dir, "down", "n1", 1), 1);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_doorbell(void **state) {
        _cleanup_free_ char *dir = tmpdir();
        _cleanup_free_ char *bell = xasprintf("%s/%s", dir, EVSPOOL_DOORBELL);
        int fd;
        /* a plain file in its place is replaced by the FIFO */
        assert_int_equal(write_file_atomic(bell, "x", 1, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(evspool_doorbell_open(dir, (uid_t) -1, (gid_t) -1, &fd), 0);
        struct stat st;
        assert_int_equal(lstat(bell, &st), 0);
        assert_true(S_ISFIFO(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0600);
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        assert_int_equal(poll(&pfd, 1, 0), 0);
        assert_int_equal(evspool_write(dir, "down", "n1", 5), 0);
        assert_int_equal(poll(&pfd, 1, 1000), 1);
        evspool_doorbell_drain(fd);
        assert_int_equal(poll(&pfd, 1, 0), 0);
        close(fd);
        /* no reader: the write still succeeds (the record is what counts) */
        assert_int_equal(evspool_write(dir, "down", "n2", 6), 0);
        nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_stdio_filled(void **state) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                /* as slurmctld runs a trigger: every fd closed */
                close(0);
                close(1);
                close(2);
                evspool_fill_stdio();
                int fd = open("/dev/null", O_RDONLY);
                struct stat st;
                _exit(fd > 2 && fstat(0, &st) == 0 && fstat(1, &st) == 0 && fstat(2, &st) == 0 ? 0 : 1);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_dir_of_self(void **state) {
        _cleanup_free_ char *d = evspool_dir_of_self();
        assert_non_null(d);
        assert_non_null(strstr(d, "/spool"));
        assert_int_equal(d[0], '/');
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_write_read_remove),
                cmocka_unit_test(test_full_spool),
                cmocka_unit_test(test_doorbell),
                cmocka_unit_test(test_stdio_filled),
                cmocka_unit_test(test_dir_of_self),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
