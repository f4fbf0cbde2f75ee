/* SPDX-License-Identifier: Apache-2.0 */
/* What a node's departure strands (pending jobs needing a leaving or gone node, reservations
 * naming it) and the two ways to deal with them: hold or cancel. See stranded.h. */
#include "util/macro.h"
#include "slurm/stranded.h"

#include <signal.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/jobs.h"
#include "slurm/compat.h"
#include "slurm/reservations.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"
#include "util/strv.h"

#include "util/banned.h"

void slurm_stranded_done(struct slurm_stranded *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_jobs; i++)
                free(s->jobs[i].node);
        for (size_t i = 0; i < s->n_resvs; i++)
                free(s->resvs[i].name);
        free(s->jobs);
        free(s->resvs);
        strv_clear(&s->missing);
        strv_clear(&s->placeholders);
        strv_clear(&s->required);
        *s = (struct slurm_stranded){ 0 };
}

void slurm_stranded_report_done(struct slurm_stranded_report *r) {
        if (!r)
                return;
        strv_clear(&r->resv_shrunk);
        strv_clear(&r->resv_deleted);
        free(r->done);
        free(r->failed);
        *r = (struct slurm_stranded_report) SLURM_STRANDED_REPORT_INIT;
}

static int cmp_name(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

char *slurm_stranded_needs(const char *req_nodes, const struct strv *leaving, char *const *names, size_t n) {
        char *found = NULL, *h;
        if (isempty(req_nodes))
                return NULL;
        slurm_hl_t hl = slurm_hostlist_create(req_nodes);
        if (!hl)
                return NULL;
        while (!found && (h = slurm_hostlist_shift(hl))) {
                const char *key = h;
                if ((leaving && strv_contains(leaving, h)) || n == 0 ||
                        !bsearch(&key, names, n, sizeof(char *), cmp_name))
                        found = xstrdup(h);
                free(h); /* slurm_hostlist_shift() mallocs */
        }
        slurm_hostlist_destroy(hl);
        return found;
}

static void sort_names(struct strv *v) {
        if (v->n > 1)
                qsort(v->v, v->n, sizeof(char *), cmp_name);
}

/* The node names of the table, sorted (NULL-terminated strv in *ret): FUTURE nodes left out
 * (as a load without SHOW_FUTURE does), the placeholders among them into *placeholders. */
static int node_names(struct strv *ret, struct strv *placeholders, struct strbuf *err) {
        node_info_msg_t *msg = NULL;
        int r = slurm_load_node((time_t) 0, &msg, SHOW_ALL | SHOW_FUTURE);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load nodes");
        for (uint32_t i = 0; i < msg->record_count; i++) {
                const node_info_t *n = &msg->node_array[i];
                if (isempty(n->name))
                        continue;
                if ((n->node_state & NODE_STATE_BASE) != NODE_STATE_FUTURE)
                        strv_push(ret, n->name);
                else if (slurm_stranded_placeholder_feature(n->features))
                        strv_push(placeholders, n->name);
        }
        slurm_free_node_info_msg(msg);
        sort_names(ret);
        sort_names(placeholders);
        return 0;
}

void slurm_stranded_missing(const char *req_nodes, char *const *names, size_t n, struct strv *missing) {
        char *h;
        if (isempty(req_nodes))
                return;
        slurm_hl_t hl = slurm_hostlist_create(req_nodes);
        if (!hl)
                return;
        while ((h = slurm_hostlist_shift(hl))) {
                const char *key = h;
                if ((n == 0 || !bsearch(&key, names, n, sizeof(char *), cmp_name)) && !strv_contains(missing, h)) {
                        strv_push(missing, h);
                        sort_names(missing);
                }
                free(h); /* slurm_hostlist_shift() mallocs */
        }
        slurm_hostlist_destroy(hl);
}

void slurm_stranded_required(const char *req_nodes, const struct strv *leaving, struct strv *required) {
        char *h;
        if (isempty(req_nodes) || !leaving || leaving->n == 0)
                return;
        slurm_hl_t hl = slurm_hostlist_create(req_nodes);
        if (!hl)
                return;
        while ((h = slurm_hostlist_shift(hl))) {
                if (strv_contains(leaving, h) && !strv_contains(required, h)) {
                        strv_push(required, h);
                        sort_names(required);
                }
                free(h); /* slurm_hostlist_shift() mallocs */
        }
        slurm_hostlist_destroy(hl);
}

bool slurm_stranded_placeholder_feature(const char *features) {
        size_t n = strlen(SLURM_STRANDED_PLACEHOLDER_FEATURE);
        for (const char *f = features; f && *f; f += strcspn(f, ","), f += *f == ',')
                if (strncmp(f, SLURM_STRANDED_PLACEHOLDER_FEATURE, n) == 0 && (f[n] == ',' || f[n] == '\0'))
                        return true;
        return false;
}

void slurm_stranded_placeholder_plan(const struct slurm_stranded *s, struct strv *create, struct strv *drop) {
        for (size_t i = 0; i < s->missing.n; i++)
                if (!strv_contains(&s->placeholders, s->missing.v[i]))
                        strv_push(create, s->missing.v[i]);
        for (size_t i = 0; i < s->placeholders.n; i++)
                if (!strv_contains(&s->missing, s->placeholders.v[i]))
                        strv_push(drop, s->placeholders.v[i]);
}

static bool resv_names_node(const char *nodes, const char *node, bool *ret_only);
static int resv_release(
        const char *name, const char *node, struct slurm_stranded_report *rep, struct strbuf *err);

/* Out of the reservations that name node: Slurm leaves a deleted node in them while a node of
 * its name exists (attack on the placeholders, F3: the leader's own creations), and a record
 * kept as the placeholder stays in them. Best effort: a reservation that refuses (REPLACE,
 * REPLACE_DOWN, a race) keeps the name, which costs less than the jobs (review of the fix, B). */
static void release_from_resvs(const char *node, struct slurm_stranded_report *rep) {
        struct slurm_resv_list l = { 0 };
        struct slurm_stranded_report own = SLURM_STRANDED_REPORT_INIT;
        _cleanup_strbuf_ struct strbuf re = STRBUF_INIT;
        if (slurm_resv_list(&l, &re) >= 0)
                for (size_t i = 0; i < l.n; i++) {
                        bool only = false;
                        if (resv_names_node(l.v[i].nodes, node, &only))
                                (void) resv_release(l.v[i].name, node, rep ? rep : &own, &re);
                }
        slurm_resv_list_done(&l);
        slurm_stranded_report_done(&own);
}

/* node's record as slurmctld has it, FUTURE ones too: 1 a placeholder (FUTURE, the placeholder's
 * feature), 0 anything else or no record, negative errno when it cannot be read. *ret_busy: the
 * record says it holds work (22.05's "allocated with no job" too), which FUTURE is refused from. */
static int record_placeholder(const char *node, bool *ret_busy, struct strbuf *err) {
        node_info_msg_t *msg = NULL;
        int r = slurm_load_node_single(&msg, (char *) node, SHOW_ALL | SHOW_FUTURE);
        if (r != SLURM_SUCCESS) {
                r = slurm_rc_code(r);
                return r == ESLURM_INVALID_NODE_NAME ? 0 : slurm_fail(err, r, "node \"%s\"", node);
        }
        int ret = 0;
        if (msg && msg->record_count > 0) {
                const node_info_t *n = &msg->node_array[0];
                uint32_t base = n->node_state & NODE_STATE_BASE;
                ret = base == NODE_STATE_FUTURE && slurm_stranded_placeholder_feature(n->features);
                if (ret_busy)
                        *ret_busy = base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED ||
                                (n->node_state & NODE_STATE_COMPLETING);
        }
        slurm_free_node_info_msg(msg);
        return ret;
}

int slurm_stranded_placeholder_keep(const char *node, struct slurm_stranded_report *rep, struct strbuf *err) {
        update_node_msg_t m;
        bool busy = false;
        if (isempty(node) || strpbrk(node, " \t\n\"=,[]"))
                return -EINVAL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        /* kept already (a retried departure; an update whose reply was lost): FUTURE to FUTURE
         * is refused, and the caller's fallback would delete it (attack on issue 28, finding 2) */
        r = record_placeholder(node, &busy, err);
        if (r != 0)
                return r < 0 ? r : 0;
        /* FUTURE is refused from a node that says it holds work; one that holds none (the
         * departure waited for its jobs: 22.05's "allocated with no job") is set DOWN first, as
         * the deletion does (finding 9: the refused update had changed its features already).
         * One whose job is still in slurmctld's table is refused: DOWN requeues or fails that job
         * (attack of stop 51: a slurmctld killed in its save window brought back a job that had
         * ended as RUNNING, and the DOWN here ran it a second time) */
        if (busy) {
                struct slurm_job_list jobs = { 0 };
                int k = slurm_jobs_on_node(node, &jobs, err);
                if (k > 0)
                        strbuf_addf(err, "node \"%s\" holds job %u in slurmctld's table: not made a placeholder",
                                node, jobs.v[0].id);
                slurm_job_list_done(&jobs);
                if (k != 0)
                        return k < 0 ? k : -EBUSY;

                slurm_init_update_node_msg(&m);
                m.node_names = (char *) node;
                m.node_state = NODE_STATE_DOWN;
                m.reason = (char *) SLURM_STRANDED_PLACEHOLDER_REASON;
                r = slurm_update_node(&m);
                if (r != SLURM_SUCCESS)
                        return slurm_fail(err, slurm_rc_code(r), "set node \"%s\" down", node);
        }
        release_from_resvs(node, rep);
        /* one RPC: state, features and the why at once (node_mgr.c update_node: FUTURE sets the
         * node down first, kills what runs there, and keeps a dynamic node dynamic). The why goes
         * to the comment: an update clears the reason of a node that is neither DOWN nor
         * drained (clusteracct_storage_g_node_up at its end), which a FUTURE node is not */
        slurm_init_update_node_msg(&m);
        m.node_names = (char *) node;
        m.node_state = NODE_STATE_FUTURE;
        m.features = (char *) SLURM_STRANDED_PLACEHOLDER_FEATURE;
        m.features_act = (char *) SLURM_STRANDED_PLACEHOLDER_FEATURE;
        m.comment = (char *) SLURM_STRANDED_PLACEHOLDER_REASON;
        r = slurm_update_node(&m);
        if (r != SLURM_SUCCESS) {
                int code = slurm_rc_code(r);
                /* applied, its reply lost (a restart), or applied by another run: kept */
                if (record_placeholder(node, NULL, NULL) == 1)
                        return 0;
                return slurm_fail(err, code, "keep node \"%s\" as its placeholder", node);
        }
        /* drained too (FUTURE dropped the drain): a registration of its slurmd after this (one
         * in flight, where slurmd still runs) makes the record IDLE+DRAIN, never a node that
         * takes a job (attack on issue 28, finding 1). Best effort: the name is kept either way */
        slurm_init_update_node_msg(&m);
        m.node_names = (char *) node;
        m.node_state = NODE_STATE_DRAIN;
        m.reason = (char *) SLURM_STRANDED_PLACEHOLDER_REASON;
        (void) slurm_update_node(&m);
        return 0;
}

int slurm_stranded_placeholder_create(const char *node, struct slurm_stranded_report *rep, struct strbuf *err) {
        update_node_msg_t m;
        if (isempty(node) || strpbrk(node, " \t\n\"=,[]"))
                return -EINVAL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        release_from_resvs(node, rep);
        _cleanup_free_ char *line =
                xasprintf("NodeName=%s State=FUTURE Features=%s Reason=\"%s\"", node,
                        SLURM_STRANDED_PLACEHOLDER_FEATURE, SLURM_STRANDED_PLACEHOLDER_REASON);
        slurm_init_update_node_msg(&m);
        m.extra = line;
        r = slurm_create_node(&m);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "create the placeholder node \"%s\"", node);
        return 0;
}

