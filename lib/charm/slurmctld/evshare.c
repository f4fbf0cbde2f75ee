/* SPDX-License-Identifier: Apache-2.0 */
/* One node event log for every controller unit, in the shared state save location. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/evshare.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "charm/slurmctld/events.h"
#include "util/fileio.h"
#include "util/strv.h"

#include "util/banned.h"

char *evshare_dir(const char *state_save_dir) {
        return xasprintf("%s/%s", state_save_dir, EVSHARE_SUBDIR);
}

/* "node event log: <what> <path>: <error>" */
static int fail(struct strbuf *err, int r, const char *what, const char *path) {
        strbuf_addf(err, "node event log: %s%s%s: %s", what, *what ? " " : "", path, strerror(-r));
        return r;
}

/* The shared directory made (root's, 0700) and checked: root follows the link into a
 * directory SlurmUser owns, so it must be a real directory of root's that nobody else writes. */
static int shared_ensure(const char *shared, struct strbuf *err) {
        struct stat st;
        if (mkdir(shared, 0700) < 0 && errno != EEXIST)
                return fail(err, -errno, "cannot make", shared);
        if (lstat(shared, &st) < 0)
                return fail(err, -errno, "", shared);
        if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
                strbuf_addf(err,
                        "node event log: %s is not a directory of root's that only root writes (mode %o, "
                        "owner %u): refused",
                        shared, (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid);
                return -EPERM;
        }
        return 0;
}

/* The components of an absolute path ("" and "." left out). */
static void components(const char *path, struct strv *ret) {
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, "/");
                if (n > 0 && !(n == 1 && p[0] == '.'))
                        strv_pushf(ret, "%.*s", (int) n, p);
                p += n;
                p += strspn(p, "/");
        }
}

char *evshare_link_text(const char *local, const char *shared) {
        if (local[0] != '/' || shared[0] != '/' || strstr(local, "/..") || strstr(shared, "/.."))
                return xstrdup(shared);
        _cleanup_strv_ struct strv from = STRV_INIT, to = STRV_INIT;
        components(local, &from);
        components(shared, &to);
        if (from.n == 0)
                return xstrdup(shared);
        size_t dir_n = from.n - 1, common = 0; /* the link's directory: local without its name */
        while (common < dir_n && common < to.n && streq(from.v[common], to.v[common]))
                common++;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        for (size_t i = common; i < dir_n; i++)
                strbuf_addstr(&out, "../");
        for (size_t i = common; i < to.n; i++)
                strbuf_addf(&out, "%s%s", to.v[i], i + 1 < to.n ? "/" : "");
        if (out.len == 0)
                strbuf_addstr(&out, ".");
        return strbuf_detach(&out, NULL);
}

/* Replaces local by a symlink to shared, atomically (a temporary link renamed over it; local
 * must not be a directory). */
static int link_to(const char *local, const char *shared, struct strbuf *err) {
        _cleanup_free_ char *tmp = xasprintf("%s.link-%ld", local, (long) getpid());
        _cleanup_free_ char *text = evshare_link_text(local, shared);
        (void) unlink(tmp);
        if (symlink(text, tmp) < 0)
                return fail(err, -errno, "symlink", tmp);
        if (rename(tmp, local) < 0) {
                int r = -errno;
                (void) unlink(tmp);
                return fail(err, r, "rename to", local);
        }
        return 0;
}

static bool file_exists(const char *dir, const char *name) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        return access(p, F_OK) == 0;
}

/* Copies the regular files of from into to (the lock and temporaries left), each atomically
 * and with its mode. */
