/* SPDX-License-Identifier: Apache-2.0 */
/* The job actions: job-find (criteria AND-ed), job-get (arrays, het jobs, missing ids) and
 * job-steps (every step of every job asked for). Read-only. */
#include "util/macro.h"
#include "charm/slurmctld/ops.h"

#include "charm/slurmctld/ops-internal.h"
#include "slurm/jobquery.h"
#include "slurm/nodestate.h"
#include "util/alloc.h"

#include "util/banned.h"

static char *const *list_or_null(const struct strv *l) {
        return l->n ? l->v : NULL;
}

static void count_result(struct strv *kv, size_t n) {
        char buf[24];
        snprintf(buf, sizeof buf, "%zu", n);
        ops_kv(kv, buf, "count");
}

static int job_find(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(ops_find_req_done) struct ops_find_req q = { STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT,
                STRV_INIT, STRV_INIT, STRV_INIT };
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, ids = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        const cJSON *params;
        int r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = ops_find_req_parse(params, &q, err);
        if (r < 0)
                return r;
        r = ops_ctl_check(false, err);
        if (r < 0)
                return r;
        const struct slurm_job_filter f = {
                .users = list_or_null(&q.users),
                .states = list_or_null(&q.states),
                .partitions = list_or_null(&q.partitions),
                .names = list_or_null(&q.names),
                .accounts = list_or_null(&q.accounts),
                .nodes = list_or_null(&q.nodes),
                .batch_hosts = list_or_null(&q.batch_hosts),
        };
        r = slurm_jobs_find(&f, &jobs, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, false, err);
        for (size_t i = 0; i < jobs.n && i < OPS_JOBS_LISTED_MAX; i++) {
                const struct slurm_jobinfo *j = &jobs.v[i];
                if (ids.len)
                        strbuf_addch(&ids, ',');
                strbuf_addstr(&ids, j->display_id);
                ops_kv(&kv, j->display_id, "jobs.%u.job-id", j->job_id);
                ops_kv(&kv, slurm_job_state_name(j->state), "jobs.%u.state", j->job_id);
                ops_kv(&kv, j->user, "jobs.%u.user", j->job_id);
                if (j->name)
                        ops_kv(&kv, j->name, "jobs.%u.name", j->job_id);
                if (j->partition)
                        ops_kv(&kv, j->partition, "jobs.%u.partition", j->job_id);
                if (j->account)
                        ops_kv(&kv, j->account, "jobs.%u.account", j->job_id);
                if (j->nodes)
                        ops_kv(&kv, j->nodes, "jobs.%u.nodes", j->job_id);
                if (j->batch_host)
                        ops_kv(&kv, j->batch_host, "jobs.%u.batch-host", j->job_id);
        }
        ops_kv(&kv, jobs.n ? ids.buf : "none", "job-ids");
        count_result(&kv, jobs.n);
        if (jobs.n > OPS_JOBS_LISTED_MAX)
                ops_kv(&kv, "true", "truncated");
        return ops_result_set(ctx, &kv, err);
}

int ops_job_find(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "job-find", job_find, err);
}

/* The records of the jobids parameter, and the ids slurmctld does not know. */
static int load_jobs(
        struct juju_ctx *ctx, struct slurm_jobinfo_list *ret, struct strv *missing, struct strbuf *err) {
        _cleanup_free_ struct slurm_jobid *ids = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const cJSON *params;
        int n, r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        n = ops_jobids_parse(params, &ids, err);
        if (n < 0)
                return n;
        r = ops_ctl_check(false, err);
        if (r < 0)
                return r;
        r = slurm_jobs_get(ids, (size_t) n, ret, missing, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, false, err);
        return r;
}

static void missing_result(struct strv *kv, const struct strv *missing) {
        if (missing->n) {
                _cleanup_free_ char *m = strv_join(missing, ",");
                ops_kv(kv, m, "missing");
        }
}

