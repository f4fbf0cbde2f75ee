/* SPDX-License-Identifier: Apache-2.0 */
/* The node event log: snapshot difference as typed events (pure), and the durable JSON-lines
 * log with sequence numbers, ids, pending records and rotation (files under one directory). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/events.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <inttypes.h>
#include <slurm/slurm.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "slurm/nodestate.h"
#include "util/fileio.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)

#define STATE_VERSION 1
#define TAIL_MAX (64 * 1024)

static const char *const kind_names[EV_KIND_MAX] = {
        [EV_ADDED] = "added",
        [EV_REMOVED] = "removed",
        [EV_DOWN] = "down",
        [EV_UP] = "up",
        [EV_DRAINING] = "draining",
        [EV_DRAINED] = "drained",
        [EV_RESUMED] = "resumed",
        [EV_REASON] = "reason",
        [EV_REBOOTED] = "rebooted",
        [EV_SLURMCTLD_STARTED] = "slurmctld-started",
        [EV_CONTROL_MOVED] = "control-moved",
        [EV_ACTION] = "action",
};

static const char *const hint_names[EV_HINT_MAX] = {
        [EV_HINT_DOWN] = "down",
        [EV_HINT_DRAINED] = "drained",
        [EV_HINT_UP] = "up",
        [EV_HINT_RECONFIG] = "reconfig",
        [EV_HINT_SLURMCTLD] = "slurmctld",
};

const char *ev_kind_name(enum ev_kind k) {
        return (unsigned) k < EV_KIND_MAX ? kind_names[k] : NULL;
}

const char *ev_hint_name(enum ev_hint_kind k) {
        return (unsigned) k < EV_HINT_MAX ? hint_names[k] : NULL;
}

int ev_hint_parse(const char *name, enum ev_hint_kind *ret) {
        for (unsigned k = 0; name && k < EV_HINT_MAX; k++)
                if (streq(name, hint_names[k])) {
                        *ret = (enum ev_hint_kind) k;
                        return 0;
                }
        return -EINVAL;
}

void ev_hint_done(struct ev_hint *h) {
        if (!h)
                return;
        strv_clear(&h->nodes);
        free(h->host);
        h->host = NULL;
}

/* --- tables ------------------------------------------------------------------------------------ */

unsigned ev_state_class(uint32_t state) {
        unsigned c = 0;
        if ((state & NODE_STATE_BASE) == NODE_STATE_DOWN)
                c |= EV_CLS_DOWN;
        if (state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)) {
                c |= EV_CLS_DRAIN;
                if (slurm_state_busy(state))
                        c |= EV_CLS_BUSY;
        }
        return c;
}

static char *reason_dup(const char *s) {
        if (isempty(s))
                return NULL;
        size_t n = strlen(s);
        if (n <= EV_REASON_MAX)
                return xstrdup(s);
        /* cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx) */
        n = EV_REASON_MAX;
        while (n > 0 && ((unsigned char) s[n] & 0xC0) == 0x80)
                n--;
        return xstrndup(s, n);
}

static void node_done(struct ev_node *n) {
        free(n->name);
        free(n->reason);
}

void ev_table_done(struct ev_table *t) {
        if (!t)
                return;
        for (size_t i = 0; i < t->n; i++)
                node_done(&t->v[i]);
        free(t->v);
        *t = (struct ev_table){ 0 };
}

static struct ev_node *table_push(struct ev_table *t) {
        /* grow in powers of two: capacity is the next power of two >= n */
        if ((t->n & (t->n - 1)) == 0)
                t->v = xrealloc(t->v, (t->n ? t->n * 2 : 1) * sizeof(*t->v));
        struct ev_node *n = &t->v[t->n++];
        *n = (struct ev_node){ 0 };
        return n;
}

void ev_table_add(struct ev_table *t, const char *name, uint32_t state, const char *reason,
        int64_t reason_time, int64_t boot_time) {
        struct ev_node *n = table_push(t);
        n->name = xstrdup(strempty(name));
        n->state = state;
        n->cls = ev_state_class(state);
        n->reason = reason_dup(reason);
        n->reason_time = n->reason ? reason_time : 0;
        n->boot_time = boot_time;
}

static void node_copy(struct ev_node *dst, const struct ev_node *src) {
        *dst = *src;
        dst->name = xstrdup(src->name);
        dst->reason = src->reason ? xstrdup(src->reason) : NULL;
}

/* By name; among equal names the first in the table comes first (it is the one kept). */
static int cmp_node_ptr(const void *a, const void *b) {
        const struct ev_node *x = *(const struct ev_node *const *) a,
                             *y = *(const struct ev_node *const *) b;
        int c = strcmp(x->name, y->name);
        return c ? c : (x > y) - (x < y);
}

static const struct ev_node *table_find(const struct ev_table *t, const char *name) {
        size_t lo = 0, hi = t->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(t->v[mid].name, name);
                if (c == 0)
                        return &t->v[mid];
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

/* --- records ------------------------------------------------------------------------------------ */

void ev_records_done(struct ev_records *r) {
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++) {
                free(r->v[i].node);
                free(r->v[i].reason);
                free(r->v[i].cause);
                free(r->v[i].controller);
                free(r->v[i].previous);
                free(r->v[i].action);
                free(r->v[i].by);
                free(r->v[i].detail);
        }
        free(r->v);
        *r = (struct ev_records){ 0 };
}

static struct ev_record *records_push(struct ev_records *r) {
        if ((r->n & (r->n - 1)) == 0)
                r->v = xrealloc(r->v, (r->n ? r->n * 2 : 1) * sizeof(*r->v));
        struct ev_record *x = &r->v[r->n++];
        *x = (struct ev_record){ 0 };
        return x;
}

