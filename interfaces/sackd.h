/* SPDX-License-Identifier: Apache-2.0 */
/* The `sackd` interface between the slurmctld charm (requires: login-node) and the sackd charm
 * (provides: slurmctld, limit 1): what a login unit needs to be a client of the cluster (schema
 * in interfaces/README.md).
 *
 * slurmctld leader → its app bag:
 *   auth_key_id  the cluster's auth key secret, granted to the relation (munge.key on 22.05,
 *                slurm.key on 24.11: the clients' credentials)
 *   cluster_name the cluster's ClusterName
 *   controllers  JSON list of "host:port", primary first (as on the slurmd interface)
 *   slurm        the controllers' Slurm generation (as on the slurmd interface)
 *   slurm-conf   the slurm.conf the controllers run, as text: a 22.05 login unit's client
 *                file (22.05 has no sackd, and its client commands fetch no configuration but
 *                through DNS); on 24.11 sackd fetches it itself (configless), and the login
 *                unit takes a change of it as the moment to fetch again.
 * sackd → nothing (the login units are no nodes; the controllers need nothing of them).
 *
 * Decoders: 0 complete and valid, -ENODATA not (yet) published, -EINVAL bad (message in err,
 * ret untouched). */
#pragma once

#include "util/strbuf.h"
#include "util/strv.h"

#define SACKD_IFACE_CONF_KEY "slurm-conf"
/* the largest slurm.conf the interface carries (the charms' own are a few KiB) */
#define SACKD_IFACE_MAX_CONF (256 * 1024)

struct login_data {
        char *auth_key_id;
        char *cluster;
        struct strv controllers; /* "host:port", primary first */
        char *slurm_conf;        /* the controllers' slurm.conf */
};
#define LOGIN_DATA_INIT { .auth_key_id = NULL, .cluster = NULL, .controllers = STRV_INIT, .slurm_conf = NULL }

/* Decodes the four keys into *ret (replaced). The slurm.conf text, read as Slurm reads it
 * (slurmconf/conf.h), must parse, be at most SACKD_IFACE_MAX_CONF bytes, name the same
 * ClusterName, and hold no Include line (a login unit has none of the controllers' other
 * files). */
int login_data_decode(const char *auth_key_id, const char *cluster_name, const char *controllers_json,
        const char *slurm_conf, struct login_data *ret, struct strbuf *err);
void login_data_clear(struct login_data *d);

/* The check of the slurm.conf text alone (as login_data_decode does it): 0, or -EINVAL with
 * "relation data: slurm-conf …" in err. */
int login_conf_text_check(const char *cluster, const char *text, struct strbuf *err);
