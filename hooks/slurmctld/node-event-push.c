/* SPDX-License-Identifier: Apache-2.0 */
/* bin/node-event-push: the controller unit's systemd service that POSTs the node event log's
 * records to the receiver set by event-endpoint (charm/slurmctld/evpush.h). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/evpush.h"
#include "charm/slurmctld/metricsd.h"
#include "charm/slurmctld/nodeevents.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "util/fileio.h"
#include "util/parse.h"

#include "util/banned.h"

static volatile sig_atomic_t stop;

static void on_term(int sig) {
        stop = 1;
}

static void log_line(void *userdata, const char *line) {
        char ts[CHARM_LOG_PREFIX_MAX];
        fprintf(stderr, "%s%s\n", charm_log_prefix(ts), line);
}

static int usage(void) {
        fprintf(stderr, "usage: node-event-push --unit JUJU_UNIT [--poll-ms N] [--backoff-max-ms N]\n");
        return 2;
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                { "unit", required_argument, NULL, 'u' },
                { "poll-ms", required_argument, NULL, 'p' },
                { "backoff-max-ms", required_argument, NULL, 'b' },
                {},
        };
        static struct charm_paths paths = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *dir = nodeevents_dir(&paths), *url = NULL;
        _cleanup_free_ char *file = evpush_endpoint_path(&paths);
        unsigned long poll_ms = 0, backoff_ms = 0;
        const char *unit = NULL;
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) >= 0)
                switch (c) {
                case 'u':
                        unit = optarg;
                        break;
                case 'p':
                        if (!parse_ulong(optarg, 60000, &poll_ms))
                                return usage();
                        break;
                case 'b':
                        if (!parse_ulong(optarg, 3600000, &backoff_ms))
                                return usage();
                        break;
                default:
                        return usage();
                }
        if (optind != argc || !unit)
                return usage();
        setvbuf(stderr, NULL, _IOLBF, 0);
        /* SIGTERM ends a nap at once; a POST in flight is sent again by the next pusher */
        struct sigaction sa = { .sa_handler = on_term };
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        int r = evpush_endpoint_read(file, &url);
        if (r < 0) {
                fprintf(stderr, "node-event-push: %s: %s\n", file, strerror(-r));
                return 1;
        }
        /* the figures for the metrics exporter (which runs as nobody: a directory it reads) */
        const char *metrics_file = NULL;
        if (mkdir_p(METRICSD_FRAGMENT_DIR, 0755) >= 0)
                metrics_file = METRICSD_FRAGMENT_DIR "/" EVPUSH_METRICS_NAME;
        const struct evpush_loop_opts o = {
                .metrics_file = metrics_file,
                .dir = dir,
                .url = url,
                .endpoint_file = file,
                .poll_ms = (int) poll_ms,
                .backoff_max_ms = (int) backoff_ms,
                .log = log_line,
                .stop = &stop,
        };
        r = evpush_loop(&o, &err);
        if (r < 0) {
                fprintf(stderr, "node-event-push: %s\n", err.len ? err.buf : strerror(-r));
                return 1;
        }
        return 0;
}
