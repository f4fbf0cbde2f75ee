/* SPDX-License-Identifier: Apache-2.0 */
/* Jobs and steps for the operator: find by criteria, read by id (arrays and het jobs), every
 * step of those jobs. See jobquery.h for Slurm 22.05's id rules relied on. */
#include "util/macro.h"
#include "slurm/jobquery.h"

#include <ctype.h>
#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

/* Exported by libslurm.so.38 (src/common/bitstring.c, slurm_protocol_defs.c) but not declared
 * in <slurm/slurm.h>: the bitmap of an array's pending tasks, and the text of a job's state
 * reason (a static string; renamed in 24.11). */
extern bitoff_t slurm_bit_size(bitstr_t *b);
extern int slurm_bit_test(bitstr_t *b, bitoff_t bit);
#if SLURM_AT_LEAST(24, 11)
extern const char *slurm_job_state_reason_string(enum job_state_reason inx); /* renamed */
#define slurm_job_reason_string slurm_job_state_reason_string
#else
extern char *slurm_job_reason_string(enum job_state_reason inx);
#endif

#define NONE32 UINT32_MAX

/* --- ids ----------------------------------------------------------------------------------- */

static bool parse_u32(const char *s, size_t n, uint32_t max, uint32_t *ret) {
        uint64_t v = 0;
        if (n == 0 || n > 10)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (!isdigit((unsigned char) s[i]))
                        return false;
                v = v * 10 + (uint64_t) (s[i] - '0');
        }
        if (v > max)
                return false;
        *ret = (uint32_t) v;
        return true;
}

int slurm_jobid_parse(const char *s, struct slurm_jobid *ret) {
        struct slurm_jobid id = { .kind = SLURM_JOBID_PLAIN };
        size_t n;
        if (isempty(s))
                return -EINVAL;
        n = strspn(s, "0123456789");
        if (!parse_u32(s, n, SLURM_JOBID_MAX, &id.id) || id.id == 0)
                return -EINVAL;
        if (s[n] == '_' || s[n] == '+') {
                const char *rest = s + n + 1;
                size_t m = strlen(rest);
                id.kind = s[n] == '_' ? SLURM_JOBID_ARRAY_TASK : SLURM_JOBID_HET;
                if (!parse_u32(rest, m, id.kind == SLURM_JOBID_HET ? 127 : SLURM_ARRAY_TASK_MAX, &id.sub))
                        return -EINVAL;
        } else if (s[n])
                return -EINVAL;
        *ret = id;
        return 0;
}

void slurm_jobid_format(const struct slurm_jobid *id, struct strbuf *out) {
        strbuf_addf(out, "%u", id->id);
        if (id->kind == SLURM_JOBID_ARRAY_TASK)
                strbuf_addf(out, "_%u", id->sub);
        else if (id->kind == SLURM_JOBID_HET)
                strbuf_addf(out, "+%u", id->sub);
}

static bool pending_task(const struct slurm_jobinfo *j, uint32_t task) {
        if (!j->pending_tasks || task >= j->pending_tasks_len)
                return false;
        return (j->pending_tasks[task / 8] >> (task % 8)) & 1;
}

bool slurm_jobid_selects(const struct slurm_jobid *id, const struct slurm_jobinfo *j) {
        switch (id->kind) {
        case SLURM_JOBID_PLAIN:
                return j->job_id == id->id || j->array_job_id == id->id || j->het_job_id == id->id;
        case SLURM_JOBID_ARRAY_TASK:
                if (j->array_job_id != id->id)
                        return false;
                return j->array_task_id == id->sub ||
                        (j->array_task_id == NONE32 && pending_task(j, id->sub));
        case SLURM_JOBID_HET:
                return j->het_job_id == id->id && j->het_job_offset == id->sub;
        }
        return false;
}

/* --- job records --------------------------------------------------------------------------- */

static char *dup_or_null(const char *s) {
        return isempty(s) ? NULL : xstrdup(s);
}

static void jobinfo_done(struct slurm_jobinfo *j) {
        char **strs[] = { &j->display_id, &j->array_tasks, &j->name, &j->user, &j->account, &j->partition,
                &j->qos, &j->reservation, &j->nodes, &j->batch_host, &j->work_dir, &j->command, &j->std_out,
                &j->std_err, &j->features, &j->tres_req, &j->tres_alloc, &j->comment, &j->dependency,
                &j->state_reason };
        for (size_t i = 0; i < ELEMENTSOF(strs); i++)
                free(*strs[i]);
        free(j->pending_tasks);
        *j = (struct slurm_jobinfo){ 0 };
}

void slurm_jobinfo_list_done(struct slurm_jobinfo_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                jobinfo_done(&l->v[i]);
        free(l->v);
        *l = (struct slurm_jobinfo_list){ 0 };
}

