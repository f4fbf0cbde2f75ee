/* SPDX-License-Identifier: Apache-2.0 */
/* Accounting that waits for slurmdbd, followed between hooks: see acctfollow.h. */
#include "util/macro.h"
#include "charm/slurmctld/acctfollow.h"

#include <unistd.h>

#include "charm/common/charm.h"
#include "charm/common/pause.h"
#include "charm/slurmctld/accounting.h"
#include "util/alloc.h"
#include "util/strv.h"

#include "util/banned.h"

bool acctfollow_wanted(const char *service) {
        return streq_ptr(service, "slurmctld.service");
}

bool acctfollow_note(struct acctfollow *f, bool waiting, bool ready, uint64_t now) {
        return follow_rate_note(&f->rate, waiting, ready, now, ACCTFOLLOW_POLL_USEC, ACCTFOLLOW_AGAIN_USEC);
}

int acctfollow_look(struct acctfollow *f, const char *root, uint64_t now, int64_t now_s) {
        if (now < f->rate.next_look)
                return 0;
        const struct charm_paths p = { .root = root };
        _cleanup_strv_ struct strv hosts = STRV_INIT;
        _cleanup_free_ char *state = NULL;
        int64_t until = 0, since_ms = 0;
        /* a paused unit's reconcile takes nothing (charm/common/pause.h): no run for it */
        bool waiting = charm_paused(&p, NULL) == 0 && acct_wait_load(&p, &until, &hosts, &state, &since_ms);
        /* a standby's wait ends also when the shared state lets it take control without
         * slurmdbd (accounting.h, struct acct_standby): a few stat calls, no connection */
        bool ready = waiting && now_s >= until &&
                ((state && acct_state_ready(&p, state, since_ms, NULL)) || acct_hosts_answer(&hosts, ACCTFOLLOW_LOOK_MS));
        return acctfollow_note(f, waiting, ready, now) ? 1 : 0;
}
