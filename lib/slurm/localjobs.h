/* SPDX-License-Identifier: Apache-2.0 */
/* The jobs a compute node runs right now, asked of the node itself rather than of slurmctld:
 * `scontrol listjobs` (Slurm 24.11+, slurm/caps.h "listjobs") lists the slurmstepd of this
 * machine through their sockets in SlurmdSpoolDir, so it answers while every controller is
 * unreachable. That is where it is the better tool: a unit leaving while no controller
 * answers must not stop its slurmd (and let its machine go) under running jobs.
 *
 * Design note (checked on 24.11.5): the node's name comes from SLURMD_NODENAME when it is not
 * the host name (a dynamic node started with -N, as the charm does); `--json` prints
 * {"jobs":[{"job_id":N},…], …} with an empty list when no slurmstepd runs; the command needs
 * the node's slurm.conf (configless: slurmd's cache, found as every client finds it).
 * 22.05 has no such command: slurm_local_jobs() returns -EOPNOTSUPP there.
 *
 * Ownership: *ret_ids is malloc'd (caller frees); on error it is left as it was. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/* The job ids of listjobs' JSON answer (sorted, no duplicates). -EINVAL with a message when
 * json is not that answer. Pure. */
int slurm_local_jobs_parse(const char *json, uint32_t **ret_ids, size_t *ret_n, struct strbuf *err);

/* Runs `scontrol listjobs --json` for node (bounded by timeout_ms) and parses it. -EOPNOTSUPP
 * on a Slurm without listjobs; -EIO with scontrol's message when it failed. */
int slurm_local_jobs(
        const char *node, int timeout_ms, uint32_t **ret_ids, size_t *ret_n, struct strbuf *err);

/* Whether a SlurmdSpoolDir entry name is a slurmstepd socket of node: "<node>_<job>.<step>" or,
 * for a component of a heterogeneous step, "<node>_<job>.<step>.<comp>" (the name stepd_api.c
 * of 22.05 and 24.11 connects to); *ret_job is the job id (1..UINT32_MAX-1). Pure. */
bool slurm_local_step_name(const char *name, const char *node, uint32_t *ret_job);

/* The jobs that have a slurmstepd of node on this machine: the socket names in spool_dir (sorted,
 * no duplicates), on every Slurm generation and with no RPC (one directory read: what listjobs
 * reads, without a process). A missing directory is an empty list (slurmd never ran).
 * With unix_table (the kernel's table of bound Unix sockets, LOCAL_UNIX_TABLE; another file in
 * tests), a name counts only while a process has that socket bound: a slurmstepd killed with
 * SIGKILL (an OOM kill, a crash) leaves its socket file behind, across slurmd restarts too, and
 * that job would stay "running" here for good. A table that cannot be read filters nothing. */
#define LOCAL_UNIX_TABLE "/proc/net/unix"
int slurm_local_steps_scan(const char *spool_dir, const char *node, const char *unix_table, uint32_t **ret_ids,
        size_t *ret_n, struct strbuf *err);
