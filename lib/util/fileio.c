/* SPDX-License-Identifier: Apache-2.0 */
/* Atomic whole-file writes (temporary + fsync + rename + directory fsync), bounded
 * whole-file reads and mkdir -p. */
#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "util/banned.h"

#define TMP_SUFFIX_LEN 6

/* Splits path into a directory fd (O_RDONLY, for fsync) and the last component. */
static int open_parent(const char *path, int *ret_dirfd, char **ret_base) {
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *dir = NULL;
        const char *base;
        int fd;

        if (isempty(path))
                return -EINVAL;
        if (slash) {
                base = slash + 1;
                dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t) (slash - path));
        } else {
                base = path;
                dir = xstrdup(".");
        }
        if (!*base || streq(base, ".") || streq(base, ".."))
                return -EISDIR;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_dirfd = fd;
        *ret_base = xstrdup(base);
        return 0;
}

static void random_suffix(char *out) {
        static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        uint8_t rnd[TMP_SUFFIX_LEN];
        if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd)) {
                /* no entropy yet: pid and clock are enough with O_EXCL and retries */
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                uint64_t x =
                        (uint64_t) ts.tv_nsec ^ ((uint64_t) ts.tv_sec << 20) ^ ((uint64_t) getpid() << 40);
                for (size_t i = 0; i < sizeof(rnd); i++, x >>= 7)
                        rnd[i] = (uint8_t) (x ^ (x >> 31));
        }
        for (size_t i = 0; i < TMP_SUFFIX_LEN; i++)
                out[i] = chars[rnd[i] % (sizeof(chars) - 1)];
        out[TMP_SUFFIX_LEN] = '\0';
}

static int write_all(int fd, const void *data, size_t len) {
        const uint8_t *p = data;
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return -EIO;
                p += n;
                len -= (size_t) n;
        }
        return 0;
}

/* Removes ".#<base>.XXXXXX" files in dirfd older than FILEIO_STALE_TMP_SEC. Best effort. */
static void remove_stale_temporaries(int dirfd, const char *base) {
        _cleanup_free_ char *prefix = xasprintf(".#%s.", base);
        size_t plen = strlen(prefix);
        struct timespec now;
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        clock_gettime(CLOCK_REALTIME, &now);
        for (unsigned n = 0; n < 100000; n++) {
                struct dirent *de = readdir(d);
                struct stat st;
                if (!de)
                        break;
                if (strncmp(de->d_name, prefix, plen) != 0 || strlen(de->d_name) != plen + TMP_SUFFIX_LEN)
                        continue;
                if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (st.st_mtim.tv_sec + FILEIO_STALE_TMP_SEC > now.tv_sec)
                        continue;
                (void) unlinkat(dirfd, de->d_name, 0);
        }
        closedir(d);
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid) {
        _cleanup_close_ int dirfd = -1, fd = -1;
        _cleanup_free_ char *base = NULL, *tmp = NULL;
        char suffix[TMP_SUFFIX_LEN + 1];
        int r;

        mode &= 07777;
        r = open_parent(path, &dirfd, &base);
        if (r < 0)
                return r;

        for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
                random_suffix(suffix);
                free(tmp);
                tmp = xasprintf(".#%s.%s", base, suffix);
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
                if (fd < 0 && errno != EEXIST)
                        return -errno;
        }
        if (fd < 0)
                return -EEXIST;

        if ((uid != (uid_t) -1 || gid != (gid_t) -1) && fchown(fd, uid, gid) < 0)
                goto fail_errno;
        if (fchmod(fd, mode) < 0)
                goto fail_errno;
        r = write_all(fd, data, len);
        if (r < 0)
                goto fail;
        if (fsync(fd) < 0)
                goto fail_errno;
        r = close(TAKE_FD(fd));
        if (r < 0 && errno != EINTR)
                goto fail_errno;
        if (renameat(dirfd, tmp, dirfd, base) < 0)
                goto fail_errno;
        /* the new name is in place; a failing directory fsync is still reported */
        if (fsync(dirfd) < 0)
                return -errno;
        remove_stale_temporaries(dirfd, base);
        return 0;

