/* SPDX-License-Identifier: Apache-2.0 */
/* Refused candidates shared between controller units (issue 26, attack G9b): a candidate
 * slurm.conf that slurmctld refused at its start on one controller unit (charm/slurmctld/ctlrefused.h:
 * remembered there, on that unit only) is refused by every other controller unit too, before
 * it writes or starts it.
 *
 * Why. The controllers render the same bytes from the same inputs, but each judged a candidate
 * by its own memory: the unit in charge tried a hanging value, rolled back and refused it, while
 * a backup wrote the same file and restarted its standby slurmctld with it. A standby does not
 * run what hangs the one in charge (the controller's plugins start at takeover), so the backup
 * kept a file the cluster had refused, to be found at the next failover, the worst moment.
 *
 * How. Each unit publishes its own refusals in its peer unit bag (CTL_REFSHARE_KEY: a JSON list
 * of {"hash","settings","once","global","at","reason"}, the hashes as 16 hex digits, the newest
 * CTL_REFUSED_MAX, a reason cut to CTL_REFSHARE_REASON_MAX bytes) at the end of each full
 * reconcile; Juju then runs every other unit's peer relation-changed, whose reconcile's judge
 * refuses a candidate that a peer's record names: by the hash of the whole file, or, for a
 * refusal of its settings alone, by the hash of its settings, as ctl_refused_match() does on the
 * unit itself. The guard's culprit search (ctlguard.h) then blames the same input on every unit,
 * and a backup that had already run the file (its hook came before the refusal) renders it
 * without the blamed value and takes that. A record whose unit says nothing valid is left out
 * (peer data is the charm's own, but may be from another version).
 *
 * Forgetting (action retry-refused): the unit that runs it forgets its own and publishes
 * CTL_REFSHARE_FORGET_KEY (Unix s, now); every unit ignores records published at or before the
 * newest such time of any unit, and forgets its own older refusals when it sees a newer one.
 *
 * Ownership: struct ctl_refusals (ctlrefused.h) owns its strings; callers clear it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "charm/slurmctld/ctlrefused.h"

#define CTL_REFSHARE_KEY "refused"
#define CTL_REFSHARE_FORGET_KEY "refused-forget-at"
#define CTL_REFSHARE_REASON_MAX 240
/* the most a bag value may hold before it is taken as no list at all */
#define CTL_REFSHARE_JSON_MAX (64 * 1024)

/* The JSON text of l's first CTL_REFUSED_MAX records (caller frees; "[]" when empty). Pure. */
char *ctl_refshare_encode(const struct ctl_refusals *l);

/* Appends the valid records of one unit's published list to ret, each naming unit. -EINVAL when
 * json is not a JSON list (too long, not JSON); records that are not objects of the expected
 * fields are skipped. At most CTL_REFUSED_MAX are taken. */
int ctl_refshare_decode(const char *json, const char *unit, struct ctl_refusals *ret);

/* Whether data was refused by one of l's records published after forget_at (Unix s; 0: none):
 * 1 and *ret_reason ("…" with "on UNIT" when the record names one) when it was; 0 when not;
 * CTL_REFUSED_RETRY (with *ret_reason) for a timeout under the ceiling refused
 * CTL_REFUSED_RETRY_AFTER_S before now or more (as ctl_refused_match()). Pure. */
int ctl_refshare_match(const struct ctl_refusals *l, const char *data, size_t len, int64_t forget_at,
        int64_t now, char **ret_reason);

/* The forget time a unit's bag value holds (0 when none or not a number of seconds). Pure. */
int64_t ctl_refshare_forget_at(const char *value);
