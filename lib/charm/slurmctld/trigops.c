/* SPDX-License-Identifier: Apache-2.0 */
/* The trigger actions: trigger-set, trigger-list, trigger-unset (trigops.h). */
#include "util/macro.h"
#include "charm/slurmctld/trigops.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "charm/common/charm.h"
#include "charm/slurmctld/eventspool.h"
#include "charm/slurmctld/ops-internal.h"
#include "proc/proc.h"
#include "slurm/jobquery.h"
#include "slurmconf/pathkeys.h"
#include "util/alloc.h"

#include "util/banned.h"

/* the child that became SlurmUser sets the one trigger (one RPC) */
#define TRIGOPS_SET_TIMEOUT_MS (30 * 1000)

/* --- trigger-set's parameters ----------------------------------------------------------------- */

static const struct {
        const char *name;
        unsigned res_type;
        uint32_t event;
} events[] = {
        { "up", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_UP },
        { "down", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_DOWN },
        { "drained", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_DRAINED },
        { "reconfig", SLURM_TRIGGER_RES_NODE, SLURM_NODE_EVENT_RECONFIG },
        { "fini", SLURM_TRIGGER_RES_JOB, SLURM_JOB_EVENT_FINI },
        { "time", SLURM_TRIGGER_RES_JOB, SLURM_JOB_EVENT_TIME },
        { "primary_slurmctld_failure", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_PRI_FAIL },
        { "primary_slurmctld_resumed_operation", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_PRI_RES_OP },
        { "primary_slurmctld_resumed_control", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_PRI_RES_CTRL },
        { "backup_slurmctld_failure", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_BU_FAIL },
        { "backup_slurmctld_resumed_operation", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_BU_RES_OP },
        { "backup_slurmctld_assumed_control", SLURM_TRIGGER_RES_SLURMCTLD, SLURM_CTLD_EVENT_BU_AS_CTRL },
};

void trigops_set_req_done(struct trigops_set_req *q) {
        if (!q)
                return;
        free(q->event_name);
        free(q->program);
        free(q->path);
        free(q->resource);
        *q = (struct trigops_set_req){ 0 };
}

static int parse_event(const char *v, struct trigops_set_req *q, struct strbuf *err) {
        if (streq(v, "fail")) {
                strbuf_addstr(err, "event: \"fail\" never fires (nothing in slurmctld raises it; a node set to "
                                   "FAIL fires \"drained\"): use drained");
                return -EINVAL;
        }
        if (streq(v, "idle")) {
                strbuf_addstr(err, "event: \"idle\" on every node (the only node set taken here) fires at each "
                                   "15 s trigger pass whether or not a node is idle (slurmctld's "
                                   "_trigger_node_event without a node list): a permanent one runs for ever");
                return -EINVAL;
        }
        if (streq(v, "burst_buffer")) {
                strbuf_addstr(err, "event: \"burst_buffer\": this cluster has no burst buffer plugin");
                return -EINVAL;
        }
        for (size_t i = 0; i < ELEMENTSOF(events); i++)
                if (streq(v, events[i].name)) {
                        q->res_type = events[i].res_type;
                        q->event = events[i].event;
                        q->event_name = xstrdup(v);
                        return 0;
                }
        _cleanup_free_ char *shown = ops_shown(v);
        strbuf_addf(err, "event: unknown event \"%s\" (known:", shown);
        for (size_t i = 0; i < ELEMENTSOF(events); i++)
                strbuf_addf(err, " %s", events[i].name);
        strbuf_addch(err, ')');
        return -EINVAL;
}

static bool arg_char(char c) {
        return isalnum((unsigned char) c) || strchr("._,:=@%+/-", c);
}

