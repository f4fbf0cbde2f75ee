/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit follows its machine between hooks (issue 26, items 6 and 1): the slurmd unit's
 * service watcher (charm/watcher.h) also looks at the jobs this machine runs and at the
 * configuration slurmd fetched, and when either changed runs the charm's handler as for a
 * service change (the unit's reconcile, as update-status runs it). So "idle", "allocated",
 * "mixed" and "draining"/"drained" are told within seconds of a job's start or end instead of at
 * the next hook (update-status: every 5 minutes in Juju; a unit showed "allocated" long after its
 * job ended), and a pushed slurm.conf that names an unsafe program here is judged (charm/nodepaths.h:
 * the node drained) about a second after slurmd took it, not minutes later.
 *
 * Design note.
 *  - Everything comes from the machine itself, with no RPC: the jobs are the slurmstepd sockets
 *    in SlurmdSpoolDir (slurm_local_steps_scan, slurm/localjobs.h), the configuration is the
 *    configless copy's content (slurmd rewrites it, by rename, at every start and every
 *    reconfigure, and /run/slurm goes with each stop on 24.11: only new bytes count, so a restart
 *    or a crash loop asks for nothing; the file is read only when its identity (device, inode,
 *    size, mtime) changed). One directory read and one stat every NODEFOLLOW_POLL_USEC, so a
 *    thousand compute units cost slurmctld nothing while nothing changes. SlurmdSpoolDir is the
 *    charm's (slurmconf/pathkeys: the key is refused in every option).
 *  - A change of the jobs (a job id came or went) asks for one handler run
 *    NODEFOLLOW_SETTLE_USEC later: a job's end reaches slurmctld after its last slurmstepd exits
 *    (the batch script's completion, then the epilog's), and the status is read from slurmctld.
 *    A later change of a burst moves the run to its own settle time, but never past
 *    NODEFOLLOW_GAP_USEC after the burst's first change; runs for jobs are at least
 *    NODEFOLLOW_GAP_USEC apart. So a node running a stream of short jobs costs one handler run
 *    (one juju-exec, one node RPC) per gap at most, and the last change of a burst is followed by
 *    a run.
 *  - New bytes in the configuration ask for a run NODEFOLLOW_SETTLE_USEC later, gap or not (an
 *    unsafe program is a root matter; the settle lets 24.11's slurmd finish the re-exec of its
 *    reconfigure before the reconcile judges its running plugins); a job run already pending
 *    then comes no later than that.
 *  - Not seen: an allocation with no slurmstepd on this machine (salloc before its first srun, a
 *    multi-node job's other nodes between steps: no PrologFlags=Contain here); the next job
 *    change or hook tells.
 *  - The first look records and asks for nothing (the watcher's start has its own run when the
 *    daemon is not active; a hook set the status before). A failed look changes nothing (the
 *    caller logs it); a configuration file that is not there has the identity "none".
 *  - Only where slurmd runs: nodefollow_wanted().
 *
 * Ownership: the follower owns its id list (nodefollow_done()); strings are borrowed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/* the SlurmdSpoolDir of templates/slurm.conf */
#define NODEFOLLOW_SPOOL_DIR "/var/lib/slurm/slurmd"
#define NODEFOLLOW_POLL_USEC (2 * 1000 * 1000ULL)
#define NODEFOLLOW_SETTLE_USEC (3 * 1000 * 1000ULL)
#define NODEFOLLOW_GAP_USEC (10 * 1000 * 1000ULL)
/* a configuration file larger than this is not read (its identity alone counts) */
#define NODEFOLLOW_CONF_MAX (16 * 1024 * 1024)

/* What a look saw of the configuration file. */
struct nodefollow_conf {
        bool present;
        uint64_t dev, ino, size, mtime_nsec; /* its identity */
        uint64_t hash;                       /* of its content (FNV-1a) */
};

struct nodefollow {
        uint32_t *ids; /* the jobs at the last good look (sorted) */
        size_t n;
        bool known; /* a look at the jobs succeeded once */
        struct nodefollow_conf conf; /* the last configuration seen present */
        bool conf_known;
        bool pending; /* a handler run is asked for, due at due_usec */
        uint64_t due_usec;
        uint64_t pending_since_usec; /* when the pending run was first asked for */
        uint64_t last_run_usec;      /* when the last run was taken (0: none yet) */
};

#define NODEFOLLOW_INIT { 0 }

void nodefollow_done(struct nodefollow *f);

/* Whether the watcher of this service follows its machine (slurmd.service). */
bool nodefollow_wanted(const char *service);

/* Records a look at the jobs at now_usec (ids: sorted, no duplicates, copied). Returns true when
 * the set differs from the last look's (not on the first look): a run is then pending, due
 * NODEFOLLOW_SETTLE_USEC after the first change not yet run and at least NODEFOLLOW_GAP_USEC
 * after the last run. Pure. */
bool nodefollow_note_jobs(struct nodefollow *f, const uint32_t *ids, size_t n, uint64_t now_usec);

/* Records a look at the configuration at now_usec. Returns true when its content differs from the
 * last one seen present (not on the first, and never for a file that is not there: slurmd's
 * restart removes it a moment): a run is then due NODEFOLLOW_SETTLE_USEC from now, or earlier
 * when one was due earlier. Pure. */
bool nodefollow_note_conf(struct nodefollow *f, const struct nodefollow_conf *c, uint64_t now_usec);

/* When a run is pending and due at now_usec: clears it, remembers now_usec as the last run and
 * returns true. Pure. */
bool nodefollow_take(struct nodefollow *f, uint64_t now_usec);

/* The due time of the pending run, 0 when none is pending. Pure. */
uint64_t nodefollow_deadline(const struct nodefollow *f);

/* A look at path (followed through links): absent, or its identity and, unless that equals
 * last's (NULL: none), its content's hash. Negative errno (message in err) when it cannot be read. */
int nodefollow_conf_read(const char *path, const struct nodefollow_conf *last, struct nodefollow_conf *ret,
        struct strbuf *err);

/* One look at now_usec: node's jobs in spool_dir, then conf_path's identity (NULL: not
 * followed). A bit mask: 1 the jobs changed, 2 the configuration's content changed; negative errno
 * (message in err) when a part could not be read (what was read is recorded). */
int nodefollow_look(struct nodefollow *f, const char *spool_dir, const char *node, const char *conf_path,
        uint64_t now_usec, struct strbuf *err);
