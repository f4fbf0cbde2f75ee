/* SPDX-License-Identifier: Apache-2.0 */
/* bin/node-event-trigger KIND [ARG…] RESOURCE: the program of the controller's Slurm triggers,
 * run by slurmctld as SlurmUser with no fd open; writes one spool record (charm/slurmctld/eventspool.h):
 * KIND and the resource, or, for "slurmctld" (a controller took control), this host's name. */
#include "util/macro.h"
#include "charm/slurmctld/eventspool.h"

#include <time.h>

#include "util/banned.h"

int main(int argc, char **argv) {
        struct timespec ts;
        /* slurmctld closed every fd: what we open next must not become stdin/stdout/stderr */
        evspool_fill_stdio();
        if (argc < 2)
                return 2;
        clock_gettime(CLOCK_REALTIME, &ts);
        _cleanup_free_ char *spool = evspool_dir_of_self();
        if (!spool)
                return 1;
        /* slurmctld appends the resource (the hostlist, "reconfig", the controller event) last;
         * a controller event runs on the host taking control: its name is the argument */
        char host[256] = "";
        const char *arg = argc > 2 ? argv[argc - 1] : "";
        if (streq(argv[1], "slurmctld") && gethostname(host, sizeof host - 1) == 0 && host[0])
                arg = host;
        int r = evspool_write(spool, argv[1], arg, (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec);
        if (r < 0) {
                fprintf(stderr, "node-event-trigger: %s: %s\n", spool, strerror(-r));
                return 1;
        }
        return 0;
}
