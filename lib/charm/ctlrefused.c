/* SPDX-License-Identifier: Apache-2.0 */
/* The candidate slurm.conf files slurmctld refused at its start, remembered (see ctlrefused.h). */
#include "util/macro.h"
#include "charm/ctlrefused.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/strv.h"

#include "util/banned.h"

static char *refused_dir(const struct charm_paths *p) {
        _cleanup_free_ char *state = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", state, CTL_REFUSED_DIR);
}

static char *entry_path(const struct charm_paths *p, const char *data, size_t len) {
        _cleanup_free_ char *dir = refused_dir(p);
        return xasprintf("%s/%016llx", dir, (unsigned long long) fnv1a64(data, len));
}

/* The earlier charms' single file, moved in (its mtime kept by the rename). */
static int migrate_legacy(const struct charm_paths *p) {
        _cleanup_free_ char *state = charm_path(p, CHARM_PATH_STATE_DIR), *dir = refused_dir(p);
        _cleanup_free_ char *legacy = xasprintf("%s/%s", state, CTL_REFUSED_LEGACY_FILE), *content = NULL;
        size_t n = 0;
        int r = read_full_file(legacy, &content, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        char *nl = memchr(content, '\n', n);
        if (!nl) {
                (void) unlink(legacy);
                return 0;
        }
        size_t off = (size_t) (nl - content) + 1;
        r = mkdir_p(dir, 0700);
        if (r < 0)
                return r;
        _cleanup_free_ char *to = entry_path(p, content + off, n - off);
        return rename(legacy, to) < 0 ? -errno : 0;
}

int ctl_refused_match(const struct charm_paths *paths, const char *data, size_t len, char **ret_reason) {
        int r = migrate_legacy(paths);
        if (r < 0)
                return r;
        _cleanup_free_ char *path = entry_path(paths, data, len), *content = NULL;
        size_t n = 0;
        r = read_full_file(path, &content, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        char *nl = memchr(content, '\n', n);
        if (!nl)
                return 0;
        size_t off = (size_t) (nl - content) + 1;
        if (n - off != len || memcmp(content + off, data, len) != 0)
                return 0; /* another file with the same hash */
        *nl = '\0';
        size_t mark = strlen(CTL_REFUSED_RETRY_MARK);
        bool retry = strncmp(content, CTL_REFUSED_RETRY_MARK, mark) == 0;
        *ret_reason = xstrdup(content + (retry ? mark : 0));
        if (!retry)
                return 1;
        /* a timeout under the ceiling: refused for a while (every reconcile would try it at
         * once, the watcher's after the rollback's own restart), then tried once more */
        struct stat st;
        if (stat(path, &st) == 0 && time(NULL) - st.st_mtime < CTL_REFUSED_RETRY_AFTER_S)
                return 1;
        return CTL_REFUSED_RETRY;
}

struct entry {
        char *name;
        time_t mtime;
};

static int cmp_newest_first(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : strcmp(x->name, y->name);
}

/* Forgets the oldest entries beyond CTL_REFUSED_MAX. */
static void prune(const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct entry *v = NULL;
        size_t n = 0;
        if (!d)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                        !S_ISREG(st.st_mode))
                        continue;
                v = xrealloc(v, (n + 1) * sizeof *v);
                v[n++] = (struct entry){ .name = xstrdup(de->d_name), .mtime = st.st_mtime };
        }
        qsort(v, n, sizeof *v, cmp_newest_first);
        for (size_t i = 0; i < n; i++) {
                if (i >= CTL_REFUSED_MAX)
                        (void) unlinkat(dirfd(d), v[i].name, 0);
                free(v[i].name);
        }
        free(v);
}

int ctl_refused_store(const struct charm_paths *paths, const char *data, size_t len, const char *reason,
        bool once, struct strbuf *err) {
        _cleanup_free_ char *dir = refused_dir(paths), *path = entry_path(paths, data, len);
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        int r = migrate_legacy(paths);
        if (r >= 0)
                r = mkdir_p(dir, 0700);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", dir, strerror(-r));
                return r;
        }
        strbuf_addf(&s, "%s%.*s\n", once ? CTL_REFUSED_RETRY_MARK : "", (int) strcspn(reason, "\n"), reason);
        strbuf_add(&s, data, len);
        /* always written: its mtime is the refusal's time */
        r = write_file_atomic(path, s.buf, s.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        prune(dir);
        return 0;
}
