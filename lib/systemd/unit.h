/* SPDX-License-Identifier: Apache-2.0 */
/* Unit control over D-Bus (org.freedesktop.systemd1), in systemctl's pattern: start, stop,
 * restart, reload and wait for the job; enable/disable; daemon-reload; state; a watcher.
 *
 * Design note. Every operation is one or more method calls with an explicit timeout
 * (timeout_usec bounds the whole operation, job wait included); a failure returns the
 * negative errno (the bus error mapped by sd-bus, e.g. -ENOENT for an unknown unit) and
 * appends one message to err (may be NULL): `unit "x.service": start: <bus error text>`.
 * Job operations install a JobRemoved match before the call that enqueues the job, so the
 * signal cannot be missed, then process the bus until that job is removed and map its
 * result: "done"/"skipped" 0, "canceled" -ECANCELED, "timeout" -ETIME, anything else
 * ("failed", "dependency", …) -EIO; -ETIMEDOUT when timeout_usec passes first.
 *
 * A stop that meets a main-PID hand-over is followed. systemd sends the stop signal once, to
 * the main PID of that moment; a daemon that re-executes itself (Slurm 23.11+ slurmd and
 * slurmctld on a reconfigure: fork, exec, then sd_notify MAINPID= and exit) can take a stop
 * signal in the old process and hand over to a new one that never gets it, and the stop then
 * waits for TimeoutStopSec and ends in SIGKILL. So the stop of a .service looks every 50 ms
 * while it waits: a main PID in stop-sigterm other than the one signalled gets the unit's
 * KillSignal (KillUnit, main). A daemon that does not hand over is never signalled twice. The
 * restart and try-restart of a .service are that stop, then a start (two jobs): within one
 * RestartUnit job the start follows the old process's exit at once, and a look under way
 * could take the new process for a hand-over and stop it.
 *
 * No copy of the daemon outside the manager's view (systemd/strays.h), for a service that asks
 * for it by naming its daemon's program (Environment=UNIT_END_COPIES=/usr/sbin/slurmd: the
 * slurmd charm's drop-in). A re-execution can leave a copy that never becomes the main PID: 24.11
 * slurmd, quiesced for a reconfigure, loses the stop's SIGTERM and waits in the old process for
 * its new one to report, which may never happen (the stop then waited out TimeoutStopSec, 60 s,
 * and the new slurmd ran on outside systemd). So the stop's looks also give the KillSignal, once
 * each, to every copy: a process of the unit running that program whose parent is not in the
 * unit (the manager or a subreaper took it); after the stop, copies still there get it again and
 * SIGKILL 2 s later; and a start of a service with no main PID (stopped, failed, or waiting for
 * its automatic restart) first ends the copies left in its cgroup. A job's processes (started
 * by slurmstepd or a job's shell, so their parent is in the unit, whatever they run) and the
 * forks of a daemon that still runs are never copies, whatever KillMode says.
 *
 * A start whose job fails while systemd's own Restart= schedules another start (SubState
 * auto-restart) waits for that one automatic start, within timeout_usec: its outcome is the
 * start's (0 when the unit became active; else err says "…; its automatic restart too (…)").
 * A 24.11 daemon re-executed by a reconfigure before READY=1 fails its start that way.
 * The code has no test switches: it talks to whatever unit_bus_open() connects to, the
 * system bus at DBUS_SYSTEM_BUS_ADDRESS or its default socket. Tests point that variable
 * at the bus of a `systemd --user` manager they start themselves (tests/unit/test-systemd.c).
 *
 * The watcher subscribes to the manager (Subscribe: without a subscriber systemd sends no
 * PropertiesChanged) and matches PropertiesChanged on the unit's object path: no polling.
 * It calls fn(unit, ActiveState, SubState, userdata) for each change of the Unit
 * interface. Drive it from an sd_event loop (sd_bus_attach_event) or with unit_bus_wait().
 *
 * Ownership: unit_bus_open() gives the caller a bus reference (sd_bus_flush_close_unref).
 * unit_watch() gives the caller a slot reference: unref it to stop watching; the watch's
 * own state is freed with the slot. struct unit_state holds copies (fixed-size strings,
 * truncated, always NUL-terminated). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "util/strbuf.h"

/* Opens a new connection to the system bus (sd_bus_open_system). */
int unit_bus_open(sd_bus **ret_bus, struct strbuf *err);

