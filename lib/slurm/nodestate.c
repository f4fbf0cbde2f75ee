/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm node and job states as text, and the predicates the charms decide on.
 * Pure table code over libslurm 22.05's constants. */
#include "util/macro.h"
#include "slurm/nodestate.h"

#include <slurm/slurm.h>

#include "util/banned.h"

static const char *const base_names[] = {
        [NODE_STATE_UNKNOWN] = "UNKNOWN",
        [NODE_STATE_DOWN] = "DOWN",
        [NODE_STATE_IDLE] = "IDLE",
        [NODE_STATE_ALLOCATED] = "ALLOCATED",
        [NODE_STATE_ERROR] = "ERROR",
        [NODE_STATE_MIXED] = "MIXED",
        [NODE_STATE_FUTURE] = "FUTURE",
};

struct flag_name {
        uint32_t bit;
        const char *name;
};

/* In bit order; the first name of a bit is the one written. */
static const struct flag_name flag_names[] = {
#ifdef NODE_STATE_NET /* gone in 24.11 */
        { NODE_STATE_NET, "PERFCTRS" },
#endif
        { NODE_STATE_RES, "RESERVED" },
        { NODE_STATE_UNDRAIN, "UNDRAIN" },
        { NODE_STATE_CLOUD, "CLOUD" },
        { NODE_RESUME, "RESUME" },
        { NODE_STATE_DRAIN, "DRAIN" },
        { NODE_STATE_COMPLETING, "COMPLETING" },
        { NODE_STATE_NO_RESPOND, "NOT_RESPONDING" },
        { NODE_STATE_POWERED_DOWN, "POWERED_DOWN" },
        { NODE_STATE_FAIL, "FAIL" },
        { NODE_STATE_POWERING_UP, "POWERING_UP" },
        { NODE_STATE_MAINT, "MAINTENANCE" },
        { NODE_STATE_REBOOT_REQUESTED, "REBOOT_REQUESTED" },
        { NODE_STATE_REBOOT_CANCEL, "REBOOT_CANCELED" },
        { NODE_STATE_POWERING_DOWN, "POWERING_DOWN" },
        { NODE_STATE_DYNAMIC_FUTURE, "DYNAMIC_FUTURE" },
        { NODE_STATE_REBOOT_ISSUED, "REBOOT_ISSUED" },
        { NODE_STATE_PLANNED, "PLANNED" },
        { NODE_STATE_INVALID_REG, "INVALID_REG" },
        { NODE_STATE_POWER_DOWN, "POWER_DOWN" },
        { NODE_STATE_POWER_UP, "POWER_UP" },
        { NODE_STATE_POWER_DRAIN, "POWER_DRAIN" },
        { NODE_STATE_DYNAMIC_NORM, "DYNAMIC_NORM" },
#ifdef NODE_STATE_BLOCKED /* new in 24.11 */
        { NODE_STATE_BLOCKED, "BLOCKED" },
#endif
        /* aliases, accepted when parsing only */
        { NODE_STATE_NO_RESPOND, "NO_RESPOND" },
        { NODE_STATE_MAINT, "MAINT" },
        { NODE_STATE_RES, "RES" },
        { NODE_STATE_DRAIN, "DRAINED" },
        { NODE_STATE_DRAIN, "DRAINING" },
};

const char *slurm_state_base_name(uint32_t state) {
        uint32_t base = state & NODE_STATE_BASE;
        if (base >= ELEMENTSOF(base_names) || !base_names[base])
                return "UNKNOWN";
        return base_names[base];
}

void slurm_state_format(uint32_t state, struct strbuf *out) {
        uint32_t flags = state & NODE_STATE_FLAGS;
        strbuf_addstr(out, slurm_state_base_name(state));
        for (size_t i = 0; i < ELEMENTSOF(flag_names) && flags; i++) {
                if (!(flags & flag_names[i].bit))
                        continue;
                strbuf_addch(out, '+');
                strbuf_addstr(out, flag_names[i].name);
                flags &= ~flag_names[i].bit;
        }
        if (flags)
                strbuf_addf(out, "+0x%x", (unsigned) flags);
}

uint32_t slurm_state_with_cpus(uint32_t state, uint32_t cpus, uint32_t alloc_cpus) {
        if (alloc_cpus > 0 && alloc_cpus < cpus)
                return (state & NODE_STATE_FLAGS) | NODE_STATE_MIXED;
        return state;
}

