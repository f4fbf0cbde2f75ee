/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm partitions through libslurm: state updates and the jobs of one partition (running and
 * pending), for the controller's partition removal. */
#include "util/macro.h"
#include "slurm/partitions.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stddef.h>

#include "slurm/client.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

void slurm_partition_jobs_done(struct slurm_partition_jobs *j) {
        if (!j)
                return;
        free(j->running);
        free(j->pending);
        *j = (struct slurm_partition_jobs){ 0 };
}

/* Sends the update; -ENOENT for an unknown partition. */
static int send_update(update_part_msg_t *m, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_update_partition(m);
        if (r == SLURM_SUCCESS)
                return 0;
        int code = slurm_rc_code(r);
        if (code == ESLURM_INVALID_PARTITION_NAME) {
                if (err)
                        strbuf_addf(err, "partition \"%s\": no such partition", m->name);
                return -ENOENT;
        }
        return slurm_fail(err, code, "update partition \"%s\"", m->name);
}

int slurm_partition_set_state(const char *name, enum slurm_partition_state state, struct strbuf *err) {
        static const uint16_t states[] = {
                [SLURM_PARTITION_UP] = PARTITION_UP,
                [SLURM_PARTITION_DOWN] = PARTITION_DOWN,
                [SLURM_PARTITION_DRAIN] = PARTITION_DRAIN,
                [SLURM_PARTITION_INACTIVE] = PARTITION_INACTIVE,
        };
        update_part_msg_t m;

        if (isempty(name) || (unsigned) state >= ELEMENTSOF(states))
                return -EINVAL;
        slurm_init_part_desc_msg(&m);
        m.name = (char *) name;
        m.state_up = states[state];
        return send_update(&m, err);
}

/* --- live parameter updates ------------------------------------------------------------------- */

/* Exported by libslurm (its own parsers of time strings and PreemptMode words, the ones
 * slurm.conf and scontrol use) but declared in no public header. */
extern int slurm_time_str2mins(const char *string);
extern uint16_t slurm_preempt_mode_num(const char *preempt_mode);

static bool parse_u64(const char *s, uint64_t max, uint64_t *ret) {
        char *end;
        if (isempty(s) || !(s[0] >= '0' && s[0] <= '9'))
                return false;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end || v > max)
                return false;
        *ret = v;
        return true;
}

static bool unlimited(const char *s) {
        return strcaseeq(s, "UNLIMITED") || strcaseeq(s, "INFINITE");
}

/* A count with UNLIMITED/INFINITE as inf. */
static bool parse_count(const char *s, uint64_t max, uint64_t inf, uint64_t *ret) {
        if (unlimited(s)) {
                *ret = inf;
                return true;
        }
        return parse_u64(s, max, ret);
}

static bool parse_yes_no(const char *s, bool *ret) {
        if (strcaseeq(s, "YES")) {
                *ret = true;
                return true;
        }
        if (strcaseeq(s, "NO")) {
                *ret = false;
                return true;
        }
        return false;
}

