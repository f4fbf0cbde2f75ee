/* SPDX-License-Identifier: Apache-2.0 */
/* A service's own processes found by the program they run: what lib/systemd/unit.c's stop and
 * start use to leave no copy of a daemon outside the manager's view (unit.h, "A stop that meets
 * a main-PID hand-over").
 *
 * A daemon that re-executes itself (Slurm 23.11+ slurmd on a reconfigure: fork, a second fork,
 * exec, the grandchild's PID handed to the manager with MAINPID=) can leave a copy of itself
 * in its unit's cgroup that the manager never takes as main: a hand-over under way when the
 * stop came, a successor a manager that takes no MAINPID= while stopping left behind (systemd
 * 252), the grandchild of a re-exec before READY=1 whose start failed. With KillMode=process
 * (slurmd: its job steps, slurmstepd, must outlive it) the manager kills none of them; the next
 * start's daemon then meets one holding its port and its node. These functions find them: the
 * processes of the unit's cgroup whose executable is the daemon's program, so a job's processes
 * (another program: slurmstepd, a user's) are never among them.
 *
 * A unit asks for this with UNIT_END_COPIES_ENV in its Environment= (the slurmd charm's drop-in):
 * a daemon whose own worker processes are forks of it (the charms' watchers, KillMode=process so
 * that a restart spares a running handler) must not have them taken for copies, and a
 * KillMode=control-group unit has every process signalled by the manager anyway.
 *
 * Errors are negative errnos; nothing is printed. Ownership: strings returned are the caller's
 * (free()). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include <stdbool.h>

/* The unit setting (Environment=, read over D-Bus) that asks unit.c's stop and start to end
 * copies of the daemon. */
#define UNIT_END_COPIES_ENV "UNIT_END_COPIES=1"

/* Whether the service's Environment= holds UNIT_END_COPIES_ENV (false when it cannot be read). */
bool unit_ends_copies(sd_bus *bus, const char *unit);

/* The program a process runs: where /proc/PID/exe leads (a replaced binary's " (deleted)"
 * dropped). NULL when it cannot be read (the process is gone or a zombie). */
char *proc_program(pid_t pid);

/* ExecStart's first command of a service, resolved through symlinks (realpath: the name
 * /proc/PID/exe gives), in *ret: 0, -ENODATA when it has none, or a negative errno. */
int unit_exec_program(sd_bus *bus, const char *unit, char **ret);

/* The processes of the unit's cgroup and the cgroups below it (ControlGroup under
 * /sys/fs/cgroup, or on a hybrid host its unified or systemd mount) that run program: at most max of them in pids, in the order read. Returns
 * how many were found (0 when the unit has no cgroup), or a negative errno. */
int unit_program_pids(sd_bus *bus, const char *unit, const char *program, pid_t *pids, size_t max);

/* Sends sig to each of pids, waits until they are gone or grace_usec passed, then sends
 * SIGKILL to those left (each checked to still run program first: a PID reused since is
 * spared). Returns how many were still there for the SIGKILL. */
int pids_end(const pid_t *pids, size_t n, const char *program, int sig, uint64_t grace_usec);
