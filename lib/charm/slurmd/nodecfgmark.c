/* SPDX-License-Identifier: Apache-2.0 */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmd/nodecfgmark.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"
#include "slurm/nodestate.h"

#include "util/banned.h"

void nodecfg_mark_done(struct nodecfg_mark *m) {
        if (!m)
                return;
        free(m->what);
        free(m->node);
        free(m->reason);
        free(m->prior_reason);
        *m = (struct nodecfg_mark){ 0 };
}

char *nodecfg_mark_format(const struct nodecfg_mark *m) {
        cJSON *o = cJSON_CreateObject();
        if (m->what)
                cJSON_AddStringToObject(o, "what", m->what);
        cJSON_AddStringToObject(o, "node", strempty(m->node));
        cJSON_AddStringToObject(o, "reason", strempty(m->reason));
        cJSON_AddNumberToObject(o, "pid", (double) m->pid);
        char start[32];
        snprintf(start, sizeof start, "%llu", m->start);
        cJSON_AddStringToObject(o, "start", start); /* a string: 64 bits exact */
        cJSON_AddNumberToObject(o, "prior-state", (double) m->prior_state);
        if (m->prior_reason)
                cJSON_AddStringToObject(o, "prior-reason", m->prior_reason);
        char *text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (!text)
                abort(); /* out of memory, as xmalloc */
        char *ret = xasprintf("%s\n", text);
        cJSON_free(text);
        return ret;
}

int nodecfg_mark_parse(const char *text, struct nodecfg_mark *ret) {
        cJSON *o = text ? cJSON_Parse(text) : NULL;
        const cJSON *what = cJSON_GetObjectItemCaseSensitive(o, "what");
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(o, "node");
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(o, "reason");
        const cJSON *pid = cJSON_GetObjectItemCaseSensitive(o, "pid");
        const cJSON *start = cJSON_GetObjectItemCaseSensitive(o, "start");
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(o, "prior-state");
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "prior-reason");
        char *end = NULL;
        unsigned long long st = 0;
        int r = -EINVAL;
        if (!cJSON_IsObject(o) || !cJSON_IsString(node) || isempty(node->valuestring) ||
                !cJSON_IsString(reason) || isempty(reason->valuestring) || !cJSON_IsNumber(pid) ||
                pid->valuedouble < 1 || pid->valuedouble > 4194304 || !cJSON_IsString(start) ||
                !cJSON_IsNumber(ps) || ps->valuedouble < 0 || ps->valuedouble > 4294967295.0 ||
                (pr && !cJSON_IsString(pr)) || (what && (!cJSON_IsString(what) || isempty(what->valuestring))))
                goto out;
        errno = 0;
        st = strtoull(start->valuestring, &end, 10);
        if (errno || !end || *end || end == start->valuestring)
                goto out;
        *ret = (struct nodecfg_mark){
                .what = xstrdup(what ? what->valuestring : NODECFG_MARK_NODE_CONFIG),
                .node = xstrdup(node->valuestring),
                .reason = xstrdup(reason->valuestring),
                .pid = (pid_t) pid->valuedouble,
                .start = st,
                .prior_state = (uint32_t) ps->valuedouble,
                .prior_reason = pr ? xstrdup(pr->valuestring) : NULL,
        };
        r = 0;
out:
        cJSON_Delete(o);
        return r;
}

int nodecfg_mark_store(const struct charm_paths *p, const char *file, const struct slurm_node *saved,
        const char *what, const char *reason, struct strbuf *err) {
        unsigned long long start = 0;
        (void) proc_pid_stat(getpid(), &start, NULL);
        const struct nodecfg_mark m = {
                .what = (char *) what,
                .node = saved->name,
                .reason = (char *) reason,
                .pid = getpid(),
                .start = start,
                .prior_state = saved->state,
                .prior_reason = saved->reason,
        };
        _cleanup_free_ char *text = nodecfg_mark_format(&m);
        return charm_state_note_write(p, file, text, false, err);
}

int nodecfg_mark_load(const struct charm_paths *p, const char *file, struct nodecfg_mark *ret) {
        _cleanup_free_ char *data = NULL;
        int r = charm_state_note_read(p, file, &data);
        if (r <= 0)
                return r < 0 ? -EINVAL : 0;
        return nodecfg_mark_parse(data, ret) < 0 ? -EINVAL : 1;
}

void nodecfg_mark_clear(const struct charm_paths *p) {
        (void) charm_state_note_remove(p, NODECFG_MARK_FILE, NULL);
}

int nodecfg_mark_recover(const struct charm_paths *p, const struct slurm_node *now, struct strbuf *note,
        struct strbuf *err) {
        _cleanup_free_ char *data = NULL;
        _cleanup_(nodecfg_mark_done) struct nodecfg_mark m = { 0 };
        int r = charm_state_note_read(p, NODECFG_MARK_FILE, &data);
        if (r == 0)
                return 0;
        if (r < 0 || nodecfg_mark_parse(data, &m) < 0) {
                /* a record nobody can use: gone, and said */
                nodecfg_mark_clear(p);
                strbuf_addf(note, "a node-config record that could not be read was removed (%s)",
                        r < 0 ? strerror(-r) : "not valid");
                return 1;
        }
        if (proc_pid_alive(m.pid, m.start)) {
                strbuf_addf(note, "%s still runs (pid %d)", m.what, (int) m.pid);
                return 0;
        }
        if (now && streq_ptr(now->name, m.node) && slurm_state_drain(now->state) != SLURM_DRAIN_NONE &&
                streq_ptr(now->reason, m.reason)) {
                const struct slurm_node prior = {
                        .name = m.node,
                        .state = m.prior_state,
                        .reason = m.prior_reason,
                };
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = slurm_node_restore(&prior, &e);
                if (r < 0) {
                        strbuf_addf(err, "node %s: putting back the state %s had drained it from: %s", m.node,
                                m.what, e.buf);
                        return r;
                }
                strbuf_addf(note, "%s was interrupted: node %s is back as it was before it (%s)%s", m.what,
                        m.node,
                        slurm_state_drain(m.prior_state) != SLURM_DRAIN_NONE ? "drained by its earlier reason"
                                                                              : "its drain lifted",
                        streq(m.what, NODECFG_MARK_NODE_CONFIG) ? "; run it again" : "");
        } else
                strbuf_addf(note, "%s was interrupted; node %s no longer has its drain: nothing to undo", m.what,
                        m.node);
        nodecfg_mark_clear(p);
        return 1;
}
