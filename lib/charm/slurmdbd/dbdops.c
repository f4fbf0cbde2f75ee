/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd charm's accounting actions (dbdops.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmdbd/dbdops.h"

#include <ctype.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "charm/slurmdbd/slurmdbd.h"
#include "charm/slurmdbd/dbprobe.h"
#include "interfaces/slurmdbd.h"
#include "proc/proc.h"
#include "slurm/client.h"
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

/* One request to slurmdbd on a fresh connection (cluster: the cluster the client names). What it
 * read goes into payload as text (it runs in a child: dbd_request). */
typedef int (*dbd_request_fn)(
        void *conn, const char *cluster, void *userdata, struct strbuf *payload, struct strbuf *err);

/* What slurmdbd logs when it answers a request while its database does not (it connects again
 * at each request: the database restarting, or the moments after the relation, when the test
 * charm's MariaDB restarts on its new address) */
static const char *const db_trouble[] = { "couldn't query the database", "re-connect to as_mysql database",
        "mysql_real_connect failed" };
#define DB_RETRIES 20 /* one a second */
/* One try, connect included (dbd_connect waits up to 10 s for a slurmdbd to listen). A request
 * takes well under a second; one that waits on a stalled database (MariaDB stopped with SIGSTOP:
 * slurmdbd waits on it without a word, and libslurmdb on slurmdbd) would hold the action for as
 * long as the stall, measured past 200 s. And the whole action, retries included: actions on
 * one machine run one after another, so each queued one would wait its own tries. */
#define ATTEMPT_TIMEOUT_MS (25 * 1000)
#define REQUEST_BUDGET_MS (45 * 1000)
#define DB_LOOK_TIMEOUT_S 2

/* Whether the database answers slurmdbd's login now (slurmdbd.conf's credentials: dbprobe.h):
 * 0 yes, else dbprobe_login()'s error with the server's words in why. A unit without the file
 * (not configured yet): -ENOENT. */
static int db_look(const struct slurmdbd_opts *o, struct strbuf *why) {
        _cleanup_free_ char *path = charm_path(&o->paths, SLURMDBD_CONF_PATH), *conf = NULL;
        struct dbprobe_target t;
        if (read_full_file(path, &conf, NULL) < 0 || dbprobe_target_parse(conf, &t) < 0)
                return -ENOENT;
        return dbprobe_login(&t, DB_LOOK_TIMEOUT_S, why);
}

static bool db_trouble_since(const char *log, off_t from) {
        for (size_t i = 0; i < ELEMENTSOF(db_trouble); i++)
                if (charm_log_has(log, from, db_trouble[i]))
                        return true;
        return false;
}

struct attempt {
        const struct slurmdbd_opts *o;
        dbd_request_fn fn;
        void *userdata;
        int errfd; /* libslurm's stderr in the child: kept apart from the action's output */
};

/* In the child (proc_call_as): connect, fn. out: on success the cluster, a newline, fn's
 * payload; on failure the error text. */
static int attempt_child(void *userdata, struct strbuf *out) {
        struct attempt *a = userdata;
        if (a->errfd >= 0)
                (void) dup2(a->errfd, STDERR_FILENO);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, payload = STRBUF_INIT;
        _cleanup_free_ char *cluster = NULL;
        void *conn = NULL;
        int r = dbd_connect(a->o, &cluster, &conn, &e);
        if (r >= 0)
                r = a->fn(conn, cluster, a->userdata, &payload, &e);
        acctdb_close(&conn);
        if (r < 0) {
                strbuf_addbuf(out, &e);
                return r;
        }
        strbuf_addf(out, "%s\n", cluster);
        strbuf_addbuf(out, &payload);
        return r;
}

