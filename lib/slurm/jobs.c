/* SPDX-License-Identifier: Apache-2.0 */
/* The jobs on one Slurm node: list, destroy (requeue or cancel), wait until none is left.
 * See jobs.h for how waiting polls cheaply. */
#include "util/macro.h"
#include "slurm/jobs.h"

#include <signal.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

void slurm_job_list_done(struct slurm_job_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].name);
                free(l->v[i].user);
                free(l->v[i].nodes);
        }
        free(l->v);
        *l = (struct slurm_job_list){ 0 };
}

void slurm_destroy_report_done(struct slurm_destroy_report *r) {
        if (!r)
                return;
        free(r->requeued);
        free(r->cancelled);
        free(r->failed);
        *r = (struct slurm_destroy_report){ 0 };
}

static bool job_has_node(const slurm_job_info_t *j, const char *node) {
        slurm_hl_t hl;
        bool found;
        if (!slurm_job_state_on_node(j->job_state) || isempty(j->nodes))
                return false;
        /* the common case, a one-node job, without building a hostlist */
        if (streq(j->nodes, node))
                return true;
        hl = slurm_hostlist_create(j->nodes);
        if (!hl)
                return false;
        found = slurm_hostlist_find(hl, node) >= 0;
        slurm_hostlist_destroy(hl);
        return found;
}

static void jobs_filter(const job_info_msg_t *msg, const char *node, struct slurm_job_list *out) {
        size_t n = 0;
        for (uint32_t i = 0; i < msg->record_count; i++)
                if (job_has_node(&msg->job_array[i], node))
                        n++;
        *out = (struct slurm_job_list){ .v = xcalloc(n ? n : 1, sizeof(struct slurm_job)) };
        for (uint32_t i = 0; i < msg->record_count; i++) {
                const slurm_job_info_t *j = &msg->job_array[i];
                struct slurm_job *o;
                if (!job_has_node(j, node))
                        continue;
                o = &out->v[out->n++];
                *o = (struct slurm_job){
                        .id = j->job_id,
                        .name = isempty(j->name) ? NULL : xstrdup(j->name),
                        .user_id = j->user_id,
                        .user = isempty(j->user_name) ? NULL : xstrdup(j->user_name),
                        .state = j->job_state,
                        .nodes = xstrdup(j->nodes),
                        .batch = j->batch_flag != 0,
                        .requeue = j->requeue != 0,
                        .requeueable = j->batch_flag != 0 && j->requeue != 0,
                };
        }
}

static int jobs_load(time_t since, job_info_msg_t **ret, struct strbuf *err) {
        int r = slurm_load_jobs(since, ret, SHOW_ALL);
        if (r != SLURM_SUCCESS) {
                int code = slurm_rc_code(r);
                if (code == SLURM_NO_CHANGE_IN_DATA)
                        return 1; /* *ret not written */
                return slurm_fail(err, code, "load jobs");
        }
        return 0;
}

int slurm_jobs_on_node(const char *node, struct slurm_job_list *ret, struct strbuf *err) {
        job_info_msg_t *msg = NULL;
        int r;

        if (isempty(node))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = jobs_load((time_t) 0, &msg, err);
        if (r < 0)
                return r;
        jobs_filter(msg, node, ret);
        slurm_free_job_info_msg(msg);
        return (int) ret->n;
}

int slurm_jobs_holding_nodes(struct strbuf *err) {
        job_info_msg_t *msg = NULL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = jobs_load((time_t) 0, &msg, err);
        if (r < 0)
                return r;
        int n = 0;
        for (uint32_t i = 0; i < msg->record_count; i++)
                if (slurm_job_state_on_node(msg->job_array[i].job_state))
                        n++;
        slurm_free_job_info_msg(msg);
        return n;
}

static void push_id(uint32_t **v, size_t *n, uint32_t id) {
        *v = xrealloc(*v, (*n + 1) * sizeof(uint32_t));
        (*v)[(*n)++] = id;
}

static void add_failure(struct strbuf *err, int code, uint32_t id, const char *what) {
        if (!err)
                return;
        if (err->len)
                strbuf_addstr(err, "; ");
        slurm_fail(err, code, "%s job %u", what, id);
}

int slurm_jobs_destroy_on_node(const char *node, struct slurm_destroy_report *ret, struct strbuf *err) {
        struct slurm_job_list jobs = { 0 };
        struct slurm_destroy_report rep = { 0 };
        int r;

        r = slurm_jobs_on_node(node, &jobs, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < jobs.n; i++) {
                const struct slurm_job *j = &jobs.v[i];
                int code;
                if (j->requeueable) {
                        r = slurm_requeue(j->id, 0);
                        if (r == SLURM_SUCCESS) {
                                push_id(&rep.requeued, &rep.n_requeued, j->id);
                                continue;
                        }
                        /* refused (requeue disabled, not batch after all, …): cancel instead */
                }
                r = slurm_kill_job(j->id, SIGKILL, 0);
                if (r == SLURM_SUCCESS) {
                        push_id(&rep.cancelled, &rep.n_cancelled, j->id);
                        continue;
                }
                code = slurm_rc_code(r);
                if (code == ESLURM_ALREADY_DONE || code == ESLURM_INVALID_JOB_ID) {
                        /* ended (or was purged) between the listing and now */
                        push_id(&rep.cancelled, &rep.n_cancelled, j->id);
                        continue;
                }
                add_failure(err, code, j->id, "cancel");
                push_id(&rep.failed, &rep.n_failed, j->id);
        }
        slurm_job_list_done(&jobs);
        *ret = rep;
        return (int) rep.n_failed;
}

