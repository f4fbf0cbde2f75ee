/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm event triggers on nodes: set, list, clear (slurm_set_trigger, slurm_get_triggers,
 * slurm_clear_trigger). */
#include "util/macro.h"
#include "slurm/triggers.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

_Static_assert(SLURM_NODE_EVENT_UP == TRIGGER_TYPE_UP, "trigger bits");
_Static_assert(SLURM_NODE_EVENT_DOWN == TRIGGER_TYPE_DOWN, "trigger bits");
_Static_assert(SLURM_NODE_EVENT_FAIL == TRIGGER_TYPE_FAIL, "trigger bits");
_Static_assert(SLURM_NODE_EVENT_IDLE == TRIGGER_TYPE_IDLE, "trigger bits");
_Static_assert(SLURM_NODE_EVENT_DRAINED == TRIGGER_TYPE_DRAINED, "trigger bits");
_Static_assert(SLURM_NODE_EVENT_RECONFIG == TRIGGER_TYPE_RECONFIG, "trigger bits");
_Static_assert(SLURM_CTLD_EVENT_PRI_FAIL == TRIGGER_TYPE_PRI_CTLD_FAIL, "trigger bits");
_Static_assert(SLURM_CTLD_EVENT_PRI_RES_OP == TRIGGER_TYPE_PRI_CTLD_RES_OP, "trigger bits");
_Static_assert(SLURM_CTLD_EVENT_PRI_RES_CTRL == TRIGGER_TYPE_PRI_CTLD_RES_CTRL, "trigger bits");
_Static_assert(SLURM_CTLD_EVENT_BU_FAIL == TRIGGER_TYPE_BU_CTLD_FAIL, "trigger bits");
_Static_assert(SLURM_CTLD_EVENT_BU_RES_OP == TRIGGER_TYPE_BU_CTLD_RES_OP, "trigger bits");
_Static_assert(SLURM_CTLD_EVENT_BU_AS_CTRL == TRIGGER_TYPE_BU_CTLD_AS_CTRL, "trigger bits");

_Static_assert(SLURM_JOB_EVENT_TIME == TRIGGER_TYPE_TIME, "trigger bits");
_Static_assert(SLURM_JOB_EVENT_FINI == TRIGGER_TYPE_FINI, "trigger bits");
_Static_assert(SLURM_TRIGGER_RES_JOB == TRIGGER_RES_TYPE_JOB, "trigger resource types");
_Static_assert(SLURM_TRIGGER_RES_NODE == TRIGGER_RES_TYPE_NODE, "trigger resource types");
_Static_assert(SLURM_TRIGGER_RES_SLURMCTLD == TRIGGER_RES_TYPE_SLURMCTLD, "trigger resource types");
_Static_assert(SLURM_TRIGGER_RES_SLURMDBD == TRIGGER_RES_TYPE_SLURMDBD, "trigger resource types");
_Static_assert(SLURM_TRIGGER_RES_DATABASE == TRIGGER_RES_TYPE_DATABASE, "trigger resource types");
_Static_assert(SLURM_TRIGGER_RES_FRONT_END == TRIGGER_RES_TYPE_FRONT_END, "trigger resource types");
_Static_assert(SLURM_TRIGGER_RES_OTHER == TRIGGER_RES_TYPE_OTHER, "trigger resource types");

/* trigger_info_t.offset: seconds after the event, stored with a 0x8000 origin */
#define OFFSET_ORIGIN 0x8000

void slurm_trigger_list_done(struct slurm_trigger_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].resource);
                free(l->v[i].program);
        }
        free(l->v);
        *l = (struct slurm_trigger_list){ 0 };
}

const char *slurm_node_event_name(enum slurm_node_event e) {
        switch (e) {
        case SLURM_NODE_EVENT_UP:
                return "up";
        case SLURM_NODE_EVENT_DOWN:
                return "down";
        case SLURM_NODE_EVENT_FAIL:
                return "fail";
        case SLURM_NODE_EVENT_RECONFIG:
                return "reconfig";
        case SLURM_NODE_EVENT_IDLE:
                return "idle";
        case SLURM_NODE_EVENT_DRAINED:
                return "drained";
        default:
                return NULL;
        }
}

const char *slurm_ctld_event_name(enum slurm_ctld_event e) {
        switch (e) {
        case SLURM_CTLD_EVENT_PRI_FAIL:
                return "primary_slurmctld_failure";
        case SLURM_CTLD_EVENT_PRI_RES_OP:
                return "primary_slurmctld_resumed_operation";
        case SLURM_CTLD_EVENT_PRI_RES_CTRL:
                return "primary_slurmctld_resumed_control";
        case SLURM_CTLD_EVENT_BU_FAIL:
                return "backup_slurmctld_failure";
        case SLURM_CTLD_EVENT_BU_RES_OP:
                return "backup_slurmctld_resumed_operation";
        case SLURM_CTLD_EVENT_BU_AS_CTRL:
                return "backup_slurmctld_assumed_control";
        default:
                return NULL;
        }
}

