/* SPDX-License-Identifier: Apache-2.0 */
/* The operator actions' shared part: parameter checks, node name resolution against the node
 * table, times, result keys; and the two read-only node/config actions (slurm-config, node-get). */
#include "util/macro.h"
#include "charm/slurmctld/ops.h"

#include <ctype.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "charm/slurmctld/ops-internal.h"
#include "charm/slurmctld/nodeevents.h"
#include "charm/common/pause.h"
#include "slurm/client.h"
#include "slurm/ctlvalues.h"
#include "slurm/nodestate.h"
#include "slurm/reservations.h"
#include "slurmconf/hostlist.h"
#include "slurmconf/values.h"
#include "util/alloc.h"

#include "util/banned.h"

/* --- entry, results, messages ------------------------------------------------------------------ */

int ops_run(struct juju_ctx *ctx, const char *action, int (*fn)(struct juju_ctx *ctx, struct strbuf *err),
        struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = fn(ctx, &e);
        if (r < 0) {
                if (e.len)
                        strbuf_addf(err, "%s: %s", action, e.buf);
                else
                        strbuf_addf(err, "%s: %s", action, strerror(-r));
        }
        return r;
}

int ops_result_set(struct juju_ctx *ctx, const struct strv *kv, struct strbuf *err) {
        if (kv->n == 0)
                return 0;
        for (size_t i = 0; i < kv->n; i += 2 * OPS_SET_CHUNK) {
                _cleanup_strv_ struct strv chunk = STRV_INIT;
                for (size_t k = i; k < kv->n && k < i + 2 * OPS_SET_CHUNK; k++)
                        strv_push(&chunk, kv->v[k]);
                int r = juju_action_set_many(ctx, &chunk, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

void ops_kv(struct strv *kv, const char *value, const char *fmt, ...) {
        va_list ap;
        _cleanup_strbuf_ struct strbuf key = STRBUF_INIT;
        va_start(ap, fmt);
        strbuf_vaddf(&key, fmt, ap);
        va_end(ap);
        strv_push(kv, key.buf);
        strv_push(kv, strempty(value));
}

void ops_key_segment(const char *name, struct strbuf *out) {
        size_t start = out->len;
        for (const char *p = strempty(name); *p; p++) {
                char c = (char) tolower((unsigned char) *p);
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
                        c = '-';
                if (c == '-' && (out->len == start || out->buf[out->len - 1] == '-'))
                        continue;
                strbuf_addch(out, c);
        }
        while (out->len > start && out->buf[out->len - 1] == '-')
                strbuf_setlen(out, out->len - 1);
        if (out->len == start)
                strbuf_addch(out, 'x');
}

void ops_note(struct juju_ctx *ctx, const char *action, const struct strv *nodes, const char *reason,
        const char *detail, struct strv *kv) {
        const struct juju_env *env = juju_env(ctx);
        const struct charm_paths paths = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (nodes->n == 0)
                return;
        _cleanup_free_ char *by = xasprintf("%s action %s", strempty(env->unit), strempty(env->action_uuid));
        const struct ev_note note = {
                .action = action,
                .by = by,
                .nodes = nodes->v,
                .n_nodes = nodes->n,
                .reason = reason,
                .detail = detail,
        };
        if (nodeevents_note(&paths, &note, &e) < 0)
                ops_kv(kv, e.buf, "event-log");
}

int ops_slurm_failed(int r, const struct strbuf *e, bool changes, struct strbuf *err) {
        if (r == -ECONNREFUSED || r == -ETIMEDOUT)
                strbuf_addf(err, "slurmctld does not answer (%s)", e->buf);
        else
                strbuf_addbuf(err, e);
        if (changes)
                strbuf_addstr(err, ": nothing changed");
        return r;
}

int ops_ctl_check(bool changes, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct slurm_controllers c = { 0 };
        /* bounded: a stopped slurmctld on this machine held a 24.11 client for ever (its
         * credential comes from that daemon's sack socket); MessageTimeout's 10 s otherwise */
        int up = slurm_ctl_ping_bounded(&c, OPS_PING_MS, &e);
        if (up < 0)
                return ops_slurm_failed(up, &e, changes, err);
        if (up == 0) {
                strbuf_addstr(err, "slurmctld does not answer (");
                for (size_t i = 0; i < c.n; i++)
                        strbuf_addf(err, "%s%s: %s", i ? ", " : "", c.v[i].host,
                                c.v[i].error ? strerror(-c.v[i].error) : "no answer");
                strbuf_addch(err, ')');
                if (changes)
                        strbuf_addstr(err, ": nothing changed");
        }
        slurm_controllers_done(&c);
        return up == 0 ? -ECONNREFUSED : 0;
}

void ops_hostlist(char *const *names, struct strbuf *out) {
        if (!names || !names[0])
                return;
        if (hostlist_compress(names, out) < 0)
                for (size_t i = 0; names[i]; i++) {
                        if (i)
                                strbuf_addch(out, ',');
                        strbuf_addstr(out, names[i]);
                }
}

char *ops_shown(const char *s) {
        struct strbuf sb = STRBUF_INIT;
        size_t n = 0;
        for (const char *p = strempty(s); *p; p++, n++) {
                unsigned char c = (unsigned char) *p;
                if (n == 64) {
                        strbuf_addstr(&sb, "…");
                        break;
                }
                strbuf_addch(&sb, c >= 0x20 && c < 0x7f && c != '"' ? (char) c : '?');
        }
        return strbuf_detach(&sb, NULL);
}

void ops_quoted_list(char *const *names, struct strbuf *out) {
        size_t i;
        for (i = 0; names && names[i] && i < 10; i++)
                strbuf_addf(out, "%s\"%s\"", i ? ", " : "", names[i]);
        if (names && names[i])
                strbuf_addstr(out, ", …");
}

/* --- pure helpers ------------------------------------------------------------------------------- */

void ops_kebab_key(const char *key, struct strbuf *out) {
        size_t start = out->len;
        size_t n = strlen(strempty(key));
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) key[i];
                bool dash = false;
                if (c == '_' || c == '-' || c == ' ' || c == '.') {
                        if (out->len > start && out->buf[out->len - 1] != '-')
                                strbuf_addch(out, '-');
                        continue;
                }
                if (isupper(c) && i > 0) {
                        unsigned char prev = (unsigned char) key[i - 1];
                        unsigned char next = i + 1 < n ? (unsigned char) key[i + 1] : 0;
                        /* a new word after a lowercase letter or a digit ("PidFile", "X11Parameters"),
                         * or the last capital of an acronym before a lowercase word ("TCPTimeout") */
                        dash = islower(prev) || isdigit(prev) || (isupper(prev) && islower(next));
                }
                if (dash && out->len > start && out->buf[out->len - 1] != '-')
                        strbuf_addch(out, '-');
                if (isalnum(c))
                        strbuf_addch(out, (char) tolower(c));
        }
        while (out->len > start && out->buf[out->len - 1] == '-')
                strbuf_setlen(out, out->len - 1);
}

void ops_time_format(time_t t, struct strbuf *out) {
        struct tm tm;
        char buf[32];
        if (!localtime_r(&t, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
                strbuf_addf(out, "%lld", (long long) t);
                return;
        }
        strbuf_addstr(out, buf);
}

/* n digits at *p into *ret; advances *p. */
static bool digits(const char **p, int n, int *ret) {
        int v = 0;
        for (int i = 0; i < n; i++) {
                if (!isdigit((unsigned char) (*p)[i]))
                        return false;
                v = v * 10 + ((*p)[i] - '0');
        }
        *p += n;
        *ret = v;
        return true;
}

int ops_time_parse(const char *s, time_t now, time_t *ret, struct strbuf *err) {
        _cleanup_free_ char *shown = ops_shown(s);
        struct tm tm = { 0 }, check;
        const char *p = strempty(s);
        int year, mon, day, hour = 0, min = 0, sec = 0, off = 0;
        bool zone = false;
        time_t t;

        if (strcaseeq(p, "now")) {
                *ret = 0;
                return 0;
        }
        if (!digits(&p, 4, &year) || *p++ != '-' || !digits(&p, 2, &mon) || *p++ != '-' ||
                !digits(&p, 2, &day))
                goto bad;
        if (*p == 'T' || *p == 't' || *p == ' ') {
                p++;
                if (!digits(&p, 2, &hour) || *p++ != ':' || !digits(&p, 2, &min))
                        goto bad;
                if (*p == ':') {
                        p++;
                        if (!digits(&p, 2, &sec))
                                goto bad;
                }
        }
        if (*p == 'Z' || *p == 'z') {
                zone = true;
                p++;
        } else if (*p == '+' || *p == '-') {
                int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
                if (!digits(&p, 2, &oh))
                        goto bad;
                if (*p == ':')
                        p++;
                if (*p && !digits(&p, 2, &om))
                        goto bad;
                if (oh > 14 || om > 59)
                        goto bad;
                zone = true;
                off = sign * (oh * 3600 + om * 60);
        }
        if (*p || mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 ||
                year < 1970)
                goto bad;
        tm = (struct tm){ .tm_year = year - 1900,
                .tm_mon = mon - 1,
                .tm_mday = day,
                .tm_hour = hour,
                .tm_min = min,
                .tm_sec = sec,
                .tm_isdst = -1 };
        check = tm;
        t = zone ? timegm(&tm) - off : mktime(&tm);
        /* mktime/timegm normalise 31 April into 1 May: a day that does not exist is refused */
        if (t == (time_t) -1 || tm.tm_mday != check.tm_mday || tm.tm_mon != check.tm_mon)
                goto bad;
        if (t < now - 60) {
                strbuf_addf(err, "start: \"%s\" is in the past", shown);
                return -EINVAL;
        }
        if (t > now + (time_t) 10 * 366 * 24 * 3600) {
                strbuf_addf(err, "start: \"%s\" is more than 10 years ahead", shown);
                return -EINVAL;
        }
        *ret = t;
        return 0;
bad:
        strbuf_addf(err,
                "start: \"%s\" is not \"now\" or an ISO-8601 time (YYYY-MM-DDTHH:MM[:SS], optionally Z or "
                "+HH:MM; without a zone the controller's local time)",
                shown);
        return -EINVAL;
}

static bool in_list(const char *list, const char *item) {
        size_t len = strlen(item);
        for (const char *p = strempty(list); *p;) {
                size_t n = strcspn(p, ",");
                if (n == len && strncmp(p, item, n) == 0)
                        return true;
                p += n;
                if (*p == ',')
                        p++;
        }
        return false;
}

bool ops_features_subset(const char *sub, const char *set) {
        for (const char *p = strempty(sub); *p;) {
                size_t n = strcspn(p, ",");
                _cleanup_free_ char *w = xstrndup(p, n);
                if (*w && !in_list(set, w))
                        return false;
                p += n;
                if (*p == ',')
                        p++;
        }
        return true;
}

char *ops_features_keep(const char *features, const char *keep) {
        struct strbuf sb = STRBUF_INIT;
        for (const char *p = strempty(keep); *p;) {
                size_t n = strcspn(p, ",");
                _cleanup_free_ char *w = xstrndup(p, n);
                if (*w && !in_list(features, w))
                        strbuf_addf(&sb, "%s%s", sb.len ? "," : "", w);
                p += n;
                if (*p == ',')
                        p++;
        }
        if (!isempty(features))
                strbuf_addf(&sb, "%s%s", sb.len ? "," : "", features);
        return strbuf_detach(&sb, NULL);
}

char *ops_node_app_features(const struct slurm_node *n, const struct slurm_node_list *table) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; table->nodesets && table->nodesets[i]; i++)
                if (in_list(n->features, table->nodesets[i]))
                        strbuf_addf(&sb, "%s%s", sb.len ? "," : "", table->nodesets[i]);
        return strbuf_detach(&sb, NULL);
}

