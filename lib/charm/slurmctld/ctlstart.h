/* SPDX-License-Identifier: Apache-2.0 */
/* How long this unit's slurmctld takes to start and answer, and how long a start with a
 * slurm.conf it never ran may take before it is rolled back (issue 26, item 4: "a restart that
 * does not answer within a few seconds is rolled back at once").
 *
 * Design note.
 *  - A start is timed from the start job's submission (the stop before it, which saves the
 *    state, is not counted) to the first answer of this unit's slurmctld: on 24.11 (Type=notify)
 *    the start job itself ends only at READY=1, after the plugins' init; on 22.05 (Type=simple)
 *    at the exec. Both are one bound.
 *  - Each good start (the daemon answered) is noted in <state>/CTL_START_FILE, the last
 *    CTL_START_KEEP of them, in milliseconds. A start with a file slurmctld never ran (a
 *    candidate: ctlapply.h) gets CTL_START_FACTOR times the slowest of them plus
 *    CTL_START_SLACK_MS, at least CTL_START_MIN_MS, at most the caller's ceiling (the unit's
 *    answer timeout, 20 s). With no record (a unit's first starts) the ceiling applies. A state
 *    that grows (more jobs to load) makes every start slower, and the record follows it.
 *  - A start that needs a backup's hand-back (a primary with backups) gets that time on top
 *    (ctl_wait_started: slurm_ctl_failback_ms), not through the record.
 *  - A start with the last applied file (a plain restart, the rollback itself) keeps the ceiling:
 *    it is not a candidate, and a slow start there is the machine's, not the file's.
 *  - What a false verdict costs: a good file on a machine suddenly much slower than its record
 *    is rolled back and refused (ctlapply.h, CTL_REFUSED_FILE) until the input changes; the
 *    status names the bound and the record, so the admin can tell.
 *
 * Ownership: paths are borrowed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define CTL_START_FILE "slurmctld.starts"
#define CTL_START_KEEP 5
#define CTL_START_FACTOR 3
#define CTL_START_SLACK_MS 2000
#define CTL_START_MIN_MS 10000

/* The slowest of n recorded good starts (ms; 0 when n is 0). */
long ctl_start_worst(const long *ms, size_t n);

/* The bound for a candidate's start from n recorded good starts (ms); ceiling when n is 0. */
int ctl_start_bound(const long *ms, size_t n, int ceiling_ms);

/* The recorded good starts (<state>/CTL_START_FILE): up to CTL_START_KEEP into ms, their number
 * in *ret_n (0: none, also for an unreadable or garbled record). */
void ctl_start_read(const struct charm_paths *p, long ms[CTL_START_KEEP], size_t *ret_n);

/* ctl_start_bound() of the record. */
int ctl_start_bound_for(const struct charm_paths *p, int ceiling_ms);

/* slurmctld's line after its state load, just before its RPC, signal and state-save threads start
 * (controller.c of 22.05 and 24.11): a daemon that has not logged it served nothing and saved
 * nothing. */
#define CTL_PRIMARY_LINE "Running as primary controller"
/* A backup's line as it enters standby (backup.c run_backup, 22.05 and 24.11), after it read
 * its configuration; a backup logs CTL_PRIMARY_LINE only once it takes control. */
#define CTL_BACKUP_LINE "slurmctld running in background mode"
/* Whether slurmctld's log (log_path, from offset from) says a start got on: either line, so a
 * start that did not answer within its bound is slow, not stuck, and gets the caller's ceiling.
 * A backup's start had no such allowance: under load (six clusters on 2 cores) a new file that
 * made the unit a backup took more than its 5 s bound and was rolled back (stop 57's note). */
bool ctl_start_getting_on(const char *log_path, off_t from);

/* Adds a good start's time to the record, keeping the last CTL_START_KEEP. */
int ctl_start_note(const struct charm_paths *p, long ms, struct strbuf *err);
