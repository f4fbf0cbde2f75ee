/* SPDX-License-Identifier: Apache-2.0 */
/* The admin's maintenance switch of a unit (actions pause and resume, every charm): while a
 * unit is paused its charm starts, restarts and reconfigures nothing, so a daemon an admin
 * stopped on purpose stays stopped, and the status says so.
 *
 * Design note. Without it the service watcher restarts a stopped slurmd, slurmctld or munge
 * within a second (charm/common/watcher.h), and update-status repairs what it finds: right for a
 * crash, wrong for an admin who is working on the machine. A pause is per unit (an admin works
 * on one machine), kept in <state>/paused (the admin's reason, one line) so that it survives
 * reboots and upgrades, and lifted only by resume. While paused:
 *  - every reconcile (hooks, the watcher's handler, update-status) writes nothing and drives no
 *    daemon; it sets maintenance "paused by admin: <reason> (resume: juju run <unit> resume)"
 *    followed by the daemons that are not running;
 *  - a departure (remove-unit, remove-relation) still runs: Juju does not wait for the admin;
 *  - resume removes the file and runs the charm's reconcile, which starts what is stopped.
 * The slurmd charm's pause also drains the node by default (reason "paused: <reason>"), so that
 * no new job lands on a machine under maintenance; resume lifts only a drain with that reason
 * (an admin's own drain stays). Stopping slurmd for longer than SlurmdTimeout makes the node
 * DOWN, and Slurm requeues or kills the jobs still on it: the pause result says how many there
 * are.
 *
 * Ownership: strings returned are the caller's. */
#pragma once

#include <stdbool.h>

#include "charm/common/charm.h"
#include "systemd/unit.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define PAUSE_FILE "paused"
#define PAUSE_REASON_MAX 128

/* 1 with *ret_reason (caller frees; may be NULL) when the unit is paused, 0 when not, negative
 * errno. */
int charm_paused(const struct charm_paths *p, char **ret_reason);
/* Pauses (replacing an older reason). */
int charm_pause_set(const struct charm_paths *p, const char *reason, struct strbuf *err);
/* Lifts the pause: 1 when the unit was paused, 0 when it was not. */
int charm_pause_clear(const struct charm_paths *p, struct strbuf *err);

/* Checks an admin's reason (pause reason, drain reason): 1 to PAUSE_REASON_MAX printable
 * ASCII characters. -EINVAL with "<what>: …" otherwise. */
int charm_reason_check(const char *what, const char *reason, struct strbuf *err);

/* The common part of the pause action: the "reason" parameter (default "maintenance")
 * checked and stored. Returns 0 and *ret_reason (caller frees). */
int charm_action_pause(
        struct juju_ctx *ctx, const struct charm_paths *p, char **ret_reason, struct strbuf *err);

/* The whole pause action of a charm whose pause only stops its charm (no drain): the reason
 * stored (charm_action_pause), result "paused" true, and the paused status set with the state
 * of the unit's services (NULL-terminated). */
int charm_action_pause_unit(
        struct juju_ctx *ctx, const struct charm_paths *p, char *const *services, struct strbuf *err);

/* An action's reconcile: the charm's reconcile runs, its outcome is set as the unit's status,
 * and kv (the action's results so far) gets "status" and is set. */
int charm_action_reconcile(struct juju_ctx *ctx, const struct charm_paths *p,
        int (*reconcile)(
                struct juju_ctx *, const struct charm_paths *, struct charm_outcome *, struct strbuf *),
        struct strv *kv, struct strbuf *err);

/* The common part of the resume action: the pause lifted (its reason, NULL when the unit was
 * not paused, in *ret_reason), then the charm's reconcile runs and its outcome is set as the
 * unit's status; results "was-paused", "status". */
int charm_action_resume(struct juju_ctx *ctx, const struct charm_paths *p,
        int (*reconcile)(
                struct juju_ctx *, const struct charm_paths *, struct charm_outcome *, struct strbuf *),
        char **ret_reason, struct strbuf *err);

/* The reconcile's first question: 1 when the unit is paused, with the paused status in out (the
 * state of `services`, NULL-terminated, read over `bus`, or over a connection of its own when
 * bus is NULL); 0 when it is not; negative errno ("pause state: …" in err). */
int charm_paused_gate(sd_bus *bus, const struct charm_paths *p, const char *unit, char *const *services,
        struct charm_outcome *out, struct strbuf *err);

/* The paused status: maintenance "paused by admin: <reason> (resume: juju run <unit>
 * resume)", then "; <daemon> <ActiveState>" for each given service that is not active. */
void charm_paused_outcome(
        sd_bus *bus, const char *unit, const char *reason, char *const *services, struct charm_outcome *out);
/* "; <daemon> <ActiveState>" into msg for a service that is not active, with " (Result=…)"
 * when it failed (how it ended: exit-code, signal, core-dump, timeout). */
void charm_paused_daemon_note(struct strbuf *msg, const char *service, const struct unit_state *st);
