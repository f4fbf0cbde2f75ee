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

#include "charm/common/charm.h"
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

/* The heartbeat age after which the sentinel ends the hold (no controller in charge):
 * SlurmctldTimeout less a lead of min(T/2, STANDBY_START_LEAD_S). A held slurmctld starts as a
 * standby; 22.05's backup then sleeps 5 s before it looks at the primary again (backup.c
 * run_backup), and its takeover stops each controller ahead of it first (2 s per unreachable
 * one). Ended at T, the standby answered an old step at about T after the loss and took control
 * about 8 s later, when the step, whose call had started at the job's end, had given up (1.5 T
 * from that call, with a T/2 sleep between tries): charm-fence B, job RUNNING for good at T =
 * 10 s, 3 runs of 3. With the lead the standby listens by about T/2 + 2 s (T = 10 s) and takes
 * control at about T + 7 s; the step's last try comes at about 1.5 T + T/2 after the loss, so
 * at T = 10 s the margin is a few seconds and below about 10 s there is none (said in
 * HACKING.md). Control is still taken only once the heartbeat is T old (the sentinel's
 * takeover). The threshold stays at least two heartbeat periods (Slurm writes it every
 * min(T/4, 30) s).
 *
 * The early end is recorded (STANDBY_EARLY_FILE: "<when> <the heartbeat's time then>", the
 * unit's state directory), and the charm's hold keeps its hands off the started standby only
 * while no heartbeat was written since that time (standby_early_valid): a heartbeat written
 * again says the controller in charge was late, not lost, and the hold comes back (the sentinel
 * runs the charm at once). A second such void within STANDBY_EARLY_BACKOFF(T) s stops early
 * ends for that long: a heartbeat that swings around the threshold (a slow fsync on the shared
 * directory) costs a start and stop or two, not a loop. */
#define STANDBY_START_LEAD_S 10
#define STANDBY_EARLY_FILE "standby-early"
#define STANDBY_EARLY_BACKOFF(t) ((t) * 10 > 120 ? (t) * 10 : 120)
unsigned standby_release_s(unsigned ctl_timeout_s);
/* The shortest SlurmctldTimeout the charm calls safe with several controllers: a job that ends
 * while the controller in charge is lost reports its end in a window of about 1.5 T from its
 * end (slurm_send_recv_controller_msg, 22.05 and 24.11 alike), and the successor takes control
 * at about T + 7 s after the loss (the early end above, a 1 to 5 s start, 2 s per unreachable
 * controller); from about 14 s the window holds it, 20 s leaves room for a slow start.
 * standby_timeout_note appends "; <why>" to out when the cluster has n_ctl controllers and
 * ctl_timeout_s is shorter (nothing with one controller: no failover, no standby answers). */
#define STANDBY_HA_TIMEOUT_MIN_S 20
void standby_timeout_note(unsigned ctl_timeout_s, size_t n_ctl, struct strbuf *out);
/* The heartbeat's period (Slurm's heartbeat.c: min(T/4, 30) s, at least 1). A heartbeat older
 * than two periods is late: the hold is kept without asking the controller in charge for its
 * jobs (the query would wait on a lost one for up to STANDBY_QUERY_TIMEOUT_MS, holding the
 * hook lock past the early end: review 11, F1), and the sentinel's periodic look is skipped. */
unsigned standby_beat_period(unsigned ctl_timeout_s);
bool standby_heartbeat_late(int64_t age_s, unsigned ctl_timeout_s);
/* The bound for the old-jobs query when the heartbeat is age_s old: the time left before the
 * early end, within [2 s, STANDBY_QUERY_TIMEOUT_MS]. */
int standby_query_timeout_ms(int64_t age_s, unsigned ctl_timeout_s);

/* The sentinel's next step after the hold ended with no controller in charge (at since): this
 * unit (index self of n_ctl) asks its slurmctld to take control once no heartbeat is fresher
 * than T, for 2 T + 10 s at most. have_beat: a heartbeat was read (beat_time, beat_writer);
 * released_beat: the heartbeat's time when the hold ended (0: none). */
enum standby_take {
        STANDBY_TAKE_DONE,    /* over: the primary, too late, or this unit writes the heartbeat */
        STANDBY_TAKE_RECHECK, /* over, and the charm looks at the hold again: another controller
                               * wrote the heartbeat since the hold ended (late, not lost) */
        STANDBY_TAKE_WAIT,    /* the heartbeat is not T old yet (the hold ended ahead of T) */
        STANDBY_TAKE_NOW,     /* no controller wrote the heartbeat for T: take control */
};
enum standby_take standby_take_next(time_t now, time_t since, unsigned ctl_timeout_s, long self, long n_ctl,
        bool have_beat, time_t beat_time, long beat_writer, time_t released_beat);

/* The early end's record (STANDBY_EARLY_FILE): written by the sentinel (mode 0600), read and
 * removed by both. read: 1 with the two times, 0 none, -EINVAL unreadable. */
int standby_early_write(const struct charm_paths *p, time_t when, time_t beat_time, struct strbuf *err);
int standby_early_read(const struct charm_paths *p, time_t *ret_when, time_t *ret_beat_time);
int standby_early_clear(const struct charm_paths *p, struct strbuf *err);
/* Whether an early end recorded at when, with the heartbeat at beat_then, still holds at now:
 * the heartbeat (have_beat, beat_now) was not written since, and 2 T + 10 s have not passed. */
bool standby_early_valid(time_t now, time_t when, time_t beat_then, bool have_beat, time_t beat_now, unsigned t);

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
