/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm reservations of whole nodes: list, create, replace the node list, delete; flag words.
 * See reservations.h for the slurmctld 22.05 behaviour relied on. */
#include "util/macro.h"
#include "slurm/reservations.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

/* Slurm's flag names in the order reservation_flags_string() prints them
 * (src/common/slurm_protocol_defs.c); create: whether slurm_resv_flags_parse() takes it. */
static const struct {
        uint64_t bit;
        const char *name;
        bool create;
        const char *why_not; /* for words Slurm knows but this module does not offer */
} flag_table[] = {
        { RESERVE_FLAG_MAINT, "MAINT", true, NULL },
        { RESERVE_FLAG_NO_MAINT, "NO_MAINT", false, "only changes an existing reservation" },
        { RESERVE_FLAG_FLEX, "FLEX", true, NULL },
        { RESERVE_FLAG_OVERLAP, "OVERLAP", true, NULL },
        { RESERVE_FLAG_IGN_JOBS, "IGNORE_JOBS", true, NULL },
        { RESERVE_FLAG_HOURLY, "HOURLY", true, NULL },
        { RESERVE_FLAG_NO_HOURLY, "NO_HOURLY", false, "only changes an existing reservation" },
        { RESERVE_FLAG_DAILY, "DAILY", true, NULL },
        { RESERVE_FLAG_NO_DAILY, "NO_DAILY", false, "only changes an existing reservation" },
        { RESERVE_FLAG_WEEKDAY, "WEEKDAY", true, NULL },
        { RESERVE_FLAG_WEEKEND, "WEEKEND", true, NULL },
        { RESERVE_FLAG_WEEKLY, "WEEKLY", true, NULL },
        { RESERVE_FLAG_NO_WEEKLY, "NO_WEEKLY", false, "only changes an existing reservation" },
        { RESERVE_FLAG_SPEC_NODES, "SPEC_NODES", false, "is set by Slurm itself" },
        { RESERVE_FLAG_ALL_NODES, "ALL_NODES", false, "is set by Slurm itself" },
        { RESERVE_FLAG_ANY_NODES, "ANY_NODES", false, "reserves licenses or burst buffers, not nodes" },
        { RESERVE_FLAG_NO_ANY_NODES, "NO_ANY_NODES", false, "only changes an existing reservation" },
        { RESERVE_FLAG_STATIC, "STATIC", true, NULL },
        { RESERVE_FLAG_NO_STATIC, "NO_STATIC", false, "only changes an existing reservation" },
        { RESERVE_FLAG_PART_NODES, "PART_NODES", false, "needs a partition and Nodes=ALL" },
        { RESERVE_FLAG_NO_PART_NODES, "NO_PART_NODES", false, "only changes an existing reservation" },
#ifdef RESERVE_FLAG_FIRST_CORES /* gone in 24.11 */
        { RESERVE_FLAG_FIRST_CORES, "FIRST_CORES", false, "reserves cores, not whole nodes" },
#endif
        { RESERVE_FLAG_TIME_FLOAT, "TIME_FLOAT", false,
                "takes a start relative to now: give start= instead" },
        { RESERVE_FLAG_REPLACE, "REPLACE", false, "picks nodes itself; nodes are named here" },
        { RESERVE_FLAG_REPLACE_DOWN, "REPLACE_DOWN", false, "picks nodes itself; nodes are named here" },
        { RESERVE_FLAG_PURGE_COMP, "PURGE_COMP", true, NULL },
        { RESERVE_FLAG_NO_HOLD_JOBS, "NO_HOLD_JOBS_AFTER_END", true, NULL },
        { RESERVE_FLAG_MAGNETIC, "MAGNETIC", true, NULL },
        { RESERVE_FLAG_NO_MAGNETIC, "NO_MAGNETIC", false, "only changes an existing reservation" },
};

/* Other spellings parse_resv_flags() accepts for the same bits. */
static const struct {
        const char *alias, *name;
} flag_aliases[] = {
        { "MAINTENANCE", "MAINT" },
        { "STATIC_ALLOC", "STATIC" },
        { "LICENSE_ONLY", "ANY_NODES" },
        { "PROMISCUOUS", "MAGNETIC" },
};