void ev_time_format(int64_t ms, struct strbuf *out) {
        time_t s = (time_t) (ms / 1000);
        struct tm tm;
        char buf[32];
        if (!gmtime_r(&s, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
                snprintf(buf, sizeof buf, "%" PRId64, s);
        strbuf_addf(out, "%s.%03dZ", buf, (int) (ms % 1000));
}

static void add_time(cJSON *o, const char *key, int64_t ms) {
        _cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
        ev_time_format(ms, &t);
        cJSON_AddStringToObject(o, key, t.buf);
}

void ev_record_format(const struct ev_record *r, const char *log_id, struct strbuf *out) {
        _cleanup_cjson_ cJSON *o = cJSON_CreateObject();
        _cleanup_strbuf_ struct strbuf id = STRBUF_INIT;
        char *s;

        cJSON_AddNumberToObject(o, "seq", (double) r->seq);
        strbuf_addf(&id, "%s-%" PRIu64, strempty(log_id), r->seq);
        cJSON_AddStringToObject(o, "id", id.buf);
        add_time(o, "time", r->time_ms);
        cJSON_AddStringToObject(o, "event", strempty(ev_kind_name(r->kind)));
        if (r->node)
                cJSON_AddStringToObject(o, "node", r->node);
        if (r->has_state) {
                _cleanup_strbuf_ struct strbuf st = STRBUF_INIT;
                slurm_state_format(r->state, &st);
                cJSON_AddStringToObject(o, "state", st.buf);
        }
        if (r->reason)
                cJSON_AddStringToObject(o, "reason", r->reason);
        cJSON_AddStringToObject(
                o, "source", r->kind == EV_ACTION ? "action" : r->from_trigger ? "trigger" : "reconcile");
        if (r->action)
                cJSON_AddStringToObject(o, "action", r->action);
        if (r->by)
                cJSON_AddStringToObject(o, "by", r->by);
        if (r->detail)
                cJSON_AddStringToObject(o, "detail", r->detail);
        if (r->cause)
                cJSON_AddStringToObject(o, "cause", r->cause);
        if (r->transient)
                cJSON_AddTrueToObject(o, "transient");
        if (r->inferred)
                cJSON_AddTrueToObject(o, "inferred");
        if (r->kind == EV_SLURMCTLD_STARTED && r->boot_time > 0)
                add_time(o, "boot-time", r->boot_time * 1000);
        if (r->controller)
                cJSON_AddStringToObject(o, "controller", r->controller);
        if (r->previous)
                cJSON_AddStringToObject(o, "previous-controller", r->previous);
        s = cJSON_PrintUnformatted(o);
        strbuf_addstr(out, s);
        cJSON_free(s);
}

/* A copy of s cut to EV_REASON_MAX bytes (NULL for NULL). */
static char *dup_cut(const char *s) {
        return s ? xstrndup(s, EV_REASON_MAX) : NULL;
}

size_t ev_note_records(struct ev_state *s, const struct ev_note *note, int64_t now_ms, struct ev_records *ret) {
        _cleanup_(ev_records_done) struct ev_records recs = { 0 };
        size_t n = note->n_nodes ? note->n_nodes : 1;
        strv_clear(&s->pending);
        for (size_t i = 0; i < n; i++) {
                struct ev_record *r = records_push(&recs);
                *r = (struct ev_record){
                        .seq = s->next_seq++,
                        .time_ms = now_ms,
                        .kind = EV_ACTION,
                        .node = note->n_nodes ? xstrdup(note->nodes[i]) : NULL,
                        .reason = dup_cut(note->reason),
                        .action = dup_cut(note->action),
                        .by = dup_cut(note->by),
                        .detail = dup_cut(note->detail),
                };
                _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
                ev_record_format(r, s->log_id, &line);
                strv_push(&s->pending, line.buf);
        }
        if (ret) {
                for (size_t i = 0; i < recs.n; i++)
                        *records_push(ret) = recs.v[i];
                free(recs.v);
                recs = (struct ev_records){ 0 };
        }
        return n;
}

/* --- the step ------------------------------------------------------------------------------------- */

void ev_state_done(struct ev_state *s) {
        if (!s)
                return;
        ev_table_done(&s->nodes);
        strv_clear(&s->pending);
        strv_clear(&s->unit_noted);
        *s = (struct ev_state){ 0 };
}

/* The entry of unit's list log in l: its index, or -1. */
static long noted_find(const struct strv *l, const char *unit, const char *log) {
        size_t ul = strlen(unit), ll = strlen(log);
        for (size_t i = 0; i < l->n; i++) {
                const char *e = l->v[i];
                if (strncmp(e, unit, ul) == 0 && e[ul] == ' ' && strncmp(e + ul + 1, log, ll) == 0 &&
                        e[ul + 1 + ll] == ' ')
                        return (long) i;
        }
        return -1;
}

uint64_t ev_noted_get(const struct strv *l, const char *unit, const char *log) {
        long i = noted_find(l, unit, log);
        if (i < 0)
                return 0;
        const char *seq = strrchr(l->v[i], ' ');
        return seq ? strtoull(seq + 1, NULL, 10) : 0;
}

void ev_noted_set(struct strv *l, const char *unit, const char *log, uint64_t seq, size_t max) {
        long i = noted_find(l, unit, log);
        if (i >= 0)
                strv_remove(l, (size_t) i);
        while (max > 0 && l->n >= max)
                strv_remove(l, 0);
        strv_pushf(l, "%s %s %llu", unit, log, (unsigned long long) seq);
}

uint64_t ev_unit_noted(const struct ev_state *s, const char *unit, const char *log) {
        return ev_noted_get(&s->unit_noted, unit, log);
}

void ev_unit_noted_set(struct ev_state *s, const char *unit, const char *log, uint64_t seq) {
        ev_noted_set(&s->unit_noted, unit, log, seq, EV_UNIT_NOTED_MAX);
}

static int seen_slot(enum ev_kind k) {
        switch (k) {
        case EV_DOWN:
                return EV_SEEN_DOWN;
        case EV_DRAINED:
                return EV_SEEN_DRAINED;
        case EV_UP:
                return EV_SEEN_UP;
        default:
                return -1;
        }
}

static enum ev_kind hint_event(enum ev_hint_kind h) {
        return h == EV_HINT_DOWN ? EV_DOWN : h == EV_HINT_DRAINED ? EV_DRAINED : EV_UP;
}

struct step {
        const struct ev_observation *obs;
        struct ev_records *out;
};

static struct ev_record *emit(struct step *st, enum ev_kind kind, const struct ev_node *n, bool has_state) {
        struct ev_record *r = records_push(st->out);
        r->kind = kind;
        r->time_ms = st->obs->now_ms;
        r->node = n ? xstrdup(n->name) : NULL;
        if (n && has_state) {
                r->state = n->state;
                r->has_state = true;
        }
        if (n && n->reason && kind != EV_REMOVED && kind != EV_UP && kind != EV_RESUMED &&
                kind != EV_REBOOTED)
                r->reason = xstrdup(n->reason);
        r->cause = st->obs->cause ? xstrdup(st->obs->cause) : NULL;
        return r;
}

static enum slurm_drain drain_of(unsigned cls) {
        if (!(cls & EV_CLS_DRAIN))
                return SLURM_DRAIN_NONE;
        return cls & EV_CLS_BUSY ? SLURM_DRAIN_DRAINING : SLURM_DRAIN_DRAINED;
}

/* The records of one node that is in the table now; o is its snapshot (NULL: new). */
static void diff_node(struct step *st, const struct ev_node *o, const struct ev_node *n) {
        unsigned oc = o ? o->cls : 0;
        bool state_event = false;

        if (!o)
                emit(st, EV_ADDED, n, true);
        if (!(oc & EV_CLS_DOWN) && (n->cls & EV_CLS_DOWN)) {
                emit(st, EV_DOWN, n, true);
                state_event = true;
        } else if ((oc & EV_CLS_DOWN) && !(n->cls & EV_CLS_DOWN))
                emit(st, EV_UP, n, true);
        enum slurm_drain od = drain_of(oc), nd = drain_of(n->cls);
        if (od != nd) {
                if (nd == SLURM_DRAIN_NONE)
                        emit(st, EV_RESUMED, n, true);
                else {
                        emit(st, nd == SLURM_DRAIN_DRAINING ? EV_DRAINING : EV_DRAINED, n, true);
                        state_event = true;
                }
        }
        if (o && !state_event && (n->cls & (EV_CLS_DOWN | EV_CLS_DRAIN)) && n->reason &&
                !streq_ptr(o->reason, n->reason))
                emit(st, EV_REASON, n, true);
        if (o && o->boot_time > 0 && n->boot_time > o->boot_time + EV_BOOT_SLACK_S)
                emit(st, EV_REBOOTED, n, true);
}

static bool hint_names_node(const struct ev_hint *h, const char *node) {
        return strv_contains(&h->nodes, node);
}

/* Whether a trigger's name for a node can be believed: slurmctld 22.05 keeps the pending
 * events as bits by node INDEX and names them at the next pass (trigger_mgr.c); a node deleted
 * meanwhile leaves its bit to whichever node takes its index (seen: the leaving node's
 * "drained" reported as the new node's). So only a node the snapshot knew for the whole window
 * before the trigger ran is named credibly. */
static bool credible(const struct ev_node *before, int64_t hint_ms) {
        return before && before->since_ms <= hint_ms - EV_TRIGGER_WINDOW_MS;
}

/* Whether a credible hint of this step names node (known before as `before`) with event kind. */
static bool hinted(const struct ev_observation *obs, const struct ev_node *before, const char *node,
        enum ev_kind kind) {
        for (size_t i = 0; i < obs->n_hints; i++) {
                const struct ev_hint *h = &obs->hints[i];
                if (h->kind <= EV_HINT_UP && hint_event(h->kind) == kind && hint_names_node(h, node) &&
                        credible(before, h->time_ms))
                        return true;
        }
        return false;
}

/* The transients of one node: trigger events of this step that its records do not show and that
 * the log did not record within the window before the trigger. first..out->n are its records
 * so far (the difference); transients go before them. */
static void transients(struct step *st, const char *name, const struct ev_node *before,
        const struct ev_node *now, size_t first) {
        static const enum ev_kind from_up[] = { EV_DOWN, EV_DRAINED, EV_UP };
        static const enum ev_kind from_down[] = { EV_UP, EV_DOWN, EV_DRAINED };
        const struct ev_observation *obs = st->obs;
        const enum ev_kind *order = before && (before->cls & EV_CLS_DOWN) ? from_down : from_up;
        const struct ev_node *mem = now ? now : before;
        size_t n_diff = st->out->n - first;

        for (size_t k = 0; k < 3; k++) {
                enum ev_kind kind = order[k];
                int64_t when = 0;
                bool named = false;
                for (size_t i = 0; i < obs->n_hints; i++) {
                        const struct ev_hint *h = &obs->hints[i];
                        if (h->kind > EV_HINT_UP || hint_event(h->kind) != kind ||
                                !hint_names_node(h, name) || !credible(before, h->time_ms))
                                continue;
                        named = true;
                        if (h->time_ms > when)
                                when = h->time_ms;
                }
                if (!named)
                        continue;
                bool shown = false;
                for (size_t j = first; j < first + n_diff; j++)
                        shown = shown || st->out->v[j].kind == kind;
                if (shown)
                        continue;
                if (mem && mem->seen_ms[seen_slot(kind)] >= when - EV_TRIGGER_WINDOW_MS)
                        continue; /* recorded already */
                struct ev_node tmp = { .name = (char *) name };
                struct ev_record *r = emit(st, kind, now ? now : &tmp, now && obs->table);
                r->from_trigger = true;
                r->transient = true;
                r->time_ms = when;
        }
        /* the transients were appended after the difference: rotate them in front */
        size_t n_tr = st->out->n - first - n_diff;
        if (n_tr > 0 && n_diff > 0) {
                struct ev_record *tmp = xmalloc(n_diff * sizeof(*tmp));
                memcpy(tmp, &st->out->v[first], n_diff * sizeof(*tmp));
                memmove(&st->out->v[first], &st->out->v[first + n_diff], n_tr * sizeof(*tmp));
                memcpy(&st->out->v[first + n_tr], tmp, n_diff * sizeof(*tmp));
                free(tmp);
        }
}

/* A record inserted at pos of out (the ones from pos on move up): inferred by
 * close_transients(). */
static struct ev_record *records_insert(struct ev_records *out, size_t pos) {
        records_push(out);
        memmove(&out->v[pos + 1], &out->v[pos], (out->n - 1 - pos) * sizeof(*out->v));
        out->v[pos] = (struct ev_record){ 0 };
        return &out->v[pos];
}

static void infer(struct step *st, size_t pos, enum ev_kind kind, const char *name, int64_t when) {
        struct ev_record *r = records_insert(st->out, pos);
        r->kind = kind;
        r->time_ms = when;
        r->node = xstrdup(name);
        r->cause = st->obs->cause ? xstrdup(st->obs->cause) : NULL;
        r->transient = true;
        r->inferred = true;
}

/* A node's records of this step (first..out->n: transients, then the difference) as one story
 * from its snapshot before to its state now: a trigger reports a change, not its undoing, and
 * Slurm has no trigger for a resume (a drain undone within a second left "drained" as the last
 * word while the node was idle again: issue 29). So where the story contradicts itself (a drain
 * while drained, a down while down, an up while up) or ends elsewhere than now, the missing
 * change is inserted (transient, "inferred": Slurm reported no such event; its time is the
 * next record's, or the step's for the closing one). Nothing is added where no transient was
 * recorded: the difference alone always tells a consistent story. */
static void close_transients(struct step *st, const char *name, const struct ev_node *before,
        const struct ev_node *now, size_t first) {
        bool any = false;
        for (size_t k = first; k < st->out->n; k++)
                any = any || st->out->v[k].transient;
        if (!any || !now)
                return;
        bool down = before && (before->cls & EV_CLS_DOWN), drain = before && (before->cls & EV_CLS_DRAIN);
        for (size_t k = first; k < st->out->n; k++) {
                /* read before an insertion moves the array */
                enum ev_kind kind = st->out->v[k].kind;
                int64_t when = st->out->v[k].time_ms;
                /* only a transient can contradict: the difference's records are consistent by
                 * construction (draining -> drained is a DRAINED while the flag stays: review E1) */
                bool tr = st->out->v[k].transient;
                switch (kind) {
                case EV_DOWN:
                        if (down && tr)
                                infer(st, k++, EV_UP, name, when);
                        down = true;
                        break;
                case EV_UP:
                        if (!down && tr)
                                infer(st, k++, EV_DOWN, name, when);
                        down = false;
                        break;
                case EV_DRAINING:
                case EV_DRAINED:
                        if (drain && tr)
                                infer(st, k++, EV_RESUMED, name, when);
                        drain = true;
                        break;
                case EV_RESUMED:
                        drain = false;
                        break;
                default:
                        break;
                }
        }
        if (down != !!(now->cls & EV_CLS_DOWN))
                infer(st, st->out->n, down ? EV_UP : EV_DOWN, name, st->obs->now_ms);
        if (drain != !!(now->cls & EV_CLS_DRAIN))
                infer(st, st->out->n,
                        drain                                             ? EV_RESUMED
                                : drain_of(now->cls) == SLURM_DRAIN_DRAINING ? EV_DRAINING
                                                                             : EV_DRAINED,
                        name, st->obs->now_ms);
}

static bool node_kept_equal(const struct ev_node *a, const struct ev_node *b) {
        return streq(a->name, b->name) && a->cls == b->cls && streq_ptr(a->reason, b->reason) &&
                a->reason_time == b->reason_time && a->boot_time == b->boot_time &&
                a->since_ms == b->since_ms && memcmp(a->seen_ms, b->seen_ms, sizeof(a->seen_ms)) == 0;
}

int ev_step(const struct ev_state *prev, const struct ev_observation *obs, struct ev_state *ret_next,
        struct ev_records *ret_new) {
        struct ev_state next = { .exists = true, .next_seq = prev->next_seq ? prev->next_seq : 1 };
        struct ev_records out = { 0 };
        struct step st = { .obs = obs, .out = &out };
        const struct ev_table *now = obs->table ? obs->table : &prev->nodes;
        _cleanup_free_ const struct ev_node **sorted = NULL;
        bool changed = !prev->exists;

        memcpy(next.log_id, prev->log_id, sizeof(next.log_id));
        next.table_time = obs->table ? obs->table_time : prev->table_time;
        next.ctl_boot = obs->ctl_boot ? obs->ctl_boot : prev->ctl_boot;
        next.ctl_update = obs->ctl_update ? obs->ctl_update : prev->ctl_update;
        changed = changed || next.ctl_boot != prev->ctl_boot || next.ctl_update != prev->ctl_update;
        /* the host in charge: the newest word of the triggers and the observation, taken only
         * when it is newer than the last change the log knows and names another host */
        memcpy(next.ctl_host, prev->ctl_host, sizeof(next.ctl_host));
        next.ctl_host_ms = prev->ctl_host_ms;
        const char *host_now = NULL;
        int64_t host_ms = 0;
        bool host_by_trigger = false;
        if (obs->ctl_host && obs->ctl_host[0] && strlen(obs->ctl_host) <= EV_HOST_MAX) {
                host_now = obs->ctl_host;
                host_ms = obs->ctl_host_ms;
        }
        for (size_t i = 0; i < obs->n_hints; i++) {
                const struct ev_hint *h = &obs->hints[i];
                if (h->kind == EV_HINT_SLURMCTLD && h->host && h->host[0] && strlen(h->host) <= EV_HOST_MAX &&
                        h->time_ms >= host_ms) {
                        host_now = h->host;
                        host_ms = h->time_ms;
                        host_by_trigger = true;
                }
        }
        bool moved = false;
        if (host_now && host_ms > prev->ctl_host_ms && !streq(host_now, prev->ctl_host)) {
                moved = prev->exists && prev->ctl_host[0];
                snprintf(next.ctl_host, sizeof(next.ctl_host), "%s", host_now);
                next.ctl_host_ms = host_ms;
                changed = true;
        }

        /* the table now, sorted by name, without duplicates */
        sorted = xcalloc(now->n ? now->n : 1, sizeof(*sorted));
        for (size_t i = 0; i < now->n; i++)
                sorted[i] = &now->v[i];
        if (obs->table)
                qsort(sorted, now->n, sizeof(*sorted), cmp_node_ptr);
        for (size_t i = 0; i < now->n; i++) {
                if (i > 0 && streq(sorted[i]->name, sorted[i - 1]->name))
                        continue;
                struct ev_node *n = table_push(&next.nodes);
                node_copy(n, sorted[i]);
                n->cls = ev_state_class(sorted[i]->state);
                if (!obs->table)
                        n->cls = sorted[i]->cls; /* carried over: no state bits */
                const struct ev_node *o = table_find(&prev->nodes, n->name);
                memset(n->seen_ms, 0, sizeof(n->seen_ms));
                n->since_ms = obs->now_ms;
                if (o) {
                        memcpy(n->seen_ms, o->seen_ms, sizeof(n->seen_ms));
                        n->since_ms = o->since_ms;
                }
        }

        if (prev->exists) {
                if (prev->ctl_boot && obs->ctl_boot && obs->ctl_boot != prev->ctl_boot) {
                        struct ev_record *r = emit(&st, EV_SLURMCTLD_STARTED, NULL, false);
                        r->boot_time = obs->ctl_boot;
                        r->controller = next.ctl_host[0] ? xstrdup(next.ctl_host) : NULL;
                        for (size_t i = 0; i < obs->n_hints; i++)
                                r->from_trigger = r->from_trigger || obs->hints[i].kind == EV_HINT_SLURMCTLD;
                }
                if (moved) {
                        struct ev_record *r = emit(&st, EV_CONTROL_MOVED, NULL, false);
                        r->controller = xstrdup(next.ctl_host);
                        r->previous = xstrdup(prev->ctl_host);
                        r->from_trigger = host_by_trigger;
                }
                /* merge walk over the old and the new table (both sorted) */
                size_t i = 0, j = 0;
                while (i < prev->nodes.n || j < next.nodes.n) {
                        const struct ev_node *o = i < prev->nodes.n ? &prev->nodes.v[i] : NULL;
                        struct ev_node *n = j < next.nodes.n ? &next.nodes.v[j] : NULL;
                        int c = !o ? 1 : !n ? -1 : strcmp(o->name, n->name);
                        size_t first = out.n;
                        if (c < 0) {
                                emit(&st, EV_REMOVED, o, false);
                                transients(&st, o->name, o, NULL, first);
                                i++;
                        } else {
                                if (obs->table)
                                        diff_node(&st, c == 0 ? o : NULL, n);
                                transients(&st, n->name, c == 0 ? o : NULL, n, first);
                                close_transients(&st, n->name, c == 0 ? o : NULL, n, first);
                                /* what this step recorded is remembered for the trigger window */
                                for (size_t k = first; k < out.n; k++) {
                                        int slot = seen_slot(out.v[k].kind);
                                        if (slot >= 0 && n->seen_ms[slot] < obs->now_ms)
                                                n->seen_ms[slot] = obs->now_ms;
                                        if (!out.v[k].transient && slot >= 0 &&
                                                hinted(obs, c == 0 ? o : NULL, n->name, out.v[k].kind))
                                                out.v[k].from_trigger = true;
                                }
                                if (c == 0)
                                        i++;
                                j++;
                        }
                }
                /* a name neither snapshot knew for the window is no credible witness (above) */
        }

        if (!changed) {
                changed = prev->nodes.n != next.nodes.n;
                for (size_t k = 0; !changed && k < next.nodes.n; k++)
                        changed = !node_kept_equal(&prev->nodes.v[k], &next.nodes.v[k]);
        }
        for (size_t k = 0; k < out.n; k++) {
                _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
                out.v[k].seq = next.next_seq++;
                ev_record_format(&out.v[k], next.log_id, &line);
                strv_push(&next.pending, line.buf);
        }
        if (out.n == 0)
                strv_pushv(&next.pending, prev->pending.v);
        strv_pushv(&next.unit_noted, prev->unit_noted.v);
        *ret_next = next;
        *ret_new = out;
        return changed || out.n > 0;
}

/* --- files: state.json ---------------------------------------------------------------------------- */

static char *dir_file(const char *dir, const char *name) {
        return xasprintf("%s/%s", dir, name);
}

static int fail_path(struct strbuf *err, const char *path, int r) {
        if (err)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* The directory dir leads to, through links that are each root's (the charm's own
 * <state>/events to the shared place, evshare.h): *ret_final, a path whose last component is
 * no link (or does not exist yet). The shared place lies in the state save location,
 * SlurmUser's: that user could rename charm-events away and put a link in its place, and the
 * watcher (root) wrote the event table and its lock into whatever directory it named (attack
 * atk8 G1). 0, or -EPERM / another negative errno with the reason in err. */
static int resolve_root_links(const char *dir, char **ret_final, struct strbuf *err) {
        _cleanup_free_ char *p = xstrdup(dir);
        struct stat st;
        for (int hop = 0;; hop++) {
                if (lstat(p, &st) < 0) {
                        if (errno != ENOENT)
                                return fail_path(err, p, -errno);
                        break;
                }
                if (!S_ISLNK(st.st_mode))
                        break;
                if (st.st_uid != 0 || hop >= 8) {
                        if (err)
                                strbuf_addf(err, "%s: a link of uid %u, not root's: refused", p,
                                        (unsigned) st.st_uid);
                        return -EPERM;
                }
                char target[PATH_MAX];
                ssize_t n = readlink(p, target, sizeof target - 1);
                if (n < 0)
                        return fail_path(err, p, -errno);
                target[n] = '\0';
                char *next;
                if (target[0] == '/')
                        next = xstrdup(target);
                else {
                        char *slash = strrchr(p, '/');
                        next = slash ? xasprintf("%.*s/%s", (int) (slash - p), p, target) : xstrdup(target);
                }
                free(p);
                p = next;
        }
        *ret_final = TAKE_PTR(p);
        return 0;
}

/* dir opened (made 0700 when missing) as the directory it is at this moment: as root, through
 * root's links only (resolve_root_links), the last component never a link (O_NOFOLLOW: a link
 * swapped in after the walk is refused, never followed), and a directory of root's that only
 * root writes. Every later step of the run goes through the descriptor (ev_lock_path), so a
 * directory renamed away and replaced once it is open is harmless (review R6: the check and
 * every later open resolved the path again). */
static int open_log_dir(const char *dir, int *ret_fd, struct stat *ret_st, struct strbuf *err) {
        _cleanup_free_ char *final = NULL;
        int r;
        if (geteuid() != 0) {
                /* tests run the log as any user, in their own directories */
                r = mkdir_p(dir, 0700);
                if (r < 0)
                        return fail_path(err, dir, r);
                final = xstrdup(dir);
        } else {
                r = resolve_root_links(dir, &final, err);
                if (r < 0)
                        return r;
                /* one level, not following a link there: the parents are the charm's state
                 * directory or the state save location, both there before any log */
                if (mkdir(final, 0700) < 0 && errno != EEXIST) {
                        if (errno != ENOENT)
                                return fail_path(err, final, -errno);
                        r = mkdir_p(final, 0700);
                        if (r < 0)
                                return fail_path(err, final, r);
                }
        }
        _cleanup_close_ int fd = open(final, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (geteuid() == 0 ? O_NOFOLLOW : 0));
        if (fd < 0) {
                if (errno == ELOOP || errno == ENOTDIR) {
                        if (err)
                                strbuf_addf(err, "%s: a link or no directory where the node event log lives: refused", final);
                        return -EPERM;
                }
                return fail_path(err, final, -errno);
        }
        if (fstat(fd, ret_st) < 0)
                return fail_path(err, final, -errno);
        if (geteuid() == 0 && (ret_st->st_uid != 0 || (ret_st->st_mode & 022))) {
                if (err)
                        strbuf_addf(err, "%s: not a directory of root's that only root writes (mode %o, owner %u): refused",
                                final, (unsigned) (ret_st->st_mode & 07777), (unsigned) ret_st->st_uid);
                return -EPERM;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

char *ev_lock_path(int dir_fd) {
        return xasprintf("/proc/self/fd/%d", dir_fd);
}

void ev_unlock(struct ev_held *h) {
        if (!h)
                return;
        if (h->lock >= 0)
                close(h->lock);
        if (h->dir >= 0)
                close(h->dir);
        h->lock = h->dir = -1;
}

static void sleep_20ms(int *waited) {
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        *waited += 20;
}

/* flock(fd, LOCK_EX) waiting while another holds it: 0, -ETIMEDOUT past limit (said in err),
 * or -errno. */
static int flock_wait(int fd, const char *dir, int limit, int *waited, struct strbuf *err) {
        while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK)
                        return -errno;
                if (*waited >= limit) {
                        if (err)
                                strbuf_addf(err, "%s: still held by another writer after %d ms", dir, *waited);
                        return -ETIMEDOUT;
                }
                sleep_20ms(waited);
        }
        return 0;
}

/* The lock file in the directory held (made 0600; never a link: O_NOFOLLOW; a regular file,
 * opened for writing so that an NFS client can lock it). */
static int open_lock_file(int dir_fd, const char *dir, int *ret_fd, struct strbuf *err) {
        _cleanup_close_ int fd = openat(dir_fd, EV_DIRLOCK_FILE,
                O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
        if (fd < 0) {
                if (errno == ELOOP) {
                        if (err)
                                strbuf_addf(err, "%s/%s: a link: refused", dir, EV_DIRLOCK_FILE);
                        return -EPERM;
                }
                return fail_path(err, dir, -errno);
        }
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail_path(err, dir, -errno);
        if (!S_ISREG(st.st_mode)) {
                if (err)
                        strbuf_addf(err, "%s/%s: not a regular file: refused", dir, EV_DIRLOCK_FILE);
                return -EPERM;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int ev_lock(const char *dir, int timeout_ms, struct ev_held *ret, struct strbuf *err) {
        int waited = 0, limit = timeout_ms > 0 ? timeout_ms : EV_LOCK_TIMEOUT_MS;
        for (;;) {
                _cleanup_close_ int fd = -1, lock = -1;
                struct stat held;
                int r = open_log_dir(dir, &fd, &held, err);
                if (r < 0)
                        return r;
                /* the directory's own lock, as earlier versions of the charm take it (a unit
                 * not upgraded yet); a file system that cannot lock a directory opened
                 * read-only (NFS: EBADF, ENOLCK) has only the file's below */
                r = flock_wait(fd, dir, limit, &waited, err);
                if (r == -ETIMEDOUT)
                        return r;
                /* the lock: the regular file in it; none there to make when the directory was
                 * removed while we waited (its log moved into the shared one: evshare.h), and
                 * then the name is looked at again below */
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = open_lock_file(fd, dir, &lock, &e);
                if (r < 0 && r != -ENOENT) {
                        if (err)
                                strbuf_addbuf(err, &e);
                        return r;
                }
                if (r >= 0) {
                        r = flock_wait(lock, dir, limit, &waited, err);
                        if (r == -ETIMEDOUT)
                                return r;
                        if (r < 0)
                                return fail_path(err, dir, r);
                }
                /* the directory dir names now: a log directory moved while we waited
                 * (charm/slurmctld/evshare.h: a unit's log joined the shared one) leaves us the old one */
                _cleanup_close_ int again = -1;
                struct stat now;
                if (lock >= 0 && open_log_dir(dir, &again, &now, NULL) == 0 && now.st_dev == held.st_dev &&
                        now.st_ino == held.st_ino) {
                        ret->dir = TAKE_FD(fd);
                        ret->lock = TAKE_FD(lock);
                        return 0;
                }
                if (waited >= limit)
                        return fail_path(err, dir, -ETIMEDOUT);
                sleep_20ms(&waited);
        }
}

static void new_log_id(char id[EV_LOG_ID_LEN + 1]) {
        unsigned char rnd[EV_LOG_ID_LEN / 2];
        if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t) sizeof rnd) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                uint32_t x = (uint32_t) ts.tv_nsec ^ (uint32_t) ts.tv_sec ^ ((uint32_t) getpid() << 16);
                memcpy(rnd, &x, sizeof rnd);
        }
        for (size_t i = 0; i < sizeof rnd; i++)
                snprintf(id + 2 * i, 3, "%02x", rnd[i]);
}

static int64_t jint(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        return cJSON_IsNumber(v) ? (int64_t) v->valuedouble : 0;
}

static int state_parse(const char *data, struct ev_state *ret) {
        _cleanup_cjson_ cJSON *j = cJSON_Parse(data);
        struct ev_state s = { .exists = true };
        const cJSON *id, *nodes, *pending, *x;

        if (!cJSON_IsObject(j) || jint(j, "version") != STATE_VERSION)
                return -EBADMSG;
        id = cJSON_GetObjectItemCaseSensitive(j, "log-id");
        if (!cJSON_IsString(id) || strlen(id->valuestring) != EV_LOG_ID_LEN ||
                strspn(id->valuestring, "0123456789abcdef") != EV_LOG_ID_LEN)
                return -EBADMSG;
        memcpy(s.log_id, id->valuestring, EV_LOG_ID_LEN + 1);
        s.next_seq = (uint64_t) jint(j, "next-seq");
        s.table_time = jint(j, "table-time");
        s.ctl_boot = jint(j, "slurmctld-boot");
        s.ctl_update = jint(j, "slurmctld-update");
        x = cJSON_GetObjectItemCaseSensitive(j, "slurmctld-host"); /* absent in earlier snapshots */
        if (cJSON_IsString(x) && strlen(x->valuestring) <= EV_HOST_MAX) {
                snprintf(s.ctl_host, sizeof(s.ctl_host), "%s", x->valuestring);
                s.ctl_host_ms = jint(j, "slurmctld-host-time");
        }
        nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
        pending = cJSON_GetObjectItemCaseSensitive(j, "pending");
        if (s.next_seq < 1 || !cJSON_IsArray(nodes) || !cJSON_IsArray(pending))
                return -EBADMSG;
        /* each node: [name, cls, reason|null, reason_time, boot_time, seen_down, seen_drained,
         * seen_up, since] */
        cJSON_ArrayForEach(x, nodes) {
                const cJSON *f[9];
                int k = 0;
                const cJSON *e;
                cJSON_ArrayForEach(e, x) {
                        if (k < 9)
                                f[k] = e;
                        k++;
                }
                if (k != 9 || !cJSON_IsString(f[0]) || !cJSON_IsNumber(f[1]) ||
                        !(cJSON_IsString(f[2]) || cJSON_IsNull(f[2]))) {
                        ev_state_done(&s);
                        return -EBADMSG;
                }
                struct ev_node *n = table_push(&s.nodes);
                n->name = xstrdup(f[0]->valuestring);
                n->cls = (unsigned) f[1]->valuedouble & (EV_CLS_DOWN | EV_CLS_DRAIN | EV_CLS_BUSY);
                n->reason = cJSON_IsString(f[2]) ? reason_dup(f[2]->valuestring) : NULL;
                n->reason_time = cJSON_IsNumber(f[3]) ? (int64_t) f[3]->valuedouble : 0;
                n->boot_time = cJSON_IsNumber(f[4]) ? (int64_t) f[4]->valuedouble : 0;
                for (int q = 0; q < EV_SEEN_N; q++)
                        n->seen_ms[q] = cJSON_IsNumber(f[5 + q]) ? (int64_t) f[5 + q]->valuedouble : 0;
                n->since_ms = cJSON_IsNumber(f[8]) ? (int64_t) f[8]->valuedouble : 0;
        }
        /* kept sorted by name (a hand-edited file may not be) */
        for (size_t i = 1; i < s.nodes.n; i++)
                if (strcmp(s.nodes.v[i - 1].name, s.nodes.v[i].name) >= 0) {
                        ev_state_done(&s);
                        return -EBADMSG;
                }
        cJSON_ArrayForEach(x, pending) {
                if (!cJSON_IsString(x)) {
                        ev_state_done(&s);
                        return -EBADMSG;
                }
                strv_push(&s.pending, x->valuestring);
        }
        /* absent in earlier snapshots; each "<unit> <log> <seq>" */
        const cJSON *noted = cJSON_GetObjectItemCaseSensitive(j, "unit-actions");
        cJSON_ArrayForEach(x, noted) {
                if (!cJSON_IsString(x) || strchr(x->valuestring, '\n') || !strrchr(x->valuestring, ' ')) {
                        ev_state_done(&s);
                        return -EBADMSG;
                }
                if (s.unit_noted.n < EV_UNIT_NOTED_MAX)
                        strv_push(&s.unit_noted, x->valuestring);
        }
        *ret = s;
        return 0;
}

static char *state_render(const struct ev_state *s) {
        _cleanup_cjson_ cJSON *j = cJSON_CreateObject();
        cJSON *nodes, *pending;
        cJSON_AddNumberToObject(j, "version", STATE_VERSION);
        cJSON_AddStringToObject(j, "log-id", s->log_id);
        cJSON_AddNumberToObject(j, "next-seq", (double) s->next_seq);
        cJSON_AddNumberToObject(j, "table-time", (double) s->table_time);
        cJSON_AddNumberToObject(j, "slurmctld-boot", (double) s->ctl_boot);
        cJSON_AddNumberToObject(j, "slurmctld-update", (double) s->ctl_update);
        if (s->ctl_host[0]) {
                cJSON_AddStringToObject(j, "slurmctld-host", s->ctl_host);
                cJSON_AddNumberToObject(j, "slurmctld-host-time", (double) s->ctl_host_ms);
        }
        nodes = cJSON_AddArrayToObject(j, "nodes");
        for (size_t i = 0; i < s->nodes.n; i++) {
                const struct ev_node *n = &s->nodes.v[i];
                cJSON *row = cJSON_CreateArray();
                cJSON_AddItemToArray(row, cJSON_CreateString(n->name));
                cJSON_AddItemToArray(row, cJSON_CreateNumber(n->cls));
                cJSON_AddItemToArray(row, n->reason ? cJSON_CreateString(n->reason) : cJSON_CreateNull());
                cJSON_AddItemToArray(row, cJSON_CreateNumber((double) n->reason_time));
                cJSON_AddItemToArray(row, cJSON_CreateNumber((double) n->boot_time));
                for (int q = 0; q < EV_SEEN_N; q++)
                        cJSON_AddItemToArray(row, cJSON_CreateNumber((double) n->seen_ms[q]));
                cJSON_AddItemToArray(row, cJSON_CreateNumber((double) n->since_ms));
                cJSON_AddItemToArray(nodes, row);
        }
        pending = cJSON_AddArrayToObject(j, "pending");
        for (size_t i = 0; i < s->pending.n; i++)
                cJSON_AddItemToArray(pending, cJSON_CreateString(s->pending.v[i]));
        if (s->unit_noted.n > 0) {
                cJSON *noted = cJSON_AddArrayToObject(j, "unit-actions");
                for (size_t i = 0; i < s->unit_noted.n; i++)
                        cJSON_AddItemToArray(noted, cJSON_CreateString(s->unit_noted.v[i]));
        }
        char *p = cJSON_PrintUnformatted(j);
        char *ret = xasprintf("%s\n", p);
        cJSON_free(p);
        return ret;
}

/* --- files: the log --------------------------------------------------------------------------------- */

static size_t cap_of(const struct ev_log_opts *o) {
        size_t cap = o && o->cap ? o->cap : EV_LOG_CAP_DEFAULT;
        return cap < EV_LOG_CAP_MIN ? EV_LOG_CAP_MIN : cap;
}

/* The seq of a log line ("{"seq":N,…"); 0 when it is not one. */
static uint64_t line_seq(const char *line, size_t len) {
        static const char prefix[] = "{\"seq\":";
        char *end;
        if (len < sizeof(prefix) || strncmp(line, prefix, sizeof(prefix) - 1) != 0)
                return 0;
        const char *p = line + sizeof(prefix) - 1;
        if (*p < '1' || *p > '9')
                return 0;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || *end != ',')
                return 0;
        return v;
}

/* The last complete line's seq of one log part (0: none). */
static int part_last_seq(const char *path, uint64_t *ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;
        *ret = 0;
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        size_t n = st.st_size > TAIL_MAX ? TAIL_MAX : (size_t) st.st_size;
        if (n == 0)
                return 0;
        _cleanup_free_ char *buf = xmalloc(n + 1);
        ssize_t got = pread(fd, buf, n, st.st_size - (off_t) n);
        if (got < 0)
                return -errno;
        buf[got] = '\0';
        /* walk back over complete lines (those ending in '\n') until one parses */
        size_t end = (size_t) got;
        while (end > 0 && buf[end - 1] != '\n')
                end--;
        while (end > 0) {
                size_t start = end - 1;
                while (start > 0 && buf[start - 1] != '\n')
                        start--;
                uint64_t seq = line_seq(buf + start, end - 1 - start);
                if (seq > 0) {
                        *ret = seq;
                        return 0;
                }
                end = start;
        }
        return 0;
}

int ev_log_last_seq(const char *dir, uint64_t *ret, struct strbuf *err) {
        _cleanup_free_ char *cur = dir_file(dir, EV_LOG_FILE), *old = dir_file(dir, EV_LOG_OLD_FILE);
        uint64_t a = 0, b = 0;
        int r = part_last_seq(cur, &a);
        if (r < 0)
                return fail_path(err, cur, r);
        r = part_last_seq(old, &b);
        if (r < 0)
                return fail_path(err, old, r);
        *ret = a > b ? a : b;
        return 0;
}

static int fsync_dir(const char *dir) {
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

/* Cuts a partial last line (a writer died inside its write). */
static int cut_partial(int fd, off_t *size) {
        char c;
        if (*size == 0)
                return 0;
        if (pread(fd, &c, 1, *size - 1) != 1)
                return -EIO;
        if (c == '\n')
                return 0;
        off_t pos = *size;
        char buf[4096];
        while (pos > 0) {
                size_t n = pos > (off_t) sizeof buf ? sizeof buf : (size_t) pos;
                ssize_t got = pread(fd, buf, n, pos - (off_t) n);
                if (got != (ssize_t) n)
                        return -EIO;
                for (size_t i = n; i > 0; i--)
                        if (buf[i - 1] == '\n') {
                                off_t keep = pos - (off_t) n + (off_t) i;
                                if (ftruncate(fd, keep) < 0)
                                        return -errno;
                                *size = keep;
                                return 0;
                        }
                pos -= (off_t) n;
        }
        if (ftruncate(fd, 0) < 0)
                return -errno;
        *size = 0;
        return 0;
}

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += w;
                n -= (size_t) w;
        }
        return 0;
}

