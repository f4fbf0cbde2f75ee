/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/util/fileio: atomicity under SIGKILL at random points, exact mode and owner
 * under any umask, failures that keep the old file, stale temporaries, reads, untrusted reads (links,
 * FIFOs, hard links, sizes), mkdir_p, chmod_private. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "tmpdir.h"

#include "util/banned.h"

static mode_t original_umask;

/* test_tmpdir_teardown() that also restores the umask and fails when the directory stays */
static int teardown_dir(void **state) {
        umask(original_umask); /* a failed test may have left another */
        return test_tmpdir_remove(*state);
}

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Number of ".#…" temporaries in dir, or -1 when one has a mode wider than allowed (or on
 * error). No cmocka asserts: forked children use it too. */
static int count_temporaries_raw(const char *dir, mode_t allowed) {
        DIR *d = opendir(dir);
        int n = 0;
        if (!d)
                return -1;
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (!startswith(de->d_name, ".#"))
                        continue;
                n++;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || ((st.st_mode & 07777) & ~allowed)) {
                        n = -1;
                        break;
                }
        }
        closedir(d);
        return n;
}

static int count_temporaries(const char *dir, mode_t allowed) {
        int n = count_temporaries_raw(dir, allowed);
        if (n < 0)
                fail_msg("%s: unreadable, or a temporary with a mode wider than %04o", dir, allowed);
        return n;
}

static void assert_file_is(const char *path, const char *want) {
        _cleanup_free_ char *data = NULL;
        size_t len;
        assert_int_equal(read_full_file(path, &data, &len), 0);
        assert_int_equal(len, strlen(want));
        assert_string_equal(data, want);
}

