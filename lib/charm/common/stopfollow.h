/* SPDX-License-Identifier: Apache-2.0 */
/* A daemon stopped by a signal, followed between hooks (issue 25, F3). A SIGSTOPped process (an
 * admin's kill -STOP, a debugger holding it) looks running to systemd: no ActiveState changes,
 * so the service watcher (charm/common/watcher.h) ran nothing and the unit said "active …
 * primary" until the next hook (update-status: every 5 minutes in Juju) while accounting
 * records waited in slurmctld. The watcher of a followed service now also reads its main
 * process's state every STOPFOLLOW_POLL_USEC (MainPID over sd-bus, then /proc/<pid>/stat: no
 * RPC to any daemon) and asks one handler run when that process goes from running to stopped
 * (state T or t) or back, seen so at two looks in a row (a tracer's stop of a moment, strace or
 * gcore, is not news); the reconcile then says so (the slurmdbd charm: "blocked slurmdbd is
 * stopped (process N in state T …)"). A new main process (systemd restarted it) is a state
 * change the watcher follows anyway: it counts as running until two looks see it stopped.
 *
 * Followed: slurmdbd.service (charm/slurmdbd); slurmctld's stop has its own followers (the
 * sentinel, the fence), slurmd's the controller's view of the node. Not seen here: a daemon that
 * runs but never answers (wedged) or whose cgroup is frozen (its tasks read D): slurmdbd's
 * watcher asks it for that (charm/slurmdbd/wedgefollow.h).
 *
 * Ownership: plain values. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "util/strbuf.h"

#define STOPFOLLOW_POLL_USEC (2 * 1000 * 1000ULL)

/* Whether the watcher of service follows its main process's stop (slurmdbd's). */
bool stopfollow_wanted(const char *service);

struct stopfollow {
        uint64_t next_look;
        uint32_t pid; /* the main process of the last look (0: none, or no look yet) */
        bool stopped; /* it is stopped: two looks in a row saw it so (what the last run was told) */
        bool seen;    /* the last look saw it stopped */
        bool looked;  /* a look was made */
};
#define STOPFOLLOW_INIT \
        { .next_look = 0, .pid = 0, .stopped = false, .seen = false, .looked = false }

/* Records a look: the main process (0: none) and its state letter ('?' not read: no change
 * recorded). True when a handler run is to be asked for: the same process seen stopped, or
 * running again, at this look and the one before, after the last run was told otherwise. */
bool stopfollow_note(struct stopfollow *f, uint32_t pid, char state);

/* One look when due (at now; the next one STOPFOLLOW_POLL_USEC later): 1 ask a run now, 0 not,
 * or a negative errno when the unit's state could not be read (err; the next look reads again).
 * *ret_pid: the main process looked at. */
int stopfollow_look(
        struct stopfollow *f, sd_bus *bus, const char *service, uint64_t now, uint32_t *ret_pid, struct strbuf *err);
