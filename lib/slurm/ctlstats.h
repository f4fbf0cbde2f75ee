/* SPDX-License-Identifier: Apache-2.0 */
/* What slurmctld's own statistics (slurm_get_statistics, what sdiag prints) tell the charms, and
 * the one RPC that makes slurmctld save its job state soon.
 *
 * Why the nudge (facts of slurmctld 22.05.8 and 24.11.5, read in their source): job state is
 * written by the state-save thread only when a save was asked for (schedule_job_save()), at most
 * once every 5 s (SAVE_MAX_WAIT), and by the 300 s checkpoint (PERIODIC_CHECKPOINT). Submits,
 * completions, updates and the main scheduler's starts ask for one; a job started by the
 * backfill scheduler does not (backfill.c _start_job only sets last_job_update). A controller
 * lost before the next save (kill -9, a machine lost, a failover) leaves its successor a state in
 * which that job is PENDING: the node reports the running step, the successor kills it
 * ("Registered PENDING JobId=… StepId=….batch") and runs the job again. slurm_requeue() of job 0
 * is refused ("Invalid job id") but asks for a save regardless (proc_req.c _slurm_rpc_requeue
 * calls schedule_job_save() on every path), with no other effect: the cheapest save request a
 * client can make.
 *
 * Not thread-safe (libslurm's client). Ownership: none. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "util/strbuf.h"

struct slurm_ctl_stats {
        uint32_t dbd_queue;      /* records slurmctld holds for slurmdbd (dbd_agent_queue_size) */
        uint32_t jobs_submitted; /* counters since slurmctld's start or the last midnight reset */
        uint32_t jobs_started;
        uint32_t jobs_completed;
        uint32_t bf_started; /* started by the backfill scheduler (bf_backfilled_jobs) */
        time_t req_time;     /* slurmctld's clock when it answered */
};

/* slurm_get_statistics(): 0 and *ret, or a negative errno (message in err). */
int slurm_ctl_stats_get(struct slurm_ctl_stats *ret, struct strbuf *err);
/* Whether two looks differ in a way that may need a save: a job started (by either scheduler)
 * or the counters were reset (slurmctld restarted, midnight). Pure. */
bool slurm_ctl_stats_started_since(const struct slurm_ctl_stats *before, const struct slurm_ctl_stats *now);
/* Asks slurmctld to save its job state (slurm_requeue(0): refused, the save asked for anyway;
 * the save lands within 5 s). 0, or a negative errno when slurmctld did not answer. */
int slurm_ctl_save_nudge(struct strbuf *err);
