/* SPDX-License-Identifier: Apache-2.0 */
/* A serving slurmdbd that runs but does not answer, followed between hooks (issue 25 §5: "watch
 * it like the other daemons"). Killed, systemd restarts it and the service watcher follows that;
 * stopped by a signal, charm/common/stopfollow.h sees its process state. But a slurmdbd that
 * runs and answers nothing (a deadlock, its cgroup frozen: its tasks read D, as if in I/O)
 * changes nothing systemd or /proc shows, and the unit said "active … primary" until its next
 * hook (update-status: every 5 minutes in Juju) while slurmctld queued its records.
 *
 * slurmdbd's service watcher now also asks it, every WEDGEFOLLOW_POLL_USEC while this unit
 * serves, what slurmctld asks first: the persistent connection's handshake through the clients'
 * file, read and asked in a child killed after WEDGEFOLLOW_ANSWER_MS (acctdb_ping_conf_within:
 * libslurm is never initialised in the watcher, which would keep the file's first contents and
 * libslurm's threads for ever). A timeout is looked at again WEDGEFOLLOW_AGAIN_USEC later; two
 * in a row are silence, any other result (an answer, or a failure that came at once: refused
 * while systemd restarts it) is not, as the reconcile's own probe judges it (dbd_silent).
 *
 * What the watcher compares that with is what the unit's status says now, not what it saw
 * before: the reconcile keeps <state>/WEDGEFOLLOW_SERVING_FILE on the serving primary unit only
 * (where its probe runs), holding its verdict ("silent": the daemon does not answer;
 * "database": its database does not, which the status names; "answers"). A look that disagrees asks one handler run, and again at most once per
 * WEDGEFOLLOW_REASK_USEC while it still disagrees with the same record (charm/common/followrate.h);
 * a record rewritten since (another run's verdict, even one changed back between two looks)
 * is a new disagreement, asked for at once. A first version
 * kept its own last verdict: a stop (SIGSTOP) it had called silent, continued and frozen before
 * its next look, was never told, since the run that the stop's end asked for had said "active"
 * meanwhile. No file, no handshake; nothing while the unit is paused. A look that times out
 * holds the watcher's loop for up to WEDGEFOLLOW_ANSWER_MS (its other followers wait so long).
 *
 * Ownership: plain values. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "charm/common/followrate.h"

#define WEDGEFOLLOW_SERVING_FILE "slurmdbd.serving"
#define WEDGEFOLLOW_POLL_USEC (30 * 1000 * 1000ULL)
#define WEDGEFOLLOW_AGAIN_USEC (5 * 1000 * 1000ULL)
#define WEDGEFOLLOW_REASK_USEC (60 * 1000 * 1000ULL)
#define WEDGEFOLLOW_ANSWER_MS 5000

/* Whether the watcher of service follows the daemon's answers (slurmdbd's). */
bool wedgefollow_wanted(const char *service);

/* What the unit's status says of the serving daemon (the record's contents). */
enum wedge_told {
        WEDGE_TOLD_NONE,    /* no record: not serving, paused, an older run */
        WEDGE_TOLD_ANSWERS, /* "answers" (an empty record too) */
        WEDGE_TOLD_SILENT,  /* "silent" */
        WEDGE_TOLD_DB,      /* "database": its database does not answer (only a handshake that
                             * succeeds is news then: the handshake fails or waits with it) */
};

struct wedgefollow {
        struct follow_rate rate;
        unsigned misses; /* timeouts in a row */
        bool silent;     /* the last judged look saw silence (for the watcher's log line) */
        uint64_t asked_stamp; /* the record's stamp when a run was last asked for */
};
#define WEDGEFOLLOW_INIT \
        { .rate = FOLLOW_RATE_INIT, .misses = 0, .silent = false, .asked_stamp = 0 }

/* Records a look at now (monotonic µs): what the status says (told, and the record's stamp:
 * another stamp is another run's word) and the handshake's result (-ETIMEDOUT none in time;
 * anything else: not silent). Sets the next look (rate.next_look). True when a handler run is
 * to be asked for now. */
bool wedgefollow_note(struct wedgefollow *f, enum wedge_told told, uint64_t stamp, int ping, uint64_t now);

/* Reads the record (root: the file system's top, NULL for "/"): NONE when absent or unreadable,
 * and when the unit is paused. *ret_stamp (may be NULL): its modification time and inode
 * mixed (0 with NONE); the reconcile rewrites it (a new file) only when its words change. */
enum wedge_told wedgefollow_told(const char *root, uint64_t *ret_stamp);

/* One look when due (root as above; the handshake reads the clients' file there,
 * SLURMDBD_CLIENT_CONF_PATH): 1 ask a run now, 0 not. Never fails. */
int wedgefollow_look(struct wedgefollow *f, const char *root, uint64_t now);

/* The reconcile's record (root as above): NONE removes it, the others write it. 0 or a
 * negative errno. */
int wedgefollow_serving(const char *root, enum wedge_told told);