const struct slurm_node *ops_table_find(const struct slurm_node_list *table, const char *name) {
        for (size_t i = 0; i < table->n; i++)
                if (streq(table->v[i].name, name))
                        return &table->v[i];
        return NULL;
}

static bool is_nodeset(const struct slurm_node_list *table, const char *name) {
        for (size_t i = 0; table->nodesets && table->nodesets[i]; i++)
                if (streq(table->nodesets[i], name))
                        return true;
        return false;
}

int ops_resolve_nodes(char *const *names, const struct slurm_node_list *table, bool allow_application,
        struct strv *ret_nodes, struct strv *ret_missing, struct strbuf *err) {
        _cleanup_strv_ struct strv nodes = STRV_INIT, missing = STRV_INIT;
        for (size_t i = 0; names && names[i]; i++) {
                const char *name = names[i];
                if (strcaseeq(name, "ALL")) {
                        strbuf_addstr(err,
                                "nodes: \"ALL\" names every node: list the nodes, or their applications");
                        return -EINVAL;
                }
                if (ops_table_find(table, name)) {
                        if (!strv_contains(&nodes, name))
                                strv_push(&nodes, name);
                        continue;
                }
                if (is_nodeset(table, name)) {
                        size_t members = 0;
                        for (size_t k = 0; k < table->n; k++)
                                if (in_list(table->v[k].features, name))
                                        members++;
                        if (!allow_application) {
                                strbuf_addf(err,
                                        "nodes: \"%s\" is an application (a NodeSet of %zu node%s that "
                                        "Slurm "
                                        "would all change): name its nodes, or add allow-application=true",
                                        name, members, members == 1 ? "" : "s");
                                return -EINVAL;
                        }
                        for (size_t k = 0; k < table->n; k++)
                                if (in_list(table->v[k].features, name) &&
                                        !strv_contains(&nodes, table->v[k].name))
                                        strv_push(&nodes, table->v[k].name);
                        if (members == 0 && !strv_contains(&missing, name))
                                strv_push(&missing, name); /* an application with no node now */
                        continue;
                }
                if (!strv_contains(&missing, name))
                        strv_push(&missing, name);
        }
        strv_pushv(ret_nodes, nodes.v);
        strv_pushv(ret_missing, missing.v);
        return 0;
}