const char *slurm_trigger_res_name(unsigned res_type) {
        static const char *const names[] = {
                [TRIGGER_RES_TYPE_JOB] = "job",
                [TRIGGER_RES_TYPE_NODE] = "node",
                [TRIGGER_RES_TYPE_SLURMCTLD] = "slurmctld",
                [TRIGGER_RES_TYPE_SLURMDBD] = "slurmdbd",
                [TRIGGER_RES_TYPE_DATABASE] = "database",
                [TRIGGER_RES_TYPE_FRONT_END] = "front_end",
                [TRIGGER_RES_TYPE_OTHER] = "other",
        };
        return res_type < ELEMENTSOF(names) && names[res_type] ? names[res_type] : "unknown";
}

/* strigger's names of the event bits (src/strigger/strigger.c, _trig_type) */
static const struct {
        uint32_t bit;
        const char *name;
} event_names[] = {
        { TRIGGER_TYPE_UP, "up" },
        { TRIGGER_TYPE_DOWN, "down" },
        { TRIGGER_TYPE_FAIL, "fail" },
        { TRIGGER_TYPE_TIME, "time" },
        { TRIGGER_TYPE_FINI, "fini" },
        { TRIGGER_TYPE_RECONFIG, "reconfig" },
        { TRIGGER_TYPE_IDLE, "idle" },
        { TRIGGER_TYPE_DRAINED, "drained" },
        { TRIGGER_TYPE_PRI_CTLD_FAIL, "primary_slurmctld_failure" },
        { TRIGGER_TYPE_PRI_CTLD_RES_OP, "primary_slurmctld_resumed_operation" },
        { TRIGGER_TYPE_PRI_CTLD_RES_CTRL, "primary_slurmctld_resumed_control" },
        { TRIGGER_TYPE_PRI_CTLD_ACCT_FULL, "primary_slurmctld_acct_buffer_full" },
        { TRIGGER_TYPE_BU_CTLD_FAIL, "backup_slurmctld_failure" },
        { TRIGGER_TYPE_BU_CTLD_RES_OP, "backup_slurmctld_resumed_operation" },
        { TRIGGER_TYPE_BU_CTLD_AS_CTRL, "backup_slurmctld_assumed_control" },
        { TRIGGER_TYPE_PRI_DBD_FAIL, "primary_slurmdbd_failure" },
        { TRIGGER_TYPE_PRI_DBD_RES_OP, "primary_slurmdbd_resumed_operation" },
        { TRIGGER_TYPE_PRI_DB_FAIL, "primary_database_failure" },
        { TRIGGER_TYPE_PRI_DB_RES_OP, "primary_database_resumed_operation" },
        { TRIGGER_TYPE_BURST_BUFFER, "burst_buffer" },
};

void slurm_trigger_events_format(uint32_t events, struct strbuf *out) {
        bool first = true;
        for (size_t i = 0; i < ELEMENTSOF(event_names); i++) {
                if (!(events & event_names[i].bit))
                        continue;
                strbuf_addf(out, "%s%s", first ? "" : ",", event_names[i].name);
                events &= ~event_names[i].bit;
                first = false;
        }
        if (events)
                strbuf_addf(out, "%s0x%x", first ? "" : ",", (unsigned) events);
}

bool slurm_trigger_is(const struct slurm_trigger *t, const struct slurm_trigger_spec *s, uint32_t uid) {
        return t->permanent && t->user_id == uid && t->events == s->event &&
                (s->controller ? t->ctld_trigger : t->node_trigger) && streq_ptr(t->resource, "*") &&
                streq_ptr(t->program, s->program);
}

/* Whether event is one bit a trigger on res_type may watch (the ones the header names). */
static bool req_event_ok(unsigned res_type, uint32_t event) {
        switch (res_type) {
        case TRIGGER_RES_TYPE_NODE:
                return slurm_node_event_name(event) != NULL;
        case TRIGGER_RES_TYPE_JOB:
                return event == TRIGGER_TYPE_TIME || event == TRIGGER_TYPE_FINI;
        case TRIGGER_RES_TYPE_SLURMCTLD:
                return slurm_ctld_event_name(event) != NULL;
        default:
                return false;
        }
}

