/* SPDX-License-Identifier: Apache-2.0 */
/* slurmdbd.conf from the template and the slurmdbd charm's inputs (pure), and the choice of the
 * units that serve: the primary and the backup slurmdbd.
 *
 * Design note. Slurm takes one primary and one backup slurmdbd (DbdHost, DbdBackupHost; the
 * controllers' AccountingStorageHost and AccountingStorageBackupHost). Every unit renders the
 * same file: each slurmdbd decides its role by comparing its own host name with DbdHost and
 * DbdBackupHost (22.05's slurmdbd refuses to run on any other host), so a third unit stands by
 * with slurmdbd stopped. The serving units are the two with the lowest unit numbers, as Juju
 * numbers them: stable while they live; when one goes the next takes its place and the
 * controllers get the new list.
 *
 * StoragePass is written here and nowhere else: not in argv, not in a databag, not in a log
 * or a message (db_credentials_check() refuses a password the file's syntax cannot hold).
 *
 * Ownership: the caller owns every string of the input. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "slurm/caps.h"
#include "util/strbuf.h"

struct dbd_unit {
        const char *unit; /* "slurmdbd/3" */
        const char *host; /* its host name (DbdHost) */
        const char *addr; /* its address (DbdAddr, AccountingStorageHost) */
};

struct dbd_conf_input {
        const struct slurm_caps *caps; /* NULL: built */
        const char *template_data;
        size_t template_len;
        const struct dbd_unit *primary;
        const struct dbd_unit *backup; /* NULL: none */
        const char *db_host;
        unsigned db_port;
        const char *db_user;
        const char *db_pass;
        const char *db_name;
};

/* The template's lines (without the charm's keys) then the charm's. -EINVAL with a message on
 * a missing input. */
int dbd_conf_render(const struct dbd_conf_input *in, struct strbuf *out, struct strbuf *err);

/* The client configuration of a slurmdbd unit (for libslurmdb: the admin actions, sacctmgr
 * with SLURM_CONF): ClusterName, SlurmctldHost per controller ("host:port", the host taken),
 * AuthType, AccountingStorage* to the serving units. */
void dbd_client_conf_render(const struct slurm_caps *caps, const char *cluster, char *const *controllers,
        size_t n_controllers, const struct dbd_unit *primary, const struct dbd_unit *backup,
        struct strbuf *out);

/* The serving units among units (n of them): the lowest two unit numbers. *ret_primary and
 * *ret_backup index units (-1: none). */
void dbd_pick_serving(const struct dbd_unit *units, size_t n, long *ret_primary, long *ret_backup);
