/* SPDX-License-Identifier: Apache-2.0 */
/* The drain the node-config action sets, remembered until the action ends (attack atk8 G11).
 *
 * The action drains its node ("node-config: reconfiguring (unit U)"), waits for the node's jobs
 * (up to drain-timeout), then re-registers it and puts the node back as it was. An action that
 * dies on the way (the agent restarted, the machine rebooted, the process killed) left the
 * drain for ever: no hook lifted a drain of that reason, and the unit's status said "draining"
 * while nothing reconfigured.
 *
 * So before it drains, the action writes <state>/NODECFG_MARK_FILE: the node, the reason it
 * sets, its own pid and start time, and the node's state and reason before (what it puts back);
 * it removes the file when it ends, whichever way. Juju runs one hook or action at a time on a
 * machine (the machine lock; juju-sim's model lock, and juju-exec waits for it too), so a
 * reconcile that finds the file while the process it names is gone knows the action died: it
 * puts the node back as it was before, when the node still has the action's reason (an
 * admin's drain since then stays), removes the file and says so.
 *
 * The slurm.conf push to a compute node (charm/common/confpush.h) keeps a record of the same text
 * (its own file, what = NODECFG_MARK_PUSH): the node's state before its drain.
 *
 * Ownership: struct nodecfg_mark owns its strings (nodecfg_mark_done). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "charm/common/charm.h"
#include "slurm/nodes.h"
#include "util/strbuf.h"

#define NODECFG_MARK_FILE "node-config.drain"

struct nodecfg_mark {
        char *what;               /* who drained: "node-config", or the slurm.conf push
                                   * (charm/common/confpush.h) that drains the same way; a record without
                                   * it is node-config's */
        char *node;
        char *reason;             /* the reason the action set */
        pid_t pid;                /* the action's process */
        unsigned long long start; /* its start time (proc_pid_stat(): clock ticks since boot) */
        uint32_t prior_state;     /* the node's state before (slurm/nodestate.h) */
        char *prior_reason;       /* its reason before (NULL: none) */
};
void nodecfg_mark_done(struct nodecfg_mark *m);

/* JSON text of m (pure). */
char *nodecfg_mark_format(const struct nodecfg_mark *m);
/* Parses text into *ret: 0, or -EINVAL (ret untouched). */
int nodecfg_mark_parse(const char *text, struct nodecfg_mark *ret);

/* Records in the state note file (NODECFG_MARK_FILE for node-config) that this process (what:
 * NODECFG_MARK_NODE_CONFIG, NODECFG_MARK_PUSH) drains saved->name with reason (saved: the node
 * before). */
#define NODECFG_MARK_NODE_CONFIG "node-config"
#define NODECFG_MARK_PUSH "the slurm.conf push"
int nodecfg_mark_store(const struct charm_paths *p, const char *file, const struct slurm_node *saved,
        const char *what, const char *reason, struct strbuf *err);
/* Reads the record in file: 1 (*ret filled), 0 none, -EINVAL unreadable (left in place). */
int nodecfg_mark_load(const struct charm_paths *p, const char *file, struct nodecfg_mark *ret);
/* Removes the record (the action ends). */
void nodecfg_mark_clear(const struct charm_paths *p);

/* In a reconcile, with the node as slurmctld has it now (NULL: not known to it). A record
 * whose process is gone: the node is put back as it was before when it still has the record's
 * reason, the record is removed, and note says what was done (1). 0 when there is no record,
 * or its action still runs (note says so). A negative errno when the node could not be put
 * back (the record stays, err says why: the next reconcile tries again). */
int nodecfg_mark_recover(const struct charm_paths *p, const struct slurm_node *now, struct strbuf *note,
        struct strbuf *err);