void ops_node_state_format(const struct slurm_node *n, struct strbuf *out) {
        slurm_state_format(slurm_state_with_cpus(n->state, n->cpus, n->alloc_cpus), out);
}

static char *uid_name(uint32_t uid) {
        struct passwd pw, *res = NULL;
        char buf[1024];
        if (getpwuid_r((uid_t) uid, &pw, buf, sizeof buf, &res) == 0 && res && !isempty(res->pw_name))
                return xstrdup(res->pw_name);
        return xasprintf("%u", uid);
}

static void kv_time(struct strv *kv, time_t t, const char *prefix, const char *field) {
        _cleanup_strbuf_ struct strbuf v = STRBUF_INIT;
        if (t <= 0)
                return;
        ops_time_format(t, &v);
        ops_kv(kv, v.buf, "%s.%s", prefix, field);
}

static void kv_str(struct strv *kv, const char *v, const char *prefix, const char *field) {
        if (!isempty(v))
                ops_kv(kv, v, "%s.%s", prefix, field);
}

static void kv_u64(struct strv *kv, uint64_t v, const char *prefix, const char *field) {
        char buf[24];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long) v);
        ops_kv(kv, buf, "%s.%s", prefix, field);
}

static char *node_prefix(const char *name) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addstr(&sb, "nodes.");
        ops_key_segment(name, &sb);
        return strbuf_detach(&sb, NULL);
}

void ops_node_state_fields(const struct slurm_node *n, bool previous, struct strv *kv) {
        _cleanup_free_ char *prefix = node_prefix(n->name);
        _cleanup_strbuf_ struct strbuf st = STRBUF_INIT;
        ops_node_state_format(n, &st);
        ops_kv(kv, n->name, "%s.name", prefix);
        ops_kv(kv, st.buf, "%s.%s", prefix, previous ? "previous-state" : "state");
        kv_str(kv, n->reason, prefix, previous ? "previous-reason" : "reason");
}

void ops_node_fields(const struct slurm_node *n, struct strv *kv) {
        _cleanup_free_ char *prefix = node_prefix(n->name);
        ops_node_state_fields(n, false, kv);
        if (!isempty(n->reason)) {
                kv_time(kv, n->reason_time, prefix, "reason-time");
                if (n->reason_uid != SLURM_NODE_NO_UID) {
                        _cleanup_free_ char *u = uid_name(n->reason_uid);
                        kv_str(kv, u, prefix, "reason-user");
                }
        }
        kv_u64(kv, n->cpus, prefix, "cpus");
        kv_u64(kv, n->alloc_cpus, prefix, "alloc-cpus");
        kv_u64(kv, n->real_memory, prefix, "memory");
        kv_u64(kv, n->alloc_memory, prefix, "alloc-memory");
        if (n->free_memory != UINT64_MAX)
                kv_u64(kv, n->free_memory, prefix, "free-memory");
        kv_str(kv, n->features, prefix, "features");
        kv_str(kv, n->features_active, prefix, "active-features");
        kv_str(kv, n->gres, prefix, "gres");
        kv_str(kv, n->gres_used, prefix, "gres-used");
        kv_str(kv, n->partitions, prefix, "partitions");
        kv_u64(kv, n->weight, prefix, "weight");
        kv_str(kv, n->comment, prefix, "comment");
        kv_time(kv, n->boot_time, prefix, "boot-time");
        kv_time(kv, n->slurmd_start_time, prefix, "slurmd-start-time");
        kv_str(kv, n->version, prefix, "version");
        kv_str(kv, n->address, prefix, "address");
        kv_str(kv, n->hostname, prefix, "hostname");
}

