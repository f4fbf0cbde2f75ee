/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/evshare: a unit's node event log directory becomes a link to the one
 * log in the shared state save location: made when there is nothing, kept when in place,
 * replaced when the place moved; a local log moved there when the shared place has none (its
 * bytes intact, nothing left behind), kept aside when it has one (the shared log untouched);
 * a shared directory that is not root's, or writable by others, or a link, refused with
 * nothing changed; and a writer that waited on the old lock takes the shared one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/events.h"
#include "charm/slurmctld/evshare.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "tmpdir.h"

#include "evwaiter.h"

#include "util/banned.h"

struct fx {
        char *top, *local, *shared, *save;
};

static int setup(void **state) {
        struct fx *f = xcalloc(1, sizeof(*f));
        f->top = test_tmpdir_make("test-charm-evshare");
        assert_non_null(f->top);
        f->local = xasprintf("%s/state/events", f->top);
        f->save = xasprintf("%s/statesave", f->top);
        f->shared = evshare_dir(f->save);
        assert_int_equal(mkdir_p(f->save, 0755), 0);
        _cleanup_free_ char *st = xasprintf("%s/state", f->top);
        assert_int_equal(mkdir_p(st, 0700), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        struct fx *f = *state;
        test_tmpdir_remove(f->top);
        free(f->local);
        free(f->shared);
        free(f->save);
        free(f);
        return 0;
}

/* Where the link leads (the test's directories hold no other link). */
static char *resolved(const char *path) {
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
                return NULL;
        return realpath(path, NULL);
}

static void test_link_text(void **state) {
        static const struct {
                const char *local, *shared, *want;
        } cases[] = {
                { "/var/lib/slurm/charm/events", "/srv/slurm-state/charm-events",
                        "../../../../srv/slurm-state/charm-events" },
                { "/var/lib/slurm/charm/events", "/var/lib/slurm/state/charm-events", "../state/charm-events" },
                { "/var/lib/slurm/charm/events", "/var/lib/slurm/charm/x", "x" },
                { "//var/./lib//charm/events", "/var/spool/slurmctld/charm-events",
                        "../../spool/slurmctld/charm-events" },
                { "/a/events", "/charm-events", "../charm-events" },
                { "/a/events", "/a/b/../charm-events", "/a/b/../charm-events" }, /* ".." kept absolute */
                { "relative/events", "/x/charm-events", "/x/charm-events" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *t = evshare_link_text(cases[i].local, cases[i].shared);
                assert_string_equal(t, cases[i].want);
        }
}

static void put(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        assert_int_equal(mkdir_p(dir, 0700), 0);
        assert_int_equal(write_file_atomic(p, text, strlen(text), 0600, (uid_t) -1, (gid_t) -1), 0);
}

static char *get(const char *dir, const char *name) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        char *data = NULL;
        return read_full_file(p, &data, NULL) < 0 ? NULL : data;
}

static bool root(void) {
        return geteuid() == 0;
}

static void test_link_made_kept_moved(void **state) {
        struct fx *f = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        enum evshare_how how = -1;
        if (!root())
                skip(); /* the shared directory must be root's */
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), 0);
        assert_int_equal(how, EVSHARE_LINKED);
        _cleanup_free_ char *l = resolved(f->local);
        assert_string_equal(l, f->shared);
        struct stat st;
        assert_int_equal(lstat(f->shared, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0700);
        /* in place: nothing done */
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), 0);
        assert_int_equal(how, EVSHARE_SAME);
        /* the state save location moved: the link follows */
        _cleanup_free_ char *save2 = xasprintf("%s/statesave2", f->top);
        _cleanup_free_ char *shared2 = evshare_dir(save2);
        assert_int_equal(mkdir_p(save2, 0755), 0);
        assert_int_equal(evshare_place(f->local, shared2, &how, &err), 0);
        assert_int_equal(how, EVSHARE_LINKED);
        _cleanup_free_ char *l2 = resolved(f->local);
        assert_string_equal(l2, shared2);
        assert_int_equal(err.len, 0);
}

static void test_local_log_moved(void **state) {
        struct fx *f = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        enum evshare_how how = -1;
        if (!root())
                skip();
        put(f->local, EV_STATE_FILE, "{\"state\":1}\n");
        put(f->local, EV_LOG_FILE, "{\"seq\":1}\n{\"seq\":2}\n");
        put(f->local, EV_LOG_OLD_FILE, "{\"seq\":0}\n");
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), 0);
        assert_int_equal(how, EVSHARE_MOVED);
        _cleanup_free_ char *l = resolved(f->local);
        assert_string_equal(l, f->shared);
        /* the same bytes, read through the link and in the shared place */
        _cleanup_free_ char *a = get(f->local, EV_LOG_FILE), *b = get(f->shared, EV_LOG_FILE),
                            *c = get(f->shared, EV_STATE_FILE), *d = get(f->shared, EV_LOG_OLD_FILE);
        assert_string_equal(a, "{\"seq\":1}\n{\"seq\":2}\n");
        assert_string_equal(b, a);
        assert_string_equal(c, "{\"state\":1}\n");
        assert_string_equal(d, "{\"seq\":0}\n");
        /* nothing left beside it */
        _cleanup_free_ char *st = xasprintf("%s/state", f->top);
        _cleanup_free_ char *aside = xasprintf("%s%s", f->local, EVSHARE_ASIDE_SUFFIX);
        assert_int_equal(access(aside, F_OK), -1);
        _cleanup_free_ char *moving = xasprintf("%s.moving-%ld", f->local, (long) getpid());
        assert_int_equal(access(moving, F_OK), -1);
}

