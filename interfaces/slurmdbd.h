/* SPDX-License-Identifier: Apache-2.0 */
/* The `slurmdbd` interface between the slurmctld and slurmdbd charms (schema in
 * interfaces/README.md).
 *
 * slurmdbd leader → its app bag:
 *   dbd_hosts    JSON list of "host:port" of the slurmdbd units serving, primary first (the
 *                controllers' AccountingStorageHost, then AccountingStorageBackupHost)
 * slurmctld leader → its app bag:
 *   auth_key_id  the cluster's auth key secret (granted to the relation): slurmdbd must
 *                authenticate the controllers with the cluster's own key
 *   cluster_name the cluster's ClusterName (the associations the admin actions make are on it)
 *   controllers  JSON list of "host:port", primary first (as on the slurmd interface)
 *
 * Decoders: 0 complete and valid, -ENODATA not (yet) published, -EINVAL bad (message in err,
 * ret untouched). */
#pragma once

#include "util/strbuf.h"
#include "util/strv.h"

/* Slurm takes one primary and one backup slurmdbd. */
#define SLURMDBD_IFACE_MAX_HOSTS 2
#define SLURMDBD_PORT 6819

int dbd_hosts_decode(const char *json, struct strv *ret, struct strbuf *err);
int dbd_auth_key_decode(const char *auth_key_id, char **ret, struct strbuf *err);
/* The cluster name (a-z first, then a-z, 0-9, '_', '-'; at most 40) and the controllers. */
int dbd_cluster_decode(const char *cluster_name, const char *controllers_json, char **ret_name,
        struct strv *ret_controllers, struct strbuf *err);
