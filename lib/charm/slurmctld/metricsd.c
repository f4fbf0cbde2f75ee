/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics exporter's HTTP server (charm/slurmctld/metricsd.h). */
#include "util/macro.h"
#include "charm/slurmctld/metricsd.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <microhttpd.h>
#include <systemd/sd-daemon.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "charm/slurmctld/sentinel.h"
#include "proc/proc.h"
#include "slurm/metrics.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strv.h"

#include "util/banned.h"

static int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int metricsd_in_charge_read(const char *file, time_t now, char **ret_host) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        struct stat st;
        *ret_host = NULL;
        int r = read_untrusted_file(file, 512, &data, &len, &st);
        if (r < 0)
                return r;
        if (st.st_uid != 0 || (st.st_mode & 022) || !len || data[len - 1] != '\n' || memchr(data, '\0', len))
                return -EINVAL;
        if (now - st.st_mtime > METRICSD_IN_CHARGE_FRESH_S || st.st_mtime - now > METRICSD_IN_CHARGE_FRESH_S)
                return -ESTALE;
        data[len - 1] = '\0';
        if (strchr(data, '\n'))
                return -EINVAL;
        *ret_host = TAKE_PTR(data);
        return 0;
}

static int collect_default(void *userdata, const char *pings_only, struct strbuf *out) {
        const char *in_charge_file = userdata;
        struct metrics_snapshot s = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = metrics_collect(&s, !pings_only, &err);
        if (r < 0) {
                strbuf_addbuf(out, &err);
                return r;
        }
        _cleanup_free_ char *host = NULL;
        if (in_charge_file && metricsd_in_charge_read(in_charge_file, time(NULL), &host) >= 0)
                metrics_in_charge_set(&s, host);
        if (pings_only)
                metrics_parts_failed(&s, pings_only);
        metrics_render(&s, out);
        metrics_snapshot_done(&s);
        return 0;
}

struct call {
        const struct metricsd_opts *o;
        const char *pings_only;
};

/* In the child of proc_call_max(). */
static int call_child(void *userdata, struct strbuf *out) {
        const struct call *c = userdata;
        return c->o->collect ? c->o->collect(c->o->userdata, c->pings_only, out)
                             : collect_default((void *) (c->o->in_charge_file ? c->o->in_charge_file
                                                                              : SENTINEL_IN_CHARGE_FILE),
                                       c->pings_only, out);
}

int metricsd_scrape(const struct metricsd_opts *o, struct strbuf *out) {
        int ms = o->scrape_ms > 0 ? o->scrape_ms : METRICSD_SCRAPE_MS;
        struct call c = { .o = o };
        int r = proc_call_max(PROC_CALL_SAME_USER, 0, ms, METRICSD_OUT_MAX, call_child, &c, out);
        if (r != -ETIME) {
                if (r < 0 && !out->len)
                        strbuf_addf(out, "the collection failed: %s\n", strerror(-r));
                return r < 0 ? r : 0;
        }
        /* the tables did not come in time (a controller that answered the ping stopped, or is
         * too busy): the pings alone, bounded, with every part said failed and why */
        char why[128];
        snprintf(why, sizeof(why), "the collection took more than %d ms", ms);
        int pms = o->pings_ms > 0 ? o->pings_ms : METRICSD_PINGS_MS;
        c.pings_only = why;
        strbuf_reset(out);
        r = proc_call_max(PROC_CALL_SAME_USER, 0, pms, METRICSD_OUT_MAX, call_child, &c, out);
        if (r >= 0)
                return 0;
        strbuf_reset(out);
        strbuf_addf(out, "%s (slurmctld not answering?), and the pings alone %s\n", why,
                r == -ETIME ? "too" : strerror(-r));
        return r == -ETIME ? -ETIME : r;
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int metricsd_fragments(const char *dir, struct strbuf *out) {
        DIR *d = opendir(dir);
        if (!d)
                return 0;
        _cleanup_strv_ struct strv names = STRV_INIT;
        struct dirent *de;
        while ((de = readdir(d))) {
                size_t n = strlen(de->d_name);
                if (de->d_name[0] != '.' && n > 5 && streq(de->d_name + n - 5, ".prom"))
                        strv_push(&names, de->d_name);
        }
        closedir(d);
        if (names.n > 1)
                qsort(names.v, names.n, sizeof(*names.v), name_cmp);
        int count = 0;
        for (size_t i = 0; i < names.n; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, names.v[i]), *data = NULL;
                size_t len = 0;
                struct stat st;
                if (read_untrusted_file(path, METRICSD_FRAGMENT_MAX, &data, &len, &st) < 0 || st.st_uid != 0 ||
                        (st.st_mode & 022) || !len || data[len - 1] != '\n')
                        continue;
                strbuf_add(out, data, len);
                count++;
        }
        return count;
}

/* One collection at a time: a request that comes while one runs waits for it and takes its
 * answer (a stuck collection holds no request past its own bound, and never starts a second). */
struct server {
        const struct metricsd_opts *o;
        pthread_mutex_t lock;
        pthread_cond_t done;
        bool busy;      /* a collection runs */
        bool have;      /* an answer is kept */
        unsigned status;/* the kept answer: 200 or 503 */
        char *text;
        size_t len;
        int64_t at_ms;
        uint64_t gen;   /* collections finished */
        struct strbuf in_charge; /* the controller in charge at the last collection that knew */
        uint64_t failovers;
};