void ops_job_fields(const struct slurm_jobinfo *j, struct strv *kv) {
        _cleanup_free_ char *prefix = xasprintf("jobs.%u", j->job_id);
        char buf[64];

        kv_str(kv, j->display_id, prefix, "job-id");
        kv_str(kv, j->name, prefix, "name");
        kv_str(kv, j->user, prefix, "user");
        kv_u64(kv, j->user_id, prefix, "uid");
        kv_str(kv, j->account, prefix, "account");
        kv_str(kv, j->partition, prefix, "partition");
        kv_str(kv, j->qos, prefix, "qos");
        kv_str(kv, j->reservation, prefix, "reservation");
        kv_str(kv, slurm_job_state_name(j->state), prefix, "state");
        kv_str(kv, j->state_reason, prefix, "state-reason");
        kv_str(kv, j->nodes, prefix, "nodes");
        kv_str(kv, j->batch_host, prefix, "batch-host");
        kv_u64(kv, j->num_nodes, prefix, "num-nodes");
        kv_u64(kv, j->num_cpus, prefix, "num-cpus");
        kv_u64(kv, j->num_tasks, prefix, "num-tasks");
        if (j->time_limit == UINT32_MAX)
                kv_str(kv, "UNLIMITED", prefix, "time-limit");
        else if (j->time_limit)
                kv_u64(kv, j->time_limit, prefix, "time-limit");
        kv_u64(kv, j->priority, prefix, "priority");
        snprintf(buf, sizeof buf, "%d:%d", WIFEXITED(j->exit_code) ? WEXITSTATUS(j->exit_code) : 0,
                WIFSIGNALED(j->exit_code) ? WTERMSIG(j->exit_code) : 0);
        kv_str(kv, buf, prefix, "exit-code");
        kv_time(kv, j->submit_time, prefix, "submit-time");
        kv_time(kv, j->eligible_time, prefix, "eligible-time");
        kv_time(kv, j->start_time, prefix, "start-time");
        kv_time(kv, j->end_time, prefix, "end-time");
        kv_str(kv, j->work_dir, prefix, "work-dir");
        kv_str(kv, j->command, prefix, "command");
        kv_str(kv, j->std_out, prefix, "std-out");
        kv_str(kv, j->std_err, prefix, "std-err");
        kv_str(kv, j->features, prefix, "features");
        kv_str(kv, j->tres_req, prefix, "tres-req");
        kv_str(kv, j->tres_alloc, prefix, "tres-alloc");
        kv_str(kv, j->comment, prefix, "comment");
        kv_str(kv, j->dependency, prefix, "dependency");
        kv_str(kv, j->batch ? "true" : "false", prefix, "batch");
        kv_str(kv, j->requeue ? "true" : "false", prefix, "requeue");
        kv_u64(kv, j->restart_count, prefix, "restart-count");
        if (j->array_job_id) {
                kv_u64(kv, j->array_job_id, prefix, "array-job-id");
                if (j->array_task_id != UINT32_MAX)
                        kv_u64(kv, j->array_task_id, prefix, "array-task-id");
                kv_str(kv, j->array_tasks, prefix, "array-pending-tasks");
        }
        if (j->het_job_id) {
                kv_u64(kv, j->het_job_id, prefix, "het-job-id");
                kv_u64(kv, j->het_job_offset, prefix, "het-job-offset");
        }
}

void ops_step_key(const struct slurm_step *s, struct strbuf *out) {
        const char *special = slurm_step_special_name(s->step_id);
        if (special)
                ops_key_segment(special, out);
        else
                strbuf_addf(out, "%u", s->step_id);
        if (s->het_comp != UINT32_MAX)
                strbuf_addf(out, "-het-%u", s->het_comp);
}

/* --- parameters ----------------------------------------------------------------------------------- */

/* Refuses keys not in allowed (NULL-terminated). */
int ops_params_known(const cJSON *params, const char *const *allowed, struct strbuf *err) {
        const cJSON *p;
        if (!params)
                return 0;
        if (!cJSON_IsObject(params)) {
                strbuf_addstr(err, "parameters: not an object");
                return -EINVAL;
        }
        cJSON_ArrayForEach(p, params) {
                size_t i;
                for (i = 0; allowed[i]; i++)
                        if (streq(p->string, allowed[i]))
                                break;
                if (!allowed[i]) {
                        _cleanup_free_ char *shown = ops_shown(p->string);
                        strbuf_addf(err, "unknown parameter \"%s\" (known:", shown);
                        for (i = 0; allowed[i]; i++)
                                strbuf_addf(err, " %s", allowed[i]);
                        strbuf_addch(err, ')');
                        return -EINVAL;
                }
        }
        return 0;
}