/* Enqueue a job (mode "replace") and wait for it to finish. */
int unit_start(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);
int unit_stop(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);
int unit_restart(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);
/* Restarts the unit only if it is running (active, activating, reloading); else does nothing
 * (result 0). */
int unit_try_restart(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);
int unit_reload(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);

/* EnableUnitFiles / DisableUnitFiles (persistent, not forced), then a daemon-reload when
 * something changed (as systemctl does). Returns the number of changes (symlinks made or
 * removed): 0 when already in that state, and 0 as well for a unit file without an
 * [Install] section (nothing to enable: systemctl only warns). */
int unit_enable(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);
int unit_disable(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);

/* Manager.Reload: re-reads unit files and drop-ins; returns once the manager is done. */
int unit_daemon_reload(sd_bus *bus, uint64_t timeout_usec, struct strbuf *err);

/* ResetFailedUnit: forgets the failed state (and the start-rate counter). */
int unit_reset_failed(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);

/* KillUnit: sends signo to "main", "control" or "all" processes of the unit. */
int unit_kill(sd_bus *bus, const char *unit, const char *whom, int signo, uint64_t timeout_usec,
        struct strbuf *err);

#define UNIT_STATE_STRMAX 32
struct unit_state {
        char load_state[UNIT_STATE_STRMAX];   /* loaded, not-found, … */
        char active_state[UNIT_STATE_STRMAX]; /* active, inactive, failed, activating, … */
        char sub_state[UNIT_STATE_STRMAX];    /* running, dead, auto-restart, … */
        char result[UNIT_STATE_STRMAX];       /* services only: success, exit-code, signal, … ("" else) */
        uint32_t n_restarts;                  /* services only: automatic restarts so far */
        uint32_t main_pid; /* services only, 0 when none; in the manager's PID namespace */
        /* ActiveEnterTimestampMonotonic: when the unit last became active (0: never). One value
         * per activation: a restart, also an automatic one, changes it; a daemon handing its
         * main PID to a successor (MAINPID=) does not. */
        uint64_t active_enter_usec;
};

/* Timeout of the calls that take none (unit_get_state, unit_watch's Subscribe). */
#define UNIT_CALL_TIMEOUT_USEC (10 * 1000 * 1000ULL)

/* Reads the unit's state (LoadState, ActiveState, SubState, ActiveEnterTimestampMonotonic; for
 * .service units also Result, NRestarts, MainPID). An unknown unit is not an error: its load_state is
 * "not-found". */
int unit_get_state(sd_bus *bus, const char *unit, struct unit_state *ret, struct strbuf *err);

/* Called for each PropertiesChanged of the unit's Unit interface. The strings live only
 * during the call. A negative return is ignored by sd-bus (it only logs at debug level). */
typedef int (*unit_watch_fn)(
        const char *unit, const char *active_state, const char *sub_state, void *userdata);

/* Starts watching unit; *ret_slot is the caller's reference (sd_bus_slot_unref to stop).
 * The match is installed when this returns, so no later change is missed. */
int unit_watch(sd_bus *bus, const char *unit, unit_watch_fn fn, void *userdata, sd_bus_slot **ret_slot,
        struct strbuf *err);

/* Processes bus messages (dispatching watch callbacks and other matches) until *done is true
 * or timeout_usec passes: 0 or -ETIMEDOUT (or a bus error). A simple blocking loop for
 * callers without an sd_event loop. */
int unit_bus_wait(sd_bus *bus, uint64_t timeout_usec, const bool *done);

/* Writes <root>/etc/systemd/system/<unit>.d/<name>.conf (0644) with content, creating the
 * directories, through write_file_atomic_if_changed(). root "" or "/" means the real root.
 * Returns 1 when the file changed (the caller then runs unit_daemon_reload()), 0 when it
 * already had this content, -EINVAL for a unit or name that is empty or holds a "/". */
int unit_install_dropin(
        const char *root, const char *unit, const char *name, const char *content, struct strbuf *err);
/* Removes that drop-in: 1 when removed, 0 when it was not there. */
int unit_remove_dropin(const char *root, const char *unit, const char *name, struct strbuf *err);
