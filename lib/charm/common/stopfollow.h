/* SPDX-License-Identifier: Apache-2.0 */
/* A daemon stopped by a signal, followed between hooks (issue 25, F3). A SIGSTOPped process (a
 * debugger, an admin's kill -STOP, a frozen cgroup) looks running to systemd: no ActiveState
 * changes, so the service watcher (charm/common/watcher.h) ran nothing and the unit said
 * "active … primary" until the next hook (update-status: every 5 minutes in Juju) while
 * accounting records waited in slurmctld. The watcher of a followed service now also reads its
 * main process's state every STOPFOLLOW_POLL_USEC (MainPID over sd-bus, then /proc/<pid>/stat:
 * no RPC to any daemon) and asks one handler run when that process goes from running to stopped
 * (state T or t) or back; the reconcile then probes and says so (the slurmdbd charm: "blocked
 * slurmdbd is stopped (process N in state T …)"). A new main process (systemd restarted it) is a
 * state change the watcher follows anyway: a run is asked only when the new one is stopped.
 *
 * Followed: slurmdbd.service, whose reconcile probes its daemon (charm/slurmdbd/dbprobe.h);
 * slurmctld's stop has its own followers (the sentinel, the fence), slurmd's the controller's
 * view of the node. A daemon that runs but never answers (wedged) is not seen here: only a hook's
 * probe sees it.
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
        bool stopped; /* it was stopped then */
        bool looked;  /* a look was made */
};
#define STOPFOLLOW_INIT \
        { .next_look = 0, .pid = 0, .stopped = false, .looked = false }

/* Records a look: the main process (0: none) and its state letter ('?' not read: no change
 * recorded). True when a handler run is to be asked for: the same process stopped or runs again,
 * or the first look (or a new process) finds it stopped. */
bool stopfollow_note(struct stopfollow *f, uint32_t pid, char state);

/* One look when due (at now; the next one STOPFOLLOW_POLL_USEC later): 1 ask a run now, 0 not,
 * or a negative errno when the unit's state could not be read (err; the next look reads again).
 * *ret_pid: the main process looked at. */
int stopfollow_look(
        struct stopfollow *f, sd_bus *bus, const char *service, uint64_t now, uint32_t *ret_pid, struct strbuf *err);
