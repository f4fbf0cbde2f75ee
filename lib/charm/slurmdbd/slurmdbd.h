/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd charm: Slurm's accounting daemon in front of a MySQL/MariaDB database it gets
 * through the `database` relation (mysql_client, interfaces/database.h), authenticating the
 * controllers with the cluster's auth key they share over the `slurmctld` relation
 * (interfaces/slurmdbd.h), and telling them where it serves.
 *
 * One reconcile for every hook: inputs read once (peers' addresses, the database's endpoint
 * and credentials secret, the controllers' key secret), checked, then the key and
 * slurmdbd.conf written only when they differ, munge (22.05) and slurmdbd driven over sd-bus,
 * and (leader) the serving units published. A unit that is neither primary nor backup keeps
 * slurmdbd stopped (dbdconf.h). A slurmdbd that fails at its start is reported with the last
 * error line of its log (bad credentials: the database's own "Access denied"). */
#pragma once

#include <stdint.h>

#include "charm/common/charm.h"

#define SLURMDBD_CONF_PATH "/etc/slurm/slurmdbd.conf"
#define SLURMDBD_LOG_PATH "/var/log/slurm/slurmdbd.log"
/* the clients' slurm.conf on a slurmdbd unit (the actions', sacctmgr's with SLURM_CONF, and
 * sackd's, which runs as SlurmUser: readable by all, it holds no secret) */
#define SLURMDBD_CLIENT_CONF_PATH "/etc/slurm/slurm-client.conf"
/* the token service's environment (slurm_caps.token_service: sackd reads SLURM_CONF there) */
#define SLURMDBD_SACKD_DEFAULTS "/etc/default/sackd"
#define SLURMDBD_DB_ENDPOINT "database"
#define SLURMDBD_CTL_ENDPOINT "slurmctld"
#define SLURMDBD_PEER_ENDPOINT "slurmdbd-peer"
#define SLURMDBD_DEFAULT_DB_NAME "slurm_acct_db"

struct slurmdbd_opts {
        struct charm_paths paths;
        const char *event;
        uint64_t unit_timeout_usec; /* each systemd job; 0: 90 s */
        int answer_timeout_ms;      /* wait for slurmdbd to listen after a start; 0: 20 s */
};

int slurmdbd_install(
        struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct charm_outcome *out, struct strbuf *err);
int slurmdbd_reconcile(
        struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct charm_outcome *out, struct strbuf *err);
/* stop/remove: slurmdbd stopped and disabled, slurmdbd.conf (it holds the password) removed. */
int slurmdbd_leave(
        struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct charm_outcome *out, struct strbuf *err);
/* Actions pause [reason=…] and resume: the unit's maintenance switch (charm/common/pause.h).
 * While paused, no hook and no watcher's run starts, restarts, writes or publishes anything: a
 * slurmdbd (or munged) the admin stopped for a database backup or an upgrade's `slurmdbd -D`
 * stays stopped, and the status says "paused by admin: …" with the daemons that are down. The
 * unit's departure still runs (stop/remove). resume lifts the pause and reconciles at once. */
int slurmdbd_pause(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int slurmdbd_resume(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);

/* Why slurmdbd did not do what it was asked, from its log since from: the database's own refusal
 * when it logged one ("mysql_real_connect failed: 1129 Host … is blocked …": its next lines only
 * say it will try again), else its last error. NULL when there is none. Caller frees. */
char *slurmdbd_log_reason(const char *path, off_t from);
