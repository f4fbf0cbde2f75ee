/* SPDX-License-Identifier: Apache-2.0 */
/* The trigger spool: durable records written by the trigger program (libc only), read and
 * removed by the node event watcher, and the doorbell FIFO between them. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/eventspool.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>

#include "util/banned.h"

/* --- the program's side ------------------------------------------------------------------------ */

void evspool_fill_stdio(void) {
        for (;;) {
                int fd = open("/dev/null", O_RDWR);
                if (fd < 0)
                        return;
                if (fd > 2) {
                        close(fd);
                        return;
                }
        }
}

char *evspool_dir_of_self(void) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
                return NULL;
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (!slash)
                return NULL;
        *slash = '\0';
        return xasprintf("%s/%s", exe, EVSPOOL_SUBDIR);
}

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += w;
                n -= (size_t) w;
        }
        return 0;
}

/* Whether the spool already holds max entries (records and temporaries). */
static bool spool_full(const char *spool, size_t max) {
        DIR *d = opendir(spool);
        size_t n = 0;
        struct dirent *de;
        if (!d)
                return false;
        while ((de = readdir(d)) && n < max)
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n >= max;
}

void evspool_ring(const char *spool) {
        _cleanup_free_ char *bell = xasprintf("%s/%s", spool, EVSPOOL_DOORBELL);
        /* no reader (the watcher is not running): ENXIO, nothing to do */
        int fd = open(bell, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
                (void) !write(fd, "!", 1);
        close(fd);
}

int evspool_write(const char *spool, const char *kind, const char *arg, int64_t now_ns) {
        _cleanup_free_ char *tmp = NULL, *final = NULL, *text = NULL;
        _cleanup_close_ int fd = -1, dfd = -1;
        int r;

        if (isempty(spool) || isempty(kind) || strpbrk(kind, "\n/") || (arg && strchr(arg, '\n')))
                return -EINVAL;
        if (spool_full(spool, EVSPOOL_MAX_FILES))
                return 1;
        text = xasprintf("%s\n%" PRId64 "\n%s\n%s\n", EVSPOOL_MAGIC, now_ns, kind, strempty(arg));
        if (strlen(text) > EVSPOOL_RECORD_MAX)
                return -E2BIG;
        tmp = xasprintf("%s/.tmp-%d-%" PRId64, spool, (int) getpid(), now_ns);
        final = xasprintf("%s/ev-%020" PRId64 "-%d", spool, now_ns, (int) getpid());
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        r = write_all(fd, text, strlen(text));
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, final) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }
        dfd = open(spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) < 0)
                return -errno;
        evspool_ring(spool);
        return 0;
}

/* --- the watcher's side ----------------------------------------------------------------------------- */

void evspool_list_done(struct evspool_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].name);
                free(l->v[i].kind);
                free(l->v[i].arg);
        }
        free(l->v);
        *l = (struct evspool_list){ 0 };
}

/* The next line of data (up to '\n', which must be there); advances *pos. */
static bool next_line(const char *data, size_t len, size_t *pos, const char **ret, size_t *ret_len) {
        if (*pos >= len)
                return false;
        const char *nl = memchr(data + *pos, '\n', len - *pos);
        if (!nl)
                return false;
        *ret = data + *pos;
        *ret_len = (size_t) (nl - (data + *pos));
        *pos += *ret_len + 1;
        return true;
}

int evspool_parse(const char *data, size_t len, int64_t *ret_ms, char **ret_kind, char **ret_arg) {
        const char *l[4];
        size_t n[4], pos = 0;
        for (int i = 0; i < 4; i++)
                if (!next_line(data, len, &pos, &l[i], &n[i]))
                        return -EBADMSG;
        if (pos != len || n[0] != strlen(EVSPOOL_MAGIC) || memcmp(l[0], EVSPOOL_MAGIC, n[0]) != 0 ||
                n[2] == 0 || n[1] == 0 || n[1] > 19 || memchr(l[0], '\0', len))
                return -EBADMSG;
        int64_t ns = 0;
        for (size_t i = 0; i < n[1]; i++) {
                if (l[1][i] < '0' || l[1][i] > '9')
                        return -EBADMSG;
                ns = ns * 10 + (l[1][i] - '0');
        }
        *ret_ms = ns / 1000000;
        *ret_kind = xstrndup(l[2], n[2]);
        *ret_arg = xstrndup(l[3], n[3]);
        return 0;
}