static char *user_name(const slurm_job_info_t *in) {
        struct passwd pw, *res = NULL;
        char buf[1024];
        if (!isempty(in->user_name))
                return xstrdup(in->user_name);
        if (getpwuid_r(in->user_id, &pw, buf, sizeof buf, &res) == 0 && res && !isempty(res->pw_name))
                return xstrdup(res->pw_name);
        return xasprintf("%u", in->user_id);
}

static void jobinfo_from(const slurm_job_info_t *in, struct slurm_jobinfo *out) {
        _cleanup_strbuf_ struct strbuf id = STRBUF_INIT;
        bool meta = in->array_job_id && in->array_task_id == NO_VAL;
        const char *reason = NULL;

        if (in->het_job_id)
                strbuf_addf(&id, "%u+%u", in->het_job_id, in->het_job_offset);
        else if (in->array_job_id && meta)
                strbuf_addf(&id, "%u_[%s]", in->array_job_id, strempty(in->array_task_str));
        else if (in->array_job_id)
                strbuf_addf(&id, "%u_%u", in->array_job_id, in->array_task_id);
        else
                strbuf_addf(&id, "%u", in->job_id);
        if (in->state_reason != WAIT_NO_REASON)
                reason = slurm_job_reason_string((enum job_state_reason) in->state_reason);
        *out = (struct slurm_jobinfo){
                .job_id = in->job_id,
                .display_id = strbuf_detach(&id, NULL),
                .array_job_id = in->array_job_id,
                .array_task_id = in->array_job_id && !meta ? in->array_task_id : NONE32,
                .array_tasks = meta ? dup_or_null(in->array_task_str) : NULL,
                .het_job_id = in->het_job_id,
                .het_job_offset = in->het_job_id ? in->het_job_offset : 0,
                .name = dup_or_null(in->name),
                .user = user_name(in),
                .account = dup_or_null(in->account),
                .partition = dup_or_null(in->partition),
                .qos = dup_or_null(in->qos),
                .reservation = dup_or_null(in->resv_name),
                .nodes = dup_or_null(in->nodes),
                .batch_host = dup_or_null(in->batch_host),
                .work_dir = dup_or_null(in->work_dir),
                .command = dup_or_null(in->command),
                .std_out = dup_or_null(in->std_out),
                .std_err = dup_or_null(in->std_err),
                .features = dup_or_null(in->features),
                .tres_req = dup_or_null(in->tres_req_str),
                .tres_alloc = dup_or_null(in->tres_alloc_str),
                .comment = dup_or_null(in->comment),
                .dependency = dup_or_null(in->dependency),
                .state_reason = !isempty(in->state_desc) ? xstrdup(in->state_desc) : dup_or_null(reason),
                .user_id = in->user_id,
                .group_id = in->group_id,
                .state = in->job_state,
                .num_nodes = in->num_nodes,
                .num_cpus = in->num_cpus,
                .num_tasks = in->num_tasks,
                .time_limit = in->time_limit == INFINITE ? NONE32
                        : in->time_limit == NO_VAL       ? 0
                                                         : in->time_limit,
                .priority = in->priority,
                .exit_code = in->exit_code,
                .submit_time = in->submit_time,
                .eligible_time = in->eligible_time,
                .start_time = in->start_time,
                .end_time = in->end_time,
                .batch = in->batch_flag != 0,
                .requeue = in->requeue != 0,
                .restart_count = in->restart_cnt,
        };
        if (meta && in->array_bitmap) {
                bitoff_t size = slurm_bit_size(in->array_bitmap);
                if (size > (bitoff_t) SLURM_ARRAY_TASK_MAX + 1)
                        size = (bitoff_t) SLURM_ARRAY_TASK_MAX + 1;
                if (size > 0) {
                        out->pending_tasks = xcalloc((size_t) (size + 7) / 8, 1);
                        out->pending_tasks_len = (size_t) size;
                        for (bitoff_t b = 0; b < size; b++)
                                if (slurm_bit_test(in->array_bitmap, b))
                                        out->pending_tasks[b / 8] |= (uint8_t) (1u << (b % 8));
                }
        }
}

/* --- find ---------------------------------------------------------------------------------- */

/* Words of enum job_states in order (slurm.h; JOB_OOM is OUT_OF_MEMORY as squeue prints it). */
static const char *const base_words[] = { "PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED",
        "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY" };
static const struct {
        const char *word;
        uint32_t flag;
} flag_words[] = {
        { "COMPLETING", JOB_COMPLETING },
        { "CONFIGURING", JOB_CONFIGURING },
        { "REQUEUED", JOB_REQUEUE },
};

