/* SPDX-License-Identifier: Apache-2.0 */
#include "charm/slurmctld/evpush.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "charm/common/watcher.h"
#include "charm/slurmctld/events.h"
#include "charm/slurmctld/nodeevents.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)

#define CURSOR_MAX (64 * 1024)

static int64_t wall_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void evpush_cursor_done(struct evpush_cursor *c) {
        free(c->endpoint);
        free(c->last_id);
        free(c->error);
        *c = (struct evpush_cursor) { 0 };
}

static char *str_of(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        return cJSON_IsString(v) && v->valuestring ? xstrdup(v->valuestring) : NULL;
}

static uint64_t u64_of(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9007199254740992.0
                ? (uint64_t) v->valuedouble
                : 0;
}

int evpush_cursor_load(const char *dir, struct evpush_cursor *ret, struct strbuf *err) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EVPUSH_CURSOR_FILE), *data = NULL;
        *ret = (struct evpush_cursor) { 0 };
        int r = read_untrusted_file(path, CURSOR_MAX, &data, NULL, NULL);
        if (r == -ENOENT)
                return r;
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        _cleanup_cjson_ cJSON *o = cJSON_Parse(data);
        if (!cJSON_IsObject(o)) {
                strbuf_addf(err, "%s: not a JSON object: starting from the oldest record kept", path);
                return -EBADMSG;
        }
        ret->endpoint = str_of(o, "endpoint");
        ret->last_id = str_of(o, "last-id");
        ret->delivered = u64_of(o, "delivered");
        ret->lost = u64_of(o, "lost");
        ret->lost_ms = (int64_t) u64_of(o, "lost-ms");
        ret->error = str_of(o, "error");
        ret->error_since_ms = (int64_t) u64_of(o, "error-since-ms");
        ret->delivered_ms = (int64_t) u64_of(o, "delivered-ms");
        ret->latest = u64_of(o, "latest");
        return 0;
}

int evpush_cursor_save(const char *dir, const struct evpush_cursor *c, struct strbuf *err) {
        _cleanup_cjson_ cJSON *o = cJSON_CreateObject();
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EVPUSH_CURSOR_FILE);
        cJSON_AddStringToObject(o, "endpoint", strempty(c->endpoint));
        if (c->last_id)
                cJSON_AddStringToObject(o, "last-id", c->last_id);
        cJSON_AddNumberToObject(o, "delivered", (double) c->delivered);
        cJSON_AddNumberToObject(o, "latest", (double) c->latest);
        if (c->delivered_ms)
                cJSON_AddNumberToObject(o, "delivered-ms", (double) c->delivered_ms);
        if (c->lost) {
                cJSON_AddNumberToObject(o, "lost", (double) c->lost);
                cJSON_AddNumberToObject(o, "lost-ms", (double) c->lost_ms);
        }
        if (c->error) {
                cJSON_AddStringToObject(o, "error", c->error);
                cJSON_AddNumberToObject(o, "error-since-ms", (double) c->error_since_ms);
        }
        _cleanup_free_ char *text = cJSON_PrintUnformatted(o);
        if (!text)
                return -ENOMEM;
        int r = write_file_atomic(path, text, strlen(text), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int evpush_lock(const char *dir, int *ret_fd, struct strbuf *err) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EVPUSH_LOCK_FILE);
        _cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
                int r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(errno));
                return r;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EWOULDBLOCK)
                        return 0;
                int r = -errno;
                strbuf_addf(err, "%s: lock: %s", path, strerror(errno));
                return r;
        }
        *ret_fd = fd;
        fd = -1;
        return 1;
}

/* A record line's "id" (caller frees); NULL when it has none. */
static char *line_id(const char *line) {
        _cleanup_cjson_ cJSON *o = cJSON_Parse(line);
        return str_of(o, "id");
}

static void set_error(struct evpush_cursor *c, const char *why, int64_t now) {
        if (!c->error)
                c->error_since_ms = now;
        free(c->error);
        c->error = xstrdup(why);
}

/* The lock held is dir's push lock (not one of a directory moved away, or a file replaced). */
static int lock_is_dirs(int lock_fd, const char *dir, struct strbuf *err) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EVPUSH_LOCK_FILE);
        struct stat a, b;
        if (lock_fd < 0)
                return 0;
        if (fstat(lock_fd, &a) < 0 || lstat(path, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
                strbuf_addf(err, "%s: the push lock held is not this log's any more (moved or replaced)", path);
                return -ESTALE;
        }
        return 0;
}