static int cmp_entry(const void *a, const void *b) {
        return strcmp(((const struct evspool_entry *) a)->name, ((const struct evspool_entry *) b)->name);
}

/* Reads one record file without following links; -EBADMSG for what is not a small regular file. */
static int read_record(int dfd, const char *name, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        struct stat st;
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode) || st.st_size > EVSPOOL_RECORD_MAX)
                return -EBADMSG;
        char *buf = xmalloc((size_t) st.st_size + 1);
        size_t got = 0;
        while (got < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + got, (size_t) st.st_size - got);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                got += (size_t) k;
        }
        buf[got] = '\0';
        *ret = buf;
        *ret_len = got;
        return 0;
}

int evspool_read(const char *spool, size_t max, struct evspool_list *ret) {
        struct evspool_list l = { 0 };
        size_t alloc = 0;
        DIR *d = opendir(spool);
        struct dirent *de;
        if (!d)
                return -errno;
        if (max == 0)
                max = EVSPOOL_MAX_FILES;
        while ((de = readdir(d))) {
                if (!startswith(de->d_name, "ev-"))
                        continue; /* dot-files: temporaries and the doorbell */
                if (l.n == alloc) {
                        alloc = alloc ? alloc * 2 : 16;
                        l.v = xrealloc(l.v, alloc * sizeof(*l.v));
                }
                l.v[l.n++] = (struct evspool_entry){ .name = xstrdup(de->d_name) };
        }
        /* oldest first; only the oldest max are read (the rest wait for the next round) */
        if (l.n > 1)
                qsort(l.v, l.n, sizeof(*l.v), cmp_entry);
        while (l.n > max) {
                l.n--;
                free(l.v[l.n].name);
        }
        for (size_t i = 0; i < l.n; i++) {
                _cleanup_free_ char *data = NULL;
                size_t len = 0;
                struct evspool_entry *e = &l.v[i];
                if (read_record(dirfd(d), e->name, &data, &len) < 0)
                        continue;
                e->valid = evspool_parse(data, len, &e->time_ms, &e->kind, &e->arg) == 0;
        }
        closedir(d);
        *ret = l;
        return (int) l.n;
}

int evspool_remove(const char *spool, const struct evspool_list *l) {
        _cleanup_close_ int dfd = open(spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int n = 0;
        if (dfd < 0)
                return -errno;
        for (size_t i = 0; i < l->n; i++) {
                if (unlinkat(dfd, l->v[i].name, 0) == 0)
                        n++;
                else if (errno != ENOENT)
                        return -errno;
        }
        return n;
}

int evspool_doorbell_open(const char *spool, uid_t uid, gid_t gid, int *ret_fd) {
        _cleanup_free_ char *bell = xasprintf("%s/%s", spool, EVSPOOL_DOORBELL);
        struct stat st;
        int fd;

        if (lstat(bell, &st) == 0 && !S_ISFIFO(st.st_mode) && unlink(bell) < 0)
                return -errno;
        if (mkfifo(bell, 0600) < 0 && errno != EEXIST)
                return -errno;
        fd = open(bell, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode)) {
                close(fd);
                return -EBADF; /* replaced under us by something else */
        }
        if ((uid != (uid_t) -1 && st.st_uid != uid) || (gid != (gid_t) -1 && st.st_gid != gid) ||
                (st.st_mode & 07777) != 0600) {
                if (fchown(fd, uid, gid) < 0 || fchmod(fd, 0600) < 0) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
        }
        *ret_fd = fd;
        return 0;
}

void evspool_doorbell_drain(int fd) {
        char buf[256];
        while (read(fd, buf, sizeof buf) > 0)
                ;
}
