/* SPDX-License-Identifier: Apache-2.0 */
/* Each partition's default memory per CPU from its nodes' hardware, so that jobs without --mem
 * share nodes (issue 30 §4).
 *
 * Design note. The template's SelectTypeParameters counts memory, and with no DefMemPerCPU a
 * job without --mem gets its node's whole memory: five 1-CPU jobs on a 2-CPU node ran one after
 * another. With the slurmctld option default-mem-per-cpu=auto every application's partition
 * gets DefMemPerCPU = the smallest (RealMemory - MemSpecLimit) / CPUs over its units, as
 * slurmctld registered their nodes (each compute unit publishes that in its unit bag,
 * interfaces/slurmd.h "node-resources"); a job then takes memory in proportion to its CPUs, and
 * one asking for more than its partition's nodes have is refused at submission (Slurm's own
 * rule). The rules:
 *  - the admin's word wins: a DefMemPerCPU, DefMemPerNode or DefMemPerGPU (mutually exclusive
 *    in Slurm) in the application's partition-config leaves the partition without the computed
 *    value, its MaxMemPerCPU caps it; the global slurm-conf-parameters play no part (a refused
 *    line must change no partition), and one that sets a default or MaxMemPerCPU beside auto is
 *    named in the status (a partition's own default wins over the global one in Slurm);
 *  - a unit below MEMDEF_MIN_PER_CPU_MB per CPU is not counted, and named;
 *  - a change applies to pending jobs too: Slurm takes the partition's current default for a
 *    job without --mem when it starts it (job_mgr.c job_limits_check), not at submission;
 *  - every controller unit computes the same value from the same relation data (their files
 *    must be the same bytes): a unit keeps what each compute unit published in its state dir
 *    (MEMDEF_UNITS_FILE), updated by that unit's relation-joined/-changed/-departed hooks, so a
 *    hook reads one bag, not every unit's; each full reconcile makes the record match
 *    relation-list (a unit gone while this controller missed the hook is dropped, a listed unit
 *    missing from it read), so a paused, fenced or new controller counts the same units;
 *  - a change of the value is a partition parameter slurmctld takes over RPC (no restart, no
 *    reconfigure: charm/slurmctld/ctlapply.h); taking it away (the admin's own value, or
 *    default-mem-per-cpu=none) removes a key, which the file carries by a restart;
 *  - a unit's bad data: the unit is not counted (every controller alike, whatever it saw
 *    before), and the refusal is named in the status.
 * Ownership: pure functions; the caller reads and writes the record and the bags. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interfaces/slurmd.h"
#include "slurmconf/options.h"
#include "util/strbuf.h"

#define MEMDEF_UNITS_FILE "memdef-units"
#define MEMDEF_MODE_FILE "memdef-mode"
#define MEMDEF_BAD_FILE "memdef-refused" /* "UNIT why" lines: units left out */
#define MEMDEF_CONFIG_KEY "default-mem-per-cpu"

enum memdef_mode {
        MEMDEF_NONE, /* Slurm's default: a job without --mem gets its node's whole memory */
        MEMDEF_AUTO,
};
/* "auto" or "none"; -EINVAL otherwise. */
int memdef_mode_parse(const char *s, enum memdef_mode *ret);
const char *memdef_mode_name(enum memdef_mode m);

struct memdef_unit {
        char *unit; /* "cpu/3" */
        char *app;  /* its application (its partition) */
        struct node_resources res;
};
struct memdef_units {
        struct memdef_unit *v;
        size_t n;
};
void memdef_units_done(struct memdef_units *u);

/* The record's text: a line "UNIT APP CPUS REAL_MEMORY MEM_SPEC_LIMIT" per unit, sorted by unit.
 * Lines that are not so are skipped (a unit's next hook writes it again). */
void memdef_units_parse(const char *text, struct memdef_units *ret);
void memdef_units_format(const struct memdef_units *u, struct strbuf *out);
/* Adds or replaces unit's entry; false when nothing changed. */
bool memdef_units_set(struct memdef_units *u, const char *unit, const char *app, const struct node_resources *res);
/* Whether unit has an entry. */
bool memdef_units_has(const struct memdef_units *u, const char *unit);
/* Drops unit's entry; false when it had none. */
bool memdef_units_drop(struct memdef_units *u, const char *unit);
/* Drops the entries of units not in units (n names); the number dropped. */
size_t memdef_units_keep_units(struct memdef_units *u, char *const *units, size_t n);

/* A unit below MEMDEF_MIN_PER_CPU_MB per CPU (a node-config RealMemory=1, a MemSpecLimit near
 * RealMemory) is not counted: one odd node would otherwise give every job of its partition a few
 * MiB (and cgroups' ConstrainRAMSpace kill them). */
#define MEMDEF_MIN_PER_CPU_MB 100
/* The smallest (real_memory - mem_spec_limit) / cpus over app's counted units; -ENODATA when
 * app has none. */
int memdef_per_cpu(const struct memdef_units *u, const char *app, uint64_t *ret);
/* "unit X: N MiB per CPU, below …" for each unit not counted for its size, appended to ret. */
void memdef_units_small(const struct memdef_units *u, struct strv *ret);

/* Sets DefMemPerCPU=per_cpu (capped by the partition's MaxMemPerCPU) in partition unless it sets
 * DefMemPerCPU, DefMemPerNode or DefMemPerGPU itself. 1 set, 0 left alone. The global
 * parameters play no part (a refused slurm-conf-parameters line must change no partition): in
 * Slurm a partition's own default wins over them, which memdef_global_conflict() names. */
int memdef_apply(struct slurm_options *partition, uint64_t per_cpu);
/* The first of DefMemPerCPU, DefMemPerNode, DefMemPerGPU, MaxMemPerCPU that the global
 * parameter line params sets (NULL: none, or a line that does not parse). */
const char *memdef_global_conflict(const char *params);
