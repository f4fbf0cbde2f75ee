/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd charm's accounting actions (dbdops.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmdbd/dbdops.h"

#include <ctype.h>
#include <stdlib.h>
#include <time.h>

#include "charm/slurmdbd/slurmdbd.h"
#include "interfaces/slurmdbd.h"
#include "slurm/acctdb.h"
#include "util/fileio.h"

#include "util/banned.h"

bool dbd_ops_name_valid(const char *s) {
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!(islower((unsigned char) s[i]) || isdigit((unsigned char) s[i]) || s[i] == '_' ||
                            s[i] == '-'))
                        return false;
        return true;
}

bool dbd_ops_user_valid(const char *s) {
        return dbd_ops_name_valid(s) && strlen(s) <= 32 && (islower((unsigned char) s[0]) || s[0] == '_');
}

bool dbd_ops_text_valid(const char *s) {
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 100)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isprint((unsigned char) s[i]) || s[i] == '"' || s[i] == '\'')
                        return false;
        return true;
}

/* A string parameter: NULL when absent; -EINVAL (message) when present and not valid. */
static int param(struct juju_ctx *ctx, const char *key, bool (*valid)(const char *), bool required,
        const char **ret, struct strbuf *err) {
        const cJSON *v;
        int r = juju_action_param(ctx, key, &v, err);
        if (r < 0)
                return r;
        *ret = cJSON_IsString(v) ? v->valuestring : NULL;
        if (!v && !required)
                return 0;
        if (!*ret || !valid(*ret)) {
                strbuf_addf(err, "%s: %s", key,
                        !v ? "required"
                                : valid == dbd_ops_text_valid
                                ? "1 to 100 printable characters without quotes"
                                : valid == dbd_ops_user_valid
                                ? "a user name: a-z or _ first, then a-z, 0-9, _, -; at most 32"
                                : "1 to 64 of a-z, 0-9, _ and -");
                return -EINVAL;
        }
        return 0;
}

/* The client configuration and the cluster it names; the connection to slurmdbd. */
static int dbd_connect(
        const struct slurmdbd_opts *o, char **ret_cluster, void **ret_conn, struct strbuf *err) {
        _cleanup_free_ char *path = charm_path(&o->paths, SLURMDBD_CLIENT_CONF_PATH), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0) {
                strbuf_addstr(err,
                        "no client configuration yet: the controllers have not named the cluster "
                        "(integrate slurmctld and wait for it to settle)");
                return r == -ENOENT ? -ENODATA : r;
        }
        const char *c = strstr(data, "\nClusterName=");
        if (!c) {
                strbuf_addf(err, "%s: no ClusterName", path);
                return -EINVAL;
        }
        c += strlen("\nClusterName=");
        *ret_cluster = xstrndup(c, strcspn(c, "\n"));
        /* a slurmdbd must answer first: libslurm's accounting plugin, on its error path, calls
         * a function that only Slurm's private libslurmfull has (Debian 12: a symbol lookup
         * error that kills the action) */
        const char *keys[] = { "\nAccountingStorageHost=", "\nAccountingStorageBackupHost=" };
        bool up = false;
        for (int tries = 0; !up && tries < 40; tries++) {
                if (tries > 0) {
                        struct timespec d = { 0, 250 * 1000 * 1000 }; /* 10 s in all */
                        nanosleep(&d, NULL);
                }
                for (size_t i = 0; !up && i < ELEMENTSOF(keys); i++) {
                        const char *h = strstr(data, keys[i]);
                        if (h) {
                                h += strlen(keys[i]);
                                _cleanup_free_ char *addr = xstrndup(h, strcspn(h, "\n"));
                                up = charm_tcp_listening(addr, SLURMDBD_PORT, 250);
                        }
                }
        }
        if (!up) {
                strbuf_addstr(err,
                        "no slurmdbd answers (primary or backup, port 6819): try again when one serves");
                return -ECONNREFUSED;
        }
        if (setenv("SLURM_CONF", path, 1) < 0)
                return -errno;
        return acctdb_open(ret_conn, err);
}

