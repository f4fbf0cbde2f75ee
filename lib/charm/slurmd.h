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
 * --conf-server <controllers>`), starts slurmd (restart when that file changed), waits
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

#include "charm/charm.h"

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
};

int slurmd_install(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *ret, struct strbuf *err);
int slurmd_reconcile(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *ret, struct strbuf *err);

/* The stored hardware line ("CPUs=2 RealMemory=…"), detecting and storing it when missing.
 * Appends the "Key=Value" words to ret. */
int slurmd_hardware(const struct charm_paths *paths, struct strv *ret, struct strbuf *err);

/* Action destroy-jobs: requeues the requeueable jobs on this unit's node, cancels the others
 * (slurm/jobs.h) and sets the results "requeued", "cancelled" (comma-separated job ids) and
 * "failed". -EIO with a message when some job could be neither (the action then fails). */
int slurmd_destroy_jobs(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err);
