/* SPDX-License-Identifier: Apache-2.0 */
/* Accounting that waits for slurmdbd, followed between hooks (review of stop 54, finding 5).
 * New slurmdbd hosts are taken only once one answers, and not for ACCT_DEFER_S after a start
 * with them failed (charm/slurmctld/accounting.h, acct_read). That wait ended only at the
 * controller's next hook: nothing in the relation changes when slurmdbd comes in reach, so in
 * Juju that was update-status, every 5 minutes by default. While a controller unit's accounting
 * waits, its reconcile keeps <state>/ACCT_WAIT_FILE ("<Unix s before which no start is
 * tried>\n<host:port>\n…"; acct_wait_record); slurmctld's service watcher (charm/common/watcher.h)
 * then looks every ACCTFOLLOW_POLL_USEC, once that time has passed, whether one of the hosts
 * accepts a connection (ACCTFOLLOW_LOOK_MS each), and runs the unit's handler (the reconcile,
 * which takes them) as soon as one does, or, for a standby whose primary runs with them, as
 * soon as the shared state lets it take control without them (the file's state directory,
 * acct_state_ready); again at most every ACCTFOLLOW_AGAIN_USEC while the file stays. No file,
 * no connection; nothing while the unit is paused (its reconcile takes nothing then, and the
 * file stays until resume).
 *
 * Ownership: plain values. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "charm/common/followrate.h"
#include "util/strbuf.h"

#define ACCTFOLLOW_POLL_USEC (10 * 1000 * 1000ULL)
#define ACCTFOLLOW_AGAIN_USEC (60 * 1000 * 1000ULL)
#define ACCTFOLLOW_LOOK_MS 500

/* Whether the watcher of service follows accounting (slurmctld's). */
bool acctfollow_wanted(const char *service);

struct acctfollow {
        struct follow_rate rate;
};
#define ACCTFOLLOW_INIT \
        { .rate = FOLLOW_RATE_INIT }

/* Records a look at now (monotonic µs): waiting (the file is there) and ready (its time has
 * passed and a host answers): charm/common/followrate.h's rule at ACCTFOLLOW_POLL_USEC and
 * ACCTFOLLOW_AGAIN_USEC. True when a handler run is to be asked for now. */
bool acctfollow_note(struct acctfollow *f, bool waiting, bool ready, uint64_t now);

/* One look when due (root: the file system's top, NULL for "/"; now_s: Unix s): 1 ask a run
 * now, 0 not. Never fails: a file it cannot read is no wait. */
int acctfollow_look(struct acctfollow *f, const char *root, uint64_t now, int64_t now_s);