int ev_log_append(
        const char *dir, const struct ev_log_opts *o, char *const *lines, size_t n, struct strbuf *err) {
        _cleanup_free_ char *cur = dir_file(dir, EV_LOG_FILE), *old = dir_file(dir, EV_LOG_OLD_FILE);
        _cleanup_strbuf_ struct strbuf data = STRBUF_INIT;
        _cleanup_close_ int fd = -1;
        struct stat st;
        bool created = false;
        int r;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                strbuf_addstr(&data, lines[i]);
                strbuf_addch(&data, '\n');
        }
        fd = open(cur, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 && errno != ENOENT)
                return fail_path(err, cur, -errno);
        if (fd >= 0) {
                off_t size;
                if (fstat(fd, &st) < 0)
                        return fail_path(err, cur, -errno);
                size = st.st_size;
                r = cut_partial(fd, &size);
                if (r < 0)
                        return fail_path(err, cur, r);
                if (size > 0 && (size_t) size + data.len > cap_of(o) / 2) {
                        /* rotate: the log becomes the older part (replacing it) */
                        close(TAKE_FD(fd));
                        if (rename(cur, old) < 0)
                                return fail_path(err, cur, -errno);
                        r = fsync_dir(dir);
                        if (r < 0)
                                return fail_path(err, dir, r);
                }
        }
        if (fd < 0) {
                fd = open(cur, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
                if (fd < 0)
                        return fail_path(err, cur, -errno);
                created = true;
        }
        r = write_all(fd, data.buf, data.len);
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && created)
                r = fsync_dir(dir);
        if (r < 0)
                return fail_path(err, cur, r);
        return (int) n;
}

