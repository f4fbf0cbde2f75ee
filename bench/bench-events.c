/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark of one node event log reconcile for a synthetic 1,000-node table (charm/slurmctld/events.h):
 * lock, snapshot load, step, commit (snapshot write + log append, both fsync'd), per case. */
#include "util/macro.h"
#include "util/alloc.h"

#include <slurm/slurm.h>
#include <sys/stat.h>
#include <time.h>

#include "charm/slurmctld/events.h"
#include "charm/slurmctld/eventspool.h"
#include "util/strbuf.h"

#include "util/banned.h"

#define N_NODES 1000
#define ROUNDS 101

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* The table: every node idle, but `drained` of them drained (the first ones). */
static void make_table(struct ev_table *t, int drained) {
        char name[32];
        ev_table_done(t);
        for (int i = 0; i < N_NODES; i++) {
                snprintf(name, sizeof name, "compute-%04d", i);
                bool d = i < drained;
                ev_table_add(t, name, NODE_STATE_IDLE | NODE_STATE_DYNAMIC_NORM | (d ? NODE_STATE_DRAIN : 0),
                        d ? "bench drain" : NULL, d ? 1700000000 : 0, 1700000000);
        }
}

/* One reconcile as nodeevents_reconcile() does it, minus the RPC: lock, load, step, commit.
 * Returns the records appended. */
static int reconcile(const char *dir, const struct ev_table *t, int64_t now) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ev_state prev, next;
        struct ev_records recs;
        struct ev_held lock = EV_HELD_INIT;
        int r;
        if (ev_lock(dir, 0, &lock, &err) < 0 || ev_state_load(dir, NULL, &prev, &err) < 0) {
                fprintf(stderr, "bench-events: %s\n", err.buf);
                exit(1);
        }
        struct ev_observation obs = {
                .table = t, .table_time = now / 1000, .cause = "bench", .now_ms = now
        };
        r = ev_step(&prev, &obs, &next, &recs);
        if (r > 0 && ev_commit(dir, NULL, &next, &err) < 0) {
                fprintf(stderr, "bench-events: %s\n", err.buf);
                exit(1);
        }
        r = (int) recs.n;
        ev_records_done(&recs);
        ev_state_done(&prev);
        ev_state_done(&next);
        ev_unlock(&lock);
        return r;
}

/* Runs ROUNDS reconciles alternating between tables a and b (b NULL: a each time); prints the
 * median and p95 wall time, the CPU time per reconcile and the records per reconcile. */
static void measure(const char *what, const char *dir, const struct ev_table *a, const struct ev_table *b,
        int64_t *now) {
        double wall[ROUNDS], c0 = cpu_ms();
        long records = 0;
        for (int i = 0; i < ROUNDS; i++) {
                const struct ev_table *t = b && (i % 2) ? b : a;
                double t0 = now_ms();
                records += reconcile(dir, t, *now);
                wall[i] = now_ms() - t0;
                *now += 60000; /* a minute apart: no trigger window in the way */
        }
        double cpu = (cpu_ms() - c0) / ROUNDS;
        qsort(wall, ROUNDS, sizeof(double), cmp_double);
        printf("%-44s %9.2f %9.2f %9.2f %9.1f\n", what, wall[ROUNDS / 2], wall[ROUNDS * 95 / 100], cpu,
                (double) records / ROUNDS);
}

int main(void) {
        char tmpl[] = "/var/tmp/bench-events.XXXXXX";
        if (!mkdtemp(tmpl)) {
                perror("mkdtemp");
                return 1;
        }
        _cleanup_free_ char *dir = xasprintf("%s/events", tmpl);
        struct ev_table idle = { 0 }, one = { 0 }, all = { 0 };
        int64_t now = 1700000000000LL;
        make_table(&idle, 0);
        make_table(&one, 1);
        make_table(&all, N_NODES);

        printf("node event log, %d nodes (synthetic), %d reconciles per case, dir %s\n", N_NODES, ROUNDS,
                tmpl);
        printf("%-44s %9s %9s %9s %9s\n", "case", "median ms", "p95 ms", "cpu ms", "records");
        reconcile(dir, &idle, now); /* the baseline */
        now += 60000;
        measure("nothing changed (table read, no write)", dir, &idle, NULL, &now);
        measure("one node drained / resumed (write + fsync)", dir, &one, &idle, &now);
        measure("all 1,000 drained / resumed", dir, &all, &idle, &now);

        _cleanup_free_ char *state = xasprintf("%s/%s", dir, EV_STATE_FILE);
        struct stat st;
        if (stat(state, &st) == 0)
                printf("snapshot (state.json) for %d nodes: %lld bytes\n", N_NODES, (long long) st.st_size);

        /* the trigger program's part: one durable spool record */
        _cleanup_free_ char *spool = xasprintf("%s/spool", tmpl);
        (void) mkdir(spool, 0700);
        double w[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
                double t0 = now_ms();
                if (evspool_write(spool, "drained", "compute-[0000-0999]", now + i) < 0)
                        return 1;
                w[i] = now_ms() - t0;
        }
        qsort(w, ROUNDS, sizeof(double), cmp_double);
        printf("%-44s %9.2f %9.2f\n", "spool record write (trigger program)", w[ROUNDS / 2],
                w[ROUNDS * 95 / 100]);

        ev_table_done(&idle);
        ev_table_done(&one);
        ev_table_done(&all);
        _cleanup_free_ char *rm = xasprintf("rm -rf -- '%s'", tmpl);
        if (system(rm) != 0)
                return 1;
        return 0;
}
