/* SPDX-License-Identifier: Apache-2.0 */
/* The slurm.conf(5) key tables: every key Slurm 22.05 accepts, with its canonical spelling and
 * the kinds of line (scopes) where it is allowed, plus newer keys marked with their version.
 *
 * Design note. The 22.05 keys come from slurm.conf(5) of Slurm 22.05.8 (the Debian 12 package)
 * and the option tables of its parser; keys that 22.05 still parses but no longer documents
 * (FastSchedule, CryptoType, …) are flagged SLURMCONF_KEY_DEPRECATED. Keys that appeared after
 * 22.05 carry `since` (e.g. "23.11") so a caller can say "not supported by Slurm 22.05" instead
 * of "unknown key"; the exact version of those is best effort, only "not in 22.05" matters.
 *
 * A scope is the kind of line a key lives on: GLOBAL (one key per line), or the multi-key lines
 * started by NodeName=, NodeSet=, PartitionName=, DownNodes=, FrontendName=. The first key of
 * such a line (NodeName, …) is a GLOBAL key with SLURMCONF_KEY_LINE set; it is not listed in
 * its own scope. Lookups are case-insensitive (slurm.conf keys are), names of nodes and
 * partitions (values) are not this module's business.
 *
 * Aliases: a row with `alias_of` set is another spelling Slurm accepts for the same setting
 * (NodeName Procs= → CPUs=, Feature= → Features=); callers that normalize write alias_of.
 *
 * Ownership: every pointer returned points into static tables; nothing is ever freed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum slurmconf_scope {
        SLURMCONF_GLOBAL,
        SLURMCONF_NODE,      /* NodeName= lines */
        SLURMCONF_NODESET,   /* NodeSet= lines */
        SLURMCONF_PARTITION, /* PartitionName= lines */
        SLURMCONF_DOWNNODES, /* DownNodes= lines */
        SLURMCONF_FRONTEND,  /* FrontendName= lines */
        _SLURMCONF_SCOPE_MAX,
};

#define SLURMCONF_SCOPE_BIT(s) (1u << (s))

enum {
        SLURMCONF_KEY_DEPRECATED = 1u << 0, /* parsed by 22.05 but undocumented or obsolete */
        SLURMCONF_KEY_LINE = 1u << 1,       /* starts a multi-key line (NodeName, …) */
        SLURMCONF_KEY_MULTI = 1u << 2,      /* a global key that may appear on several lines */
};

struct slurmconf_key {
        const char *name;     /* canonical spelling, as in slurm.conf(5) */
        unsigned scopes;      /* SLURMCONF_SCOPE_BIT() of each scope where it is allowed */
        const char *since;    /* NULL: known to Slurm 22.05; else the first version with it */
        const char *alias_of; /* NULL, or the canonical key this spelling stands for */
        unsigned flags;       /* SLURMCONF_KEY_* */
};

/* The key called name (case-insensitive) in scope, or NULL when slurm.conf has no such key
 * there. Also returns keys newer than 22.05 (check slurmconf_key_supported()). */
const struct slurmconf_key *slurmconf_key_lookup(enum slurmconf_scope scope, const char *name);
/* As slurmconf_key_lookup() for the len bytes at name (no NUL needed). */
const struct slurmconf_key *slurmconf_key_lookup_n(enum slurmconf_scope scope, const char *name, size_t len);

/* Whether Slurm 22.05 knows the key. */
static inline bool slurmconf_key_supported(const struct slurmconf_key *k) {
        return k && !k->since;
}

/* The spelling to write for k: its alias target, or its own name. */
static inline const char *slurmconf_key_canonical(const struct slurmconf_key *k) {
        return k->alias_of ? k->alias_of : k->name;
}

/* "NodeName", "NodeSet", "PartitionName", "DownNodes", "FrontendName" for the line scopes,
 * NULL for SLURMCONF_GLOBAL. */
const char *slurmconf_scope_line_key(enum slurmconf_scope scope);
/* A short human name: "global", "node", "nodeset", "partition", "downnodes", "frontend". */
const char *slurmconf_scope_name(enum slurmconf_scope scope);

/* Calls fn for each row of the table (tests, documentation); stops when fn returns non-zero
 * and returns that value. */
int slurmconf_key_foreach(int (*fn)(const struct slurmconf_key *k, void *userdata), void *userdata);