static bool resv_names_node(const char *nodes, const char *node, bool *ret_only) {
        if (isempty(nodes))
                return false;
        slurm_hl_t hl = slurm_hostlist_create(nodes);
        if (!hl)
                return false;
        bool found = slurm_hostlist_find(hl, node) >= 0;
        *ret_only = found && slurm_hostlist_count(hl) == 1;
        slurm_hostlist_destroy(hl);
        return found;
}

bool slurm_stranded_held(uint32_t priority, uint32_t state_reason) {
        return priority == 0 && (state_reason == WAIT_HELD || state_reason == WAIT_HELD_USER);
}

int slurm_stranded_find(const struct strv *leaving, struct slurm_stranded *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv names = STRV_INIT;
        struct slurm_stranded s = { 0 };
        job_info_msg_t *jobs = NULL;
        int r = slurm_client_init(err);
        if (r >= 0)
                r = node_names(&names, &s.placeholders, err);
        if (r < 0) {
                slurm_stranded_done(&s);
                return r;
        }
        r = slurm_load_jobs((time_t) 0, &jobs, SHOW_ALL);
        if (r != SLURM_SUCCESS) {
                slurm_stranded_done(&s);
                return slurm_fail(err, slurm_rc_code(r), "load jobs");
        }
        for (uint32_t i = 0; i < jobs->record_count; i++) {
                const slurm_job_info_t *j = &jobs->job_array[i];
                uint32_t base = j->job_state & JOB_STATE_BASE;
                /* slurmctld fails a running or suspended job too when its list names a node it
                 * does not know (24.11: `-N1 -w a,b` runs on a with b in its list; attack on the
                 * placeholders, F2) */
                if (base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED) {
                        slurm_stranded_missing(j->req_nodes, names.v, names.n, &s.missing);
                        slurm_stranded_required(j->req_nodes, leaving, &s.required);
                }
                if (base != JOB_PENDING)
                        continue;
                char *node = slurm_stranded_needs(j->req_nodes, leaving, names.v, names.n);
                if (!node)
                        continue;
                s.jobs = xrealloc(s.jobs, (s.n_jobs + 1) * sizeof(*s.jobs));
                s.jobs[s.n_jobs++] = (struct slurm_stranded_job){ .id = j->job_id,
                        .node = node,
                        .held = slurm_stranded_held(j->priority, j->state_reason) };
        }
        slurm_free_job_info_msg(jobs);
        if (leaving && leaving->n > 0) {
                struct slurm_resv_list l = { 0 };
                r = slurm_resv_list(&l, err);
                if (r < 0) {
                        slurm_stranded_done(&s);
                        return r;
                }
                for (size_t i = 0; i < l.n; i++) {
                        bool only = false, named = false;
                        for (size_t k = 0; !named && k < leaving->n; k++)
                                named = resv_names_node(l.v[i].nodes, leaving->v[k], &only);
                        if (!named)
                                continue;
                        s.resvs = xrealloc(s.resvs, (s.n_resvs + 1) * sizeof(*s.resvs));
                        s.resvs[s.n_resvs++] = (struct slurm_stranded_resv){ .name = xstrdup(l.v[i].name),
                                .only_node = only };
                }
                slurm_resv_list_done(&l);
        }
        *ret = s;
        return (int) s.n_jobs;
}

