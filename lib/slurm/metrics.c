/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster's Prometheus metrics: a snapshot through libslurm, rendered as text (slurm/metrics.h). */
#include "util/macro.h"
#include "slurm/metrics.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/acctdb.h"
#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/slurmerr.h"
#include "slurmconf/grescount.h"
#include "util/alloc.h"
#include "util/strv.h"

#include "slurm/metrics-rpcnames.h"

#include "util/banned.h"

/* libslurm's parsed configuration, and its bitstring count (exported, not declared in its
 * public headers: int32_t bit_set_count(bitstr_t *) in 22.05 and 24.11) */
extern slurm_conf_t slurm_conf;
int32_t slurm_bit_set_count(void *b);

/* exported by libslurm (sdiag frees its answer with it) but not declared in <slurm/slurm.h> */
extern void slurm_free_stats_response_msg(stats_info_response_msg_t *msg);

void metrics_snapshot_done(struct metrics_snapshot *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_nodes; i++) {
                free(s->nodes[i].name);
                strv_free(s->nodes[i].partitions);
        }
        free(s->nodes);
        for (size_t i = 0; i < s->n_jobs; i++) {
                free(s->jobs[i].partition);
                free(s->jobs[i].user);
                free(s->jobs[i].account);
        }
        free(s->jobs);
        for (size_t i = 0; i < s->n_parts; i++)
                free(s->parts[i].name);
        free(s->parts);
        for (size_t i = 0; i < s->sched.n_rpc_types; i++)
                free(s->sched.rpc_types[i].name);
        free(s->sched.rpc_types);
        for (size_t i = 0; i < s->sched.n_rpc_users; i++)
                free(s->sched.rpc_users[i].name);
        free(s->sched.rpc_users);
        for (size_t i = 0; i < s->n_ctls; i++)
                free(s->ctls[i].host);
        free(s->ctls);
        free(s->error_nodes);
        free(s->error_jobs);
        free(s->error_parts);
        free(s->error_stats);
        *s = (struct metrics_snapshot){ 0 };
}

const char *metrics_rpc_name(uint16_t type) {
        size_t lo = 0, hi = ELEMENTSOF(rpc_names);
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (rpc_names[mid].type == type)
                        return rpc_names[mid].name;
                if (rpc_names[mid].type < type)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

bool metrics_reason_blocked(uint16_t reason) {
        switch (reason) {
        case WAIT_HELD:
        case WAIT_HELD_USER:
        case WAIT_DEP_INVALID:
        case FAIL_BAD_CONSTRAINTS:
        case FAIL_ACCOUNT:
        case FAIL_QOS:
        case FAIL_DOWN_PARTITION:
        case WAIT_PART_INACTIVE:
        case WAIT_PART_NODE_LIMIT:
        case WAIT_PART_TIME_LIMIT:
        case WAIT_QOS_MAX_CPU_PER_JOB:
        case WAIT_QOS_MAX_CPU_MINS_PER_JOB:
        case WAIT_QOS_MAX_NODE_PER_JOB:
        case WAIT_QOS_MAX_WALL_PER_JOB:
        case WAIT_ASSOC_MAX_CPU_PER_JOB:
        case WAIT_ASSOC_MAX_CPU_MINS_PER_JOB:
        case WAIT_ASSOC_MAX_NODE_PER_JOB:
                return true;
        default:
                return false;
        }
}

/* ---- rendering ------------------------------------------------------------------------ */

/* Length of the longest prefix of s (at most max bytes) that is whole, valid UTF-8. */
static size_t utf8_prefix(const char *s, size_t max) {
        const unsigned char *p = (const unsigned char *) s;
        size_t i = 0, good = 0;
        while (p[i] && i < max) {
                unsigned c = p[i];
                size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
                if (!n || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4) || i + n > max)
                        break;
                size_t k;
                for (k = 1; k < n; k++)
                        if ((p[i + k] & 0xc0) != 0x80)
                                break;
                if (k < n)
                        break;
                if ((n == 3 && c == 0xe0 && p[i + 1] < 0xa0) || (n == 3 && c == 0xed && p[i + 1] >= 0xa0) ||
                        (n == 4 && c == 0xf0 && p[i + 1] < 0x90) || (n == 4 && c == 0xf4 && p[i + 1] >= 0x90))
                        break;
                i += n;
                good = i;
        }
        return good;
}

/* The label value of v, one to one (distinct names stay distinct labels, Prometheus would
 * drop the duplicates): valid UTF-8 as it is, a backslash doubled, each byte that is not valid
 * UTF-8 as \xNN (a backslash, x, two hex digits); a name longer than METRICS_LABEL_MAX bytes
 * cut at a whole character before METRICS_LABEL_MAX - 9 and ended with "~" and 8 hex digits of
 * its whole bytes' FNV-1a hash. Then escaped for the text format (\\, \", \n). */
static void add_label_value(struct strbuf *out, const char *v) {
        v = strempty(v);
        size_t len = strlen(v), stop = len;
        uint32_t hash = 2166136261u;
        if (len > METRICS_LABEL_MAX) {
                stop = METRICS_LABEL_MAX - 9;
                for (size_t i = 0; i < len; i++)
                        hash = (hash ^ (unsigned char) v[i]) * 16777619u;
        }
        for (size_t i = 0; i < stop;) {
                /* one character: its lead byte's length, valid as a whole */
                unsigned char c0 = (unsigned char) v[i];
                size_t n = c0 < 0x80 ? 1 : (c0 & 0xe0) == 0xc0 ? 2 : (c0 & 0xf0) == 0xe0 ? 3 : 4;
                if (utf8_prefix(v + i, n) != n)
                        n = 0;
                if (n == 0 || i + n > stop) {
                        if (n == 0) { /* not UTF-8: the byte in hex */
                                strbuf_addf(out, "\\\\x%02x", (unsigned char) v[i]);
                                i++;
                                continue;
                        }
                        break; /* a whole character that would cross the cut */
                }
                for (size_t k = 0; k < n; k++) {
                        char c = v[i + k];
                        if (c == '\\')
                                strbuf_addstr(out, "\\\\\\\\");
                        else if (c == '"')
                                strbuf_addstr(out, "\\\"");
                        else if (c == '\n')
                                strbuf_addstr(out, "\\n");
                        else
                                strbuf_addch(out, c);
                }
                i += n;
        }
        if (len > METRICS_LABEL_MAX)
                strbuf_addf(out, "~%08x", hash);
}