/* 0 and *ret = NULL when absent, 1 with the string, -EINVAL when not a string. */
int ops_param_string(const cJSON *params, const char *key, const char **ret, struct strbuf *err) {
        const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
        *ret = NULL;
        if (!v || cJSON_IsNull(v))
                return 0;
        if (!cJSON_IsString(v)) {
                strbuf_addf(err, "%s: expected a string", key);
                return -EINVAL;
        }
        *ret = v->valuestring;
        return 1;
}

/* A parameter the schema types [string, integer]: `juju run … jobids=12` sends YAML's integer
 * 12 (cmd/juju/action/run.go parses each value as YAML), so a whole number is taken as its
 * decimal text (in buf). Returns as param_string. */
int ops_param_text(
        const cJSON *params, const char *key, char *buf, size_t len, const char **ret, struct strbuf *err) {
        const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
        if (cJSON_IsNumber(v) && v->valuedouble == (double) (long long) v->valuedouble) {
                snprintf(buf, len, "%lld", (long long) v->valuedouble);
                *ret = buf;
                return 1;
        }
        if (cJSON_IsNumber(v)) {
                strbuf_addf(err, "%s: expected a string or a whole number", key);
                *ret = NULL;
                return -EINVAL;
        }
        return ops_param_string(params, key, ret, err);
}


/* 0 when absent, 1 with *ret in [min, max], -EINVAL otherwise. */
int ops_param_uint(const cJSON *params, const char *key, uint64_t min, uint64_t max, uint64_t *ret,
        struct strbuf *err) {
        const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
        if (!v || cJSON_IsNull(v))
                return 0;
        /* the range first: a cast of a double outside int64_t's range is undefined */
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double) min && v->valuedouble <= (double) max) ||
                v->valuedouble != (double) (uint64_t) v->valuedouble) {
                strbuf_addf(err, "%s: expected a whole number from %llu to %llu", key,
                        (unsigned long long) min, (unsigned long long) max);
                return -EINVAL;
        }
        *ret = (uint64_t) v->valuedouble;
        return 1;
}

static bool printable(const char *s) {
        for (const char *p = s; *p; p++)
                if ((unsigned char) *p < 0x20 || (unsigned char) *p > 0x7e)
                        return false;
        return true;
}

/* A Slurm name: 1..max of letters, digits, '.', '_', '-' (node, reservation, user, partition). */
bool ops_plain_name(const char *s, size_t max) {
        size_t n = strlen(s);
        if (n == 0 || n > max)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && *p != '.' && *p != '_' && *p != '-')
                        return false;
        return true;
}

/* A comma-separated list of plain names into ret (each once). */
static int name_list(const char *key, const char *value, size_t max, struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv items = STRV_INIT;
        for (const char *p = value;;) {
                size_t n = strcspn(p, ",");
                _cleanup_free_ char *w = xstrndup(p, n);
                if (!ops_plain_name(w, max)) {
                        _cleanup_free_ char *shown = ops_shown(w);
                        strbuf_addf(err,
                                "%s: \"%s\" is not a name (1 to %zu letters, digits, '.', '_', '-')", key,
                                shown, max);
                        return -EINVAL;
                }
                if (!strv_contains(&items, w))
                        strv_push(&items, w);
                p += n;
                if (!*p)
                        break;
                p++;
        }
        strv_pushv(ret, items.v);
        return 0;
}

/* The nodes parameter: a hostlist expression of node names. */
static int parse_nodes(const char *key, const char *expr, struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv names = STRV_INIT, uniq = STRV_INIT;
        _cleanup_free_ char *shown = ops_shown(expr);
        int r;
        if (isempty(expr)) {
                strbuf_addf(err, "%s: give a node name or a hostlist expression (\"cpu-[0-3]\")", key);
                return -EINVAL;
        }
        if (!printable(expr) || strchr(expr, ' ')) {
                strbuf_addf(err, "%s: a hostlist expression has no spaces or control characters", key);
                return -EINVAL;
        }
        r = hostlist_expand(expr, OPS_NODES_MAX, &names);
        if (r == -E2BIG) {
                strbuf_addf(err, "%s: \"%s\" names more than %d nodes", key, shown, OPS_NODES_MAX);
                return r;
        }
        if (r < 0) {
                strbuf_addf(err,
                        "%s: \"%s\" is not a hostlist expression (\"cpu-0\", \"cpu-[0-3,7]\", \"a-1,b-2\")",
                        key, shown);
                return -EINVAL;
        }
        for (size_t i = 0; i < names.n; i++) {
                if (!ops_plain_name(names.v[i], 64)) {
                        _cleanup_free_ char *name = ops_shown(names.v[i]);
                        strbuf_addf(err, "%s: \"%s\" is not a node name (letters, digits, '.', '_', '-')",
                                key, name);
                        return -EINVAL;
                }
                if (!strv_contains(&uniq, names.v[i]))
                        strv_push(&uniq, names.v[i]);
        }
        strv_pushv(ret, uniq.v);
        return 0;
}

const char *ops_node_action_name(enum ops_node_action a) {
        static const char *const names[] = {
                [OPS_NODE_GET] = "node-get",
                [OPS_NODE_DRAIN] = "node-drain",
                [OPS_NODE_DOWN] = "node-down",
                [OPS_NODE_RESUME] = "node-resume",
                [OPS_NODE_UPDATE] = "node-update",
                [OPS_NODE_RESERVE] = "node-reserve",
                [OPS_NODE_UNRESERVE] = "node-unreserve",
        };
        return (size_t) a < ELEMENTSOF(names) ? names[a] : "node-?";
}

void ops_node_req_done(struct ops_node_req *q) {
        if (!q)
                return;
        strv_clear(&q->names);
        free(q->reason);
        free(q->features);
        free(q->features_active);
        free(q->gres);
        free(q->comment);
        free(q->resv_name);
        free(q->users);
        *q = (struct ops_node_req){ .names = STRV_INIT };
}