static int job_get(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 };
        _cleanup_strv_ struct strv kv = STRV_INIT, missing = STRV_INIT;
        int r = load_jobs(ctx, &jobs, &missing, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < jobs.n; i++)
                ops_job_fields(&jobs.v[i], &kv);
        count_result(&kv, jobs.n);
        missing_result(&kv, &missing);
        return ops_result_set(ctx, &kv, err);
}

int ops_job_get(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "job-get", job_get, err);
}

static int job_steps(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 };
        _cleanup_(slurm_step_list_done) struct slurm_step_list steps = { 0 };
        _cleanup_strv_ struct strv kv = STRV_INIT, missing = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ uint32_t *ids = NULL;
        size_t total = 0;
        int r = load_jobs(ctx, &jobs, &missing, err);
        if (r < 0)
                return r;
        ids = xcalloc(jobs.n ? jobs.n : 1, sizeof(*ids));
        for (size_t i = 0; i < jobs.n; i++)
                ids[i] = jobs.v[i].job_id;
        if (jobs.n) {
                r = slurm_job_steps(ids, jobs.n, &steps, &e);
                if (r < 0)
                        return ops_slurm_failed(r, &e, false, err);
        }
        for (size_t i = 0; i < jobs.n; i++) {
                const struct slurm_jobinfo *j = &jobs.v[i];
                size_t count = 0;
                char buf[24];
                ops_kv(&kv, j->display_id, "jobs.%u.job-id", j->job_id);
                ops_kv(&kv, slurm_job_state_name(j->state), "jobs.%u.state", j->job_id);
                for (size_t k = 0; k < steps.n; k++) {
                        const struct slurm_step *s = &steps.v[k];
                        _cleanup_strbuf_ struct strbuf p = STRBUF_INIT, t = STRBUF_INIT;
                        if (s->job_id != j->job_id)
                                continue;
                        count++;
                        strbuf_addf(&p, "jobs.%u.steps.", j->job_id);
                        ops_step_key(s, &p);
                        ops_kv(&kv, s->id, "%s.step-id", p.buf);
                        if (s->name)
                                ops_kv(&kv, s->name, "%s.name", p.buf);
                        ops_kv(&kv, slurm_job_state_name(s->state), "%s.state", p.buf);
                        if (s->nodes)
                                ops_kv(&kv, s->nodes, "%s.nodes", p.buf);
                        if (s->partition)
                                ops_kv(&kv, s->partition, "%s.partition", p.buf);
                        snprintf(buf, sizeof buf, "%u", s->num_tasks);
                        ops_kv(&kv, buf, "%s.tasks", p.buf);
                        snprintf(buf, sizeof buf, "%u", s->num_cpus);
                        ops_kv(&kv, buf, "%s.cpus", p.buf);
                        if (s->start_time > 0) {
                                ops_time_format(s->start_time, &t);
                                ops_kv(&kv, t.buf, "%s.start-time", p.buf);
                        }
                        if (s->time_limit == UINT32_MAX)
                                ops_kv(&kv, "UNLIMITED", "%s.time-limit", p.buf);
                        else if (s->time_limit) {
                                snprintf(buf, sizeof buf, "%u", s->time_limit);
                                ops_kv(&kv, buf, "%s.time-limit", p.buf);
                        }
                        if (s->tres_alloc)
                                ops_kv(&kv, s->tres_alloc, "%s.tres-alloc", p.buf);
                }
                snprintf(buf, sizeof buf, "%zu", count);
                ops_kv(&kv, buf, "jobs.%u.step-count", j->job_id);
                total += count;
        }
        count_result(&kv, jobs.n);
        {
                char buf[24];
                snprintf(buf, sizeof buf, "%zu", total);
                ops_kv(&kv, buf, "step-count");
        }
        missing_result(&kv, &missing);
        return ops_result_set(ctx, &kv, err);
}

int ops_job_steps(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "job-steps", job_steps, err);
}
