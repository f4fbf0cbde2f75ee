/* SPDX-License-Identifier: Apache-2.0 */
/* A serving slurmdbd that runs but does not answer, followed between hooks: see wedgefollow.h. */
#include "util/macro.h"
#include "charm/slurmdbd/wedgefollow.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "charm/common/charm.h"
#include "charm/common/pause.h"
#include "charm/slurmdbd/slurmdbd.h"
#include "slurm/acctdb.h"
#include "util/alloc.h"
#include "util/fileio.h"

#include "util/banned.h"

bool wedgefollow_wanted(const char *service) {
        return streq_ptr(service, "slurmdbd.service");
}

bool wedgefollow_note(struct wedgefollow *f, enum wedge_told told, uint64_t stamp, int ping, uint64_t now) {
        if (told == WEDGE_TOLD_NONE) {
                /* a unit that serves again starts counting afresh */
                f->misses = 0;
                f->silent = false;
                return follow_rate_note(&f->rate, false, false, now, WEDGEFOLLOW_POLL_USEC, WEDGEFOLLOW_REASK_USEC);
        }
        /* anything but a timeout is no silence, as the reconcile's own probe judges it
         * (dbd_silent): an answer, or a failure that came at once (refused while systemd
         * restarts it, which the watcher follows anyway) */
        f->misses = ping == -ETIMEDOUT ? f->misses + 1 : 0;
        if (f->misses == 1) {
                /* one slow moment of a loaded machine is not silence: judged at the next look */
                f->rate.next_look = now + WEDGEFOLLOW_AGAIN_USEC;
                return false;
        }
        f->silent = f->misses >= 2;
        /* with its database not answering, slurmdbd's handshake fails or waits too: only a
         * handshake that succeeds is news then (the database is back) */
        bool differs = told == WEDGE_TOLD_DB ? ping == 0 : f->silent != (told == WEDGE_TOLD_SILENT);
        /* the once-a-minute bound is for one disagreement that a run did not end: a status
         * rewritten since the last ask (another run said something else, maybe back and forth
         * between two looks) is a new one */
        if (differs && stamp != f->asked_stamp)
                f->rate.asked_at = 0;
        bool ask = follow_rate_note(&f->rate, differs, true, now, WEDGEFOLLOW_POLL_USEC, WEDGEFOLLOW_REASK_USEC);
        if (ask)
                f->asked_stamp = stamp;
        return ask;
}

static char *serving_path(const char *root) {
        const struct charm_paths p = { .root = root };
        _cleanup_free_ char *dir = charm_path(&p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, WEDGEFOLLOW_SERVING_FILE);
}

#define TOLD_SILENT "silent\n"
#define TOLD_ANSWERS "answers\n"
#define TOLD_DB "database\n"

enum wedge_told wedgefollow_told(const char *root, uint64_t *ret_stamp) {
        const struct charm_paths p = { .root = root };
        _cleanup_free_ char *serving = serving_path(root), *data = NULL;
        struct stat st;
        if (ret_stamp)
                *ret_stamp = 0;
        /* (the stamp first: a rewrite between the two reads then shows as a change next time) */
        if (charm_paused(&p, NULL) != 0 || stat(serving, &st) < 0 || read_full_file(serving, &data, NULL) < 0)
                return WEDGE_TOLD_NONE;
        /* the time and the inode: each rewrite is a new file renamed into place (two rewrites
         * within one tick of the file system's clock still differ) */
        if (ret_stamp)
                *ret_stamp = ((uint64_t) st.st_mtim.tv_sec * 1000000000ULL + (uint64_t) st.st_mtim.tv_nsec) ^
                             ((uint64_t) st.st_ino * 0x9E3779B97F4A7C15ULL);
        return streq(data, TOLD_SILENT) ? WEDGE_TOLD_SILENT
               : streq(data, TOLD_DB)    ? WEDGE_TOLD_DB
                                         : WEDGE_TOLD_ANSWERS;
}

int wedgefollow_look(struct wedgefollow *f, const char *root, uint64_t now) {
        if (now < f->rate.next_look)
                return 0;
        const struct charm_paths p = { .root = root };
        _cleanup_free_ char *client_conf = charm_path(&p, SLURMDBD_CLIENT_CONF_PATH);
        uint64_t stamp;
        enum wedge_told told = wedgefollow_told(root, &stamp);
        int ping = -ENOENT;
        /* the handshake reads the clients' file (this unit's slurmdbd first), in the child
         * alone: libslurm initialised in this long-lived process would keep the file's first
         * contents (and its threads) for ever */
        if (told != WEDGE_TOLD_NONE)
                ping = acctdb_ping_conf_within(client_conf, WEDGEFOLLOW_ANSWER_MS, NULL);
        return wedgefollow_note(f, told, stamp, ping, now) ? 1 : 0;
}

int wedgefollow_serving(const char *root, enum wedge_told told) {
        _cleanup_free_ char *path = serving_path(root);
        if (told == WEDGE_TOLD_NONE)
                return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
        const struct charm_paths p = { .root = root };
        _cleanup_free_ char *dir = charm_path(&p, CHARM_PATH_STATE_DIR);
        int r = mkdir_p(dir, 0700);
        const char *v = told == WEDGE_TOLD_SILENT ? TOLD_SILENT : told == WEDGE_TOLD_DB ? TOLD_DB : TOLD_ANSWERS;
        if (r >= 0)
                r = write_file_atomic_if_changed(path, v, strlen(v), 0600, (uid_t) -1, (gid_t) -1);
        return r < 0 ? r : 0;
}