/* The log's lock taken, and the identity of the directory it holds (*ret_st). */
static int lock_log(const char *dir, struct ev_held *lock, struct stat *ret_st, struct strbuf *err) {
        int r = ev_lock(dir, 0, lock, err);
        if (r < 0)
                return r;
        return fstat(lock->dir, ret_st) < 0 ? -errno : 0;
}

/* Under the log's lock: the push lock checked, the cursor loaded (*ret_fresh: none, unreadable
 * or another endpoint's) and the page after it read, the record at the cursor included. */
static int load_page(const char *dir, int lock_fd, const char *url, size_t max_records, struct evpush_cursor *c,
        bool *ret_fresh, struct ev_page *page, struct stat *ret_id, struct strbuf *err) {
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = lock_log(dir, &lock, ret_id, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *held = ev_lock_path(lock.dir);
        r = lock_is_dirs(lock_fd, held, err);
        if (r < 0)
                return r;
        r = evpush_cursor_load(held, c, &e);
        *ret_fresh = r < 0 || !streq_ptr(c->endpoint, url);
        if (r < 0 && r != -ENOENT && r != -EBADMSG) {
                strbuf_addbuf(err, &e);
                return r;
        }
        if (*ret_fresh) {
                /* another receiver, or no cursor: it gets every record kept */
                evpush_cursor_done(c);
                c->endpoint = xstrdup(url);
        }
        /* the record at the cursor too: its id tells whether the log is the same */
        uint64_t since = c->delivered > 0 ? c->delivered - 1 : 0;
        r = ev_log_read(held, true, since, max_records + (c->delivered > 0), EVPUSH_BATCH_BYTES, page, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *at = page->lines.n && c->delivered > 0 && page->first == c->delivered
                ? line_id(page->lines.v[0])
                : NULL;
        /* (an empty log is no restart: it has nothing to send, and its next record may well go
         * on from the seq delivered: second review, 2) */
        if ((page->latest > 0 && page->latest < c->delivered) || (at && c->last_id && !streq(at, c->last_id))) {
                /* a log started anew: from its first record */
                free(c->last_id);
                c->last_id = NULL;
                c->delivered = 0;
                *ret_fresh = true;
                ev_page_done(page);
                r = ev_log_read(held, true, 0, max_records, EVPUSH_BATCH_BYTES, page, err);
        } else if (page->lines.n == 1 && at && page->more) {
                /* the record at the cursor alone filled the byte bound: the page after it */
                ev_page_done(page);
                r = ev_log_read(held, true, c->delivered, max_records, EVPUSH_BATCH_BYTES, page, err);
        }
        return r;
}

/* The cursor written back under the log's lock, in the directory the round read (-ESTALE when
 * the name leads elsewhere now: nothing written, the records go again). */
static int save_cursor(const char *dir, const struct stat *id, const struct evpush_cursor *c, struct strbuf *err) {
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        struct stat st;
        int r = lock_log(dir, &lock, &st, err);
        if (r < 0)
                return r;
        if (st.st_dev != id->st_dev || st.st_ino != id->st_ino) {
                strbuf_addf(err, "%s: the log directory changed during the round", dir);
                return -ESTALE;
        }
        _cleanup_free_ char *held = ev_lock_path(lock.dir);
        return evpush_cursor_save(held, c, err);
}

int evpush_round(const char *dir, int lock_fd, const char *url, const struct http_url *u, size_t max_records,
        int timeout_ms, struct evpush_round *ret, struct strbuf *err) {
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        _cleanup_(ev_page_done) struct ev_page page = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int64_t now = wall_ms();
        bool fresh = false;
        struct stat id;
        int r;

        *ret = (struct evpush_round) { 0 };
        if (max_records == 0 || max_records > EVPUSH_BATCH_MAX)
                max_records = EVPUSH_BATCH_MAX;
        r = load_page(dir, lock_fd, url, max_records, &c, &fresh, &page, &id, err);
        if (r < 0)
                return r;
        /* the record at the cursor was delivered already */
        size_t skip = page.lines.n && c.delivered > 0 && page.first == c.delivered ? 1 : 0;
        uint64_t gone = 0;
        if (page.rotated_out > 0)
                /* rotated_out counts from the record at the cursor (read too) when there is one */
                gone = c.delivered > 0 ? page.rotated_out - 1 : page.rotated_out;
        c.latest = page.latest;
        if (gone > 0) {
                if (!fresh) {
                        /* the receiver never took these: said, and the cursor moves past them */
                        ret->lost_now = gone;
                        ret->lost_from = c.delivered + 1;
                        ret->lost_to = c.delivered + gone;
                        c.lost += gone;
                        c.lost_ms = now;
                }
                c.delivered += gone;
                free(c.last_id);
                c.last_id = NULL;
        }
        size_t n = page.lines.n - skip;
        bool more = page.more;
        uint64_t last = page.last;
        if (n > max_records) {
                /* the record at the cursor was not there to skip (rotated out): one too many */
                n = max_records;
                last = page.first + skip + n - 1;
                more = true;
        }
        ret->tried = n;
        if (n == 0) {
                /* nothing waits (a failed batch rotated out meanwhile is counted above) */
                free(c.error);
                c.error = NULL;
                r = save_cursor(dir, &id, &c, err);
                return r < 0 ? r : 0;
        }
        uint64_t first = page.first + skip;

        _cleanup_strbuf_ struct strbuf body = STRBUF_INIT;
        for (size_t i = skip; i < skip + n; i++) {
                strbuf_addstr(&body, page.lines.v[i]);
                strbuf_addch(&body, '\n');
        }
        _cleanup_free_ char *h_seq = xasprintf("X-Slurm-Charm-Seq: %" PRIu64 "-%" PRIu64, first, last);
        const char *headers[] = { h_seq, NULL };
        int status = http_post(u, "application/x-ndjson", body.buf, body.len, headers,
                timeout_ms > 0 ? timeout_ms : EVPUSH_TIMEOUT_MS, &e);
        ret->status = status > 0 ? status : 0;
        if (status >= 200 && status < 300) {
                c.delivered = last;
                free(c.last_id);
                c.last_id = line_id(page.lines.v[skip + n - 1]);
                c.delivered_ms = now;
                free(c.error);
                c.error = NULL;
                ret->sent = n;
                ret->first = first;
                ret->last = last;
                ret->more = more;
                r = save_cursor(dir, &id, &c, err);
                return r < 0 ? r : (int) n;
        }
        _cleanup_free_ char *why = status > 0
                ? xasprintf("%s answered %d to records %" PRIu64 "-%" PRIu64, u->authority, status, first, last)
                : xstrdup(e.buf);
        set_error(&c, why, now);
        (void) save_cursor(dir, &id, &c, NULL);
        strbuf_addstr(err, why);
        return status == 413 ? -EMSGSIZE : status > 0 ? -EIO : status;
}

/* --- the loop --------------------------------------------------------------------------------- */

static void say(const struct evpush_loop_opts *o, const char *fmt, ...) __attribute__((__format__(printf, 2, 3)));
static void say(const struct evpush_loop_opts *o, const char *fmt, ...) {
        if (!o->log)
                return;
        _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
        va_list ap;
        va_start(ap, fmt);
        strbuf_vaddf(&line, fmt, ap);
        va_end(ap);
        o->log(o->userdata, line.buf);
}

/* sleeps ms, waking early on a signal (the stop flag is checked by the caller) */
static void nap(int ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };
        (void) nanosleep(&ts, NULL);
}

/* the log file's identity and size: unchanged means no new record */
static void log_mark(const char *dir, char *mark, size_t n) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EV_LOG_FILE);
        struct stat st;
        if (stat(path, &st) < 0)
                snprintf(mark, n, "none");
        else
                snprintf(mark, n, "%ju:%jd:%ld:%jd", (uintmax_t) st.st_ino, (intmax_t) st.st_size,
                        (long) st.st_mtim.tv_nsec, (intmax_t) st.st_mtim.tv_sec);
}

