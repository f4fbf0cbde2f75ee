/* SPDX-License-Identifier: Apache-2.0 */
/* slurmctld's statistics for the charms (what sdiag prints) and the job state save nudge
 * (slurm/ctlstats.h: why a requeue of job 0). */
#include "util/macro.h"
#include "slurm/ctlstats.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/slurmerr.h"

#include "util/banned.h"

/* exported by libslurm (sdiag frees its answer with it) but not declared in <slurm/slurm.h> */
extern void slurm_free_stats_response_msg(stats_info_response_msg_t *msg);

int slurm_ctl_stats_get(struct slurm_ctl_stats *ret, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        stats_info_request_msg_t req = { .command_id = STAT_COMMAND_GET };
        stats_info_response_msg_t *resp = NULL;
        if (slurm_get_statistics(&resp, &req) != SLURM_SUCCESS || !resp)
                return slurm_fail(err, slurm_rc_code(SLURM_ERROR), "slurmctld statistics");
        *ret = (struct slurm_ctl_stats){
                .dbd_queue = resp->dbd_agent_queue_size,
                .jobs_submitted = resp->jobs_submitted,
                .jobs_started = resp->jobs_started,
                .jobs_completed = resp->jobs_completed,
                .bf_started = resp->bf_backfilled_jobs,
                .req_time = resp->req_time,
        };
        slurm_free_stats_response_msg(resp);
        return 0;
}

bool slurm_ctl_stats_started_since(const struct slurm_ctl_stats *before, const struct slurm_ctl_stats *now) {
        /* a counter that went down was reset: anything may have happened meanwhile */
        if (now->jobs_started < before->jobs_started || now->bf_started < before->bf_started ||
                now->jobs_submitted < before->jobs_submitted)
                return true;
        return now->jobs_started != before->jobs_started || now->bf_started != before->bf_started;
}

int slurm_ctl_save_nudge(struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_requeue(0, 0);
        if (r == SLURM_SUCCESS)
                return 0;
        int code = slurm_rc_code(r);
        /* the expected refusal: slurmctld answered, and asked its state-save thread for a save */
        if (code == ESLURM_INVALID_JOB_ID)
                return 0;
        return slurm_fail(err, code, "job state save request");
}