/* "PATH[ ARG …]": single spaces, the path by the PROGRAM rule, the words plain. */
static int parse_program(const char *v, struct trigops_set_req *q, struct strbuf *err) {
        size_t len = strlen(v), n_args = 0;
        if (len == 0 || len > TRIGOPS_PROGRAM_MAX) {
                strbuf_addf(err, "program: give an absolute path (and arguments), at most %d characters",
                        TRIGOPS_PROGRAM_MAX);
                return -EINVAL;
        }
        if (v[0] == ' ' || v[len - 1] == ' ' || strstr(v, "  ")) {
                strbuf_addstr(err, "program: words are separated by single spaces (slurmctld splits the string "
                                   "at each space), none at either end");
                return -EINVAL;
        }
        size_t plen = strcspn(v, " ");
        _cleanup_free_ char *path = xstrndup(v, plen);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurmconf_path_check(SLURMCONF_PATH_PROGRAM, path, &e) < 0) {
                strbuf_addf(err, "program: %s", e.buf);
                return -EINVAL;
        }
        for (const char *p = v + plen; *p;) {
                p++; /* the space */
                size_t wlen = strcspn(p, " ");
                for (size_t i = 0; i < wlen; i++)
                        if (!arg_char(p[i])) {
                                _cleanup_free_ char *w = xstrndup(p, wlen);
                                _cleanup_free_ char *shown = ops_shown(w);
                                strbuf_addf(err,
                                        "program: argument \"%s\" holds a character other than letters, digits "
                                        "and . _ , : = @ %% + / - (slurmctld passes words as they are, no "
                                        "quoting)",
                                        shown);
                                return -EINVAL;
                        }
                if (++n_args > TRIGOPS_ARGS_MAX) {
                        strbuf_addf(err, "program: more than %d arguments", TRIGOPS_ARGS_MAX);
                        return -E2BIG;
                }
                p += wlen;
        }
        q->program = xstrdup(v);
        q->path = TAKE_PTR(path);
        return 0;
}

/* 0 when absent (*ret untouched), 1 with *ret in [min, max], -EINVAL otherwise. */
static int param_int(const cJSON *params, const char *key, int min, int max, int *ret, struct strbuf *err) {
        const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
        if (!v || cJSON_IsNull(v))
                return 0;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double) min && v->valuedouble <= (double) max) ||
                v->valuedouble != (double) (int) v->valuedouble) {
                strbuf_addf(err, "%s: expected a whole number from %d to %d", key, min, max);
                return -EINVAL;
        }
        *ret = (int) v->valuedouble;
        return 1;
}

static bool all_digits(const char *s) {
        if (isempty(s))
                return false;
        for (const char *p = s; *p; p++)
                if (!isdigit((unsigned char) *p))
                        return false;
        return true;
}

