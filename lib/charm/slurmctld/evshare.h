/* SPDX-License-Identifier: Apache-2.0 */
/* One node event log for every controller unit (issue 25 item 4, issue 29): the log lives in
 * slurmctld's state save location, which every controller shares (charm/slurmctld/ha.h proves it), and
 * each unit's log directory (<state>/events, charm/slurmctld/nodeevents.h) is a symlink to it.
 *
 * Why there. Each unit kept its own log, fed by its own reconciles: the unit in charge saw
 * trigger-sized changes first, a unit not in charge missed what happened between its polls, a
 * removed unit took the only copy of the oldest records with it, and a new unit started empty.
 * With one log: one sequence and one id per record, whichever unit (hook, watcher, action)
 * records it; every unit answers node-events with the same records; a failover, a removal or
 * an add-unit changes nothing of it. Writers already take the log's flock (events.h: on a
 * regular file opened for writing, which an NFS client can lock as well), which holds across
 * machines on one file system (a bind mount; NFS emulates flock with its byte-range locks).
 * With one controller the state save location is local and the log simply lives there; it
 * moves with slurmctld's state when the admin moves that (state-save-location).
 *
 * Placing (evshare_place, in the controller's reconcile once the unit is in the controller
 * order, so that its state save location is the shared one):
 *   - no local directory: the symlink is made;
 *   - a symlink to another place (the state save location moved): replaced atomically;
 *   - a local log (a unit of an earlier charm, or one that ran the node-events action before it
 *     joined the order): when the shared place holds no log yet, its files are copied there
 *     (under both locks: no reconcile runs meanwhile) and the local directory is removed, so the
 *     first unit's history becomes the cluster's; when the shared place holds a log already
 *     (another unit's, which recorded the same cluster), the local one is kept aside as
 *     <local>.before-shared (never deleted: an admin may read it) and the unit joins the shared
 *     one.
 * The shared directory is made root's, mode 0700, and refused when it is anything else (a
 * symlink, another owner, writable by others): SlurmUser owns the state save location, and
 * root follows the link.
 *
 * Returns 0 or a negative errno with one message appended to err. */
#pragma once

#include "util/strbuf.h"

#define EVSHARE_SUBDIR "charm-events"
#define EVSHARE_ASIDE_SUFFIX ".before-shared"

enum evshare_how {
        EVSHARE_SAME,   /* the link was in place */
        EVSHARE_LINKED, /* linked now (nothing local, or the place moved) */
        EVSHARE_MOVED,  /* the local log was copied to the shared place, then linked */
        EVSHARE_ASIDE,  /* the local log was kept aside, the unit joined the shared log */
};

/* "<state_save_dir>/EVSHARE_SUBDIR" (caller frees). */
char *evshare_dir(const char *state_save_dir);

/* The link's text: shared relative to local's directory ("../../../../srv/state/charm-events"),
 * so that it leads to the same place from the machine and from a host that sees the machine's
 * files under a prefix (juju-sim); shared itself when either path is not absolute or holds "..".
 * Pure; caller frees. */
char *evshare_link_text(const char *local, const char *shared);

/* Makes local a symlink to shared (see above). *ret_how (may be NULL) says what was done. */
int evshare_place(const char *local, const char *shared, enum evshare_how *ret_how, struct strbuf *err);