static int parse_update(const cJSON *params, struct ops_node_req *q, struct strbuf *err) {
        static const struct {
                const char *param, *key; /* the action's parameter, the slurm.conf key of its grammar */
        } lists[] = { { "features", "Features" }, { "active-features", "Features" }, { "gres", "Gres" } };
        char **dst[] = { &q->features, &q->features_active, &q->gres };
        const char *v;
        uint64_t w;
        int r, given = 0;

        r = ops_param_uint(params, "weight", 1, UINT32_MAX - 2, &w, err);
        if (r < 0)
                return r;
        if (r > 0) {
                q->has_weight = true;
                q->weight = (uint32_t) w;
                given++;
        }
        for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = ops_param_string(params, lists[i].param, &v, err);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                if (*v && slurmconf_value_check(SLURMCONF_NODE, lists[i].key, v, &e) < 0) {
                        strbuf_addf(err, "%s: %s", lists[i].param, e.buf);
                        return -EINVAL;
                }
                if (strlen(v) > 1024) {
                        strbuf_addf(err, "%s: longer than 1024 characters", lists[i].param);
                        return -EINVAL;
                }
                *dst[i] = xstrdup(v);
                given++;
        }
        r = ops_param_string(params, "comment", &v, err);
        if (r < 0)
                return r;
        if (r > 0) {
                if (strlen(v) > OPS_COMMENT_MAX || !printable(v)) {
                        strbuf_addf(
                                err, "comment: give 0 to %d printable ASCII characters", OPS_COMMENT_MAX);
                        return -EINVAL;
                }
                q->comment = xstrdup(v);
                given++;
        }
        if (!given) {
                strbuf_addstr(err, "give at least one of weight, features, active-features, gres, comment");
                return -EINVAL;
        }
        return 0;
}

static int parse_reservation(const cJSON *params, time_t now, struct ops_node_req *q, struct strbuf *err) {
        const char *v;
        uint64_t d;
        int r = ops_param_string(params, "name", &v, err);
        if (r < 0)
                return r;
        if (r > 0 && !ops_plain_name(v, 64)) {
                _cleanup_free_ char *shown = ops_shown(v);
                strbuf_addf(err,
                        "name: \"%s\" is not a reservation name (1 to 64 letters, digits, '.', '_', '-')",
                        shown);
                return -EINVAL;
        }
        q->resv_name = xstrdup(r > 0 ? v : OPS_RESV_DEFAULT_NAME);
        if (q->action == OPS_NODE_UNRESERVE)
                return 0;

        r = ops_param_string(params, "start", &v, err);
        if (r < 0)
                return r;
        if (r > 0) {
                r = ops_time_parse(v, now, &q->start, err);
                if (r < 0)
                        return r;
                q->has_start = true;
        }
        r = ops_param_uint(params, "duration", 1, OPS_RESV_MAX_MINUTES, &d, err);
        if (r < 0)
                return r;
        q->has_duration = r > 0;
        q->duration_min = r > 0 ? (uint32_t) d : OPS_RESV_DEFAULT_MINUTES;
        r = ops_param_string(params, "users", &v, err);
        if (r < 0)
                return r;
        if (r > 0) {
                _cleanup_strv_ struct strv users = STRV_INIT;
                r = name_list("users", v, 32, &users, err);
                if (r < 0)
                        return r;
                q->users = strv_join(&users, ",");
        }
        r = ops_param_string(params, "flags", &v, err);
        if (r < 0)
                return r;
        q->has_flags = r > 0;
        if (r > 0 && isempty(v)) {
                strbuf_addstr(
                        err, "flags: give at least one flag (the default is " OPS_RESV_DEFAULT_FLAGS ")");
                return -EINVAL;
        }
        r = slurm_resv_flags_parse(r > 0 ? v : OPS_RESV_DEFAULT_FLAGS, &q->flags, err);
        if (r < 0)
                return r;
        return 0;
}

int ops_node_req_parse(enum ops_node_action action, const cJSON *params, time_t now,
        struct ops_node_req *ret, struct strbuf *err) {
        static const char *const k_get[] = { "nodes", NULL };
        static const char *const k_state[] = { "nodes", "reason", "allow-application", NULL };
        static const char *const k_resume[] = { "nodes", "allow-application", NULL };
        static const char *const k_update[] = { "nodes", "allow-application", "weight", "features",
                "active-features", "gres", "comment", NULL };
        static const char *const k_reserve[] = { "nodes", "allow-application", "name", "start", "duration",
                "users", "flags", NULL };
        static const char *const k_unreserve[] = { "nodes", "allow-application", "name", NULL };
        const char *const *known[] = {
                [OPS_NODE_GET] = k_get,
                [OPS_NODE_DRAIN] = k_state,
                [OPS_NODE_DOWN] = k_state,
                [OPS_NODE_RESUME] = k_resume,
                [OPS_NODE_UPDATE] = k_update,
                [OPS_NODE_RESERVE] = k_reserve,
                [OPS_NODE_UNRESERVE] = k_unreserve,
        };
        _cleanup_(ops_node_req_done) struct ops_node_req q = { .action = action, .names = STRV_INIT };
        const char *v;
        int r;

        if ((size_t) action >= ELEMENTSOF(known))
                return -EINVAL;
        r = ops_params_known(params, known[action], err);
        if (r < 0)
                return r;
        r = ops_param_string(params, "nodes", &v, err);
        if (r < 0)
                return r;
        r = parse_nodes("nodes", v, &q.names, err);
        if (r < 0)
                return r;
        r = charm_param_bool(params, "allow-application", &q.allow_application, err);
        if (r < 0)
                return r;
        if (action == OPS_NODE_DRAIN || action == OPS_NODE_DOWN) {
                _cleanup_free_ char *def = xasprintf("%s action", ops_node_action_name(action));
                r = ops_param_string(params, "reason", &v, err);
                if (r < 0)
                        return r;
                r = charm_reason_check("reason", v ? v : def, err);
                if (r < 0)
                        return r;
                q.reason = xstrdup(v ? v : def);
        }
        if (action == OPS_NODE_UPDATE) {
                r = parse_update(params, &q, err);
                if (r < 0)
                        return r;
        }
        if (action == OPS_NODE_RESERVE || action == OPS_NODE_UNRESERVE) {
                r = parse_reservation(params, now, &q, err);
                if (r < 0)
                        return r;
        }
        *ret = q;
        q = (struct ops_node_req){ .names = STRV_INIT };
        return 0;
}

