/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm advanced reservations of whole nodes through libslurm: list, create, change the node
 * list, delete; and the reservation flag words (parse for creation, format for display).
 *
 * Facts of slurmctld 22.05 (src/slurmctld/reservation.c) this relies on:
 *   - create_resv(): a start more than 600 s in the past (MAX_RESV_DELAY) is refused with
 *     ESLURM_INVALID_TIME_VALUE; a start up to that far back becomes "now". The end is start +
 *     duration; a reservation made without a duration or end lasts a year (so callers always
 *     give one). Nodes already in another reservation at that time give
 *     ESLURM_RESERVATION_OVERLAP unless one of the two has MAINT or OVERLAP (_resv_overlap()); without
 * IGNORE_JOBS, nodes that run a job that would still run at the start give ESLURM_NODES_BUSY. Unknown users:
 * ESLURM_USER_ID_MISSING.
 *   - update_resv() with a node list replaces the whole list (no add/remove form for explicit
 *     nodes in 22.05), checks overlap and busy nodes again against the reservation's own flags,
 *     and restores the old reservation on any failure (all or nothing); an empty list is
 *     refused (ESLURM_RESERVATION_INVALID: "reservations without nodes are only expected with
 *     ANY_NODES"), so the last node leaves by deleting the reservation. A REPLACE or
 *     REPLACE_DOWN reservation refuses node lists (those flags are not offered here).
 *   - delete_resv() of a reservation a running job uses: ESLURM_RESERVATION_BUSY.
 *   - an unknown name in update or delete: ESLURM_RESERVATION_INVALID.
 * Errors map to: -ENOENT unknown reservation (or node), -EEXIST overlap or duplicate name,
 * -EBUSY busy nodes or reservation in use, -EINVAL bad time or value, -EACCES unknown user or
 * access, else slurmerr.h's table; the message is "<what>: <slurm_strerror>".
 *
 * Functions that talk to slurmctld call slurm_client_init() first and append one message to
 * err on failure. Flag functions are pure.
 * Ownership: struct slurm_resv(_list) own their strings; slurm_resv_done(),
 * slurm_resv_list_done() (both accept zeroed structs). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/strbuf.h"

struct slurm_resv {
        char *name;
        char *nodes;     /* hostlist expression; NULL when none */
        char *users;     /* comma-separated; NULL when none */
        char *accounts;  /* comma-separated; NULL when none */
        char *partition; /* NULL when none */
        time_t start;
        time_t end;
        uint64_t flags; /* RESERVE_FLAG_* bits of <slurm/slurm.h> */
        uint32_t node_count;
};

struct slurm_resv_list {
        struct slurm_resv *v;
        size_t n;
};

void slurm_resv_done(struct slurm_resv *r);
void slurm_resv_list_done(struct slurm_resv_list *l);

/* Every reservation, in slurmctld's order. Returns the count and fills *ret. */
int slurm_resv_list(struct slurm_resv_list *ret, struct strbuf *err);
/* One reservation by name (exact). -ENOENT when there is none. */
int slurm_resv_get(const char *name, struct slurm_resv *ret, struct strbuf *err);

struct slurm_resv_create {
        const char *name;      /* required */
        const char *nodes;     /* hostlist expression of existing nodes, required */
        const char *users;     /* comma-separated user names, required */
        time_t start;          /* 0: now */
        uint32_t duration_min; /* minutes, required (> 0) */
        uint64_t flags;        /* RESERVE_FLAG_* */
};
/* Creates a reservation. -EINVAL before any RPC when a required field is missing. */
int slurm_resv_create(const struct slurm_resv_create *c, struct strbuf *err);
/* Replaces the node list of reservation name (non-empty hostlist expression). */
int slurm_resv_set_nodes(const char *name, const char *nodes, struct strbuf *err);
/* Deletes reservation name. */
int slurm_resv_delete(const char *name, struct strbuf *err);

/* Parses a comma-separated list of flag words (case-insensitive, each at most once; "MAINT"
 * or "MAINTENANCE", "STATIC_ALLOC" or "STATIC") into RESERVE_FLAG_* bits. Only the flags that
 * make sense when creating a reservation of named nodes are accepted: MAINT, OVERLAP,
 * IGNORE_JOBS, FLEX, MAGNETIC, PURGE_COMP, NO_HOLD_JOBS_AFTER_END, STATIC_ALLOC, HOURLY, DAILY,
 * WEEKDAY, WEEKEND, WEEKLY. Returns 0, or -EINVAL with a message naming the word (and, for
 * ANY_NODES, PART_NODES, FIRST_CORES, TIME_FLOAT, REPLACE, REPLACE_DOWN and the NO_* forms,
 * why it is not offered). An empty string gives 0 flags. */
int slurm_resv_flags_parse(const char *s, uint64_t *ret_flags, struct strbuf *err);
/* The RESERVE_FLAG_* bits slurm_resv_flags_parse() accepts (to compare the flags an existing
 * reservation was made with, leaving out those Slurm sets itself, SPEC_NODES and others). */
uint64_t slurm_resv_flags_offered(void);
/* Appends the flags as Slurm prints them ("MAINT,OVERLAP,IGNORE_JOBS,SPEC_NODES"), in
 * Slurm's order; bits without a name as "0x…". Nothing for 0. */
void slurm_resv_flags_format(uint64_t flags, struct strbuf *out);
