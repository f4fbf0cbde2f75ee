/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd unit leaving the cluster: drain with a reason naming the unit, wait (bounded by
 * drain-timeout) until no job runs on the node, delete the node, stop slurmd; once per unit. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmd/sdinputs.h"
#include "charm/common/strand.h"
#include "charm/common/watcher.h"
#include "charm/slurmd/nodefollow.h"
#include "slurm/localjobs.h"
#include "slurm/client.h"
#include "slurm/ctlstats.h"
#include "slurm/jobs.h"
#include "slurm/localjobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include <time.h>

#include "util/banned.h"

/* After the job wait, a delete refused as busy (a job still completing) is retried this long. */
#define DELETE_RETRY_MS 10000
/* A controller that refuses or drops the departure's first RPCs is asked again this long before
 * the departure takes it for unreachable: a restart of slurmctld (24.11's reconfigure re-executes
 * it) by a controller hook that runs beside this one under Juju (issue 28: a departure failed on
 * "Connection reset by peer" during a remove-application's reconfigure). */
#define CTL_RESTART_MS 15000
/* scontrol listjobs reads local sockets only: a few seconds is plenty. */
#define LOCAL_JOBS_TIMEOUT_MS 10000

bool slurmd_event_leaves(const struct juju_env *env) {
        if (!env || !env->event)
                return false;
        if (streq(env->event, "stop") || streq(env->event, "remove"))
                return true;
        if (!streq_ptr(env->relation, SLURMD_CONTROLLER_ENDPOINT) || !env->relation_event)
                return false;
        if (streq(env->relation_event, "broken"))
                return true;
        return streq(env->relation_event, "departed") && streq_ptr(env->departing_unit, env->unit);
}

static char *join_ids(const struct slurm_job_list *l) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        for (size_t i = 0; i < l->n; i++)
                strbuf_addf(&s, "%s%u", i ? ", " : "", l->v[i].id);
        return strbuf_detach(&s, NULL);
}

/* No controller answers: its stale-record rule deletes the record later. But slurmd is not
 * stopped under running jobs: where Slurm has listjobs (24.11), the node itself says whether
 * any runs here; then the departure waits (-EBUSY: the hook fails, Juju retries it). Where it
 * cannot tell (22.05, or listjobs failed) the departure goes on, as before, with a warning. */
static int leave_unreachable(struct juju_ctx *ctx, const char *node, const char *why, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ uint32_t *ids = NULL;
        size_t n = 0;
        int r = slurm_local_jobs(node, LOCAL_JOBS_TIMEOUT_MS, &ids, &n, &e);
        if (r >= 0 && n > 0) {
                _cleanup_strbuf_ struct strbuf list = STRBUF_INIT;
                for (size_t i = 0; i < n && i < 20; i++)
                        strbuf_addf(&list, "%s%u", i ? ", " : "", ids[i]);
                if (n > 20)
                        strbuf_addf(&list, " and %zu more", n - 20);
                _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                strbuf_addf(&msg, "controller unreachable and job%s %s still running on %s: not leaving yet",
                        n > 1 ? "s" : "", list.buf, node);
                (void) juju_status_set(ctx, false, JUJU_STATUS_BLOCKED, msg.buf, NULL);
                strbuf_addf(err, "%s (%s); the departure is retried", msg.buf, why);
                return -EBUSY;
        }
        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                "controller unreachable, node \"%s\" not deleted here: %s%s%s", node, why,
                r < 0 && r != -EOPNOTSUPP ? "; jobs on this node unknown: " : "",
                r < 0 && r != -EOPNOTSUPP ? e.buf : "");
        return 0;
}

/* The watchers removed (stopping slurmd must not run their handler: charm/common/watcher.h),
 * then slurmd stopped. Again at once when done already. */
static int stop_slurmd(const struct slurmd_opts *o, sd_bus *bus, struct strbuf *err) {
        struct unit_state st;
        int r = 0;
        char *services[3];
        size_t n_services = charm_services(&o->paths, "slurmd.service", services);
        for (size_t i = 0; r >= 0 && i < n_services; i++)
                r = watcher_remove(&o->paths, bus, services[i], err);
        if (r < 0)
                return r;
        r = unit_get_state(bus, "slurmd.service", &st, err);
        if (r < 0)
                return r;
        if (streq(st.load_state, "not-found"))
                return 0;
        return unit_stop(bus, "slurmd.service", sd_unit_timeout(o), err);
}

/* Whether the leaving node held a job lately (busy when the departure began, a wait on its
 * jobs, or its LastBusyTime within the save window): its jobs' ends may be in no state save yet. */
