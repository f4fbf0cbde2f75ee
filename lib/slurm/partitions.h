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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum slurm_partition_state {
        SLURM_PARTITION_UP,
        SLURM_PARTITION_DOWN,
        SLURM_PARTITION_DRAIN,
        SLURM_PARTITION_INACTIVE,
};

/* Partition parameters changed on the running slurmctld (slurm_update_partition: no
 * reconfigure, so none of 22.05's reconfigure bugs with dynamic nodes, see HACKING.md). kv holds
 * "Key", "value" pairs as slurm.conf spells them; the keys update_part() takes (slurmctld
 * 22.05 partition_mgr.c): MaxTime, DefaultTime (time strings), MaxNodes, MinNodes,
 * MaxCPUsPerNode, GraceTime, OverTimeLimit, PriorityTier, PriorityJobFactor, Def/MaxMemPerCPU,
 * Def/MaxMemPerNode (MB), State, OverSubscribe, PreemptMode, the YES/NO flags (Default, Hidden,
 * DisableRootJobs, RootOnly, ReqResv, LLN, ExclusiveUser) and the lists (AllocNodes, Allow*,
 * Deny*, QOS, Alternate, TRESBillingWeights). Any other key, or a value this encoder does not
 * read: -EOPNOTSUPP before anything is sent (the caller applies the file instead). -ENOENT
 * for an unknown partition. Note: slurmctld applies the fields one after the other and stops
 * at a failing one; the values are expected to be checked already. */
int slurm_partition_update(const char *name, char *const *kv, size_t n_kv, struct strbuf *err);
/* Whether slurm_partition_update() can take key=value. Pure (no RPC). */
bool slurm_partition_key_live(const char *key, const char *value);
/* Nodes=nodes on the running slurmctld: membership recomputed from the current node table and
 * features (the 22.05 remedy for partitions that lost nodes in a reconfigure). */
int slurm_partition_set_nodes(const char *name, const char *nodes, struct strbuf *err);

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
