/* SPDX-License-Identifier: Apache-2.0 */
/* The sackd charm: login nodes (issue 30 §2). Its units are clients of the cluster of the
 * slurmctld application they are integrated with (`slurmctld` endpoint, interface `sackd`,
 * interfaces/sackd.h): users there run sbatch, srun, salloc, squeue, sacct and scontrol. No
 * slurmd runs there, and the units are no nodes.
 *
 * One reconcile for every hook: the controllers' data read and checked (nothing is written
 * while it is incomplete or bad: the status says why), the cluster's auth key installed from
 * the Juju secret, then, by generation (slurm/caps.h):
 *   24.11 (auth/slurm, a token service): /etc/default/sackd names the controllers, sackd fetches
 *         the configuration itself (configless) and hands local clients their tokens;
 *   22.05 (auth/munge, no sackd): /etc/slurm/slurm.conf is the controllers' own file (judged by
 *         this unit's Slurm reader first), munged holds the key.
 * Written only when it differs; the daemon restarted only when what it read changed. The status
 * says which controllers the clients reach, from `scontrol ping` run on the unit (loginconf.h).
 * Without a relation (or when it breaks): the daemon stopped, the files this charm wrote and the
 * key removed, and "no controller: integrate with slurmctld".
 *
 * The clients' daemon (sackd_client_service()) is watched by a service watcher as the other
 * charms' daemons are (charm/common/watcher.h; bin/service-changed runs this reconcile): a stop,
 * a death or a crash loop shows in the status at once, and a stopped daemon is started again by
 * that reconcile, not at the next update-status. systemd restarts a sackd that dies (the charm's
 * drop-in: Debian's unit has no Restart=), munged by its own unit's Restart=on-abort (and the
 * charm's drop-in, as on the other charms' machines). */
#pragma once

#include <stdint.h>

#include "charm/common/charm.h"

#define SACKD_CTL_ENDPOINT "slurmctld"
/* the state note that says this charm wrote the clients' slurm.conf (removed with it) */
#define SACKD_CONF_NOTE "login-slurm-conf"

struct sackd_opts {
        struct charm_paths paths;
        const char *event;
        uint64_t unit_timeout_usec; /* each systemd job; 0: 90 s */
        int ping_timeout_ms;        /* `scontrol ping`; 0: 20 s */
};

/* The service that serves the clients: sackd where the generation has it (24.11), else munged. */
const char *sackd_client_service(const struct charm_paths *p);

int sackd_install(
        struct juju_ctx *ctx, const struct sackd_opts *o, struct charm_outcome *out, struct strbuf *err);
int sackd_reconcile(
        struct juju_ctx *ctx, const struct sackd_opts *o, struct charm_outcome *out, struct strbuf *err);
/* stop/remove: what a relation's end does (the daemon stopped, the charm's files and the key
 * removed). */
int sackd_leave(
        struct juju_ctx *ctx, const struct sackd_opts *o, struct charm_outcome *out, struct strbuf *err);
/* Actions pause [reason=…] and resume: the unit's maintenance switch (charm/common/pause.h).
 * While paused, no hook and no watcher's run starts, restarts or writes anything (a sackd or
 * munged the admin stopped stays stopped; a new key or controller list waits), and the status
 * says "paused by admin: …" with the client daemon when it is down. The relation's end and the
 * unit's departure still run. resume lifts the pause and reconciles at once. */
int sackd_pause(struct juju_ctx *ctx, const struct sackd_opts *o, struct strbuf *err);
int sackd_resume(struct juju_ctx *ctx, const struct sackd_opts *o, struct strbuf *err);
