/* SPDX-License-Identifier: Apache-2.0 */
/* GRES counts by name, from a node's Gres string (issue 26, item 2: "values that claim hardware
 * the node does not have are refused or proven").
 *
 * Facts (Slurm's gres.c, _get_gres_cnt() and the node record's gres string; 22.05 and 24.11):
 * a node's Gres is a comma-separated list of NAME[:TYPE][:COUNT[K|M|G|T|P]][(S:sockets)] items;
 * a missing count is 1; a suffix multiplies by 1024 per step; "(S:0-1)" binds the items to
 * sockets and changes no count. slurmctld's node-update (scontrol update gres=…) takes any count
 * for a running node, with no look at the hardware: a `gres=gpu:8` on a node without GPUs is
 * accepted, and a job asking --gres=gpu:1 then runs there. So what a node-update may set is
 * judged against what the node proved: the total per NAME, whatever the types.
 *
 * Ownership: the totals array is the caller's (gres_counts_done). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

struct gres_count {
        char *name;      /* "gpu" */
        char *type;      /* "a100", NULL for items without one */
        uint64_t total;  /* over every item of this name and type, whatever the socket binding */
        bool no_consume; /* an item had "no_consume" (any case): any number of jobs share them */
};

struct gres_counts {
        struct gres_count *v;
        size_t n;
};
#define GRES_COUNTS_INIT \
        { NULL, 0 }

void gres_counts_done(struct gres_counts *c);

/* Adds the items of spec (a node's Gres string; NULL, "" and "(null)" are none) to c, summed by
 * name and type: NAME[:TYPE][:no_consume][:COUNT] (Slurm's gres_add_type() takes "no_consume"
 * in any case). -EINVAL with the item named in err when one is malformed (c then unchanged). */
int gres_counts_parse(const char *spec, struct gres_counts *c, struct strbuf *err);

/* The total of name in c over every type (0 when absent). */
uint64_t gres_counts_get(const struct gres_counts *c, const char *name);
/* The total of name with type (NULL: the items without one) in c. */
uint64_t gres_counts_get_type(const struct gres_counts *c, const char *name, const char *type);
/* Whether an item of name in c had no_consume. */
bool gres_counts_no_consume(const struct gres_counts *c, const char *name);