int slurm_trigger_set(const struct slurm_trigger_req *q, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf ev = STRBUF_INIT;
        trigger_info_t t;
        int r;

        if (!req_event_ok(q->res_type, q->event)) {
                if (err)
                        strbuf_addf(err, "trigger: unknown %s event 0x%x", slurm_trigger_res_name(q->res_type),
                                (unsigned) q->event);
                return -EINVAL;
        }
        if (q->offset < -SLURM_TRIGGER_OFFSET_MAX || q->offset > SLURM_TRIGGER_OFFSET_MAX) {
                if (err)
                        strbuf_addf(err, "trigger: offset %d is outside ±%d", q->offset, SLURM_TRIGGER_OFFSET_MAX);
                return -EINVAL;
        }
        if (isempty(q->program) || q->program[0] != '/') {
                if (err)
                        strbuf_addf(err, "trigger: program \"%s\" is not an absolute path", strempty(q->program));
                return -EINVAL;
        }
        if (q->res_type == TRIGGER_RES_TYPE_JOB && isempty(q->resource)) {
                if (err)
                        strbuf_addstr(err, "trigger: a job trigger needs a job id");
                return -EINVAL;
        }
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        slurm_trigger_events_format(q->event, &ev);
        slurm_init_trigger_msg(&t);
        t.res_type = (uint16_t) q->res_type;
        t.res_id = (char *) (isempty(q->resource) ? "*" : q->resource);
        t.trig_type = q->event;
        t.offset = (uint16_t) (OFFSET_ORIGIN + q->offset);
        t.user_id = (uint32_t) getuid();
        t.program = (char *) q->program;
        t.flags = q->permanent ? TRIGGER_FLAG_PERM : 0;
        r = slurm_set_trigger(&t);
        if (r == SLURM_SUCCESS)
                return 0;
        if (slurm_rc_code(r) == ESLURM_TRIGGER_DUP) {
                if (err)
                        strbuf_addf(err, "set %s trigger on %s \"%s\": the same trigger exists", ev.buf,
                                slurm_trigger_res_name(q->res_type), t.res_id);
                return -EEXIST;
        }
        return slurm_fail(err, slurm_rc_code(r), "set %s trigger on %s \"%s\" as uid %u", ev.buf,
                slurm_trigger_res_name(q->res_type), t.res_id, (unsigned) getuid());
}

int slurm_trigger_set_perm(const struct slurm_trigger_spec *s, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const struct slurm_trigger_req q = {
                .res_type = s->controller ? SLURM_TRIGGER_RES_SLURMCTLD : SLURM_TRIGGER_RES_NODE,
                .resource = "*", /* strigger's choice too; a node name would be fatal at restore */
                .event = s->event,
                .program = s->program,
                .permanent = true,
        };
        int r = slurm_trigger_set(&q, &e);
        if (r == -EEXIST)
                return 0;
        if (r < 0 && err)
                strbuf_addbuf(err, &e);
        return r < 0 ? r : 1;
}

int slurm_trigger_set_node(const char *node, enum slurm_node_event event, const char *program,
        bool permanent, struct strbuf *err) {
        const struct slurm_trigger_req q = {
                .res_type = SLURM_TRIGGER_RES_NODE,
                .resource = node,
                .event = (uint32_t) event,
                .program = program,
                .permanent = permanent,
        };
        return slurm_trigger_set(&q, err);
}

int slurm_trigger_list(struct slurm_trigger_list *ret, struct strbuf *err) {
        trigger_info_msg_t *msg = NULL;
        struct slurm_trigger_list l = { 0 };
        int r;

        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_get_triggers(&msg);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "list triggers");
        l.v = xcalloc(msg && msg->record_count ? msg->record_count : 1, sizeof(*l.v));
        for (uint32_t i = 0; msg && i < msg->record_count; i++) {
                const trigger_info_t *t = &msg->trigger_array[i];
                l.v[l.n++] = (struct slurm_trigger){
                        .id = t->trig_id,
                        .node_trigger = t->res_type == TRIGGER_RES_TYPE_NODE,
                        .ctld_trigger = t->res_type == TRIGGER_RES_TYPE_SLURMCTLD,
                        .res_type = t->res_type,
                        .events = t->trig_type,
                        .resource = isempty(t->res_id) ? NULL : xstrdup(t->res_id),
                        .program = isempty(t->program) ? NULL : xstrdup(t->program),
                        .user_id = t->user_id,
                        .permanent = t->flags & TRIGGER_FLAG_PERM,
                        .offset = (int) t->offset - OFFSET_ORIGIN,
                };
        }
        if (msg)
                slurm_free_trigger_msg(msg);
        *ret = l;
        return (int) l.n;
}

int slurm_trigger_clear(uint32_t id, struct strbuf *err) {
        trigger_info_t t;
        int r;

        r = slurm_client_init(err);
        if (r < 0)
                return r;
        slurm_init_trigger_msg(&t);
        t.trig_id = id;
        r = slurm_clear_trigger(&t);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "clear trigger %u", id);
        return 0;
}