static void family(struct strbuf *out, const char *name, const char *type, const char *help) {
        strbuf_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_u(struct strbuf *out, const char *name, const char *key, const char *val, uint64_t v) {
        strbuf_addstr(out, name);
        if (key) {
                strbuf_addf(out, "{%s=\"", key);
                add_label_value(out, val);
                strbuf_addstr(out, "\"}");
        }
        strbuf_addf(out, " %llu\n", (unsigned long long) v);
}

static void sample_d(struct strbuf *out, const char *name, const char *key, const char *val, double v) {
        strbuf_addstr(out, name);
        if (key) {
                strbuf_addf(out, "{%s=\"", key);
                add_label_value(out, val);
                strbuf_addstr(out, "\"}");
        }
        strbuf_addf(out, " %.6f\n", v);
}

static void gauge(struct strbuf *out, const char *name, const char *help, uint64_t v) {
        family(out, name, "gauge", help);
        sample_u(out, name, NULL, NULL, v);
}

/* Node states, counted as Slurm 25.11's statistics.c counts them. */
enum node_count {
        NC_TOTAL,
        NC_ALLOC,
        NC_IDLE,
        NC_MIXED,
        NC_DOWN,
        NC_FUTURE,
        NC_UNKNOWN,
        NC_DRAIN,
        NC_DRAINED,
        NC_DRAINING,
        NC_COMPLETING,
        NC_NORESP,
        NC_FAIL,
        NC_MAINT,
        NC_RESV,
        NC_INVALID_REG,
        NC_DYN_FUTURE,
        NC_DYN_NORMAL,
        NC_PLANNED,
        NC_REBOOT_REQ,
        NC_POWERED_DOWN,
        NC_CLOUD,
        NC_CPUS,
        NC_CPUS_ALLOC,
        NC_CPUS_IDLE,
        NC_MEM,
        NC_MEM_ALLOC,
        NC_MEM_FREE,
        _NC_MAX,
};

static const struct {
        const char *suffix; /* after slurm_nodes / slurm_partition_nodes */
        const char *help;
} node_counts[_NC_MAX] = {
        [NC_TOTAL] = { "", "Total number of nodes" },
        [NC_ALLOC] = { "_alloc", "Number of nodes in Allocated state" },
        [NC_IDLE] = { "_idle", "Number of nodes in Idle state" },
        [NC_MIXED] = { "_mixed", "Number of nodes in Mixed state" },
        [NC_DOWN] = { "_down", "Number of nodes in Down state" },
        [NC_FUTURE] = { "_future", "Number of nodes in Future state" },
        [NC_UNKNOWN] = { "_unknown", "Number of nodes in Unknown state" },
        [NC_DRAIN] = { "_drain", "Number of nodes with Drain flag and no jobs" },
        [NC_DRAINED] = { "_drained", "Number of drained nodes" },
        [NC_DRAINING] = { "_draining", "Number of nodes in draining condition (Drain state with active jobs)" },
        [NC_COMPLETING] = { "_completing", "Number of nodes with Completing flag" },
        [NC_NORESP] = { "_noresp", "Number of nodes with Not Responding flag" },
        [NC_FAIL] = { "_fail", "Number of nodes with Fail flag" },
        [NC_MAINT] = { "_maint", "Number of nodes with Maintenance flag" },
        [NC_RESV] = { "_resv", "Number of nodes with Reserved flag" },
        [NC_INVALID_REG] = { "_invalid_reg", "Number of nodes with Invalid Registration flag" },
        [NC_DYN_FUTURE] = { "_dyn_future", "Number of future dynamic nodes" },
        [NC_DYN_NORMAL] = { "_dyn_normal", "Number of dynamic nodes" },
        [NC_PLANNED] = { "_planned", "Number of nodes with Planned flag" },
        [NC_REBOOT_REQ] = { "_reboot_req", "Number of nodes with Reboot Requested flag" },
        [NC_POWERED_DOWN] = { "_powered_down", "Number of nodes powered down" },
        [NC_CLOUD] = { "_cloud", "Number of Cloud nodes" },
        [NC_CPUS] = { "_cpus", "Number of CPUs on the nodes" },
        [NC_CPUS_ALLOC] = { "_cpus_alloc", "Number of CPUs allocated to jobs" },
        [NC_CPUS_IDLE] = { "_cpus_idle", "Number of idle CPUs" },
        [NC_MEM] = { "_memory_bytes", "Total memory of the nodes in bytes" },
        [NC_MEM_ALLOC] = { "_memory_alloc_bytes", "Memory allocated to jobs in bytes" },
        [NC_MEM_FREE] = { "_memory_free_bytes", "Free memory as the nodes last reported, in bytes" },
};

#define MIB ((uint64_t) 1024 * 1024)

static bool node_busy(const struct metrics_node *n) {
        uint32_t base = n->state & NODE_STATE_BASE;
        return n->alloc_cpus > 0 || base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED;
}

static void node_count(const struct metrics_node *n, uint64_t c[_NC_MAX]) {
        uint32_t base = n->state & NODE_STATE_BASE, st = n->state;
        c[NC_TOTAL]++;
        if (base == NODE_STATE_FUTURE)
                c[NC_FUTURE]++;
        else if (base == NODE_STATE_DOWN)
                c[NC_DOWN]++;
        else if ((n->alloc_cpus > 0 && n->alloc_cpus < n->cpus) || base == NODE_STATE_MIXED)
                c[NC_MIXED]++;
        else if (base == NODE_STATE_ALLOCATED || (n->cpus && n->alloc_cpus >= n->cpus))
                c[NC_ALLOC]++;
        else if (base == NODE_STATE_IDLE)
                c[NC_IDLE]++;
        else
                c[NC_UNKNOWN]++;
        if (st & NODE_STATE_DRAIN) {
                if (node_busy(n))
                        c[NC_DRAINING]++;
                else {
                        c[NC_DRAIN]++;
                        c[NC_DRAINED]++;
                }
        }
        if (st & NODE_STATE_COMPLETING)
                c[NC_COMPLETING]++;
        if (st & NODE_STATE_NO_RESPOND)
                c[NC_NORESP]++;
        if (st & NODE_STATE_FAIL)
                c[NC_FAIL]++;
        if (st & NODE_STATE_MAINT)
                c[NC_MAINT]++;
        if (st & NODE_STATE_RES)
                c[NC_RESV]++;
        if (st & NODE_STATE_INVALID_REG)
                c[NC_INVALID_REG]++;
        if (st & NODE_STATE_DYNAMIC_FUTURE)
                c[NC_DYN_FUTURE]++;
        if (st & NODE_STATE_DYNAMIC_NORM)
                c[NC_DYN_NORMAL]++;
        if (st & NODE_STATE_PLANNED)
                c[NC_PLANNED]++;
        if (st & NODE_STATE_REBOOT_REQUESTED)
                c[NC_REBOOT_REQ]++;
        if (st & NODE_STATE_POWERED_DOWN)
                c[NC_POWERED_DOWN]++;
        if (st & NODE_STATE_CLOUD)
                c[NC_CLOUD]++;
        c[NC_CPUS] += n->cpus;
        c[NC_CPUS_ALLOC] += n->alloc_cpus;
        c[NC_CPUS_IDLE] += n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0;
        c[NC_MEM] += n->memory_mb * MIB;
        c[NC_MEM_ALLOC] += n->alloc_memory_mb * MIB;
        c[NC_MEM_FREE] += n->free_memory_mb == UINT64_MAX ? 0 : n->free_memory_mb * MIB;
}

static bool node_up(const struct metrics_node *n) {
        uint32_t base = n->state & NODE_STATE_BASE;
        if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE || base == NODE_STATE_UNKNOWN)
                return false;
        return !(n->state & (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND |
                                    NODE_STATE_INVALID_REG | NODE_STATE_POWERED_DOWN));
}