/* One request to slurmdbd on a fresh connection (cluster: the cluster the client names). */
typedef int (*dbd_request_fn)(void *conn, const char *cluster, void *userdata, struct strbuf *err);

/* What slurmdbd logs when it answers a request while its database does not (it connects again
 * at each request: the database restarting, or the moments after the relation, when the test
 * charm's MariaDB restarts on its new address) */
static const char *const db_trouble[] = { "couldn't query the database", "re-connect to as_mysql database",
        "mysql_real_connect failed" };
#define DB_RETRIES 20 /* one a second */

static bool db_trouble_since(const char *log, off_t from) {
        for (size_t i = 0; i < ELEMENTSOF(db_trouble); i++)
                if (charm_log_has(log, from, db_trouble[i]))
                        return true;
        return false;
}

/* fn on a connection to slurmdbd. A request that fails while this unit's slurmdbd logs that its
 * database did not answer is tried again (every second, DB_RETRIES times): a failed request
 * commits nothing, and what it read meanwhile may be empty ("account root does not exist"),
 * so its own verdict is not the admin's answer either. Measured: account-add at once after
 * the relations settled failed with libslurm's "Unexpected message received" 2 times out of
 * 2, slurmdbd logging "couldn't query the database". The last failure says what slurmdbd
 * logged. *ret_cluster: the cluster (caller frees; may be NULL). */
static int dbd_request(const struct slurmdbd_opts *o, dbd_request_fn fn, void *userdata, char **ret_cluster,
        struct strbuf *err) {
        _cleanup_free_ char *log = charm_path(&o->paths, SLURMDBD_LOG_PATH);
        for (int attempt = 0;; attempt++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                _cleanup_free_ char *cluster = NULL;
                off_t from = charm_log_size(log);
                void *conn = NULL;
                int r = dbd_connect(o, &cluster, &conn, &e);
                if (r >= 0)
                        r = fn(conn, cluster, userdata, &e);
                acctdb_close(&conn);
                if (r >= 0) {
                        if (ret_cluster)
                                *ret_cluster = TAKE_PTR(cluster);
                        return r;
                }
                bool db = db_trouble_since(log, from);
                if (db && attempt < DB_RETRIES) {
                        struct timespec d = { 1, 0 };
                        nanosleep(&d, NULL);
                        continue;
                }
                strbuf_addbuf(err, &e);
                if (db) {
                        _cleanup_free_ char *line = charm_log_last_error(log, from);
                        strbuf_addf(err, " (slurmdbd could not reach its database for %d s%s%s: try again once it answers)",
                                DB_RETRIES, line ? "; its log: " : "", strempty(line));
                }
                return r;
        }
}

static int set_results(struct juju_ctx *ctx, const char *k1, const char *v1, const char *k2, const char *v2,
        struct strbuf *err) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        strv_pushl(&kv, k1, v1, k2, v2, NULL);
        return juju_action_set_many(ctx, &kv, err);
}

static int account_add(void *conn, const char *cluster, void *userdata, struct strbuf *err) {
        const char *const *a = userdata;
        return acctdb_account_add(conn, cluster, a[0], a[1], a[2], a[3], err);
}

int dbd_ops_account_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        const char *name, *parent, *desc, *org;
        int r = param(ctx, "name", dbd_ops_name_valid, true, &name, err);
        if (r >= 0)
                r = param(ctx, "parent", dbd_ops_name_valid, false, &parent, err);
        if (r >= 0)
                r = param(ctx, "description", dbd_ops_text_valid, false, &desc, err);
        if (r >= 0)
                r = param(ctx, "organization", dbd_ops_text_valid, false, &org, err);
        if (r < 0)
                return r;
        const char *const args[] = { name, parent ? parent : "root", desc, org };
        _cleanup_free_ char *cluster = NULL;
        r = dbd_request(o, account_add, (void *) args, &cluster, err);
        return r < 0 ? r : set_results(ctx, "account", name, "cluster", cluster, err);
}

static int user_add(void *conn, const char *cluster, void *userdata, struct strbuf *err) {
        const char *const *a = userdata;
        return acctdb_user_add(conn, cluster, a[0], a[1], err);
}

