/* SPDX-License-Identifier: Apache-2.0 */
/* The few helpers that hide an API difference between Slurm generations (compat.h). */
#include "util/macro.h"
#include "slurm/compat.h"

#include <stdlib.h>

#include "util/alloc.h"

#include "util/banned.h"

char *slurm_hl_string(slurm_hl_t hl) {
        /* the buffer form exists in every generation; it returns -1 when buf is too small */
        for (size_t n = 256; n <= (1u << 24); n *= 4) {
                char *buf = xmalloc(n);
                ssize_t k = slurm_hostlist_ranged_string(hl, n, buf);
                if (k >= 0 && (size_t) k < n) {
                        if (k == 0) {
                                free(buf);
                                return NULL;
                        }
                        return buf;
                }
                free(buf);
        }
        return NULL;
}

#if SLURM_AT_LEAST(24, 11)
extern const char *slurm_job_state_reason_string(enum job_state_reason inx);
const char *slurm_job_reason_name(uint16_t reason) {
        return slurm_job_state_reason_string((enum job_state_reason) reason);
}
#else
extern char *slurm_job_reason_string(enum job_state_reason inx);
const char *slurm_job_reason_name(uint16_t reason) {
        return slurm_job_reason_string((enum job_state_reason) reason);
}
#endif