/* Job counts, as 25.11 counts them (pending array tasks each count). */
enum job_count {
        JC_TOTAL,
        JC_PENDING,
        JC_RUNNING,
        JC_SUSPENDED,
        JC_COMPLETED,
        JC_CANCELLED,
        JC_FAILED,
        JC_TIMEOUT,
        JC_NODE_FAILED,
        JC_PREEMPTED,
        JC_BOOTFAIL,
        JC_DEADLINE,
        JC_OOM,
        JC_HOLD,
        JC_COMPLETING,
        JC_CONFIGURING,
        JC_REQUEUED,
        JC_RESIZING,
        JC_SIGNALING,
        JC_STAGEOUT,
        JC_CPUS_ALLOC,
        JC_MEM_ALLOC,
        JC_NODES_ALLOC,
        _JC_MAX,
};

static const struct {
        const char *suffix; /* after slurm_jobs / slurm_partition_jobs / slurm_user_jobs */
        const char *help;
} job_counts[_JC_MAX] = {
        [JC_TOTAL] = { "", "Total number of jobs" },
        [JC_PENDING] = { "_pending", "Number of jobs in Pending state" },
        [JC_RUNNING] = { "_running", "Number of jobs in Running state" },
        [JC_SUSPENDED] = { "_suspended", "Number of jobs in Suspended state" },
        [JC_COMPLETED] = { "_completed", "Number of jobs in Completed state" },
        [JC_CANCELLED] = { "_cancelled", "Number of jobs in Cancelled state" },
        [JC_FAILED] = { "_failed", "Number of jobs in Failed state" },
        [JC_TIMEOUT] = { "_timeout", "Number of jobs in Timeout state" },
        [JC_NODE_FAILED] = { "_node_failed", "Number of jobs in Node Failed state" },
        [JC_PREEMPTED] = { "_preempted", "Number of jobs in Preempted state" },
        [JC_BOOTFAIL] = { "_bootfail", "Number of jobs in BootFail state" },
        [JC_DEADLINE] = { "_deadline", "Number of jobs in Deadline state" },
        [JC_OOM] = { "_outofmemory", "Number of jobs in Out of Memory state" },
        [JC_HOLD] = { "_hold", "Number of jobs in Hold state" },
        [JC_COMPLETING] = { "_completing", "Number of jobs in Completing state" },
        [JC_CONFIGURING] = { "_configuring", "Number of jobs in Configuring state" },
        [JC_REQUEUED] = { "_requeued", "Number of jobs in Requeued state" },
        [JC_RESIZING] = { "_resizing", "Number of jobs in Resizing state" },
        [JC_SIGNALING] = { "_signaling", "Number of jobs being signaled" },
        [JC_STAGEOUT] = { "_stageout", "Number of jobs in StageOut state" },
        [JC_CPUS_ALLOC] = { "_cpus_alloc", "Total number of CPUs allocated by jobs" },
        [JC_MEM_ALLOC] = { "_memory_alloc", "Total memory bytes allocated by jobs" },
        [JC_NODES_ALLOC] = { "_nodes_alloc", "Total number of nodes allocated by jobs" },
};

uint64_t metrics_array_tasks(const char *tasks) {
        if (isempty(tasks))
                return 1;
        uint64_t total = 0;
        const char *p = tasks;
        while (*p && *p != '%') {
                char *end;
                errno = 0;
                unsigned long long a = strtoull(p, &end, 10), b = a, step = 1;
                if (end == p || errno)
                        return 1;
                p = end;
                if (*p == '-') {
                        b = strtoull(p + 1, &end, 10);
                        if (end == p + 1 || b < a)
                                return 1;
                        p = end;
                        if (*p == ':') {
                                step = strtoull(p + 1, &end, 10);
                                if (end == p + 1 || step == 0)
                                        return 1;
                                p = end;
                        }
                }
                total += (b - a) / step + 1;
                if (*p == ',')
                        p++;
                else if (*p && *p != '%')
                        return 1;
        }
        return total ? total : 1;
}

static void job_count(const struct metrics_job *j, uint64_t c[_JC_MAX]) {
        uint64_t weight = j->tasks ? j->tasks : 1;
        uint32_t base = j->state & JOB_STATE_BASE, st = j->state;
        static const enum job_count by_base[] = {
                [JOB_PENDING] = JC_PENDING,
                [JOB_RUNNING] = JC_RUNNING,
                [JOB_SUSPENDED] = JC_SUSPENDED,
                [JOB_COMPLETE] = JC_COMPLETED,
                [JOB_CANCELLED] = JC_CANCELLED,
                [JOB_FAILED] = JC_FAILED,
                [JOB_TIMEOUT] = JC_TIMEOUT,
                [JOB_NODE_FAIL] = JC_NODE_FAILED,
                [JOB_PREEMPTED] = JC_PREEMPTED,
                [JOB_BOOT_FAIL] = JC_BOOTFAIL,
                [JOB_DEADLINE] = JC_DEADLINE,
                [JOB_OOM] = JC_OOM,
        };
        c[JC_TOTAL]++;
        if (base < ELEMENTSOF(by_base))
                c[by_base[base]] += base == JOB_PENDING ? weight : 1;
        if (base == JOB_PENDING && (j->reason == WAIT_HELD || j->reason == WAIT_HELD_USER))
                c[JC_HOLD] += weight;
        if (st & JOB_COMPLETING)
                c[JC_COMPLETING]++;
        if (st & JOB_CONFIGURING)
                c[JC_CONFIGURING]++;
        if (st & JOB_REQUEUE)
                c[JC_REQUEUED]++;
        if (st & JOB_RESIZING)
                c[JC_RESIZING]++;
        if (st & JOB_SIGNALING)
                c[JC_SIGNALING]++;
        if (st & JOB_STAGE_OUT)
                c[JC_STAGEOUT]++;
        if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
                c[JC_CPUS_ALLOC] += j->cpus;
                c[JC_MEM_ALLOC] += j->memory_mb * MIB;
                c[JC_NODES_ALLOC] += j->nodes;
        }
}

/* A group of counters under one label value (a partition, a user, …). */
struct group {
        const char *key;
        uint64_t *c;
};

struct groups {
        struct group *v;
        size_t n, cap;
        size_t width; /* counters per group */
};

static void groups_done(struct groups *g) {
        for (size_t i = 0; i < g->n; i++)
                free(g->v[i].c);
        free(g->v);
}

static int group_cmp(const void *a, const void *b) {
        return strcmp(((const struct group *) a)->key, ((const struct group *) b)->key);
}

/* The counters of key, added at the end (sorted later by groups_sort). Linear while small,
 * binary once sorted: callers add every key first (groups_add), sort, then look up. */
