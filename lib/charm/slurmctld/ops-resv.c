/* SPDX-License-Identifier: Apache-2.0 */
/* The maintenance reservation actions: node-reserve (create, or add nodes to an existing
 * reservation of that name) and node-unreserve (remove nodes; the last one deletes it). */
#include "util/macro.h"
#include "charm/slurmctld/ops.h"

#include "charm/slurmctld/ops-internal.h"
#include "slurm/reservations.h"
#include "slurmconf/hostlist.h"
#include "util/alloc.h"

#include "util/banned.h"

static void resv_results(const struct slurm_resv *r, struct strv *kv) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT, e = STRBUF_INIT, f = STRBUF_INIT;
        char d[24];
        ops_time_format(r->start, &s);
        ops_time_format(r->end, &e);
        slurm_resv_flags_format(r->flags, &f);
        snprintf(d, sizeof d, "%lld", (long long) ((r->end - r->start) / 60));
        ops_kv(kv, r->name, "reservation.name");
        ops_kv(kv, r->nodes, "reservation.nodes");
        ops_kv(kv, s.buf, "reservation.start");
        ops_kv(kv, e.buf, "reservation.end");
        ops_kv(kv, d, "reservation.duration");
        if (r->users)
                ops_kv(kv, r->users, "reservation.users");
        if (r->accounts)
                ops_kv(kv, r->accounts, "reservation.accounts");
        ops_kv(kv, f.buf, "reservation.flags");
}

/* The node names of a reservation (Slurm's hostlist form). */
static int resv_nodes(const struct slurm_resv *r, struct strv *ret, struct strbuf *err) {
        if (isempty(r->nodes))
                return 0;
        int k = hostlist_expand(r->nodes, 1u << 20, ret);
        if (k < 0) {
                strbuf_addf(err, "reservation \"%s\": cannot read its node list \"%s\"", r->name, r->nodes);
                return -EIO;
        }
        return 0;
}

/* Words a reservation failure: the Slurm message plus what the operator can do. */
static int resv_failed(int r, const struct strbuf *e, const struct ops_node_req *req, struct strbuf *err) {
        if (r == -ECONNREFUSED || r == -ETIMEDOUT)
                return ops_slurm_failed(r, e, true, err);
        strbuf_addbuf(err, e);
        switch (r) {
        case -EEXIST:
                strbuf_addstr(err,
                        " (a node is in another reservation at that time: add OVERLAP to flags, "
                        "or choose another time)");
                break;
        case -EBUSY:
                if (req->action == OPS_NODE_UNRESERVE)
                        strbuf_addstr(err, " (running jobs use the reservation: it goes once they end)");
                else
                        strbuf_addstr(err,
                                " (a node runs jobs that would still run at the start: add "
                                "IGNORE_JOBS to flags, or drain the nodes and wait)");
                break;
        case -EINVAL:
                strbuf_addstr(err, " (check start and duration)");
                break;
        case -EACCES:
                strbuf_addstr(err, " (check users: each must exist on the controller)");
                break;
        default:
                break;
        }
        strbuf_addstr(err, ": nothing changed");
        return r;
}

/* The parameters given that differ from the existing reservation r, or 0. */
static int check_same(
        const struct ops_node_req *req, const struct slurm_resv *r, time_t now, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf what = STRBUF_INIT;
        if (req->has_start && (req->start ? req->start != r->start : r->start > now + 60))
                strbuf_addstr(&what, "start, ");
        if (req->has_duration && (time_t) req->duration_min * 60 != r->end - r->start)
                strbuf_addstr(&what, "duration, ");
        if (req->users && !streq_ptr(req->users, r->users))
                strbuf_addstr(&what, "users, ");
        if (req->has_flags && (r->flags & slurm_resv_flags_offered()) != req->flags)
                strbuf_addstr(&what, "flags, ");
        if (!what.len)
                return 0;
        strbuf_setlen(&what, what.len - 2);
        _cleanup_strv_ struct strv kv = STRV_INIT;
        resv_results(r, &kv);
        strbuf_addf(err, "reservation \"%s\" exists with another %s (", r->name, what.buf);
        for (size_t i = 2; i + 1 < kv.n; i += 2)
                strbuf_addf(
                        err, "%s%s %s", i > 2 ? ", " : "", kv.v[i] + strlen("reservation."), kv.v[i + 1]);
        strbuf_addstr(err, "): give the same values or none, or node-unreserve it first: nothing changed");
        return -EEXIST;
}

