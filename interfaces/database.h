/* SPDX-License-Identifier: Apache-2.0 */
/* The `mysql_client` interface, requirer side: how a charm gets a MySQL/MariaDB database from
 * the database charms (Canonical's mysql, mysql-router, … speak it through data-platform-libs'
 * data_interfaces; the project's tests/charms/mariadb speaks the same shape).
 *
 * requirer (us) → its app bag:
 *   database           the database name to create
 *   requested-secrets  JSON list of the secret fields wanted: ["username","password"]
 * provider → its app bag:
 *   endpoints    "host:port" (a comma-separated list; the first is used)
 *   secret-user  a Juju secret id (granted to the relation) whose content holds username and
 *                password (the credentials never appear in a databag)
 *   database     the name it created (must be the one asked for)
 *
 * The decoder trusts nothing: return 0 complete and valid, -ENODATA not (yet) published (wait),
 * -EINVAL published but bad (one message in err, ret untouched).
 *
 * Ownership: struct db_provider_data owns its strings; db_provider_data_clear() frees them. */
#pragma once

#include "util/strbuf.h"

/* The fields the requirer asks for, as data_interfaces writes them. */
#define DB_REQUESTED_SECRETS "[\"username\",\"password\"]"

struct db_provider_data {
        char *host; /* of the first endpoint */
        unsigned port;
        char *secret_id; /* secret-user */
        char *database;
};

/* Whether name is a database name the charm asks for: 1 to 64 of [a-z0-9_] (MySQL allows more;
 * this keeps it safe in a config file and in SQL without quoting). */
bool db_name_valid(const char *name);
int db_provider_data_decode(const char *endpoints, const char *secret_user, const char *database,
        const char *want_database, struct db_provider_data *ret, struct strbuf *err);
void db_provider_data_clear(struct db_provider_data *d);

/* The credentials of the secret: username 1 to 80 of [A-Za-z0-9_.-], password 8 to 256 printable
 * ASCII characters without space, '#', '"', '\'' or '\\' (what a slurmdbd.conf value can hold).
 * -EINVAL with a message that never quotes the password. */
int db_credentials_check(const char *username, const char *password, struct strbuf *err);
