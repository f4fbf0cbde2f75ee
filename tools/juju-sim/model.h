/* SPDX-License-Identifier: Apache-2.0 */
/* The juju-sim model: its directory, the global lock, the state (one JSON file) and every verb
 * that changes it. Verbs only record the change and queue events on the units' FIFO queues;
 * the runner (runner.h) runs the queued hooks.
 *
 * The state (DIR/state.json, written atomically after every change) is one JSON object:
 *   model:        { name, uuid, machine-mode: "host"|"namespace", juju-sim, juju-sim-tool }
 *   counters:     { machine, relation, context, action }  (next ids)
 *   applications: { APP: { charm-dir, charm: <charm.h description>, config: {set values},
 *                   next-unit, leader, life, status: STATUS|absent, version, units: [] } }
 *   units:        { UNIT: { application, machine, life, agent, agent-since, workload: STATUS,
 *                   error: "hook failed: \"X\""|absent, queue: [EVENT…], relations: { ID: { scope,
 *                   members: [remote units joined], broken } }, state: {}, ports: [],
 *                   secrets: { URI: { revision, label } }, context: ID (concurrent mode: the
 *                   hook, action or exec of the unit running now), elect-successor: true (a
 *                   dying leader whose running process hands leadership on when it ends) } }
 *                   (unit order = creation order)
 *   machines:     { ID: { id, hostname, address, unit, instance: {machine code's own data} } }
 *   relations:    { ID: { id, interface, peer, life, status: STATUS, endpoints: [{app, endpoint, role}],
 *                   app-data: { APP: {} }, unit-data: { UNIT: {} } } }
 *   secrets:      { URI: { owner, owner-kind: application|unit, label, description, latest,
 *                   revisions: { N: {content} }, grants: [{relation, app|unit}] } }
 * STATUS: { status, message, since } (status_record_set() below; a relation's: joining, joined).
 * EVENT: { hook, kind, relation?, remote-unit?, remote-app?, departing-unit?, secret?, label? }.
 *
 * Invariants: every verb runs under the lock (model_lock) between model_open and model_save; a
 * unit's queue is only appended to (and popped at the head by the runner); at most one leader per
 * application. Ownership: struct model owns dir and state; model_free() releases the lock.
 *
 * Hook concurrency (model key hook-concurrency, model_hook_workers()): "serial" runs every hook,
 * action and exec under the model lock, one at a time in the model. Otherwise (the default,
 * "machines") hooks of different machines run at once, as Juju's unit agents do: each machine has its own lock
 * (model_machine_lock(), DIR/lock.machine-N: one hook, action or exec of that machine at a
 * time) and the model lock is held only to read the state and to commit a hook's writes into
 * the state as it is then (model_commit_merge()). Lock order: a machine lock first, then the
 * model lock; nobody waits for a machine lock while holding the model lock. A verb that runs
 * hooks fixes its mode once (model_hook_mode_fix()); a serial one still keeps off a machine whose
 * lock a concurrent process holds (model_machine_busy()), and hook-concurrency does not change
 * while one does. A process killed while it held a machine lock leaves its unit "executing", its
 * context recorded and maybe a leadership handover: undone at the next load once that machine's
 * lock is free. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "util/strbuf.h"
#include "util/strv.h"

struct model {
        char *dir;
        char *state_path;
        int lock_fd;
        cJSON *state;
        bool concurrent; /* the hook mode of the verb running (model_hook_mode_fix()); forked
                          * workers inherit it */
};

/* Resolves the model directory: dir, else $JUJU_SIM_MODEL, else ./.juju-sim (absolute path). */
char *model_dir_resolve(const char *dir);
/* Opens the model at dir; with create, makes it when missing (machine mode from
 * $JUJU_SIM_MACHINES). -ENOENT (with a message) when it does not exist and !create. */
int model_open(const char *dir, bool create, struct model **ret, struct strbuf *err);
/* Takes the global ("machine") lock, waiting at most timeout_sec; -ETIMEDOUT otherwise. Reloads
 * the state after taking it. */
int model_lock(struct model *m, int timeout_sec, struct strbuf *err);
int model_save(struct model *m, struct strbuf *err);
/* Releases the model lock (the fd stays open for the next model_lock()). */
void model_unlock(struct model *m);
/* Closes the lock fd without unlocking it for others: for a forked child, whose inherited fd
 * shares the parent's lock (flock belongs to the open file description). */
void model_forget_lock(struct model *m);
/* Takes machine's lock (DIR/lock.machine-ID), waiting at most timeout_sec (-ETIMEDOUT
 * otherwise); *ret_fd holds it until closed. */
int model_machine_lock(
        const struct model *m, const char *machine, int timeout_sec, int *ret_fd, struct strbuf *err);
/* The caller holds machine's lock and the model lock, before it records its own process there:
 * what a killed process left on that machine's units ("executing", a context, a deferred
 * handover) is undone, which the load's own look leaves while a machine lock is held. */
