/* SPDX-License-Identifier: Apache-2.0 */
/* bin/slurmctld-sentinel: the controller unit's systemd service that watches slurmctld every
 * tick for what no hook comes often enough for (charm/slurmctld/sentinel.h). */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/sentinel.h"

#include <getopt.h>
#include <signal.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "util/alloc.h"
#include "util/fileio.h"
#include "util/parse.h"

#include "util/banned.h"

static void log_line(void *userdata, const char *line) {
        char ts[CHARM_LOG_PREFIX_MAX];
        fprintf(stderr, "%s%s\n", charm_log_prefix(ts), line);
}

static int usage(void) {
        fprintf(stderr, "usage: slurmctld-sentinel [--unit JUJU_UNIT] [--handler PATH] [--juju-exec PATH] [--tick-ms N] [--ticks N]\n");
        return 2;
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                { "unit", required_argument, NULL, 'u' },
                { "handler", required_argument, NULL, 'H' },
                { "juju-exec", required_argument, NULL, 'j' },
                { "tick-ms", required_argument, NULL, 't' },
                { "ticks", required_argument, NULL, 'n' },
                {},
        };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        unsigned long tick_ms = SENTINEL_TICK_USEC_DEFAULT / 1000, ticks = 0;
        const char *unit = NULL, *handler = NULL, *juju_exec = NULL;
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) >= 0)
                switch (c) {
                case 'u': /* the Juju unit: ps, the journal, and the charm's runs */
                        unit = optarg;
                        break;
                case 'H':
                        handler = optarg;
                        break;
                case 'j':
                        juju_exec = optarg;
                        break;
                case 't':
                        if (!parse_ulong(optarg, 60000, &tick_ms) || tick_ms == 0)
                                return usage();
                        break;
                case 'n':
                        if (!parse_ulong(optarg, 1000000, &ticks) || ticks == 0)
                                return usage();
                        break;
                default:
                        return usage();
                }
        if (optind != argc)
                return usage();
        /* what the metrics exporter (nobody) takes as the controller in charge */
        const char *in_charge_file = NULL;
        _cleanup_free_ char *dir = xstrndup(SENTINEL_IN_CHARGE_FILE, strrchr(SENTINEL_IN_CHARGE_FILE, '/') -
                                                                         SENTINEL_IN_CHARGE_FILE);
        if (mkdir_p(dir, 0755) >= 0)
                in_charge_file = SENTINEL_IN_CHARGE_FILE;
        const struct sentinel_opts o = {
                .in_charge_file = in_charge_file,
                .tick_usec = (uint64_t) tick_ms * 1000,
                .max_ticks = (unsigned) ticks,
                .juju_unit = unit,
                .handler = handler,
                .juju_exec = juju_exec,
                .log = log_line,
        };
        /* a send to a slurmctld that went away fails with EPIPE, never kills the loop */
        (void) signal(SIGPIPE, SIG_IGN);
        (void) sd_notify(0, "READY=1");
        int r = sentinel_run(&o, &err);
        if (r < 0) {
                fprintf(stderr, "slurmctld-sentinel: %s\n", err.buf);
                return 1;
        }
        return 0;
}