static int parse_word(const char *w, size_t len, bool *ret_is_base, uint32_t *ret_bits) {
        for (size_t i = 0; i < ELEMENTSOF(base_names); i++)
                if (base_names[i] && strlen(base_names[i]) == len &&
                        strncasecmp(w, base_names[i], len) == 0) {
                        *ret_is_base = true;
                        *ret_bits = (uint32_t) i;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(flag_names); i++)
                if (strlen(flag_names[i].name) == len && strncasecmp(w, flag_names[i].name, len) == 0) {
                        *ret_is_base = false;
                        *ret_bits = flag_names[i].bit;
                        return 0;
                }
        return -EINVAL;
}

int slurm_state_parse(const char *s, uint32_t *ret_state) {
        uint32_t state = NODE_STATE_UNKNOWN;
        bool have_base = false;

        if (isempty(s))
                return -EINVAL;
        for (const char *p = s;;) {
                const char *end = strchrnul(p, '+');
                bool is_base;
                uint32_t bits;
                if (end == p || parse_word(p, (size_t) (end - p), &is_base, &bits) < 0)
                        return -EINVAL;
                if (is_base) {
                        if (have_base)
                                return -EINVAL;
                        have_base = true;
                        state = (state & NODE_STATE_FLAGS) | bits;
                } else
                        state |= bits;
                if (!*end)
                        break;
                p = end + 1;
        }
        *ret_state = state;
        return 0;
}

bool slurm_state_busy(uint32_t state) {
        uint32_t base = state & NODE_STATE_BASE;
        return base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED || (state & NODE_STATE_COMPLETING);
}

enum slurm_drain slurm_state_drain(uint32_t state) {
        if (!(state & NODE_STATE_DRAIN))
                return SLURM_DRAIN_NONE;
        return slurm_state_busy(state) ? SLURM_DRAIN_DRAINING : SLURM_DRAIN_DRAINED;
}

const char *slurm_drain_name(enum slurm_drain d) {
        switch (d) {
        case SLURM_DRAIN_DRAINING:
                return "DRAINING";
        case SLURM_DRAIN_DRAINED:
                return "DRAINED";
        default:
                return NULL;
        }
}

bool slurm_state_registered(uint32_t state) {
        uint32_t base = state & NODE_STATE_BASE;
        if (base == NODE_STATE_UNKNOWN || base == NODE_STATE_FUTURE || base >= NODE_STATE_END)
                return false;
        return !(state & (NODE_STATE_NO_RESPOND | NODE_STATE_DYNAMIC_FUTURE | NODE_STATE_POWERED_DOWN));
}

bool slurm_state_down(uint32_t state) {
        return (state & NODE_STATE_BASE) == NODE_STATE_DOWN || (state & NODE_STATE_FAIL);
}

static const char *const job_names[] = {
        [JOB_PENDING] = "PENDING",
        [JOB_RUNNING] = "RUNNING",
        [JOB_SUSPENDED] = "SUSPENDED",
        [JOB_COMPLETE] = "COMPLETED",
        [JOB_CANCELLED] = "CANCELLED",
        [JOB_FAILED] = "FAILED",
        [JOB_TIMEOUT] = "TIMEOUT",
        [JOB_NODE_FAIL] = "NODE_FAIL",
        [JOB_PREEMPTED] = "PREEMPTED",
        [JOB_BOOT_FAIL] = "BOOT_FAIL",
        [JOB_DEADLINE] = "DEADLINE",
        [JOB_OOM] = "OUT_OF_MEMORY",
};

const char *slurm_job_state_name(uint32_t job_state) {
        uint32_t base = job_state & JOB_STATE_BASE;
        /* squeue's precedence: the transient flags say more than the base state. */
        if (job_state & JOB_COMPLETING)
                return "COMPLETING";
        if (job_state & JOB_CONFIGURING)
                return "CONFIGURING";
        if (job_state & JOB_REQUEUE)
                return "REQUEUED";
        if (base >= ELEMENTSOF(job_names) || !job_names[base])
                return "UNKNOWN";
        return job_names[base];
}

bool slurm_job_state_on_node(uint32_t job_state) {
        uint32_t base = job_state & JOB_STATE_BASE;
        if (job_state & (JOB_COMPLETING | JOB_CONFIGURING))
                return true;
        return base == JOB_RUNNING || base == JOB_SUSPENDED;
}

bool slurm_job_state_launched(uint32_t job_state) {
        return (job_state & JOB_STATE_BASE) == JOB_RUNNING && !(job_state & (JOB_COMPLETING | JOB_CONFIGURING));
}

bool slurm_state_invalid_reg(uint32_t state) {
        return (state & NODE_STATE_INVALID_REG) != 0;
}
