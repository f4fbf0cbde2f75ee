/* SPDX-License-Identifier: Apache-2.0 */
/* What the operator actions' files share (ops.c, ops-nodes.c, ops-resv.c, ops-jobs.c, and the
 * trigger actions' trigops.c): the entry wrapper, the result writer, parameter readers, Slurm
 * error wording, node name checks. Not for other users.
 * Ownership: as in ops.h; struct ops_nodes owns its table and lists (ops_nodes_done()). */
#pragma once

#include "charm/slurmctld/ops.h"
#include "slurm/nodes.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* After a change: the action's records in the node event log (nodeevents_note(): one per node,
 * with who ran it, the reason and detail), so that the log says who changed a node. Nothing
 * when nodes is empty. A failure is a warning in kv ("event-log"), never the action's failure:
 * the change is made. */
void ops_note(struct juju_ctx *ctx, const char *action, const struct strv *nodes, const char *reason,
        const char *detail, struct strv *kv);

/* --- parameters (action-get's object) ---------------------------------------------------------- */

/* Refuses keys not in allowed (NULL-terminated): "unknown parameter "x" (known: a b)". */
int ops_params_known(const cJSON *params, const char *const *allowed, struct strbuf *err);
/* 0 and *ret = NULL when absent, 1 with the string, -EINVAL when not a string. */
int ops_param_string(const cJSON *params, const char *key, const char **ret, struct strbuf *err);
/* A parameter the schema types [string, integer]: a whole number is taken as its decimal text
 * (in buf). Returns as ops_param_string. */
int ops_param_text(
        const cJSON *params, const char *key, char *buf, size_t len, const char **ret, struct strbuf *err);
/* A Slurm name: 1..max of letters, digits, '.', '_', '-' (node, reservation, user, partition). */
bool ops_plain_name(const char *s, size_t max);
/* 0 when absent, 1 with *ret in [min, max], -EINVAL otherwise. */
int ops_param_uint(const cJSON *params, const char *key, uint64_t min, uint64_t max, uint64_t *ret,
        struct strbuf *err);

/* Pairs per action-set call (argv stays far below the kernel's limits). */
#define OPS_SET_CHUNK 200
/* ops_ctl_check: each controller's ping at most this long (MessageTimeout's default) */
#define OPS_PING_MS 10000

/* Runs fn with a message buffer of its own and prefixes a failure message with
 * "<action>: " into err. */
int ops_run(struct juju_ctx *ctx, const char *action, int (*fn)(struct juju_ctx *ctx, struct strbuf *err),
        struct strbuf *err);

/* action-set of every pair of kv, OPS_SET_CHUNK pairs per call. */
int ops_result_set(struct juju_ctx *ctx, const struct strv *kv, struct strbuf *err);

/* Appends "key" (printf format) and value to kv. */
void ops_kv(struct strv *kv, const char *value, const char *fmt, ...)
        __attribute__((__format__(printf, 3, 4)));
/* Appends a result key segment for a name: lowercase, every character other than [a-z0-9-]
 * as '-', no '-' at either end ("x" when nothing is left). */
void ops_key_segment(const char *name, struct strbuf *out);

/* Words a Slurm failure (r, message e from lib/slurm) into err: a controller that does not
 * answer is named as such, and "nothing changed" added when changes is set. Returns r. */
int ops_slurm_failed(int r, const struct strbuf *e, bool changes, struct strbuf *err);

/* Pings every controller of the configuration (one quick RPC each, no retries): when none
 * answers, fails at once with "slurmctld does not answer (host: why, …)" (+ ": nothing
 * changed" when changes), instead of libslurm's retries (MessageTimeout seconds, longer with a
 * backup). Called after the parameters are checked, before anything else is asked. */
int ops_ctl_check(bool changes, struct strbuf *err);

/* The node table and the nodes a request names in it. */
struct ops_nodes {
        struct slurm_node_list table;
        struct strv nodes;   /* resolved, each once, in order */
        struct strv missing; /* names that are neither a node nor an application */
};
void ops_nodes_done(struct ops_nodes *n);

/* Parses the parameters of a node action, loads the node table and resolves the names (node-get
 * expands applications always; the others as allow-application says). When changes is set
 * a missing name is an error ("unknown node(s) …: nothing changed"). */
int ops_nodes_prepare(struct juju_ctx *ctx, enum ops_node_action action, bool changes,
        struct ops_node_req *req, struct ops_nodes *ret, struct strbuf *err);

/* The node named name in the table, or NULL. */
const struct slurm_node *ops_table_find(const struct slurm_node_list *table, const char *name);
/* Appends names as a hostlist expression ("cpu-[0-2]"); nothing for an empty list. */
void ops_hostlist(char *const *names, struct strbuf *out);
/* A user-supplied string as messages show it (in quotes): every byte that is not printable
 * ASCII, and '"', as '?', cut after 64 characters with "…". Caller frees. */
char *ops_shown(const char *s);
/* Appends up to 10 quoted names, comma-separated, then ", …" ("\"a\", \"b\""). */
void ops_quoted_list(char *const *names, struct strbuf *out);
/* Appends nodes.<key>.name and the node's state and reason as state and reason, or (previous)
 * as previous-state and previous-reason. */
void ops_node_state_fields(const struct slurm_node *n, bool previous, struct strv *kv);

/* node-update's gres (issue 26, item 2): what the node proved is its record now (current, from
 * its registration); requested may not raise a name's total over its types above it, give a
 * type more than the record has of it, or add no_consume (any number of jobs would share it).
 * (Raising back a count lowered earlier is not offered: slurmctld refuses any change but to 0
 * of a count bound to device files, and the charm binds every GPU to its files.) A lower count,
 * or a name removed, is taken. 0, or -EPERM / -EINVAL with the reason naming node. */
int ops_gres_claims_check(const char *node, const char *requested, const char *current, struct strbuf *err);