/* A wait for the node's jobs looks every this often whether slurmctld has jobs there that the
 * machine does not run (phantom_note). */
#define PHANTOM_LOOK_MS 15000

/* slurmctld has launched jobs on node (RUNNING, neither launching nor ending) and this machine
 * has no slurmstepd of any: their ends were lost (a slurmctld restarted from a save before them,
 * attack of stop 51). Slurm requeues (runs again) or fails such a job at the node's next
 * registration (job_mgr.c _purge_missing_jobs); the admin who knows it ended may cancel it, so
 * the status says so, the second look in a row (*seen counts them). */
static void phantom_note(struct juju_ctx *ctx, const char *node, int *seen) {
        struct slurm_job_list jobs = { 0 };
        uint32_t *local = NULL;
        size_t n_local = 0;
        bool phantom = slurm_jobs_on_node(node, &jobs, NULL) > 0;
        for (size_t i = 0; phantom && i < jobs.n; i++)
                phantom = slurm_job_state_launched(jobs.v[i].state);
        if (phantom)
                phantom = slurm_local_steps_scan(NODEFOLLOW_SPOOL_DIR, node, LOCAL_UNIX_TABLE, &local, &n_local, NULL) >= 0 &&
                        n_local == 0;
        free(local);
        if (!phantom) {
                *seen = 0;
                slurm_job_list_done(&jobs);
                return;
        }
        if (++*seen == 2) {
                _cleanup_free_ char *ids = join_ids(&jobs);
                _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                strbuf_addf(&msg,
                        "leaving: slurmctld has job %s running on %s, which runs nothing (its end lost in a "
                        "slurmctld restart?): Slurm requeues it at the node's next registration; scancel it "
                        "if it ended",
                        strempty(ids), node);
                (void) juju_status_set(ctx, false, JUJU_STATUS_MAINTENANCE, msg.buf, NULL);
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node %s %s", node, msg.buf);
        }
        slurm_job_list_done(&jobs);
}

/* rounds of "wait for the jobs, then for slurmctld's save" a departure makes at most (leave_slurm) */
#define DEPART_ROUNDS 3

static bool recently_busy(const char *node, uint32_t state, int64_t waited_ms) {
        if (slurm_state_busy(state) || waited_ms >= SLURM_POLL_FIRST_MS)
                return true;
        struct slurm_node n = { 0 };
        if (slurm_node_get(node, &n, NULL) < 0)
                return true; /* unknown: the wait is cheap */
        /* (0: never held one) */
        bool recent = n.last_busy != 0 && time(NULL) - n.last_busy <= SLURM_STATE_SAVED_MS / 1000 + 1;
        slurm_node_done(&n);
        return recent;
}

/* Drain, wait, delete (or keep as its placeholder). 0 done (or nothing to do), negative errno
 * with a message. Fills the figures for the log line. */