int trigops_set_parse(const cJSON *params, struct trigops_set_req *ret, struct strbuf *err) {
        static const char *const known[] = { "event", "program", "nodes", "job-id", "offset", "permanent", NULL };
        _cleanup_(trigops_set_req_done) struct trigops_set_req q = { 0 };
        const char *v;
        char num[32];
        int r;

        r = ops_params_known(params, known, err);
        if (r < 0)
                return r;
        r = ops_param_string(params, "event", &v, err);
        if (r < 0)
                return r;
        if (r == 0 || isempty(v)) {
                strbuf_addstr(err, "event: give the event (down, drained, up, idle, reconfig, fini, time, or a "
                                   "controller event such as backup_slurmctld_assumed_control)");
                return -EINVAL;
        }
        r = parse_event(v, &q, err);
        if (r < 0)
                return r;
        r = ops_param_string(params, "program", &v, err);
        if (r < 0)
                return r;
        if (r == 0) {
                strbuf_addstr(err, "program: give the program to run (an absolute path in " SLURMCONF_SITE_SCRIPTS_DIR
                                   ", /usr/bin or /usr/sbin)");
                return -EINVAL;
        }
        r = parse_program(v, &q, err);
        if (r < 0)
                return r;

        r = ops_param_string(params, "nodes", &v, err);
        if (r < 0)
                return r;
        if (r > 0 && q.res_type != SLURM_TRIGGER_RES_NODE) {
                strbuf_addf(err, "nodes: only for a node event, not %s", q.event_name);
                return -EINVAL;
        }
        if (r > 0 && !streq(v, "*")) {
                _cleanup_free_ char *shown = ops_shown(v);
                strbuf_addf(err,
                        "nodes: \"%s\": only \"*\" (every node): slurmctld keeps the names it is given, and "
                        "once a named node is gone (a departed unit deletes its node) slurmctld can no "
                        "longer start (\"Incomplete trigger data checkpoint file\"); the program gets the "
                        "node names as its last argument",
                        shown);
                return -EINVAL;
        }
        if (q.res_type == SLURM_TRIGGER_RES_NODE)
                q.resource = xstrdup("*");

        r = ops_param_text(params, "job-id", num, sizeof num, &v, err);
        if (r < 0)
                return r;
        if (r > 0 && q.res_type != SLURM_TRIGGER_RES_JOB) {
                strbuf_addf(err, "job-id: only for a job event (fini, time), not %s", q.event_name);
                return -EINVAL;
        }
        if (q.res_type == SLURM_TRIGGER_RES_JOB) {
                struct slurm_jobid id = { 0 };
                if (r == 0 || slurm_jobid_parse(v, &id) < 0 || id.kind != SLURM_JOBID_PLAIN) {
                        _cleanup_free_ char *shown = r > 0 ? ops_shown(v) : NULL;
                        strbuf_addf(err, "job-id: %s%s%sgive the job's id (1 to %u, a plain job id: no array task or het component)",
                                shown ? "\"" : "", shown ? shown : "", shown ? "\": " : "", SLURM_JOBID_MAX);
                        return -EINVAL;
                }
                q.resource = xasprintf("%u", id.id);
        }

        r = param_int(params, "offset", -SLURM_TRIGGER_OFFSET_MAX, SLURM_TRIGGER_OFFSET_MAX, &q.offset, err);
        if (r < 0)
                return r;
        if (q.offset > 0 && q.event == SLURM_JOB_EVENT_FINI) {
                strbuf_addf(err,
                        "offset: %d: fini waits for the end plus the offset, and once slurmctld purged the "
                        "ended job (MinJobAge) a trigger still waiting makes it fail to start "
                        "(\"Incomplete trigger data checkpoint file\"): use 0",
                        q.offset);
                return -EINVAL;
        }
        if (q.offset < 0 && q.event != SLURM_JOB_EVENT_TIME) {
                strbuf_addf(err,
                        "offset: %d: a negative offset is only for time (before the job's time limit); %s "
                        "fires at the event plus the offset",
                        q.offset, q.event_name);
                return -EINVAL;
        }
        r = charm_param_bool(params, "permanent", &q.permanent, err);
        if (r < 0)
                return r;
        if (q.permanent && q.res_type == SLURM_TRIGGER_RES_JOB) {
                strbuf_addf(err, "permanent: not for a job event (%s happens once per job)", q.event_name);
                return -EINVAL;
        }
        *ret = q;
        q = (struct trigops_set_req){ 0 };
        return 0;
}