/* A user's string as a message shows it: non-printable bytes and '"' as '?', cut at 40. */
static char *shown(const char *s) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; s[i]; i++) {
                unsigned char c = (unsigned char) s[i];
                if (i == 40) {
                        strbuf_addstr(&sb, "…");
                        break;
                }
                strbuf_addch(&sb, c >= 0x20 && c < 0x7f && c != '"' ? (char) c : '?');
        }
        return strbuf_detach(&sb, NULL);
}

int slurm_resv_flags_parse(const char *s, uint64_t *ret_flags, struct strbuf *err) {
        _cleanup_free_ char *all = shown(strempty(s));
        uint64_t flags = 0;
        const char *p = strempty(s);

        while (*p) {
                size_t n = strcspn(p, ",");
                _cleanup_free_ char *w = xstrndup(p, n), *ws = shown(w);
                const char *name = w;
                size_t i;

                p += n;
                if (*p == ',' && !*++p) {
                        if (err)
                                strbuf_addf(err, "flags \"%s\": empty item", all);
                        return -EINVAL;
                }
                if (!*w) {
                        if (err)
                                strbuf_addf(err, "flags \"%s\": empty item", all);
                        return -EINVAL;
                }
                for (i = 0; i < ELEMENTSOF(flag_aliases); i++)
                        if (strcaseeq(w, flag_aliases[i].alias))
                                name = flag_aliases[i].name;
                for (i = 0; i < ELEMENTSOF(flag_table); i++)
                        if (strcaseeq(name, flag_table[i].name))
                                break;
                if (i == ELEMENTSOF(flag_table)) {
                        if (err)
                                strbuf_addf(err,
                                        "flags: unknown reservation flag \"%s\" (MAINT, OVERLAP, "
                                        "IGNORE_JOBS, "
                                        "FLEX, MAGNETIC, PURGE_COMP, NO_HOLD_JOBS_AFTER_END, STATIC_ALLOC, "
                                        "HOURLY, DAILY, WEEKDAY, WEEKEND, WEEKLY)",
                                        ws);
                        return -EINVAL;
                }
                if (!flag_table[i].create) {
                        if (err)
                                strbuf_addf(err, "flags: \"%s\" is not offered here: it %s", ws,
                                        flag_table[i].why_not);
                        return -EINVAL;
                }
                if (flags & flag_table[i].bit) {
                        if (err)
                                strbuf_addf(err, "flags: \"%s\" given twice", ws);
                        return -EINVAL;
                }
                flags |= flag_table[i].bit;
        }
        *ret_flags = flags;
        return 0;
}

uint64_t slurm_resv_flags_offered(void) {
        uint64_t m = 0;
        for (size_t i = 0; i < ELEMENTSOF(flag_table); i++)
                if (flag_table[i].create)
                        m |= flag_table[i].bit;
        return m;
}

void slurm_resv_flags_format(uint64_t flags, struct strbuf *out) {
        uint64_t rest = flags;
        size_t start = out->len;
        for (size_t i = 0; i < ELEMENTSOF(flag_table); i++) {
                if (!(flags & flag_table[i].bit))
                        continue;
                if (out->len > start)
                        strbuf_addch(out, ',');
                strbuf_addstr(out, flag_table[i].name);
                rest &= ~flag_table[i].bit;
        }
        if (rest)
                strbuf_addf(out, "%s0x%llx", out->len > start ? "," : "", (unsigned long long) rest);
}

static char *dup_or_null(const char *s) {
        return isempty(s) ? NULL : xstrdup(s);
}

void slurm_resv_done(struct slurm_resv *r) {
        if (!r)
                return;
        free(r->name);
        free(r->nodes);
        free(r->users);
        free(r->accounts);
        free(r->partition);
        *r = (struct slurm_resv){ 0 };
}

void slurm_resv_list_done(struct slurm_resv_list *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                slurm_resv_done(&l->v[i]);
        free(l->v);
        *l = (struct slurm_resv_list){ 0 };
}

