/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmctld charm: what its install, reconcile (every other hook) and actions do.
 *
 * slurmctld_reconcile() computes the controller's whole desired state from all inputs, read
 * once: config (cluster-name, default-partition, slurm-conf-parameters), leadership, the peer
 * relation (cluster name, auth key secret id and controller list in the app bag; each unit's
 * hostname in its unit bag), the app bag of every related slurmd application (decoded with
 * interfaces/slurmd.h), the auth key secret. Everything is validated before anything is
 * written; a bad input gives a blocked outcome and leaves every file as it was. Then it writes
 * only what differs (munge.key, slurm.conf), drives munge and slurmctld through sd-bus
 * (reconfigure when slurm.conf changed, restart when a change needs it), and the leader
 * publishes auth_key_id and controllers to every slurmd relation (granting the secret).
 *
 * A compute *unit* joining, changing or departing (slurmd-relation-joined/-changed/-departed
 * with a remote unit) is not the controller's business with dynamic nodes: those events only
 * refresh the status line (one libslurm RPC); no file is read or written, no reconfigure.
 *
 * An application that leaves (slurmd-relation-broken: that relation is left out): its partition
 * is made INACTIVE over RPC, and kept in slurm.conf (State=INACTIVE, <state>/leaving) while jobs
 * of it remain (slurmctld 22.05 fails every job of a partition a reconfigure drops); later hooks
 * drop it once empty and delete its leftover node records once idle (leader). Every full
 * reconcile of the leader also deletes stale records: nodes of a related application whose unit
 * is no longer in relation-list, not responding or never registered with the running slurmctld
 * (one it brought back from its state file after a crash), holding no job. Never waits on jobs.
 *
 * Several controller units (charm/slurmctld/ha.h): each unit proves StateSaveLocation is shared, the
 * leader keeps the controller order in the peer app bag, a unit outside it runs no slurmctld,
 * a controller unit that leaves hands control over and stops slurmctld with SIGTERM (stop, or
 * its own relation-departed), and every status starts with the unit's role.
 *
 * Ownership: the outcome is the caller's (charm.h). */
#pragma once

#include <stdint.h>

#include "charm/common/charm.h"

#define SLURMCTLD_PEER_ENDPOINT "slurmctld-peer"
#define SLURMCTLD_SLURMD_ENDPOINT "slurmd"
#define SLURMCTLD_PORT 6817
/* Packages the install hook makes sure of. */
#define SLURMCTLD_PACKAGES "slurmctld", "munge", "slurm-client"

struct slurmctld_opts {
        struct charm_paths paths;
        const char *event;          /* the hook this executable is (HOOK_EVENT) */
        uint64_t unit_timeout_usec; /* each systemd job; 0: 90 s */
        int answer_timeout_ms;      /* wait for slurmctld to answer after a (re)start; 0: 20 s */
        /* run by a watcher, not by Juju (the service watcher's handler, node-events-changed): a
         * slurmctld that systemd is restarting or gave up on (a crash loop) is left to systemd
         * and to the admin's next hook; the status says which */
        bool automatic;
};

/* Stage 2 of install (packages are there): enables munge. */
int slurmctld_install(
        struct juju_ctx *ctx, const struct slurmctld_opts *o, struct charm_outcome *ret, struct strbuf *err);
/* Every other hook. */
int slurmctld_reconcile(
        struct juju_ctx *ctx, const struct slurmctld_opts *o, struct charm_outcome *ret, struct strbuf *err);
/* Actions pause [reason=…] and resume: the unit's maintenance switch (charm/common/pause.h); resume
 * starts what is stopped (the reconcile) and sets the status. */
int slurmctld_pause(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err);
int slurmctld_resume(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err);
/* Action retry-refused (atk8 G4): forgets every slurm.conf candidate slurmctld refused at its
 * start on this unit (charm/slurmctld/ctlrefused.h), then reconciles at once (a paused unit: at resume).
 * Results: forgotten (how many), status (the unit's, after the try) or note. */
int slurmctld_retry_refused(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err);

/* Action rotate-auth-key (leader only, issue 31 §3): a new cluster auth key through the stages
 * of charm/slurmctld/keyrotate.h, this unit taking the first at once. Refused, nothing changed,
 * on another unit, a paused one, while a rotation runs or a unit has not confirmed the current
 * keys. Results "stage", "key-id", "units", "note". */
int slurmctld_rotate_auth_key(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err);

/* Action takeover: this unit's slurmctld takes control now (slurm_takeover: the controllers ahead
 * of it in SlurmctldHost shut down, ~2 s) and the unit asks the leader to make it the primary
 * (charm/slurmctld/ha.h); the others start again as its backups once the new order is out. Results
 * "in-charge", "note". */
int slurmctld_takeover(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err);

/* Action show-current-config: sets result key "slurm-conf" to the current slurm.conf. */
int slurmctld_show_current_config(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err);

/* "3 nodes in 1 partition" (pure; for the status line). */
void slurmctld_status_message(size_t n_nodes, size_t n_partitions, struct strbuf *out);
