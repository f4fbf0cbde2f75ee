/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd charm: what its install, reconcile (every other hook of this issue) and status do.
 *
 * install (stage 2, packages present): detect the hardware once (`slurmd -C`, GPUs as
 * Gres=gpu:N) into <state>/hardware, install the slurmd.service drop-in from templates/
 * (clears ConditionPathExists, Restart=on-failure) and daemon-reload, enable munge.
 *
 * slurmd_reconcile() reads every input once: config (partition-config, default-node-state,
 * default-node-reason), leadership, the slurmctld relation (limit 1): the controller's app bag
 * (auth_key_id, controllers) and, for the leader, its own app bag; the auth key secret; the
 * stored hardware. It validates them all before writing anything. The leader publishes the
 * partition/nodeset (compute_data_encode) when they differ. When the controller's data is
 * complete it installs the key (munge restarted only when it changed), the drop-in and
 * /etc/default/slurmd (`-Z --conf '<hardware | admin> Features=<app>' -N <node>
 * --conf-server <controllers>`), starts slurmd (restart when that file changed, or when the
 * running slurmd lacks a start-only plugin its slurm.conf names: slurmd_plugins_missing()), waits
 * (bounded) for the node to register, applies default-node-state/-reason once (remembered in
 * <state>/default-state-applied, so later scontrol changes by an admin stand), and reports the
 * node's Slurm state. update-status runs the same and so repairs a stopped slurmd or a missing
 * file.
 *
 * <state> is <root>/var/lib/slurm/charm (root, 0700): on a real machine beside Slurm's own
 * state; in juju-sim /var/lib/slurm is private to each machine, so each unit has its own.
 *
 * Ownership: the outcome is the caller's (charm.h). */
#pragma once

#include <stdint.h>

#include "charm/common/charm.h"

#define SLURMD_CONTROLLER_ENDPOINT "slurmctld"
#define SLURMD_PACKAGES "slurmd", "munge", "slurm-client"
#define SLURMD_DROPIN_NAME "10-slurmd-charm"
#define SLURMD_DROPIN_TEMPLATE "slurmd.service.d/10-slurmd-charm.conf"
#define SLURMD_HARDWARE_FILE "hardware"
#define SLURMD_DEFAULT_STATE_FILE "default-state-applied"

struct slurmd_opts {
        struct charm_paths paths;
        const char *event;          /* the hook this executable is (HOOK_EVENT) */
        uint64_t unit_timeout_usec; /* each systemd job; 0: 90 s */
        int register_timeout_ms;    /* wait for the node to register; 0: 30 s */
        /* run by the service watcher, not by Juju (its runs come at every job start and end) */
        bool automatic;
};

int slurmd_install(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *ret, struct strbuf *err);
int slurmd_reconcile(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *ret, struct strbuf *err);

/* The plugins a slurmd reads only at its start (ProctrackType, TaskPlugin items) that slurm.conf
 * (conf) names and slurmd's memory map (maps: /proc/PID/maps) lacks: a slurmd started under an
 * older file, e.g. one with proctrack/linuxproc before a charm upgrade brought proctrack/cgroup
 * (a pushed file does not change them: slurmd must restart). Pure. Appends "type/name" words,
 * comma-separated, to missing; returns their count (0 when conf does not parse). */
int slurmd_plugins_missing(const char *conf, size_t conf_len, const char *maps, struct strbuf *missing);

/* Whether this hook is the unit leaving the cluster (pure): stop, remove, relation-broken of
 * the slurmctld relation, or its relation-departed naming this unit as the departing one (a
 * remove-unit: one per controller unit). A departed hook for a departing *controller* unit is
 * not (the controller list changes, the cluster stays). */
bool slurmd_event_leaves(const struct juju_env *env);

/* The unit leaves (HACKING.md, "A compute unit leaves"), once: the "left" state file makes
 * every later call a no-op. Drains the node ("unit slurmd/1 is leaving"), waits until no job
 * is on it (slurm_jobs_wait_none, bounded by config drain-timeout), deletes the node, stops and
 * disables slurmd and munge, removes /etc/default/slurmd, the munge key and the drop-in. On
 * timeout: -ETIMEDOUT, the message names the jobs still running (the hook fails; the operator
 * waits and resolves, or runs destroy-jobs and resolves). An unreachable controller is
 * logged, not fatal: the controller deletes the stale record (slurmctld.h). */
int slurmd_leave(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *ret, struct strbuf *err);

/* Action node-config (parameters='…' | reset=true | neither: show): validates the parameters
 * (NODE options; NodeName, NodeAddr, NodeHostname, Port, State and Reason refused), merges them
 * over the detected hardware, stores them in <state>/node-config (atomic; read by every later
 * reconcile, so they survive upgrade-charm and reboots) and, when the effective --conf changes
 * on a registered node: saves its state and reason, drains it, waits for its jobs (bounded by
 * drain-timeout; on timeout the state is restored and nothing changes), stops slurmd, deletes
 * the node, rewrites /etc/default/slurmd, starts slurmd, waits for the registration and puts
 * the saved state and reason back. Result keys: "conf" (the effective --conf), "node-state".
 * Errors are returned with a message for action-fail. */
int slurmd_node_config(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err);

/* Actions pause [reason=…] [drain=true] and resume: the unit's maintenance switch
 * (charm/common/pause.h). pause also drains the node ("paused: <reason>") unless drain=false, and
 * says how many jobs still run on it; resume lifts that drain (not an admin's own), starts what
 * is stopped (the reconcile) and sets the status. */
int slurmd_pause(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err);
int slurmd_resume(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err);

/* Action destroy-jobs: requeues the requeueable jobs on this unit's node, cancels the others
 * (slurm/jobs.h) and sets the results "requeued", "cancelled" (comma-separated job ids) and
 * "failed". -EIO with a message when some job could be neither (the action then fails). */
int slurmd_destroy_jobs(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err);
