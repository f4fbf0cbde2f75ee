/* SPDX-License-Identifier: Apache-2.0 */
/* No job stranded by a departure (issue 12): the charms' side of slurm/stranded.h.
 *
 * A pending job whose ReqNodeList names a node that leaves can never run where its user asked,
 * and slurmctld 22.05 would start it on whichever node next takes the deleted node's table
 * index (slurm/stranded.h has what was seen). So:
 *   - the departing slurmd unit, right before it deletes its node and once more right after,
 *     holds those jobs (admin hold; admin comment STRAND_WHY: which node, which unit, what to
 *     do) and logs them and the reservations naming the node (which Slurm shrinks or deletes
 *     with the node) in its hook log; when unfinished jobs require the node, its record is kept
 *     as the node's placeholder instead of being deleted (strand_keep_record(); else, or when
 *     that fails, the placeholder is created right after the deletion): slurm/stranded.h,
 *     without one slurmctld's next reconfigure or restart fails those jobs;
 *   - the controller's status names them: "pending jobs 9, 10 require node slurmd-1, which is
 *     leaving" while the departure runs, then "…, held: the node left (scancel them, or set
 *     their ReqNodeList and release them)" until they are gone; the leader holds any it finds
 *     that are not held (a forced removal: the controller deleted the stale record itself; a
 *     job released unchanged), creates any placeholder missing and deletes those no pending job
 *     requires;
 *   - destroy-jobs (the forced path) cancels them with the same comment and takes the node out
 *     of the reservations (deleting one left empty), and says which.
 * None of this ever waits: a departure does not hang on a job that cannot run.
 * Functions return 0 or a negative errno with one message in err; none prints. */
#pragma once

#include <stdbool.h>

#include "juju/juju.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* The admin comment set on a stranded job (caller frees). */
char *strand_why(const char *node, const char *unit);

/* Departing unit: holds the jobs stranded by node (leaving) that are not held yet and logs them
 * and (with resvs: before the deletion) the reservations naming it (juju-log WARNING). Never
 * fails the departure: problems are logged. */
void strand_departure(struct juju_ctx *ctx, const char *unit, const char *node, bool resvs);

/* Whether an unfinished job's node list names node (1; the pending ones' ids into ids,
 * ", "-separated, when ids is not NULL), 0 none, or a negative errno (message in err). */
int strand_jobs_naming(const char *node, struct strbuf *ids, struct strbuf *err);

/* Departing unit, once its node is drained and idle: when an unfinished job's node list names
 * node, its record is kept as its placeholder (slurm_stranded_placeholder_keep(): the name never
 * unknown to slurmctld, whose reconfigure or restart at that moment, from another machine's
 * hook under Juju, would fail those jobs) instead of being deleted; asked again while slurmctld
 * restarts, within timeout_ms. 1 kept, 0 no job requires it (delete it), negative errno (logged:
 * delete it, then strand_departure() makes the placeholder). */
int strand_keep_record(struct juju_ctx *ctx, const char *node, int timeout_ms);

/* Controller status: appends "; <note>" for stranded jobs (leaving: the nodes of the units this
 * controller knows are leaving, still in the table; NULL or empty: none); hold: also hold the ones that are not held (the leader), and
 * name a hold that failed (" (not held: hold job 9: …)"), and keep the placeholders (create the
 * missing, except those of present nodes: the node names of the units in a relation; delete
 * the unneeded; a failure named in the note). Silent when Slurm does not answer (the status
 * says so elsewhere). */
void strand_status_note(const struct strv *leaving, bool hold, const struct strv *present, struct strbuf *note);

/* Creates the placeholders that are missing, except those of present nodes (the node names of
 * the units still in a relation; may be NULL): right before the leader's own reconfigure, so
 * that one deleted since its last reconcile does not cost the jobs. Silent. */
void strand_placeholders_ensure(const struct strv *present);

/* destroy-jobs: cancels the jobs stranded by node and takes it out of its reservations; adds
 * the result keys "stranded-cancelled", "reservations-shrunk", "reservations-deleted" to kv
 * (comma-separated; empty when none). Returns the number of failures (>= 0, messages in err)
 * or a negative errno when Slurm cannot be read. */
int strand_destroy(const char *unit, const char *node, struct strv *kv, struct strbuf *err);

/* Whether a node record of this unit's node name is another's: a departed node's placeholder
 * (slurm/stranded.h) that this unit's registration was taken onto. A unit of the same name (an
 * application removed and deployed again, unit numbers starting over) registers onto the
 * existing record, whose attributes (1 CPU, no partition feature) never fit: 22.05 keeps its
 * NodeHostName (the name), 24.11 takes the machine's and hides the reason of an idle node, but
 * both keep its features (node_mgr.c validate_node_specs). So: the placeholder's feature among
 * record_features (comma-separated). Pure. */
bool strand_foreign_record(const char *record_features);
