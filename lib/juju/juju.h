/* SPDX-License-Identifier: Apache-2.0 */
/* The hook runtime: a C API over Juju's hook context (environment) and hook tools, which run
 * as child processes found on PATH exactly as in a real hook (lib/proc: argv only, no shell).
 *
 * A hook's main does:
 *
 *         _cleanup_juju_ctx_ struct juju_ctx *ctx = NULL;
 *         _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
 *         r = juju_ctx_from_env(&ctx, &err);               // reads JUJU_* once
 *         ... juju_relation_get(), juju_relation_set(), juju_config_string(), ...
 *         r = juju_flush(ctx, &err);                       // ONE relation-set per written bag
 *         return r < 0 ? 1 : 0;
 *
 * Errors (every int function): 0 (or a count) on success, negative errno on failure, with one
 * message appended to err (err may be NULL):
 *   -EREMOTEIO  the tool ran and exited non-zero; err holds "TOOL: " + its stderr, which is
 *               Juju's "ERROR …" text (or "TOOL: exited with status N" when stderr was empty);
 *   -ENOENT, -EACCES, …  the tool could not be run at all; err says "could not run TOOL: …";
 *   -ETIME      the tool did not finish within the tool timeout (it was killed);
 *   -EBADMSG    the tool's output was not what its --format promised;
 *   -EINVAL     an argument was refused before any tool ran (bad key, no relation id, …).
 * No function prints or exits; a failing tool never ends the process.
 *
 * Caching (within one ctx = one hook): each relation databag is read at most once
 * (`relation-get --format=json -`), config once (`config-get --all`), action params once,
 * is-leader once. Writes to the unit's or app's own bags are buffered per bag, visible at once
 * to reads of that bag through this ctx, and sent by juju_flush() as ONE
 * `relation-set -r ID [--app] --file -` per bag (a YAML map on stdin, every key and value a
 * double-quoted YAML scalar; an empty value deletes the key). juju_ctx_free() does not flush:
 * pending writes are dropped (Juju would drop them too if the hook failed).
 *
 * Tool syntax: options come before positional arguments; a positional that starts with '-'
 * is preceded by "--". Relation ids are strings "endpoint:N"; a NULL rel_id means the hook's
 * own JUJU_RELATION_ID (-EINVAL when the hook has none). Bags are named by owner: a unit name
 * ("app/0") for a unit bag, an application name ("app") for an app bag.
 *
 * Ownership: borrowed results (const cJSON *, const char *) live in the ctx cache until
 * juju_ctx_free() (a relation_set to the same bag may change them); cJSON ** and char **
 * results are the caller's (cJSON_Delete / free); struct strv results are appended to the
 * caller's strv only on success. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "util/strbuf.h"
#include "util/strv.h"

struct juju_ctx;

/* Cleanup for the cJSON results handed to the caller. */
static inline void juju_cjson_freep(cJSON **j) {
        cJSON_Delete(*j);
}
#define _cleanup_juju_cjson_ __attribute__((__cleanup__(juju_cjson_freep)))

/* The hook context from the environment. Every field is NULL when its variable is unset or
 * empty (e.g. remote_unit in relation-created/-broken), except unit and app, always set. */
struct juju_env {
        const char *unit;            /* JUJU_UNIT_NAME, "app/N" */
        const char *app;             /* the unit name before '/' */
        const char *model_name;      /* JUJU_MODEL_NAME */
        const char *model_uuid;      /* JUJU_MODEL_UUID */
        const char *machine_id;      /* JUJU_MACHINE_ID */
        const char *charm_dir;       /* JUJU_CHARM_DIR, else CHARM_DIR */
        const char *version;         /* JUJU_VERSION */
        const char *context_id;      /* JUJU_CONTEXT_ID */
        const char *hook_name;       /* JUJU_HOOK_NAME (NULL for actions) */
        const char *dispatch_path;   /* JUJU_DISPATCH_PATH: "hooks/NAME" or "actions/NAME" */
        const char *event;           /* NAME from the dispatch path, else hook or action name */
        bool is_action;              /* dispatched as an action */
        const char *relation;        /* JUJU_RELATION: the endpoint */
        const char *relation_id;     /* JUJU_RELATION_ID: "endpoint:N" */
        const char *relation_event;  /* created|joined|changed|departed|broken for relation hooks */
        const char *remote_unit;     /* JUJU_REMOTE_UNIT */
        const char *remote_app;      /* JUJU_REMOTE_APP */
        const char *departing_unit;  /* JUJU_DEPARTING_UNIT */
        const char *action_name;     /* JUJU_ACTION_NAME */
        const char *action_uuid;     /* JUJU_ACTION_UUID */
        const char *secret_id;       /* JUJU_SECRET_ID */
        const char *secret_label;    /* JUJU_SECRET_LABEL */
        const char *secret_revision; /* JUJU_SECRET_REVISION */
};

