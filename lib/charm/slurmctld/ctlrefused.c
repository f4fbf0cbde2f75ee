/* SPDX-License-Identifier: Apache-2.0 */
/* The candidate slurm.conf files slurmctld refused at its start, remembered (see ctlrefused.h). */
#include "util/macro.h"
#include "charm/slurmctld/ctlrefused.h"

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

/* Whether a line is one of those a related application's data makes (ctlconf.h: a NodeSet and
 * a PartitionName line per application). */
static bool app_line(const char *l, size_t n) {
        while (n && (*l == ' ' || *l == '\t'))
                l++, n--;
        return (n >= 8 && strncasecmp(l, "NodeSet=", 8) == 0) ||
                (n >= 14 && strncasecmp(l, "PartitionName=", 14) == 0);
}

/* The lines of data that are (apps) or are not (!apps) an application's, in their order. */
static void split_part(const char *data, size_t len, bool apps, struct strbuf *out) {
        for (size_t i = 0; i < len;) {
                const char *nl = memchr(data + i, '\n', len - i);
                size_t n = nl ? (size_t) (nl - (data + i)) : len - i;
                if (app_line(data + i, n) == apps) {
                        strbuf_add(out, data + i, n);
                        strbuf_addch(out, '\n');
                }
                i += n + (nl ? 1 : 0);
        }
}

/* Whether a and b have the same application lines (apps) or the same other lines (!apps). */
static bool same_part(const char *a, size_t alen, const char *b, size_t blen, bool apps) {
        _cleanup_strbuf_ struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
        split_part(a, alen, apps, &x);
        split_part(b, blen, apps, &y);
        return x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0;
}

/* One remembered refusal: its marks, reason and bytes (in content, modified). */
struct record {
        bool once, global;
        const char *reason;
        const char *data;
        size_t len;
};

static bool record_parse(char *content, size_t n, struct record *ret) {
        char *nl = memchr(content, '\n', n);
        if (!nl)
                return false;
        *nl = '\0';
        *ret = (struct record){ .data = nl + 1, .len = n - (size_t) (nl + 1 - content) };
        const char *s = content, *rest;
        for (;;) {
                if ((rest = startswith(s, CTL_REFUSED_RETRY_MARK)))
                        ret->once = true;
                else if ((rest = startswith(s, CTL_REFUSED_GLOBAL_MARK)))
                        ret->global = true;
                else
                        break;
                s = rest;
        }
        ret->reason = s;
        return true;
}

int ctl_refused_verdict(bool once, int64_t at, int64_t now, const char *prefix, const char *reason,
        char **ret_reason) {
        int64_t age = now - at;
        if (age < 0 && age >= -CTL_REFUSED_SKEW_S)
                age = 0;
        if (!once || age < 0 || age >= CTL_REFUSED_RETRY_AFTER_S) {
                *ret_reason = xasprintf("%s%s", strempty(prefix), reason);
                return once ? CTL_REFUSED_RETRY : 1;
        }
        /* a timeout under the ceiling: refused for a while (every reconcile would try it at
         * once, the watcher's after the rollback's own restart), then tried once more; said
         * with the reason, as the rollback said it (a later reconcile's status is this) */
        long left_min = (long) ((CTL_REFUSED_RETRY_AFTER_S - age + 59) / 60);
        *ret_reason = xasprintf("%s%s; tried once more, with the full start time, in %ld minute%s",
                strempty(prefix), reason, left_min, left_min == 1 ? "" : "s");
        return 1;
}

/* 1 or CTL_REFUSED_RETRY for a record that matches, by its marks and its file's time (none: due). */
static int verdict(const struct record *rec, const char *path, char **ret_reason) {
        struct stat st;
        time_t now = time(NULL);
        int64_t at = stat(path, &st) == 0 ? (int64_t) st.st_mtime : (int64_t) now - CTL_REFUSED_RETRY_AFTER_S;
        return ctl_refused_verdict(rec->once, at, (int64_t) now, NULL, rec->reason, ret_reason);
}

/* A record refused for its settings alone whose settings data has: the newest one. */
static int match_global(const char *dir, const char *data, size_t len, char **ret_reason) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        _cleanup_free_ char *best = NULL, *best_content = NULL;
        struct record best_rec;
        time_t best_t = 0;
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                        !S_ISREG(st.st_mode) || (best && st.st_mtime < best_t))
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name), *content = NULL;
                size_t n = 0;
                struct record rec;
                if (read_full_file(path, &content, &n) < 0 || !record_parse(content, n, &rec) || !rec.global ||
                        !same_part(rec.data, rec.len, data, len, false))
                        continue;
                free(best);
                free(best_content);
                best = TAKE_PTR(path);
                best_content = TAKE_PTR(content); /* rec points into it */
                best_rec = rec;
                best_t = st.st_mtime;
        }
        return best ? verdict(&best_rec, best, ret_reason) : 0;
}