int dbd_ops_user_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        const char *name, *account;
        int r = param(ctx, "name", dbd_ops_user_valid, true, &name, err);
        if (r >= 0)
                r = param(ctx, "account", dbd_ops_name_valid, true, &account, err);
        if (r < 0)
                return r;
        const char *const args[] = { name, account };
        r = dbd_request(o, user_add, (void *) args, NULL, err);
        return r < 0 ? r : set_results(ctx, "user", name, "account", account, err);
}

struct qos_args {
        const char *name, *desc;
        uint32_t priority;
};
static int qos_add(void *conn, const char *cluster, void *userdata, struct strbuf *err) {
        const struct qos_args *a = userdata;
        return acctdb_qos_add(conn, a->name, a->desc, a->priority, err);
}

int dbd_ops_qos_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        const char *name, *desc;
        const cJSON *prio;
        int r = param(ctx, "name", dbd_ops_name_valid, true, &name, err);
        if (r >= 0)
                r = param(ctx, "description", dbd_ops_text_valid, false, &desc, err);
        if (r >= 0)
                r = juju_action_param(ctx, "priority", &prio, err);
        if (r < 0)
                return r;
        if (prio &&
                (!cJSON_IsNumber(prio) || prio->valuedouble < 0 || prio->valuedouble > 4294967294.0 ||
                        prio->valuedouble != (double) (uint32_t) prio->valuedouble)) {
                strbuf_addstr(err, "priority: an integer from 0 to 4294967294");
                return -EINVAL;
        }
        struct qos_args a = { name, desc, prio ? (uint32_t) prio->valuedouble : 0 };
        r = dbd_request(o, qos_add, &a, NULL, err);
        return r < 0 ? r : juju_action_set(ctx, "qos", name, err);
}

struct remove_args {
        enum acctdb_kind kind;
        const char *name;
};
static int remove_rec(void *conn, const char *cluster, void *userdata, struct strbuf *err) {
        const struct remove_args *a = userdata;
        return acctdb_remove(conn, a->kind, a->name, err);
}

static int remove_one(struct juju_ctx *ctx, const struct slurmdbd_opts *o, enum acctdb_kind kind,
        bool (*valid)(const char *), const char *keep, struct strbuf *err) {
        static const char *const key[] = { "account", "user", "qos" };
        const char *name;
        int r = param(ctx, "name", valid, true, &name, err);
        if (r < 0)
                return r;
        if (streq(name, keep)) {
                strbuf_addf(err, "name: %s is Slurm's own and stays", name);
                return -EINVAL;
        }
        struct remove_args a = { kind, name };
        r = dbd_request(o, remove_rec, &a, NULL, err);
        return r < 0 ? r : set_results(ctx, "removed", key[kind], key[kind], name, err);
}

int dbd_ops_account_remove(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        return remove_one(ctx, o, ACCTDB_ACCOUNT, dbd_ops_name_valid, "root", err);
}

int dbd_ops_user_remove(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        return remove_one(ctx, o, ACCTDB_USER, dbd_ops_user_valid, "root", err);
}

int dbd_ops_qos_remove(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        return remove_one(ctx, o, ACCTDB_QOS, dbd_ops_name_valid, "normal", err);
}

static int list_all(void *conn, const char *cluster, void *userdata, struct strbuf *err) {
        struct strv **l = userdata;
        for (size_t i = 0; i < 3; i++) /* a retried request starts empty */
                strv_clear(l[i]);
        return acctdb_list(conn, l[0], l[1], l[2], err);
}

int dbd_ops_show(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT, kv = STRV_INIT;
        _cleanup_free_ char *cluster = NULL;
        struct strv *lists[] = { &accts, &users, &qos };
        int r = dbd_request(o, list_all, lists, &cluster, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *a = strv_join(&accts, " "), *u = strv_join(&users, " "),
                            *q = strv_join(&qos, " ");
        strv_pushl(&kv, "cluster", cluster, "accounts", a, "users", u, "qos", q, NULL);
        return juju_action_set_many(ctx, &kv, err);
}
