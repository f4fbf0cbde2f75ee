/* SPDX-License-Identifier: Apache-2.0 */
/* Node events on a controller unit: the glue between Slurm (node table, triggers set as
 * SlurmUser), the trigger spool and watcher, and the node event log (charm/slurmctld/events.h), plus the
 * node-events action. HACKING.md "Node events" has the design and the Slurm facts behind it.
 *
 * The controller units keep ONE log, in the state save location they share (charm/slurmctld/evshare.h;
 * <state>/events is a link to it), fed by every unit's reconciles under its lock: every unit
 * reads the node table of the controller in charge, whoever sees a change first records it,
 * and node-events answers with the same records, seq and ids on any unit (it reconciles
 * first). Triggers are one set for the cluster (slurmctld keeps them in
 * StateSaveLocation): every unit makes sure they exist (idempotent: listed, the missing ones
 * added; a duplicate is success), all pointing at the same path on every host
 * (EVSPOOL_HOME/node-event-trigger, installed by each unit); slurmctld runs them on the host in
 * charge, whose watcher then reconciles at once; the other units catch up on their own safety
 * poll, hooks and update-status. So the controller in charge may change (HA) without a gap.
 *
 * Where a reconcile happens (cause in parentheses): every full hook reconcile of the
 * controller ("update-status", "config-changed", …, through nodeevents_after_reconcile(), the
 * one call at the end of slurmctld_reconcile()); the watcher's start ("watcher-start"), its
 * trigger rounds ("trigger:<kinds>") and its poll ("poll"); the action ("node-events"); the
 * status refresh the watcher runs ("node-events-changed").
 *
 * SlurmUser: only it may set triggers (slurm/triggers.h), so they are set from a child that
 * becomes SlurmUser (proc_call_as()); everything else here (listing triggers, reading nodes)
 * is allowed to root and done as root.
 *
 * Functions return 0 (or a count) or a negative errno with one message appended to err. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "charm/common/charm.h"
#include "charm/slurmctld/events.h"
#include "charm/slurmctld/expect.h"
#include "charm/slurmctld/eventspool.h"
#include "slurm/triggers.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define NODEEVENTS_STATE_SUBDIR "events" /* under CHARM_PATH_STATE_DIR */
#define NODEEVENTS_UNIT "juju-node-events.service"
#define NODEEVENTS_TEMPLATE "juju-node-events.service"
#define NODEEVENTS_WATCHER_EXE "bin/node-event-watcher"
#define NODEEVENTS_HANDLER_EXE "bin/node-events-changed"
#define NODEEVENTS_TRIGGER_EXE "bin/node-event-trigger"
#define NODEEVENTS_LIMIT_DEFAULT 100
#define NODEEVENTS_LIMIT_MAX 1000
#define NODEEVENTS_N_TRIGGERS 6

/* <root><state>/events (caller frees). */
char *nodeevents_dir(const struct charm_paths *paths);
/* <root>EVSPOOL_HOME/spool (caller frees). */
char *nodeevents_spool(const struct charm_paths *paths);

/* --- triggers ------------------------------------------------------------------------------- */

/* The triggers the controller keeps: node down, drained, up, reconfig (every node: "*") and
 * the controller taking control (primary resumed control, backup assumed control), each
 * running "<program> <kind>". progs holds the program strings (caller's storage). */
void nodeevents_trigger_specs(const char *program, struct slurm_trigger_spec ret[NODEEVENTS_N_TRIGGERS],
        char progs[NODEEVENTS_N_TRIGGERS][256]);
/* Which specs the list lacks (pure): ret_missing[i] set for each. Returns how many. */
size_t nodeevents_triggers_missing(const struct slurm_trigger_list *have,
        const struct slurm_trigger_spec *want, size_t n, uint32_t uid, bool ret_missing[]);
/* Lists the triggers (as root) and sets the missing ones as SlurmUser. Returns how many were
 * set (0: all there). */
int nodeevents_triggers_ensure(const struct charm_paths *paths, struct strbuf *err);

/* --- install --------------------------------------------------------------------------------- */

/* Writes, each only when it differs: the trigger program (from <charm_dir>/bin, root 0755), the
 * spool (SlurmUser 0700, its parent root 0755) and the watcher's unit file (from
 * <charm_dir>/templates). Returns a mask: 1 the unit file changed, 2 the program changed. */
int nodeevents_write_files(
        const struct charm_paths *paths, const char *juju_unit, const char *charm_dir, struct strbuf *err);
/* nodeevents_write_files(), daemon-reload when the unit changed, enable and start the watcher
 * (restart when its unit changed or restart is set: an upgraded charm). */
int nodeevents_install(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit,
        const char *charm_dir, bool restart, struct strbuf *err);

/* --- reconcile -------------------------------------------------------------------------------- */

struct nodeevents_result {
        size_t records;  /* appended to the log by this reconcile */
        bool table_read; /* Slurm answered (else the log is as of the last reconcile) */
        size_t nodes, down, drained, draining; /* the table now (when read) */
};

/* Spool records as hints (pure): down/drained/up with their hostlists expanded, reconfig and
 * slurmctld as they are; invalid or unknown records are left out. Returns the count. */
size_t nodeevents_hints(const struct evspool_list *records, struct ev_hint **ret);

