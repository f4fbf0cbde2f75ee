/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's operator actions (issue 11): each a thin main in actions/slurmctld/ calling
 * one ops_<action>() entry here. They talk to Slurm (libslurm, lib/slurm), never to Juju data
 * beyond their own parameters and results, so they work the same on any controller unit,
 * leader or not.
 *
 *   slurm-config [item]      the running configuration (slurm/ctlvalues.h)
 *   node-get nodes           every field an admin looks at, per node; unknown names: missing
 *   node-drain nodes reason  DRAIN with the reason
 *   node-down nodes reason   DOWN: Slurm requeues the node's batch jobs that allow it and
 *                            kills the others; the result says which
 *   node-resume nodes        RESUME of the DOWN/DRAIN/FAIL nodes; the others are unchanged
 *   node-update nodes …      weight, features, active-features, gres, comment
 *   node-reserve nodes …     a maintenance reservation (slurm/reservations.h), merged into an
 *                            existing one of the same name
 *   node-unreserve nodes …   nodes out of it; the last one deletes it
 *   job-find criteria        job ids (and a summary) of the jobs matching every criterion
 *   job-get jobids           every field per job; arrays and het jobs; unknown ids: missing
 *   job-steps jobids         every step of every job, named as Slurm names them
 *
 * The rules every action keeps:
 *  - Everything is checked before the first call that changes Slurm: the parameters (again,
 *    whatever Juju's schema check did: types, unknown keys, ranges, grammars), then every node
 *    name against one snapshot of the node table (libslurm's update stops at the first unknown
 *    name, having changed the ones before it). A refusal changes nothing and says why; its
 *    message starts with the action's name.
 *  - Node names are hostlist expressions (slurmconf/hostlist.h), at most OPS_NODES_MAX names.
 *    A name that is an application (a NodeSet: slurmctld expands it to all the application's
 *    nodes) is refused unless allow-application=true, which expands it here to the nodes that
 *    carry the application's feature (what slurmctld would do). "ALL" is refused: name the
 *    nodes or the applications. (node-get, which changes nothing, always expands applications.)
 *  - A reason (drain, down) is 1 to 128 printable ASCII characters (charm_reason_check()); the
 *    default names the action ("node-drain action").
 *  - node-update keeps every application feature a node has (NodeSet=X Feature=X: a node that
 *    loses X leaves X's partition at the next reconfigure) and warns that the slurmd charm's
 *    node-config re-registers the node, which replaces these settings. On a failure half-way
 *    the nodes already changed are put back.
 *  - node-reserve creates with the flags MAINT,IGNORE_JOBS,OVERLAP unless flags= is given,
 *    start now unless start= (ISO-8601 or "now"), a duration always sent (default
 *    OPS_RESV_DEFAULT_MINUTES, at most OPS_RESV_MAX_MINUTES) and users root unless users=.
 *    Reserving into an existing reservation adds the nodes to it; a start, duration, users or
 *    flags given that differ from the existing reservation's are refused (unreserve it first).
 *  - A controller that does not answer: "<action>: slurmctld does not answer (…)", and for the
 *    actions that change state "nothing changed".
 *
 * Results (juju action-set keys: lowercase letters, digits, hyphens; dots nest):
 *   slurm-config   config.<key>: value (keys in kebab case: "topology-plugin"); item: the
 *                  Slurm spelling of the one key asked for
 *   node-*         nodes.<node>.<field> (state, reason, reason-time, reason-user, cpus,
 *                  alloc-cpus, …); changed, unchanged, missing: comma-separated node names
 *   node-down      also jobs.<id>.outcome (requeued, killed, running on other nodes),
 *                  jobs-killed, jobs-requeued, warning
 *   node-(un)reserve  reservation.<field>, added, already-reserved, removed, not-reserved,
 *                  created / deleted
 *   job-*          jobs.<job id>.<field> (the record's own numeric id; job-id is Slurm's
 *                  display form "123_4"), jobs.<id>.steps.<step>.<field>, count, missing
 *   Times are local ISO-8601 ("2024-05-01T10:00:00"), as scontrol prints them.
 *
 * Ownership: request structs own their strings (ops_*_req_done()); pure helpers append to the
 * caller's buffers. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "juju/juju.h"
#include "slurm/jobquery.h"
#include "slurm/nodes.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define OPS_NODES_MAX 4096
#define OPS_JOBIDS_MAX 1000
#define OPS_JOBS_LISTED_MAX 1000 /* job-find lists at most this many (count says how many match) */
#define OPS_RESV_DEFAULT_MINUTES 1440
#define OPS_RESV_MAX_MINUTES (366 * 1440)
#define OPS_RESV_DEFAULT_NAME "maintenance"
#define OPS_RESV_DEFAULT_FLAGS "MAINT,IGNORE_JOBS,OVERLAP"
#define OPS_RESV_DEFAULT_USERS "root"
#define OPS_COMMENT_MAX 256
#define OPS_FEATURE_WARNING                                                                      \
        "node-config on a node's slurmd unit deletes and re-registers the node, which replaces " \
        "these settings: set them there (node-config) to keep them"

/* --- the actions ------------------------------------------------------------------------------ */

int ops_slurm_config(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_get(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_drain(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_down(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_resume(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_update(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_reserve(struct juju_ctx *ctx, struct strbuf *err);
int ops_node_unreserve(struct juju_ctx *ctx, struct strbuf *err);
int ops_job_find(struct juju_ctx *ctx, struct strbuf *err);
int ops_job_get(struct juju_ctx *ctx, struct strbuf *err);
int ops_job_steps(struct juju_ctx *ctx, struct strbuf *err);

/* --- parameters (pure: params is action-get's object) ----------------------------------------- */

enum ops_node_action {
        OPS_NODE_GET,
        OPS_NODE_DRAIN,
        OPS_NODE_DOWN,
        OPS_NODE_RESUME,
        OPS_NODE_UPDATE,
        OPS_NODE_RESERVE,
        OPS_NODE_UNRESERVE,
};
/* "node-get", "node-drain", … */
const char *ops_node_action_name(enum ops_node_action a);

struct ops_node_req {
        enum ops_node_action action;
        struct strv names; /* the nodes parameter expanded, duplicates dropped, in order */
        bool allow_application;
        char *reason; /* drain, down */
        /* update: NULL (or has_weight false) when not given */
        bool has_weight;
        uint32_t weight;
        char *features, *features_active, *gres, *comment;
        /* reserve, unreserve */
        char *resv_name;
        bool has_start;
        time_t start; /* 0: now */
        bool has_duration;
        uint32_t duration_min;
        char *users; /* NULL when not given */
        bool has_flags;
        uint64_t flags;
};
void ops_node_req_done(struct ops_node_req *q);

/* Checks params for action (unknown keys, types, the nodes expression, reason, update and
 * reservation fields) and fills *ret. now: the current time (for start=). 0, or -EINVAL with
 * one message naming the parameter. */
int ops_node_req_parse(enum ops_node_action action, const cJSON *params, time_t now,
        struct ops_node_req *ret, struct strbuf *err);

struct ops_find_req {
        struct strv users, states, partitions, names, accounts, nodes, batch_hosts;
};
void ops_find_req_done(struct ops_find_req *q);
/* job-find's criteria: at least one; lists are comma-separated (name is one exact job name, it
 * may hold commas); node is a hostlist expression. */
int ops_find_req_parse(const cJSON *params, struct ops_find_req *ret, struct strbuf *err);

/* job-get/job-steps' jobids: ids separated by commas and/or spaces, at most OPS_JOBIDS_MAX,
 * duplicates dropped. Returns the count and *ret (caller frees). */
int ops_jobids_parse(const cJSON *params, struct slurm_jobid **ret, struct strbuf *err);

/* slurm-config's item: NULL when not given; 1..64 of letters, digits, '_', '-'. */
int ops_config_item_parse(const cJSON *params, const char **ret, struct strbuf *err);

/* --- pure helpers -------------------------------------------------------------------------------- */

/* "now", or ISO-8601 "YYYY-MM-DD[THH:MM[:SS]][Z|±HH[:]MM]" ('T' or one space; no zone: local
 * time). Must not be more than 60 s before now nor more than 10 years after. *ret = 0 for "now". */
int ops_time_parse(const char *s, time_t now, time_t *ret, struct strbuf *err);
/* Appends local ISO-8601 "YYYY-MM-DDTHH:MM:SS". */
void ops_time_format(time_t t, struct strbuf *out);
/* A Slurm key as an action-set key: "TopologyPlugin" → "topology-plugin", "SLURM_CONF" →
 * "slurm-conf", "DefMemPerCPU" → "def-mem-per-cpu", "X11Parameters" → "x11-parameters". */
void ops_kebab_key(const char *key, struct strbuf *out);

/* The nodes named by names in the node table snapshot: nodes as they are, application
 * (NodeSet) names expanded to their members when allow_application, else refused. Names that
 * are neither go to *ret_missing (the caller decides whether that is an error). Returns 0 and
 * appends to ret_nodes (each once, in order) and ret_missing; -EINVAL (nothing appended) for
 * "ALL" or a refused application, with a message. */
int ops_resolve_nodes(char *const *names, const struct slurm_node_list *table, bool allow_application,
        struct strv *ret_nodes, struct strv *ret_missing, struct strbuf *err);

/* The application (NodeSet) features of a node: the items of its available features that are
 * NodeSet names of the table, comma-separated ("" when none). Caller frees. */
char *ops_node_app_features(const struct slurm_node *n, const struct slurm_node_list *table);
/* features with every item of keep that it lacks put first ("cpu,big"); caller frees. */
char *ops_features_keep(const char *features, const char *keep);
/* Whether every item of sub is an item of set (comma lists). */
bool ops_features_subset(const char *sub, const char *set);

/* The state as scontrol shows it: base MIXED when some but not all CPUs are allocated, every
 * flag spelled out ("MIXED+DRAIN+DYNAMIC_NORM"). */
void ops_node_state_format(const struct slurm_node *n, struct strbuf *out);
/* Appends the node-get fields of n under "nodes.<name>." to kv (key, value, …). */
void ops_node_fields(const struct slurm_node *n, struct strv *kv);
/* Appends the job-get fields of j under "jobs.<job_id>." to kv. */
void ops_job_fields(const struct slurm_jobinfo *j, struct strv *kv);
/* The result key of a step: "batch", "extern", "interactive", "tdb", "0", "0-het-1". */
void ops_step_key(const struct slurm_step *s, struct strbuf *out);
