/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics exporter's render (slurm/metrics.h) on synthetic tables: 2 and 1,000 nodes with
 * 10 jobs per node across 50 users, 10 accounts and 4 partitions. Prints the time per render
 * (median of the rounds), the text's size, and the peak memory of the process. The collection's
 * RPCs are fixed (4 per scrape plus a ping per controller: slurm/metrics.h), whatever the size;
 * their time on a real slurmctld is in tests/cluster/charm-metrics.sh's output. */
#include "util/macro.h"
#include "slurm/metrics.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "util/alloc.h"
#include "util/strv.h"

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

static void build(struct metrics_snapshot *s, size_t nodes) {
        static const char *const partnames[] = { "cpu", "big", "gpu", "debug" };
        static const uint32_t states[] = { NODE_STATE_IDLE, NODE_STATE_MIXED, NODE_STATE_ALLOCATED,
                NODE_STATE_IDLE | NODE_STATE_DRAIN, NODE_STATE_DOWN | NODE_STATE_NO_RESPOND };
        *s = (struct metrics_snapshot){ .cluster = true };
        s->nodes = xcalloc(nodes, sizeof(*s->nodes));
        for (size_t i = 0; i < nodes; i++) {
                struct strv p = STRV_INIT;
                strv_push(&p, partnames[i % 4]);
                if (i % 10 == 0)
                        strv_push(&p, "debug");
                s->nodes[i] = (struct metrics_node){
                        .name = xasprintf("%s-%zu", partnames[i % 4], i),
                        .state = states[i % ELEMENTSOF(states)],
                        .cpus = 64,
                        .alloc_cpus = (uint16_t) (i % 65),
                        .memory_mb = 256 * 1024,
                        .alloc_memory_mb = (i % 65) * 1024,
                        .free_memory_mb = 100 * 1024,
                        .gpus = i % 4 == 2 ? 8 : 0,
                        .partitions = strv_detach(&p),
                };
        }
        s->n_nodes = nodes;
        s->parts = xcalloc(4, sizeof(*s->parts));
        for (size_t i = 0; i < 4; i++)
                s->parts[i] = (struct metrics_partition){ .name = xstrdup(partnames[i]), .total_cpus = 64 * (uint32_t) nodes / 4,
                        .total_nodes = (uint32_t) nodes / 4 };
        s->n_parts = 4;
        size_t jobs = nodes * 10;
        s->jobs = xcalloc(jobs, sizeof(*s->jobs));
        for (size_t i = 0; i < jobs; i++)
                s->jobs[i] = (struct metrics_job){
                        .state = i % 3 ? JOB_RUNNING : JOB_PENDING,
                        .reason = i % 3 ? WAIT_NO_REASON : (uint16_t) (i % 7 ? WAIT_PRIORITY : WAIT_RESOURCES),
                        .partition = xstrdup(partnames[i % 4]),
                        .user = xasprintf("user%zu", i % 50),
                        .account = xasprintf("acct%zu", i % 10),
                        .cpus = 4,
                        .nodes = 1,
                        .memory_mb = 4096,
                        .tasks = 1,
                };
        s->n_jobs = jobs;
}

int main(void) {
        static const size_t sizes[] = { 2, 1000 };
        for (size_t k = 0; k < ELEMENTSOF(sizes); k++) {
                struct metrics_snapshot s;
                build(&s, sizes[k]);
                enum { ROUNDS = 15 };
                double t[ROUNDS];
                size_t len = 0;
                for (int r = 0; r < ROUNDS; r++) {
                        struct strbuf out = STRBUF_INIT;
                        double t0 = now_s();
                        metrics_render(&s, &out);
                        t[r] = now_s() - t0;
                        len = out.len;
                        strbuf_release(&out);
                }
                qsort(t, ROUNDS, sizeof(*t), cmp_d);
                struct rusage ru;
                getrusage(RUSAGE_SELF, &ru);
                printf("metrics render: %zu nodes, %zu jobs: %.2f ms (median of %d), %zu bytes of text, peak RSS %ld KiB\n",
                        s.n_nodes, s.n_jobs, t[ROUNDS / 2] * 1000, ROUNDS, len, ru.ru_maxrss);
                metrics_snapshot_done(&s);
        }
        return 0;
}
