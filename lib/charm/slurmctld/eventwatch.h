/* SPDX-License-Identifier: Apache-2.0 */
/* The node event watcher's loop (bin/node-event-watcher, a systemd unit on each controller
 * unit): turns trigger spool records (charm/slurmctld/eventspool.h) into reconciles of the node event
 * log, and the log's news into a status refresh in hook context.
 *
 * Rounds. A round reads the spool (oldest first), hands its records to the reconcile callback
 * (the caller's: charm/slurmctld/nodeevents.h; this module knows neither Slurm nor the log) and, once that
 * succeeded, removes them. Rounds run:
 *   - at start ("watcher-start"): whatever the spool holds, and what changed while no watcher ran;
 *   - when the doorbell rings (a trigger wrote a record), after a quiet window_usec (triggers of
 *     one slurmctld pass come together: one round for all); a round (of any cause) that would
 *     hold only reconfig records (which name no node) waits until pass_usec after their burst's
 *     first ring, so that the node records of the same pass (drained, down, up) are in it: else its
 *     reconcile sees their changes first and records them as its own finding (seen on a loaded
 *     machine: drained came 110 ms after reconfig);
 *   - every poll_usec ("poll"), the safety net for what no trigger reports (a dynamic node's
 *     registration, a lost ring, a takeover seen from another controller unit);
 *   - again at once while the spool still holds records (more than one round's worth).
 *   - every expect_poll_usec while expecting() says the controller expects a node change that
 *     has not happened yet ("expect": charm/slurmctld/expect.h), after each successful round;
 *     when fewer are open than after the last good round (one was met or ran out) the status
 *     is refreshed, news in the log or not: another controller unit may have written the
 *     log's record of that change (one log for all, charm/slurmctld/evshare.h), and this unit's
 *     status still counts the node (issue 28: a backup's status kept six departed nodes);
 * A round with records has the cause "trigger:<kinds>" (their kinds, sorted, e.g.
 * "trigger:drained,reconfig"). A failed round keeps the records and is retried (retry_usec
 * doubling to 30 s) unless a ring or a poll comes first.
 *
 * Status refresh. When a round's callback says the log got news (> 0), refresh_argv
 * (`juju-exec <unit> <charm>/bin/node-events-changed`: hook context, where status-set works)
 * runs in a child process the loop does not wait for: the log never waits on Juju's machine
 * lock (a hook holding it, an agent being upgraded); news during a refresh give one more
 * refresh after it. A refresh is bounded by refresh_timeout_ms.
 *
 * Invariants: no inotify instance (the doorbell is a FIFO: a juju-sim machine's inotify budget
 * is counted, machine-capacity.c); every wait is bounded; the loop prints nothing (o->log).
 * Returns only with max_rounds set (0 after that many rounds, once a refresh child ended) or
 * on a setup failure (negative errno, message in err). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "charm/slurmctld/eventspool.h"
#include "util/strbuf.h"

#define EVENTWATCH_WINDOW_USEC_DEFAULT (50 * 1000ULL)
#define EVENTWATCH_POLL_USEC_DEFAULT (30 * 1000 * 1000ULL)
#define EVENTWATCH_RETRY_USEC_DEFAULT (1000 * 1000ULL)
#define EVENTWATCH_RETRY_MAX_USEC (30 * 1000 * 1000ULL)
#define EVENTWATCH_REFRESH_TIMEOUT_MS_DEFAULT (300 * 1000)
#define EVENTWATCH_EXPECT_POLL_USEC_DEFAULT (1000 * 1000ULL)
#define EVENTWATCH_PASS_USEC_DEFAULT (1000 * 1000ULL)

struct eventwatch_opts {
        const char *spool;
        uid_t spool_uid; /* the doorbell's owner (SlurmUser); (uid_t) -1: the caller */
        gid_t spool_gid;
        uint64_t window_usec; /* 0: EVENTWATCH_WINDOW_USEC_DEFAULT */
        uint64_t pass_usec;   /* a reconfig-only burst's wait; 0: EVENTWATCH_PASS_USEC_DEFAULT */
        uint64_t poll_usec;   /* 0: no poll */
        uint64_t retry_usec;  /* 0: EVENTWATCH_RETRY_USEC_DEFAULT */
        unsigned max_rounds;  /* 0: run for ever */
        /* One reconcile: records (may be empty) and the cause. > 0: news for the status,
         * 0: none, < 0: failed (the records stay; message in err). */
        int (*reconcile)(
                void *userdata, const struct evspool_list *records, const char *cause, struct strbuf *err);
        char *const *refresh_argv;                     /* NULL-terminated; NULL: no refresh */
        int refresh_timeout_ms;                        /* 0: EVENTWATCH_REFRESH_TIMEOUT_MS_DEFAULT */
        void (*log)(void *userdata, const char *line); /* may be NULL */
        void (*ready)(void *userdata);                 /* once the doorbell is open; may be NULL */
        size_t (*expecting)(void *userdata);           /* open expectations, after a good round; may be NULL */
        uint64_t expect_poll_usec;                     /* 0: EVENTWATCH_EXPECT_POLL_USEC_DEFAULT */
        void *userdata;
};

/* "trigger:<kinds>" of the valid records (sorted, each once), or fallback when there is none. */
void eventwatch_cause(const struct evspool_list *records, const char *fallback, struct strbuf *out);

int eventwatch_run(const struct eventwatch_opts *o, struct strbuf *err);