static int leave_slurm(struct juju_ctx *ctx, const struct slurmd_opts *o, const char *unit, const char *node,
        int timeout_ms, int64_t *ret_waited_ms, bool *ret_deleted, bool *ret_kept, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, reason = STRBUF_INIT;
        uint32_t state;
        int r;

        int64_t restart_deadline = slurm_now_ms() + CTL_RESTART_MS;
        int delay = SLURM_POLL_FIRST_MS;
        do {
                strbuf_reset(&e);
                r = slurm_node_get_state(node, &state, &e);
        } while ((r == -ECONNREFUSED || r == -ETIMEDOUT) && slurm_poll_sleep(&delay, restart_deadline));
        if (r == -ENOENT)
                return 0; /* deleted already (by us before a failure, or by the controller) */
        if (r == -ECONNREFUSED || r == -ETIMEDOUT)
                return leave_unreachable(ctx, node, e.buf, err);
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }
        {
                _cleanup_free_ char *why = charm_leaving_reason(unit);
                strbuf_addstr(&reason, why);
        }
        restart_deadline = slurm_now_ms() + CTL_RESTART_MS;
        delay = SLURM_POLL_FIRST_MS;
        do {
                strbuf_reset(&e);
                r = slurm_node_drain(node, reason.buf, &e);
        } while ((r == -ECONNREFUSED || r == -ETIMEDOUT) && slurm_poll_sleep(&delay, restart_deadline));
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }

        if (slurm_state_busy(state)) {
                _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                strbuf_addf(&msg, "draining node %s: waiting for its jobs (drain-timeout %d s)", node,
                        timeout_ms / 1000);
                (void) juju_status_set(ctx, false, JUJU_STATUS_MAINTENANCE, msg.buf, NULL);
        }
        /* the jobs' ends (and the holds below) on slurmctld's disk before its record goes.
         * slurmctld killed within its save window after the deletion restarts from the file
         * before it, which has the node, and may have had a job's last change in no save yet
         * (seen on 22.05: a job came back COMPLETING, its batch step still there, on a node
         * deleted 7 s after its end, issue 26, "ghost"): the job holds the record, which the
         * controller then cannot delete (slurmctld.c, cleanup_nodes), and a job that ended for
         * real is failed or requeued (run again) when slurmctld gives the node up. So: a save
         * asked for when the node held a job lately, and its window waited out. A slurmctld
         * killed within that wait may bring such a job back as RUNNING here (attack of stop 51):
         * then the jobs are waited for again (Slurm settles the job at the node's next
         * registration, by its own rule), never the record deleted or made a placeholder under
         * it (a DOWN there ran it a second time); at most DEPART_ROUNDS rounds */
        int64_t t0 = slurm_now_ms();
        for (int round = 0;; round++) {
                /* in looks of PHANTOM_LOOK_MS: jobs the machine does not run are named */
                int phantom_seen = 0;
                for (;;) {
                        int64_t left = timeout_ms - (slurm_now_ms() - t0);
                        int chunk = left > PHANTOM_LOOK_MS ? PHANTOM_LOOK_MS : left > 0 ? (int) left : 0;
                        strbuf_reset(&e);
                        r = slurm_jobs_wait_none(node, chunk, &e);
                        if (r != -ETIMEDOUT || chunk == left || chunk == 0)
                                break;
                        phantom_note(ctx, node, &phantom_seen);
                }
                *ret_waited_ms = slurm_now_ms() - t0;
                if (r == -ETIMEDOUT) {
                        struct slurm_job_list jobs = { 0 };
                        _cleanup_free_ char *ids = NULL;
                        if (slurm_jobs_on_node(node, &jobs, NULL) >= 0)
                                ids = join_ids(&jobs);
                        slurm_job_list_done(&jobs);
                        strbuf_addf(err,
                                "drain-timeout: node \"%s\" still runs job%s %s after %d s: wait and resolve, or "
                                "run the destroy-jobs action, then resolve",
                                node, ids && strchr(ids, ',') ? "s" : "", isempty(ids) ? "(unknown)" : ids,
                                timeout_ms / 1000);
                        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                        strbuf_addf(&msg, "drain-timeout: jobs %s still running on %s", strempty(ids), node);
                        (void) juju_status_set(ctx, false, JUJU_STATUS_BLOCKED, msg.buf, NULL);
                        return r;
                }
                if (r < 0) {
                        strbuf_addbuf(err, &e);
                        return r;
                }
                /* pending jobs that need this node: held before the deletion (else the next
                 * node to register would run them, charm/common/strand.h), and once more after
                 * it for any submitted in between */
                strand_departure(ctx, unit, node, true);
                if (!recently_busy(node, state, *ret_waited_ms))
                        break;
                _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
                if (slurm_ctl_save_nudge(&why) < 0)
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                "node %s leaving: %s (its jobs' ends may not be on slurmctld's disk yet)",
                                node, why.buf);
                int wait_ms = SLURM_STATE_SAVED_MS;
                (void) slurm_poll_sleep(&wait_ms, slurm_now_ms() + SLURM_STATE_SAVED_MS);
                struct slurm_job_list again = { 0 };
                strbuf_reset(&e);
                int k = slurm_jobs_on_node(node, &again, &e);
                _cleanup_free_ char *ids = k > 0 ? join_ids(&again) : NULL;
                slurm_job_list_done(&again);
                if (k == 0 || round + 1 >= DEPART_ROUNDS)
                        break; /* (an unanswered look: the deletion's own check follows) */
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s leaving: slurmctld has job%s %s on it again after the state save wait "
                        "(a restart from an older save?): waiting for %s again",
                        node, ids && strchr(ids, ',') ? "s" : "", strempty(ids),
                        ids && strchr(ids, ',') ? "them" : "it");
        }
        /* with munge (22.05) slurmd stops before its record goes or becomes the placeholder: a
         * registration of its own after that (one in flight, a SIGHUP) would bring a kept record
         * back into its partition (attack on issue 28, finding 1: a job then started there).
         * With Slurm's own auth (24.11) this unit's RPCs get their token from its running slurmd
         * (the sack socket), so it runs on until leave_system(); the kept record is drained too
         * (slurm_stranded_placeholder_keep), and a registration then finds it drained */
        if (charm_caps(&o->paths)->auth_service != NULL) {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
                r = unit_bus_open(&bus, err);
                if (r >= 0)
                        r = stop_slurmd(o, bus, err);
                if (r < 0)
                        return r;
        }
        /* jobs still require it: its record stays, as its placeholder (never unknown to
         * slurmctld, whose reconfigure from another machine's hook would fail them) */
        if (strand_keep_record(ctx, node, DELETE_RETRY_MS) > 0) {
                strand_departure(ctx, unit, node, false);
                *ret_kept = true;
                return 0;
        }
        strbuf_reset(&e);
        r = slurm_node_delete_free(node, reason.buf, DELETE_RETRY_MS, &e);
        if (r >= 0)
                strand_departure(ctx, unit, node, false);
        if (r < 0 && r != -ENOENT) {
                strbuf_addbuf(err, &e);
                return r;
        }
        if (r > 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s had no job but was still marked allocated: set DOWN, then deleted", node);
        *ret_deleted = r >= 0;
        return 0;
}

