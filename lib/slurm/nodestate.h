/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm node and job states as text, and the predicates the charms decide on (drained or
 * draining, registered, busy). Pure: no RPC, no libslurm call; the numbers are libslurm 22.05's.
 *
 * A node state is one uint32_t: a base state (NODE_STATE_BASE bits: UNKNOWN, DOWN, IDLE,
 * ALLOCATED, ERROR, MIXED, FUTURE) or-ed with flags (DRAIN, COMPLETING, NOT_RESPONDING,
 * DYNAMIC_NORM, …). The text form is the one of `scontrol show node`'s State= field with every
 * flag spelled out: "IDLE+DRAIN+DYNAMIC_NORM", flags in bit order. Parsing accepts that form in
 * any case, plus the words "DRAINED" and "DRAINING" (each = the DRAIN flag) and "NO_RESPOND".
 *
 * DRAINING/DRAINED follow scontrol: a node with the DRAIN flag is DRAINING while it still holds
 * work (base ALLOCATED or MIXED, or the COMPLETING flag), DRAINED otherwise.
 *
 * Ownership: the strings returned are static; format functions append to the caller's strbuf. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/strbuf.h"

enum slurm_drain {
        SLURM_DRAIN_NONE,     /* no DRAIN flag */
        SLURM_DRAIN_DRAINING, /* DRAIN flag, work still on the node */
        SLURM_DRAIN_DRAINED,  /* DRAIN flag, no work left */
};

/* "IDLE", "ALLOCATED", …; "UNKNOWN" for a base value out of range. */
const char *slurm_state_base_name(uint32_t state);
/* Appends "BASE+FLAG+FLAG…"; bits with no name are written as "0x…". */
void slurm_state_format(uint32_t state, struct strbuf *out);
/* The state scontrol shows (src/api/node_info.c): the base becomes MIXED when some, not all,
 * of the node's CPUs are allocated; flags kept. */
uint32_t slurm_state_with_cpus(uint32_t state, uint32_t cpus, uint32_t alloc_cpus);
/* Parses "IDLE+DRAIN+DYNAMIC_NORM" (case-insensitive). A missing base is UNKNOWN (0).
 * Returns 0, or -EINVAL for an empty string, an unknown word or two base states. */
int slurm_state_parse(const char *s, uint32_t *ret_state);

enum slurm_drain slurm_state_drain(uint32_t state);
/* "DRAINING", "DRAINED" or NULL. */
const char *slurm_drain_name(enum slurm_drain d);
/* The node has registered and answers: base not UNKNOWN/FUTURE, not NOT_RESPONDING, not a
 * dynamic future node, not powered down. */
bool slurm_state_registered(uint32_t state);
/* The node still holds work: base ALLOCATED or MIXED, or the COMPLETING flag. slurmctld 22.05
 * refuses to delete such a node (ESLURM_NODES_BUSY). */
bool slurm_state_busy(uint32_t state);
/* DOWN base, or the FAIL flag. */
bool slurm_state_down(uint32_t state);
/* slurmctld refused the node's registration (INVALID_REG: it reported less than its
 * configuration says, e.g. fewer CPUs or GPUs); such a node is drained with the reason. */
bool slurm_state_invalid_reg(uint32_t state);

/* Job states (enum job_states + JOB_* flags). "RUNNING", "PENDING", …; "UNKNOWN" out of range. */
const char *slurm_job_state_name(uint32_t job_state);
/* The job holds or is about to hold or release nodes: RUNNING, SUSPENDED, or the CONFIGURING
 * or COMPLETING flag (any base). These are the jobs that keep a node from being deleted. */
bool slurm_job_state_on_node(uint32_t job_state);
/* RUNNING with neither flag: launched and not ending, so it has a slurmstepd on its nodes. */
bool slurm_job_state_launched(uint32_t job_state);
