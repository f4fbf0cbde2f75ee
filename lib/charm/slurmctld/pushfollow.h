/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's pending push followed between hooks (issue 26 item 6's attack, F7): the
 * slurmd units learn a new slurm.conf only at a reconfigure that waits until no job holds a node
 * (charm/slurmctld/ctlapply.h, <state>/CTL_PUSH_FILE). That wait ended only at the controller's next hook
 * (update-status: every 5 minutes in Juju), so a program just judged safe on every compute machine
 * (charm/common/nodeprogs.h) or any other new value reached the nodes minutes after the cluster went
 * idle. slurmctld's service watcher (charm/common/watcher.h) now also looks, every
 * PUSHFOLLOW_POLL_USEC while the file is there (only on the unit that pushes: the leader), whether
 * a job still holds a node, with the same count the push uses (slurm_jobs_holding_nodes: one job
 * table read, in a child bounded to PUSHFOLLOW_TIMEOUT_MS with MessageTimeout capped below it),
 * and runs the unit's handler (the reconcile, which pushes) as soon as none does. While the file
 * stays (the push failed, or a job started in between), a run is asked again at most every
 * PUSHFOLLOW_AGAIN_USEC. No file, no RPC. A count that got no answer in time while slurmctld's
 * log shows the push's reconfigure stuck after its state save (charm/slurmctld/ctlhang.h) asks a
 * run too (at most every PUSHFOLLOW_AGAIN_USEC): the reconcile cures it.
 *
 * Ownership: plain values. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "charm/common/followrate.h"
#include "util/strbuf.h"

#define PUSHFOLLOW_POLL_USEC (10 * 1000 * 1000ULL)
#define PUSHFOLLOW_AGAIN_USEC (60 * 1000 * 1000ULL)
#define PUSHFOLLOW_TIMEOUT_MS 4000

/* Whether the watcher of service follows the push (slurmctld's). */
bool pushfollow_wanted(const char *service);

struct pushfollow {
        struct follow_rate rate;
        uint64_t hang_asked; /* when a run was last asked for a hung reconfigure (0: never) */
};
#define PUSHFOLLOW_INIT \
        { .rate = FOLLOW_RATE_INIT }

/* Records a look at now: pending (the push file is there) and busy (jobs holding nodes: > 0,
 * 0 none, < 0 not known): charm/common/followrate.h's rule, ready when busy is 0, at
 * PUSHFOLLOW_POLL_USEC and PUSHFOLLOW_AGAIN_USEC. True when a handler run is to be asked for now. */
bool pushfollow_note(struct pushfollow *f, bool pending, int busy, uint64_t now);

/* One look when due (root: the file system's top, NULL for "/"): 1 ask a run now, 0 not, or a
 * negative errno when slurmctld could not be asked (err; the next look asks again). */
int pushfollow_look(struct pushfollow *f, const char *root, uint64_t now, struct strbuf *err);