/* --- context ----------------------------------------------------------------------------- */

/* Reads the context from the process environment; tools run with that environment. Every hook
 * and action calls it first, so it also sets what such a process needs: SIGPIPE ignored, so a
 * write to a peer that went away (a slurmctld dying at start while we send it an RPC, a closed
 * pipe) fails with EPIPE where it would kill the hook with signal 13 (exit 141). */
int juju_ctx_from_env(struct juju_ctx **ret, struct strbuf *err);
/* Same from an explicit NULL-terminated "NAME=value" list (copied); the tools run with exactly
 * this environment (its PATH finds them). For tests and juju-sim. */
int juju_ctx_from_envp(char *const *envp, struct juju_ctx **ret, struct strbuf *err);
/* Frees the ctx and its caches; pending relation writes are dropped (call juju_flush first). */
void juju_ctx_free(struct juju_ctx *ctx);
static inline void juju_ctx_freep(struct juju_ctx **ctx) {
        juju_ctx_free(*ctx);
}
#define _cleanup_juju_ctx_ __attribute__((__cleanup__(juju_ctx_freep)))

const struct juju_env *juju_env(const struct juju_ctx *ctx);
/* Limit for each tool call, in ms (default 120000; 0: none). */
void juju_set_tool_timeout(struct juju_ctx *ctx, int timeout_ms);
/* How many tool processes this ctx has started (for tests and debugging). */
unsigned juju_tool_calls(const struct juju_ctx *ctx);

/* Runs one hook tool: argv->v[0] is the tool name, searched on the ctx's PATH. in (may be
 * NULL) is fed to stdin; stdout is stored in ret_out (may be NULL) on success. Every other
 * function goes through this one. */
int juju_tool_run(struct juju_ctx *ctx, const struct strv *argv, const char *in, size_t in_len,
        struct strbuf *ret_out, struct strbuf *err);

/* --- relations ------------------------------------------------------------------------------ */

/* relation-ids --format=json ENDPOINT: appends "endpoint:N" ids to ret. */
int juju_relation_ids(struct juju_ctx *ctx, const char *endpoint, struct strv *ret, struct strbuf *err);
/* relation-list -r ID --format=json: appends the remote unit names to ret. */
int juju_relation_list(struct juju_ctx *ctx, const char *rel_id, struct strv *ret, struct strbuf *err);
/* relation-list -r ID --app --format=json: the remote application's name (caller frees). */
int juju_relation_remote_app(struct juju_ctx *ctx, const char *rel_id, char **ret, struct strbuf *err);

/* The whole bag of owner (unit "app/N" or application "app") in relation rel_id, as a cJSON
 * object of strings, read once per (rel_id, owner) with
 * `relation-get -r ID [--app] --format=json - OWNER` and cached (borrowed). */
int juju_relation_get(
        struct juju_ctx *ctx, const char *rel_id, const char *owner, const cJSON **ret, struct strbuf *err);
/* One key of that bag (borrowed; *ret = NULL when the key is absent). */
int juju_relation_get_value(struct juju_ctx *ctx, const char *rel_id, const char *owner, const char *key,
        const char **ret, struct strbuf *err);
/* Buffers key=value for this unit's bag (app=false) or this application's bag (app=true, leader
 * only: Juju refuses otherwise at flush). value NULL or "" deletes the key. Keys must be
 * non-empty; keys and values valid UTF-8 (-EILSEQ). Nothing runs until juju_flush(). */
int juju_relation_set(struct juju_ctx *ctx, const char *rel_id, bool app, const char *key, const char *value,
        struct strbuf *err);
/* Whether relation writes are waiting for juju_flush(). */
bool juju_has_pending(const struct juju_ctx *ctx);
/* Sends each bag's pending writes with ONE relation-set; tries every bag, returns the first
 * error (messages for all failures appended). Bags that failed keep their pending writes. */