int trigops_program_check(const char *root, const char *path, uid_t uid, gid_t gid, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct stat st;
        int r = slurmconf_path_check_fs(SLURMCONF_PATH_PROGRAM, root, path, 0, 0, &e);
        if (r < 0) {
                strbuf_addf(err, "program: %s", e.buf);
                return r;
        }
        _cleanup_free_ char *full = xasprintf("%s%s", strempty(root), path);
        if (stat(full, &st) < 0) {
                strbuf_addf(err, "program: \"%s\": %s", path, strerror(errno));
                return -errno;
        }
        bool x = st.st_uid == uid   ? (st.st_mode & S_IXUSR)
                : st.st_gid == gid ? (st.st_mode & S_IXGRP)
                                   : (st.st_mode & S_IXOTH);
        if (!x) {
                strbuf_addf(err, "program: \"%s\" is not executable by SlurmUser (uid %u; mode %04o, owner %u:%u): "
                                 "the trigger runs it as SlurmUser",
                        path, (unsigned) uid, (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid,
                        (unsigned) st.st_gid);
                return -EACCES;
        }
        return 0;
}

/* --- trigger-unset's parameters ------------------------------------------------------------------ */

void trigops_unset_req_done(struct trigops_unset_req *q) {
        if (!q)
                return;
        free(q->ids);
        free(q->user);
        *q = (struct trigops_unset_req){ 0 };
}

int trigops_unset_parse(const cJSON *params, struct trigops_unset_req *ret, struct strbuf *err) {
        static const char *const known[] = { "ids", "user", NULL };
        _cleanup_(trigops_unset_req_done) struct trigops_unset_req q = { 0 };
        const char *ids, *user;
        char num[32];
        int r;

        r = ops_params_known(params, known, err);
        if (r < 0)
                return r;
        r = ops_param_text(params, "ids", num, sizeof num, &ids, err);
        if (r < 0)
                return r;
        r = ops_param_string(params, "user", &user, err);
        if (r < 0)
                return r;
        if (!ids == !user) {
                strbuf_addstr(err, "give either ids (\"3\", \"3,4\") or user (every trigger of that user)");
                return -EINVAL;
        }
        if (user) {
                if (!ops_plain_name(user, 64)) {
                        _cleanup_free_ char *shown = ops_shown(user);
                        strbuf_addf(err, "user: \"%s\" is not a user name", shown);
                        return -EINVAL;
                }
                q.user = xstrdup(user);
        } else {
                for (const char *p = ids;;) {
                        p += strspn(p, ", ");
                        if (!*p)
                                break;
                        size_t len = strcspn(p, ", ");
                        _cleanup_free_ char *w = xstrndup(p, len);
                        p += len;
                        unsigned long long id = all_digits(w) && len <= 10 ? strtoull(w, NULL, 10) : 0;
                        if (id < 1 || id > UINT32_MAX) {
                                _cleanup_free_ char *shown = ops_shown(w);
                                strbuf_addf(err, "ids: \"%s\" is not a trigger id (see trigger-list)", shown);
                                return -EINVAL;
                        }
                        bool dup = false;
                        for (size_t i = 0; i < q.n_ids && !dup; i++)
                                dup = q.ids[i] == id;
                        if (dup)
                                continue;
                        if (q.n_ids == TRIGOPS_IDS_MAX) {
                                strbuf_addf(err, "ids: more than %d ids", TRIGOPS_IDS_MAX);
                                return -E2BIG;
                        }
                        q.ids = xrealloc(q.ids, (q.n_ids + 1) * sizeof(*q.ids));
                        q.ids[q.n_ids++] = (uint32_t) id;
                }
                if (q.n_ids == 0) {
                        strbuf_addstr(err, "ids: give trigger ids (\"3\", \"3,4\")");
                        return -EINVAL;
                }
        }
        *ret = q;
        q = (struct trigops_unset_req){ 0 };
        return 0;
}

bool trigops_is_charm(const struct slurm_trigger *t) {
        static const char home[] = EVSPOOL_HOME "/";
        return t->program && strncmp(t->program, home, sizeof home - 1) == 0;
}

static const struct slurm_trigger *find_id(const struct slurm_trigger_list *have, uint32_t id) {
        for (size_t i = 0; i < have->n; i++)
                if (have->v[i].id == id)
                        return &have->v[i];
        return NULL;
}

int trigops_unset_plan(const struct slurm_trigger_list *have, const struct trigops_unset_req *q, uid_t user_uid,
        struct strv *ret_clear, struct strv *ret_kept, struct strbuf *err) {
        _cleanup_strv_ struct strv clear = STRV_INIT, kept = STRV_INIT;
        if (q->user) {
                for (size_t i = 0; i < have->n; i++) {
                        if (have->v[i].user_id != (uint32_t) user_uid)
                                continue;
                        _cleanup_free_ char *id = xasprintf("%u", have->v[i].id);
                        strv_push(trigops_is_charm(&have->v[i]) ? &kept : &clear, id);
                }
        } else {
                for (size_t i = 0; i < q->n_ids; i++) {
                        const struct slurm_trigger *t = find_id(have, q->ids[i]);
                        if (!t) {
                                strbuf_addf(err, "trigger %u does not exist (see trigger-list): nothing changed",
                                        q->ids[i]);
                                return -ENOENT;
                        }
                        if (trigops_is_charm(t)) {
                                strbuf_addf(err,
                                        "trigger %u is the charm's own (it feeds the node event log): nothing "
                                        "changed",
                                        q->ids[i]);
                                return -EPERM;
                        }
                        _cleanup_free_ char *id = xasprintf("%u", q->ids[i]);
                        strv_push(&clear, id);
                }
        }
        for (size_t i = 0; i < clear.n; i++)
                strv_push(ret_clear, clear.v[i]);
        for (size_t i = 0; i < kept.n; i++)
                strv_push(ret_kept, kept.v[i]);
        return 0;
}

int trigops_programs_note(const struct slurm_trigger_list *have, const char *root, uid_t uid, gid_t gid,
        struct strbuf *note) {
        int failed = 0;
        for (size_t i = 0; i < have->n; i++) {
                const struct slurm_trigger *t = &have->v[i];
                if (trigops_is_charm(t) || isempty(t->program))
                        continue;
                _cleanup_free_ char *path = xstrndup(t->program, strcspn(t->program, " "));
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (trigops_program_check(root, path, uid, gid, &e) >= 0)
                        continue;
                if (failed++ == 0)
                        strbuf_addf(note, "trigger %u: %s (it runs on the controller in charge: install it on every "
                                          "controller machine, or trigger-unset it)",
                                t->id, e.buf);
        }
        if (failed > 1)
                strbuf_addf(note, " +%d more", failed - 1);
        return failed;
}

void trigops_status_note(const struct charm_paths *paths, struct strbuf *message) {
        _cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
        struct slurm_trigger_list have = { 0 };
        uid_t uid;
        gid_t gid;
        if (charm_lookup_user(paths->slurm_user, "slurm", &uid, &gid, NULL) < 0 ||
                slurm_trigger_list(&have, NULL) < 0)
                return;
        if (trigops_programs_note(&have, paths->root, uid, gid, &note) > 0)
                strbuf_addf(message, "; %s", note.buf);
        slurm_trigger_list_done(&have);
}

void trigops_fields(const struct slurm_trigger *t, const char *prefix, struct strv *kv) {
        _cleanup_strbuf_ struct strbuf ev = STRBUF_INIT;
        slurm_trigger_events_format(t->events, &ev);
        ops_kv(kv, ev.buf, "%sevent", prefix);
        ops_kv(kv, slurm_trigger_res_name(t->res_type), "%sresource-type", prefix);
        ops_kv(kv, strempty(t->resource), "%sresource", prefix);
        _cleanup_free_ char *off = xasprintf("%d", t->offset);
        ops_kv(kv, off, "%soffset", prefix);
        ops_kv(kv, strempty(t->program), "%sprogram", prefix);
        struct passwd *pw = getpwuid((uid_t) t->user_id);
        _cleanup_free_ char *user = pw ? xstrdup(pw->pw_name) : xasprintf("%u", t->user_id);
        ops_kv(kv, user, "%suser", prefix);
        ops_kv(kv, t->permanent ? "true" : "false", "%spermanent", prefix);
        ops_kv(kv, trigops_is_charm(t) ? "charm" : "site", "%sowner", prefix);
}

/* --- the actions ------------------------------------------------------------------------------------ */

/* In the child that became SlurmUser. */
static int set_as_slurm(void *userdata, struct strbuf *out) {
        const struct trigops_set_req *q = userdata;
        struct slurm_trigger_req t = {
                .res_type = q->res_type,
                .resource = q->resource,
                .event = q->event,
                .offset = q->offset,
                .program = q->program,
                .permanent = q->permanent,
        };
        return slurm_trigger_set(&t, out);
}

size_t trigops_site_count(const struct slurm_trigger_list *have) {
        size_t n = 0;
        for (size_t i = 0; i < have->n; i++)
                n += !trigops_is_charm(&have->v[i]);
        return n;
}

/* A job trigger's job: known, not finished (slurmctld says so too), not part of an array: the
 * array's id names one record, which becomes its last task to start, so a trigger on it watches
 * that task only (job_array_post_sched). */
static int job_check(const char *id, struct strbuf *err) {
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 };
        _cleanup_strv_ struct strv missing = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct slurm_jobid jid = { .id = (uint32_t) strtoul(id, NULL, 10) };
        int r = slurm_jobs_get(&jid, 1, &jobs, &missing, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, true, err);
        if (jobs.n == 0) {
                strbuf_addf(err, "job-id: job %s is not known to slurmctld (ended and purged, or never was): "
                                 "nothing changed",
                        id);
                return -ENOENT;
        }
        for (size_t i = 0; i < jobs.n; i++)
                if (jobs.v[i].array_job_id) {
                        strbuf_addf(err,
                                "job-id: job %s is an array (%s): a trigger on an array watches one of its "
                                "records only (the array's own becomes its last task to start), not the "
                                "array: nothing changed",
                                id, jobs.v[i].display_id);
                        return -EINVAL;
                }
        return 0;
}