/* The reservation errors this module names, then slurmerr.h's table. */
static int resv_fail(struct strbuf *err, int code, const char *what, const char *name) {
        int r;
        switch (code) {
        case ESLURM_RESERVATION_INVALID:
                r = -ENOENT;
                break;
        case ESLURM_RESERVATION_OVERLAP:
        case ESLURM_RESERVATION_NAME_DUP:
                r = -EEXIST;
                break;
        case ESLURM_NODES_BUSY:
        case ESLURM_RESERVATION_BUSY:
                r = -EBUSY;
                break;
        case ESLURM_INVALID_TIME_VALUE:
        case ESLURM_RESERVATION_EMPTY:
        case ESLURM_RSV_ALREADY_STARTED:
                r = -EINVAL;
                break;
        case ESLURM_USER_ID_MISSING:
        case ESLURM_RESERVATION_ACCESS:
                r = -EACCES;
                break;
        default:
                return slurm_fail(err, code, "%s reservation \"%s\"", what, name);
        }
        (void) slurm_fail(err, code, "%s reservation \"%s\"", what, name);
        return r;
}

int slurm_resv_list(struct slurm_resv_list *ret, struct strbuf *err) {
        reserve_info_msg_t *msg = NULL;
        struct slurm_resv_list l = { 0 };
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_reservations((time_t) 0, &msg);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load reservations");
        l.v = xcalloc(msg->record_count ? msg->record_count : 1, sizeof(*l.v));
        for (uint32_t i = 0; i < msg->record_count; i++) {
                const reserve_info_t *in = &msg->reservation_array[i];
                if (isempty(in->name))
                        continue;
                l.v[l.n++] = (struct slurm_resv){
                        .name = xstrdup(in->name),
                        .nodes = dup_or_null(in->node_list),
                        .users = dup_or_null(in->users),
                        .accounts = dup_or_null(in->accounts),
                        .partition = dup_or_null(in->partition),
                        .start = in->start_time,
                        .end = in->end_time,
                        .flags = in->flags,
                        .node_count = in->node_cnt,
                };
        }
        slurm_free_reservation_info_msg(msg);
        *ret = l;
        return (int) l.n;
}

int slurm_resv_get(const char *name, struct slurm_resv *ret, struct strbuf *err) {
        struct slurm_resv_list l = { 0 };
        int r;
        if (isempty(name))
                return -EINVAL;
        r = slurm_resv_list(&l, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l.n; i++)
                if (streq(l.v[i].name, name)) {
                        *ret = l.v[i];
                        l.v[i] = (struct slurm_resv){ 0 };
                        slurm_resv_list_done(&l);
                        return 0;
                }
        slurm_resv_list_done(&l);
        if (err)
                strbuf_addf(err, "reservation \"%s\": no such reservation", name);
        return -ENOENT;
}

int slurm_resv_create(const struct slurm_resv_create *c, struct strbuf *err) {
        resv_desc_msg_t m;
        char *got;
        int r;

        if (!c || isempty(c->name) || isempty(c->nodes) || isempty(c->users) || c->duration_min == 0 ||
                c->duration_min == INFINITE) {
                if (err)
                        strbuf_addstr(
                                err, "create reservation: name, nodes, users and a duration are required");
                return -EINVAL;
        }
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        slurm_init_resv_desc_msg(&m);
        m.name = (char *) c->name;
        m.node_list = (char *) c->nodes;
        m.users = (char *) c->users;
        m.start_time = c->start ? c->start : time(NULL);
        m.duration = c->duration_min;
        m.flags = c->flags;
        got = slurm_create_reservation(&m);
        if (!got)
                return resv_fail(err, slurm_rc_code(-1), "create", c->name);
        free(got);
        return 0;
}

int slurm_resv_set_nodes(const char *name, const char *nodes, struct strbuf *err) {
        resv_desc_msg_t m;
        int r;
        if (isempty(name) || isempty(nodes))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        slurm_init_resv_desc_msg(&m);
        m.name = (char *) name;
        m.node_list = (char *) nodes;
        r = slurm_update_reservation(&m);
        if (r != SLURM_SUCCESS)
                return resv_fail(err, slurm_rc_code(r), "update", name);
        return 0;
}

int slurm_resv_delete(const char *name, struct strbuf *err) {
        reservation_name_msg_t m = { .name = (char *) name };
        int r;
        if (isempty(name))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_delete_reservation(&m);
        if (r != SLURM_SUCCESS)
                return resv_fail(err, slurm_rc_code(r), "delete", name);
        return 0;
}
