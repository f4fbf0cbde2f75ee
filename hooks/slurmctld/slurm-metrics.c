/* SPDX-License-Identifier: Apache-2.0 */
/* bin/slurm-metrics: the controller unit's Prometheus exporter (charm/slurmctld/metricsep.h,
 * metricsd.h). The port comes from the unit's state (--port overrides it, for a test by hand),
 * read as root; then it becomes nobody and listens. */
#include "util/macro.h"
#include "charm/common/charm.h"
#include "charm/slurmctld/metricsd.h"
#include "charm/slurmctld/metricsep.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/parse.h"

#include "util/banned.h"

static volatile sig_atomic_t stop;

static void on_term(int sig) {
        stop = 1;
}

static int usage(void) {
        fprintf(stderr, "usage: slurm-metrics --unit JUJU_UNIT [--port N] [--once]\n");
        return 2;
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                { "unit", required_argument, NULL, 'u' },
                { "port", required_argument, NULL, 'p' },
                { "once", no_argument, NULL, 'o' },
                {},
        };
        static struct charm_paths paths = { 0 };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *file = metricsep_port_path(&paths);
        unsigned long port = 0;
        bool once = false;
        const char *unit = NULL;
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) >= 0)
                switch (c) {
                case 'u':
                        unit = optarg;
                        break;
                case 'p':
                        if (!parse_ulong(optarg, 65535, &port))
                                return usage();
                        break;
                case 'o':
                        once = true;
                        break;
                default:
                        return usage();
                }
        if (optind != argc || (!unit && !once))
                return usage();
        setvbuf(stderr, NULL, _IOLBF, 0);
        struct metricsd_opts o = { 0 };
        if (once) { /* one collection to stdout (an admin's look, the benchmark) */
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                int r = metricsd_scrape(&o, &out);
                fwrite(out.buf, 1, out.len, r < 0 ? stderr : stdout);
                return r < 0 ? 1 : 0;
        }
        if (!port) {
                unsigned p = 0;
                int r = metricsep_port_read(file, &p);
                if (r < 0 || !p) {
                        fprintf(stderr, "slurm-metrics: %s: %s\n", file, r < 0 ? strerror(-r) : "no port");
                        return 1;
                }
                port = p;
        }
        /* read as root (the unit's state is not the world's); served as nobody */
        if (geteuid() == 0) {
                struct passwd *pw = getpwnam("nobody");
                if (!pw || setgroups(1, &pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0 ||
                        setuid(0) == 0) {
                        fprintf(stderr, "slurm-metrics: cannot become nobody: %s\n", strerror(errno));
                        return 1;
                }
        }
        struct sigaction sa = { .sa_handler = on_term };
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        o.port = (unsigned) port;
        fprintf(stderr, "slurm-metrics: unit %s, listening on port %u\n", unit, o.port);
        int r = metricsd_serve(&o, &stop, &err);
        if (r < 0) {
                fprintf(stderr, "slurm-metrics: %s\n", err.buf);
                return 1;
        }
        return 0;
}
