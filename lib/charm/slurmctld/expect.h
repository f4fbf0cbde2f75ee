/* SPDX-License-Identifier: Apache-2.0 */
/* Node changes the controller expects (issue 12, "status that follows the cluster"): a compute
 * unit Juju says is leaving whose node is still in Slurm's table, or one that joined whose node
 * has not registered yet. Slurm 22.05 reports neither promptly: a deletion fires the `reconfig`
 * trigger only at slurmctld's next 15 s trigger pass, and a dynamic node's registration fires
 * nothing (the node event watcher's 30 s poll finds it). So the controller's hook writes the
 * expectation and rings the node event watcher, which then reconciles every EXPECT_POLL_MS
 * while an expectation is open (one "no change since" RPC each), and the reconcile that sees
 * the change refreshes the status, seconds after the change instead of up to 16 or 30 s.
 * An expectation ends when met or after its window (a departure waits at most drain-timeout,
 * default 600 s; a machine may take minutes to install): then the safety poll is all there is.
 *
 * File: <state>/events/expect (root 0600, written atomically by hooks only, each change read,
 * made and written under the log's lock (nodeevents_expect), since every controller's hooks run
 * at once under Juju; the watcher reads): one line "<leaving|joining> <node> <until, ms since the epoch>".
 * Functions return 0 (or a count) or a negative errno with one message in err. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"

#define EXPECT_FILE "expect"
#define EXPECT_POLL_MS 1000
#define EXPECT_LEAVING_MS (15 * 60 * 1000)
#define EXPECT_JOINING_MS (10 * 60 * 1000)

enum expect_kind { EXPECT_LEAVING, EXPECT_JOINING };

/* Is node in the table now? (the caller's view of Slurm) */
typedef bool (*expect_present_fn)(const char *node, void *userdata);

/* Pure: the number of open expectations in the file's text (not met, not past until) at now_ms. */
size_t expect_count_open(const char *text, expect_present_fn present, void *userdata, int64_t now_ms);

/* Records one expectation in dir (replacing one for the same node), dropping the ones that are
 * met or past. */
int expect_note(const char *dir, enum expect_kind kind, const char *node, int64_t until_ms,
        expect_present_fn present, void *userdata, int64_t now_ms, struct strbuf *err);

/* Drops node's line, if any (a unit that joined again: its node is no longer leaving). */
int expect_drop(const char *dir, const char *node, expect_present_fn present, void *userdata, int64_t now_ms,
        struct strbuf *err);

/* Adds to ret the node of each expectation of that kind in dir that is not past its until (met
 * or not: the caller looks at Slurm). 0 also when there is no file or it cannot be read. */
void expect_nodes(const char *dir, enum expect_kind kind, int64_t now_ms, struct strv *ret);

/* The open expectations in dir (0 when there is no file or it cannot be read). */
size_t expect_open(const char *dir, expect_present_fn present, void *userdata, int64_t now_ms);