void slurm_stranded_describe_jobs(const struct slurm_stranded *s, struct strbuf *out) {
        _cleanup_strv_ struct strv nodes = STRV_INIT;
        if (!s || s->n_jobs == 0)
                return;
        strbuf_addf(out, "pending job%s ", s->n_jobs == 1 ? "" : "s");
        for (size_t i = 0; i < s->n_jobs; i++) {
                strbuf_addf(out, "%s%u", i ? ", " : "", s->jobs[i].id);
                if (!strv_contains(&nodes, s->jobs[i].node))
                        strv_push(&nodes, s->jobs[i].node);
        }
        _cleanup_free_ char *list = strv_join(&nodes, ", ");
        strbuf_addf(out, " require%s node%s %s", s->n_jobs == 1 ? "s" : "", nodes.n == 1 ? "" : "s", list);
}

static void push_id(uint32_t **v, size_t *n, uint32_t id) {
        *v = xrealloc(*v, (*n + 1) * sizeof(uint32_t));
        (*v)[(*n)++] = id;
}

static void add_failure(struct strbuf *err, int code, const char *what, uint32_t id) {
        if (err->len)
                strbuf_addstr(err, "; ");
        slurm_fail(err, code, "%s job %u", what, id);
}

/* The job's admin comment with why appended (why alone when it has none; unchanged when it
 * already ends with why: a hold repeated by a later hook, a cancel after a hold). */
