/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics exporter's HTTP side (issue 31, part 2): bin/slurm-metrics serves
 * slurm/metrics.h's text at GET /metrics on a port (charm/slurmctld/metricsep.h runs it), with
 * libmicrohttpd (a thread per connection, METRICSD_CONN_MAX at most).
 *
 * Each collection runs in a forked child (proc_call_max), killed after METRICSD_SCRAPE_MS: the
 * child reads the client configuration afresh (a changed slurm.conf, a new controller order
 * are seen at the next scrape without a restart), and a controller that stops answering after
 * its ping (a slurmctld frozen mid-scrape: a 24.11 client waits on it for ever) costs the
 * tables, not the answer: a second child, bounded by METRICSD_PINGS_MS, pings the controllers
 * alone and the answer (200) has the pings and every part failed with the reason. Worst case
 * a scrape answers in METRICSD_SCRAPE_MS + 2 s per frozen controller, inside Prometheus'
 * default scrape_timeout of 10 s with one; 503 only when the pings fail too.
 * One collection at a time: a request that comes while one runs waits for it and takes its
 * answer. Answers are kept METRICSD_CACHE_MS: several scrapers, or one scraping often, cost
 * slurmctld one collection (4 RPCs and a ping per controller) per period.
 * Limits: METRICSD_CONN_MAX connections (a thread each, METRICSD_THREAD_STACK of stack),
 * METRICSD_CONN_PER_IP per address, each closed after METRICSD_CONN_TIMEOUT_S idle seconds
 * (libmicrohttpd has no deadline for a whole request: a client that sends a header line every
 * few seconds holds its slot; taking every slot needs METRICSD_CONN_MAX / METRICSD_CONN_PER_IP
 * = 128 addresses); only GET and HEAD, no request body; other paths 404.
 *
 * Returns 0 or a negative errno with one message in err. */
#pragma once

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "util/strbuf.h"

#define METRICSD_SCRAPE_MS (6 * 1000)
#define METRICSD_PINGS_MS (8 * 1000)
#define METRICSD_CACHE_MS 5000
#define METRICSD_OUT_MAX ((size_t) 64 * 1024 * 1024)
#define METRICSD_CONN_MAX 1024
#define METRICSD_CONN_PER_IP 8
#define METRICSD_THREAD_STACK ((size_t) 256 * 1024)
#define METRICSD_CONN_TIMEOUT_S 15
/* Other services' figures, appended to each answer as they are: the regular files named *.prom
 * in this directory (sorted), each owned by root, not writable by group or others, at most
 * METRICSD_FRAGMENT_MAX bytes and ending in a newline (others are skipped). The node event push
 * writes its own there (charm/slurmctld/evpush.h). */
#define METRICSD_FRAGMENT_DIR "/run/slurm-charm-metrics"
#define METRICSD_FRAGMENT_MAX ((size_t) 64 * 1024)

struct metricsd_opts {
        unsigned port;
        int cache_ms;  /* 0: METRICSD_CACHE_MS; < 0: no cache */
        int scrape_ms; /* 0: METRICSD_SCRAPE_MS */
        int pings_ms;  /* 0: METRICSD_PINGS_MS */
        /* the collection, in the child; pings_only NULL: everything, else the pings alone with
         * every part failed for that reason. NULL: metrics_collect + metrics_render (tests give
         * their own) */
        int (*collect)(void *userdata, const char *pings_only, struct strbuf *out);
        const char *fragment_dir; /* NULL: METRICSD_FRAGMENT_DIR; "": none */
        const char *in_charge_file; /* NULL: the sentinel's (SENTINEL_IN_CHARGE_FILE) */
        void *userdata;
};

/* Serves until *stop is set (checked every 200 ms). */
int metricsd_serve(const struct metricsd_opts *o, volatile sig_atomic_t *stop, struct strbuf *err);

/* The controller in charge the sentinel wrote (charm/slurmctld/sentinel.h: one line, root's,
 * not writable by others, written within METRICSD_IN_CHARGE_FRESH_S of now): 0 and the host in
 * *ret_host ("" none known; caller frees), -ESTALE when older (no sentinel looks now: no one is
 * named in charge), another negative errno when absent or malformed. */
#define METRICSD_IN_CHARGE_FRESH_S 15
int metricsd_in_charge_read(const char *file, time_t now, char **ret_host);

/* Appends the fragments of dir (above) to out; their count. */
int metricsd_fragments(const char *dir, struct strbuf *out);

/* One collection as the server makes it (in a child, bounded, then the pings alone when it
 * times out): the text in out, or a negative errno with the reason in out. */
int metricsd_scrape(const struct metricsd_opts *o, struct strbuf *out);
