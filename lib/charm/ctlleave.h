/* SPDX-License-Identifier: Apache-2.0 */
/* A controller unit that leaves waits for the jobs whose steps list no controller that stays
 * (attack 3, F4; Slurm 22.05).
 *
 * On 22.05 a job step keeps the controller list its slurmd had when the step began
 * (slurm_caps.stepd_conf_push is false: slurmd hands running steps no new list), and reports its
 * end to the first of them that answers as in charge. Replacing, one after another, every
 * controller a step lists (remove the backup, add a unit, remove the primary) leaves that step
 * nobody to report to: "Retrying job complete RPC" on the node, the job RUNNING until Slurm
 * purges it.
 *
 * So the controllers keep the history of the controller set in the shared state directory
 * (HA_MARKER_DIR/controller-lists, one line "<time> <host>,<host>…" per change, under a lock,
 * the last CTLLEAVE_HISTORY_MAX kept): each controller unit's reconcile appends the set its
 * slurm.conf lists when it differs from the last line (the order does not matter to a step:
 * it tries every entry). The compute units restart slurmd whenever the list changes
 * (/etc/default/slurmd's --conf-server), so the list a job's steps hold is the one in force
 * when its node's slurmd started: the node's last slurmd start when that is before the job's
 * start, else one in force at the job's start; as the restart follows a change by a hook's
 * time, every set in force during the CTLLEAVE_LAG_S before that moment counts (before the
 * history's first line, its first set). A leaving unit, before it hands control away or stops
 * slurmctld, asks the controller in charge for the running jobs and their nodes' slurmd start
 * times (in a child, bounded) and waits while a job may hold a set with none of the staying
 * controllers, saying so in its status, up to the slurmctld option leave-timeout; then its hook
 * fails naming them (wait and resolve, or cancel them, then resolve). 24.11 hands running steps
 * the new list at slurmd's restart: nothing to wait for there.
 *
 * Ownership: strings and histories returned are the caller's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "juju/juju.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define CTLLEAVE_HISTORY_FILE "controller-lists"
#define CTLLEAVE_HISTORY_MAX 64
#define CTLLEAVE_LAG_S 120
#define CTLLEAVE_TIMEOUT_KEY "leave-timeout"
#define CTLLEAVE_TIMEOUT_DEFAULT_S 600
#define CTLLEAVE_TIMEOUT_MAX_S 604800
#define CTLLEAVE_POLL_MS 5000

struct ctlleave_entry {
        time_t since;
        struct strv hosts; /* sorted */
};

struct ctlleave_history {
        struct ctlleave_entry *v;
        size_t n;
};

void ctlleave_history_done(struct ctlleave_history *h);

/* Parses the history's text (pure): malformed lines are skipped, entries kept in file order.
 * Returns the number of entries. */
size_t ctlleave_history_parse(const char *text, struct ctlleave_history *ret);

/* Notes hosts (any order) as the controller set since t when it differs from the history's last
 * entry, under the history's lock; the file owned by uid:gid, written atomically, the last
 * CTLLEAVE_HISTORY_MAX entries kept. 1 appended, 0 unchanged, negative errno (message in err). */
int ctlleave_note(const char *dir, const struct strv *hosts, time_t t, uid_t uid, gid_t gid, struct strbuf *err);

/* Reads the history of dir: its entry count (0 when there is none), negative errno. */
int ctlleave_history_read(const char *dir, struct ctlleave_history *ret);

/* Whether a running job may hold a set with none of staying (pure): job_start, its nodes'
 * last slurmd start times (0: unknown, counts as unsafe), the history (empty: every job is
 * unsafe), lag (CTLLEAVE_LAG_S). A job with no node known is judged at its start. */
bool ctlleave_job_unsafe(const struct ctlleave_history *h, const struct strv *staying, time_t job_start,
        const time_t *slurmd_starts, size_t n, time_t lag);

/* The option leave-timeout in ms (its default when unset); -EINVAL with a message for a value
 * that is not 1 to CTLLEAVE_TIMEOUT_MAX_S seconds. */
int ctlleave_timeout_ms(struct juju_ctx *ctx, struct strbuf *err);

/* The wait: controllers are the hosts of the running list (self among them), timeout_ms the most
 * it waits. 0 when no job needs this unit any more (or no other controller stays, or the jobs
 * cannot be asked: logged), -ETIMEDOUT with the message for the hook when such jobs still run
 * after timeout_ms. Sets the unit's status while it waits. */
int ctlleave_wait(struct juju_ctx *ctx, const char *state_dir, const struct strv *controllers, const char *self,
        int timeout_ms, struct strbuf *err);