void model_machine_clear_stale(struct model *m, const char *machine);
/* Whether machine's lock is held now (by another open file: a concurrent hook, action or exec of
 * that machine is between reading the state and committing). Never waits, never makes the lock
 * file (a serial model has none). */
bool model_machine_busy(const struct model *m, const char *machine);
/* The first machine whose lock is held now (model_machine_busy()), or NULL. Caller frees. */
char *model_machine_busy_any(const struct model *m);
void model_free(struct model *m);
static inline void model_freep(struct model **m) {
        if (*m)
                model_free(*m);
}
#define _cleanup_model_ __attribute__((__cleanup__(model_freep)))

/* Removes the model at dir and everything it made (machines included). Idempotent; works after a
 * killed juju-sim (stale lock, socket). Refuses a directory that is not a juju-sim model. */
int model_destroy(const char *dir, struct strbuf *err);

/* Paths inside the model. */
char *model_socket_path(const struct model *m);
char *model_tools_dir(const struct model *m);

/* Lookups in a state tree (the committed one or a hook's working copy). */
cJSON *state_app(const cJSON *st, const char *app);
cJSON *state_unit(const cJSON *st, const char *unit);
cJSON *state_relation(const cJSON *st, long id);
cJSON *state_machine(const cJSON *st, const char *id);
const char *unit_app(const cJSON *st, const char *unit);
bool unit_is_leader(const cJSON *st, const char *unit);
/* The endpoint record of app in relation rel (for a peer relation: its only endpoint). */
const cJSON *rel_endpoint(const cJSON *rel, const char *app);
/* The application on the other side (itself for a peer relation), or NULL if app is not in rel. */
const char *rel_remote_app(const cJSON *rel, const char *app);
/* The unit's per-relation record (scope, members, broken), or NULL. */
cJSON *unit_rel(const cJSON *st, const char *unit, long id);

/* Status records, {status, message, since}: a unit's workload, an application's status, a
 * relation's status. since is when status or message last changed, UTC "2006-01-02T15:04:05Z";
 * setting the same pair again keeps it (Juju's setStatus writes nothing when the status document
 * is unchanged: state/status.go). */
void status_record_set(cJSON *rec, const char *status, const char *message);
/* A since as Juju's common.FormatTime prints it: iso, UTC "2006-01-02 15:04:05Z"; else local time
 * "02 Jan 2006 15:04:05Z07:00". NULL when since is NULL or not a since. Free the result. */
char *status_since_format(const char *since, bool iso);
/* Sets a unit's agent status ("agent"), and "agent-since" when it changed. */
void unit_agent_set(cJSON *u, const char *agent);

/* Verbs. Each returns 0 or a negative errno with one message in err. */
/* shares: NULL-terminated "HOSTDIR:PATH" (may be NULL): HOSTDIR bound at PATH in each new
 * unit's machine (namespace mode), e.g. a StateSaveLocation shared by several controllers.
 * deploy and add-unit are all or nothing: they refuse (-ENOSPC) before making anything when the
 * machines do not fit (sim_capacity_check()), and when a machine fails to come up they destroy
 * the machines they made, remove the charm dir a deploy unpacked and put the state back as it
 * was (the message says so). A caller that holds SIGINT, SIGTERM and SIGHUP blocked while they
 * run gets the same (-EINTR) when one arrives: they look for it between two machines. */
/* base: the machines' base (`--base`, tools/juju-sim/bases.h), or NULL: the model's default-base
 * when the charm was built on it, else the base the charm was built on (manifest built-on), else
 * this host's. A charm built on another base than its machines' is refused. */
int model_deploy(struct model *m, const char *charm, const char *app, int n, char *const *config,
        char *const *shares, const char *base, struct strbuf *err);
/* model-config default-base=B (B "" resets): the base deploy gives machines without --base. */
int model_set_default_base(struct model *m, const char *base, struct strbuf *err);
/* model-config automatically-retry-hooks=true|false ("" resets to Juju's default, true). */
int model_set_retry_hooks(struct model *m, const char *value, struct strbuf *err);
/* model-config hook-concurrency=serial|machines|N ("" resets to the default, machines: Juju's
 * rule, README "Hook concurrency"): how hooks
 * run (above). A change is refused (-EBUSY, nothing changed) while a machine's lock is held or a
 * unit is executing a hook or action: that process runs in the mode it began with. */
#define HOOK_CONCURRENCY_DEFAULT "machines"
#define HOOK_WORKERS_MAX 256
int model_set_hook_concurrency(struct model *m, const char *value, struct strbuf *err);
/* The key's value: "serial", "machines" or a number. */
const char *model_hook_concurrency(const cJSON *state);
/* How many hooks may run at once: 0 serial (one lock for the model), else N, or with
 * "machines" the model's number of machines (at least 1); never above HOOK_WORKERS_MAX. */
unsigned model_hook_workers(const cJSON *state);
/* Fixes the mode of the verb about to run hooks (m->concurrent) from the state as it is now: a
 * change of hook-concurrency meanwhile applies to the next verb, never to this one's workers. */