int juju_flush(struct juju_ctx *ctx, struct strbuf *err);
/* The YAML document juju_flush() feeds relation-set for a cJSON object of string values
 * (exposed for tests and fuzzing). -EILSEQ on invalid UTF-8, -EINVAL on a non-string value. */
int juju_yaml_map(const cJSON *map, struct strbuf *out, struct strbuf *err);

/* --- config, leadership, status, log -------------------------------------------------------- */

/* config-get --all --format=json, cached: an object of typed values (null when unset). */
int juju_config(struct juju_ctx *ctx, const cJSON **ret, struct strbuf *err);
/* Typed options: -ENOENT when the option is unknown or unset (null), -EINVAL on a wrong type. */
int juju_config_string(struct juju_ctx *ctx, const char *key, const char **ret, struct strbuf *err);
int juju_config_int(struct juju_ctx *ctx, const char *key, int64_t *ret, struct strbuf *err);
int juju_config_float(struct juju_ctx *ctx, const char *key, double *ret, struct strbuf *err);
int juju_config_bool(struct juju_ctx *ctx, const char *key, bool *ret, struct strbuf *err);

/* is-leader --format=json, cached for the hook. */
int juju_is_leader(struct juju_ctx *ctx, bool *ret, struct strbuf *err);

/* Whether this unit is being removed (goal-state --format=json: its own entry "dying"), before
 * its own relation-departed says so: Juju runs the hooks a dying unit had queued first. A unit
 * missing from the answer is not dying (a subordinate's own units map is empty). */
int juju_unit_dying(struct juju_ctx *ctx, bool *ret, struct strbuf *err);

enum juju_status {
        JUJU_STATUS_MAINTENANCE,
        JUJU_STATUS_BLOCKED,
        JUJU_STATUS_WAITING,
        JUJU_STATUS_ACTIVE,
};
/* "maintenance", "blocked", "waiting", "active" ("unknown" out of range). */
const char *juju_status_name(enum juju_status status);
/* status-set [--application] STATUS [MSG] (msg NULL: none). Takes effect at once. */
int juju_status_set(
        struct juju_ctx *ctx, bool app, enum juju_status status, const char *msg, struct strbuf *err);
/* application-version-set VERSION */
int juju_application_version_set(struct juju_ctx *ctx, const char *version, struct strbuf *err);

enum juju_log_level {
        JUJU_LOG_TRACE,
        JUJU_LOG_DEBUG,
        JUJU_LOG_INFO,
        JUJU_LOG_WARNING,
        JUJU_LOG_ERROR,
        JUJU_LOG_CRITICAL,
};
/* juju-log -l LEVEL MSG */
int juju_log(struct juju_ctx *ctx, enum juju_log_level level, const char *msg, struct strbuf *err);
int juju_logf(struct juju_ctx *ctx, enum juju_log_level level, struct strbuf *err, const char *fmt, ...)
        __attribute__((__format__(printf, 4, 5)));

/* --- actions ---------------------------------------------------------------------------------- */

/* action-get --format=json, cached: the params object (borrowed). */
int juju_action_params(struct juju_ctx *ctx, const cJSON **ret, struct strbuf *err);
/* One param by dotted path ("a.b"), borrowed; *ret = NULL when absent. */
int juju_action_param(struct juju_ctx *ctx, const char *path, const cJSON **ret, struct strbuf *err);
/* Whether key is valid for action-set (action-set.go): dot-separated segments of [a-z0-9-], each
 * starting and ending with [a-z0-9], none of them stdout, stderr, stdout-encoding, stderr-encoding. */
bool juju_action_key_valid(const char *key);
/* action-set KEY=VALUE (nested keys as "result.conf"). -EINVAL on an invalid key. */
int juju_action_set(struct juju_ctx *ctx, const char *key, const char *value, struct strbuf *err);
/* action-set K1=V1 K2=V2 … in one call; kv holds key, value, key, value, … */
int juju_action_set_many(struct juju_ctx *ctx, const struct strv *kv, struct strbuf *err);
/* action-fail [MSG] (msg NULL: none) */
int juju_action_fail(struct juju_ctx *ctx, const char *msg, struct strbuf *err);
/* action-log MSG */
int juju_action_log(struct juju_ctx *ctx, const char *msg, struct strbuf *err);

