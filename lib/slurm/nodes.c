/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm nodes through libslurm: read, change state, update, delete, wait until registered.
 * Each function is one or two RPCs to slurmctld; see nodes.h for the 22.05 behaviour relied on. */
#include "util/macro.h"
#include "slurm/nodes.h"

#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/nodestate.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"
#include "util/strv.h"

#include "util/banned.h"

static char *dup_or_null(const char *s) {
        return isempty(s) ? NULL : xstrdup(s);
}

void slurm_node_done(struct slurm_node *n) {
        if (!n)
                return;
        free(n->name);
        free(n->reason);
        free(n->features);
        free(n->features_active);
        free(n->gres);
        free(n->gres_used);
        free(n->comment);
        free(n->partitions);
        free(n->address);
        free(n->hostname);
        free(n->version);
        *n = (struct slurm_node){ 0 };
}

void slurm_node_list_done(struct slurm_node_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                slurm_node_done(&l->v[i]);
        free(l->v);
        strv_free(l->nodesets);
        *l = (struct slurm_node_list){ 0 };
}

bool slurm_list_has(const char *list, const char *item) {
        size_t len;
        if (isempty(list) || isempty(item))
                return false;
        len = strlen(item);
        for (const char *p = list;;) {
                const char *end = strchrnul(p, ',');
                if ((size_t) (end - p) == len && strncmp(p, item, len) == 0)
                        return true;
                if (!*end)
                        return false;
                p = end + 1;
        }
}

/* The partitions of the cluster, with each one's node list expanded once. */
struct parts {
        partition_info_msg_t *msg;
        slurm_hl_t *hl; /* one per partition; NULL when it has no nodes */
};

static void parts_done(struct parts *p) {
        if (p->msg) {
                for (uint32_t i = 0; i < p->msg->record_count; i++)
                        if (p->hl[i])
                                slurm_hostlist_destroy(p->hl[i]);
                slurm_free_partition_info_msg(p->msg);
        }
        free(p->hl);
        *p = (struct parts){ 0 };
}

static int parts_load(struct parts *ret, struct strbuf *err) {
        struct parts p = { 0 };
        int r = slurm_load_partitions((time_t) 0, &p.msg, SHOW_ALL);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load partitions");
        p.hl = xcalloc(p.msg->record_count ? p.msg->record_count : 1, sizeof(slurm_hl_t));
        for (uint32_t i = 0; i < p.msg->record_count; i++)
                if (!isempty(p.msg->partition_array[i].nodes))
                        p.hl[i] = slurm_hostlist_create(p.msg->partition_array[i].nodes);
        *ret = p;
        return 0;
}

/* Comma-separated partitions that hold node name, or NULL. */
static char *parts_of(const struct parts *p, const char *name) {
        struct strbuf sb = STRBUF_INIT;
        for (uint32_t i = 0; p->msg && i < p->msg->record_count; i++) {
                if (!p->hl[i] || slurm_hostlist_find(p->hl[i], name) < 0)
                        continue;
                if (sb.len)
                        strbuf_addch(&sb, ',');
                strbuf_addstr(&sb, strempty(p->msg->partition_array[i].name));
        }
        if (!sb.len)
                return NULL;
        return strbuf_detach(&sb, NULL);
}

/* The NodeSet names of every partition, each once (NULL when none). */
static char **parts_nodesets(const struct parts *p) {
        _cleanup_strv_ struct strv sets = STRV_INIT;
        for (uint32_t i = 0; p->msg && i < p->msg->record_count; i++) {
                const char *s = p->msg->partition_array[i].nodesets;
                while (!isempty(s)) {
                        size_t n = strcspn(s, ",");
                        _cleanup_free_ char *name = xstrndup(s, n);
                        if (*name && !strv_contains(&sets, name))
                                strv_push(&sets, name);
                        s += n;
                        if (*s == ',')
                                s++;
                }
        }
        if (!sets.n)
                return NULL;
        return strv_detach(&sets);
}

static void node_from_info(const node_info_t *in, const struct parts *parts, struct slurm_node *out) {
        uint16_t alloc = 0;
        uint64_t alloc_mem = 0;
        const char *reason = slurm_info_reason(in);
        *out = (struct slurm_node){
                .name = xstrdup(strempty(in->name)),
                .state = in->node_state,
                .reason = dup_or_null(reason),
                .reason_time = !reason ? 0 : in->reason_time,
                .reason_uid = !reason || in->reason_uid == NO_VAL ? SLURM_NODE_NO_UID : in->reason_uid,
                .features = dup_or_null(in->features),
                /* "Same as features if NULL" (slurm.h) */
                .features_active = dup_or_null(in->features_act ? in->features_act : in->features),
                .gres = dup_or_null(in->gres),
                .gres_used = dup_or_null(in->gres_used),
                .comment = dup_or_null(in->comment),
                .address = dup_or_null(in->node_addr),
                .hostname = dup_or_null(in->node_hostname),
                .version = dup_or_null(in->version),
                .cpus = in->cpus,
                .real_memory = in->real_memory,
                .mem_spec_limit = in->mem_spec_limit,
                .free_memory = in->free_mem == NO_VAL64 ? UINT64_MAX : in->free_mem,
                .weight = in->weight,
                .boot_time = in->boot_time,
                .slurmd_start_time = in->slurmd_start_time,
                .last_busy = in->last_busy,
        };
        if (in->select_nodeinfo &&
                slurm_get_select_nodeinfo(in->select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED,
                        &alloc) == SLURM_SUCCESS)
                out->alloc_cpus = alloc;
        if (in->select_nodeinfo &&
                slurm_get_select_nodeinfo(in->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC,
                        NODE_STATE_ALLOCATED, &alloc_mem) == SLURM_SUCCESS)
                out->alloc_memory = alloc_mem;
        if (parts)
                out->partitions = parts_of(parts, out->name);
}