/* The newest trigger of uid that is q's. */
static const struct slurm_trigger *find_set(const struct slurm_trigger_list *have, const struct trigops_set_req *q,
        uid_t uid) {
        const struct slurm_trigger *best = NULL;
        for (size_t i = 0; i < have->n; i++) {
                const struct slurm_trigger *t = &have->v[i];
                if (t->user_id == (uint32_t) uid && t->res_type == q->res_type && t->events == q->event &&
                        streq_ptr(t->program, q->program) && streq_ptr(t->resource, q->resource) &&
                        t->permanent == q->permanent && t->offset == q->offset && (!best || t->id > best->id))
                        best = t;
        }
        return best;
}

static int do_set(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(trigops_set_req_done) struct trigops_set_req q = { 0 };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        struct slurm_trigger_list have = { 0 };
        const cJSON *params;
        char host[HOST_NAME_MAX + 1] = "";
        uid_t uid;
        gid_t gid;

        int r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = trigops_set_parse(params, &q, err);
        if (r < 0)
                return r;
        r = charm_lookup_user(NULL, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        r = trigops_program_check(NULL, q.path, uid, gid, err);
        if (r < 0)
                return r;
        r = ops_ctl_check(true, err);
        if (r < 0)
                return r;
        r = slurm_trigger_list(&have, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, true, err);
        /* the site's triggers are capped: Slurm's only bound is MaxJobCount for all of them, and
         * a full list would keep the charm from putting its own back (the event log goes blind) */
        const struct slurm_trigger *dup = find_set(&have, &q, uid);
        if (!dup && trigops_site_count(&have) >= TRIGOPS_SITE_MAX) {
                strbuf_addf(err,
                        "%zu site triggers already (at most %d, so that the charm's own always fit): "
                        "trigger-unset some first; nothing changed",
                        trigops_site_count(&have), TRIGOPS_SITE_MAX);
                return -ENOSPC;
        }
        slurm_trigger_list_done(&have);
        if (q.res_type == SLURM_TRIGGER_RES_JOB) {
                r = job_check(q.resource, err);
                if (r < 0)
                        return r;
        }
        /* slurmctld takes a trigger from SlurmUser only (trigger_set: "Attempt to set trigger by
         * uid … != SlurmUser"), and runs the program as the uid that set it */
        r = proc_call_as(uid, gid, TRIGOPS_SET_TIMEOUT_MS, set_as_slurm, &q, &out);
        bool existed = r == -EEXIST;
        bool unsure = r == -ETIME || r == -ECHILD; /* the child's RPC may have been taken */
        if (r < 0 && !existed && !unsure) {
                if (r == -EAGAIN)
                        strbuf_addf(err, "%s (slurmctld holds MaxJobCount triggers): nothing changed",
                                out.len ? out.buf : strerror(-r));
                else
                        strbuf_addf(err, "%s: nothing changed", out.len ? out.buf : strerror(-r));
                return r;
        }
        strbuf_reset(&e);
        r = slurm_trigger_list(&have, &e);
        if (r < 0) {
                strbuf_addf(err, "trigger %s, but the list cannot be read: %s", unsure ? "may be set" : "set", e.buf);
                return r;
        }
        const struct slurm_trigger *t = find_set(&have, &q, uid);
        if (t) {
                _cleanup_free_ char *id = xasprintf("%u", t->id);
                ops_kv(&kv, id, "id");
                trigops_fields(t, "trigger.", &kv);
        } else if (unsure) {
                slurm_trigger_list_done(&have);
                strbuf_addf(err, "setting the trigger did not answer in time (%s) and slurmctld lists no such "
                                 "trigger: nothing changed",
                        strerror(ETIME));
                return -ETIME;
        } else {
                /* a trigger that fired at once: slurmctld lists a fired trigger no more, though it
                 * keeps it until its program ran (trigger_get) */
                ops_kv(&kv, "trigger set, and already fired", "note");
        }
        if (q.res_type == SLURM_TRIGGER_RES_SLURMCTLD && q.event != SLURM_CTLD_EVENT_PRI_RES_OP &&
                q.event != SLURM_CTLD_EVENT_PRI_RES_CTRL)
                ops_kv(&kv,
                        "a backup controller's event, or the primary's failure as a backup sees it: with one "
                        "controller unit it never fires",
                        "note");
        (void) gethostname(host, sizeof host);
        ops_kv(&kv, host, "checked-on");
        ops_kv(&kv,
                "the trigger runs on the controller in charge when it fires: the program must be on every "
                "controller machine (checked here only)",
                "warning");
        if (existed)
                ops_kv(&kv, "true", "existing");
        slurm_trigger_list_done(&have);
        return ops_result_set(ctx, &kv, err);
}

int trigops_set(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "trigger-set", do_set, err);
}