/* Appends the pending lines the log lacks (seq above its last). */
static int flush_pending(
        const char *dir, const struct ev_log_opts *o, const struct ev_state *s, struct strbuf *err) {
        _cleanup_strv_ struct strv missing = STRV_INIT;
        uint64_t last;
        int r = ev_log_last_seq(dir, &last, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->pending.n; i++)
                if (line_seq(s->pending.v[i], strlen(s->pending.v[i])) > last)
                        strv_push(&missing, s->pending.v[i]);
        return ev_log_append(dir, o, missing.v, missing.n, err);
}

int ev_state_load(const char *dir, const struct ev_log_opts *o, struct ev_state *ret, struct strbuf *err) {
        _cleanup_free_ char *path = dir_file(dir, EV_STATE_FILE), *data = NULL;
        struct ev_state s = { 0 };
        uint64_t last;
        int r;

        r = read_untrusted_file(path, FILEIO_READ_MAX, &data, NULL, NULL);
        if (r >= 0 && state_parse(data, &s) < 0) {
                /* unreadable: kept aside for a look, and a new snapshot (the log goes on) */
                _cleanup_free_ char *bad = dir_file(dir, EV_STATE_FILE ".bad");
                if (rename(path, bad) < 0)
                        return fail_path(err, path, -errno);
                r = -ENOENT;
        }
        if (r == -ENOENT) {
                s = (struct ev_state){ .next_seq = 1 };
                new_log_id(s.log_id);
        } else if (r < 0)
                return fail_path(err, path, r);
        r = ev_log_last_seq(dir, &last, err);
        if (r >= 0)
                r = flush_pending(dir, o, &s, err);
        if (r < 0) {
                ev_state_done(&s);
                return r;
        }
        if (s.next_seq <= last)
                s.next_seq = last + 1;
        *ret = s;
        return 0;
}