/* One reconcile of the log: the table (and the controller's boot time) read with "no change
 * since" BEFORE the log's lock (one lock for every controller unit: a slow query must not hold
 * the others' hooks), then under it the step and the commit; a table older than the one
 * committed meanwhile counts as unchanged. records: this round's spool records (NULL:
 * none). ret may be NULL. Returns the number of records appended. */
int nodeevents_reconcile(const struct charm_paths *paths, const struct evspool_list *records,
        const char *cause, struct nodeevents_result *ret, struct strbuf *err);

/* The watcher's reconcile callback (charm/slurmctld/eventwatch.h); userdata: const struct charm_paths *.
 * Also makes sure of the triggers (restored by a slurmctld whose state was lost). */
int nodeevents_watch_reconcile(
        void *userdata, const struct evspool_list *records, const char *cause, struct strbuf *err);

/* An operator action's record (events.h, ev_note): appended under the log's lock with the next
 * seq, on whichever unit the action runs (the log is the controllers' one). Only into a log a
 * hook placed already: -ENOENT (nothing written) when this unit has none yet, so that no
 * private log is started beside the shared one. Returns the number of records. */
int nodeevents_note(const struct charm_paths *paths, const struct ev_note *note, struct strbuf *err);
/* A compute unit's own actions (interfaces/nodeactions.h, read from its bag) into the log:
 * each (its list's log id, seq) once, under the log's lock, with the action's own time, "by"
 * "<unit> action <id>"; the last seq is noted in the snapshot that commits the records
 * (ev_unit_noted), so no leader records one twice, across leaders and restarts. A list whose
 * oldest new action is not the one after the last recorded (more than NODE_ACTIONS_MAX in
 * between, or a list the log never saw that starts past 1) says how many were lost in that
 * record's detail; a list whose newest seq is below the one recorded (it went back) is
 * -ESTALE with a message, nothing recorded. floor: the seq this unit saw recorded itself (its
 * own file, unitacts.h; 0 none), taken when the snapshot knows less (a snapshot set aside and
 * started anew, or written by a unit not upgraded yet, which drops the key): never below it.
 * Returns the number of records, or a negative errno. */
struct node_actions;
int nodeevents_note_unit_actions(const struct charm_paths *paths, const char *unit, const struct node_actions *a,
        uint64_t floor, struct strbuf *err);

/* nodeevents_reconcile() when this unit's log exists (a hook placed it), else nothing: an
 * action brings the log up to date before it changes nodes, without ever starting a private
 * log. Errors are ignored (the watcher catches up). */
void nodeevents_catch_up(const struct charm_paths *paths, const char *cause);

/* The watcher's expecting callback (charm/slurmctld/eventwatch.h, charm/slurmctld/expect.h): how many
 * expectations are open against the last snapshot. userdata: const struct charm_paths *. */
size_t nodeevents_watch_expecting(void *userdata);

/* Adds to ret the nodes this unit's hooks saw leaving (relation-departed) and expect to go,
 * within the expectation's window (expect.h); whether they are still in the table is the
 * caller's to check. The status says them leaving, with the jobs that require them. */
void nodeevents_leaving(const struct charm_paths *paths, struct strv *ret);

/* A hook's expectation (kind, node) against the node names it just read from Slurm (table):
 * recorded and the watcher rung when it has not happened yet (1); when it has (0), the node's
 * other line goes (a unit that joins again is not leaving; one that leaves unregistered will not
 * join). The file changes under the log's lock. */
int nodeevents_expect(const struct charm_paths *paths, enum expect_kind kind, const char *node,
        const struct strv *table, struct strbuf *err);

/* The ONE call at the end of slurmctld_reconcile(): the log placed in the shared state save
 * location (charm/slurmctld/evshare.h), install (restart on upgrade-charm), triggers, reconcile with
 * cause `event`. state_save_dir: slurmctld's StateSaveLocation as this unit sees it, NULL while
 * the unit is not in the controller order (nothing is done: its directory is not proven to be
 * the shared one). Never fails the hook: a failure is logged (juju-log) and noted at the end
 * of out's message ("; node events: …"). */
void nodeevents_after_reconcile(struct juju_ctx *ctx, const struct charm_paths *paths, sd_bus *bus,
        const char *event, const char *state_save_dir, struct charm_outcome *out);

/* --- the action ----------------------------------------------------------------------------------- */

struct nodeevents_params {
        bool has_since;
        uint64_t since;
        size_t limit;
};
/* since: an integer >= 0 (optional); limit: an integer 1..NODEEVENTS_LIMIT_MAX (default
 * NODEEVENTS_LIMIT_DEFAULT); no other key. params may be NULL (none given). -EINVAL with a
 * message naming the parameter and the value. */
int nodeevents_params_parse(const cJSON *params, struct nodeevents_params *ret, struct strbuf *err);
/* Action node-events [since=SEQ] [limit=N]: parameters checked first (a bad one fails the
 * action and changes nothing), a reconcile (best effort: a silent slurmctld is noted, the log
 * is still returned), then the page (at most limit records and 96 KiB: action-set takes each
 * result as one argument; "more" and "next-since" say where to go on). Results: "events" (JSON
 * lines, oldest first), "count", "first-seq", "last-seq", "next-since", "more", "oldest-seq",
 * "latest-seq", "rotated-out" (records after since no longer kept), "nodes" (counts now), "note". */
int nodeevents_action(struct juju_ctx *ctx, const struct charm_paths *paths, struct strbuf *err);