static void test_write_read(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *p = xasprintf("%s/a.conf", dir);
        _cleanup_free_ char *data = NULL;
        size_t len = 99;

        assert_int_equal(read_full_file(p, &data, &len), -ENOENT);
        assert_int_equal(write_file_atomic(p, "hello\n", 6, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_file_is(p, "hello\n");
        assert_int_equal(write_file_atomic(p, "", 0, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_file_is(p, "");
        /* NUL bytes survive and the buffer is NUL-terminated after them */
        assert_int_equal(write_file_atomic(p, "a\0b", 3, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(read_full_file(p, &data, &len), 0);
        assert_int_equal(len, 3);
        assert_memory_equal(data, "a\0b", 4);
        assert_int_equal(count_temporaries(dir, 0644), 0);
        /* a relative path works too */
        assert_int_equal(chdir(dir), 0);
        assert_int_equal(write_file_atomic("rel", "x", 1, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_file_is("rel", "x");
        assert_int_equal(chdir("/"), 0);
        /* a file reported with size 0 by stat is read to its end */
        free(data);
        data = NULL;
        assert_int_equal(read_full_file("/proc/self/status", &data, &len), 0);
        assert_non_null(strstr(data, "Pid:"));
        assert_int_equal(strlen(data), len);
}

static void test_read_limit(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *p = xasprintf("%s/big", dir);
        _cleanup_close_ int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        char *data = NULL;
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t) FILEIO_READ_MAX + 1), 0); /* sparse */
        assert_int_equal(read_full_file(p, &data, NULL), -EFBIG);
        assert_null(data);
        assert_int_equal(ftruncate(fd, (off_t) FILEIO_READ_MAX), 0);
        size_t len;
        assert_int_equal(read_full_file(p, &data, &len), 0);
        assert_int_equal(len, FILEIO_READ_MAX);
        free(data);
        assert_int_equal(read_full_file(dir, &data, NULL), -EISDIR);
}

static void test_read_untrusted(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *f = xasprintf("%s/f", dir), *l = xasprintf("%s/l", dir);
        _cleanup_free_ char *h = xasprintf("%s/h", dir), *fifo = xasprintf("%s/fifo", dir);
        _cleanup_free_ char *big = xasprintf("%s/big", dir);
        char *data = NULL;
        size_t len = 0;
        struct stat st;

        assert_int_equal(write_file_atomic(f, "16 bytes of data", 16, 0640, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(read_untrusted_file(f, 0, &data, &len, &st), 0);
        assert_string_equal(data, "16 bytes of data");
        assert_int_equal(len, 16);
        assert_int_equal(st.st_mode & 07777, 0640);
        free(TAKE_PTR(data));
        /* the cap: exactly max is read, one byte more is not */
        assert_int_equal(read_untrusted_file(f, 16, &data, NULL, NULL), 0);
        free(TAKE_PTR(data));
        assert_int_equal(read_untrusted_file(f, 15, &data, NULL, NULL), -EFBIG);
        assert_null(data);
        /* a link at the last component, to a readable file: refused */
        assert_int_equal(symlink(f, l), 0);
        assert_int_equal(read_untrusted_file(l, 0, &data, NULL, NULL), -ELOOP);
        assert_null(data);
        /* another name of the same file */
        assert_int_equal(link(f, h), 0);
        assert_int_equal(read_untrusted_file(f, 0, &data, NULL, NULL), -EMLINK);
        assert_int_equal(read_untrusted_file(h, 0, &data, NULL, NULL), -EMLINK);
        assert_null(data);
        /* a FIFO with no writer: refused at once, never waited on (a blocking open would hang
         * the test: the cmocka run's timeout is the check) */
        assert_int_equal(mkfifo(fifo, 0600), 0);
        assert_int_equal(read_untrusted_file(fifo, 0, &data, NULL, NULL), -EINVAL);
        assert_null(data);
        assert_int_equal(read_untrusted_file(dir, 0, &data, NULL, NULL), -EISDIR);
        assert_int_equal(read_untrusted_file("/dev/null", 0, &data, NULL, NULL), -EINVAL);
        /* a sparse file past the default cap */
        _cleanup_close_ int fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t) FILEIO_UNTRUSTED_MAX + 1), 0);
        assert_int_equal(read_untrusted_file(big, 0, &data, NULL, NULL), -EFBIG);
        assert_null(data);
        assert_int_equal(read_untrusted_file("/nonexistent/x", 0, &data, NULL, NULL), -ENOENT);
}

static void check_mode(const char *dir, mode_t umask_value, mode_t mode) {
        _cleanup_free_ char *p = xasprintf("%s/m-%04o-%04o", dir, umask_value, mode);
        struct stat st;
        mode_t old = umask(umask_value);
        int r = write_file_atomic(p, "secret", 6, mode, (uid_t) -1, (gid_t) -1);
        umask(old);
        assert_int_equal(r, 0);
        assert_int_equal(stat(p, &st), 0);
        if ((st.st_mode & 07777) != mode)
                fail_msg("umask %04o mode %04o: file has %04o", umask_value, mode, st.st_mode & 07777);
}

static void test_mode_exact(void **state) {
        const char *dir = *state;
        static const mode_t umasks[] = { 0, 0022, 0077, 0777 };
        static const mode_t modes[] = { 0400, 0600, 0640, 0644, 0755, 0666, 0000 };
        for (size_t i = 0; i < ELEMENTSOF(umasks); i++)
                for (size_t j = 0; j < ELEMENTSOF(modes); j++)
                        check_mode(dir, umasks[i], modes[j]);
}

static void test_owner(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *p = xasprintf("%s/owned", dir);
        struct stat st;
        if (geteuid() != 0)
                skip();
        /* fchmod comes after fchown, so set-id bits are kept */
        assert_int_equal(write_file_atomic(p, "k", 1, 02750, 65534, 65534), 0);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_uid, 65534);
        assert_int_equal(st.st_gid, 65534);
        assert_int_equal(st.st_mode & 07777, 02750);
        /* only the group */
        assert_int_equal(write_file_atomic(p, "k", 1, 0640, (uid_t) -1, 65533), 0);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_uid, 0);
        assert_int_equal(st.st_gid, 65533);
        assert_int_equal(st.st_mode & 07777, 0640);
}

static void test_if_changed(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *p = xasprintf("%s/c.conf", dir);
        struct stat a, b;
        assert_int_equal(write_file_atomic_if_changed(p, "one\n", 4, 0644, (uid_t) -1, (gid_t) -1), 1);
        assert_int_equal(stat(p, &a), 0);
        assert_int_equal(write_file_atomic_if_changed(p, "one\n", 4, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(stat(p, &b), 0);
        assert_int_equal(a.st_ino, b.st_ino);
        assert_memory_equal(&a.st_mtim, &b.st_mtim, sizeof(a.st_mtim));
        /* same length, other bytes; a prefix; a longer file; another mode */
        assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0644, (uid_t) -1, (gid_t) -1), 1);
        assert_file_is(p, "two\n");
        assert_int_equal(write_file_atomic_if_changed(p, "tw", 2, 0644, (uid_t) -1, (gid_t) -1), 1);
        assert_file_is(p, "tw");
        assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0644, (uid_t) -1, (gid_t) -1), 1);
        assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0600, (uid_t) -1, (gid_t) -1), 1);
        assert_int_equal(stat(p, &a), 0);
        assert_int_equal(a.st_mode & 07777, 0600);
        assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0600, (uid_t) -1, (gid_t) -1), 0);
        if (geteuid() == 0) {
                assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0600, 0, 65534), 1);
                assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0600, 0, 65534), 0);
                assert_int_equal(write_file_atomic_if_changed(p, "two\n", 4, 0600, 65534, 65534), 1);
                assert_int_equal(stat(p, &a), 0);
                assert_int_equal(a.st_uid, 65534);
        }
        /* a symlink in place is replaced by a file, its target untouched */
        _cleanup_free_ char *t = xasprintf("%s/link-target", dir), *l = xasprintf("%s/link", dir);
        assert_int_equal(write_file_atomic(t, "two\n", 4, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(symlink(t, l), 0);
        assert_int_equal(write_file_atomic_if_changed(l, "two\n", 4, 0600, (uid_t) -1, (gid_t) -1), 1);
        assert_int_equal(lstat(l, &a), 0);
        assert_true(S_ISREG(a.st_mode));
        assert_int_equal(count_temporaries(dir, 0777), 0);
}

static void test_fail_keeps_old(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *p = xasprintf("%s/keep", dir), *d = xasprintf("%s/adir", dir);
        _cleanup_free_ char *missing = xasprintf("%s/no/such/file", dir);
        assert_int_equal(write_file_atomic(p, "old", 3, 0644, (uid_t) -1, (gid_t) -1), 0);

        /* a directory in place of the file */
        assert_int_equal(mkdir(d, 0755), 0);
        assert_int_equal(write_file_atomic(d, "new", 3, 0644, (uid_t) -1, (gid_t) -1), -EISDIR);
        assert_int_equal(write_file_atomic_if_changed(d, "new", 3, 0644, (uid_t) -1, (gid_t) -1), -EISDIR);
        struct stat st;
        assert_int_equal(stat(d, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(write_file_atomic(missing, "new", 3, 0644, (uid_t) -1, (gid_t) -1), -ENOENT);
        assert_int_equal(write_file_atomic("", "new", 3, 0644, (uid_t) -1, (gid_t) -1), -EINVAL);
        assert_int_equal(count_temporaries(dir, 0777), 0);

        /* a write that fails half way (RLIMIT_FSIZE: EFBIG after 4 KiB), in a child */
        size_t big = 256 * 1024;
        _cleanup_free_ char *buf = xmalloc(big);
        memset(buf, 'n', big);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct rlimit rl = { 4096, 4096 };
                signal(SIGXFSZ, SIG_IGN);
                if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
                        _exit(100);
                int r = write_file_atomic(p, buf, big, 0644, (uid_t) -1, (gid_t) -1);
                _exit(r < 0 ? -r : 0);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), EFBIG);
        assert_file_is(p, "old");
        assert_int_equal(count_temporaries(dir, 0777), 0);
}

/* In a child with its own mount namespace: a full tmpfs (ENOSPC) and a read-only one
 * (EROFS) keep the old file and leave no temporary. Exit code: 0 ok, else the step. */
static int full_fs_child(const char *mnt) {
        _cleanup_free_ char *p = xasprintf("%s/f", mnt);
        size_t big = 1024 * 1024;
        char *buf = xmalloc(big);
        memset(buf, 'n', big);
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return 10;
        if (mount("tmpfs", mnt, "tmpfs", 0, "size=256k,mode=0755") < 0)
                return 11;
        if (write_file_atomic(p, "old", 3, 0600, (uid_t) -1, (gid_t) -1) < 0)
                return 12;
        if (write_file_atomic(p, buf, big, 0600, (uid_t) -1, (gid_t) -1) != -ENOSPC)
                return 13;
        if (count_temporaries_raw(mnt, 0777) != 0)
                return 14;
        char *data = NULL;
        if (read_full_file(p, &data, NULL) < 0 || !streq(data, "old"))
                return 15;
        free(data);
        if (mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, "size=256k") < 0)
                return 16;
        if (write_file_atomic(p, "new", 3, 0600, (uid_t) -1, (gid_t) -1) != -EROFS)
                return 17;
        if (read_full_file(p, &data, NULL) < 0 || !streq(data, "old"))
                return 18;
        free(data);
        free(buf);
        return 0;
}