char *evpush_endpoint_path(const struct charm_paths *paths) {
        return charm_path(paths, CHARM_PATH_STATE_DIR "/" EVPUSH_ENDPOINT_FILE);
}

int evpush_endpoint_read(const char *file, char **ret_url) {
        _cleanup_free_ char *url = NULL;
        int r = read_full_file(file, &url, NULL);
        if (r < 0)
                return r;
        url[strcspn(url, "\n")] = '\0';
        *ret_url = TAKE_PTR(url);
        return 0;
}

/* The endpoint file still says url (a missing or unreadable file does not). */
static bool endpoint_same(const char *file, const char *url) {
        _cleanup_free_ char *now = NULL;
        return !file || (evpush_endpoint_read(file, &now) >= 0 && streq(now, url));
}

static void gauge(struct strbuf *out, const char *name, const char *type, const char *help, uint64_t v) {
        strbuf_addf(out, "# HELP %s %s\n# TYPE %s %s\n%s %" PRIu64 "\n", name, help, name, type, name, v);
}

void evpush_metrics_of(const struct evpush_cursor *c, int64_t now_ms, struct strbuf *out) {
        gauge(out, "slurm_events_last_seq", "gauge", "The node event log's newest record (seq) at the last push round",
                c->latest);
        gauge(out, "slurm_events_delivered_seq", "gauge", "The last record (seq) the event receiver took",
                c->delivered);
        gauge(out, "slurm_events_waiting", "gauge", "Records of the node event log the receiver has not taken",
                c->latest > c->delivered ? c->latest - c->delivered : 0);
        gauge(out, "slurm_events_lost_total", "counter",
                "Records rotated out of the node event log before the receiver took them", c->lost);
        gauge(out, "slurm_events_push_failing_seconds", "gauge",
                "How long deliveries to the event receiver have failed (0: they work)",
                c->error && now_ms > c->error_since_ms ? (uint64_t) (now_ms - c->error_since_ms) / 1000 : 0);
        gauge(out, "slurm_events_push_timestamp_seconds", "gauge", "When the pusher wrote these figures",
                now_ms > 0 ? (uint64_t) now_ms / 1000 : 0);
}

