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
 * Invariants, serial mode (model.h, hook concurrency): one context at a time in the model (the
 * caller holds the model lock throughout); status-set, juju-log and application-version-set take
 * effect at once, everything else lands in ctx->work, which replaces the model state on exit 0
 * and is dropped otherwise. Concurrent mode: one context at a time per machine (the runner takes
 * the machine lock, the caller holds no lock), each with its own socket DIR/agent-N.sock (N: the
 * context number); the model lock is taken only to read the state before the process starts, for
 * each immediate write (status-set, leader-set, application-version-set: reloaded, written,
 * saved) and to commit at the end: ctx->work's changes against ctx->base are merged into the
 * state as it is then (model_commit_merge()). Tools read ctx->work: the state as it was when the
 * hook began, with the hook's own writes (leader-set alone checks leadership in the state as it
 * is now). While the process runs its unit records its context ("context"); at its end a
 * leadership handover its unit's removal deferred happens (model_leader_handover()). The mode is
 * the verb's, fixed once (m->concurrent, model_hook_mode_fix()); a serial verb keeps off a machine
 * whose lock a concurrent process holds (it waits for that machine, or skips its unit and waits
 * before it returns). Ownership: the runner owns its contexts. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "model.h"
#include "util/strbuf.h"

struct hookctx {
        struct model *m;
        cJSON *work; /* working copy of the state */
        cJSON *base; /* concurrent mode: the state when the process started (work's origin) */
        bool concurrent;
        int serial_mfd;   /* serial mode: the unit's machine lock while its process runs, or -1 */
        bool serial_saves; /* serial mode: immediate writes are saved at once (serial_started) */
        const char *unit;
        const char *app; /* points to app_owned */
        char *app_owned;
        char *id;         /* JUJU_CONTEXT_ID */
        char *sock;       /* JUJU_AGENT_SOCKET_ADDRESS */
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

/* How long a concurrent-mode runner waits for a machine lock or the model lock. */
#define RUNNER_LOCK_TIMEOUT_SEC 600

/* Runs the head event of unit's queue. Returns 0 when it ran and succeeded or was skipped,
 * 1 when the hook failed (the unit is now in error), or a negative errno. deadline_ms: a
 * CLOCK_MONOTONIC time after which a running hook is killed (0: none). Serial mode: the caller
 * holds the model lock and saves; concurrent mode: the runner takes the unit's machine lock and
 * the model lock as it needs them and saves (the caller holds neither). */
int runner_run_event(struct model *m, const char *unit, int64_t deadline_ms, struct strbuf *err);

/* The wait before automatic retry number `failures` (1: after the first failure) of a failed
 * hook: 5 s, 10 s, 20 s … at most 5 min. */
int64_t runner_retry_delay_ms(unsigned failures);

/* Runs queued hooks until nothing can run; saves the state after each. Serial mode (the caller
 * holds the model lock): one unit after another in turn. Concurrent mode (the caller holds no
 * lock): up to model_hook_workers() hooks at once, each in a forked worker that runs one event of
 * one unit under its machine lock (at most one worker a machine; units taken in turn, each pass
 * going on from the unit after the last one started); the state is re-read after each worker
 * and every 250 ms, so events queued meanwhile (by hooks or by other juju-sim commands) run too;
 * a unit whose queue another juju-sim is running is waited for. In both modes a process that
 * another juju-sim runs on a machine (its machine lock held: an exec, run or another wait's
 * hook, whose commit may queue events) is waited for before nothing is left. A unit in error
 * waits for resolve, or, with automatically-retry-hooks (model.h), for its automatic retry: while
 * nothing else can run, time passes until the next one is due, if that is before the deadline.
 * Returns 0 when settled, 1 when a unit is in error (err names it, and when its retry is due),
 * negative errno (-ETIME on timeout). */
int runner_settle(struct model *m, int timeout_sec, unsigned *ret_hooks, struct strbuf *err);

/* Runs an action now (concurrent mode: under the unit's machine lock only). *ret_result: { id, status:
 * completed|failed, message, results, log: [{timestamp, message}], timing: {enqueued, started, completed} }
 * (times in Unix seconds, whole as the controller's nowToTheSecond keeps them). Returns 0 (also when the
 * action failed) or a negative errno. */
int runner_run_action(struct model *m, const char *unit, const char *action, cJSON *params,
        cJSON **ret_result, struct strbuf *err);

/* Runs cmd (argv; one element is run by bash -c) in the unit's hook context with our stdin,
 * stdout and stderr (concurrent mode: under the unit's machine lock only, as Juju's juju-exec
 * runs commands). *ret_status: its exit status (128+N for a signal). */
int runner_exec(struct model *m, const char *unit, char *const *cmd, int *ret_status, struct strbuf *err);

/* Implemented in hooktools.c: runs one hook tool in ctx (file: the --file contents, files: the
 * request's "files"). Returns the tool's exit code; *ret_output (malloc'd) is the -o path, if any. */
int hooktool_run(struct hookctx *ctx, char *const *argv, const char *file, const cJSON *files,
        struct strbuf *out, struct strbuf *errout, char **ret_output);

/* Implemented in hooktools.c: the state a hook tool's immediate write goes to (status-set, leader-set,
 * application-version-set): serial mode, the model's own, saved at once as in concurrent mode
 * (juju status shows a running hook's status-set) while the process holds its machine's lock
 * (ctx->serial_mfd; so a reader leaves the unit "executing", and a killed wait's unit is undone
 * at the next load and its event runs again); concurrent mode, the model's reloaded under the
 * model lock. NULL (err says why) when the lock could not be taken. Pair each non-NULL return
 * with hookctx_state_end(), which saves (and, concurrent, unlocks). */
cJSON *hookctx_state_begin(struct hookctx *ctx, struct strbuf *err);
int hookctx_state_end(struct hookctx *ctx, struct strbuf *err);

