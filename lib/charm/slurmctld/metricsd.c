/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics exporter's HTTP server (charm/slurmctld/metricsd.h). */
#include "util/macro.h"
#include "charm/slurmctld/metricsd.h"

#include <errno.h>
#include <microhttpd.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/proc.h"
#include "slurm/metrics.h"
#include "util/alloc.h"

#include "util/banned.h"

static int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int collect_default(void *userdata, struct strbuf *out) {
        struct metrics_snapshot s = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = metrics_collect(&s, true, &err);
        if (r < 0) {
                strbuf_addbuf(out, &err);
                return r;
        }
        metrics_render(&s, out);
        metrics_snapshot_done(&s);
        return 0;
}

int metricsd_scrape(const struct metricsd_opts *o, struct strbuf *out) {
        int ms = o->scrape_ms > 0 ? o->scrape_ms : METRICSD_SCRAPE_MS;
        int r = proc_call_max(PROC_CALL_SAME_USER, 0, ms, METRICSD_OUT_MAX, o->collect ? o->collect : collect_default,
                o->userdata, out);
        if (r == -ETIME) {
                strbuf_reset(out);
                strbuf_addf(out, "the collection took more than %d ms (slurmctld not answering?)\n", ms);
        } else if (r < 0 && !out->len)
                strbuf_addf(out, "the collection failed: %s\n", strerror(-r));
        return r < 0 ? r : 0;
}

struct server {
        const struct metricsd_opts *o;
        char *text; /* the last good answer */
        size_t len;
        int64_t at_ms;
        bool have;
};

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
        int64_t now = mono_ms();
        if (!sv->have || cache < 0 || now - sv->at_ms >= cache) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                if (metricsd_scrape(sv->o, &out) < 0)
                        return answer(c, MHD_HTTP_SERVICE_UNAVAILABLE, TEXT_PLAIN, out.buf, out.len);
                free(sv->text);
                sv->text = strbuf_detach(&out, &sv->len);
                sv->at_ms = mono_ms();
                sv->have = true;
        }
        return answer(c, MHD_HTTP_OK, EXPOSITION, sv->text, sv->len);
}

static void on_log(void *cls, const char *fmt, va_list ap) {
        (void) cls;
        vfprintf(stderr, fmt, ap);
}

int metricsd_serve(const struct metricsd_opts *o, volatile sig_atomic_t *stop, struct strbuf *err) {
        struct server sv = { .o = o };
        if (!o->port || o->port > 65535) {
                strbuf_addf(err, "no port to listen on (%u)", o->port);
                return -EINVAL;
        }
        struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
                (uint16_t) o->port, NULL, NULL, on_request, &sv,
                MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
                MHD_OPTION_CONNECTION_LIMIT, (unsigned) METRICSD_CONN_MAX,
                MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned) METRICSD_CONN_PER_IP,
                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) METRICSD_CONN_TIMEOUT_S,
                MHD_OPTION_END);
        if (!d) {
                strbuf_addf(err, "cannot listen on port %u (in use?)", o->port);
                return -EADDRINUSE;
        }
        while (!*stop)
                usleep(200 * 1000);
        MHD_stop_daemon(d);
        free(sv.text);
        return 0;
}