static int node_reserve(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(ops_node_req_done) struct ops_node_req req = { .names = STRV_INIT };
        _cleanup_(ops_nodes_done) struct ops_nodes nodes = { .nodes = STRV_INIT, .missing = STRV_INIT };
        _cleanup_(slurm_resv_done) struct slurm_resv resv = { 0 }, after = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, expr = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT, have = STRV_INIT, added = STRV_INIT, already = STRV_INIT;
        bool created = false;
        int r = ops_nodes_prepare(ctx, OPS_NODE_RESERVE, true, &req, &nodes, err);
        if (r < 0)
                return r;
        r = slurm_resv_get(req.resv_name, &resv, &e);
        if (r == -ENOENT) {
                ops_hostlist(nodes.nodes.v, &expr);
                const struct slurm_resv_create c = {
                        .name = req.resv_name,
                        .nodes = expr.buf,
                        .users = req.users ? req.users : OPS_RESV_DEFAULT_USERS,
                        .start = req.start,
                        .duration_min = req.duration_min,
                        .flags = req.flags,
                };
                strbuf_reset(&e);
                r = slurm_resv_create(&c, &e);
                if (r < 0)
                        return resv_failed(r, &e, &req, err);
                created = true;
                strv_pushv(&added, nodes.nodes.v);
        } else if (r < 0)
                return ops_slurm_failed(r, &e, true, err);
        else {
                r = check_same(&req, &resv, time(NULL), err);
                if (r < 0)
                        return r;
                r = resv_nodes(&resv, &have, err);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < nodes.nodes.n; i++)
                        strv_push(strv_contains(&have, nodes.nodes.v[i]) ? &already : &added,
                                nodes.nodes.v[i]);
                if (added.n) {
                        _cleanup_strv_ struct strv all = STRV_INIT;
                        strv_pushv(&all, have.v);
                        strv_pushv(&all, added.v);
                        ops_hostlist(all.v, &expr);
                        strbuf_reset(&e);
                        r = slurm_resv_set_nodes(req.resv_name, expr.buf, &e);
                        if (r < 0)
                                return resv_failed(r, &e, &req, err);
                }
        }
        strbuf_reset(&e);
        r = slurm_resv_get(req.resv_name, &after, &e);
        if (r < 0) {
                strbuf_addf(err, "the reservation was made, but reading it back failed: %s", e.buf);
                return r;
        }
        resv_results(&after, &kv);
        ops_kv(&kv, created ? "true" : "false", "created");
        {
                _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
                ops_hostlist(added.v, &a);
                ops_hostlist(already.v, &b);
                ops_kv(&kv, added.n ? a.buf : "none", "added");
                if (already.n)
                        ops_kv(&kv, b.buf, "already-reserved");
        }
        {
                _cleanup_free_ char *d = xasprintf("reservation=%s", req.resv_name);
                ops_note(ctx, "node-reserve", &added, NULL, d, &kv);
        }
        return ops_result_set(ctx, &kv, err);
}

int ops_node_reserve(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-reserve", node_reserve, err);
}

static int node_unreserve(struct juju_ctx *ctx, struct strbuf *err) {
        _cleanup_(ops_node_req_done) struct ops_node_req req = { .names = STRV_INIT };
        _cleanup_(ops_nodes_done) struct ops_nodes nodes = { .nodes = STRV_INIT, .missing = STRV_INIT };
        _cleanup_(slurm_resv_done) struct slurm_resv resv = { 0 }, after = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, expr = STRBUF_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT, have = STRV_INIT, removed = STRV_INIT,
                                   not_reserved = STRV_INIT, left = STRV_INIT;
        bool deleted = false;
        int r = ops_nodes_prepare(ctx, OPS_NODE_UNRESERVE, true, &req, &nodes, err);
        if (r < 0)
                return r;
        r = slurm_resv_get(req.resv_name, &resv, &e);
        if (r == -ENOENT) {
                _cleanup_(slurm_resv_list_done) struct slurm_resv_list all = { 0 };
                strbuf_addf(err, "no reservation \"%s\"", req.resv_name);
                if (slurm_resv_list(&all, NULL) >= 0) {
                        strbuf_addstr(err, all.n ? " (reservations:" : " (there is none)");
                        for (size_t i = 0; i < all.n && i < 10; i++)
                                strbuf_addf(err, " %s", all.v[i].name);
                        if (all.n)
                                strbuf_addch(err, ')');
                }
                strbuf_addstr(err, ": nothing changed");
                return r;
        }
        if (r < 0)
                return ops_slurm_failed(r, &e, true, err);
        r = resv_nodes(&resv, &have, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < nodes.nodes.n; i++)
                strv_push(
                        strv_contains(&have, nodes.nodes.v[i]) ? &removed : &not_reserved, nodes.nodes.v[i]);
        for (size_t i = 0; i < have.n; i++)
                if (!strv_contains(&removed, have.v[i]))
                        strv_push(&left, have.v[i]);
        if (removed.n && left.n == 0) {
                strbuf_reset(&e);
                r = slurm_resv_delete(req.resv_name, &e);
                if (r < 0)
                        return resv_failed(r, &e, &req, err);
                deleted = true;
        } else if (removed.n) {
                ops_hostlist(left.v, &expr);
                strbuf_reset(&e);
                r = slurm_resv_set_nodes(req.resv_name, expr.buf, &e);
                if (r < 0)
                        return resv_failed(r, &e, &req, err);
        }
        if (deleted) {
                ops_kv(&kv, req.resv_name, "reservation.name");
                ops_kv(&kv, "true", "deleted");
        } else {
                strbuf_reset(&e);
                r = slurm_resv_get(req.resv_name, &after, &e);
                if (r < 0) {
                        strbuf_addf(err,
                                "the nodes were removed, but reading the reservation back failed: %s",
                                e.buf);
                        return r;
                }
                resv_results(&after, &kv);
                ops_kv(&kv, "false", "deleted");
        }
        {
                _cleanup_strbuf_ struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
                ops_hostlist(removed.v, &a);
                ops_hostlist(not_reserved.v, &b);
                ops_kv(&kv, removed.n ? a.buf : "none", "removed");
                if (not_reserved.n)
                        ops_kv(&kv, b.buf, "not-reserved");
        }
        {
                _cleanup_free_ char *d = xasprintf("reservation=%s%s", req.resv_name, deleted ? " (deleted)" : "");
                ops_note(ctx, "node-unreserve", &removed, NULL, d, &kv);
        }
        return ops_result_set(ctx, &kv, err);
}

int ops_node_unreserve(struct juju_ctx *ctx, struct strbuf *err) {
        return ops_run(ctx, "node-unreserve", node_unreserve, err);
}