static int copy_log(const char *from, const char *to, struct strbuf *err) {
        _cleanup_closedir_ DIR *d = opendir(from);
        struct dirent *de;
        if (!d)
                return fail(err, -errno, "", from);
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' || streq(de->d_name, EV_LOCK_FILE))
                        continue;
                _cleanup_free_ char *src = xasprintf("%s/%s", from, de->d_name);
                _cleanup_free_ char *dst = xasprintf("%s/%s", to, de->d_name);
                _cleanup_free_ char *data = NULL;
                size_t len = 0;
                struct stat st;
                if (lstat(src, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                int r = read_untrusted_file(src, FILEIO_READ_MAX, &data, &len, &st);
                if (r == -ELOOP || r == -EINVAL)
                        continue; /* no longer a regular file */
                if (r < 0)
                        return fail(err, r, "read", src);
                r = write_file_atomic(dst, data, len, st.st_mode & 0777, 0, 0);
                if (r < 0)
                        return fail(err, r, "write", dst);
        }
        return 0;
}

/* Removes the regular files of dir, then dir. */
static void remove_dir(const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                _cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name);
                (void) unlink(p);
        }
        (void) rmdir(dir);
}

/* A name for the local log kept aside that is not taken. */
static char *aside_name(const char *local) {
        char *p = xasprintf("%s%s", local, EVSHARE_ASIDE_SUFFIX);
        if (access(p, F_OK) < 0)
                return p;
        free(p);
        return xasprintf("%s%s.%lld", local, EVSHARE_ASIDE_SUFFIX, (long long) time(NULL));
}

/* local is a directory: its log moved or kept aside, then the link. */
static int join(const char *local, const char *shared, enum evshare_how *how, struct strbuf *err) {
        _cleanup_(ev_unlockp) struct ev_held lock_local = EV_HELD_INIT, lock_shared = EV_HELD_INIT;
        int r;
        /* no reconcile on this unit (hook, watcher, action) between the copy and the link */
        r = ev_lock(local, 0, &lock_local, err);
        if (r >= 0)
                r = ev_lock(shared, 0, &lock_shared, err);
        if (r < 0)
                return r;
        /* the copy goes into the shared directory locked, not what its name leads to now */
        _cleanup_free_ char *shared_held = ev_lock_path(lock_shared.dir);
        bool moving = file_exists(local, EV_STATE_FILE) && !file_exists(shared_held, EV_STATE_FILE);
        _cleanup_free_ char *away = moving ? xasprintf("%s.moving-%ld", local, (long) getpid())
                                           : aside_name(local);
        if (moving) {
                r = copy_log(local, shared_held, err);
                if (r < 0)
                        return r;
        }
        if (rename(local, away) < 0)
                return fail(err, -errno, "cannot move aside", local);
        r = link_to(local, shared, err);
        if (r < 0) {
                (void) rename(away, local); /* as it was */
                return r;
        }
        if (moving)
                remove_dir(away);
        *how = moving ? EVSHARE_MOVED : EVSHARE_ASIDE;
        return 0;
}

int evshare_place(const char *local, const char *shared, enum evshare_how *ret_how, struct strbuf *err) {
        enum evshare_how how = EVSHARE_SAME;
        struct stat st;
        int r = shared_ensure(shared, err);
        if (r < 0)
                return r;
        if (lstat(local, &st) < 0) {
                if (errno != ENOENT)
                        return fail(err, -errno, "", local);
                r = link_to(local, shared, err);
                how = EVSHARE_LINKED;
        } else if (S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t n = readlink(local, target, sizeof target - 1);
                if (n < 0)
                        return fail(err, -errno, "readlink", local);
                target[n] = '\0';
                _cleanup_free_ char *text = evshare_link_text(local, shared);
                if (!streq(target, text)) {
                        r = link_to(local, shared, err);
                        how = EVSHARE_LINKED;
                }
        } else if (S_ISDIR(st.st_mode)) {
                r = join(local, shared, &how, err);
        } else {
                strbuf_addf(err, "node event log: %s is neither a directory nor a link", local);
                r = -ENOTDIR;
        }
        if (r >= 0 && ret_how)
                *ret_how = how;
        return r < 0 ? r : 0;
}
