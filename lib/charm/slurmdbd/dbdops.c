/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd charm's accounting actions (dbdops.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmdbd/dbdops.h"

#include <ctype.h>
#include <stdlib.h>
#include <time.h>

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

static int set_results(struct juju_ctx *ctx, const char *k1, const char *v1, const char *k2, const char *v2,
        struct strbuf *err) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        strv_pushl(&kv, k1, v1, k2, v2, NULL);
        return juju_action_set_many(ctx, &kv, err);
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
        _cleanup_free_ char *cluster = NULL;
        void *conn = NULL;
        r = dbd_connect(o, &cluster, &conn, err);
        if (r >= 0)
                r = acctdb_account_add(conn, cluster, name, parent ? parent : "root", desc, org, err);
        acctdb_close(&conn);
        return r < 0 ? r : set_results(ctx, "account", name, "cluster", cluster, err);
}

int dbd_ops_user_add(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        const char *name, *account;
        int r = param(ctx, "name", dbd_ops_user_valid, true, &name, err);
        if (r >= 0)
                r = param(ctx, "account", dbd_ops_name_valid, true, &account, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *cluster = NULL;
        void *conn = NULL;
        r = dbd_connect(o, &cluster, &conn, err);
        if (r >= 0)
                r = acctdb_user_add(conn, cluster, name, account, err);
        acctdb_close(&conn);
        return r < 0 ? r : set_results(ctx, "user", name, "account", account, err);
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
        _cleanup_free_ char *cluster = NULL;
        void *conn = NULL;
        r = dbd_connect(o, &cluster, &conn, err);
        if (r >= 0)
                r = acctdb_qos_add(conn, name, desc, prio ? (uint32_t) prio->valuedouble : 0, err);
        acctdb_close(&conn);
        return r < 0 ? r : juju_action_set(ctx, "qos", name, err);
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
        _cleanup_free_ char *cluster = NULL;
        void *conn = NULL;
        r = dbd_connect(o, &cluster, &conn, err);
        if (r >= 0)
                r = acctdb_remove(conn, kind, name, err);
        acctdb_close(&conn);
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

int dbd_ops_show(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT, kv = STRV_INIT;
        _cleanup_free_ char *cluster = NULL;
        void *conn = NULL;
        int r = dbd_connect(o, &cluster, &conn, err);
        if (r >= 0)
                r = acctdb_list(conn, &accts, &users, &qos, err);
        acctdb_close(&conn);
        if (r < 0)
                return r;
        _cleanup_free_ char *a = strv_join(&accts, " "), *u = strv_join(&users, " "),
                            *q = strv_join(&qos, " ");
        strv_pushl(&kv, "cluster", cluster, "accounts", a, "users", u, "qos", q, NULL);
        return juju_action_set_many(ctx, &kv, err);
}
