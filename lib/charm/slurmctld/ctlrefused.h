/* SPDX-License-Identifier: Apache-2.0 */
/* The candidate slurm.conf files slurmctld refused at its start, remembered (issue 26 item 4,
 * attack atk7 F1): each one the rollback took back (charm/slurmctld/ctlapply.h) is kept with its reason,
 * so that the charm's judge refuses it from then on instead of trying it again.
 *
 * Design note (why several). One remembered file was lost as soon as another input changed the
 * rendering: with a hanging slurm-conf-parameters value refused, a good partition-config change
 * gave a new candidate (hang, rollback, remembered in place of the first), and the guard's
 * culprit search (ctlguard.h) then tried the first one again (no longer remembered), blamed the
 * partition, and the two candidates took turns every few seconds through the service watcher's
 * runs: no controller for minutes (32 of 33 squeue failed). The search refuses the right input
 * only when every candidate slurmctld refused is still known. So each refusal is one file
 * <state>/CTL_REFUSED_DIR/<FNV-1a of the bytes, 16 hex digits> holding "<reason>\n<bytes>" (the
 * bytes compared in full: the hash only names the file), its mtime the time of the refusal; at
 * most CTL_REFUSED_MAX are kept (the oldest go first). A timeout under the ceiling is marked
 * CTL_REFUSED_RETRY_MARK: refused for CTL_REFUSED_RETRY_AFTER_S, then tried once more with the
 * ceiling (ctlstart.h). The single file of earlier charms (CTL_REFUSED_LEGACY_FILE) is moved in
 * at the first use, with its time.
 *
 * Refused for its settings (CTL_REFUSED_GLOBAL_MARK). A candidate whose applications' lines
 * (NodeSet, PartitionName) are those slurmctld ran with was refused for the rest, the settings
 * (slurm-conf-parameters and the charm's own): any later file with those same settings is refused
 * with it, whatever its partitions. Without this, a good partition change while a hanging value
 * stayed configured made a new file with the value in it: one more silent start and rollback
 * (5 s without a controller), and the change itself came only with the service watcher's next run
 * (charm-restart failed in CI on that race). Now the guard's search (ctlguard.h) blames the
 * parameters at once and the partition change applies live, with no start. A file refused with
 * partitions that differ from the running ones says nothing of its settings alone: exact match
 * only.
 *
 * Ownership: strings are borrowed; *ret_reason is the caller's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define CTL_REFUSED_DIR "slurm.conf.refused.d"
#define CTL_REFUSED_LEGACY_FILE "slurm.conf.refused"
#define CTL_REFUSED_MAX 16
#define CTL_REFUSED_RETRY 2
#define CTL_REFUSED_RETRY_MARK "(once) "
#define CTL_REFUSED_GLOBAL_MARK "(settings) "
/* …once the refusal is this old (before, it is refused like any other: 1) */
#define CTL_REFUSED_RETRY_AFTER_S 600
/* A refusal this much ahead of now counts as made now: a file's time can run ahead of time() by a
 * clock tick (fine-grained file times, Linux 6.13 on), a peer's clock by a little; further ahead
 * (the clock went back) it is due. */
#define CTL_REFUSED_SKEW_S 5

/* Whether data was refused (itself, or a file with its settings refused for them alone, the
 * newest such): 1 and *ret_reason (without the marks) when it was, 0 when not, a
 * negative errno; CTL_REFUSED_RETRY (with *ret_reason) for a timeout under the ceiling refused
 * CTL_REFUSED_RETRY_AFTER_S ago or more (not a verdict yet: the next start gets the ceiling). */
int ctl_refused_match(const struct charm_paths *paths, const char *data, size_t len, char **ret_reason);

/* The verdict on one refusal made at `at` (Unix s), now: 1 refused, or CTL_REFUSED_RETRY for a
 * timeout under the ceiling (once) refused CTL_REFUSED_RETRY_AFTER_S ago or more, or more than
 * CTL_REFUSED_SKEW_S ahead of now; *ret_reason
 * (caller frees) is prefix (may be NULL) and reason, with when it is tried once more while a
 * timeout's refusal lasts. Pure. */
int ctl_refused_verdict(bool once, int64_t at, int64_t now, const char *prefix, const char *reason,
        char **ret_reason);

/* Remembers data as refused for reason (once: a timeout under the ceiling, tried again later),
 * now; for its settings alone when its applications' lines are applied's (the file slurmctld
 * ran with; NULL: none). The oldest beyond CTL_REFUSED_MAX are forgotten. 0 or a negative errno
 * (err). */
int ctl_refused_store(const struct charm_paths *paths, const char *data, size_t len, const char *applied,
        size_t applied_len, const char *reason, bool once, struct strbuf *err);

/* Forgets every refused candidate (the admin fixed the cause: action retry-refused, atk8 G4):
 * the next reconcile tries the configured values again, with the usual bound and rollback.
 * 0 and *ret_n the number forgotten, or a negative errno (err). */
int ctl_refused_forget(const struct charm_paths *paths, size_t *ret_n, struct strbuf *err);

/* One remembered refusal as other controller units see it (charm/slurmctld/ctlrefshare.h): the
 * FNV-1a 64 of the file's bytes, of its settings (its lines that are no application's: the
 * part a (settings) refusal is about), its marks, its time (Unix s) and reason; unit: the
 * controller unit that refused it (NULL for this unit's own). */
struct ctl_refusal {
        uint64_t hash, settings;
        bool once, global;
        int64_t at;
        char *reason;
        char *unit;
};
struct ctl_refusals {
        struct ctl_refusal *v;
        size_t n;
};
void ctl_refusals_clear(struct ctl_refusals *l);

/* The settings hash of a file (see struct ctl_refusal). Pure. */
uint64_t ctl_refused_settings_hash(const char *data, size_t len);

/* Appends this unit's remembered refusals to ret (none: nothing), newest first. 0 or a negative
 * errno. */
int ctl_refused_list(const struct charm_paths *paths, struct ctl_refusals *ret);