/* Counts a change of the controller in charge, and appends the counter to an answer. */
static void count_failover(struct server *sv, struct strbuf *text) {
        _cleanup_strbuf_ struct strbuf now = STRBUF_INIT;
        if (metrics_text_in_charge(text->buf, text->len, &now)) {
                if (sv->in_charge.len && !streq(sv->in_charge.buf, now.buf))
                        sv->failovers++;
                strbuf_reset(&sv->in_charge);
                strbuf_addbuf(&sv->in_charge, &now);
        }
        metrics_render_failovers(sv->failovers, text);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type, const char *body,
        size_t len) {
        struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *) body, MHD_RESPMEM_MUST_COPY);
        if (!resp)
                return MHD_NO;
        (void) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                (void) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        enum MHD_Result r = MHD_queue_response(c, status, resp);
        MHD_destroy_response(resp);
        return r;
}

#define TEXT_PLAIN "text/plain; charset=utf-8"
#define EXPOSITION "text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
        const char *version, const char *upload_data, size_t *upload_data_size, void **req_cls) {
        struct server *sv = cls;
        static int headers_seen, body_seen;
        if (!*req_cls) {
                /* headers only so far: another method is refused at once, before any body */
                if (!streq(method, MHD_HTTP_METHOD_GET) && !streq(method, MHD_HTTP_METHOD_HEAD)) {
                        static const char msg[] = "only GET and HEAD\n";
                        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, TEXT_PLAIN, msg, sizeof(msg) - 1);
                }
                *req_cls = &headers_seen;
                return MHD_YES;
        }
        if (*upload_data_size) { /* a body is read and dropped, then refused */
                *upload_data_size = 0;
                *req_cls = &body_seen;
                return MHD_YES;
        }
        if (*req_cls == &body_seen) {
                static const char msg[] = "no request body is taken\n";
                return answer(c, MHD_HTTP_BAD_REQUEST, TEXT_PLAIN, msg, sizeof(msg) - 1);
        }
        if (streq(url, "/")) {
                static const char msg[] = "Slurm metrics: /metrics\n";
                return answer(c, MHD_HTTP_OK, TEXT_PLAIN, msg, sizeof(msg) - 1);
        }
        if (!streq(url, "/metrics")) {
                static const char msg[] = "not found: the metrics are at /metrics\n";
                return answer(c, MHD_HTTP_NOT_FOUND, TEXT_PLAIN, msg, sizeof(msg) - 1);
        }
        int cache = sv->o->cache_ms ? sv->o->cache_ms : METRICSD_CACHE_MS;
        pthread_mutex_lock(&sv->lock);
        uint64_t gen = sv->gen;
        bool waited = false;
        while (sv->busy) {
                pthread_cond_wait(&sv->done, &sv->lock);
                waited = true;
        }
        bool fresh = sv->have && cache >= 0 && mono_ms() - sv->at_ms < cache;
        if (!(fresh || (waited && sv->gen != gen))) {
                sv->busy = true;
                pthread_mutex_unlock(&sv->lock);
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                int r = metricsd_scrape(sv->o, &out);
                pthread_mutex_lock(&sv->lock);
                if (r >= 0) {
                        count_failover(sv, &out);
                        const char *fd = sv->o->fragment_dir ? sv->o->fragment_dir : METRICSD_FRAGMENT_DIR;
                        if (*fd)
                                (void) metricsd_fragments(fd, &out);
                }
                free(sv->text);
                sv->status = r < 0 ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK;
                sv->text = strbuf_detach(&out, &sv->len);
                sv->at_ms = mono_ms();
                sv->have = true;
                sv->busy = false;
                sv->gen++;
                pthread_cond_broadcast(&sv->done);
        }
        enum MHD_Result res = answer(c, sv->status, sv->status == MHD_HTTP_OK ? EXPOSITION : TEXT_PLAIN,
                sv->text ? sv->text : "", sv->len);
        pthread_mutex_unlock(&sv->lock);
        return res;
}

static void on_log(void *cls, const char *fmt, va_list ap) {
        (void) cls;
        vfprintf(stderr, fmt, ap);
}

int metricsd_serve(const struct metricsd_opts *o, volatile sig_atomic_t *stop, struct strbuf *err) {
        struct server sv = { .o = o, .lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER,
                .in_charge = STRBUF_INIT };
        if (!o->port || o->port > 65535) {
                strbuf_addf(err, "no port to listen on (%u)", o->port);
                return -EINVAL;
        }
        struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG,
                (uint16_t) o->port, NULL, NULL, on_request, &sv,
                MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
                MHD_OPTION_CONNECTION_LIMIT, (unsigned) METRICSD_CONN_MAX,
                MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned) METRICSD_CONN_PER_IP,
                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) METRICSD_CONN_TIMEOUT_S,
                MHD_OPTION_THREAD_STACK_SIZE, METRICSD_THREAD_STACK,
                MHD_OPTION_END);
        if (!d) {
                strbuf_addf(err, "cannot listen on port %u (in use?)", o->port);
                return -EADDRINUSE;
        }
        /* Type=notify: systemd says "active" from here on (no NOTIFY_SOCKET: nothing to do) */
        (void) sd_notify(0, "READY=1");
        while (!*stop)
                usleep(200 * 1000);
        MHD_stop_daemon(d);
        free(sv.text);
        strbuf_release(&sv.in_charge);
        pthread_mutex_destroy(&sv.lock);
        pthread_cond_destroy(&sv.done);
        return 0;
}
