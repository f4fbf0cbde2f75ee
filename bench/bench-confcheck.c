/* SPDX-License-Identifier: Apache-2.0 */
/* Prints what the value checks and one slurm_conf_check() (libslurm's reader in a child) cost:
 * the price of validating a candidate slurm.conf before it replaces the live one. */
#include "util/macro.h"

#include <time.h>

#include "slurm/confcheck.h"
#include "slurmconf/options.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/banned.h"

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
        const char *top = getenv("TOP_SRCDIR");
        _cleanup_free_ char *path = xasprintf("%s/templates/slurm.conf", top ? top : SOURCE_ROOT);
        _cleanup_free_ char *text = NULL;
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT, err = STRBUF_INIT;
        size_t len;
        if (read_full_file(path, &text, &len) < 0) {
                fprintf(stderr, "bench-confcheck: cannot read %s\n", path);
                return 1;
        }
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                strbuf_addf(&conf, "%s\n",
                        streq(line, "ClusterName=unset")             ? "ClusterName=bench"
                                : streq(line, "SlurmctldHost=unset") ? "SlurmctldHost=bench-ctl"
                                                                     : line);
        }
        for (int i = 0; i < 8; i++)
                strbuf_addf(&conf,
                        "NodeSet=p%d Feature=p%d\nPartitionName=p%d Nodes=p%d MaxTime=1-00:00:00\n", i, i, i,
                        i);

        enum { CHECKS = 200, PARSES = 20000 };
        double t0 = now_ms();
        for (int i = 0; i < CHECKS; i++)
                if (slurm_conf_check(conf.buf, conf.len, &err) < 0) {
                        fprintf(stderr, "bench-confcheck: %s\n", err.buf);
                        return 1;
                }
        double per_check = (now_ms() - t0) / CHECKS;

        t0 = now_ms();
        for (int i = 0; i < PARSES; i++) {
                struct slurm_options o = SLURM_OPTIONS_INIT;
                if (slurm_options_parse(
                            "MaxTime=1-00:00:00 DefaultTime=60 PriorityTier=10 OverSubscribe=FORCE:2 "
                            "State=UP TRESBillingWeights=CPU=1.0,Mem=0.25G",
                            SLURM_OPTIONS_PARTITION, &o, NULL) < 0)
                        return 1;
                slurm_options_clear(&o);
        }
        double per_parse = (now_ms() - t0) * 1e3 / PARSES;

        printf("slurm_conf_check: %.2f ms per candidate (%zu bytes, mean of %d)\n", per_check, conf.len,
                CHECKS);
        printf("partition-config with value checks (6 keys): %.1f us per parse (mean of %d)\n", per_parse,
                PARSES);
        return 0;
}