/* The figures of dir's cursor written to file (the loop's, while it holds the lock). */
static void metrics_write(const char *dir, const char *file) {
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        (void) evpush_cursor_load(dir, &c, NULL); /* none or unreadable: zeroed */
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        evpush_metrics_of(&c, (int64_t) time(NULL) * 1000, &out);
        (void) write_file_atomic(file, out.buf, out.len, 0644, (uid_t) -1, (gid_t) -1);
}

int evpush_loop(const struct evpush_loop_opts *o, struct strbuf *err) {
        struct http_url u = { 0 };
        _cleanup_close_ int lock_fd = -1;
        _cleanup_free_ char *last_error = NULL;
        char mark[128] = "", seen[128] = "";
        int poll_ms = o->poll_ms > 0 ? o->poll_ms : EVPUSH_POLL_MS;
        int backoff_max = o->backoff_max_ms > 0 ? o->backoff_max_ms : EVPUSH_BACKOFF_MAX_MS;
        int backoff = 0, r;
        size_t batch = EVPUSH_BATCH_MAX;
        bool waiting_said = false;
        time_t metrics_at = 0;

        r = http_url_parse(o->url, &u, err);
        if (r < 0)
                return r;
        while (!*o->stop) {
                if (!endpoint_same(o->endpoint_file, o->url)) {
                        say(o, "the endpoint changed: ending (started again with the new one)");
                        break;
                }
                if (lock_fd < 0) {
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        r = evpush_lock(o->dir, &lock_fd, &e);
                        if (r <= 0) {
                                if (o->metrics_file && !waiting_said)
                                        (void) unlink(o->metrics_file); /* the pusher's figures count */
                                if (r < 0 || !waiting_said)
                                        say(o, "%s", r < 0 ? e.buf : "another controller unit pushes: waiting");
                                waiting_said = true;
                                nap(r < 0 ? backoff_max : 2 * poll_ms);
                                continue;
                        }
                        say(o, "pushing the node event log to %s", o->url);
                        waiting_said = false;
                        seen[0] = '\0';
                }
                log_mark(o->dir, mark, sizeof(mark));
                if (backoff == 0 && streq(mark, seen)) {
                        if (o->metrics_file && time(NULL) - metrics_at >= EVPUSH_METRICS_REFRESH_MS / 1000) {
                                metrics_write(o->dir, o->metrics_file);
                                metrics_at = time(NULL);
                        }
                        nap(poll_ms);
                        continue;
                }
                struct evpush_round rd;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = evpush_round(o->dir, lock_fd, o->url, &u, batch, o->timeout_ms, &rd, &e);
                if (o->metrics_file && r != -ESTALE) {
                        metrics_write(o->dir, o->metrics_file);
                        metrics_at = time(NULL);
                }
                if (rd.lost_now)
                        say(o, "%" PRIu64 " record%s (seq %" PRIu64 "-%" PRIu64
                               ") rotated out of the log before the receiver took them",
                                rd.lost_now, rd.lost_now == 1 ? "" : "s", rd.lost_from, rd.lost_to);
                if (r == -ESTALE) {
                        /* not this log's lock (moved, replaced): take the right one again */
                        say(o, "%s: taking the push lock again", e.buf);
                        close(lock_fd);
                        lock_fd = -1;
                        continue;
                }
                if (r == -EMSGSIZE && rd.tried > 1) {
                        batch = rd.tried / 2;
                        say(o, "%s: batches of %zu records from now on", e.buf, batch);
                        continue;
                }
                if (r < 0) {
                        if (!streq_ptr(last_error, e.buf))
                                say(o, "%s: retrying", e.buf);
                        free(last_error);
                        last_error = xstrdup(e.buf);
                        backoff = backoff == 0 ? EVPUSH_BACKOFF_MIN_MS : backoff * 2;
                        if (backoff > backoff_max)
                                backoff = backoff_max;
                        nap(backoff);
                        continue;
                }
                if (last_error && r > 0) {
                        say(o, "delivering again (records %" PRIu64 "-%" PRIu64 ")", rd.first, rd.last);
                        free(last_error);
                        last_error = NULL;
                }
                backoff = 0;
                if (r > 0 && rd.more)
                        continue;
                /* caught up: full batches again (a receiver's 413 may have been brief) */
                batch = EVPUSH_BATCH_MAX;
                snprintf(seen, sizeof(seen), "%s", mark);
        }
        if (o->metrics_file)
                (void) unlink(o->metrics_file); /* no pusher here now */
        http_url_done(&u);
        return 0;
}