static char *comment_with(uint32_t id, const char *why) {
        job_info_msg_t *msg = NULL;
        char *c = NULL;
        if (slurm_load_job(&msg, id, SHOW_ALL) == SLURM_SUCCESS && msg->record_count > 0) {
                const char *old = msg->job_array[0].admin_comment;
                size_t lo = old ? strlen(old) : 0, lw = strlen(why);
                if (isempty(old))
                        c = xstrdup(why);
                else if (lo >= lw && streq(old + lo - lw, why))
                        c = xstrdup(old);
                else
                        c = xasprintf("%s; %s", old, why);
        }
        slurm_free_job_info_msg(msg);
        return c ? c : xstrdup(why);
}

static int job_act(uint32_t id, enum slurm_stranded_action action, const char *why) {
        job_desc_msg_t d;
        _cleanup_free_ char *comment = comment_with(id, why);
        slurm_init_job_desc_msg(&d);
        d.job_id = id;
        d.admin_comment = comment;
        if (action == SLURM_STRANDED_HOLD) {
                d.priority = 0;
                d.alloc_sid = ALLOC_SID_ADMIN_HOLD;
        }
        int r = slurm_update_job(&d);
        if (r != SLURM_SUCCESS)
                return slurm_rc_code(r);
        if (action == SLURM_STRANDED_CANCEL && slurm_kill_job(id, SIGKILL, 0) != SLURM_SUCCESS)
                return slurm_rc_code(SLURM_ERROR);
        return 0;
}