/* One node record without partitions: the cheap read used by the wait loops. */
static int node_get_state(const char *name, struct slurm_node *ret, struct strbuf *err) {
        node_info_msg_t *msg = NULL;
        int r;

        r = slurm_load_node_single(&msg, (char *) name, SHOW_ALL);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "node \"%s\"", name);
        if (!msg || msg->record_count == 0) {
                if (msg)
                        slurm_free_node_info_msg(msg);
                if (err)
                        strbuf_addf(err, "node \"%s\": no such node", name);
                return -ENOENT;
        }
        node_from_info(&msg->node_array[0], NULL, ret);
        slurm_free_node_info_msg(msg);
        return 0;
}

int slurm_node_get_state(const char *name, uint32_t *ret_state, struct strbuf *err) {
        struct slurm_node n;
        int r;

        if (isempty(name))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = node_get_state(name, &n, err);
        if (r < 0)
                return r;
        *ret_state = n.state;
        slurm_node_done(&n);
        return 0;
}

int slurm_node_get_brief(const char *name, struct slurm_node *ret, struct strbuf *err) {
        if (isempty(name))
                return -EINVAL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        return node_get_state(name, ret, err);
}

int slurm_node_get(const char *name, struct slurm_node *ret, struct strbuf *err) {
        struct slurm_node n;
        struct parts p = { 0 };
        int r;

        if (isempty(name))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = node_get_state(name, &n, err);
        if (r < 0)
                return r;
        r = parts_load(&p, err);
        if (r < 0) {
                slurm_node_done(&n);
                return r;
        }
        n.partitions = parts_of(&p, n.name);
        parts_done(&p);
        *ret = n;
        return 0;
}

static bool filter_match(const struct slurm_node_filter *f, const struct slurm_node *n) {
        if (!f)
                return true;
        if (f->feature && !slurm_list_has(n->features, f->feature))
                return false;
        if (f->partition && !slurm_list_has(n->partitions, f->partition))
                return false;
        return true;
}

void slurm_hostlist_expand(const char *list, struct strv *ret) {
        if (!list || !*list)
                return;
        slurm_hl_t hl = slurm_hostlist_create(list);
        if (!hl)
                return;
        char *h;
        while ((h = slurm_hostlist_shift(hl))) {
                strv_push(ret, h);
                free(h); /* slurm_hostlist_shift() mallocs */
        }
        slurm_hostlist_destroy(hl);
}

int slurm_node_list(
        const struct slurm_node_filter *filter, struct slurm_node_list *ret, struct strbuf *err) {
        node_info_msg_t *msg = NULL;
        struct parts p = { 0 };
        struct slurm_node_list l = { 0 };
        int r;

        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_node((time_t) 0, &msg, SHOW_ALL);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load nodes");
        r = parts_load(&p, err);
        if (r < 0) {
                slurm_free_node_info_msg(msg);
                return r;
        }
        l.n_partitions = p.msg->record_count;
        l.nodesets = parts_nodesets(&p);
        l.v = xcalloc(msg->record_count ? msg->record_count : 1, sizeof(*l.v));
        for (uint32_t i = 0; i < msg->record_count; i++) {
                /* 22.05 leaves holes (name NULL) for deleted or unused dynamic slots */
                if (isempty(msg->node_array[i].name))
                        continue;
                node_from_info(&msg->node_array[i], &p, &l.v[l.n]);
                if (filter_match(filter, &l.v[l.n]))
                        l.n++;
                else
                        slurm_node_done(&l.v[l.n]);
        }
        parts_done(&p);
        slurm_free_node_info_msg(msg);
        *ret = l;
        return 0;
}

/* One slurm_update_node call; what names the change for the message. */
static int update(update_node_msg_t *m, const char *what, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        m->reason_uid = (uint32_t) getuid();
        r = slurm_update_node(m);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "%s node \"%s\"", what, m->node_names);
        return 0;
}

static int set_state(
        const char *name, uint32_t state, const char *reason, const char *what, struct strbuf *err) {
        update_node_msg_t m;
        if (isempty(name))
                return -EINVAL;
        if ((state == NODE_STATE_DRAIN || state == NODE_STATE_DOWN) && isempty(reason)) {
                if (err)
                        strbuf_addf(err, "%s node \"%s\": a reason is required", what, name);
                return -EINVAL;
        }
        slurm_init_update_node_msg(&m);
        m.node_names = (char *) name;
        m.node_state = state;
        m.reason = (char *) reason;
        return update(&m, what, err);
}

