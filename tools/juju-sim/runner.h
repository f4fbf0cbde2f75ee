/* SPDX-License-Identifier: Apache-2.0 */
/* The hook runner: runs one queued hook, an action or an exec command of a unit in a hook
 * context, serves the hook tools over a unix socket while it runs, and commits the context's
 * buffered changes only when the process exits 0.
 *
 * Protocol (juju-sim-tool <-> runner), one connection per tool call on the filesystem socket
 * DIR/agent.sock (JUJU_AGENT_SOCKET_ADDRESS): the tool writes one JSON object
 *   { "context": ID, "argv": [name, args…], "file": "<contents of --file PATH or stdin>"?,
 *     "files": { PATH: "<contents>" | { "error": "<Go's os error text>" } }? }
 * ("files": the key#file=PATH arguments of secret-add/secret-set, read where the path makes
 * sense) and shuts down its write side; the runner answers
 *   { "code": N, "stdout": S, "stderr": S, "output": PATH? }
 * and closes; with "output" (the tool's -o/--output) the tool writes stdout to PATH instead. A request whose
 * context is not the running one is refused (code 1).
 *
 * Invariants: one context at a time (the caller holds the model lock); status-set, juju-log and
 * application-version-set take effect at once, everything else lands in ctx->work, which replaces
 * the model state on exit 0 and is dropped otherwise. Ownership: the runner owns its contexts. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "model.h"
#include "util/strbuf.h"

struct hookctx {
        struct model *m;
        cJSON *work; /* working copy of the state */
        const char *unit;
        const char *app;
        char *id;         /* JUJU_CONTEXT_ID */
        const char *hook; /* hook name; NULL for actions and exec */
        const char *kind; /* event kind (relation-changed, …) */
        long relation_id; /* -1 when no relation */
        const char *remote_unit;
        const char *remote_app;
        bool is_action;
        const char *action_name;
        cJSON *action_params;
        cJSON *action_results; /* object, nested by dotted keys */
        bool action_failed;
        char *action_message;
        cJSON *action_log; /* array of {timestamp: Unix seconds, message} */
        unsigned tool_calls;
        cJSON *logs; /* juju-log lines: array of strings "LEVEL msg" */
};

/* Runs the head event of unit's queue. Returns 0 when it ran and succeeded or was skipped,
 * 1 when the hook failed (the unit is now in error), or a negative errno. deadline_ms: a
 * CLOCK_MONOTONIC time after which a running hook is killed (0: none). */
int runner_run_event(struct model *m, const char *unit, int64_t deadline_ms, struct strbuf *err);

/* The wait before automatic retry number `failures` (1: after the first failure) of a failed
 * hook: 5 s, 10 s, 20 s … at most 5 min. */
int64_t runner_retry_delay_ms(unsigned failures);

/* Runs queued hooks, one unit after another in turn, until nothing can run; saves the state after
 * each. A unit in error waits for resolve, or, with automatically-retry-hooks (model.h), for its
 * automatic retry: while nothing else can run, time passes until the next one is due, if that is
 * before the deadline. Returns 0 when settled, 1 when a unit is in error (err names it, and when
 * its retry is due), negative errno (-ETIME on timeout). */
int runner_settle(struct model *m, int timeout_sec, unsigned *ret_hooks, struct strbuf *err);

/* Runs an action now. *ret_result: { id, status: completed|failed, message, results, log: [{timestamp,
 * message}], timing: {enqueued, started, completed} } (times in Unix seconds, whole as the
 * controller's nowToTheSecond keeps them). Returns 0 (also when the action failed) or a negative errno. */
int runner_run_action(struct model *m, const char *unit, const char *action, cJSON *params,
        cJSON **ret_result, struct strbuf *err);

/* Runs cmd (argv; one element is run by bash -c) in the unit's hook context with our stdin,
 * stdout and stderr. *ret_status: its exit status (128+N for a signal). */
int runner_exec(struct model *m, const char *unit, char *const *cmd, int *ret_status, struct strbuf *err);

/* Implemented in hooktools.c: runs one hook tool in ctx (file: the --file contents, files: the
 * request's "files"). Returns the tool's exit code; *ret_output (malloc'd) is the -o path, if any. */
int hooktool_run(struct hookctx *ctx, char *const *argv, const char *file, const cJSON *files,
        struct strbuf *out, struct strbuf *errout, char **ret_output);

int64_t now_ms(void);