/* The reservation's node list without node: "" when node was its only one. */
static int resv_without(const char *nodes, const char *node, char **ret) {
        slurm_hl_t hl = slurm_hostlist_create(nodes), rest = slurm_hostlist_create("");
        char *h;
        if (!hl || !rest) {
                if (hl)
                        slurm_hostlist_destroy(hl);
                if (rest)
                        slurm_hostlist_destroy(rest);
                return -EINVAL;
        }
        while ((h = slurm_hostlist_shift(hl))) {
                if (!streq(h, node))
                        slurm_hostlist_push_host(rest, h);
                free(h);
        }
        char *s = slurm_hostlist_count(rest) > 0 ? slurm_hl_string(rest) : NULL;
        *ret = xstrdup(strempty(s));
        free(s);
        slurm_hostlist_destroy(hl);
        slurm_hostlist_destroy(rest);
        return 0;
}

static int resv_release(
        const char *name, const char *node, struct slurm_stranded_report *rep, struct strbuf *err) {
        _cleanup_(slurm_resv_done) struct slurm_resv r = { 0 };
        _cleanup_free_ char *rest = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int k = slurm_resv_get(name, &r, &e);
        if (k == -ENOENT)
                return 0; /* gone meanwhile */
        if (k >= 0 && resv_without(strempty(r.nodes), node, &rest) < 0) {
                strbuf_addf(
                        &e, "reservation \"%s\": cannot read its node list \"%s\"", name, strempty(r.nodes));
                k = -EINVAL;
        }
        if (k >= 0 && isempty(rest)) {
                k = slurm_resv_delete(name, &e);
                if (k >= 0 || k == -ENOENT) {
                        strv_push(&rep->resv_deleted, name);
                        return 0;
                }
        } else if (k >= 0) {
                k = slurm_resv_set_nodes(name, rest, &e);
                if (k >= 0) {
                        strv_push(&rep->resv_shrunk, name);
                        return 0;
                }
        }
        if (err->len)
                strbuf_addstr(err, "; ");
        strbuf_addbuf(err, &e);
        return k;
}

int slurm_stranded_act(const struct slurm_stranded *s, enum slurm_stranded_action action, const char *node,
        const char *why, struct slurm_stranded_report *ret, struct strbuf *err) {
        struct slurm_stranded_report rep = SLURM_STRANDED_REPORT_INIT;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_jobs; i++) {
                uint32_t id = s->jobs[i].id;
                int code = job_act(id, action, why);
                if (code == 0 || code == ESLURM_ALREADY_DONE || code == ESLURM_INVALID_JOB_ID ||
                        (action == SLURM_STRANDED_HOLD && code == ESLURM_JOB_NOT_PENDING)) {
                        /* done, or it ended (or started) between the listing and now */
                        push_id(&rep.done, &rep.n_done, id);
                        continue;
                }
                add_failure(err, code, action == SLURM_STRANDED_HOLD ? "hold" : "cancel", id);
                push_id(&rep.failed, &rep.n_failed, id);
        }
        int n_resv_failed = 0;
        for (size_t i = 0; action == SLURM_STRANDED_CANCEL && i < s->n_resvs; i++)
                if (resv_release(s->resvs[i].name, node, &rep, err) < 0)
                        n_resv_failed++;
        *ret = rep;
        return (int) rep.n_failed + n_resv_failed;
}