void ops_find_req_done(struct ops_find_req *q) {
        if (!q)
                return;
        strv_clear(&q->users);
        strv_clear(&q->states);
        strv_clear(&q->partitions);
        strv_clear(&q->names);
        strv_clear(&q->accounts);
        strv_clear(&q->nodes);
        strv_clear(&q->batch_hosts);
}

int ops_find_req_parse(const cJSON *params, struct ops_find_req *ret, struct strbuf *err) {
        static const char *const known[] = { "user", "state", "partition", "name", "account", "node",
                "batch-host", NULL };
        _cleanup_(ops_find_req_done) struct ops_find_req q = { STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT,
                STRV_INIT, STRV_INIT, STRV_INIT };
        const char *v;
        int r, given = 0;

        r = ops_params_known(params, known, err);
        if (r < 0)
                return r;
        char num[32];
        if ((r = ops_param_text(params, "user", num, sizeof(num), &v, err)) != 0) {
                if (r < 0 || (r = name_list("user", v, 32, &q.users, err)) < 0)
                        return r;
                given++;
        }
        if ((r = ops_param_string(params, "state", &v, err)) != 0) {
                if (r < 0 || (r = name_list("state", v, 32, &q.states, err)) < 0)
                        return r;
                for (size_t i = 0; i < q.states.n; i++)
                        if (!slurm_job_state_word_valid(q.states.v[i])) {
                                strbuf_addf(err,
                                        "state: \"%s\" is not a job state (PENDING, RUNNING, SUSPENDED, "
                                        "COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, "
                                        "BOOT_FAIL, "
                                        "DEADLINE, OUT_OF_MEMORY, COMPLETING, CONFIGURING, REQUEUED)",
                                        q.states.v[i]);
                                return -EINVAL;
                        }
                given++;
        }
        if ((r = ops_param_string(params, "partition", &v, err)) != 0) {
                if (r < 0 || (r = name_list("partition", v, 64, &q.partitions, err)) < 0)
                        return r;
                given++;
        }
        if ((r = ops_param_string(params, "account", &v, err)) != 0) {
                if (r < 0 || (r = name_list("account", v, 64, &q.accounts, err)) < 0)
                        return r;
                given++;
        }
        if ((r = ops_param_string(params, "batch-host", &v, err)) != 0) {
                if (r < 0 || (r = name_list("batch-host", v, 64, &q.batch_hosts, err)) < 0)
                        return r;
                given++;
        }
        if ((r = ops_param_string(params, "node", &v, err)) != 0) {
                if (r < 0 || (r = parse_nodes("node", v, &q.nodes, err)) < 0)
                        return r;
                given++;
        }
        if ((r = ops_param_string(params, "name", &v, err)) != 0) {
                if (r < 0)
                        return r;
                if (isempty(v) || strlen(v) > 256 || !printable(v)) {
                        strbuf_addstr(err, "name: give a job name of 1 to 256 printable ASCII characters");
                        return -EINVAL;
                }
                strv_push(&q.names, v);
                given++;
        }
        if (!given) {
                strbuf_addstr(err,
                        "give at least one criterion: user, state, partition, name, account, node, "
                        "batch-host");
                return -EINVAL;
        }
        *ret = q;
        q = (struct ops_find_req){ STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT,
                STRV_INIT };
        return 0;
}

int ops_jobids_parse(const cJSON *params, struct slurm_jobid **ret, struct strbuf *err) {
        static const char *const known[] = { "jobids", NULL };
        _cleanup_free_ struct slurm_jobid *ids = NULL;
        size_t n = 0;
        const char *v;
        int r;

        r = ops_params_known(params, known, err);
        if (r < 0)
                return r;
        char num[32];
        r = ops_param_text(params, "jobids", num, sizeof(num), &v, err);
        if (r < 0)
                return r;
        if (r == 0 || isempty(v)) {
                strbuf_addstr(err, "jobids: give job ids (\"12\", \"12,13\", \"14_3\", \"15+1\")");
                return -EINVAL;
        }
        for (const char *p = v; *p;) {
                size_t len;
                struct slurm_jobid id;
                bool dup = false;
                p += strspn(p, ", ");
                if (!*p)
                        break;
                len = strcspn(p, ", ");
                _cleanup_free_ char *w = xstrndup(p, len);
                p += len;
                if (slurm_jobid_parse(w, &id) < 0) {
                        _cleanup_free_ char *shown = ops_shown(w);
                        strbuf_addf(err,
                                "jobids: \"%s\" is not a job id (N, N_TASK for an array task, N+OFFSET for "
                                "a "
                                "heterogeneous job component; N from 1 to %u)",
                                shown, SLURM_JOBID_MAX);
                        return -EINVAL;
                }
                for (size_t i = 0; i < n && !dup; i++)
                        dup = ids[i].id == id.id && ids[i].kind == id.kind && ids[i].sub == id.sub;
                if (dup)
                        continue;
                if (n == OPS_JOBIDS_MAX) {
                        strbuf_addf(err, "jobids: more than %d ids", OPS_JOBIDS_MAX);
                        return -E2BIG;
                }
                ids = xrealloc(ids, (n + 1) * sizeof(*ids));
                ids[n++] = id;
        }
        if (n == 0) {
                strbuf_addstr(err, "jobids: give job ids (\"12\", \"12,13\", \"14_3\", \"15+1\")");
                return -EINVAL;
        }
        *ret = TAKE_PTR(ids);
        return (int) n;
}

