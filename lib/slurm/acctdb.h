/* SPDX-License-Identifier: Apache-2.0 */
/* The accounting database through libslurmdb (what sacctmgr does): accounts, users with their
 * association to an account, QOS; and what is there. For the slurmdbd charm's actions.
 *
 * Design note. Every call goes to slurmdbd over one connection (acctdb_open: libslurm's
 * configuration names AccountingStorageHost, the cluster and the auth); adds are committed at
 * once. An add of something that exists is -EEXIST (nothing changed, as sacctmgr says "Nothing
 * new added"), checked with a get first; a user added to an account that does not exist is
 * -ENOENT. Names are checked by the caller (lib/charm/slurmdbd/dbdops.h).
 *
 * Ownership: lists are appended to the caller's strv. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"

int acctdb_open(void **ret_conn, struct strbuf *err);
void acctdb_close(void **conn);

/* Whether the client configuration sends accounting to a slurmdbd (AccountingStorageType
 * accounting_storage/slurmdbd with a host). */
bool acctdb_configured(void);
/* Whether slurmdbd takes a connection (its persistent-connection handshake, authenticated, the
 * backup host tried after the primary: what slurmctld and sacctmgr do first), in a child killed
 * after timeout_ms (a stopped slurmdbd accepts the TCP connection and answers nothing): 0,
 * -ETIMEDOUT, -ENOENT when no slurmdbd is configured, another negative errno with Slurm's
 * reason in err. */
int acctdb_ping_within(int timeout_ms, struct strbuf *err);
/* acctdb_ping_within() with the configuration conf (NULL: the process's own), set and read in
 * the child alone: a process that never initialised libslurm keeps it so, and each call reads
 * the file as it is then. For a long-lived process whose file changes (a service watcher):
 * libslurm reads its configuration once per process. A caller that initialised libslurm already
 * (slurm_client_init) gives its own to the child, and conf is not read. */
int acctdb_ping_conf_within(const char *conf, int timeout_ms, struct strbuf *err);

int acctdb_account_add(void *conn, const char *cluster, const char *name, const char *parent,
        const char *description, const char *organization, struct strbuf *err);
int acctdb_user_add(
        void *conn, const char *cluster, const char *name, const char *account, struct strbuf *err);
int acctdb_qos_add(
        void *conn, const char *name, const char *description, uint32_t priority, struct strbuf *err);

enum acctdb_kind { ACCTDB_ACCOUNT, ACCTDB_USER, ACCTDB_QOS };
/* Removes one account (with its associations and sub-accounts' users' associations), user or
 * QOS: -ENOENT when there is none; Slurm's refusal (jobs running on an association:
 * ESLURM_JOBS_RUNNING_ON_ASSOC) rolls back. */
int acctdb_remove(void *conn, enum acctdb_kind kind, const char *name, struct strbuf *err);

/* accounts: "name"; users: "name:default-account"; qos: "name:priority". */
int acctdb_list(void *conn, struct strv *accounts, struct strv *users, struct strv *qos, struct strbuf *err);
