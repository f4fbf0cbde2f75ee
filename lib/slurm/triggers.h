/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm event triggers on nodes (strigger's node events): set, list, clear. When the event
 * happens, slurmctld runs the program ON THE CONTROLLER HOST as the user who set the trigger,
 * with the affected node names as its argument; so this is the controller charm's tool (e.g. to
 * fire a local event when nodes go down or drained), not a compute node's.
 *
 * 22.05 facts (src/slurmctld/trigger_mgr.c, checked with real daemons; HACKING.md "Node events"):
 *   - slurmctld checks triggers every 15 s (TRIGGER_INTERVAL, controller.c), so a trigger fires
 *     up to ~16 s after the event: no substitute for slurm_jobs_wait_none() where latency
 *     matters; only the controller in charge runs them;
 *   - with SlurmUser not root, ONLY SlurmUser may set a trigger: root is refused
 *     (trigger_set(): "Attempt to set trigger by uid 0 != SlurmUser", -EACCES here); the
 *     program must be a file that user can execute (checked at set time and at each run);
 *   - the program runs on the controller host in charge, as the trigger's uid, with every fd
 *     closed (no stdin, stdout or stderr) and the node hostlist (or "reconfig", or the
 *     controller event's name) as its last argument; the program string is split on spaces;
 *   - a trigger without `permanent` is removed once it fired; a PERM one is cloned (same id)
 *     and saved in StateSaveLocation/trigger_state, restored at restart and takeover; the
 *     pending event bits are NOT saved (events of the last <= 15 s before a restart are lost);
 *   - a saved trigger naming a node that no longer exists makes slurmctld fatal() at restore
 *     ("Incomplete trigger data checkpoint file"): use "*", never node names;
 *   - `fail` never fires (nothing calls trigger_node_failing()); DRAINING, the resume of a
 *     drained node and a dynamic node's registration fire nothing; `reconfig` fires on every
 *     reconfigure, node update (scontrol update node: drain, resume, down) and node delete;
 *   - slurm_get_triggers() lists every user's triggers to anyone (not the copies running now).
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
        SLURM_NODE_EVENT_RECONFIG = 1U << 5,
        SLURM_NODE_EVENT_IDLE = 1U << 7,
        SLURM_NODE_EVENT_DRAINED = 1U << 8,
};

/* Controller events (resource type slurmctld); the values are TRIGGER_TYPE_* bits too. */
enum slurm_ctld_event {
        SLURM_CTLD_EVENT_PRI_FAIL = 1U << 9,      /* primary_slurmctld_failure */
        SLURM_CTLD_EVENT_PRI_RES_OP = 1U << 10,   /* primary_slurmctld_resumed_operation */
        SLURM_CTLD_EVENT_PRI_RES_CTRL = 1U << 11, /* primary_slurmctld_resumed_control */
        SLURM_CTLD_EVENT_BU_FAIL = 1U << 13,      /* backup_slurmctld_failure */
        SLURM_CTLD_EVENT_BU_RES_OP = 1U << 14,    /* backup_slurmctld_resumed_operation */
        SLURM_CTLD_EVENT_BU_AS_CTRL = 1U << 15,   /* backup_slurmctld_assumed_control */
};

/* Job events (resource type job); TRIGGER_TYPE_* bits too. */
enum slurm_job_event {
        SLURM_JOB_EVENT_TIME = 1U << 3, /* the job's time limit, offset seconds before/after it */
        SLURM_JOB_EVENT_FINI = 1U << 4, /* the job ended */
};

/* What a trigger watches: libslurm's TRIGGER_RES_TYPE_* values (checked at compile time). */
enum slurm_trigger_res {
        SLURM_TRIGGER_RES_JOB = 1,
        SLURM_TRIGGER_RES_NODE = 2,
        SLURM_TRIGGER_RES_SLURMCTLD = 3,
        SLURM_TRIGGER_RES_SLURMDBD = 4,
        SLURM_TRIGGER_RES_DATABASE = 5,
        SLURM_TRIGGER_RES_FRONT_END = 6,
        SLURM_TRIGGER_RES_OTHER = 7,
};
/* "job", "node", "slurmctld", "slurmdbd", "database", "front_end", "other"; "unknown" else. */
const char *slurm_trigger_res_name(unsigned res_type);

