/* SPDX-License-Identifier: Apache-2.0 */
/* bin/service-watcher: the systemd unit a charm installs to follow its daemon's ActiveState and
 * run bin/service-changed in hook context on each change (service_watch_run(), charm/common/watcher.h). */
#include "util/macro.h"
#include "charm/common/watcher.h"
#include "charm/common/charm.h"

#include <getopt.h>
#include <systemd/sd-daemon.h>

#include "util/parse.h"

#include "util/banned.h"

static void log_line(void *userdata, const char *line) {
        char ts[CHARM_LOG_PREFIX_MAX];
        fprintf(stderr, "%s%s\n", charm_log_prefix(ts), line);
}

static void ready(void *userdata) {
        (void) sd_notify(0, "READY=1");
}

static int usage(void) {
        fprintf(stderr,
                "usage: service-watcher --unit JUJU_UNIT --service SERVICE --handler PATH "
                "[--juju-exec PATH] [--window-ms N] [--timeout-s N] [--max-runs N]\n");
        return 2;
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                { "unit", required_argument, NULL, 'u' },
                { "service", required_argument, NULL, 's' },
                { "handler", required_argument, NULL, 'H' },
                { "juju-exec", required_argument, NULL, 'j' },
                { "window-ms", required_argument, NULL, 'w' },
                { "timeout-s", required_argument, NULL, 't' },
                { "max-runs", required_argument, NULL, 'm' },
                {},
        };
        struct watcher_opts o = { .log = log_line, .ready = ready };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        unsigned long v;
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) >= 0)
                switch (c) {
                case 'u':
                        o.juju_unit = optarg;
                        break;
                case 's':
                        o.service = optarg;
                        break;
                case 'H':
                        o.handler = optarg;
                        break;
                case 'j':
                        o.juju_exec = optarg;
                        break;
                case 'w':
                        if (!parse_ulong(optarg, 10000, &v))
                                return usage();
                        o.window_usec = v * 1000;
                        break;
                case 't':
                        if (!parse_ulong(optarg, 86400, &v) || v == 0)
                                return usage();
                        o.handler_timeout_ms = (int) v * 1000;
                        break;
                case 'm':
                        if (!parse_ulong(optarg, 1000000, &v))
                                return usage();
                        o.max_runs = (unsigned) v;
                        break;
                default:
                        return usage();
                }
        if (optind != argc || !o.juju_unit || !o.service || !o.handler)
                return usage();
        setvbuf(stderr, NULL, _IOLBF, 0);
        int r = service_watch_run(&o, &err);
        if (r < 0) {
                fprintf(stderr, "service-watcher: %s\n", err.len ? err.buf : strerror(-r));
                return 1;
        }
        return 0;
}
