/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's slurm.conf as a pure function of its inputs: the base template, the
 * cluster name, the controllers, the admin's extra global parameters and one partition per
 * related slurmd application. No I/O: the caller reads the template and writes the result.
 *
 * Rendering (ctl_conf_render): the template is parsed with the slurm.conf model, then
 *   ClusterName=<name>; one SlurmctldHost=<host>(<addr>) per controller, primary first;
 *   each slurm-conf-parameters item (validated as GLOBAL options) set over the template's
 *   value; per application, sorted by name: NodeSet=<app> Feature=<app> and
 *   PartitionName=<app> Nodes=<app> <its partition-config…> [Default=YES].
 * Because every render starts from the template, the lines of an application that is no
 * longer related simply do not appear. Default is the controller's to decide: the
 * `default-partition` application gets Default=YES; when that option is empty, or names an
 * application that is not among the partitions, the first application of the input does (the
 * caller passes them oldest relation first, so relating another application does not move
 * the default), so the cluster always has a default partition and `srun` without -p works;
 * Default= in partition data is dropped (partition-config refuses it). Same inputs give the same bytes
 * (idempotence); lines are written sorted by name whatever the input order.
 *
 * ctl_conf_live_changes() tells whether going from one rendered file to another changes only
 * partition parameters a running slurmctld takes over RPC (charm/slurmctld/ctlapply.h says why that
 * matters on 22.05).
 *
 * Ownership: inputs are borrowed; output is appended to the caller's strbuf. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interfaces/slurmd.h"
#include "slurm/caps.h"
#include "util/strbuf.h"

struct ctl_controller {
        const char *host; /* SlurmctldHost name: the machine's hostname */
        const char *addr; /* its address (NULL: none written) */
};

struct ctl_conf_input {
        const struct slurm_caps *caps; /* the Slurm generation (AuthType, CredType); NULL: built */
        const char *template_path;     /* for messages */
        const char *template_data;
        size_t template_len;
        const char *cluster_name;
        const struct ctl_controller *controllers; /* primary first */
        size_t n_controllers;
        const char *extra_params;        /* config slurm-conf-parameters (may be NULL) */
        const char *state_save_location; /* NULL: the template's */
        int slurmctld_timeout;           /* seconds; 0: the template's */
        /* "host:port" of the slurmdbd units, primary first (charm/slurmctld/accounting.h); 0: no
         * accounting */
        char *const *accounting;
        size_t n_accounting;
        /* AccountingStorageEnforce from the option accounting-enforce (charm/slurmctld/enforce.h),
         * checked: rendered with accounting only, and not while accounting_enforce_wait (the
         * first file with slurmdbd); while set, slurm-conf-parameters' own AccountingStorageEnforce
         * is left out. NULL: none */
        const char *accounting_enforce;
        bool accounting_enforce_wait;
        const struct compute_data *partitions; /* decoded relation data, oldest relation first */
        size_t n_partitions;
        const char *default_partition;      /* config default-partition (NULL/"": first) */
        const struct compute_data *leaving; /* partitions kept INACTIVE (see struct ctl_leaving) */
        size_t n_leaving;
};

/* The partitions of applications that are no longer related (HACKING.md, "risk 2"):
 *   parts     still hold jobs: rendered as NodeSet=<name> Feature=<name> and
 *             PartitionName=<name> Nodes=<name> <its old parameters> State=INACTIVE (never
 *             Default), because slurmctld 22.05 fails every job of a partition that a reconfigure
 *             drops (slurm/partitions.h); dropped once no job of theirs is left;
 *   nodesets  dropped from slurm.conf, but node records of that NodeSet (feature) remain: the
 *             controller deletes them once idle.
 * Kept in the controller's state dir as lines "partition NAME [PARAMS]" / "nodeset NAME".
 * An application related again under the same name leaves both lists. */
struct ctl_leaving {
        struct compute_data *parts;
        size_t n_parts;
        struct strv nodesets;
};
#define CTL_LEAVING_INIT \
        { .parts = NULL, .n_parts = 0, .nodesets = STRV_INIT }
void ctl_leaving_clear(struct ctl_leaving *l);
/* Adds a partition (opts may be NULL; Default, State and Nodes are left out). */
void ctl_leaving_add_partition(struct ctl_leaving *l, const char *name, const struct slurm_options *opts);
/* Whether name is in either list. */
bool ctl_leaving_has(const struct ctl_leaving *l, const char *name);
/* Parses the state file's text (*ret replaced). -EINVAL with a message on a bad line. */
int ctl_leaving_parse(const char *data, struct ctl_leaving *ret, struct strbuf *err);
/* The state file's text ("" for empty lists). */
void ctl_leaving_format(const struct ctl_leaving *l, struct strbuf *out);

/* Renders slurm.conf into out. -EINVAL with one message: "slurm-conf-parameters: …" for bad
 * extra parameters, "default-partition: …" for a bad name, or the template's parse errors. */
int ctl_conf_render(const struct ctl_conf_input *in, struct strbuf *out, struct strbuf *err);

/* Whether going from old to new changes nothing but parameters of existing PartitionName lines
 * that a running slurmctld takes over RPC (live(key, value) says which: slurm/partitions.h),
 * so that no reconfigure is needed (slurmctld 22.05's reconfigure mishandles dynamic nodes:
 * HACKING.md). Every other line must be byte-identical, the same partitions must exist, and no
 * key may be removed, except Default moving to another partition (setting it elsewhere moves
 * it). Returns 1 and appends "partition", "key", "value" triples (the keys to set) to ret, 0 when
 * a reconfigure (or restart) is needed, or when nothing changed at all (ret empty). Pure. */
int ctl_conf_live_changes(const char *old_data, size_t old_len, const char *new_data, size_t new_len,
        bool (*live)(const char *key, const char *value), struct strv *ret);

/* The index of host among the file's SlurmctldHost lines ("host" or "host(addr)"), or -1. */
long ctl_conf_controller_index(const char *data, size_t len, const char *host);

/* A cluster name made once by the leader: "cluster-" + 8 hex digits (random). Caller frees. */
int ctl_cluster_name_generate(char **ret);
/* Whether s is a usable ClusterName: 1 to 40 chars of [a-z0-9_-], starting with a letter
 * (Slurm lowercases it; slurmdbd uses it in table names). */
bool ctl_cluster_name_valid(const char *s);

/* Files slurmctld serves with slurm.conf (gres.conf, cgroup.conf) are read by it only when it
 * starts: the controller appends this comment line, naming the file and the digest of its text,
 * to the slurm.conf template, so that a change of either file is a change of slurm.conf (a
 * restart by ctl_apply, with its rollback and push) and every candidate the guard judges carries
 * it. A newline comes first when conf lacks one. */
void ctl_conf_stamp(const char *name, const char *text, struct strbuf *conf);