bool slurm_job_state_word_valid(const char *w) {
        if (isempty(w))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(base_words); i++)
                if (strcaseeq(w, base_words[i]))
                        return true;
        for (size_t i = 0; i < ELEMENTSOF(flag_words); i++)
                if (strcaseeq(w, flag_words[i].word))
                        return true;
        return false;
}

bool slurm_job_state_is(uint32_t state, const char *w) {
        uint32_t base = state & JOB_STATE_BASE;
        for (size_t i = 0; i < ELEMENTSOF(base_words); i++)
                if (strcaseeq(w, base_words[i]))
                        return base == i;
        for (size_t i = 0; i < ELEMENTSOF(flag_words); i++)
                if (strcaseeq(w, flag_words[i].word))
                        return (state & flag_words[i].flag) != 0;
        return false;
}

static bool list_any(char *const *want, bool (*match)(const char *w, const struct slurm_jobinfo *j),
        const struct slurm_jobinfo *j) {
        if (!want)
                return true;
        for (size_t i = 0; want[i]; i++)
                if (match(want[i], j))
                        return true;
        return false;
}

static bool m_user(const char *w, const struct slurm_jobinfo *j) {
        char num[16];
        snprintf(num, sizeof num, "%u", j->user_id);
        return streq(w, num) || streq_ptr(w, j->user);
}
static bool m_state(const char *w, const struct slurm_jobinfo *j) {
        return slurm_job_state_is(j->state, w);
}
static bool m_partition(const char *w, const struct slurm_jobinfo *j) {
        return slurm_list_has(j->partition, w);
}
static bool m_name(const char *w, const struct slurm_jobinfo *j) {
        return streq_ptr(w, j->name);
}
static bool m_account(const char *w, const struct slurm_jobinfo *j) {
        return streq_ptr(w, j->account);
}
/* Any of the wanted nodes in the job's allocation: one hostlist per job. */
static bool nodes_any(char *const *want, const struct slurm_jobinfo *j) {
        slurm_hl_t hl;
        bool found = false;
        if (!want)
                return true;
        if (isempty(j->nodes))
                return false;
        for (size_t i = 0; want[i]; i++)
                if (streq(j->nodes, want[i]))
                        return true;
        hl = slurm_hostlist_create(j->nodes);
        if (!hl)
                return false;
        for (size_t i = 0; want[i] && !found; i++)
                found = slurm_hostlist_find(hl, want[i]) >= 0;
        slurm_hostlist_destroy(hl);
        return found;
}
static bool m_batch_host(const char *w, const struct slurm_jobinfo *j) {
        return streq_ptr(w, j->batch_host);
}

bool slurm_job_filter_match(const struct slurm_job_filter *f, const struct slurm_jobinfo *j) {
        if (!f)
                return true;
        return list_any(f->users, m_user, j) && list_any(f->states, m_state, j) &&
                list_any(f->partitions, m_partition, j) && list_any(f->names, m_name, j) &&
                list_any(f->accounts, m_account, j) && nodes_any(f->nodes, j) &&
                list_any(f->batch_hosts, m_batch_host, j);
}

/* Moves *j to the end of l. */
static void list_push(struct slurm_jobinfo_list *l, size_t *alloc, struct slurm_jobinfo *j) {
        if (l->n == *alloc) {
                *alloc = *alloc ? *alloc * 2 : 16;
                l->v = xrealloc(l->v, *alloc * sizeof(*l->v));
        }
        l->v[l->n++] = *j;
        *j = (struct slurm_jobinfo){ 0 };
}

int slurm_jobs_find(const struct slurm_job_filter *f, struct slurm_jobinfo_list *ret, struct strbuf *err) {
        job_info_msg_t *msg = NULL;
        struct slurm_jobinfo_list l = { 0 };
        size_t alloc = 0;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_jobs((time_t) 0, &msg, SHOW_ALL | SHOW_DETAIL);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load jobs");
        for (uint32_t i = 0; i < msg->record_count; i++) {
                struct slurm_jobinfo j;
                jobinfo_from(&msg->job_array[i], &j);
                if (slurm_job_filter_match(f, &j))
                        list_push(&l, &alloc, &j);
                else
                        jobinfo_done(&j);
        }
        slurm_free_job_info_msg(msg);
        *ret = l;
        return (int) l.n;
}

/* --- get ----------------------------------------------------------------------------------- */