/* slurmd stopped and disabled, the files this charm installed for it removed. */
static int leave_system(const struct slurmd_opts *o, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        struct unit_state st;
        int r;

        r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        r = stop_slurmd(o, bus, err);
        if (r < 0)
                return r;
        r = unit_get_state(bus, "slurmd.service", &st, err);
        if (r < 0)
                return r;
        if (!streq(st.load_state, "not-found")) {
                r = unit_disable(bus, "slurmd.service", sd_unit_timeout(o), err);
                if (r < 0)
                        return r;
        }
        char *services[3];
        size_t n_services = charm_services(&o->paths, "slurmd.service", services);
        const char *files[] = { CHARM_PATH_SLURMD_DEFAULTS, charm_caps(&o->paths)->key_path };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *path = charm_path(&o->paths, files[i]);
                if (unlink(path) < 0 && errno != ENOENT) {
                        strbuf_addf(err, "%s: %s", path, strerror(errno));
                        return -errno;
                }
        }
        /* munge keeps the key in memory: stop it, the key is gone (24.11: slurmd held it) */
        if (n_services > 1) {
                r = unit_get_state(bus, services[1], &st, err);
                if (r >= 0 && !streq(st.load_state, "not-found"))
                        r = unit_stop(bus, services[1], sd_unit_timeout(o), err);
                if (r < 0)
                        return r;
        }
        r = unit_remove_dropin(
                o->paths.root ? o->paths.root : "", "slurmd.service", SLURMD_DROPIN_NAME, err);
        if (r > 0)
                r = unit_daemon_reload(bus, sd_unit_timeout(o), err);
        return r < 0 ? r : 0;
}

int slurmd_leave(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_free_ char *node = charm_node_name(env->unit);
        _cleanup_free_ char *left = sd_state_path(&o->paths, SLURMD_LEFT_FILE);
        int64_t waited = 0;
        bool deleted = false, kept = false;
        int r, timeout_ms;

        if (access(left, F_OK) == 0) {
                /* once: the other controller units' departed, broken, stop, remove */
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "left the cluster");
                return 0;
        }
        {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                timeout_ms = sd_drain_timeout_ms(ctx, &e);
                if (timeout_ms == -EINVAL) {
                        /* a departure does not wait for a corrected option */
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s: using %d s", e.buf,
                                SLURMD_DEFAULT_DRAIN_TIMEOUT_S);
                        timeout_ms = SLURMD_DEFAULT_DRAIN_TIMEOUT_S * 1000;
                } else if (timeout_ms < 0) {
                        strbuf_addbuf(err, &e);
                        return timeout_ms;
                }
        }
        _cleanup_free_ char *rel = xasprintf("%s\n", strempty(env->relation_id));
        r = sd_state_write(&o->paths, SLURMD_LEAVING_FILE, rel, err);
        if (r < 0)
                return r;
        if (slurm_config_path()) {
                r = leave_slurm(ctx, o, env->unit, node, timeout_ms, &waited, &deleted, &kept, err);
                if (r < 0)
                        return r;
        }
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        r = leave_system(o, err);
        if (r < 0)
                return r;
        r = sd_state_write(&o->paths, SLURMD_LEFT_FILE, rel, err);
        if (r < 0)
                return r;
        if (deleted || kept)
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                        "left the cluster: node %s drained, jobs done after %lld ms of waiting, %s at "
                        "%lld.%03ld",
                        node, (long long) waited,
                        deleted ? "deleted" : "kept as its placeholder (jobs require it)", (long long) now.tv_sec,
                        now.tv_nsec / 1000000);
        if (kept)
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE,
                        "left the cluster (node %s kept as a placeholder: jobs require it)", node);
        else
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "left the cluster%s%s%s",
                        deleted ? " (node " : "", deleted ? node : "", deleted ? " deleted)" : "");
        return 0;
}