/* --- the hook's side ----------------------------------------------------------------------------- */

int evpush_config(struct juju_ctx *ctx, char **ret_url, struct strbuf *err) {
        const char *v = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = charm_config_string(ctx, EVPUSH_CONFIG_KEY, &v, err);
        if (r < 0)
                return r;
        if (isempty(v)) {
                *ret_url = NULL;
                return 0;
        }
        struct http_url u = { 0 };
        r = http_url_parse(v, &u, &e);
        http_url_done(&u);
        if (r < 0) {
                strbuf_addf(err, EVPUSH_CONFIG_KEY ": %s", e.buf);
                return r;
        }
        *ret_url = xstrdup(v);
        return 1;
}

static const struct watcher_daemon push_daemon = {
        .unit = EVPUSH_UNIT,
        .template = EVPUSH_TEMPLATE,
        .exe = EVPUSH_EXE,
};

int evpush_apply(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit, const char *charm_dir,
        const char *url, bool restart, struct strbuf *err) {
        _cleanup_free_ char *file = evpush_endpoint_path(paths);
        if (!url)
                return 0;
        _cleanup_free_ char *text = *url ? xasprintf("%s\n", url) : NULL;
        return watcher_daemon_with_file(paths, bus, &push_daemon, file, text, 0600, juju_unit, charm_dir, restart, err);
}

static void format_age(int64_t ms, struct strbuf *out) {
        int64_t s = ms / 1000;
        if (s < 120)
                strbuf_addf(out, "%" PRId64 " s", s);
        else if (s < 7200)
                strbuf_addf(out, "%" PRId64 " min", s / 60);
        else
                strbuf_addf(out, "%" PRId64 " h", s / 3600);
}

void evpush_note_of(const struct evpush_cursor *c, int64_t now_ms, struct strbuf *message) {
        if (c->error && now_ms - c->error_since_ms >= EVPUSH_WAITING_SHOWN_MS) {
                uint64_t waiting = c->latest > c->delivered ? c->latest - c->delivered : 0;
                strbuf_addf(message, "; event push: %" PRIu64 " record%s waiting, failing for ", waiting,
                        waiting == 1 ? "" : "s");
                format_age(now_ms - c->error_since_ms, message);
                strbuf_addf(message, " (%.160s)", c->error);
        }
        if (c->lost && now_ms - c->lost_ms < EVPUSH_LOST_SHOWN_MS) {
                strbuf_addf(message, "; event push: %" PRIu64 " record%s rotated out before the receiver took "
                                     "them (last ",
                        c->lost, c->lost == 1 ? "" : "s");
                format_age(now_ms - c->lost_ms, message);
                strbuf_addstr(message, " ago)");
        }
}

void evpush_status_note(const struct charm_paths *paths, int64_t now_ms, struct strbuf *message) {
        _cleanup_free_ char *file = evpush_endpoint_path(paths), *url = NULL, *dir = nodeevents_dir(paths);
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        if (evpush_endpoint_read(file, &url) < 0)
                return;
        if (evpush_cursor_load(dir, &c, NULL) < 0 || !streq_ptr(c.endpoint, url))
                return;
        evpush_note_of(&c, now_ms, message);
}