/* --- secrets ---------------------------------------------------------------------------------- */

enum juju_secret_owner {
        JUJU_SECRET_OWNER_APPLICATION,
        JUJU_SECRET_OWNER_UNIT,
};
enum juju_secret_fetch {
        JUJU_SECRET_CURRENT, /* the revision this unit last saw */
        JUJU_SECRET_PEEK,    /* --peek: the latest, without tracking it */
        JUJU_SECRET_REFRESH, /* --refresh: the latest, and track it from now on */
};
/* Secret content keys: [a-z] then at least two more of [a-z0-9] with single inner hyphens. */
bool juju_secret_key_valid(const char *key);
/* secret-add [--label L] [--description D] --owner application|unit KEY=VALUE…; content is an
 * object of string values. Returns the new secret id ("secret:…", caller frees). */
int juju_secret_add(struct juju_ctx *ctx, const cJSON *content, const char *label, const char *description,
        enum juju_secret_owner owner, char **ret_id, struct strbuf *err);
/* secret-get [--label L] [--peek|--refresh] --format=json [ID]: by id, by label, or both (a
 * consumer naming a secret by id sets its label). Returns the content object (caller frees). */
int juju_secret_get(struct juju_ctx *ctx, const char *id, const char *label, enum juju_secret_fetch fetch,
        cJSON **ret, struct strbuf *err);
/* Content value of one key (caller frees; -ENOENT when the key is absent). */
int juju_secret_get_value(struct juju_ctx *ctx, const char *id, const char *label,
        enum juju_secret_fetch fetch, const char *key, char **ret, struct strbuf *err);
/* secret-set [--label L] [--description D] ID [KEY=VALUE…]; content NULL: metadata only. */
int juju_secret_set(struct juju_ctx *ctx, const char *id, const cJSON *content, const char *label,
        const char *description, struct strbuf *err);
/* secret-grant -r REL [--unit U] ID / secret-revoke -r REL [--unit U] ID (unit NULL: all). */
int juju_secret_grant(
        struct juju_ctx *ctx, const char *id, const char *rel_id, const char *unit, struct strbuf *err);
int juju_secret_revoke(
        struct juju_ctx *ctx, const char *id, const char *rel_id, const char *unit, struct strbuf *err);
/* secret-remove [--revision N] ID (revision 0: the whole secret). */
int juju_secret_remove(struct juju_ctx *ctx, const char *id, unsigned revision, struct strbuf *err);
/* secret-ids --format=json: appends the ids of the secrets this app/unit owns (Juju prints
 * bare ids, without "secret:"; the leader also gets the application's). */
int juju_secret_ids(struct juju_ctx *ctx, struct strv *ret, struct strbuf *err);
/* secret-info-get (--label L | ID) --format=json: the metadata object of that one secret (the
 * tool prints {ID: {...}}; this returns the inner object, caller frees). */
int juju_secret_info_get(
        struct juju_ctx *ctx, const char *id, const char *label, cJSON **ret, struct strbuf *err);

/* --- unit state, ports, network ------------------------------------------------------------- */

/* state-get --format=json KEY: the value (caller frees), *ret = NULL when unset (Juju prints ""). */
int juju_state_get(struct juju_ctx *ctx, const char *key, char **ret, struct strbuf *err);
/* state-set KEY=VALUE (Juju's keyvalues.Parse trims key and value; "" deletes the key) */
int juju_state_set(struct juju_ctx *ctx, const char *key, const char *value, struct strbuf *err);
/* state-delete KEY */
int juju_state_delete(struct juju_ctx *ctx, const char *key, struct strbuf *err);

/* open-port PORT/PROTO, close-port PORT/PROTO (proto "tcp" or "udp"; NULL: tcp). */
int juju_open_port(struct juju_ctx *ctx, unsigned port, const char *proto, struct strbuf *err);
int juju_close_port(struct juju_ctx *ctx, unsigned port, const char *proto, struct strbuf *err);

/* unit-get private-address (caller frees). */
int juju_private_address(struct juju_ctx *ctx, char **ret, struct strbuf *err);
/* network-get --format=json BINDING (caller frees). */
int juju_network_get(struct juju_ctx *ctx, const char *binding, cJSON **ret, struct strbuf *err);