/* One key into m: 1 set, 0 not settable live (or a value this encoder does not know). */
static int encode(update_part_msg_t *m, const char *key, const char *value) {
        static const struct {
                const char *key;
                uint16_t set, clear;
        } flags[] = {
                { "Default", PART_FLAG_DEFAULT, PART_FLAG_DEFAULT_CLR },
                { "Hidden", PART_FLAG_HIDDEN, PART_FLAG_HIDDEN_CLR },
                { "DisableRootJobs", PART_FLAG_NO_ROOT, PART_FLAG_NO_ROOT_CLR },
                { "RootOnly", PART_FLAG_ROOT_ONLY, PART_FLAG_ROOT_ONLY_CLR },
                { "ReqResv", PART_FLAG_REQ_RESV, PART_FLAG_REQ_RESV_CLR },
                { "LLN", PART_FLAG_LLN, PART_FLAG_LLN_CLR },
                { "ExclusiveUser", PART_FLAG_EXCLUSIVE_USER, PART_FLAG_EXC_USER_CLR },
        };
        static const struct {
                const char *key;
                size_t offset;
        } strings[] = {
                { "AllocNodes", offsetof(update_part_msg_t, allow_alloc_nodes) },
                { "AllowAccounts", offsetof(update_part_msg_t, allow_accounts) },
                { "AllowGroups", offsetof(update_part_msg_t, allow_groups) },
                { "AllowQos", offsetof(update_part_msg_t, allow_qos) },
                { "Alternate", offsetof(update_part_msg_t, alternate) },
                { "DenyAccounts", offsetof(update_part_msg_t, deny_accounts) },
                { "DenyQos", offsetof(update_part_msg_t, deny_qos) },
                { "QOS", offsetof(update_part_msg_t, qos_char) },
                { "TRESBillingWeights", offsetof(update_part_msg_t, billing_weights_str) },
        };
        uint64_t v;
        bool b;

        for (size_t i = 0; i < ELEMENTSOF(flags); i++)
                if (strcaseeq(key, flags[i].key)) {
                        if (!parse_yes_no(value, &b))
                                return 0;
                        m->flags |= b ? flags[i].set : flags[i].clear;
                        return 1;
                }
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (strcaseeq(key, strings[i].key)) {
                        *(char **) ((char *) m + strings[i].offset) = (char *) value;
                        return 1;
                }
        if (strcaseeq(key, "MaxTime") || strcaseeq(key, "DefaultTime")) {
                int mins = slurm_time_str2mins(value);
                if (mins < 0 && mins != (int) INFINITE)
                        return 0;
                *(strcaseeq(key, "MaxTime") ? &m->max_time : &m->default_time) = (uint32_t) mins;
                return 1;
        }
        if (strcaseeq(key, "MaxNodes") || strcaseeq(key, "MaxCPUsPerNode")) {
                if (!parse_count(value, INFINITE - 1, INFINITE, &v))
                        return 0;
                *(strcaseeq(key, "MaxNodes") ? &m->max_nodes : &m->max_cpus_per_node) = (uint32_t) v;
                return 1;
        }
        if (strcaseeq(key, "MinNodes") || strcaseeq(key, "GraceTime")) {
                if (!parse_u64(value, INFINITE - 1, &v))
                        return 0;
                *(strcaseeq(key, "MinNodes") ? &m->min_nodes : &m->grace_time) = (uint32_t) v;
                return 1;
        }
        if (strcaseeq(key, "OverTimeLimit")) {
                if (!parse_count(value, INFINITE16 - 1, INFINITE16, &v))
                        return 0;
                m->over_time_limit = (uint16_t) v;
                return 1;
        }
        if (strcaseeq(key, "PriorityTier") || strcaseeq(key, "PriorityJobFactor")) {
                if (!parse_u64(value, UINT16_MAX - 1, &v))
                        return 0;
                *(strcaseeq(key, "PriorityTier") ? &m->priority_tier : &m->priority_job_factor) =
                        (uint16_t) v;
                return 1;
        }
        if (strcaseeq(key, "DefMemPerCPU") || strcaseeq(key, "DefMemPerNode") ||
                strcaseeq(key, "MaxMemPerCPU") || strcaseeq(key, "MaxMemPerNode")) {
                bool per_cpu = strcaseeq(key, "DefMemPerCPU") || strcaseeq(key, "MaxMemPerCPU");
                if (!parse_count(value, INT64_MAX, INFINITE64, &v) || (per_cpu && v == INFINITE64))
                        return 0;
                if (per_cpu)
                        v |= MEM_PER_CPU;
                *(strncasecmp(key, "Def", 3) == 0 ? &m->def_mem_per_cpu : &m->max_mem_per_cpu) = v;
                return 1;
        }
        if (strcaseeq(key, "State")) {
                static const struct {
                        const char *word;
                        uint16_t state;
                } states[] = { { "UP", PARTITION_UP }, { "DOWN", PARTITION_DOWN },
                        { "DRAIN", PARTITION_DRAIN }, { "INACTIVE", PARTITION_INACTIVE } };
                for (size_t i = 0; i < ELEMENTSOF(states); i++)
                        if (strcaseeq(value, states[i].word)) {
                                m->state_up = states[i].state;
                                return 1;
                        }
                return 0;
        }
        if (strcaseeq(key, "OverSubscribe")) {
                const char *colon = strchr(value, ':');
                size_t n = colon ? (size_t) (colon - value) : strlen(value);
                uint64_t count = 4; /* Slurm's default for YES and FORCE without a count */
                if (colon && !parse_u64(colon + 1, SHARED_FORCE - 1, &count))
                        return 0;
                if (n == 9 && strncasecmp(value, "EXCLUSIVE", 9) == 0 && !colon)
                        m->max_share = 0;
                else if (n == 2 && strncasecmp(value, "NO", 2) == 0 && !colon)
                        m->max_share = 1;
                else if (n == 3 && strncasecmp(value, "YES", 3) == 0)
                        m->max_share = (uint16_t) count;
                else if (n == 5 && strncasecmp(value, "FORCE", 5) == 0)
                        m->max_share = (uint16_t) count | SHARED_FORCE;
                else
                        return 0;
                return 1;
        }
        if (strcaseeq(key, "PreemptMode")) {
                uint16_t mode = slurm_preempt_mode_num(value);
                if (mode == NO_VAL16)
                        return 0;
                m->preempt_mode = mode;
                return 1;
        }
        return 0; /* Nodes, CpuBind, SelectTypeParameters, ResumeTimeout, Suspend*, …: the file */
}