int slurm_jobs_get(const struct slurm_jobid *ids, size_t n, struct slurm_jobinfo_list *ret,
        struct strv *ret_missing, struct strbuf *err) {
        _cleanup_strv_ struct strv missing = STRV_INIT;
        struct slurm_jobinfo_list l = { 0 };
        size_t alloc = 0;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                job_info_msg_t *msg = NULL;
                bool found = false;
                r = slurm_load_job(&msg, ids[i].id, SHOW_ALL | SHOW_DETAIL);
                if (r != SLURM_SUCCESS) {
                        int code = slurm_rc_code(r);
                        if (code != ESLURM_INVALID_JOB_ID) {
                                slurm_jobinfo_list_done(&l);
                                return slurm_fail(err, code, "load job %u", ids[i].id);
                        }
                        msg = NULL;
                }
                for (uint32_t k = 0; msg && k < msg->record_count; k++) {
                        struct slurm_jobinfo j;
                        bool dup = false;
                        jobinfo_from(&msg->job_array[k], &j);
                        if (slurm_jobid_selects(&ids[i], &j)) {
                                found = true;
                                for (size_t m = 0; m < l.n && !dup; m++)
                                        dup = l.v[m].job_id == j.job_id;
                                if (!dup)
                                        list_push(&l, &alloc, &j);
                        }
                        jobinfo_done(&j);
                }
                if (msg)
                        slurm_free_job_info_msg(msg);
                if (!found) {
                        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
                        slurm_jobid_format(&ids[i], &sb);
                        if (!strv_contains(&missing, sb.buf))
                                strv_push(&missing, sb.buf);
                }
        }
        strv_pushv(ret_missing, missing.v);
        *ret = l;
        return (int) l.n;
}

/* --- steps --------------------------------------------------------------------------------- */

const char *slurm_step_special_name(uint32_t step_id) {
        switch (step_id) {
        case SLURM_BATCH_SCRIPT:
                return "batch";
        case SLURM_EXTERN_CONT:
                return "extern";
        case SLURM_INTERACTIVE_STEP:
                return "interactive";
        case SLURM_PENDING_STEP:
                return "TDB"; /* sic: log_build_step_id_str() */
        default:
                return NULL;
        }
}

void slurm_step_id_format(uint32_t job_id, uint32_t array_job_id, uint32_t array_task_id, uint32_t step_id,
        uint32_t het_comp, struct strbuf *out) {
        const char *special = slurm_step_special_name(step_id);
        if (array_job_id && array_task_id != NO_VAL && array_task_id != NONE32)
                strbuf_addf(out, "%u_%u.", array_job_id, array_task_id);
        else
                strbuf_addf(out, "%u.", job_id);
        if (special)
                strbuf_addstr(out, special);
        else
                strbuf_addf(out, "%u", step_id);
        if (het_comp != NO_VAL && het_comp != NONE32)
                strbuf_addf(out, "+%u", het_comp);
}

void slurm_step_list_done(struct slurm_step_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++) {
                struct slurm_step *s = &l->v[i];
                free(s->id);
                free(s->name);
                free(s->nodes);
                free(s->partition);
                free(s->tres_alloc);
        }
        free(l->v);
        *l = (struct slurm_step_list){ 0 };
}

int slurm_job_steps(const uint32_t *job_ids, size_t n, struct slurm_step_list *ret, struct strbuf *err) {
        job_step_info_response_msg_t *msg = NULL;
        struct slurm_step_list l = { 0 };
        size_t count = 0;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_get_job_steps((time_t) 0, NO_VAL, NO_VAL, &msg, SHOW_ALL);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load job steps");
        l.v = xcalloc(msg->job_step_count ? msg->job_step_count : 1, sizeof(*l.v));
        for (uint32_t i = 0; i < msg->job_step_count; i++) {
                const job_step_info_t *in = &msg->job_steps[i];
                _cleanup_strbuf_ struct strbuf id = STRBUF_INIT;
                bool wanted = false;
                for (size_t k = 0; k < n && !wanted; k++)
                        wanted = job_ids[k] == in->step_id.job_id;
                if (!wanted)
                        continue;
                slurm_step_id_format(in->step_id.job_id, in->array_job_id, in->array_task_id,
                        in->step_id.step_id, in->step_id.step_het_comp, &id);
                l.v[count++] = (struct slurm_step){
                        .job_id = in->step_id.job_id,
                        .step_id = in->step_id.step_id,
                        .het_comp = in->step_id.step_het_comp == NO_VAL ? NONE32 : in->step_id.step_het_comp,
                        .id = strbuf_detach(&id, NULL),
                        .name = dup_or_null(in->name),
                        .nodes = dup_or_null(in->nodes),
                        .partition = dup_or_null(in->partition),
                        .tres_alloc = dup_or_null(in->tres_alloc_str),
                        .state = in->state,
                        .num_tasks = in->num_tasks,
                        .num_cpus = in->num_cpus,
                        .time_limit = in->time_limit == INFINITE ? NONE32 : in->time_limit,
                        .start_time = in->start_time,
                        .user_id = in->user_id,
                };
                l.n = count;
        }
        slurm_free_job_step_info_response_msg(msg);
        *ret = l;
        return (int) l.n;
}