int ev_commit(
        const char *dir, const struct ev_log_opts *o, const struct ev_state *next, struct strbuf *err) {
        _cleanup_free_ char *path = dir_file(dir, EV_STATE_FILE), *data = state_render(next);
        int r = write_file_atomic(path, data, strlen(data), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                return fail_path(err, path, r);
        return flush_pending(dir, o, next, err);
}

/* --- files: reading ------------------------------------------------------------------------------------ */

void ev_page_done(struct ev_page *p) {
        if (!p)
                return;
        strv_clear(&p->lines);
        *p = (struct ev_page){ 0 };
}

struct line_ref {
        uint64_t seq;
        const char *p;
        size_t len;
};

static void collect(const char *data, size_t len, struct line_ref **v, size_t *n, size_t *alloc) {
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(data + pos, '\n', len - pos);
                if (!nl)
                        break; /* a partial last line */
                size_t l = (size_t) (nl - (data + pos));
                uint64_t seq = line_seq(data + pos, l);
                /* seq only ever grows: a line out of order is damage, left out */
                if (seq > 0 && (*n == 0 || seq > (*v)[*n - 1].seq)) {
                        if (*n == *alloc) {
                                *alloc = *alloc ? *alloc * 2 : 256;
                                *v = xrealloc(*v, *alloc * sizeof(**v));
                        }
                        (*v)[(*n)++] = (struct line_ref){ seq, data + pos, l };
                }
                pos += l + 1;
        }
}