static void test_full_and_readonly_fs(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *mnt = xasprintf("%s/mnt", dir);
        if (geteuid() != 0)
                skip();
        assert_int_equal(mkdir(mnt, 0755), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(full_fs_child(mnt));
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) == 10 || WEXITSTATUS(status) == 11)
                skip(); /* no mount namespaces here (a container without CAP_SYS_ADMIN) */
        assert_int_equal(WEXITSTATUS(status), 0);
        /* the mount lived only in the child's namespace */
        assert_int_equal(count_temporaries(mnt, 0777), 0);
}

#define KILL_FILE_SIZE (1024 * 1024)
#define KILL_ROUNDS 200
#define KILL_BUDGET_NS (8ull * 1000000000u)

/* Generation g's content: an 8-byte header g, then bytes depending on g and position. */
static void fill_pattern(uint8_t *buf, uint64_t g) {
        memcpy(buf, &g, sizeof(g));
        for (size_t i = sizeof(g); i < KILL_FILE_SIZE; i++)
                buf[i] = (uint8_t) (g * 131 + i * 7 + (i >> 12));
}

/* Which generation the file holds, checking every byte; fails the test on a mix. */
static uint64_t file_generation(const char *path, uint8_t *scratch) {
        _cleanup_free_ char *data = NULL;
        size_t len;
        uint64_t g;
        assert_int_equal(read_full_file(path, &data, &len), 0);
        if (len != KILL_FILE_SIZE)
                fail_msg("torn file: %zu bytes", len);
        memcpy(&g, data, sizeof(g));
        fill_pattern(scratch, g);
        if (memcmp(data, scratch, KILL_FILE_SIZE) != 0)
                fail_msg("torn file: content of generation %llu does not match", (unsigned long long) g);
        return g;
}

