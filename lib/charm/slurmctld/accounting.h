/* SPDX-License-Identifier: Apache-2.0 */
/* The controllers' side of accounting: the `slurmdbd` relation (interfaces/slurmdbd.h). The
 * slurmdbd leader publishes where slurmdbd serves (primary first); the controllers render
 * AccountingStorageType=accounting_storage/slurmdbd, AccountingStorageHost and Port, and
 * AccountingStorageBackupHost for a second unit (charm/slurmctld/ctlconf.h); the slurmctld leader gives
 * slurmdbd the cluster's auth key secret. No relation: no accounting keys, and slurmctld is
 * restarted without them (a global key change, charm/slurmctld/ctlapply.h).
 *
 * Bad relation data changes nothing: the hosts last taken (kept in the controller's state dir,
 * ACCT_STATE_FILE) stay in slurm.conf and the refusal is a note in the status. While slurmdbd
 * is unreachable slurmctld keeps running and queues its records (slurm.conf(5): up to
 * MaxDBDMsgs, by default 10000 + 2 per node), sending them once slurmdbd answers again.
 *
 * Ownership: struct acct_view owns its strings (acct_view_done). */
#pragma once

#include "charm/common/charm.h"
#include "util/strv.h"

#define ACCT_ENDPOINT "slurmdbd"
#define ACCT_STATE_FILE "accounting"

struct acct_view {
        struct strv rels;      /* relation ids on the slurmdbd endpoint (0 or 1) */
        struct strv hosts;     /* "host:port", primary first: what slurm.conf gets (empty: none) */
        struct strbuf refused; /* why the relation's data was not taken (kept the last good) */
};
#define ACCT_VIEW_INIT \
        { .rels = STRV_INIT, .hosts = STRV_INIT, .refused = STRBUF_INIT }

/* Reads the relation; bad data, or a slurmdbd whose Slurm (`slurm`, published by its leader)
 * cannot serve this slurmctld (charm_generation_check: older, too new, another AuthType),
 * leaves the hosts taken last (state file) with a reason. */
int acct_read(struct juju_ctx *ctx, const struct charm_paths *p, struct acct_view *ret, struct strbuf *err);
/* Records the hosts taken (after slurm.conf was written with them). */
int acct_store(const struct charm_paths *p, const struct acct_view *v, struct strbuf *err);
/* Leader: the auth key secret granted to and named in every slurmdbd relation, the cluster
 * name and the controllers (JSON list of "host:port", as the slurmd interface has it). */
int acct_publish(struct juju_ctx *ctx, const struct acct_view *v, const char *auth_key_id,
        const char *cluster_name, const char *controllers_json, struct strbuf *err);
/* Before slurmctld starts with slurmdbd hosts other than those taken last (accounting turned
 * on, another slurmdbd): on a generation that keeps the ClusterID in StateSaveLocation
 * (slurm_caps.cluster_id_in_state), drops that id from state_dir/clustername, keeping the
 * name, so slurmctld takes the id slurmdbd has or gives the cluster instead of exiting on the
 * mismatch. The id slurmctld made up alone (no accounting) names nothing outside this
 * cluster. 1 rewritten, 0 nothing to do, or a negative errno (message in err). */
int acct_cluster_id_release(
        const struct charm_paths *p, const struct acct_view *v, const char *state_dir, struct strbuf *err);
/* The controller's status note on accounting: when slurmdbd (every host of v) does not accept
 * a connection, "; accounting: slurmdbd H:P not answering, N records held by slurmctld" (N from
 * slurmctld's statistics, "its queue unknown" when it does not answer either), and when it
 * answers but slurmctld holds ACCT_QUEUE_NOTE or more records, "; accounting: N records waiting
 * for slurmdbd". Nothing without accounting or when all is well. Appended to msg. */
#define ACCT_QUEUE_NOTE 500
void acct_status_note(const struct acct_view *v, struct strbuf *msg);
void acct_view_done(struct acct_view *v);
