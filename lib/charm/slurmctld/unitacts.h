/* SPDX-License-Identifier: Apache-2.0 */
/* The compute units' own actions into the node event log, on the controller leader (issue 29;
 * the data: interfaces/nodeactions.h; the compute side: charm/slurmd/actnote.h).
 *
 * Design note. The leader takes a unit's list at that unit's events (relation-joined, -changed,
 * and -departed: a leaving unit's last actions still count) and sweeps every unit of every
 * slurmd relation at its full reconciles, so that a list written while another unit led, or
 * while a hook failed, is taken at the next one. The log dedupes by (unit, list, seq) under its
 * lock (nodeevents_note_unit_actions); this unit keeps, in UNITACTS_SEEN_FILE, the last seq it
 * saw recorded per unit and list, so that a sweep with nothing new takes no lock. A list that
 * is not valid (the other side's data) is left out with a warning in the log, never recorded
 * in part. Best effort for the hook: a failure is a warning, never the hook's failure (the
 * reconcile's own work comes first). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define UNITACTS_SEEN_FILE "node-actions.seen"
#define UNITACTS_SEEN_MAX 1024 /* lines kept, the line set last at the end */

/* The seq this unit saw recorded for unit's list log in the file's text data ("unit log seq"
 * lines; NULL: none): 0 when there is none. Pure. */
uint64_t unitacts_seen_get(const char *data, const char *unit, const char *log);
/* data with unit's line for log set to seq, moved last (the others kept, the oldest dropped
 * beyond UNITACTS_SEEN_MAX). Pure; caller frees. */
char *unitacts_seen_set(const char *data, const char *unit, const char *log, uint64_t seq);

/* unit's list in relation rel into the log. 0 or a count of records, or a negative errno. */
int unitacts_take(struct juju_ctx *ctx, const struct charm_paths *paths, const char *rel, const char *unit,
        struct strbuf *err);
/* unitacts_take() for every unit of every relation in rels (failures are logged), when force
 * (a new leader) or when the last sweep is UNITACTS_SWEEP_EVERY_S old (UNITACTS_SWEPT_FILE):
 * one relation-get per unit, which on a large cluster is not for every hook. The units' own
 * events carry the lists; the sweep is the net under a record that one of them missed. */
#define UNITACTS_SWEPT_FILE "node-actions.swept"
#define UNITACTS_SWEEP_EVERY_S 3600
void unitacts_sweep(struct juju_ctx *ctx, const struct charm_paths *paths, const struct strv *rels, bool force);
