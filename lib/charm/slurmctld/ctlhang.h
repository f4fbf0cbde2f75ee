/* SPDX-License-Identifier: Apache-2.0 */
/* A slurmctld stuck in its reconfigure after it saved its state: noticed and started again.
 *
 * Design note. slurmctld 24.11 runs a reconfigure as a shutdown and a re-exec (controller.c:
 * "Reconfigure signal (SIGHUP) received", its RPC listeners quiesced, "Saving all slurm state",
 * the scheduler, agents and the state save thread stopped and joined, then slurmscriptd_flush(),
 * the accounting connection closed, "Attempting to reconfigure", the exec). In 24.11.5, which
 * Debian 13 ships (24.11.5-4+deb13u1 backports security fixes only), slurmscriptd_flush() sends
 * its request and only then waits, with no timeout, for the reply's wakeup: a reply that comes
 * first is lost and slurmctld waits for ever (fixed upstream in 24.11.6, commit fae866a0d7,
 * SchedMD ticket 21875). It then answers no RPC, logs nothing, its heartbeat still beats (stopped
 * last), so no backup takes over, and systemd sees it active: a cluster without a controller
 * until someone kills it. The charm asks for a reconfigure after each restart of slurmctld that
 * changed the file (ctlapply.h, the push to configless nodes), so it met this (a full run's
 * charm-login-debian13, stop 56). 22.05 reconfigures in place and logs no save at a SIGHUP.
 *
 * The judgement (ctl_hang_in_log, ctl_hang_look): the log's last "Saving all slurm state" comes
 * from this process (no start line after it), follows a SIGHUP (a reconfigure's, not a stop's),
 * and nothing after it ends that stretch ("Attempting to reconfigure", a "Terminate signal", or
 * "waiting for N running processes": after the flush's reply, slurmctld waits without a bound
 * for power scripts, which is no hang); nothing was written to the log for CTL_HANG_QUIET_S; and,
 * the proof the log cannot give (users put text into it: a job's partition name is logged),
 * the main process has no state save thread (CTL_HANG_SAVE_THREAD, joined only after the state
 * is written: a running controller always has it, a starting one has logged its start line)
 * and does not answer a ping. A stopped main process (SIGSTOP: a paused machine) is the
 * fence's (fence.h), not this.
 *
 * Limits: the three lines are info level (SlurmctldDebug below info hides them: never cured);
 * the log read is CTL_SLURMCTLD_LOG (the charm's SlurmctldLogFile; a site that moves it is not
 * followed); a log rotated during the hang, or debug levels that log periodically (HA's
 * heartbeat at debug3), keep the cure away; the handshake with slurmdbd shows it answers, not
 * that slurmctld's queue for it is empty.
 *
 * The cure (ctl_hang_cure): SIGKILL of the main process, the very one judged (a pidfd taken
 * before the handshake, and the judgement made again after it: the reconfigure may go on in
 * those seconds and MainPID become a healthy successor, review L1); the unit's Restart=on-failure starts it
 * again 2 s later, as after a crash, from the state it saved (every state file is written by then:
 * the save thread is joined before the flush). What is not written yet is slurmdbd's queue
 * (dbd.messages, at the accounting plugin's fini, after the flush): with slurmdbd answering, the
 * agent (its own thread, still running) sends each record as it comes, so the cure waits for a
 * handshake with slurmdbd (bounded) and leaves a daemon whose slurmdbd does not answer alone,
 * saying why: killing it would lose the records it holds without a word.
 *
 * Ownership: plain values; strings appended to the caller's strbuf. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "util/strbuf.h"

/* The state save thread's name (state_save.c: prctl PR_SET_NAME). */
#define CTL_HANG_SAVE_THREAD "sstate"
/* Nothing logged for this long after the save: hung. */
#define CTL_HANG_QUIET_S 30
/* The handshake with slurmdbd before the cure. */
#define CTL_HANG_ACCT_MS 5000

/* Whether text (the end of slurmctld's log, NUL-terminated) shows a reconfigure stopped after its
 * state save: the judgement above from the log alone, without the time. */
bool ctl_hang_in_log(const char *text);

/* Whether slurmctld's log at log_path (its last 64 KiB) shows it (ctl_hang_in_log) and was last
 * written CTL_HANG_QUIET_S or more before now (seconds since the epoch). False when it cannot be
 * read. */
bool ctl_hang_look(const char *log_path, time_t now);

/* For a slurmctld.service that did not answer a ping: when ctl_hang_look() holds at now and its
 * main process runs (not stopped) without its state save thread, before and again after the
 * handshake with slurmdbd, the cure above. 1 killed (msg: what was done), 0 not hung (or no
 * longer), -EBUSY hung and left alone (msg: why), another negative errno when the kill failed
 * (msg). */
int ctl_hang_cure(sd_bus *bus, const char *log_path, time_t now, struct strbuf *msg);
