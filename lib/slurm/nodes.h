/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm nodes through libslurm: read one or all, change state (drain, resume, down, idle,
 * restore), update weight/features, delete a dynamic node, wait until a node has registered.
 *
 * Facts of slurmctld 22.05 this relies on (checked against a real slurmctld in
 * tests/cluster/slurm-adapters.sh):
 *   - reading a node that does not exist succeeds with zero records: mapped to -ENOENT here;
 *   - update and delete of an unknown node fail with ESLURM_INVALID_NODE_NAME: -ENOENT;
 *   - slurm_delete_node() exists for dynamic nodes; on a node that holds a job (or is
 *     completing one) it fails with ESLURM_NODES_BUSY "Requested nodes are busy": -EBUSY;
 *   - node records do not carry their partitions (scontrol fills them in): this module loads
 *     the partitions too and fills slurm_node.partitions;
 *   - a stopped slurmd's node stays until deleted (IDLE at first, NOT_RESPONDING and DOWN
 *     after SlurmdTimeout); deleting it right after slurmd stopped works;
 *   - a node deleted while its slurmd runs does not come back by itself (slurmd registers only
 *     when it starts): delete after stopping slurmd, or restart slurmd to re-enlist.
 *
 * All functions call slurm_client_init() first, return 0 or a negative errno (see
 * slurmerr.h for the mapping) and append one message to err on failure.
 * Ownership: struct slurm_node and struct slurm_node_list own all their strings; free with
 * slurm_node_done() / slurm_node_list_done() (both accept zeroed structs). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slurm/client.h" /* the polling schedule (slurm_poll_sleep) */
#include "util/strbuf.h"
#include "util/strv.h"

struct slurm_node {
        char *name;
        uint32_t state;        /* base | flags, see slurm/nodestate.h */
        char *reason;          /* NULL when none */
        time_t reason_time;    /* 0 when no reason */
        uint32_t reason_uid;   /* who set the reason; SLURM_NODE_NO_UID when no reason */
        char *features;        /* available features, comma-separated; NULL when none */
        char *features_active; /* active features; NULL when none */
        char *gres;            /* NULL when none */
        char *gres_used;       /* GRES allocated now ("gpu:0"); NULL when none */
        char *comment;         /* the admin's comment; NULL when none */
        char *partitions;      /* comma-separated; NULL when in none */
        char *address;         /* NodeAddr */
        char *hostname;        /* NodeHostName */
        char *version;         /* slurmd's version, NULL before registration */
        uint16_t cpus;
        uint16_t alloc_cpus;   /* CPUs allocated to jobs now */
        uint64_t real_memory;  /* MiB */
        uint64_t mem_spec_limit; /* MiB kept for the system (MemSpecLimit); 0 none */
        uint64_t alloc_memory; /* MiB allocated to jobs now */
        uint64_t free_memory;  /* MiB free as slurmd last reported; UINT64_MAX when unknown */
        uint32_t weight;
        time_t boot_time;         /* when the machine booted (slurmd's report); 0 unknown */
        time_t slurmd_start_time; /* 0 before registration */
        time_t last_busy;         /* when it last held a job (or registered); 0 unknown */
};

#define SLURM_NODE_NO_UID UINT32_MAX

struct slurm_node_list {
        struct slurm_node *v;
        size_t n;
        size_t n_partitions; /* partitions in the cluster (all of them, not only those listed) */
        char **nodesets;     /* NodeSet names the partitions use (NULL-terminated; NULL when
                              * none): names slurmctld expands to their nodes in an update */
};

/* Optional filter of slurm_node_list(); NULL members match everything. */
struct slurm_node_filter {
        const char *feature;   /* has this available feature (a NodeSet=X Feature=X's members) */
        const char *partition; /* is in this partition */
};

void slurm_node_done(struct slurm_node *n);
void slurm_node_list_done(struct slurm_node_list *l);

/* The host names of a Slurm host list expression ("cpu-[0-2],big-0"), appended to ret in order. */
void slurm_hostlist_expand(const char *list, struct strv *ret);
/* True if comma-separated list has the item (exact, case-sensitive as Slurm features). */
bool slurm_list_has(const char *list, const char *item);

/* Reads one node. -ENOENT when there is no such node. */
int slurm_node_get(const char *name, struct slurm_node *ret, struct strbuf *err);
/* Only the state of one node: one RPC, no partitions (for polling). -ENOENT when unknown. */
int slurm_node_get_state(const char *name, uint32_t *ret_state, struct strbuf *err);
/* The node's record without its partitions (one RPC: state, reason, …; ret->partitions NULL). */
int slurm_node_get_brief(const char *name, struct slurm_node *ret, struct strbuf *err);
/* Reads all nodes (filter may be NULL), in slurmctld's order. */
int slurm_node_list(const struct slurm_node_filter *filter, struct slurm_node_list *ret, struct strbuf *err);

/* State changes (slurm_update_node). reason is required (non-empty) for drain and down. */
int slurm_node_drain(const char *name, const char *reason, struct strbuf *err);
/* RESUME: clears DRAIN/DOWN/FAIL (and the reason); the node goes IDLE or ALLOCATED. A node
 * that is neither drained nor down (slurmctld: "Invalid node state specified") gives 0. slurmctld
 * 22.05 then pings the node and shows it NOT_RESPONDING until it answers (~1 s on loopback): use
 * slurm_node_wait_registered() where "up again" matters. */
int slurm_node_resume(const char *name, struct strbuf *err);
/* UNDRAIN: clears the DRAIN flag only (a DOWN node stays down). */
int slurm_node_undrain(const char *name, struct strbuf *err);
int slurm_node_down(const char *name, const char *reason, struct strbuf *err);
/* State=IDLE (scontrol update state=idle). */
int slurm_node_idle(const char *name, struct strbuf *err);
/* Puts a node back as it was in *saved (taken with slurm_node_get before a change): a drained
 * or draining node is drained with its old reason, a down node set down with its old reason,
 * anything else resumed (see slurm_node_resume()) when it is drained or down now, else left as
 * it is. */
int slurm_node_restore(const struct slurm_node *saved, struct strbuf *err);

/* Other attributes; unset members (NULL, or weight 0) are left unchanged. */
struct slurm_node_update {
        const char *features;        /* available features */
        const char *features_active; /* active features */
        const char *gres;
        const char *comment;
        uint32_t weight;
};
int slurm_node_update(const char *name, const struct slurm_node_update *u, struct strbuf *err);

/* Deletes a (dynamic) node. -EBUSY while it holds or completes a job, -ENOENT when unknown. */
int slurm_node_delete(const char *name, struct strbuf *err);

/* Waits until the node exists and is registered (slurm_state_registered()). Polls
 * slurm_load_node_single every 100 ms, backing off to 500 ms. Returns 0 and fills *ret (as
 * slurm_node_get() does) when not NULL, -ETIMEDOUT after timeout_ms (message says the last state seen), or
 * another negative errno for errors other than "no such node" and "controller unreachable", which are
 * retried until the deadline. */
int slurm_node_wait_registered(const char *name, int timeout_ms, struct slurm_node *ret, struct strbuf *err);
/* slurm_node_wait_registered() that also gives up early, with -ENOENT, once the controller has
 * answered "no such node" at every look for unknown_ms (0: never): for a caller that can make
 * the node register again (restart its slurmd). */
int slurm_node_wait_registered_unknown(
        const char *name, int timeout_ms, int unknown_ms, struct slurm_node *ret, struct strbuf *err);