/* The offset Slurm takes: seconds, strigger's bounds (src/strigger/opts.c). */
#define SLURM_TRIGGER_OFFSET_MAX 32000

struct slurm_trigger {
        uint32_t id;
        bool node_trigger; /* a node trigger (else job, controller, database, … trigger) */
        bool ctld_trigger; /* a slurmctld trigger */
        unsigned res_type; /* enum slurm_trigger_res */
        uint32_t events;   /* TRIGGER_TYPE_* bits (SLURM_NODE_EVENT_* for node triggers) */
        char *resource;    /* node name expression, "*" for any node, a job id; NULL when none */
        char *program;
        uint32_t user_id;
        bool permanent;
        int offset; /* seconds */
};

struct slurm_trigger_list {
        struct slurm_trigger *v;
        size_t n;
};
void slurm_trigger_list_done(struct slurm_trigger_list *l);

/* "up", "down", "fail", "reconfig", "idle", "drained"; NULL for anything else. */
const char *slurm_node_event_name(enum slurm_node_event e);
/* strigger's names: "primary_slurmctld_resumed_control", …; NULL for anything else. */
const char *slurm_ctld_event_name(enum slurm_ctld_event e);

/* A permanent trigger for every node ("*") or for the controller, as a daemon-side charm
 * keeps it: one event bit, offset 0. */
struct slurm_trigger_spec {
        bool controller;     /* a slurmctld event (else a node event) */
        uint32_t event;      /* one SLURM_NODE_EVENT_* or SLURM_CTLD_EVENT_* bit */
        const char *program; /* absolute path, then arguments separated by single spaces */
};
/* Whether t is spec's trigger: same kind and event, resource "*", permanent, this program,
 * owned by uid (pure). */
bool slurm_trigger_is(const struct slurm_trigger *t, const struct slurm_trigger_spec *s, uint32_t uid);
/* Sets spec's trigger as the calling user (who must be SlurmUser, see above: call it from a
 * process running as that uid, proc_call_as()). Returns 1 when set, 0 when slurmctld already
 * has the same one (ESLURM_TRIGGER_DUP: idempotent), -EACCES when the caller is not SlurmUser
 * or cannot run the program, -EINVAL for a bad spec. */
int slurm_trigger_set_perm(const struct slurm_trigger_spec *s, struct strbuf *err);

/* Sets a trigger for one event on node (a name or hostlist expression; NULL or "*": any
 * node). program: absolute path. -EINVAL for a bad event or a relative program. */
int slurm_trigger_set_node(const char *node, enum slurm_node_event event, const char *program,
        bool permanent, struct strbuf *err);
/* Every event bit set in events by strigger's name ("down", "fini",
 * "primary_slurmctld_failure", …; an unknown bit as "0x…"), comma-separated. */
void slurm_trigger_events_format(uint32_t events, struct strbuf *out);

/* Any trigger, as an operator asks for one: one event bit of the resource's kind (node: up,
 * down, fail, idle, drained, reconfig; job: time, fini; slurmctld: the SLURM_CTLD_EVENT_*
 * ones), resource "*" (or NULL) or a node expression for a node trigger, a job id for a job
 * trigger, offset within ±SLURM_TRIGGER_OFFSET_MAX, program an absolute path (then arguments
 * separated by single spaces). Set as the calling user (SlurmUser: call it from proc_call_as()).
 * The caller judges what is wise (a named node is fatal to slurmctld's restore once gone). */
struct slurm_trigger_req {
        unsigned res_type;
        const char *resource;
        uint32_t event;
        int offset;
        const char *program;
        bool permanent;
};
/* 0; -EEXIST when slurmctld has the very same trigger (ESLURM_TRIGGER_DUP), -EINVAL for a bad
 * request, else the Slurm error's errno (an unknown or finished job, a refused uid, …) with its
 * message. */
int slurm_trigger_set(const struct slurm_trigger_req *q, struct strbuf *err);

/* All triggers. Returns the count. */
int slurm_trigger_list(struct slurm_trigger_list *ret, struct strbuf *err);
/* Clears trigger id. -ESRCH when there is no such trigger (slurmctld answers ESRCH). */
int slurm_trigger_clear(uint32_t id, struct strbuf *err);
