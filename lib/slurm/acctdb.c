/* SPDX-License-Identifier: Apache-2.0 */
/* The accounting database through libslurmdb (acctdb.h). */
#include "util/macro.h"
#include "slurm/acctdb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#include "proc/proc.h"
#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

/* libslurm's parsed configuration (exported, not declared in its public headers) */
extern slurm_conf_t slurm_conf;

/* Debian 12's accounting_storage/slurmdbd plugin calls slurmdbd_msg_type_2_str() on its error
 * paths (a connection lost during a slurmdbd failover), a function only Slurm's private
 * libslurmfull exports, not libslurm.so: without it the process dies of a symbol lookup error.
 * The action executables export this stand-in (-Wl,--export-dynamic-symbol, actions/meson.build):
 * the message number instead of its name, in the plugin's log line. */
char *slurmdbd_msg_type_2_str(int msg_type, int get_enum);
char *slurmdbd_msg_type_2_str(int msg_type, int get_enum) {
        static char buf[32];
        snprintf(buf, sizeof buf, "slurmdbd message %d", msg_type);
        return buf;
}

int acctdb_open(void **ret_conn, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        uint16_t flags = 0;
        /* the connection comes back even when slurmdbd did not take it: errno says (sacctmgr
         * looks at it the same way; the plugin clears it on success) */
        errno = 0;
        void *c = slurmdb_connection_get(&flags);
        int e = errno;
        if (!c || e) {
                acctdb_close(&c);
                return slurm_fail(err, e ? e : slurm_rc_code(SLURM_ERROR), "connect to slurmdbd");
        }
        *ret_conn = c;
        return 0;
}

bool acctdb_configured(void) {
        if (slurm_client_init(NULL) < 0)
                return false;
        return slurm_conf.accounting_storage_type && strstr(slurm_conf.accounting_storage_type, "slurmdbd") &&
               slurm_conf.accounting_storage_host && *slurm_conf.accounting_storage_host;
}

/* In the child of proc_call_as(); userdata: the configuration to read, or NULL. */
static int ping_child(void *userdata, struct strbuf *out) {
        const char *conf = userdata;
        if (conf && setenv("SLURM_CONF", conf, 1) < 0)
                return -errno;
        if (!acctdb_configured()) {
                strbuf_addstr(out, "no slurmdbd in the configuration");
                return -ENOENT;
        }
        void *c = NULL;
        int r = acctdb_open(&c, out);
        acctdb_close(&c);
        return r;
}

int acctdb_ping_conf_within(const char *conf, int timeout_ms, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int r = proc_call_as(PROC_CALL_SAME_USER, 0, timeout_ms > 0 ? timeout_ms : 1, ping_child, (void *) conf, &out);
        if (r == -ETIME) {
                if (err)
                        strbuf_addf(err, "slurmdbd: no answer within %d ms", timeout_ms);
                return -ETIMEDOUT;
        }
        if (r < 0 && err)
                strbuf_addbuf(err, &out);
        return r;
}

int acctdb_ping_within(int timeout_ms, struct strbuf *err) {
        return acctdb_ping_conf_within(NULL, timeout_ms, err);
}

void acctdb_close(void **conn) {
        if (conn && *conn)
                slurmdb_connection_close(conn);
}

/* Appends every record's name of l (names at offset), then destroys l. */
static void take_names(slurm_list_t l, void (*add)(void *rec, struct strv *out), struct strv *out) {
        if (!l)
                return;
        slurm_list_itr_t it = slurm_list_iterator_create(l);
        void *rec;
        while ((rec = slurm_list_next(it)))
                add(rec, out);
        slurm_list_iterator_destroy(it);
        slurm_list_destroy(l);
}

static void add_account(void *rec, struct strv *out) {
        strv_push(out, ((slurmdb_account_rec_t *) rec)->name);
}
static void add_user(void *rec, struct strv *out) {
        slurmdb_user_rec_t *u = rec;
        strv_pushf(out, "%s:%s", u->name, strempty(u->default_acct));
}
static void add_qos(void *rec, struct strv *out) {
        slurmdb_qos_rec_t *q = rec;
        strv_pushf(out, "%s:%u", q->name, q->priority == NO_VAL ? 0 : q->priority);
}

int acctdb_list(
        void *conn, struct strv *accounts, struct strv *users, struct strv *qos, struct strbuf *err) {
        slurmdb_account_cond_t ac = { 0 };
        slurmdb_user_cond_t uc = { .with_assocs = 1 }; /* default_acct comes with them */
        slurmdb_qos_cond_t qc = { 0 };
        slurm_list_t a = slurmdb_accounts_get(conn, &ac);
        if (!a)
                return slurm_fail(err, slurm_rc_code(SLURM_ERROR), "list accounts");
        take_names(a, add_account, accounts);
        slurm_list_t u = slurmdb_users_get(conn, &uc);
        if (!u)
                return slurm_fail(err, slurm_rc_code(SLURM_ERROR), "list users");
        take_names(u, add_user, users);
        slurm_list_t q = slurmdb_qos_get(conn, &qc);
        if (!q)
                return slurm_fail(err, slurm_rc_code(SLURM_ERROR), "list QOS");
        take_names(q, add_qos, qos);
        return 0;
}

/* Whether name is in list (strv of "name" or "name:…"). */
static bool listed(const struct strv *l, const char *name) {
        size_t n = strlen(name);
        for (size_t i = 0; i < l->n; i++)
                if (strncmp(l->v[i], name, n) == 0 && (l->v[i][n] == '\0' || l->v[i][n] == ':'))
                        return true;
        return false;
}

