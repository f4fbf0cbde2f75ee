/* SPDX-License-Identifier: Apache-2.0 */
/* bin/node-event-watcher: the controller unit's systemd service that turns Slurm trigger
 * records into node event log reconciles and news into a status refresh (charm/slurmctld/eventwatch.h). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/eventwatch.h"
#include "charm/slurmctld/nodeevents.h"

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
                "usage: node-event-watcher --unit JUJU_UNIT --handler PATH [--juju-exec PATH] "
                "[--poll-s N] [--window-ms N]\n");
        return 2;
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                { "unit", required_argument, NULL, 'u' },
                { "handler", required_argument, NULL, 'H' },
                { "juju-exec", required_argument, NULL, 'j' },
                { "poll-s", required_argument, NULL, 'p' },
                { "window-ms", required_argument, NULL, 'w' },
                {},
        };
        static struct charm_paths paths = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *spool = nodeevents_spool(&paths);
        const char *unit = NULL, *handler = NULL, *juju_exec = "juju-exec";
        unsigned long poll_s = EVENTWATCH_POLL_USEC_DEFAULT / 1000000,
                      window_ms = EVENTWATCH_WINDOW_USEC_DEFAULT / 1000;
        uid_t uid;
        gid_t gid;
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) >= 0)
                switch (c) {
                case 'u':
                        unit = optarg;
                        break;
                case 'H':
                        handler = optarg;
                        break;
                case 'j':
                        juju_exec = optarg;
                        break;
                case 'p':
                        if (!parse_ulong(optarg, 86400, &poll_s))
                                return usage();
                        break;
                case 'w':
                        if (!parse_ulong(optarg, 10000, &window_ms))
                                return usage();
                        break;
                default:
                        return usage();
                }
        if (optind != argc || !unit || !handler)
                return usage();
        setvbuf(stderr, NULL, _IOLBF, 0);
        if (charm_lookup_user(paths.slurm_user, "slurm", &uid, &gid, &err) < 0) {
                fprintf(stderr, "node-event-watcher: %s\n", err.buf);
                return 1;
        }
        char *refresh[] = { (char *) juju_exec, (char *) unit, (char *) handler, NULL };
        const struct eventwatch_opts o = {
                .spool = spool,
                .spool_uid = uid,
                .spool_gid = gid,
                .window_usec = (uint64_t) window_ms * 1000,
                .poll_usec = (uint64_t) poll_s * 1000000,
                .reconcile = nodeevents_watch_reconcile, /* paths: the real root */
                .refresh_argv = refresh,
                .log = log_line,
                .ready = ready,
                .expecting = nodeevents_watch_expecting,
                .userdata = &paths,
        };
        int r = eventwatch_run(&o, &err);
        if (r < 0) {
                fprintf(stderr, "node-event-watcher: %s\n", err.len ? err.buf : strerror(-r));
                return 1;
        }
        return 0;
}