static pid_t spawn_writer(const char *path, const uint8_t *buf) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int r = write_file_atomic(path, buf, KILL_FILE_SIZE, 0600, (uid_t) -1, (gid_t) -1);
                _exit(r < 0 ? 1 : 0);
        }
        return pid;
}

static void test_sigkill_writers(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *p = xasprintf("%s/target", dir);
        _cleanup_free_ uint8_t *buf = xmalloc(KILL_FILE_SIZE), *scratch = xmalloc(KILL_FILE_SIZE);
        uint64_t old = 0, calib = 0, start;
        unsigned seed = (unsigned) now_ns();
        int rounds, kept_old = 0, got_new = 0, status;
        mode_t saved_umask = umask(0); /* the temporary's mode must come from `mode` alone */

        fill_pattern(buf, old);
        assert_int_equal(write_file_atomic(p, buf, KILL_FILE_SIZE, 0600, (uid_t) -1, (gid_t) -1), 0);

        /* how long a whole writer takes, fork to exit: kills land in [0, 1.3 × that] */
        for (int i = 0; i < 3; i++) {
                fill_pattern(buf, ++old);
                uint64_t t0 = now_ns();
                pid_t pid = spawn_writer(p, buf);
                assert_int_equal(waitpid(pid, &status, 0), pid);
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                uint64_t t = now_ns() - t0;
                calib = t > calib ? t : calib;
                assert_int_equal(file_generation(p, scratch), old);
        }

        start = now_ns();
        for (rounds = 0; rounds < KILL_ROUNDS && now_ns() - start < KILL_BUDGET_NS; rounds++) {
                uint64_t next = old + 1;
                fill_pattern(buf, next);
                uint64_t delay = (uint64_t) rand_r(&seed) % (calib + calib / 3 + 1);
                pid_t pid = spawn_writer(p, buf);
                struct timespec ts = { .tv_sec = 0, .tv_nsec = (long) delay };
                nanosleep(&ts, NULL);
                kill(pid, SIGKILL);
                assert_int_equal(waitpid(pid, &status, 0), pid);
                uint64_t g = file_generation(p, scratch);
                if (g == next) {
                        got_new++;
                        old = next;
                } else if (g == old)
                        kept_old++;
                else
                        fail_msg("file holds generation %llu, neither old %llu nor new %llu",
                                (unsigned long long) g, (unsigned long long) old, (unsigned long long) next);
        }
        int leftovers = count_temporaries(dir, 0600);
        print_message("sigkill: %d rounds in %.1f s (writer %.2f ms): %d kept old, %d got new, "
                      "%d temporaries left by killed writers\n",
                rounds, (double) (now_ns() - start) / 1e9, (double) calib / 1e6, kept_old, got_new,
                leftovers);
        assert_true(rounds >= 20);
        /* the kill times cover the whole write: both outcomes happen */
        assert_true(kept_old > 0);
        assert_true(got_new > 0);

        /* temporaries younger than FILEIO_STALE_TMP_SEC survive a write (they could be a
         * concurrent writer's); aged ones are removed by the next successful write */
        fill_pattern(buf, ++old);
        assert_int_equal(write_file_atomic(p, buf, KILL_FILE_SIZE, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(count_temporaries(dir, 0600), leftovers);
        DIR *d = opendir(dir);
        assert_non_null(d);
        for (struct dirent *de; (de = readdir(d));) {
                struct timespec old_times[2] = { { .tv_sec = time(NULL) - FILEIO_STALE_TMP_SEC - 5 },
                        { .tv_sec = time(NULL) - FILEIO_STALE_TMP_SEC - 5 } };
                if (startswith(de->d_name, ".#"))
                        assert_int_equal(utimensat(dirfd(d), de->d_name, old_times, 0), 0);
        }
        closedir(d);
        /* a stale temporary of another file stays */
        _cleanup_free_ char *other = xasprintf("%s/.#othername.abcdef", dir);
        _cleanup_close_ int ofd = open(other, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        struct timespec aged[2] = { { .tv_sec = 1 }, { .tv_sec = 1 } };
        assert_true(ofd >= 0);
        assert_int_equal(futimens(ofd, aged), 0);
        fill_pattern(buf, ++old);
        assert_int_equal(write_file_atomic(p, buf, KILL_FILE_SIZE, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(count_temporaries(dir, 0600), 1);
        assert_int_equal(access(other, F_OK), 0);
        assert_int_equal(file_generation(p, scratch), old);
        umask(saved_umask);
}

static void test_mkdir_p(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *deep = xasprintf("%s/a/b//c/", dir), *f = xasprintf("%s/file", dir);
        _cleanup_free_ char *under = xasprintf("%s/file/x", dir), *ab = xasprintf("%s/a/b", dir);
        struct stat st;
        mode_t old = umask(0077);
        assert_int_equal(mkdir_p(deep, 0755), 0);
        umask(old);
        assert_int_equal(stat(deep, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(stat(ab, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        /* existing directories are fine and keep their mode */
        assert_int_equal(chmod(ab, 0700), 0);
        assert_int_equal(mkdir_p(deep, 0755), 0);
        assert_int_equal(stat(ab, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        assert_int_equal(write_file_atomic(f, "x", 1, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(mkdir_p(under, 0755), -ENOTDIR);
        assert_int_equal(mkdir_p(f, 0755), -ENOTDIR);
        assert_int_equal(mkdir_p("", 0755), -EINVAL);
}

static void test_chmod_private(void **state) {
        const char *dir = *state;
        _cleanup_free_ char *f = xasprintf("%s/f", dir), *d = xasprintf("%s/d", dir);
        _cleanup_free_ char *l = xasprintf("%s/l", dir), *none = xasprintf("%s/none", dir);
        struct stat st;
        assert_int_equal(write_file_atomic(f, "x", 1, 04755, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(mkdir_p(d, 01777), 0);
        assert_int_equal(symlink(f, l), 0);
        assert_int_equal(chmod_private(f), 1);
        assert_int_equal(stat(f, &st), 0);
        assert_int_equal(st.st_mode & 07777, 04700);
        assert_int_equal(chmod_private(d), 1);
        assert_int_equal(stat(d, &st), 0);
        assert_int_equal(st.st_mode & 07777, 01700);
        /* already private: nothing to do; a symlink and a missing path are left alone */
        assert_int_equal(chmod_private(f), 0);
        assert_int_equal(chmod(f, 0644), 0);
        assert_int_equal(chmod_private(l), 0);
        assert_int_equal(stat(f, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(chmod_private(none), 0);
        _cleanup_free_ char *under = xasprintf("%s/x", f);
        assert_int_equal(chmod_private(under), -ENOTDIR);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_write_read, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_read_limit, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_read_untrusted, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_mode_exact, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_owner, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_if_changed, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_fail_keeps_old, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_full_and_readonly_fs, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_sigkill_writers, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_mkdir_p, test_tmpdir_setup, teardown_dir),
                cmocka_unit_test_setup_teardown(test_chmod_private, test_tmpdir_setup, teardown_dir),
        };
        original_umask = umask(0022);
        umask(original_umask);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