bool slurm_partition_key_live(const char *key, const char *value) {
        update_part_msg_t m;
        slurm_init_part_desc_msg(&m);
        return encode(&m, key, value) > 0;
}

int slurm_partition_update(const char *name, char *const *kv, size_t n_kv, struct strbuf *err) {
        update_part_msg_t m;

        if (isempty(name) || n_kv % 2)
                return -EINVAL;
        slurm_init_part_desc_msg(&m);
        m.name = (char *) name;
        for (size_t i = 0; i + 1 < n_kv; i += 2)
                if (encode(&m, kv[i], kv[i + 1]) <= 0) {
                        if (err)
                                strbuf_addf(err,
                                        "partition \"%s\": %s cannot be changed on a running slurmctld",
                                        name, kv[i]);
                        return -EOPNOTSUPP;
                }
        return send_update(&m, err);
}

int slurm_partition_set_nodes(const char *name, const char *nodes, struct strbuf *err) {
        update_part_msg_t m;

        if (isempty(name) || isempty(nodes))
                return -EINVAL;
        slurm_init_part_desc_msg(&m);
        m.name = (char *) name;
        m.nodes = (char *) nodes;
        return send_update(&m, err);
}

static void push_id(uint32_t **v, size_t *n, uint32_t id) {
        *v = xrealloc(*v, (*n + 1) * sizeof(uint32_t));
        (*v)[(*n)++] = id;
}

int slurm_partition_jobs(const char *name, struct slurm_partition_jobs *ret, struct strbuf *err) {
        job_info_msg_t *msg = NULL;
        struct slurm_partition_jobs out = { 0 };
        int r;

        if (isempty(name))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_jobs((time_t) 0, &msg, SHOW_ALL);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load jobs");
        for (uint32_t i = 0; i < msg->record_count; i++) {
                const slurm_job_info_t *j = &msg->job_array[i];
                if (isempty(j->partition) || !slurm_list_has(j->partition, name))
                        continue;
                if (slurm_job_state_on_node(j->job_state))
                        push_id(&out.running, &out.n_running, j->job_id);
                else if ((j->job_state & JOB_STATE_BASE) == JOB_PENDING)
                        push_id(&out.pending, &out.n_pending, j->job_id);
        }
        slurm_free_job_info_msg(msg);
        *ret = out;
        return (int) (out.n_running + out.n_pending);
}