int slurm_node_drain(const char *name, const char *reason, struct strbuf *err) {
        return set_state(name, NODE_STATE_DRAIN, reason, "drain", err);
}

int slurm_node_resume(const char *name, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        uint32_t state;
        int r = set_state(name, NODE_RESUME, NULL, "resume", &e);
        /* slurmctld refuses RESUME ("Invalid node state specified") on a node that is neither
         * drained nor down: in service already is what the caller wants. */
        if (r == -EINVAL && slurm_node_get_state(name, &state, NULL) >= 0 && !(state & NODE_STATE_DRAIN) &&
                !slurm_state_down(state))
                return 0;
        if (r < 0 && err)
                strbuf_addbuf(err, &e);
        return r;
}

int slurm_node_undrain(const char *name, struct strbuf *err) {
        return set_state(name, NODE_STATE_UNDRAIN, NULL, "undrain", err);
}

int slurm_node_down(const char *name, const char *reason, struct strbuf *err) {
        return set_state(name, NODE_STATE_DOWN, reason, "down", err);
}

int slurm_node_idle(const char *name, struct strbuf *err) {
        return set_state(name, NODE_STATE_IDLE, NULL, "idle", err);
}

int slurm_node_restore(const struct slurm_node *saved, struct strbuf *err) {
        const char *reason;

        if (!saved || isempty(saved->name))
                return -EINVAL;
        reason = isempty(saved->reason) ? "restored by charm" : saved->reason;
        if (saved->state & NODE_STATE_DRAIN)
                return slurm_node_drain(saved->name, reason, err);
        if (slurm_state_down(saved->state))
                return slurm_node_down(saved->name, reason, err);
        /* resumed only when something is to be undone: a RESUME to a node that is neither
         * drained nor down (a dynamic node registered afresh) is refused by slurmctld with an
         * "Invalid node state transition" error in its log */
        uint32_t now = 0;
        int r = slurm_node_get_state(saved->name, &now, err);
        if (r < 0)
                return r;
        if (!slurm_state_drain(now) && !slurm_state_down(now))
                return 0;
        return slurm_node_resume(saved->name, err);
}

int slurm_node_update(const char *name, const struct slurm_node_update *u, struct strbuf *err) {
        update_node_msg_t m;
        if (isempty(name) || !u)
                return -EINVAL;
        slurm_init_update_node_msg(&m);
        m.node_names = (char *) name;
        m.features = (char *) u->features;
        m.features_act = (char *) u->features_active;
        m.gres = (char *) u->gres;
        m.comment = (char *) u->comment;
        if (u->weight)
                m.weight = u->weight;
        return update(&m, "update", err);
}

int slurm_node_delete(const char *name, struct strbuf *err) {
        update_node_msg_t m;
        int r;

        if (isempty(name))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        slurm_init_update_node_msg(&m);
        m.node_names = (char *) name;
        r = slurm_delete_node(&m);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "delete node \"%s\"", name);
        return 0;
}

int slurm_node_wait_registered(
        const char *name, int timeout_ms, struct slurm_node *ret, struct strbuf *err) {
        return slurm_node_wait_registered_unknown(name, timeout_ms, 0, ret, err);
}

int slurm_node_wait_registered_unknown(
        const char *name, int timeout_ms, int unknown_ms, struct slurm_node *ret, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf last = STRBUF_INIT;
        int64_t deadline = slurm_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
        int64_t unknown_since = 0; /* the first of the "no such node" answers in a row */
        int delay = SLURM_POLL_FIRST_MS, r;

        if (isempty(name))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        for (;;) {
                struct slurm_node n = { 0 };
                strbuf_reset(&last);
                r = node_get_state(name, &n, &last);
                if (r >= 0) {
                        if (slurm_state_registered(n.state)) {
                                slurm_node_done(&n);
                                return ret ? slurm_node_get(name, ret, err) : 0;
                        }
                        strbuf_reset(&last);
                        strbuf_addstr(&last, "state ");
                        slurm_state_format(n.state, &last);
                        slurm_node_done(&n);
                } else if (r != -ENOENT && r != -ECONNREFUSED && r != -ETIMEDOUT) {
                        if (err)
                                strbuf_addbuf(err, &last);
                        return r;
                }
                if (r != -ENOENT)
                        unknown_since = 0;
                else if (!unknown_since)
                        unknown_since = slurm_now_ms();
                else if (unknown_ms > 0 && slurm_now_ms() - unknown_since >= unknown_ms) {
                        if (err)
                                strbuf_addf(err, "node \"%s\": unknown to the controller for %d ms", name, unknown_ms);
                        return -ENOENT;
                }
                if (!slurm_poll_sleep(&delay, deadline))
                        break;
        }
        if (err)
                strbuf_addf(err, "node \"%s\": not registered after %d ms (%s)", name, timeout_ms, last.buf);
        return -ETIMEDOUT;
}