fail_errno:
        r = -errno;
fail:
        (void) unlinkat(dirfd, tmp, 0);
        return r;
}

/* 1 when path differs from (data, len, mode, uid, gid), 0 when identical, < 0 on error. */
static int file_differs(const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        struct stat st;
        const uint8_t *want = data;
        size_t off = 0;
        uint8_t buf[65536];

        if (fd < 0)
                return 1; /* absent, a symlink, unreadable…: writing decides */
        if (fstat(fd, &st) < 0)
                return 1;
        if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != (mode & 07777) || (size_t) st.st_size != len)
                return 1;
        if ((uid != (uid_t) -1 && st.st_uid != uid) || (gid != (gid_t) -1 && st.st_gid != gid))
                return 1;
        while (off < len) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return 1;
                }
                if (n == 0 || (size_t) n > len - off || memcmp(buf, want + off, (size_t) n) != 0)
                        return 1;
                off += (size_t) n;
        }
        /* the file must end here too */
        return read(fd, buf, 1) == 0 ? 0 : 1;
}

int write_file_atomic_if_changed(
        const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid) {
        int r;
        if (file_differs(path, data, len, mode, uid, gid) == 0)
                return 0;
        r = write_file_atomic(path, data, len, mode, uid, gid);
        return r < 0 ? r : 1;
}

/* Reads fd (already fstat'ed into st) to its end, at most max bytes (-EFBIG beyond). */
static int read_fd_full(int fd, const struct stat *st, size_t max, char **ret_data, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, alloc = 0;

        if (S_ISDIR(st->st_mode))
                return -EISDIR;
        if (S_ISREG(st->st_mode)) {
                if ((uint64_t) st->st_size > max)
                        return -EFBIG;
                alloc = (size_t) st->st_size + 1; /* +1: EOF is seen without growing */
        }
        if (alloc < 4096)
                alloc = 4096;
        buf = xmalloc(alloc + 1);
        for (;;) {
                if (len == alloc) {
                        if (alloc > max)
                                return -EFBIG;
                        alloc = alloc * 2 > max + 1 ? max + 1 : alloc * 2;
                        buf = xrealloc(buf, alloc + 1);
                }
                ssize_t n = read(fd, buf + len, alloc - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        if (len > max)
                return -EFBIG;
        buf[len] = '\0';
        *ret_data = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int read_full_file(const char *path, char **ret_data, size_t *ret_len) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        return read_fd_full(fd, &st, FILEIO_READ_MAX, ret_data, ret_len);
}

int read_untrusted_file(const char *path, size_t max, char **ret_data, size_t *ret_len, struct stat *ret_st) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if (st.st_nlink != 1)
                return -EMLINK;
        int r = read_fd_full(fd, &st, max > 0 ? max : FILEIO_UNTRUSTED_MAX, ret_data, ret_len);
        if (r >= 0 && ret_st)
                *ret_st = st;
        return r;
}

int mkdir_p(const char *path, mode_t mode) {
        _cleanup_free_ char *p = NULL;
        struct stat st;

        if (isempty(path))
                return -EINVAL;
        p = xstrdup(path);
        for (char *s = p;;) {
                /* next component end */
                while (*s == '/')
                        s++;
                if (!*s)
                        break;
                while (*s && *s != '/')
                        s++;
                char saved = *s;
                *s = '\0';
                if (mkdir(p, mode & 07777) == 0) {
                        if (chmod(p, mode & 07777) < 0)
                                return -errno;
                } else if (errno == EEXIST) {
                        if (stat(p, &st) < 0)
                                return -errno;
                        if (!S_ISDIR(st.st_mode))
                                return -ENOTDIR;
                } else
                        return -errno;
                *s = saved;
        }
        return 0;
}

int chmod_private(const char *path) {
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISLNK(st.st_mode) || (st.st_mode & 077) == 0)
                return 0;
        if (chmod(path, st.st_mode & 07700) < 0)
                return -errno;
        return 1;
}
