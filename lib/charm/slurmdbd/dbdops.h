/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd charm's accounting actions: what an admin would otherwise do with sacctmgr,
 * through libslurmdb (slurm/acctdb.h) on the unit's client configuration (the cluster the
 * controllers named, the serving slurmdbd: SLURMDBD_CLIENT_CONF_PATH).
 *   account-add  name, [parent] (root), [description], [organization]
 *   user-add     name, account (its default account and association on the cluster)
 *   qos-add      name, [priority] (0), [description]
 *   account-remove, user-remove, qos-remove  name (not the root account, the root user or
 *                the normal QOS Slurm made); Slurm refuses while jobs run on an association
 *   accounting-show  accounts, users (name:default-account), qos (name:priority)
 * Parameters are JSON-schema typed in actions.yaml (juju refuses wrong types before the action
 * runs) and checked again here: names are 1 to 64 of a-z, 0-9, '_', '-' (users: a-z or '_'
 * first, at most 32, as useradd takes them); descriptions 1 to 100 printable characters without
 * quotes. A refusal or a database error is an action failure with the reason; nothing is
 * half-done (one commit per add). A request that fails while this unit's slurmdbd logs that its
 * database does not answer (a restart of the database) is tried again every second for 20 s,
 * and then fails quoting slurmdbd's log line. Each try runs in a child killed after 25 s (a
 * stalled database holds slurmdbd, and libslurmdb with it, for as long as the stall); a try that
 * ran out of time is not tried again and its failure says the request may still take effect.
 * libslurm's own error lines go nowhere near the action's output. */
#pragma once

#include "charm/slurmdbd/slurmdbd.h"

/* Names and text as the actions take them (see above). */
bool dbd_ops_name_valid(const char *s);
bool dbd_ops_user_valid(const char *s);
bool dbd_ops_text_valid(const char *s);

int dbd_ops_account_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int dbd_ops_user_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int dbd_ops_qos_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int dbd_ops_account_remove(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int dbd_ops_user_remove(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int dbd_ops_qos_remove(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
int dbd_ops_show(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err);