static int do_list(struct juju_ctx *ctx, struct strbuf *err) {
        static const char *const known[] = { NULL };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        struct slurm_trigger_list have = { 0 };
        const cJSON *params;
        int r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = ops_params_known(params, known, err);
        if (r < 0)
                return r;
        r = ops_ctl_check(false, err);
        if (r < 0)
                return r;
        r = slurm_trigger_list(&have, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, false, err);
        for (size_t i = 0; i < have.n; i++) {
                _cleanup_free_ char *prefix = xasprintf("triggers.%u.", have.v[i].id);
                trigops_fields(&have.v[i], prefix, &kv);
        }
        _cleanup_free_ char *count = xasprintf("%zu", have.n);
        ops_kv(&kv, count, "count");
        slurm_trigger_list_done(&have);
        return ops_result_set(ctx, &kv, err);
}

int trigops_list(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "trigger-list", do_list, err);
}

static void join(const struct strv *l, struct strbuf *out) {
        for (size_t i = 0; i < l->n; i++)
                strbuf_addf(out, "%s%s", i ? "," : "", l->v[i]);
}

static int do_unset(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(trigops_unset_req_done) struct trigops_unset_req q = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, removed_s = STRBUF_INIT, kept_s = STRBUF_INIT,
                                       gone_s = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT, clear = STRV_INIT, kept = STRV_INIT, removed = STRV_INIT,
                                   gone = STRV_INIT;
        struct slurm_trigger_list have = { 0 };
        const cJSON *params;
        uid_t user_uid = 0;
        int r = juju_action_params(ctx, &params, err);
        if (r < 0)
                return r;
        r = trigops_unset_parse(params, &q, err);
        if (r < 0)
                return r;
        if (q.user) {
                struct passwd *pw = getpwnam(q.user);
                if (!pw) {
                        strbuf_addf(err, "user: no user \"%s\" on this machine: nothing changed", q.user);
                        return -ENOENT;
                }
                user_uid = pw->pw_uid;
        }
        r = ops_ctl_check(true, err);
        if (r < 0)
                return r;
        r = slurm_trigger_list(&have, &e);
        if (r < 0)
                return ops_slurm_failed(r, &e, true, err);
        r = trigops_unset_plan(&have, &q, user_uid, &clear, &kept, err);
        slurm_trigger_list_done(&have);
        if (r < 0)
                return r;
        for (size_t i = 0; i < clear.n; i++) {
                strbuf_reset(&e);
                r = slurm_trigger_clear((uint32_t) strtoul(clear.v[i], NULL, 10), &e);
                if (r == -ESRCH) { /* fired and purged since the list */
                        strv_push(&gone, clear.v[i]);
                        continue;
                }
                if (r < 0) {
                        join(&removed, &removed_s);
                        strbuf_addf(err, "trigger %s: %s (removed before it: %s)", clear.v[i], e.buf,
                                removed.n ? removed_s.buf : "none");
                        return r;
                }
                strv_push(&removed, clear.v[i]);
        }
        join(&removed, &removed_s);
        join(&kept, &kept_s);
        join(&gone, &gone_s);
        _cleanup_free_ char *count = xasprintf("%zu", removed.n);
        ops_kv(&kv, count, "removed-count");
        if (removed.n)
                ops_kv(&kv, removed_s.buf, "removed");
        if (kept.n)
                ops_kv(&kv, kept_s.buf, "kept");
        if (gone.n)
                ops_kv(&kv, gone_s.buf, "already-gone");
        return ops_result_set(ctx, &kv, err);
}

int trigops_unset(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "trigger-unset", do_unset, err);
}