static void test_local_log_kept_aside(void **state) {
        struct fx *f = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        enum evshare_how how = -1;
        if (!root())
                skip();
        assert_int_equal(mkdir(f->shared, 0700), 0);
        put(f->shared, EV_STATE_FILE, "{\"shared\":1}\n");
        put(f->shared, EV_LOG_FILE, "{\"seq\":7}\n");
        put(f->local, EV_STATE_FILE, "{\"mine\":1}\n");
        put(f->local, EV_LOG_FILE, "{\"seq\":1}\n");
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), 0);
        assert_int_equal(how, EVSHARE_ASIDE);
        _cleanup_free_ char *aside = xasprintf("%s%s", f->local, EVSHARE_ASIDE_SUFFIX);
        _cleanup_free_ char *kept = get(aside, EV_LOG_FILE), *shared = get(f->local, EV_LOG_FILE),
                            *sstate = get(f->shared, EV_STATE_FILE);
        assert_string_equal(kept, "{\"seq\":1}\n");
        assert_string_equal(shared, "{\"seq\":7}\n");
        assert_string_equal(sstate, "{\"shared\":1}\n");
        /* a second local log later (an action before the unit joined again): another name */
        assert_int_equal(unlink(f->local), 0);
        put(f->local, EV_STATE_FILE, "{\"mine\":2}\n");
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), 0);
        assert_int_equal(how, EVSHARE_ASIDE);
        _cleanup_free_ char *first = get(aside, EV_STATE_FILE);
        assert_string_equal(first, "{\"mine\":1}\n"); /* the first one kept as it was */
}

static void test_refused(void **state) {
        struct fx *f = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        enum evshare_how how = EVSHARE_SAME;
        if (!root())
                skip();
        put(f->local, EV_LOG_FILE, "{\"seq\":1}\n");
        /* writable by others */
        assert_int_equal(mkdir(f->shared, 0700), 0);
        assert_int_equal(chmod(f->shared, 0777), 0);
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), -EPERM);
        assert_non_null(strstr(err.buf, "only root writes"));
        /* another owner */
        assert_int_equal(chmod(f->shared, 0700), 0);
        assert_int_equal(chown(f->shared, 1, 1), 0);
        strbuf_reset(&err);
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), -EPERM);
        /* a link (SlurmUser could point it anywhere) */
        assert_int_equal(rmdir(f->shared), 0);
        assert_int_equal(symlink("/etc", f->shared), 0);
        strbuf_reset(&err);
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), -EPERM);
        /* nothing changed: the local log is where it was */
        struct stat st;
        assert_int_equal(lstat(f->local, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        _cleanup_free_ char *log = get(f->local, EV_LOG_FILE);
        assert_string_equal(log, "{\"seq\":1}\n");
        /* neither a directory nor a link */
        assert_int_equal(unlink(f->shared), 0);
        _cleanup_free_ char *plain = xasprintf("%s/state/plain", f->top);
        put(f->top, "state/plain", "x");
        strbuf_reset(&err);
        assert_int_equal(evshare_place(plain, f->shared, &how, &err), -ENOTDIR);
}

static void test_waiting_writer_follows(void **state) {
        struct fx *f = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        enum evshare_how how;
        if (!root())
                skip();
        put(f->local, EV_STATE_FILE, "{}\n");
        /* hold the local lock, start a writer that waits on it, then place (which must wait for
         * us too: it takes the local lock first), in that order */
        _cleanup_(ev_unlockp) struct ev_held held = EV_HELD_INIT;
        assert_int_equal(ev_lock(f->local, 0, &held, NULL), 0);
        struct ev_waiter w = { .dir = f->local, .r = 1, .held = EV_HELD_INIT };
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, ev_waiter_run, &w), 0);
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        /* the move itself, as another process would do it once the writer is done: here the
         * old lock is released first, the waiter gets it, finds the link and retries */
        assert_int_equal(mkdir(f->shared, 0700), 0);
        _cleanup_(ev_unlockp) struct ev_held shared_lock = EV_HELD_INIT;
        assert_int_equal(ev_lock(f->shared, 0, &shared_lock, NULL), 0);
        _cleanup_free_ char *away = xasprintf("%s.old", f->local);
        assert_int_equal(rename(f->local, away), 0);
        _cleanup_free_ char *text = evshare_link_text(f->local, f->shared);
        assert_int_equal(symlink(text, f->local), 0);
        ev_unlock(&held);
        nanosleep(&ts, NULL);
        /* the waiter now waits on the shared lock we hold */
        assert_int_equal(w.r, 1);
        ev_unlock(&shared_lock);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(w.r, 0);
        /* it holds the shared lock: nobody else gets it */
        _cleanup_(ev_unlockp) struct ev_held again = EV_HELD_INIT;
        assert_int_equal(ev_lock(f->shared, 100, &again, NULL), -ETIMEDOUT);
        ev_unlock(&w.held);
        /* and evshare_place on the link now is a no-op */
        assert_int_equal(evshare_place(f->local, f->shared, &how, &err), 0);
        assert_int_equal(how, EVSHARE_SAME);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_link_text),
                cmocka_unit_test_setup_teardown(test_link_made_kept_moved, setup, teardown),
                cmocka_unit_test_setup_teardown(test_local_log_moved, setup, teardown),
                cmocka_unit_test_setup_teardown(test_local_log_kept_aside, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_waiting_writer_follows, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
