/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit follows its machine between hooks (issue 26, items 6 and 1): the slurmd unit's
 * service watcher (charm/common/watcher.h) also looks at the jobs this machine runs and at the
 * configuration slurmd fetched, and when either changed runs the charm's handler as for a
 * service change (the unit's reconcile, as update-status runs it). So "idle", "allocated",
 * "mixed" and "draining"/"drained" are told within seconds of a job's start or end instead of at
 * the next hook (update-status: every 5 minutes in Juju; a unit showed "allocated" long after its
 * job ended), and a pushed slurm.conf that names an unsafe program here is judged (charm/common/nodepaths.h:
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
 *  - A socket counts while a process has it bound (the kernel's table, slurm/localjobs.h): a
 *    slurmstepd killed with SIGKILL leaves its socket file behind for good.
 *  - The programs and files the configuration names for slurmd are judged at every look
 *    (node_paths_check, charm/common/nodepaths.h: a parse and a few stats): a new verdict seen on two
 *    looks in a row asks for a run NODEFOLLOW_SETTLE_USEC later, so a program an admin puts
 *    right (or breaks) on the machine is seen within seconds, not at the next hook.
 *  - What the machine cannot show, the controller can: every NODEFOLLOW_STATE_USEC the node's
 *    status word is read from slurmctld (one single-node REQUEST_NODE_INFO in a child bounded to
 *    NODEFOLLOW_STATE_TIMEOUT_MS, MessageTimeout capped below it: a thousand units cost
 *    slurmctld about 33 small RPCs a second; while no controller answers, the watcher's loop
 *    waits up to that long every NODEFOLLOW_STATE_USEC)
 *    and a new word asks for a run at once. That covers an allocation with no slurmstepd here
 *    (salloc before its first srun, a multi-node batch job's other nodes: no
 *    PrologFlags=Contain), an admin's drain or resume, and a node's own transient states.
 *  - The first look records and asks for one run (NODEFOLLOW_SETTLE_USEC later): what changed
 *    while no watcher looked (a charm upgrade restarts it, a crash) is caught up then. A failed
 *    look changes nothing (the caller logs it); a configuration file that is not there has the
 *    identity "none".
 *  - A run asked for by new configuration bytes or a new verdict is due NODEFOLLOW_SETTLE_USEC
 *    after it, whatever jobs change meanwhile (they never postpone it).
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
#define NODEFOLLOW_STATE_USEC (30 * 1000 * 1000ULL)
#define NODEFOLLOW_STATE_TIMEOUT_MS 4000
/* The unit's hook found no controller answering and its status says so ("waiting node X: no
 * slurmctld answers"): it leaves this mark in its state directory (CHARM_PATH_STATE_DIR), and a
 * hook that reaches a controller removes it. While the mark is there the watcher reads the
 * node's state every NODEFOLLOW_UNANSWERED_USEC, and the first answer after each new mark asks
 * for one run, which tells the truth again: under Juju a controller's restart in its own hook
 * meets the compute units' hooks of the same moment, and nothing else would run one before the
 * next update-status (5 minutes). */
#define NODEFOLLOW_UNANSWERED_FILE "slurmctld-unanswered"
#define NODEFOLLOW_UNANSWERED_USEC (3 * 1000 * 1000ULL)
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
        char *conf_data; /* its content (NULL: too large, or none read yet) */
        size_t conf_len;
        uint64_t verdict;  /* hash of the programs' verdict (node_paths_check) taken */
        bool verdict_known;
        uint64_t verdict_seen; /* the last look's, when it differs from verdict (one look so far) */
        bool verdict_seen_once;
        char *state_word;  /* the node's status word at the last read from slurmctld (NULL: none) */
        uint64_t conf_due_usec; /* a run promised by new bytes or a verdict: jobs never postpone it */
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

/* Records the verdict on the programs (a hash of node_paths_check's answer) at now_usec. Returns
 * true when a new one is seen on two looks in a row (not on the first: a file replaced by
 * config management between two stats is not a verdict): a run is then due
 * NODEFOLLOW_SETTLE_USEC from now, or earlier when one was due earlier. Pure. */
bool nodefollow_note_verdict(struct nodefollow *f, uint64_t verdict, uint64_t now_usec);
/* The verdict on the programs the configuration last read names (root: the machine's root, NULL
 * /): true with *ret, false when no configuration was read yet. Impure (stats). */
bool nodefollow_verdict(const struct nodefollow *f, const char *root, uint64_t *ret);
/* Takes verdict as the one a handler run judged (the watcher's look just before the run, when
 * the run left NODE_PATHS_JUDGED_FILE: charm/common/nodepaths.h): only a change from it asks for
 * another run. Without this a Prolog made unsafe and put right within two looks, while a run
 * that came for the jobs judged it unsafe and drained the node, left the node drained: the
 * watcher had never confirmed the first change and saw no second one (charm-paths, stop 43). A
 * run that returned before judging (no controller answering) leaves the baseline alone, so it
 * hides nothing (review 10, F11). */
void nodefollow_rebase_verdict(struct nodefollow *f, uint64_t verdict);

/* Records the node's status word read from slurmctld at now_usec (NULL: the read failed, nothing
 * recorded). Returns true when it differs from the last one (not on the first): a run is then
 * due now. Pure. */
bool nodefollow_note_state(struct nodefollow *f, const char *word, uint64_t now_usec);

/* The node's status word (charm/slurmd/nodeconf.h node_status_message: "idle", "drained (…)", …) from
 * slurmctld, read in a child bounded to timeout_ms. 0 and *ret (malloc'd), or a negative errno
 * with the message in err. */
int nodefollow_state_read(const char *node, int timeout_ms, char **ret, struct strbuf *err);

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
/* nodefollow_conf_read() that also hands back the content it read (*ret_data malloc'd, NULL when
 * it read none: the identity was the same, the file is absent or too large). */
int nodefollow_conf_read_data(const char *path, const struct nodefollow_conf *last, struct nodefollow_conf *ret,
        char **ret_data, size_t *ret_len, struct strbuf *err);

/* One look at now_usec: node's jobs in spool_dir (live sockets only), then conf_path's identity
 * (NULL: not followed) and the programs it names (under root: NULL for "/"). A bit mask: 1 the
 * jobs changed, 2 the configuration's content changed, 4 the first look (a run asked for),
 * 8 the programs' verdict changed; negative errno (message in err) when a part could not be read
 * (what was read is recorded). */
int nodefollow_look(struct nodefollow *f, const char *spool_dir, const char *node, const char *conf_path,
        const char *root, uint64_t now_usec, struct strbuf *err);