static uint64_t *groups_add(struct groups *g, const char *key) {
        if (g->n == g->cap) {
                g->cap = g->cap ? g->cap * 2 : 16;
                g->v = xrealloc(g->v, g->cap * sizeof(*g->v));
        }
        g->v[g->n] = (struct group){ .key = key, .c = xcalloc(g->width, sizeof(uint64_t)) };
        return g->v[g->n++].c;
}

static uint64_t *groups_find(const struct groups *g, const char *key) {
        struct group k = { .key = key };
        struct group *f = bsearch(&k, g->v, g->n, sizeof(*g->v), group_cmp);
        return f ? f->c : NULL;
}

/* Distinct keys (sorted), from an array of strings that may repeat. */
static int key_cmp(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static void groups_from_keys(struct groups *g, const char **keys, size_t n) {
        qsort(keys, n, sizeof(*keys), key_cmp);
        for (size_t i = 0; i < n; i++)
                if (i == 0 || !streq(keys[i], keys[i - 1]))
                        groups_add(g, keys[i]);
}

static const char *job_key(const struct metrics_job *j, int what) {
        const char *k = what == 0 ? j->partition : what == 1 ? j->user : j->account;
        return isempty(k) ? NULL : k;
}

static void render_nodes(const struct metrics_snapshot *s, struct strbuf *out) {
        uint64_t c[_NC_MAX] = { 0 };
        for (size_t i = 0; i < s->n_nodes; i++)
                node_count(&s->nodes[i], c);
        for (int k = 0; k < _NC_MAX; k++) {
                _cleanup_free_ char *name = xasprintf("slurm_nodes%s", node_counts[k].suffix);
                gauge(out, name, node_counts[k].help, c[k]);
        }
        if (!s->n_nodes)
                return;
        static const struct {
                const char *name, *help;
        } per_node[] = {
                { "slurm_node_cpus", "Total number of cpus in the node" },
                { "slurm_node_cpus_alloc", "Allocated cpus in the node" },
                { "slurm_node_cpus_idle", "Idle cpus in the node" },
                { "slurm_node_memory_bytes", "Total memory in bytes of the node" },
                { "slurm_node_memory_alloc_bytes", "Bytes allocated to jobs in the node" },
                { "slurm_node_memory_free_bytes", "Free memory in bytes of the node" },
                { "slurm_node_gpus", "GPUs of the node (its Gres)" },
                { "slurm_node_gpus_alloc", "GPUs of the node allocated to jobs" },
                { "slurm_node_up", "1 when the node can run jobs: registered, responding, not down, drained or failing" },
        };
        for (size_t k = 0; k < ELEMENTSOF(per_node); k++) {
                family(out, per_node[k].name, "gauge", per_node[k].help);
                for (size_t i = 0; i < s->n_nodes; i++) {
                        const struct metrics_node *n = &s->nodes[i];
                        uint64_t v = 0;
                        switch (k) {
                        case 0: v = n->cpus; break;
                        case 1: v = n->alloc_cpus; break;
                        case 2: v = n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0; break;
                        case 3: v = n->memory_mb * MIB; break;
                        case 4: v = n->alloc_memory_mb * MIB; break;
                        case 5:
                                if (n->free_memory_mb == UINT64_MAX)
                                        continue;
                                v = n->free_memory_mb * MIB;
                                break;
                        case 6: v = n->gpus; break;
                        case 7: v = n->gpus_alloc; break;
                        default: v = node_up(n); break;
                        }
                        sample_u(out, per_node[k].name, "node", n->name, v);
                }
        }
}

static void render_partitions(const struct metrics_snapshot *s, struct strbuf *out) {
        gauge(out, "slurm_partitions", "Total number of partitions", s->n_parts);
        if (!s->n_parts)
                return;
        struct groups pn = { .width = _NC_MAX }, pj = { .width = _JC_MAX };
        _cleanup_free_ const char **keys = xcalloc(s->n_parts, sizeof(*keys));
        for (size_t i = 0; i < s->n_parts; i++)
                keys[i] = s->parts[i].name;
        groups_from_keys(&pn, keys, s->n_parts);
        groups_from_keys(&pj, keys, s->n_parts);
        for (size_t i = 0; i < s->n_nodes; i++)
                for (char **p = s->nodes[i].partitions; p && *p; p++) {
                        uint64_t *c = groups_find(&pn, *p);
                        if (c)
                                node_count(&s->nodes[i], c);
                }
        for (size_t i = 0; i < s->n_jobs; i++) {
                const char *k = job_key(&s->jobs[i], 0);
                uint64_t *c = k ? groups_find(&pj, k) : NULL;
                if (c)
                        job_count(&s->jobs[i], c);
        }
        family(out, "slurm_partition_cpus", "gauge", "Partition total cpus");
        for (size_t i = 0; i < s->n_parts; i++)
                sample_u(out, "slurm_partition_cpus", "partition", s->parts[i].name, s->parts[i].total_cpus);
        for (int k = 0; k < _NC_MAX; k++) {
                _cleanup_free_ char *name = xasprintf("slurm_partition_nodes%s", node_counts[k].suffix);
                family(out, name, "gauge", node_counts[k].help);
                for (size_t i = 0; i < pn.n; i++)
                        sample_u(out, name, "partition", pn.v[i].key, pn.v[i].c[k]);
        }
        for (int k = 0; k < _JC_MAX; k++) {
                _cleanup_free_ char *name = xasprintf("slurm_partition_jobs%s", job_counts[k].suffix);
                family(out, name, "gauge", job_counts[k].help);
                for (size_t i = 0; i < pj.n; i++)
                        sample_u(out, name, "partition", pj.v[i].key, pj.v[i].c[k]);
        }
        groups_done(&pn);
        groups_done(&pj);
}

/* what: 1 users, 2 accounts (0 is the partition, rendered with the partitions). */
static void render_job_groups(const struct metrics_snapshot *s, int what, struct strbuf *out) {
        const char *pfx = what == 1 ? "slurm_user_jobs" : "slurm_account_jobs";
        const char *label = what == 1 ? "username" : "account";
        struct groups g = { .width = _JC_MAX };
        _cleanup_free_ const char **keys = xcalloc(s->n_jobs + 1, sizeof(*keys));
        size_t n = 0;
        for (size_t i = 0; i < s->n_jobs; i++)
                if (job_key(&s->jobs[i], what))
                        keys[n++] = job_key(&s->jobs[i], what);
        groups_from_keys(&g, keys, n);
        for (size_t i = 0; i < s->n_jobs; i++) {
                const char *k = job_key(&s->jobs[i], what);
                if (k)
                        job_count(&s->jobs[i], groups_find(&g, k));
        }
        if (g.n)
                for (int k = 0; k < _JC_MAX; k++) {
                        _cleanup_free_ char *name = xasprintf("%s%s", pfx, job_counts[k].suffix);
                        family(out, name, "gauge", job_counts[k].help);
                        for (size_t i = 0; i < g.n; i++)
                                sample_u(out, name, label, g.v[i].key, g.v[i].c[k]);
                }
        groups_done(&g);
}

static void render_jobs(const struct metrics_snapshot *s, struct strbuf *out) {
        uint64_t c[_JC_MAX] = { 0 }, blocked = 0;
        for (size_t i = 0; i < s->n_jobs; i++) {
                const struct metrics_job *j = &s->jobs[i];
                job_count(j, c);
                if ((j->state & JOB_STATE_BASE) == JOB_PENDING && metrics_reason_blocked(j->reason))
                        blocked += j->tasks ? j->tasks : 1;
        }
        for (int k = 0; k < _JC_MAX; k++) {
                _cleanup_free_ char *name = xasprintf("slurm_jobs%s", job_counts[k].suffix);
                gauge(out, name, job_counts[k].help, c[k]);
        }
        gauge(out, "slurm_jobs_pending_blocked",
                "Pending jobs that cannot start as things are (held, an impossible dependency, "
                "constraint, partition, account, QOS or job limit)",
                blocked);
        /* pending jobs by reason word */
        struct groups g = { .width = 1 };
        _cleanup_free_ const char **keys = xcalloc(s->n_jobs + 1, sizeof(*keys));
        size_t n = 0;
        for (size_t i = 0; i < s->n_jobs; i++)
                if ((s->jobs[i].state & JOB_STATE_BASE) == JOB_PENDING)
                        keys[n++] = slurm_job_reason_name(s->jobs[i].reason);
        groups_from_keys(&g, keys, n);
        for (size_t i = 0; i < s->n_jobs; i++)
                if ((s->jobs[i].state & JOB_STATE_BASE) == JOB_PENDING)
                        groups_find(&g, slurm_job_reason_name(s->jobs[i].reason))[0] += s->jobs[i].tasks ? s->jobs[i].tasks : 1;
        family(out, "slurm_jobs_pending_reason", "gauge", "Pending jobs by Slurm's reason");
        for (size_t i = 0; i < g.n; i++)
                sample_u(out, "slurm_jobs_pending_reason", "reason", g.v[i].key, g.v[i].c[0]);
        groups_done(&g);
        if (!s->private_users) {
                render_job_groups(s, 1, out);
                render_job_groups(s, 2, out);
        }
}

static void render_sched(const struct metrics_sched *t, bool private_users, struct strbuf *out) {
        if (!t->valid)
                return;
        gauge(out, "slurm_server_thread_cnt", "Active RPC server threads", t->server_thread_count);
        gauge(out, "slurm_agent_queue_size", "Outgoing RPC retry queue length", t->agent_queue_size);
        gauge(out, "slurm_agent_cnt", "Number of agent threads", t->agent_count);
        gauge(out, "slurm_agent_thread_cnt", "Total active agent-created threads", t->agent_thread_count);
        gauge(out, "slurm_dbd_agent_queue_size", "Records slurmctld holds for slurmdbd", t->dbd_agent_queue_size);
        gauge(out, "slurm_schedule_cycle_max", "Max scheduling cycle time (microseconds)", t->schedule_cycle_max);
        gauge(out, "slurm_schedule_cycle_last", "Last scheduling cycle time (microseconds)", t->schedule_cycle_last);
        gauge(out, "slurm_schedule_cycle_tot", "Sum of scheduling cycle times (microseconds)", t->schedule_cycle_sum);
        gauge(out, "slurm_schedule_cycle_cnt", "Scheduling cycle count", t->schedule_cycle_counter);
        gauge(out, "slurm_schedule_cycle_depth", "Processed jobs depth total", t->schedule_cycle_depth);
        gauge(out, "slurm_schedule_queue_len", "Jobs pending queue length", t->schedule_queue_len);
        gauge(out, "slurm_sdiag_jobs_submitted", "Jobs submitted since reset", t->jobs_submitted);
        gauge(out, "slurm_sdiag_jobs_started", "Jobs started since reset", t->jobs_started);
        gauge(out, "slurm_sdiag_jobs_completed", "Jobs completed since reset", t->jobs_completed);
        gauge(out, "slurm_sdiag_jobs_canceled", "Jobs canceled since reset", t->jobs_canceled);
        gauge(out, "slurm_sdiag_jobs_failed", "Jobs failed since reset", t->jobs_failed);
        gauge(out, "slurm_sdiag_jobs_pending", "Jobs pending at timestamp", t->jobs_pending);
        gauge(out, "slurm_sdiag_jobs_running", "Jobs running at timestamp", t->jobs_running);
        gauge(out, "slurm_backfilled_jobs", "Total backfilled jobs since reset", t->bf_backfilled_jobs);
        gauge(out, "slurm_last_backfilled_jobs", "Backfilled jobs since last cycle", t->bf_last_backfilled_jobs);
        gauge(out, "slurm_bf_cycle_cnt", "Backfill cycle count", t->bf_cycle_counter);
        gauge(out, "slurm_bf_cycle_tot", "Sum of backfill cycle times (microseconds)", t->bf_cycle_sum);
        gauge(out, "slurm_bf_cycle_last", "Last backfill cycle time (microseconds)", t->bf_cycle_last);
        gauge(out, "slurm_bf_cycle_max", "Max backfill cycle time (microseconds)", t->bf_cycle_max);
        gauge(out, "slurm_bf_last_depth", "Last backfill depth", t->bf_last_depth);
        gauge(out, "slurm_bf_last_depth_try", "Last backfill depth attempts", t->bf_last_depth_try);
        gauge(out, "slurm_bf_depth_tot", "Sum of backfill job depths", t->bf_depth_sum);
        gauge(out, "slurm_bf_depth_try_tot", "Sum of backfill depth attempts", t->bf_depth_try_sum);
        gauge(out, "slurm_bf_queue_len", "Backfill queue length", t->bf_queue_len);
        gauge(out, "slurm_bf_queue_len_tot", "Sum of backfill queue lengths", t->bf_queue_len_sum);
        gauge(out, "slurm_bf_table_size", "Backfill table size", t->bf_table_size);
        gauge(out, "slurm_bf_when_last_cycle", "Timestamp of last backfill cycle", (uint64_t) t->bf_when_last_cycle);
        gauge(out, "slurm_bf_active", "Backfill scheduler active", t->bf_active);
        static const struct {
                const char *count, *time, *label, *what;
        } rpc[2] = {
                { "slurm_rpc_type_calls_total", "slurm_rpc_type_seconds_total", "type", "message type" },
                { "slurm_rpc_user_calls_total", "slurm_rpc_user_seconds_total", "user", "user" },
        };
        for (int w = 0; w < (private_users ? 1 : 2); w++) {
                const struct metrics_rpc *v = w == 0 ? t->rpc_types : t->rpc_users;
                size_t n = w == 0 ? t->n_rpc_types : t->n_rpc_users;
                if (!n)
                        continue;
                _cleanup_free_ char *h1 = xasprintf("RPCs slurmctld received by %s since its start", rpc[w].what);
                _cleanup_free_ char *h2 = xasprintf("Time slurmctld spent on RPCs by %s since its start", rpc[w].what);
                family(out, rpc[w].count, "counter", h1);
                for (size_t i = 0; i < n; i++)
                        sample_u(out, rpc[w].count, rpc[w].label, v[i].name, v[i].count);
                family(out, rpc[w].time, "counter", h2);
                for (size_t i = 0; i < n; i++)
                        sample_d(out, rpc[w].time, rpc[w].label, v[i].name, (double) v[i].time_us / 1e6);
        }
}

static void render_self(const struct metrics_snapshot *s, struct strbuf *out) {
        if (s->n_ctls) {
                family(out, "slurm_controller_up", "gauge", "1 when the controller answered a ping");
                for (size_t i = 0; i < s->n_ctls; i++)
                        sample_u(out, "slurm_controller_up", "host", s->ctls[i].host, s->ctls[i].up);
                family(out, "slurm_controller_in_charge", "gauge",
                        "1 for the controller in charge (Slurm's heartbeat, confirmed by that slurmctld)");
                for (size_t i = 0; i < s->n_ctls; i++)
                        sample_u(out, "slurm_controller_in_charge", "host", s->ctls[i].host, s->ctls[i].in_charge);
        }
        if (s->dbd != METRICS_DBD_UNKNOWN)
                gauge(out, "slurm_dbd_up", "1 when slurmdbd takes a connection (primary or backup)",
                        s->dbd == METRICS_DBD_UP);
        family(out, "slurm_scrape_duration_seconds", "gauge", "Time this collection took");
        sample_d(out, "slurm_scrape_duration_seconds", NULL, NULL, s->duration_s);
        gauge(out, "slurm_scrape_rpcs", "RPCs this collection sent to slurmctld", s->rpcs);
        family(out, "slurm_scrape_error", "gauge", "1 when this part of the collection failed (its families are missing)");
        const char *what[] = { "nodes", "jobs", "partitions", "statistics" };
        const char *errs[] = { s->error_nodes, s->error_jobs, s->error_parts, s->error_stats };
        for (size_t i = 0; i < ELEMENTSOF(what); i++)
                sample_u(out, "slurm_scrape_error", "what", what[i], errs[i] != NULL);
}

bool metrics_text_in_charge(const char *text, size_t len, struct strbuf *host) {
        static const char key[] = "slurm_controller_in_charge{host=\"";
        strbuf_reset(host);
        for (size_t at = 0; at < len;) {
                const char *line = text + at;
                const char *nl = memchr(line, '\n', len - at);
                size_t n = nl ? (size_t) (nl - line) : len - at;
                at += n + 1;
                if (n <= sizeof(key) - 1 || memcmp(line, key, sizeof(key) - 1) != 0)
                        continue;
                /* the value ends at the first '"' not escaped */
                size_t i = sizeof(key) - 1;
                while (i < n && line[i] != '"')
                        i += line[i] == '\\' ? 2 : 1;
                if (i + 3 > n || memcmp(line + i, "\"} ", 3) != 0)
                        continue;
                if (n - (i + 3) == 1 && line[i + 3] == '1') {
                        strbuf_add(host, line + sizeof(key) - 1, i - (sizeof(key) - 1));
                        return true;
                }
        }
        return false;
}

void metrics_in_charge_set(struct metrics_snapshot *s, const char *host) {
        for (size_t i = 0; i < s->n_ctls; i++)
                s->ctls[i].in_charge = !isempty(host) && streq(s->ctls[i].host, host);
}

void metrics_render_failovers(uint64_t n, struct strbuf *out) {
        family(out, "slurm_controller_failovers_total", "counter",
                "Changes of the controller in charge (failover, takeover, failback) this exporter has seen since it started");
        sample_u(out, "slurm_controller_failovers_total", NULL, NULL, n);
}

void metrics_render(const struct metrics_snapshot *s, struct strbuf *out) {
        if (s->cluster) {
                if (!s->error_nodes)
                        render_nodes(s, out);
                if (!s->error_parts)
                        render_partitions(s, out);
                if (!s->error_jobs)
                        render_jobs(s, out);
                render_sched(&s->sched, s->private_users, out);
        }
        render_self(s, out);
}

/* ---- collection ----------------------------------------------------------------------- */

static char *dup_or_null(const char *s) {
        return isempty(s) ? NULL : xstrdup(s);
}

/* "gpu:2,gpu:a100:1(S:0)" → 3; "gpu:a100:1(IDX:0),gpu:0(IDX:N/A)" → 1 (the parenthesised parts
 * dropped first). */
static uint64_t gpu_total(const char *gres) {
        if (isempty(gres) || streq(gres, "(null)"))
                return 0;
        struct strbuf clean = STRBUF_INIT;
        int depth = 0;
        for (const char *p = gres; *p; p++) {
                if (*p == '(')
                        depth++;
                else if (*p == ')')
                        depth = depth ? depth - 1 : 0;
                else if (!depth)
                        strbuf_addch(&clean, *p);
        }
        struct gres_counts c = GRES_COUNTS_INIT;
        uint64_t v = 0;
        if (gres_counts_parse(clean.buf, &c, NULL) == 0)
                v = gres_counts_get(&c, "gpu");
        gres_counts_done(&c);
        strbuf_release(&clean);
        return v;
}

static void node_from_info(const node_info_t *in, struct metrics_node *out) {
        uint16_t alloc = 0;
        uint64_t alloc_mem = 0;
        *out = (struct metrics_node){
                .name = xstrdup(strempty(in->name)),
                .state = in->node_state,
                .cpus = in->cpus,
                .memory_mb = in->real_memory,
                .free_memory_mb = in->free_mem == NO_VAL64 ? UINT64_MAX : in->free_mem,
                .gpus = gpu_total(in->gres),
                .gpus_alloc = gpu_total(in->gres_used),
        };
        if (in->select_nodeinfo &&
                slurm_get_select_nodeinfo(in->select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED,
                        &alloc) == SLURM_SUCCESS)
                out->alloc_cpus = alloc;
        if (in->select_nodeinfo &&
                slurm_get_select_nodeinfo(in->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC, NODE_STATE_ALLOCATED,
                        &alloc_mem) == SLURM_SUCCESS)
                out->alloc_memory_mb = alloc_mem;
}

static const struct metrics_node *sort_base;
static int node_idx_cmp(const void *a, const void *b) {
        return strcmp(sort_base[*(const size_t *) a].name, sort_base[*(const size_t *) b].name);
}

/* Each node's partitions, from the partitions' host lists: one pass over every membership,
 * each name found by binary search in the nodes sorted by name. */
static void nodes_partitions(struct metrics_snapshot *s, const partition_info_msg_t *parts) {
        if (!s->n_nodes)
                return;
        _cleanup_free_ size_t *idx = xcalloc(s->n_nodes, sizeof(*idx));
        struct strv *pv = xcalloc(s->n_nodes, sizeof(*pv));
        for (size_t i = 0; i < s->n_nodes; i++)
                idx[i] = i;
        sort_base = s->nodes;
        qsort(idx, s->n_nodes, sizeof(*idx), node_idx_cmp);
        for (uint32_t i = 0; i < parts->record_count; i++) {
                const partition_info_t *p = &parts->partition_array[i];
                if (isempty(p->nodes) || isempty(p->name))
                        continue;
                slurm_hl_t hl = slurm_hostlist_create(p->nodes);
                if (!hl)
                        continue;
                char *h;
                while ((h = slurm_hostlist_shift(hl))) {
                        size_t lo = 0, hi = s->n_nodes;
                        while (lo < hi) {
                                size_t mid = (lo + hi) / 2;
                                int c = strcmp(s->nodes[idx[mid]].name, h);
                                if (c == 0) {
                                        if (!strv_contains(&pv[idx[mid]], p->name))
                                                strv_push(&pv[idx[mid]], p->name);
                                        break;
                                }
                                if (c < 0)
                                        lo = mid + 1;
                                else
                                        hi = mid;
                        }
                        free(h);
                }
                slurm_hostlist_destroy(hl);
        }
        for (size_t i = 0; i < s->n_nodes; i++)
                s->nodes[i].partitions = pv[i].n ? strv_detach(&pv[i]) : NULL;
        for (size_t i = 0; i < s->n_nodes; i++)
                strv_clear(&pv[i]);
        free(pv);
}

/* Users by uid, looked up once each (slurmctld sends user_name only now and then). */
struct uid_names {
        uint32_t *uid;
        char **name;
        size_t n;
};

static const char *uid_name(struct uid_names *u, uint32_t uid) {
        for (size_t i = 0; i < u->n; i++)
                if (u->uid[i] == uid)
                        return u->name[i];
        char buf[4096];
        struct passwd pw, *res = NULL;
        char *name = getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res ? xstrdup(res->pw_name)
                                                                                : xasprintf("%u", uid);
        u->uid = xrealloc(u->uid, (u->n + 1) * sizeof(*u->uid));
        u->name = xrealloc(u->name, (u->n + 1) * sizeof(*u->name));
        u->uid[u->n] = uid;
        u->name[u->n] = name;
        return u->name[u->n++];
}

static void uid_names_done(struct uid_names *u) {
        for (size_t i = 0; i < u->n; i++)
                free(u->name[i]);
        free(u->uid);
        free(u->name);
}

static void job_from_info(const slurm_job_info_t *in, struct uid_names *users, struct metrics_job *out) {
        uint32_t base = in->job_state & JOB_STATE_BASE;
        size_t plen = in->partition ? strcspn(in->partition, ",") : 0;
        *out = (struct metrics_job){
                .state = in->job_state,
                .reason = in->state_reason,
                .partition = plen ? xstrndup(in->partition, plen) : NULL,
                .user = xstrdup(!isempty(in->user_name) ? in->user_name : uid_name(users, in->user_id)),
                .account = dup_or_null(in->account),
                .cpus = in->num_cpus,
                .nodes = in->num_nodes,
        };
        if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
                uint64_t m = in->pn_min_memory;
                if (m != NO_VAL64 && (m & MEM_PER_CPU))
                        out->memory_mb = (m & ~MEM_PER_CPU) * in->num_cpus;
                else if (m != NO_VAL64)
                        out->memory_mb = m * in->num_nodes;
        }
        out->tasks = 1;
        if (base == JOB_PENDING && in->array_bitmap) {
                /* the tasks' bitmap: libslurm cuts the text (array_task_str) at 64 bytes */
                int32_t n = slurm_bit_set_count(in->array_bitmap);
                out->tasks = n > 0 ? (uint32_t) n : 1;
        } else if (base == JOB_PENDING)
                out->tasks = (uint32_t) metrics_array_tasks(in->array_task_str);
}

