/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's pending push followed between hooks (see pushfollow.h). */
#include "util/macro.h"
#include "charm/slurmctld/pushfollow.h"

#include <errno.h>
#include <unistd.h>

#include "charm/common/charm.h"
#include "charm/slurmctld/ctlapply.h"
#include "charm/slurmctld/ctlhang.h"
#include "proc/proc.h"
#include "slurm/client.h"
#include "slurm/jobs.h"
#include "util/alloc.h"

#include "util/banned.h"

bool pushfollow_wanted(const char *service) {
        return streq_ptr(service, "slurmctld.service");
}

bool pushfollow_note(struct pushfollow *f, bool pending, int busy, uint64_t now) {
        return follow_rate_note(&f->rate, pending, busy == 0, now, PUSHFOLLOW_POLL_USEC, PUSHFOLLOW_AGAIN_USEC);
}

/* In the child of proc_call_as(): the count of jobs holding nodes. */
static int count_child(void *userdata, struct strbuf *out) {
        int r = slurm_client_cap_msg_timeout(PUSHFOLLOW_TIMEOUT_MS / 1000 - 1, out);
        if (r < 0)
                return r;
        return slurm_jobs_holding_nodes(out);
}

int pushfollow_look(struct pushfollow *f, const char *root, uint64_t now, struct strbuf *err) {
        if (now < f->rate.next_look)
                return 0;
        const struct charm_paths p = { .root = root };
        _cleanup_free_ char *dir = charm_path(&p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, CTL_PUSH_FILE);
        bool pending = access(path, F_OK) == 0;
        int busy = 0;
        if (pending) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                /* a child: libslurm reads the configuration afresh, and a silent controller
                 * costs the loop at most the bound */
                busy = proc_call_as(0, 0, PUSHFOLLOW_TIMEOUT_MS, count_child, NULL, &out);
                if (busy < 0) {
                        (void) pushfollow_note(f, pending, busy, now);
                        /* no answer: the reconfigure the push asked for may hang after its
                         * state save (ctlhang.h); the handler's reconcile judges and cures it */
                        _cleanup_free_ char *log = charm_path(&p, CTL_SLURMCTLD_LOG);
                        if (ctl_hang_look(log, time(NULL)) &&
                                (!f->hang_asked || now >= f->hang_asked + PUSHFOLLOW_AGAIN_USEC)) {
                                f->hang_asked = now;
                                return 1;
                        }
                        strbuf_addf(err, "jobs holding nodes: %s",
                                busy == -ETIME ? "no answer in time" : out.len ? out.buf : strerror(-busy));
                        return busy;
                }
        }
        return pushfollow_note(f, pending, busy, now) ? 1 : 0;
}
