/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm partitions through libslurm: set a partition's state, count the jobs that belong to a
 * partition. For the controller charm's removal of a partition (HACKING.md, "risk 2").
 *
 * Fact of slurmctld 22.05 this exists for (tried in tests/cluster/charm-appremove.sh): when a
 * reconfigure drops a PartitionName line, every job of that partition, running or pending, ends
 * NODE_FAIL ("Invalid partition (X) for JobId=N"): running jobs are killed. So a partition is
 * only dropped from slurm.conf once no job of it is left; until then it is kept INACTIVE (no
 * new job is accepted, queued jobs do not start, running jobs run to their end).
 *
 * Functions call slurm_client_init() first and return 0 (or a count) or a negative errno
 * (slurm/slurmerr.h), appending one message to err on failure.
 * Ownership: struct slurm_partition_jobs owns its id arrays; slurm_partition_jobs_done(). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum slurm_partition_state {
        SLURM_PARTITION_UP,
        SLURM_PARTITION_DOWN,
        SLURM_PARTITION_DRAIN,
        SLURM_PARTITION_INACTIVE,
};

/* slurm_update_partition(State=…). -ENOENT when there is no such partition. */
int slurm_partition_set_state(const char *name, enum slurm_partition_state state, struct strbuf *err);

struct slurm_partition_jobs {
        uint32_t *running; /* RUNNING, SUSPENDED, or CONFIGURING/COMPLETING */
        size_t n_running;
        uint32_t *pending; /* PENDING (held ones too) */
        size_t n_pending;
};
void slurm_partition_jobs_done(struct slurm_partition_jobs *j);

/* The unfinished jobs whose partition list names the partition. Returns their number and
 * fills *ret. */
int slurm_partition_jobs(const char *name, struct slurm_partition_jobs *ret, struct strbuf *err);
