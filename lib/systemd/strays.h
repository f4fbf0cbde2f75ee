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
 * processes of the unit's cgroup whose executable is the daemon's program and whose parent is
 * not in the unit (unit_program_pids()), so a job's processes (slurmstepd's children, whatever
 * they run) are never among them.
 *
 * A unit asks for this with UNIT_END_COPIES_VAR in its Environment= (the slurmd charm's drop-in):
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

/* The unit setting (Environment=, read over D-Bus) that asks unit.c's stop and start to end
 * copies of the daemon, naming the daemon's program: Environment=UNIT_END_COPIES=/usr/sbin/slurmd
 * (the program, not ExecStart's first word: a site's wrapper, /bin/sh -c '… exec slurmd', would
 * make every job script a copy). */
#define UNIT_END_COPIES_VAR "UNIT_END_COPIES"

/* The program the service's Environment= names in UNIT_END_COPIES_VAR (an absolute path),
 * resolved through symlinks (the name /proc/PID/exe gives), in *ret: 1; 0 (*ret NULL) when it
 * names none; or a negative errno. */
int unit_copies_program(sd_bus *bus, const char *unit, char **ret);

/* The copies of the daemon in the unit's cgroup and the cgroups below it (ControlGroup under
 * /sys/fs/cgroup, or on a hybrid host its unified or systemd mount): the processes that run
 * program and whose parent is not a process of those cgroups (the manager, or the subreaper a
 * double fork hands a re-executed daemon to). A process a job or a script of the unit started
 * (its parent is in the unit: slurmstepd, a job's shell) is never one, whatever it runs, nor is
 * a fork of a daemon that still runs (the 24.11 Prolog launcher); the main PID, whose parent is
 * the manager, is. At most max of them in pids. Returns how many, 0 when the unit has no cgroup,
 * or a negative errno. */
int unit_program_pids(sd_bus *bus, const char *unit, const char *program, pid_t *pids, size_t max);

/* Sends sig to each of pids, waits until they are gone or grace_usec passed, then sends
 * SIGKILL to those left (each checked to still run program first: a PID reused since is
 * spared). Returns how many were still there for the SIGKILL. */
int pids_end(const pid_t *pids, size_t n, const char *program, int sig, uint64_t grace_usec);