int ctl_refused_match(const struct charm_paths *paths, const char *data, size_t len, char **ret_reason) {
        int r = migrate_legacy(paths);
        if (r < 0)
                return r;
        _cleanup_free_ char *path = entry_path(paths, data, len), *content = NULL;
        size_t n = 0;
        r = read_full_file(path, &content, &n);
        if (r < 0 && r != -ENOENT)
                return r;
        struct record rec;
        _cleanup_free_ char *dir = refused_dir(paths);
        if (r >= 0 && record_parse(content, n, &rec) && rec.len == len && memcmp(rec.data, data, len) == 0) {
                r = verdict(&rec, path, ret_reason);
                if (r != CTL_REFUSED_RETRY)
                        return r;
                /* due for its one retry, unless its settings were refused for good since
                 * (review R3) */
                _cleanup_free_ char *why = NULL;
                if (match_global(dir, data, len, &why) == 1) {
                        free(*ret_reason);
                        *ret_reason = TAKE_PTR(why);
                        return 1;
                }
                return r;
        }
        /* not this file (none, or another with the same hash): its settings may be */
        return match_global(dir, data, len, ret_reason);
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

int ctl_refused_store(const struct charm_paths *paths, const char *data, size_t len, const char *applied,
        size_t applied_len, const char *reason, bool once, struct strbuf *err) {
        _cleanup_free_ char *dir = refused_dir(paths), *path = entry_path(paths, data, len);
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        int r = migrate_legacy(paths);
        if (r >= 0)
                r = mkdir_p(dir, 0700);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", dir, strerror(-r));
                return r;
        }
        /* the applications' lines as they run: the settings alone were refused */
        bool global = false;
        if (applied) {
                /* (settings that are the applied ones would refuse the file slurmctld runs:
                 * review R2) */
                global = same_part(data, len, applied, applied_len, true) &&
                        !same_part(data, len, applied, applied_len, false);
        }
        strbuf_addf(&s, "%s%s%.*s\n", once ? CTL_REFUSED_RETRY_MARK : "", global ? CTL_REFUSED_GLOBAL_MARK : "",
                (int) strcspn(reason, "\n"), reason);
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

int ctl_refused_forget(const struct charm_paths *paths, size_t *ret_n, struct strbuf *err) {
        _cleanup_free_ char *dir = refused_dir(paths);
        size_t n = 0;
        int r = migrate_legacy(paths);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "%s: %s", CTL_REFUSED_LEGACY_FILE, strerror(-r));
                return r;
        }
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (!d) {
                if (errno == ENOENT) {
                        *ret_n = 0;
                        return 0;
                }
                strbuf_addf(err, "%s: %s", dir, strerror(errno));
                return -errno;
        }
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                        !S_ISREG(st.st_mode))
                        continue;
                if (unlinkat(dirfd(d), de->d_name, 0) < 0) {
                        strbuf_addf(err, "%s/%s: %s", dir, de->d_name, strerror(errno));
                        return -errno;
                }
                n++;
        }
        *ret_n = n;
        return 0;
}

void ctl_refusals_clear(struct ctl_refusals *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].reason);
                free(l->v[i].unit);
        }
        free(l->v);
        *l = (struct ctl_refusals){};
}

uint64_t ctl_refused_settings_hash(const char *data, size_t len) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        split_part(data, len, false, &s);
        return fnv1a64(s.buf ? s.buf : "", s.len);
}

static int cmp_refusal_newest(const void *a, const void *b) {
        const struct ctl_refusal *x = a, *y = b;
        return x->at < y->at ? 1 : x->at > y->at ? -1 : (x->hash > y->hash) - (x->hash < y->hash);
}

int ctl_refused_list(const struct charm_paths *paths, struct ctl_refusals *ret) {
        int r = migrate_legacy(paths);
        if (r < 0)
                return r;
        _cleanup_free_ char *dir = refused_dir(paths);
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        size_t first = ret->n;
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                        !S_ISREG(st.st_mode))
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name), *content = NULL;
                size_t n = 0;
                struct record rec;
                if (read_full_file(path, &content, &n) < 0 || !record_parse(content, n, &rec))
                        continue;
                ret->v = xrealloc(ret->v, (ret->n + 1) * sizeof *ret->v);
                ret->v[ret->n++] = (struct ctl_refusal){
                        .hash = fnv1a64(rec.data, rec.len),
                        .settings = rec.global ? ctl_refused_settings_hash(rec.data, rec.len) : 0,
                        .once = rec.once,
                        .global = rec.global,
                        .at = (int64_t) st.st_mtime,
                        .reason = xstrdup(rec.reason),
                };
        }
        qsort(ret->v + first, ret->n - first, sizeof *ret->v, cmp_refusal_newest);
        return 0;
}