void model_hook_mode_fix(struct model *m);
/* Whether a failed hook is retried by itself (Juju's automatically-retry-hooks, default true). */
bool model_retry_hooks(const cJSON *state);
int model_add_unit(struct model *m, const char *app, int n, char *const *shares, struct strbuf *err);
/* A leader's removal elects its successor at once, unless its machine runs a process now
 * (model_machine_busy()): then the dying unit stays leader until that process ends
 * (model_leader_handover()), as Juju keeps a dying unit leader while its agent runs. */
int model_remove_unit(struct model *m, const char *unit, struct strbuf *err);
/* remove-unit --force: no hook of the unit runs; remote units get relation-departed; the unit
 * and its machine are removed at once (a machine that died without running its hooks). */
int model_remove_unit_force(struct model *m, const char *unit, struct strbuf *err);
int model_remove_application(struct model *m, const char *app, struct strbuf *err);
int model_integrate(struct model *m, const char *a, const char *b, struct strbuf *err);
int model_remove_relation(struct model *m, const char *a, const char *b, struct strbuf *err);
/* Sets K=V values and resets keys; queues config-changed when the effective config changed. */
int model_config(struct model *m, const char *app, char *const *kv, char *const *reset, struct strbuf *err);
/* resolve UNIT: clears the unit's error; its failed hook runs again at the next wait, or, with
 * no_retry (`--no-retry`), is marked done without running (its changes stay uncommitted). */
int model_resolve(struct model *m, const char *unit, bool no_retry, struct strbuf *err);
/* Takes a unit out of error (its workload status as before the failure); keep_retry keeps the
 * automatic retry's count and time (a retry running now), else they go too. */
void model_unit_error_clear(cJSON *u, bool keep_retry);
/* Forgets a unit's automatic retry (count and time). */
void model_unit_retry_clear(cJSON *u);
/* When the automatic retry of a unit in error is due (wall-clock ms), or 0: none scheduled, the
 * unit not in error, or automatically-retry-hooks false. */
int64_t model_unit_retry_at(const cJSON *state, const cJSON *u);
/* Queues a plain hook (update-status, …) on a unit, or on every unit of an application. */
int model_trigger(struct model *m, const char *target, const char *hook, struct strbuf *err);

/* Appends an event to a unit's queue; a relation-changed, config-changed, secret-changed or
 * update-status equal to one already pending is dropped (Juju coalesces them). */
void queue_event(cJSON *st, const char *unit, cJSON *ev);
cJSON *event_new(const char *kind);
/* Builds a relation event for unit: hook name from its own endpoint. */
cJSON *rel_event_new(const cJSON *st, const char *unit, long id, const char *kind, const char *remote_unit,
        const char *departing);

/* Runner support: what happens in the state right before a hook runs (scope, membership) and
 * after it ended (ok: exited 0 or skipped). post may delete the unit (after remove). */
/* False when the event must be dropped unrun: its relation is gone, or was never entered. */
bool model_event_runnable(const cJSON *st, const char *unit, const cJSON *ev);
void model_event_pre(cJSON *st, const char *unit, const cJSON *ev);
void model_event_post(struct model *m, const char *unit, const cJSON *ev, bool ok);
/* Replaces m->state by work (the hook's committed copy) and queues what the hook's writes cause
 * on others: relation-changed for changed bags, secret-changed for new revisions. */
void model_commit(struct model *m, cJSON *work, const char *unit);
/* Concurrent mode's commit: m->state is the state as it is now (reloaded under the lock); base
 * and work are the hook's view when it began and when it ended. What the hook changed in the
 * parts it may write (its unit's record, its application's status and version, its unit bags, the
 * secrets it manages) replaces those parts of m->state; its application's leader settings and
 * bags take only the keys the hook changed; a secret removed meanwhile stays removed; the rest of
 * m->state, written by others meanwhile, stays. Then queues what the writes cause, as
 * model_commit() does. False (nothing done) when the unit is gone. */
bool model_commit_merge(struct model *m, const cJSON *base, const cJSON *work, const char *unit);
/* The end of a process of unit (committed or not): a successor election that its removal
 * deferred (model_remove_unit()) happens now. */
void model_leader_handover(cJSON *st, const char *unit);
/* Removes the first event of the unit's queue equal to ev (the head a runner ran). */
void model_unit_queue_pop(cJSON *u, const cJSON *ev);
/* Before the runner takes the head: when it is a relation-joined that starts a run of only
 * joined/changed events of the same relation, the joined of the lowest remote unit name in that
 * run (with the changed right after it) moves to the head. Juju's resolver joins the remote units
 * it knows in sorted order, each joined followed by its changed (nextRelationHook); queues here
 * keep the order units entered scope, which differs when hooks of several machines overlap. */
void model_unit_queue_sort_joins(cJSON *u);
/* Drops finished relations, departed units' bags, empty dying applications. */
void model_gc(struct model *m);

/* Milliseconds on CLOCK_MONOTONIC (deadlines of the runner and the model's waits). */
int64_t now_ms(void);