static void sched_from(const stats_info_response_msg_t *in, struct uid_names *users, struct metrics_sched *t) {
        *t = (struct metrics_sched){
                .valid = true,
                .server_thread_count = in->server_thread_count,
                .agent_queue_size = in->agent_queue_size,
                .agent_count = in->agent_count,
                .agent_thread_count = in->agent_thread_count,
                .dbd_agent_queue_size = in->dbd_agent_queue_size,
                .schedule_cycle_max = in->schedule_cycle_max,
                .schedule_cycle_last = in->schedule_cycle_last,
                .schedule_cycle_sum = in->schedule_cycle_sum,
                .schedule_cycle_counter = in->schedule_cycle_counter,
                .schedule_cycle_depth = in->schedule_cycle_depth,
                .schedule_queue_len = in->schedule_queue_len,
                .jobs_submitted = in->jobs_submitted,
                .jobs_started = in->jobs_started,
                .jobs_completed = in->jobs_completed,
                .jobs_canceled = in->jobs_canceled,
                .jobs_failed = in->jobs_failed,
                .jobs_pending = in->jobs_pending,
                .jobs_running = in->jobs_running,
                .bf_backfilled_jobs = in->bf_backfilled_jobs,
                .bf_last_backfilled_jobs = in->bf_last_backfilled_jobs,
                .bf_cycle_counter = in->bf_cycle_counter,
                .bf_cycle_sum = in->bf_cycle_sum,
                .bf_cycle_last = in->bf_cycle_last,
                .bf_cycle_max = in->bf_cycle_max,
                .bf_last_depth = in->bf_last_depth,
                .bf_last_depth_try = in->bf_last_depth_try,
                .bf_depth_sum = in->bf_depth_sum,
                .bf_depth_try_sum = in->bf_depth_try_sum,
                .bf_queue_len = in->bf_queue_len,
                .bf_queue_len_sum = in->bf_queue_len_sum,
                .bf_table_size = in->bf_table_size,
                .bf_when_last_cycle = in->bf_when_last_cycle,
                .bf_active = in->bf_active,
        };
        if (in->rpc_type_size && in->rpc_type_id && in->rpc_type_cnt && in->rpc_type_time) {
                t->rpc_types = xcalloc(in->rpc_type_size, sizeof(*t->rpc_types));
                for (uint32_t i = 0; i < in->rpc_type_size; i++) {
                        const char *name = metrics_rpc_name(in->rpc_type_id[i]);
                        t->rpc_types[i] = (struct metrics_rpc){
                                .name = name ? xstrdup(name) : xasprintf("%u", in->rpc_type_id[i]),
                                .count = in->rpc_type_cnt[i],
                                .time_us = in->rpc_type_time[i],
                        };
                }
                t->n_rpc_types = in->rpc_type_size;
        }
        if (in->rpc_user_size && in->rpc_user_id && in->rpc_user_cnt && in->rpc_user_time) {
                t->rpc_users = xcalloc(in->rpc_user_size, sizeof(*t->rpc_users));
                for (uint32_t i = 0; i < in->rpc_user_size; i++)
                        t->rpc_users[i] = (struct metrics_rpc){
                                .name = xstrdup(uid_name(users, in->rpc_user_id[i])),
                                .count = in->rpc_user_cnt[i],
                                .time_us = in->rpc_user_time[i],
                        };
                t->n_rpc_users = in->rpc_user_size;
        }
}

