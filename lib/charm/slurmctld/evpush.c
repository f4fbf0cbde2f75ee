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
        free(c->log_id);
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
        ret->log_id = str_of(o, "log-id");
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
        if (c->log_id)
                cJSON_AddStringToObject(o, "log-id", c->log_id);
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

/* The log id of a record line ("id":"<log id>-<seq>"); NULL when it has none. */
static char *line_log_id(const char *line) {
        _cleanup_cjson_ cJSON *o = cJSON_Parse(line);
        _cleanup_free_ char *id = str_of(o, "id");
        char *dash = id ? strrchr(id, '-') : NULL;
        if (!dash || dash == id)
                return NULL;
        return xstrndup(id, (size_t) (dash - id));
}

/* The page after since, under the log's lock (a rotation cannot cut it). */
static int read_page(const char *dir, uint64_t since, struct ev_page *ret, struct strbuf *err) {
        _cleanup_(ev_unlockp) struct ev_held lock = EV_HELD_INIT;
        int r = ev_lock(dir, 0, &lock, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *held = ev_lock_path(lock.dir);
        return ev_log_read(held, true, since, EVPUSH_BATCH_MAX, EVPUSH_BATCH_BYTES, ret, err);
}

static void set_error(struct evpush_cursor *c, const char *why, int64_t now) {
        if (!c->error)
                c->error_since_ms = now;
        free(c->error);
        c->error = xstrdup(why);
}

int evpush_round(const char *dir, const char *url, const struct http_url *u, int timeout_ms,
        struct evpush_round *ret, struct strbuf *err) {
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        _cleanup_(ev_page_done) struct ev_page page = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int64_t now = wall_ms();
        int r;

        *ret = (struct evpush_round) { 0 };
        r = evpush_cursor_load(dir, &c, &e);
        if (r == -EBADMSG)
                evpush_cursor_done(&c); /* unreadable: from the oldest kept (duplicates, no gap) */
        else if (r < 0 && r != -ENOENT) {
                strbuf_addbuf(err, &e);
                return r;
        }
        if (!streq_ptr(c.endpoint, url)) {
                /* another receiver: it gets every record kept */
                evpush_cursor_done(&c);
                c.endpoint = xstrdup(url);
        }
        r = read_page(dir, c.delivered, &page, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *log_id = page.lines.n ? line_log_id(page.lines.v[0]) : NULL;
        /* a log started anew (its seq restarts): from its first record */
        if ((c.log_id && log_id && !streq(c.log_id, log_id)) || page.latest < c.delivered) {
                free(c.log_id);
                c.log_id = NULL;
                c.delivered = 0;
                ev_page_done(&page);
                free(log_id);
                log_id = NULL;
                r = read_page(dir, 0, &page, err);
                if (r < 0)
                        return r;
                log_id = page.lines.n ? line_log_id(page.lines.v[0]) : NULL;
        }
        c.latest = page.latest;
        if (page.rotated_out > 0) {
                ret->lost_now = page.rotated_out;
                ret->lost_from = c.delivered + 1;
                ret->lost_to = c.delivered + page.rotated_out;
                c.lost += page.rotated_out;
                c.lost_ms = now;
                /* they are gone: the cursor moves past them, delivered or not */
                c.delivered += page.rotated_out;
        }
        if (page.lines.n == 0) {
                /* nothing waits (a failed batch rotated out meanwhile is counted above) */
                free(c.error);
                c.error = NULL;
                r = evpush_cursor_save(dir, &c, err);
                return r < 0 ? r : 0;
        }

        _cleanup_strbuf_ struct strbuf body = STRBUF_INIT;
        for (size_t i = 0; i < page.lines.n; i++) {
                strbuf_addstr(&body, page.lines.v[i]);
                strbuf_addch(&body, '\n');
        }
        _cleanup_free_ char *h_log = xasprintf("X-Slurm-Charm-Log: %s", strempty(log_id));
        _cleanup_free_ char *h_seq = xasprintf("X-Slurm-Charm-Seq: %" PRIu64 "-%" PRIu64, page.first, page.last);
        const char *headers[] = { h_log, h_seq, NULL };
        strbuf_reset(&e);
        int status = http_post(u, "application/x-ndjson", body.buf, body.len, headers,
                timeout_ms > 0 ? timeout_ms : EVPUSH_TIMEOUT_MS, &e);
        ret->status = status > 0 ? status : 0;
        if (status >= 200 && status < 300) {
                c.delivered = page.last;
                free(c.log_id);
                c.log_id = log_id ? xstrdup(log_id) : NULL;
                c.delivered_ms = now;
                free(c.error);
                c.error = NULL;
                ret->sent = page.lines.n;
                ret->first = page.first;
                ret->last = page.last;
                ret->more = page.more;
                r = evpush_cursor_save(dir, &c, err);
                return r < 0 ? r : (int) page.lines.n;
        }
        _cleanup_free_ char *why = status > 0
                ? xasprintf("%s answered %d to records %" PRIu64 "-%" PRIu64, u->authority, status, page.first,
                          page.last)
                : xstrdup(e.buf);
        set_error(&c, why, now);
        (void) evpush_cursor_save(dir, &c, NULL);
        strbuf_addstr(err, why);
        return status > 0 ? -EIO : status;
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

int evpush_loop(const struct evpush_loop_opts *o, struct strbuf *err) {
        struct http_url u = { 0 };
        _cleanup_close_ int lock_fd = -1;
        _cleanup_free_ char *last_error = NULL;
        char mark[128] = "", seen[128] = "";
        int poll_ms = o->poll_ms > 0 ? o->poll_ms : EVPUSH_POLL_MS;
        int backoff_max = o->backoff_max_ms > 0 ? o->backoff_max_ms : EVPUSH_BACKOFF_MAX_MS;
        int backoff = 0, r;
        bool waiting_said = false;

        r = http_url_parse(o->url, &u, err);
        if (r < 0)
                return r;
        while (!*o->stop) {
                if (lock_fd < 0) {
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        r = evpush_lock(o->dir, &lock_fd, &e);
                        if (r <= 0) {
                                if (r < 0 || !waiting_said)
                                        say(o, "%s", r < 0 ? e.buf : "another controller unit pushes: waiting");
                                waiting_said = true;
                                nap(r < 0 ? backoff_max : 2 * poll_ms);
                                continue;
                        }
                        say(o, "pushing the node event log to %s", o->url);
                        seen[0] = '\0';
                }
                log_mark(o->dir, mark, sizeof(mark));
                if (backoff == 0 && streq(mark, seen)) {
                        nap(poll_ms);
                        continue;
                }
                struct evpush_round rd;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = evpush_round(o->dir, o->url, &u, o->timeout_ms, &rd, &e);
                if (rd.lost_now)
                        say(o, "%" PRIu64 " record%s (seq %" PRIu64 "-%" PRIu64
                               ") rotated out of the log before the receiver took them",
                                rd.lost_now, rd.lost_now == 1 ? "" : "s", rd.lost_from, rd.lost_to);
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
                snprintf(seen, sizeof(seen), "%s", mark);
        }
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
        _cleanup_free_ char *file = charm_path(paths, CHARM_PATH_STATE_DIR "/" EVPUSH_ENDPOINT_FILE);
        int r;

        if (!url)
                return 0;
        if (!*url) {
                r = watcher_daemon_remove(paths, bus, EVPUSH_UNIT, err);
                if (r < 0)
                        return r;
                if (unlink(file) < 0 && errno != ENOENT) {
                        r = -errno;
                        strbuf_addf(err, "%s: %s", file, strerror(errno));
                        return r;
                }
                return r;
        }
        _cleanup_free_ char *text = xasprintf("%s\n", url);
        r = write_file_atomic_if_changed(file, text, strlen(text), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", file, strerror(-r));
                return r;
        }
        bool changed = r > 0;
        r = watcher_daemon_install(paths, bus, &push_daemon, juju_unit, charm_dir, restart || changed, err);
        if (r < 0)
                return r;
        return changed || r > 0;
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
        _cleanup_free_ char *file = charm_path(paths, CHARM_PATH_STATE_DIR "/" EVPUSH_ENDPOINT_FILE);
        _cleanup_free_ char *url = NULL, *dir = nodeevents_dir(paths);
        _cleanup_(evpush_cursor_done) struct evpush_cursor c = { 0 };
        if (read_full_file(file, &url, NULL) < 0)
                return;
        url[strcspn(url, "\n")] = '\0';
        if (evpush_cursor_load(dir, &c, NULL) < 0 || !streq_ptr(c.endpoint, url))
                return;
        evpush_note_of(&c, now_ms, message);
}
