/* SPDX-License-Identifier: Apache-2.0 */
#include "util/pathres.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/macro.h"
#include "util/strbuf.h"

#include "util/banned.h"

char *path_normalize(const char *path) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        bool absolute = path[0] == '/';
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, "/");
                if (n > 0 && !(n == 1 && p[0] == '.')) {
                        if (out.len > 0 || absolute)
                                strbuf_addch(&out, '/');
                        strbuf_add(&out, p, n);
                }
                p += n;
                while (*p == '/')
                        p++;
        }
        if (out.len == 0)
                return xstrdup(absolute || !*path ? "/" : ".");
        return strbuf_detach(&out, NULL);
}

int path_is_below_or_same(const char *path, const char *dir) {
        if (streq(dir, "/"))
                return path[0] == '/';
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int has_dotdot(const char *path) {
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return 1;
                p += n;
                while (*p == '/')
                        p++;
        }
        return 0;
}

/* dir (absolute, normalized) opened below rootfd with every link resolved inside the root,
 * as a chroot would (openat2 RESOLVE_IN_ROOT): an absolute link in a machine's tree means that
 * tree's path, not the host's. */
#define OPEN_IN_ROOT_TRIES 64

static int open_in_root(int rootfd, const char *dir) {
        struct open_how how = {
                .flags = O_PATH | O_CLOEXEC,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        const char *rel = dir[1] ? dir + 1 : ".";
        /* EAGAIN: a ".." met a rename or a mount anywhere on the system during the walk (the
         * kernel cannot then show it stayed in the root: openat2(2) asks the caller to try again).
         * Atomic writes rename all the time on a busy machine: CI's charm-paths saw it through a
         * relative link ("../../var/lib") while three clusters ran. */
        long fd = -1;
        for (int i = 0; i < OPEN_IN_ROOT_TRIES; i++) {
                fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        return fd < 0 ? -errno : (int) fd;
}

int path_resolve(const char *root, const char *path, char **ret) {
        if (path[0] != '/' || has_dotdot(path))
                return -EINVAL;
        char top[PATH_MAX];
        if (!realpath(isempty(root) ? "/" : root, top))
                return -errno;
        _cleanup_close_ int rootfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return -errno;
        const bool at_top = streq(top, "/");
        _cleanup_free_ char *norm = path_normalize(path);
        /* the longest existing prefix: cut components from the end until one opens */
        _cleanup_free_ char *head = xstrdup(norm);
        size_t tail_at = strlen(norm);
        _cleanup_close_ int fd = -1;
        for (;;) {
                fd = open_in_root(rootfd, head);
                if ((fd == -ENOSYS || fd == -EPERM) && at_top) {
                        /* no openat2 (a kernel before 5.6, a seccomp filter): on this machine's own
                         * root a plain open follows links the same way (review P1) */
                        fd = open(head, O_PATH | O_CLOEXEC);
                        if (fd < 0)
                                fd = -errno;
                }
                if (fd >= 0)
                        break;
                if (fd != -ENOENT)
                        return fd;
                /* a link whose target is missing is no plain name: where it leads is decided by
                 * whoever makes the target (review P1) */
                struct stat lst;
                _cleanup_free_ char *full = xasprintf("%s%s", at_top ? "" : top, head);
                if (lstat(full, &lst) == 0 && S_ISLNK(lst.st_mode))
                        return -ENOLINK;
                char *slash = strrchr(head, '/');
                tail_at = (size_t) (slash - head);
                if (slash == head)
                        head[1] = '\0';
                else
                        *slash = '\0';
        }
        char link[64], res[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, res, sizeof res - 1);
        if (n < 0)
                return -errno;
        res[n] = '\0';
        /* res is the host's path: seen from the root (RESOLVE_IN_ROOT never leaves it, but a
         * bind mount inside the tree may show another place) */
        const char *seen = res;
        if (!at_top) {
                size_t t = strlen(top);
                if (strncmp(res, top, t) != 0 || (res[t] != '/' && res[t] != '\0'))
                        return -EXDEV;
                seen = res[t] ? res + t : "/";
        }
        const char *tail = norm + tail_at;
        *ret = streq(seen, "/") ? xstrdup(*tail ? tail : "/") : xasprintf("%s%s", seen, tail);
        return 0;
}