static char *failure(int rc, const char *what) {
        struct strbuf e = STRBUF_INIT;
        (void) slurm_fail(&e, slurm_rc_code(rc), "%s", what);
        return strbuf_detach(&e, NULL);
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

void metrics_parts_failed(struct metrics_snapshot *s, const char *why) {
        char **parts[] = { &s->error_parts, &s->error_nodes, &s->error_jobs, &s->error_stats };
        s->cluster = true;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                if (!*parts[i])
                        *parts[i] = xstrdup(why);
}

/* host (a SlurmctldHost name) is this machine (me: gethostname), short names compared */
static bool same_host(const char *host, const char *me) {
        size_t a = strcspn(host, "."), b = strcspn(me, ".");
        return *me && a == b && strncmp(host, me, a) == 0;
}

int metrics_collect(struct metrics_snapshot *s, bool cluster, struct strbuf *err) {
        double t0 = now_s();
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        *s = (struct metrics_snapshot){ .cluster = cluster };
        struct uid_names users = { 0 };

        /* each controller by ping, bounded (a stopped slurmctld on this machine must not hold a
         * scrape) */
        struct slurm_controllers ctls = { 0 };
        if (slurm_ctl_ping_bounded(&ctls, 2000, NULL) >= 0 && ctls.n) {
                s->ctls = xcalloc(ctls.n, sizeof(*s->ctls));
                for (size_t i = 0; i < ctls.n; i++) {
                        s->ctls[i] = (struct metrics_controller){
                                .host = xstrdup(strempty(ctls.v[i].host)),
                                .index = (int) i,
                                .up = ctls.v[i].up,
                                /* a standby answers pings too: only the sole controller is
                                 * known here (metrics_in_charge_set for the others) */
                                .in_charge = ctls.v[i].up && ctls.n == 1,
                        };
                }
                s->n_ctls = ctls.n;
                s->rpcs += (unsigned) ctls.n;
        }
        bool any_up = false, local_down = false;
        char me[256] = "";
        (void) gethostname(me, sizeof(me) - 1);
        for (size_t i = 0; i < s->n_ctls; i++) {
                any_up = any_up || s->ctls[i].up;
                local_down = local_down || (!s->ctls[i].up && same_host(s->ctls[i].host, me));
        }
        slurm_controllers_done(&ctls);
        if (cluster && !local_down && acctdb_configured()) {
                s->dbd = acctdb_ping_within(METRICS_DBD_PING_MS, NULL) >= 0 ? METRICS_DBD_UP : METRICS_DBD_DOWN;
        }
        /* no controller answers: the loads would each wait out libslurm's timeouts for nothing,
         * and the scrape would end past its deadline with no sample at all; said as failed
         * parts, with the controllers' pings (the alert's input) */
        if (cluster && s->n_ctls && !any_up) {
                metrics_parts_failed(s, "no controller answers a ping");
                cluster = false;
        }

        /* PrivateData: slurmctld hides from the exporter's user what it may not see, other
         * users' jobs as none at all: said as failed parts, never served as zeros (the loads not
         * tried); per-user and per-account figures are left out when users, usage or accounts
         * are private (the endpoint asks no one who they are) */
        uint16_t pd = slurm_conf.private_data;
        s->private_users = (pd & (PRIVATE_DATA_USERS | PRIVATE_DATA_USAGE | PRIVATE_DATA_ACCOUNTS)) != 0;
        if (cluster && geteuid() != 0 && geteuid() != slurm_conf.slurm_user_id) {
                static const struct {
                        uint16_t bit;
                        const char *why;
                } hidden[] = {
                        { PRIVATE_DATA_PARTITIONS, "PrivateData=partitions hides them from the exporter's user" },
                        { PRIVATE_DATA_NODES, "PrivateData=nodes hides them from the exporter's user" },
                        { PRIVATE_DATA_JOBS, "PrivateData=jobs hides other users' jobs from the exporter's user" },
                };
                char **errs[] = { &s->error_parts, &s->error_nodes, &s->error_jobs };
                for (size_t i = 0; i < ELEMENTSOF(hidden); i++)
                        if ((pd & hidden[i].bit) && !*errs[i])
                                *errs[i] = xstrdup(hidden[i].why);
        }

        if (cluster) {
                partition_info_msg_t *parts = NULL;
                node_info_msg_t *nodes = NULL;
                job_info_msg_t *jobs = NULL;
                stats_info_response_msg_t *stats = NULL;

                s->rpcs += !s->error_parts;
                if (s->error_parts || (r = slurm_load_partitions((time_t) 0, &parts, SHOW_ALL)) != SLURM_SUCCESS || !parts) {
                        if (!s->error_parts)
                                s->error_parts = failure(r, "load partitions");
                        parts = NULL;
                } else {
                        s->parts = xcalloc(parts->record_count + 1, sizeof(*s->parts));
                        for (uint32_t i = 0; i < parts->record_count; i++) {
                                const partition_info_t *p = &parts->partition_array[i];
                                if (isempty(p->name))
                                        continue;
                                s->parts[s->n_parts++] = (struct metrics_partition){
                                        .name = xstrdup(p->name),
                                        .total_cpus = p->total_cpus,
                                        .total_nodes = p->total_nodes,
                                };
                        }
                }
                s->rpcs += !s->error_nodes;
                if (s->error_nodes || (r = slurm_load_node((time_t) 0, &nodes, SHOW_ALL)) != SLURM_SUCCESS || !nodes) {
                        if (!s->error_nodes)
                                s->error_nodes = failure(r, "load nodes");
                        nodes = NULL;
                } else {
                        s->nodes = xcalloc(nodes->record_count + 1, sizeof(*s->nodes));
                        for (uint32_t i = 0; i < nodes->record_count; i++)
                                if (!isempty(nodes->node_array[i].name))
                                        node_from_info(&nodes->node_array[i], &s->nodes[s->n_nodes++]);
                        if (parts)
                                nodes_partitions(s, parts);
                }
                s->rpcs += !s->error_jobs;
                if (s->error_jobs || (r = slurm_load_jobs((time_t) 0, &jobs, SHOW_ALL)) != SLURM_SUCCESS || !jobs) {
                        if (!s->error_jobs)
                                s->error_jobs = failure(r, "load jobs");
                        jobs = NULL;
                } else {
                        s->jobs = xcalloc(jobs->record_count + 1, sizeof(*s->jobs));
                        for (uint32_t i = 0; i < jobs->record_count; i++)
                                job_from_info(&jobs->job_array[i], &users, &s->jobs[s->n_jobs++]);
                }
                s->rpcs++;
                stats_info_request_msg_t req = { .command_id = STAT_COMMAND_GET };
                if ((r = slurm_get_statistics(&stats, &req)) != SLURM_SUCCESS || !stats) {
                        s->error_stats = failure(r, "statistics");
                        stats = NULL;
                } else
                        sched_from(stats, &users, &s->sched);

                if (parts)
                        slurm_free_partition_info_msg(parts);
                if (nodes)
                        slurm_free_node_info_msg(nodes);
                if (jobs)
                        slurm_free_job_info_msg(jobs);
                if (stats)
                        slurm_free_stats_response_msg(stats);
        }
        uid_names_done(&users);
        s->duration_s = now_s() - t0;
        return 0;
}