int slurm_jobs_wait_none(const char *node, int timeout_ms, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf last = STRBUF_INIT;
        int64_t deadline = slurm_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
        job_info_msg_t *cache = NULL;
        int delay = SLURM_POLL_FIRST_MS, r;

        if (isempty(node))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        for (;;) {
                struct slurm_job_list jobs = { 0 };
                job_info_msg_t *msg = NULL;
                uint32_t state;

                /* The job table decides: a node state flag can outlive its job (slurmctld
                 * 22.05 leaves a dynamic node ALLOCATED with no job after some reconfigures,
                 * see jobs.h). The node's own record only says whether it still exists. */
                strbuf_reset(&last);
                r = slurm_node_get_state(node, &state, &last);
                if (r == -ENOENT) {
                        r = 0; /* a node that is gone holds no job */
                        break;
                }
                if (r < 0 && r != -ECONNREFUSED && r != -ETIMEDOUT)
                        break;
                r = jobs_load(cache ? cache->last_update : (time_t) 0, &msg, &last);
                if (r < 0 && r != -ECONNREFUSED && r != -ETIMEDOUT)
                        break;
                if (r == 0) {
                        if (cache)
                                slurm_free_job_info_msg(cache);
                        cache = msg;
                }
                if (r >= 0 && cache) {
                        jobs_filter(cache, node, &jobs);
                        if (jobs.n == 0) {
                                slurm_job_list_done(&jobs);
                                r = 0;
                                break;
                        }
                        strbuf_reset(&last);
                        strbuf_addstr(&last, "jobs");
                        for (size_t i = 0; i < jobs.n; i++)
                                strbuf_addf(&last, " %u", jobs.v[i].id);
                        slurm_job_list_done(&jobs);
                }
                if (!slurm_poll_sleep(&delay, deadline)) {
                        r = -ETIMEDOUT;
                        break;
                }
        }
        if (cache)
                slurm_free_job_info_msg(cache);
        if (r == -ETIMEDOUT) {
                if (err)
                        strbuf_addf(err, "node \"%s\": jobs still on it after %d ms (%s)", node, timeout_ms,
                                last.buf);
        } else if (r < 0 && err)
                strbuf_addbuf(err, &last);
        return r;
}

int slurm_node_delete_free(const char *node, const char *reason, int timeout_ms, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int64_t deadline = slurm_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
        int delay = SLURM_POLL_FIRST_MS, r;
        bool cleared = false;

        if (isempty(node) || isempty(reason))
                return -EINVAL;
        for (;;) {
                strbuf_reset(&e);
                r = slurm_node_delete(node, &e);
                if (r >= 0)
                        return cleared ? 1 : 0;
                if (r == -ENOENT)
                        return 0;
                if (r == -ECONNREFUSED || r == -ETIMEDOUT) {
                        /* slurmctld restarting (a reconfigure beside this departure): asked
                         * again; a delete whose reply was lost answers ENOENT then */
                        if (!slurm_poll_sleep(&delay, deadline))
                                break;
                        continue;
                }
                if (r != -EBUSY)
                        break;
                /* "busy": a job still completing, or a state flag no job holds any more */
                struct slurm_job_list jobs = { 0 };
                struct slurm_node n = { 0 };
                int k = slurm_jobs_on_node(node, &jobs, &e);
                slurm_job_list_done(&jobs);
                if (k < 0) {
                        r = k;
                        break;
                }
                if (k == 0 && !cleared) {
                        r = slurm_node_get(node, &n, &e);
                        /* no job holds it, and none can be given it (drained, down, or not
                         * answering): whatever the state flags and the select plugin's counts say
                         * (both double-counted, seen: CPUAlloc=1 with no job), it is free */
                        bool closed = r >= 0 &&
                                (slurm_state_drain(n.state) != SLURM_DRAIN_NONE ||
                                        slurm_state_down(n.state) || !slurm_state_registered(n.state));
                        bool stale = closed && slurm_state_busy(n.state);
                        if (r >= 0 && !stale) {
                                strbuf_addstr(&e, " (");
                                slurm_state_format(n.state, &e);
                                strbuf_addf(&e, ", %u CPUs allocated, no job)", n.alloc_cpus);
                        }
                        slurm_node_done(&n);
                        if (r == -ENOENT)
                                return 0;
                        if (r < 0)
                                break;
                        if (stale) {
                                /* ALLOCATED or COMPLETING with no job: DOWN is the one state
                                 * change that clears it (nothing to kill) */
                                r = slurm_node_down(node, reason, &e);
                                if (r == -ENOENT)
                                        return 0;
                                if (r < 0)
                                        break;
                                cleared = true;
                                continue;
                        }
                }
                if (!slurm_poll_sleep(&delay, deadline)) {
                        r = -EBUSY;
                        break;
                }
        }
        if (err)
                strbuf_addbuf(err, &e);
        return r;
}
