/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm partitions through libslurm: state updates and the jobs of one partition (running and
 * pending), for the controller's partition removal. */
#include "util/macro.h"
#include "slurm/partitions.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

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

int slurm_partition_set_state(const char *name, enum slurm_partition_state state, struct strbuf *err) {
        static const uint16_t states[] = {
                [SLURM_PARTITION_UP] = PARTITION_UP,
                [SLURM_PARTITION_DOWN] = PARTITION_DOWN,
                [SLURM_PARTITION_DRAIN] = PARTITION_DRAIN,
                [SLURM_PARTITION_INACTIVE] = PARTITION_INACTIVE,
        };
        update_part_msg_t m;
        int r;

        if (isempty(name) || (unsigned) state >= ELEMENTSOF(states))
                return -EINVAL;
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        slurm_init_part_desc_msg(&m);
        m.name = (char *) name;
        m.state_up = states[state];
        r = slurm_update_partition(&m);
        if (r != SLURM_SUCCESS) {
                int code = slurm_rc_code(r);
                if (code == ESLURM_INVALID_PARTITION_NAME) {
                        if (err)
                                strbuf_addf(err, "partition \"%s\": no such partition", name);
                        return -ENOENT;
                }
                return slurm_fail(err, code, "update partition \"%s\"", name);
        }
        return 0;
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
