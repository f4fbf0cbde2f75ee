/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's side of the login nodes (issue 30 §2): the leader publishes, in every
 * relation on the `login-node` endpoint (interface `sackd`, interfaces/sackd.h), the cluster's
 * auth key secret (granted to the relation), the cluster name, the controllers in their order
 * and the slurm.conf the controllers run (read from this unit's live file, which the charm
 * replaces only with a candidate Slurm's reader and the running slurmctld took). The sackd
 * charm (lib/charm/sackd/) makes its units clients of the cluster from these; the controllers
 * need nothing back, so the login units never hold up a controller hook.
 *
 * Called where the slurmd relations are published (the leader's reconcile), so that a changed
 * controller order or configuration reaches the login units in the same hook as the nodes. */
#pragma once

#include "charm/common/charm.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define LOGIN_ENDPOINT "login-node"

/* Publishes into each relation of rels (this application's bag; only changed keys are set).
 * controllers_json: as on the slurmd relations. 0 or a negative errno (err). A live slurm.conf
 * that is missing (a first hook before the controller's first file) publishes nothing yet. */
int login_publish(struct juju_ctx *ctx, const struct charm_paths *paths, const struct strv *rels,
        const char *auth_key_id, const char *cluster_name, const char *controllers_json, struct strbuf *err);

