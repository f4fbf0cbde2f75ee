/* SPDX-License-Identifier: Apache-2.0 */
/* The jobs on one Slurm node: list them, destroy them (requeue what can be requeued, cancel the
 * rest), wait until none is left. `scontrol listjobs` does not exist in 22.05, so the list comes
 * from slurm_load_jobs(): a job is on node N when its state is RUNNING, SUSPENDED, CONFIGURING
 * or COMPLETING (slurm_job_state_on_node()) and N is in its allocated node list (expanded with
 * libslurm's hostlist).
 *
 * Waiting (slurm_jobs_wait_none): slurmctld 22.05 has no event subscription a client could block
 * on (strigger runs a program on the controller host, which a compute node's hook is not), so
 * this polls the job table, cheaply: each round is one slurm_load_node_single() of the node
 * (does it still exist?) and one slurm_load_jobs(last_update), which costs a "no change"
 * answer while the table is unchanged. The job table decides, never the node's state flags:
 * slurmctld 22.05 can leave a dynamic node ALLOCATED (CPUAlloc=0) after its last job ended
 * when a reconfigure ran while the job did (HACKING.md, "stale allocations"), and a wait on
 * the node state would then never end. Polls start at 100 ms and back off by 3/2 to 500 ms,
 * bounded by the caller's deadline. Measured on loopback (22.05.8, 2 cores): from the last
 * command of a batch script to slurm_jobs_wait_none() returning, 0.30-0.56 s (23 samples, 7
 * runs of tests/cluster/slurm-adapters.sh, which fails above 1 s).
 *
 * Deleting (slurm_node_delete_free): slurm_delete_node() refuses an ALLOCATED or COMPLETING
 * node ("busy"); that is retried (a job's epilog still running) until the deadline, but when
 * the job table has no job on the node and no job can be given it (drained, down or not
 * answering), the state is stale whatever CPU count the select plugin reports (it double-counts
 * too, seen: CPUAlloc=1 with no job): the node is set DOWN (the given reason), which clears it,
 * and deleted.
 *
 * All functions call slurm_client_init() first and return 0 (or a count) or a negative errno,
 * appending one message to err on failure.
 * Ownership: the lists own their strings; free with slurm_job_list_done() and
 * slurm_destroy_report_done() (both accept zeroed structs). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

struct slurm_job {
        uint32_t id;
        char *name; /* NULL when none */
        uint32_t user_id;
        char *user;       /* user name when slurmctld sent it, else NULL */
        uint32_t state;   /* enum job_states | JOB_* flags, see slurm_job_state_name() */
        char *nodes;      /* allocated nodes, hostlist expression */
        bool batch;       /* submitted with sbatch (has a batch script) */
        bool requeue;     /* its requeue flag (--requeue, or JobRequeue=1 by default) */
        bool requeueable; /* batch && requeue: slurm_requeue() will take it */
};

struct slurm_job_list {
        struct slurm_job *v;
        size_t n;
};
void slurm_job_list_done(struct slurm_job_list *l);

/* The jobs with the node in their allocation. Returns the count (>= 0) and fills *ret. A node
 * that does not exist simply has no jobs. */
int slurm_jobs_on_node(const char *node, struct slurm_job_list *ret, struct strbuf *err);

/* How many jobs hold nodes now (RUNNING, SUSPENDED, CONFIGURING or COMPLETING), >= 0. */
int slurm_jobs_holding_nodes(struct strbuf *err);

struct slurm_destroy_report {
        uint32_t *requeued; /* requeued (back to PENDING, they will run elsewhere) */
        size_t n_requeued;
        uint32_t *cancelled; /* killed with SIGKILL (or already finished when asked) */
        size_t n_cancelled;
        uint32_t *failed; /* neither worked; err says why */
        size_t n_failed;
};
void slurm_destroy_report_done(struct slurm_destroy_report *r);

/* The forced path of a departing node: requeues each requeueable job on the node
 * (slurm_requeue; falling back to cancel if slurmctld refuses), cancels the others
 * (slurm_kill_job SIGKILL). Returns the number of jobs that could be neither (>= 0; err has one
 * line per failure, "; "-separated) with *ret filled, or a negative errno when the job table
 * cannot be read (then *ret is untouched). Does not wait: use slurm_jobs_wait_none(). */
int slurm_jobs_destroy_on_node(const char *node, struct slurm_destroy_report *ret, struct strbuf *err);

/* Waits until no job is on the node (or the node is gone). 0, -ETIMEDOUT after timeout_ms
 * (message names the jobs still there), or another negative errno. */
int slurm_jobs_wait_none(const char *node, int timeout_ms, struct strbuf *err);

/* slurmctld writes changed state (jobs, nodes) to StateSaveLocation at most once per 5 s
 * (SAVE_MAX_WAIT, state_save.c of 22.05 and 24.11): a save pass starts within 5 s of being asked
 * for, and this leaves it 3 s to take its locks and write. Best effort: a controller whose
 * locks are held longer saves later. One killed before the save restarts from the file before
 * it: a deleted node comes back, and a job that ended comes back RUNNING or COMPLETING. */
#define SLURM_STATE_SAVED_MS 8000

/* Deletes the node once no job holds it (see above): 0 deleted (or already gone), 1 deleted
 * after a stale allocation was cleared (set DOWN with reason), -EBUSY when a job still holds
 * it after timeout_ms, another negative errno on errors. Call after slurm_jobs_wait_none(). */
int slurm_node_delete_free(const char *node, const char *reason, int timeout_ms, struct strbuf *err);