int ev_log_read(const char *dir, bool has_since, uint64_t since, size_t limit, size_t max_bytes,
        struct ev_page *ret, struct strbuf *err) {
        _cleanup_free_ char *cur = dir_file(dir, EV_LOG_FILE), *old = dir_file(dir, EV_LOG_OLD_FILE);
        _cleanup_free_ char *a = NULL, *b = NULL;
        _cleanup_free_ struct line_ref *v = NULL;
        size_t alen = 0, blen = 0, n = 0, alloc = 0, from, to, bytes = 0;
        struct ev_page page = { .lines = STRV_INIT };
        int r;

        r = read_untrusted_file(old, FILEIO_READ_MAX, &a, &alen, NULL);
        if (r < 0 && r != -ENOENT)
                return fail_path(err, old, r);
        r = read_untrusted_file(cur, FILEIO_READ_MAX, &b, &blen, NULL);
        if (r < 0 && r != -ENOENT)
                return fail_path(err, cur, r);
        if (a)
                collect(a, alen, &v, &n, &alloc);
        if (b)
                collect(b, blen, &v, &n, &alloc);
        if (n > 0) {
                page.oldest = v[0].seq;
                page.latest = v[n - 1].seq;
        }
        if (has_since) {
                /* forward from since: while the limit and the bytes allow */
                from = 0;
                while (from < n && v[from].seq <= since)
                        from++;
                to = from;
                while (to < n && to - from < limit &&
                        (to == from || !max_bytes || bytes + v[to].len + 1 <= max_bytes))
                        bytes += v[to++].len + 1;
                page.more = to < n;
                if (n > 0 && since + 1 < page.oldest)
                        page.rotated_out = page.oldest - since - 1;
        } else {
                /* backward from the newest */
                to = n;
                from = n;
                while (from > 0 && to - from < limit &&
                        (from == to || !max_bytes || bytes + v[from - 1].len + 1 <= max_bytes))
                        bytes += v[--from].len + 1;
                page.more = from > 0;
        }
        for (size_t i = from; i < to; i++) {
                _cleanup_free_ char *line = xstrndup(v[i].p, v[i].len);
                strv_push(&page.lines, line);
        }
        if (to > from) {
                page.first = v[from].seq;
                page.last = v[to - 1].seq;
        }
        *ret = page;
        return (int) (to - from);
}