/* The last line libslurm wrote on the child's stderr (the memfd fd), or NULL. */
static char *last_stderr_line(int fd) {
        struct stat st;
        char buf[4096];
        if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0)
                return NULL;
        off_t at = st.st_size > (off_t) sizeof buf - 1 ? st.st_size - (off_t) sizeof buf + 1 : 0;
        ssize_t n = pread(fd, buf, sizeof buf - 1, at);
        if (n <= 0)
                return NULL;
        buf[n] = '\0';
        while (n > 0 && isspace((unsigned char) buf[n - 1]))
                buf[--n] = '\0';
        if (n == 0)
                return NULL;
        const char *nl = strrchr(buf, '\n');
        return xstrdup(nl ? nl + 1 : buf);
}

/* fn on a connection to slurmdbd, each try in a child bounded by ATTEMPT_TIMEOUT_MS and the
 * whole request by REQUEST_BUDGET_MS, the child's stderr (libslurm's error lines, about five a
 * try) kept back: the last of them is quoted when the action fails without a word of its own.
 * A request that fails while the database does not answer is tried again (every second, for
 * DB_RETRIES tries): this unit's slurmdbd logs it, or, where the request went to another unit's
 * slurmdbd (this one in standby), the database refuses a login from here too (found: on the
 * backup unit an account-add failed at once, "Connection refused", while the primary's
 * slurmdbd logged the database's restart). A failed request commits nothing, and what it read
 * meanwhile may be empty ("account root does not exist"), so its own verdict is not the admin's
 * answer either. Measured: account-add at once after the relations settled failed with
 * libslurm's "Unexpected message received" 2 times out of 2, slurmdbd logging "couldn't query
 * the database". The last failure says why, in the database's own words where it gave some. A
 * try that runs out of time is not tried again: slurmdbd may hold it and commit it once its
 * database answers (writes: the message says so); the message says whether the database
 * answers meanwhile (else slurmdbd itself is stuck).
 * *ret_cluster: the cluster (caller frees; may be NULL); *ret_payload: fn's payload (may be
 * NULL). */
