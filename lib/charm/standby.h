/* SPDX-License-Identifier: Apache-2.0 */
/* The standby hold (issue 25, "takeover keeps running jobs"): a controller moved behind another
 * stays stopped while job steps may still ask it first.
 *
 * Facts (Slurm's source). A job step's slurmstepd sends its completions (the batch script's
 * REQUEST_COMPLETE_BATCH_SCRIPT, step completions) with slurm_send_recv_controller_msg, to the
 * controllers of ITS configuration, the first that accepts a connection first. A standby
 * accepts the connection and answers ESLURM_IN_STANDBY_MODE ("Invalid RPC received … while in
 * standby mode", backup.c); the client sleeps SlurmctldTimeout/2 and asks the FIRST controller
 * again, until 1.5 x SlurmctldTimeout have passed, then gives up: the job stays RUNNING on the
 * controller in charge after its processes ended. Which list a step has:
 *  - 22.05: the list in slurm.conf when the step started (slurmstepd reads it once; its
 *    REQUEST_STEP_RECONFIGURE only reopens the log);
 *  - 24.11: slurmd, at each start (a restart, or the re-exec of a reconfigure), hands every
 *    running step the list of its own configuration (slurmd.c _read_config ->
 *    update_stepd_logging(true) -> unpack_stepd_reconf; slurm_caps.stepd_conf_push).
 * A controller whose unit moved behind the new first one (a takeover; a failover the charm makes
 * stick, ha.h) is "displaced" at the time the leader changed the order (app bag key
 * STANDBY_DISPLACED_KEY: "unit=time …"). A step started under the old list asks it first; so,
 * while such a step may run, its slurmctld stays stopped (a refused connection sends the step on
 * to the next controller at once): a job is old when, on one of its nodes, slurmd did not start
 * after the order changed (it still runs the old list, and so do the steps it starts), or (22.05)
 * the job started before that node's slurmd did. The hold ends when no old job runs.
 *
 * Liveness: the hold costs a standby. So it holds only while the controller in charge answers
 * (the query fails otherwise: nothing is held), and the sentinel (sentinel.h) removes the hold
 * record and runs the charm when no controller has been in charge for SlurmctldTimeout, so that
 * the displaced one takes over when the one in charge is lost too (the old steps then find it).
 * The hold record STANDBY_FILE in the unit's state directory ("<since> <old jobs> <a job id>")
 * tells the sentinel a hold is on; it asks the charm again every STANDBY_RECHECK_S.
 *
 * Ownership: pure functions unless they say otherwise; strings returned are the caller's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "charm/charm.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define STANDBY_DISPLACED_KEY "displaced"
/* When each controller joined the order (app bag, "unit=time …", written by the leader): a job
 * whose steps started before a unit joined (standby_job_old() for that time) does not list it,
 * so a takeover onto that unit, which stops every controller ahead of it, would leave those
 * steps no controller to report their end to (attack 4, F-A). */
#define STANDBY_JOINED_KEY "joined"
#define STANDBY_FILE "standby-held"
#define STANDBY_RECHECK_S 60

/* Whether a running job may have a step whose controller list is older than since: n nodes,
 * their slurmd start times (0: unknown, counts as old); push: slurmd hands running steps its
 * list at its start (slurm_caps.stepd_conf_push). A job with no node known is old when it
 * started before since. */
bool standby_job_old(time_t job_start, const time_t *slurmd_starts, size_t n, time_t since, bool push);

/* The displaced time of unit in the app bag value ("unit=time …"), 0 when it has none. */
time_t standby_displaced_of(const char *value, const char *unit);
/* The next value (appended to out): prev's entries of units still present, without first's
 * (the unit now first is never held), each unit of prev_order ahead of first displaced at now
 * (a later time replaces an earlier one). first NULL (no order change): prev pruned only. */
void standby_displaced_next(const char *prev, const struct strv *prev_order, const char *first,
        const struct strv *present, time_t now, struct strbuf *out);

/* The next "joined" value (appended to out): each unit of order with its time in prev; a unit
 * new to the order (not in prev_order) joined at now; a unit of prev_order that prev has no time
 * for (the order from before this record) gets none (0: no constraint). Units not in order are
 * dropped. */
void standby_joined_next(const char *prev, const struct strv *prev_order, const struct strv *order, time_t now,
        struct strbuf *out);

/* Whether a running job may have steps whose controller list lacks a unit that joined the order
 * at joined (the takeover's question: only membership counts, as every controller ahead of the
 * taker stops): one of its nodes runs a slurmd that started before joined (0: unknown, counts);
 * on 22.05 (!push), a node whose slurmd restarted after the job started (the job's steps have
 * the list of an earlier slurmd) and the job started before joined + STANDBY_JOIN_SETTLE_S, the
 * time allowed for the new list to reach every node's slurmd; a job with no node known, by that
 * same start rule. Times from different machines are compared: their clocks are taken to agree
 * (NTP). */
#define STANDBY_JOIN_SETTLE_S 300
bool standby_job_lacks(time_t job_start, const time_t *slurmd_starts, size_t n, time_t joined, bool push);

/* Queries the controller in charge (slurm_load_jobs, slurm_load_node) in a forked child killed
 * after timeout_ms (a hung controller with a fresh heartbeat would hold a hook for libslurm's
 * tries on every controller: attack 3, F5): how many running, suspended or completing jobs are
 * old (standby_job_old) for since; one of them in *ret_example. Returns the count, -ETIMEDOUT
 * after timeout_ms, or another negative errno when no controller answers. */
#define STANDBY_QUERY_TIMEOUT_MS (20 * 1000)
int standby_old_jobs(time_t since, bool push, int timeout_ms, uint32_t *ret_example, struct strbuf *err);
/* The same query, counting the jobs standby_job_lacks() for joined. */
int standby_lacking_jobs(time_t joined, bool push, int timeout_ms, uint32_t *ret_example, struct strbuf *err);

/* The hold record: written (mode 0600) and removed by the reconcile; read by the sentinel.
 * read: 1 with *ret_since, 0 when there is none, -EINVAL when unreadable. */
int standby_record_write(const struct charm_paths *p, time_t since, int n_old, uint32_t example,
        struct strbuf *err);
int standby_record_read(const struct charm_paths *p, time_t *ret_since);
int standby_record_clear(const struct charm_paths *p, struct strbuf *err);
