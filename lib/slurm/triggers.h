/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm event triggers on nodes (strigger's node events): set, list, clear. When the event
 * happens, slurmctld runs the program ON THE CONTROLLER HOST as the user who set the trigger,
 * with the affected node names as its argument; so this is the controller charm's tool (e.g. to
 * fire a local event when nodes go down or drained), not a compute node's.
 *
 * 22.05 facts: one event type per trigger; a trigger without `permanent` is removed once it
 * fired; slurmctld checks triggers periodically, so a trigger fires seconds after the event,
 * not at once (11-14 s after a drain in tests/cluster/slurm-adapters.sh): no substitute for
 * slurm_jobs_wait_none() where latency matters; only
 * root or SlurmUser may set triggers; the program must be an absolute path the user can run.
 *
 * Functions call slurm_client_init() first; 0 / count or negative errno with a message in err.
 * Ownership: struct slurm_trigger_list owns its strings; free with slurm_trigger_list_done(). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/* Node events; the values are libslurm's TRIGGER_TYPE_* bits (checked at compile time). */
enum slurm_node_event {
        SLURM_NODE_EVENT_UP = 1U << 0,
        SLURM_NODE_EVENT_DOWN = 1U << 1,
        SLURM_NODE_EVENT_FAIL = 1U << 2,
        SLURM_NODE_EVENT_IDLE = 1U << 7,
        SLURM_NODE_EVENT_DRAINED = 1U << 8,
};

struct slurm_trigger {
        uint32_t id;
        bool node_trigger; /* a node trigger (else job, controller, database, … trigger) */
        uint32_t events;   /* TRIGGER_TYPE_* bits (SLURM_NODE_EVENT_* for node triggers) */
        char *resource;    /* node name expression, "*" for any node; NULL when none */
        char *program;
        uint32_t user_id;
        bool permanent;
};

struct slurm_trigger_list {
        struct slurm_trigger *v;
        size_t n;
};
void slurm_trigger_list_done(struct slurm_trigger_list *l);

/* "up", "down", "fail", "idle", "drained"; NULL for anything else. */
const char *slurm_node_event_name(enum slurm_node_event e);

/* Sets a trigger for one event on node (a name or hostlist expression; NULL or "*": any
 * node). program: absolute path. -EINVAL for a bad event or a relative program. */
int slurm_trigger_set_node(const char *node, enum slurm_node_event event, const char *program,
        bool permanent, struct strbuf *err);
/* All triggers. Returns the count. */
int slurm_trigger_list(struct slurm_trigger_list *ret, struct strbuf *err);
/* Clears trigger id. -ESRCH when there is no such trigger (slurmctld answers ESRCH). */
int slurm_trigger_clear(uint32_t id, struct strbuf *err);