static int commit_or_fail(void *conn, int rc, const char *what, struct strbuf *err) {
        if (rc != SLURM_SUCCESS) {
                (void) slurmdb_connection_commit(conn, false);
                return slurm_fail(err, slurm_rc_code(rc), "%s", what);
        }
        rc = slurmdb_connection_commit(conn, true);
        if (rc != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(rc), "%s: commit", what);
        return 0;
}

/* One record (an account or a user: add is slurmdb_accounts_add or slurmdb_users_add) and
 * its association on the cluster, added and committed together, or neither. */
static int add_with_assoc(void *conn, int (*add)(void *, slurm_list_t), void *rec,
        slurmdb_assoc_rec_t *assoc, const char *what, struct strbuf *err) {
        slurm_list_t rl = slurm_list_create(NULL), al = slurm_list_create(NULL);
        slurm_list_append(rl, rec);
        slurm_list_append(al, assoc);
        int rc = add(conn, rl);
        if (rc == SLURM_SUCCESS)
                rc = slurmdb_associations_add(conn, al);
        slurm_list_destroy(rl);
        slurm_list_destroy(al);
        return commit_or_fail(conn, rc, what, err);
}

int acctdb_account_add(void *conn, const char *cluster, const char *name, const char *parent,
        const char *description, const char *organization, struct strbuf *err) {
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT;
        int r = acctdb_list(conn, &accts, &users, &qos, err);
        if (r < 0)
                return r;
        if (listed(&accts, name)) {
                strbuf_addf(err, "account %s exists already", name);
                return -EEXIST;
        }
        if (!listed(&accts, parent)) {
                strbuf_addf(err, "parent account %s does not exist", parent);
                return -ENOENT;
        }
        slurmdb_account_rec_t acct = {
                .name = (char *) name,
                .description = (char *) (isempty(description) ? name : description),
                .organization = (char *) (isempty(organization) ? name : organization),
        };
        slurmdb_assoc_rec_t assoc;
        slurmdb_init_assoc_rec(&assoc, false);
        assoc.acct = (char *) name;
        assoc.cluster = (char *) cluster;
        assoc.parent_acct = (char *) parent;
        return add_with_assoc(conn, slurmdb_accounts_add, &acct, &assoc, "add account", err);
}

int acctdb_user_add(
        void *conn, const char *cluster, const char *name, const char *account, struct strbuf *err) {
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT;
        int r = acctdb_list(conn, &accts, &users, &qos, err);
        if (r < 0)
                return r;
        if (!listed(&accts, account)) {
                strbuf_addf(err, "account %s does not exist (account-add first)", account);
                return -ENOENT;
        }
        if (listed(&users, name)) {
                strbuf_addf(err, "user %s exists already", name);
                return -EEXIST;
        }
        slurmdb_user_rec_t user = {
                .name = (char *) name,
                .default_acct = (char *) account,
                .admin_level = SLURMDB_ADMIN_NONE,
                .uid = NO_VAL,
        };
        slurmdb_assoc_rec_t assoc;
        slurmdb_init_assoc_rec(&assoc, false);
        assoc.acct = (char *) account;
        assoc.cluster = (char *) cluster;
        assoc.user = (char *) name;
        assoc.is_def = 1; /* its default account */
        return add_with_assoc(conn, slurmdb_users_add, &user, &assoc, "add user", err);
}

int acctdb_qos_add(
        void *conn, const char *name, const char *description, uint32_t priority, struct strbuf *err) {
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT;
        int r = acctdb_list(conn, &accts, &users, &qos, err);
        if (r < 0)
                return r;
        if (listed(&qos, name)) {
                strbuf_addf(err, "QOS %s exists already", name);
                return -EEXIST;
        }
        slurmdb_qos_rec_t q;
        slurmdb_init_qos_rec(&q, false, NO_VAL);
        q.name = (char *) name;
        q.description = (char *) (isempty(description) ? name : description);
        q.priority = priority;
        slurm_list_t ql = slurm_list_create(NULL);
        slurm_list_append(ql, &q);
        int rc = slurmdb_qos_add(conn, ql);
        slurm_list_destroy(ql);
        return commit_or_fail(conn, rc, "add QOS", err);
}

int acctdb_remove(void *conn, enum acctdb_kind kind, const char *name, struct strbuf *err) {
        static const char *const what[] = { "account", "user", "QOS" };
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT;
        int r = acctdb_list(conn, &accts, &users, &qos, err);
        if (r < 0)
                return r;
        const struct strv *have = kind == ACCTDB_ACCOUNT ? &accts : kind == ACCTDB_USER ? &users : &qos;
        if (!listed(have, name)) {
                strbuf_addf(err, "%s %s does not exist", what[kind], name);
                return -ENOENT;
        }
        slurm_list_t names = slurm_list_create(NULL), removed = NULL;
        slurm_list_append(names, (void *) name);
        slurmdb_assoc_cond_t ac = { 0 };
        errno = 0;
        if (kind == ACCTDB_ACCOUNT) {
                ac.acct_list = names;
                slurmdb_account_cond_t c = { .assoc_cond = &ac };
                removed = slurmdb_accounts_remove(conn, &c);
        } else if (kind == ACCTDB_USER) {
                ac.user_list = names;
                slurmdb_user_cond_t c = { .assoc_cond = &ac };
                removed = slurmdb_users_remove(conn, &c);
        } else {
                slurmdb_qos_cond_t c = { .name_list = names };
                removed = slurmdb_qos_remove(conn, &c);
        }
        int code = removed ? SLURM_SUCCESS : slurm_rc_code(SLURM_ERROR);
        if (removed)
                slurm_list_destroy(removed);
        slurm_list_destroy(names);
        _cleanup_free_ char *msg = xasprintf("remove %s %s", what[kind], name);
        return commit_or_fail(conn, code, msg, err);
}
