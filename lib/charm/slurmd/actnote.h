/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit's own actions (pause, resume, node-config, destroy-jobs) for the controllers'
 * node event log (issue 29; interfaces/nodeactions.h has the relation data and why).
 *
 * Design note. The list is kept in this unit's state (SD_ACTIONS_FILE, written atomically
 * before anything is published), so that an action run while no controller is related, or
 * one whose relation-set did not commit, still reaches the log: every hook of the unit
 * (sd_actions_publish, from the reconcile) puts the list into its slurmctld relation's unit bag
 * where it differs, and the action itself does at once (Juju commits an action's relation-set
 * when it succeeds, and the controllers get relation-changed). The controller leader records
 * each (log, seq) once. A note that cannot be written is said in the action's result
 * ("event-log"), and the action's own outcome stands: what it did to the node is done.
 * Ownership: none kept. */
#pragma once

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define SD_ACTIONS_FILE "node-actions.json"

/* Records that this unit's action (its name and id from the environment) did something to
 * node: the state file, then the unit bag. reason and detail may be NULL. 0, or a negative
 * errno (message in err). */
int sd_action_note(struct juju_ctx *ctx, const struct charm_paths *p, const char *node, const char *reason,
        const char *detail, struct strbuf *err);

/* sd_action_note(), its failure said in the action's result ("event-log"): for the actions,
 * whose own outcome stands either way. */
void sd_action_noted(struct juju_ctx *ctx, const struct charm_paths *p, const char *node, const char *reason,
        const char *detail);

/* The list into the slurmctld relation's unit bag where it differs (rel: that relation's id;
 * NULL: none, nothing to do). 0, or a negative errno. */
int sd_actions_publish(struct juju_ctx *ctx, const struct charm_paths *p, const char *rel, struct strbuf *err);