static int dbd_request(const struct slurmdbd_opts *o, dbd_request_fn fn, void *userdata, bool writes,
        char **ret_cluster, struct strbuf *ret_payload, struct strbuf *err) {
        _cleanup_free_ char *log = charm_path(&o->paths, SLURMDBD_LOG_PATH);
        int64_t t0 = slurm_now_ms();
        for (int attempt = 0;; attempt++) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
                _cleanup_close_ int errfd = memfd_create("dbd-stderr", MFD_CLOEXEC);
                off_t from = charm_log_size(log);
                int64_t left = REQUEST_BUDGET_MS - (slurm_now_ms() - t0);
                int bound = left < ATTEMPT_TIMEOUT_MS ? (int) (left > 1000 ? left : 1000) : ATTEMPT_TIMEOUT_MS;
                struct attempt a = { o, fn, userdata, errfd };
                int r = proc_call_as(0, 0, bound, attempt_child, &a, &out);
                if (r >= 0) {
                        const char *nl = strchr(out.buf, '\n');
                        if (!nl) {
                                strbuf_addstr(err, "the request's answer was cut short");
                                return -EPROTO;
                        }
                        if (ret_cluster)
                                *ret_cluster = xstrndup(out.buf, (size_t) (nl - out.buf));
                        if (ret_payload)
                                strbuf_addstr(ret_payload, nl + 1);
                        return r;
                }
                if (r == -ETIME) {
                        int k = db_look(o, &why);
                        strbuf_addf(err, "slurmdbd did not answer within %.1f s", bound / 1000.0);
                        if (k == 0)
                                strbuf_addstr(err, ", while its database does: slurmdbd itself is stuck "
                                                   "(see " SLURMDBD_LOG_PATH ")");
                        else if (k == -ETIMEDOUT || k == -ENOENT)
                                strbuf_addf(err, ": its database does not answer either (no greeting within "
                                                 "%d s: stalled?)", DB_LOOK_TIMEOUT_S);
                        else
                                strbuf_addf(err, ": its database does not answer either (%s)", why.buf);
                        if (writes)
                                strbuf_addstr(err, "; the request may still take effect once it answers "
                                                   "(see accounting-show)");
                        return r;
                }
                bool db = db_trouble_since(log, from);
                if (!db) {
                        int k = db_look(o, &why);
                        db = k < 0 && k != -ENOENT;
                }
                if (db && attempt < DB_RETRIES && slurm_now_ms() - t0 + 1000 < REQUEST_BUDGET_MS) {
                        struct timespec d = { 1, 0 };
                        nanosleep(&d, NULL);
                        continue;
                }
                if (out.len > 0)
                        strbuf_addbuf(err, &out);
                else {
                        _cleanup_free_ char *said = last_stderr_line(errfd);
                        strbuf_addf(err, "the request failed (%s)%s%s", strerror(-r),
                                said ? "; libslurm: " : "", strempty(said));
                }
                if (db) {
                        _cleanup_free_ char *line = slurmdbd_log_reason(log, from);
                        strbuf_addf(err, " (its database did not answer for %.0f s%s%s%s%s: try again once it answers)",
                                (slurm_now_ms() - t0) / 1000.0, why.len ? "; the database: " : "", why.buf,
                                line ? "; slurmdbd's log: " : "", strempty(line));
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

static int account_add(void *conn, const char *cluster, void *userdata, struct strbuf *payload, struct strbuf *err) {
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
        r = dbd_request(o, account_add, (void *) args, true, &cluster, NULL, err);
        return r < 0 ? r : set_results(ctx, "account", name, "cluster", cluster, err);
}

static int user_add(void *conn, const char *cluster, void *userdata, struct strbuf *payload, struct strbuf *err) {
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
        r = dbd_request(o, user_add, (void *) args, true, NULL, NULL, err);
        return r < 0 ? r : set_results(ctx, "user", name, "account", account, err);
}

struct qos_args {
        const char *name, *desc;
        uint32_t priority;
};
static int qos_add(void *conn, const char *cluster, void *userdata, struct strbuf *payload, struct strbuf *err) {
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
        r = dbd_request(o, qos_add, &a, true, NULL, NULL, err);
        return r < 0 ? r : juju_action_set(ctx, "qos", name, err);
}

struct remove_args {
        enum acctdb_kind kind;
        const char *name;
};
static int remove_rec(void *conn, const char *cluster, void *userdata, struct strbuf *payload, struct strbuf *err) {
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
        r = dbd_request(o, remove_rec, &a, true, NULL, NULL, err);
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

/* payload: accounts, users and QOS, a line each, names apart by spaces (Slurm's names hold none) */
static int list_all(void *conn, const char *cluster, void *userdata, struct strbuf *payload, struct strbuf *err) {
        _cleanup_strv_ struct strv accts = STRV_INIT, users = STRV_INIT, qos = STRV_INIT;
        int r = acctdb_list(conn, &accts, &users, &qos, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *a = strv_join(&accts, " "), *u = strv_join(&users, " "), *q = strv_join(&qos, " ");
        strbuf_addf(payload, "%s\n%s\n%s\n", a, u, q);
        return r;
}

int dbd_ops_show(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf payload = STRBUF_INIT;
        _cleanup_free_ char *cluster = NULL;
        int r = dbd_request(o, list_all, NULL, false, &cluster, &payload, err);
        if (r < 0)
                return r;
        /* three lines: accounts, users, QOS */
        char *lines[3] = { NULL, NULL, NULL };
        char *p = payload.buf;
        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                char *nl = strchr(p, '\n');
                if (!nl) {
                        strbuf_addstr(err, "the list's answer was cut short");
                        return -EPROTO;
                }
                *nl = '\0';
                lines[i] = p;
                p = nl + 1;
        }
        strv_pushl(&kv, "cluster", cluster, "accounts", lines[0], "users", lines[1], "qos", lines[2], NULL);
        return juju_action_set_many(ctx, &kv, err);
}