int ops_config_item_parse(const cJSON *params, const char **ret, struct strbuf *err) {
        static const char *const known[] = { "item", NULL };
        const char *v;
        int r = ops_params_known(params, known, err);
        if (r < 0)
                return r;
        r = ops_param_string(params, "item", &v, err);
        if (r < 0)
                return r;
        if (r > 0) {
                size_t n = strlen(v);
                bool ok = n > 0 && n <= 64;
                for (size_t i = 0; ok && i < n; i++)
                        ok = isalnum((unsigned char) v[i]) || v[i] == '_' || v[i] == '-';
                if (!ok) {
                        _cleanup_free_ char *shown = ops_shown(v);
                        strbuf_addf(err,
                                "item: \"%s\" is not a configuration key (letters, digits, '_', '-')",
                                shown);
                        return -EINVAL;
                }
        }
        *ret = v;
        return 0;
}

/* --- shared node preparation -------------------------------------------------------------------- */

void ops_nodes_done(struct ops_nodes *n) {
        if (!n)
                return;
        slurm_node_list_done(&n->table);
        strv_clear(&n->nodes);
        strv_clear(&n->missing);
}

int ops_nodes_prepare(struct juju_ctx *ctx, enum ops_node_action action, bool changes,
        struct ops_node_req *req, struct ops_nodes *ret, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const cJSON *params;
        int r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = ops_node_req_parse(action, params, time(NULL), req, err);
        if (r < 0)
                return r;
        r = ops_ctl_check(changes, err);
        if (r < 0)
                return r;
        if (changes) {
                /* the log up to date first, so that what happened before this action comes
                 * before its records (best effort: the watcher catches up otherwise) */
                const struct charm_paths paths = { 0 };
                nodeevents_catch_up(&paths, ops_node_action_name(action));
        }
        *ret = (struct ops_nodes){ .nodes = STRV_INIT, .missing = STRV_INIT };
        r = slurm_node_list(NULL, &ret->table, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, changes, err);
        r = ops_resolve_nodes(req->names.v, &ret->table, action == OPS_NODE_GET || req->allow_application,
                &ret->nodes, &ret->missing, err);
        if (r < 0)
                return r;
        if (changes && ret->missing.n) {
                strbuf_addf(err, "unknown node%s ", ret->missing.n == 1 ? "" : "s");
                ops_quoted_list(ret->missing.v, err);
                strbuf_addstr(err, ": nothing changed");
                return -ENOENT;
        }
        if (changes && ret->nodes.n == 0) {
                strbuf_addstr(err, "no node to change: nothing changed");
                return -ENOENT;
        }
        return 0;
}

/* --- slurm-config, node-get ----------------------------------------------------------------------- */

static int slurm_config(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_strv_ struct strv pairs = STRV_INIT, kv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const cJSON *params;
        const char *item = NULL;
        int r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = ops_config_item_parse(params, &item, err);
        if (r < 0)
                return r;
        r = ops_ctl_check(false, err);
        if (r < 0)
                return r;
        r = slurm_ctl_conf_values(&pairs, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, false, err);
        for (size_t i = 0; i + 1 < pairs.n; i += 2) {
                _cleanup_strbuf_ struct strbuf key = STRBUF_INIT;
                if (item && !slurm_conf_key_match(pairs.v[i], item))
                        continue;
                strbuf_addstr(&key, "config.");
                ops_kebab_key(pairs.v[i], &key);
                strv_push(&kv, key.buf);
                strv_push(&kv, pairs.v[i + 1]);
                if (item) {
                        ops_kv(&kv, pairs.v[i], "item");
                        break;
                }
        }
        if (item && kv.n == 0) {
                strbuf_addf(err, "unknown item \"%s\" (run slurm-config without item for every key)", item);
                return -ENOENT;
        }
        if (!item) {
                char n[16];
                snprintf(n, sizeof n, "%zu", kv.n / 2);
                ops_kv(&kv, n, "count");
        }
        return ops_result_set(ctx, &kv, err);
}

int ops_slurm_config(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "slurm-config", slurm_config, err);
}

static int node_get(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(ops_node_req_done) struct ops_node_req req = { .names = STRV_INIT };
        _cleanup_(ops_nodes_done) struct ops_nodes nodes = { .nodes = STRV_INIT, .missing = STRV_INIT };
        _cleanup_strv_ struct strv kv = STRV_INIT;
        char n[16];
        int r = ops_nodes_prepare(ctx, OPS_NODE_GET, false, &req, &nodes, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < nodes.nodes.n; i++)
                ops_node_fields(ops_table_find(&nodes.table, nodes.nodes.v[i]), &kv);
        snprintf(n, sizeof n, "%zu", nodes.nodes.n);
        ops_kv(&kv, n, "count");
        if (nodes.missing.n) {
                _cleanup_free_ char *m = strv_join(&nodes.missing, ",");
                ops_kv(&kv, m, "missing");
        }
        return ops_result_set(ctx, &kv, err);
}

int ops_node_get(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-get", node_get, err);
}
