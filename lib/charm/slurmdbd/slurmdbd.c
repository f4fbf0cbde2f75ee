/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd charm (slurmdbd.h): accounting daemon, its database and the controllers. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmdbd/slurmdbd.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "charm/common/authkey.h"
#include "charm/common/keyring.h"
#include "charm/common/pause.h"
#include "charm/slurmdbd/dbdconf.h"
#include "charm/slurmdbd/dbprobe.h"
#include "charm/slurmdbd/wedgefollow.h"
#include "charm/common/watcher.h"
#include "interfaces/database.h"
#include "interfaces/slurmd.h"
#include "interfaces/slurmdbd.h"
#include "proc/proc.h"
#include "slurm/acctdb.h"
#include "slurm/nodes.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)
#define DEFAULT_UNIT_TIMEOUT_USEC (90ULL * 1000 * 1000)
#define DEFAULT_ANSWER_TIMEOUT_MS (20 * 1000)
#define DB_LOOK_TIMEOUT_S 1 /* the status's look at the database: a login (dbprobe.h) */

/* where charms before the 24.11 work kept the clients' configuration */
#define LEGACY_CLIENT_CONF_PATH CHARM_PATH_STATE_DIR "/slurm-client.conf"

static uint64_t unit_timeout(const struct slurmdbd_opts *o) {
        return o->unit_timeout_usec ? o->unit_timeout_usec : DEFAULT_UNIT_TIMEOUT_USEC;
}

int slurmdbd_install(
        struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        return charm_install_finish(ctx, &o->paths, bus, unit_timeout(o), out, err);
}

/* Everything the unit is told, read once. */
struct dbd_inputs {
        bool leader;
        char hostname[HOST_NAME_MAX + 1];
        char *addr;
        char *peer_rel;
        /* the units that published their address (this one first), and who serves */
        struct dbd_unit units[64];
        size_t n_units;
        long primary, backup, self;
        char *db_rel;
        struct db_provider_data db;
        char *db_user;
        struct strbuf db_pass; /* secret */
        struct strv ctl_rels;
        char *auth_key_id;
        struct auth_keyring keys; /* the cluster's auth keys (charm/common/keyring.h), secret */
        char *cluster;          /* NULL: not published (yet) */
        bool serving_probed;    /* this run probed the serving daemon (wedgefollow.h) */
        enum wedge_told serving_told; /* and what its status says of it */
        struct strv controllers;
};

static void dbd_inputs_done(struct dbd_inputs *in) {
        free(in->addr);
        free(in->peer_rel);
        for (size_t i = 1; i < in->n_units; i++) { /* units[0] is this unit's, borrowed */
                free((char *) in->units[i].unit);
                free((char *) in->units[i].host);
                free((char *) in->units[i].addr);
        }
        free(in->db_rel);
        db_provider_data_clear(&in->db);
        free(in->db_user);
        strbuf_release_secret(&in->db_pass);
        strv_clear(&in->ctl_rels);
        free(in->auth_key_id);
        auth_keyring_done(&in->keys);
        free(in->cluster);
        strv_clear(&in->controllers);
}

/* This unit's address and host in the peer bag; the peers' from theirs. */
static int read_units(struct juju_ctx *ctx, struct dbd_inputs *in, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_strv_ struct strv rels = STRV_INIT, peers = STRV_INIT;
        int r = juju_relation_ids(ctx, SLURMDBD_PEER_ENDPOINT, &rels, err);
        if (r < 0)
                return r;
        in->units[0] = (struct dbd_unit){ .unit = env->unit, .host = in->hostname, .addr = in->addr };
        in->n_units = 1;
        if (rels.n == 0)
                return 0;
        in->peer_rel = xstrdup(rels.v[0]);
        const cJSON *mine;
        r = juju_relation_get(ctx, in->peer_rel, env->unit, &mine, err);
        if (r >= 0)
                r = charm_bag_update(ctx, in->peer_rel, false, mine, "host", in->hostname, err);
        if (r >= 0)
                r = charm_bag_update(ctx, in->peer_rel, false, mine, "addr", in->addr, err);
        if (r >= 0)
                r = juju_relation_list(ctx, in->peer_rel, &peers, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < peers.n && in->n_units < ELEMENTSOF(in->units); i++) {
                const cJSON *bag;
                if (juju_relation_get(ctx, in->peer_rel, peers.v[i], &bag, NULL) < 0)
                        continue;
                const char *host = charm_bag_string(bag, "host"), *addr = charm_bag_string(bag, "addr");
                if (!slurmd_iface_valid_host(host) || !slurmd_iface_valid_host(addr))
                        continue; /* not yet published (or not usable): not a candidate */
                in->units[in->n_units++] = (struct dbd_unit){
                        .unit = xstrdup(peers.v[i]), .host = xstrdup(host), .addr = xstrdup(addr)
                };
        }
        return 0;
}

/* The database: asked for by the leader, its endpoint and credentials read. 0 complete,
 * 1 with *out set (wait or blocked), or a negative errno. */
static int read_database(
        struct juju_ctx *ctx, struct dbd_inputs *in, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_strv_ struct strv rels = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const char *name = NULL;
        int r = charm_config_string(ctx, "database-name", &name, err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (isempty(name))
                name = SLURMDBD_DEFAULT_DB_NAME;
        if (!db_name_valid(name)) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "database-name: \"%.64s\" is not 1 to 64 of a-z, 0-9 and _", name);
                return 1;
        }
        r = charm_relation_ids_live(ctx, SLURMDBD_DB_ENDPOINT, &rels, err);
        if (r < 0)
                return r;
        if (rels.n == 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "no database: integrate with a MySQL/MariaDB charm (endpoint %s)",
                        SLURMDBD_DB_ENDPOINT);
                return 1;
        }
        in->db_rel = xstrdup(rels.v[0]);
        if (in->leader) {
                const cJSON *mine;
                r = juju_relation_get(ctx, in->db_rel, juju_env(ctx)->app, &mine, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, in->db_rel, true, mine, "database", name, err);
                if (r >= 0)
                        r = charm_bag_update(
                                ctx, in->db_rel, true, mine, "requested-secrets", DB_REQUESTED_SECRETS, err);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *remote = NULL;
        const cJSON *bag = NULL;
        r = charm_remote_app_bag(ctx, in->db_rel, &remote, &bag, err);
        if (r < 0)
                return r;
        r = db_provider_data_decode(charm_bag_string(bag, "endpoints"), charm_bag_string(bag, "secret-user"),
                charm_bag_string(bag, "database"), name, &in->db, &e);
        if (r == -ENODATA) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the database %s from %s", name,
                        strempty(remote));
                return 1;
        }
        if (r < 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s", e.buf);
                return 1;
        }
        _cleanup_free_ char *pass = NULL;
        r = juju_secret_get_value(
                ctx, in->db.secret_id, NULL, JUJU_SECRET_REFRESH, "username", &in->db_user, &e);
        if (r >= 0)
                r = juju_secret_get_value(
                        ctx, in->db.secret_id, NULL, JUJU_SECRET_REFRESH, "password", &pass, &e);
        if (r >= 0) {
                strbuf_addstr(&in->db_pass, pass);
                explicit_bzero(pass, strlen(pass));
        }
        if (r == -ENOENT || (r >= 0 && db_credentials_check(in->db_user, in->db_pass.buf, &e) < 0)) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "database %s: %s", name,
                        e.len ? e.buf : "the credentials secret has no username or password");
                return 1;
        }
        if (r < 0) {
                /* not granted (yet), or gone: the provider's next change hook brings it */
                charm_outcome_set(
                        out, JUJU_STATUS_WAITING, "waiting for the database credentials (%s)", e.buf);
                return 1;
        }
        return 0;
}

/* The controllers' Slurm against this slurmdbd's (slurmdbd serves slurmctld: the same major
 * release or up to two before, three from 24.11 on, one AuthType); the leader publishes its own
 * first, so that the controllers say why too. 0 fine (or no controller, or nothing published
 * yet), 1 with *out set (blocked: nothing is written or published), or a negative errno. */
static int controllers_generation(struct juju_ctx *ctx, const struct slurmdbd_opts *o,
        const struct dbd_inputs *in, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_strv_ struct strv rels = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *remote = NULL;
        int r = charm_relation_ids_live(ctx, SLURMDBD_CTL_ENDPOINT, &rels, err);
        if (r >= 0 && in->leader)
                r = charm_generation_publish(ctx, &o->paths, &rels, err);
        if (r < 0 || rels.n == 0)
                return r;
        const cJSON *bag = NULL;
        r = charm_remote_app_bag(ctx, rels.v[0], &remote, &bag, err);
        if (r < 0)
                return r;
        r = charm_generation_check(
                &o->paths, charm_bag_string(bag, "slurm"), true, "slurmdbd", "slurmctld", &e);
        if (r == -EPROTO)
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "\"%s\" cannot use this slurmdbd: %s; deploy slurmdbd on the controllers' base",
                        strempty(remote), e.buf);
        else if (r == -EINVAL)
                charm_outcome_set(
                        out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s", strempty(remote), e.buf);
        else if (r < 0) {
                strbuf_addf(err, "slurm generation: %s", strerror(-r));
                return r;
        }
        return r < 0 ? 1 : 0;
}

/* The controllers' auth key. 0 read, 1 with *out set, or a negative errno. */
static int read_controllers(
        struct juju_ctx *ctx, struct dbd_inputs *in, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = charm_relation_ids_live(ctx, SLURMDBD_CTL_ENDPOINT, &in->ctl_rels, err);
        if (r < 0)
                return r;
        if (in->ctl_rels.n == 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "no controller: integrate with slurmctld");
                return 1;
        }
        const cJSON *bag = NULL;
        r = charm_remote_app_bag(ctx, in->ctl_rels.v[0], NULL, &bag, err);
        if (r < 0)
                return r;
        r = dbd_auth_key_decode(charm_bag_string(bag, "auth_key_id"), &in->auth_key_id, &e);
        if (r == -ENODATA) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the controllers' auth key");
                return 1;
        }
        if (r < 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s", e.buf);
                return 1;
        }
        /* the cluster and its controllers: for the client configuration only (the actions) */
        if (dbd_cluster_decode(charm_bag_string(bag, "cluster_name"), charm_bag_string(bag, "controllers"),
                    &in->cluster, &in->controllers, &e) == -EINVAL)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s: no client configuration", e.buf);
        strbuf_reset(&e);
        r = auth_keyring_read(ctx, in->auth_key_id, JUJU_SECRET_REFRESH, &in->keys, &e);
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "controllers' %s (nothing changed)", e.buf);
                return 1;
        }
        if (r < 0) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the auth key secret (%s)", e.buf);
                return 1;
        }
        return 0;
}

/* Leader: the serving units' "addr:port", primary first, in every controller relation. */
static int publish(struct juju_ctx *ctx, const struct dbd_inputs *in, struct strbuf *err) {
        _cleanup_cjson_ cJSON *list = cJSON_CreateArray();
        long idx[2] = { in->primary, in->backup };
        for (size_t i = 0; i < 2; i++)
                if (idx[i] >= 0) {
                        _cleanup_free_ char *hp = xasprintf("%s:%d", in->units[idx[i]].addr, SLURMDBD_PORT);
                        cJSON_AddItemToArray(list, cJSON_CreateString(hp));
                }
        _cleanup_free_ char *json = cJSON_PrintUnformatted(list);
        for (size_t i = 0; i < in->ctl_rels.n; i++) {
                const cJSON *mine;
                int r = juju_relation_get(ctx, in->ctl_rels.v[i], juju_env(ctx)->app, &mine, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, in->ctl_rels.v[i], true, mine, "dbd_hosts", json, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

char *slurmdbd_log_reason(const char *path, off_t from) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        if (read_full_file(path, &data, &len) == 0 && (off_t) len >= from) {
                const char *pick = NULL;
                for (const char *p = data + from; (p = strstr(p, "mysql_real_connect failed: ")); p++)
                        pick = p;
                if (pick)
                        return xstrndup(pick, strcspn(pick, "\n"));
        }
        return charm_log_last_error(path, from);
}

/* slurmdbd listens, or it failed or does not serve within limit ms (*out blocked with the
 * reason from its log since log_from). 0 serving, 1 with *out set. */
static int wait_serving(sd_bus *bus, const struct slurmdbd_opts *o, const char *addr, off_t log_from,
        int limit, struct charm_outcome *out) {
        int64_t t0 = slurm_now_ms();
        for (int64_t waited = 0;; waited = slurm_now_ms() - t0) {
                if (charm_tcp_listening(addr, SLURMDBD_PORT, 200))
                        return 0;
                struct unit_state st;
                bool gone = unit_get_state(bus, "slurmdbd.service", &st, NULL) >= 0 &&
                        !streq(st.active_state, "active") && !streq(st.active_state, "activating");
                _cleanup_free_ char *log = charm_path(&o->paths, SLURMDBD_LOG_PATH);
                _cleanup_free_ char *why = slurmdbd_log_reason(log, log_from);
                if (gone || (why && waited >= limit / 2) || waited >= limit) {
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED, "slurmdbd does not serve%s%s%s",
                                why ? ": " : "", why ? why : "", why ? "" : " (see " SLURMDBD_LOG_PATH ")");
                        return 1;
                }
                struct timespec d = { 0, 250 * 1000 * 1000 };
                nanosleep(&d, NULL);
        }
}

#define DBD_USER_DROPIN "10-charm-user"

/* The serving slurmdbd listens: whether it answers. A stopped one (SIGSTOP, a debugger) accepts
 * connections into its backlog and answers none while systemd sees it running, so nothing
 * restarts it and the status said "active … primary" (issue 25, F3). Asked as slurmctld asks it:
 * the persistent connection's handshake, through the clients' file (this unit's address first),
 * in a child killed after DBD_ANSWER_MS (acctdb_ping_within). Its main process in state T or t
 * (stopped), read twice DBD_STOP_AGAIN_MS apart, is said at once, with no probe (the service watcher runs this as soon as it sees the
 * stop, and again when it runs: charm/common/stopfollow.h); a timeout is said only when a second
 * try timed out too (one slow moment of a loaded machine is not silence); the second says that
 * the credential daemon of this machine (munged, sackd), which the handshake needs first, may be
 * the silent one. 1 with *out blocked; 0 otherwise (another failure is not this daemon's
 * silence). */
#define DBD_ANSWER_MS 5000
#define DBD_STOP_AGAIN_MS 300
static int dbd_silent(const struct slurmdbd_opts *o, sd_bus *bus, struct charm_outcome *out) {
        struct unit_state st;
        char state = '?', again = '?';
        if (unit_get_state(bus, "slurmdbd.service", &st, NULL) >= 0 && st.main_pid > 0 &&
                proc_pid_stat((pid_t) st.main_pid, NULL, &state) == 0 && proc_state_stopped(state)) {
                /* read twice: a tracer's stop of a moment (strace, gcore) is no stopped daemon */
                struct timespec d = { 0, DBD_STOP_AGAIN_MS * 1000000L };
                nanosleep(&d, NULL);
                (void) proc_pid_stat((pid_t) st.main_pid, NULL, &again);
        }
        if (proc_state_stopped(state) && proc_state_stopped(again)) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "slurmdbd is stopped (process %" PRIu32 " in state %c: SIGSTOP or a debugger; systemd "
                        "sees it running, so nothing restarts it): accounting records wait in slurmctld",
                        st.main_pid, again);
                return 1;
        }
        _cleanup_free_ char *conf = charm_path(&o->paths, SLURMDBD_CLIENT_CONF_PATH);
        if (acctdb_ping_conf_within(conf, DBD_ANSWER_MS, NULL) != -ETIMEDOUT ||
                acctdb_ping_conf_within(conf, DBD_ANSWER_MS, NULL) != -ETIMEDOUT)
                return 0;
        charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                "slurmdbd runs but does not answer (no handshake within %d s, twice; systemd sees it "
                "running, so nothing restarts it; or this machine's credential daemon does not answer): "
                "accounting records wait in slurmctld",
                DBD_ANSWER_MS / 1000);
        return 1;
}

static int reconcile(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct dbd_inputs *inp,
        struct charm_outcome *out, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT, e = STRBUF_INIT;
        int r;

        r = charm_packages_ensure(o->event, "slurmdbd", err);
        if (r < 0)
                return r;
        /* the admin's maintenance (a database backup, an upgrade's `slurmdbd -D` by hand):
         * nothing is started, written or published (charm/common/pause.h) */
        char *services[3];
        charm_services(&o->paths, "slurmdbd.service", services);
        r = charm_paused_gate(NULL, &o->paths, juju_env(ctx)->unit, services, out, err);
        if (r != 0)
                return r < 0 ? r : 0;
        r = juju_is_leader(ctx, &inp->leader, err);
        if (r < 0)
                return r;
        if (gethostname(inp->hostname, sizeof inp->hostname) < 0) {
                strbuf_addf(err, "gethostname: %s", strerror(errno));
                return -errno;
        }
        r = juju_private_address(ctx, &inp->addr, err);
        if (r >= 0)
                r = read_units(ctx, inp, err);
        if (r < 0)
                return r;
        dbd_pick_serving(inp->units, inp->n_units, &inp->primary, &inp->backup);
        inp->self = inp->primary == 0 ? 0 : inp->backup == 0 ? 1 : -1;

        r = controllers_generation(ctx, o, inp, out, err);
        if (r == 0)
                r = read_database(ctx, inp, out, err);
        if (r == 0)
                r = read_controllers(ctx, inp, out, err);
        if (r != 0)
                return r < 0 ? r : 0; /* waiting or blocked (*out says why): nothing is published */

        /* --- files --- */
        int key_changed = auth_keyring_install(&o->paths, &inp->keys, &e);
        if (key_changed == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "controllers' %s", e.buf);
                return 0;
        }
        if (key_changed < 0) {
                strbuf_addbuf(err, &e);
                return key_changed;
        }
        _cleanup_free_ char *tmpl_path =
                charm_template_path(&o->paths, juju_env(ctx)->charm_dir, "slurmdbd.conf");
        _cleanup_free_ char *tmpl = NULL;
        size_t tmpl_len = 0;
        r = read_full_file(tmpl_path, &tmpl, &tmpl_len);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", tmpl_path, strerror(-r));
                return r;
        }
        const struct dbd_conf_input ci = {
                .caps = charm_caps(&o->paths),
                .template_data = tmpl,
                .template_len = tmpl_len,
                .primary = inp->primary >= 0 ? &inp->units[inp->primary] : NULL,
                .backup = inp->backup >= 0 ? &inp->units[inp->backup] : NULL,
                .db_host = inp->db.host,
                .db_port = inp->db.port,
                .db_user = inp->db_user,
                .db_pass = inp->db_pass.buf,
                .db_name = inp->db.database,
        };
        r = dbd_conf_render(&ci, &conf, err);
        if (r < 0)
                return r;
        uid_t uid;
        gid_t gid;
        r = charm_lookup_user(o->paths.slurm_user, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *conf_path = charm_path(&o->paths, SLURMDBD_CONF_PATH);
        int conf_changed = write_file_atomic_if_changed(conf_path, conf.buf, conf.len, 0600, uid, gid);
        explicit_bzero(conf.buf, conf.len);
        if (conf_changed < 0) {
                strbuf_addf(err, "%s: %s", conf_path, strerror(-conf_changed));
                return conf_changed;
        }

        int client_changed = 0, token_env_changed = 0;
        if (inp->cluster) {
                _cleanup_strbuf_ struct strbuf cc = STRBUF_INIT;
                dbd_client_conf_render(charm_caps(&o->paths), inp->cluster, inp->controllers.v,
                        inp->controllers.n, &inp->units[inp->primary],
                        inp->backup >= 0 ? &inp->units[inp->backup] : NULL, &cc);
                _cleanup_free_ char *dir = charm_path(&o->paths, "/etc/slurm");
                _cleanup_free_ char *path = charm_path(&o->paths, SLURMDBD_CLIENT_CONF_PATH);
                r = mkdir_p(dir, 0755);
                if (r >= 0)
                        r = client_changed = write_file_atomic_if_changed(path, cc.buf, cc.len, 0644, 0, 0);
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", path, strerror(-r));
                        return r;
                }
                /* an upgrade from a charm that kept it in its state directory */
                _cleanup_free_ char *legacy = charm_path(&o->paths, LEGACY_CLIENT_CONF_PATH);
                if (unlink(legacy) < 0 && errno != ENOENT)
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s: %s", legacy, strerror(errno));
                if (charm_caps(&o->paths)->token_service) {
                        /* sackd (24.11) finds the cluster through SLURM_CONF: the clients' file */
                        _cleanup_free_ char *env = charm_path(&o->paths, SLURMDBD_SACKD_DEFAULTS);
                        _cleanup_free_ char *line =
                                xasprintf("# written by the slurmdbd charm\nSLURM_CONF=%s\n",
                                        SLURMDBD_CLIENT_CONF_PATH);
                        r = token_env_changed =
                                write_file_atomic_if_changed(env, line, strlen(line), 0644, 0, 0);
                        if (r < 0) {
                                strbuf_addf(err, "%s: %s", env, strerror(-r));
                                return r;
                        }
                }
        }

        /* --- daemons --- */
        r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        /* slurmdbd (restarted by systemd when it dies: its drop-in) and munge where the
         * generation has it, followed by the service watcher (charm/common/watcher.h): the status says
         * at once when one dies or restarts, not at the next update-status */
        char *watched[3];
        size_t n_watched = charm_services(&o->paths, "slurmdbd.service", watched);
        for (size_t i = 0; i < n_watched; i++) {
                r = watcher_install(&o->paths, bus, juju_env(ctx)->unit, watched[i],
                        juju_env(ctx)->charm_dir, streq_ptr(o->event, "upgrade-charm"), err);
                if (r < 0)
                        return r;
        }
        /* slurmdbd runs as SlurmUser from its start (the drop-in; Debian 12's unit started it as
         * root, which opened its log in SlurmUser's /var/log/slurm: issue 26 §1) */
        int user_changed = charm_dropin_install(&o->paths, juju_env(ctx)->charm_dir, bus, "slurmdbd.service",
                DBD_USER_DROPIN, unit_timeout(o), err);
        if (user_changed < 0)
                return user_changed;
        const char *auth = charm_caps(&o->paths)->auth_service;
        r = auth ? charm_unit_ensure(bus, auth, key_changed > 0, unit_timeout(o), err) : 0;
        if (r < 0)
                return r;
        /* the clients' tokens on every unit (sacctmgr, the actions): a backup or standby
         * slurmdbd hands out none */
        const char *tokens = charm_caps(&o->paths)->token_service;
        if (tokens && inp->cluster) {
                r = charm_unit_ensure(bus, tokens,
                        key_changed > 0 || client_changed > 0 || token_env_changed > 0, unit_timeout(o),
                        err);
                if (r < 0)
                        return r;
        }
        /* this unit runs with these keys once the daemons below took them (slurmdbd reads them
         * at its start only: restarted for them); a failure there fails the hook and its
         * confirmation with it (charm/slurmctld/keyrotate.h) */
        r = charm_keys_confirm(ctx, inp->ctl_rels.v[0], &inp->keys, err);
        if (r < 0)
                return r;
        if (inp->self < 0) {
                /* stopped and disabled: enabled, it would start at boot, exit ("This host not
                 * configured to run SlurmDBD") and end "failed" after the drop-in's restarts */
                r = unit_stop(bus, "slurmdbd.service", unit_timeout(o), err);
                if (r >= 0)
                        r = unit_disable(bus, "slurmdbd.service", unit_timeout(o), err);
                if (r < 0)
                        return r;
                charm_outcome_set(out, JUJU_STATUS_ACTIVE, "standby: slurmdbd serves on %s%s%s",
                        inp->units[inp->primary].unit, inp->backup >= 0 ? " and " : "",
                        inp->backup >= 0 ? inp->units[inp->backup].unit : "");
        } else {
                _cleanup_free_ char *log = charm_path(&o->paths, SLURMDBD_LOG_PATH);
                off_t log_from = charm_log_size(log);
                r = charm_unit_ensure(bus, "slurmdbd.service",
                        conf_changed > 0 || user_changed > 0 || (!auth && key_changed > 0), unit_timeout(o), err);
                if (r < 0)
                        return r;
                /* after a (re)start: until it serves, bounded; else one look (a slurmdbd that
                 * lost its database keeps running, retrying, and does not listen). A start of
                 * systemd's own a moment ago (a crash restarted: the service watcher's
                 * reconcile) is a start too, whose log before now holds only its start-up lines
                 * (stock MariaDB: "error: Database settings not recommended values", which
                 * made a serving slurmdbd "blocked" in the review) */
                int answer = o->answer_timeout_ms ? o->answer_timeout_ms : DEFAULT_ANSWER_TIMEOUT_MS;
                int limit = r > 0 ? answer : 1000;
                struct unit_state now_st;
                struct timespec mono;
                clock_gettime(CLOCK_MONOTONIC, &mono);
                uint64_t mono_usec = (uint64_t) mono.tv_sec * 1000000ULL + (uint64_t) mono.tv_nsec / 1000;
                if (r == 0 && unit_get_state(bus, "slurmdbd.service", &now_st, NULL) >= 0 &&
                        now_st.active_enter_usec > 0 &&
                        mono_usec - now_st.active_enter_usec < (uint64_t) answer * 1000)
                        limit = answer;
                else if (r == 0)
                        log_from = 0;
                if (inp->self == 0 && wait_serving(bus, o, inp->addr, log_from, limit, out) > 0)
                        return 0;
                /* its database, looked at now: a slurmdbd that serves keeps serving while the
                 * database is gone (it connects again at each request and fails those that
                 * need it), so its own state says nothing of it. A login as slurmdbd makes it,
                 * not a connect: a stalled MariaDB (SIGSTOP) still accepts connects, and a
                 * connect that is closed unanswered counts toward the server blocking the
                 * host (dbprobe.h) */
                _cleanup_strbuf_ struct strbuf dbe = STRBUF_INIT;
                const struct dbprobe_target t = { .host = inp->db.host, .port = inp->db.port,
                        .user = inp->db_user, .password = inp->db_pass.buf, .database = inp->db.database };
                int k = dbprobe_login(&t, DB_LOOK_TIMEOUT_S, &dbe);
                /* its database answers: then a silent slurmdbd is its own (one whose database
                 * stalls waits on it at the handshake too, and that is said as the database's) */
                /* the service watcher follows its answers between hooks where this probe runs
                 * (wedgefollow.h) */
                inp->serving_probed = inp->self == 0 && inp->cluster;
                /* a database that does not answer fails or holds slurmdbd's handshake too: the
                 * status names the database, and only a handshake that succeeds is news then */
                inp->serving_told = k != 0 && k != -EACCES ? WEDGE_TOLD_DB : WEDGE_TOLD_ANSWERS;
                if (k == 0 && inp->self == 0 && inp->cluster && dbd_silent(o, bus, out) > 0) {
                        inp->serving_told = WEDGE_TOLD_SILENT;
                        return inp->leader ? publish(ctx, inp, err) : 0;
                }
                charm_outcome_set(out, JUJU_STATUS_ACTIVE, "slurmdbd %s: database %s on %s:%u%s%s%s",
                        inp->self == 0 ? "primary" : "backup", inp->db.database, inp->db.host, inp->db.port,
                        k == 0            ? ""
                                : k == -EACCES ? " refuses slurmdbd's login: "
                                               : " not answering (accounting requests fail until it does)",
                        k == -EACCES ? dbe.buf : "", k == -EACCES ? " (accounting requests fail until it takes it)" : "");
        }
        return inp->leader ? publish(ctx, inp, err) : 0;
}

int slurmdbd_reconcile(
        struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        struct dbd_inputs in = { .db_pass = STRBUF_INIT,
                .ctl_rels = STRV_INIT,
                .keys = AUTH_KEYRING_INIT,
                .controllers = STRV_INIT };
        int r = reconcile(ctx, o, &in, out, err);
        /* kept only by a run that reached the probe: a paused or refused unit follows nothing */
        int k = wedgefollow_serving(o->paths.root, in.serving_probed ? in.serving_told : WEDGE_TOLD_NONE);
        if (r >= 0 && k < 0) {
                strbuf_addf(err, "%s: %s", WEDGEFOLLOW_SERVING_FILE, strerror(-k));
                r = k;
        }
        dbd_inputs_done(&in);
        return r;
}

int slurmdbd_leave(
        struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r = unit_bus_open(&bus, err);
        /* the watchers first: a daemon stopped here is not news for a handler to act on */
        char *watched[3];
        size_t n_watched = r < 0 ? 0 : charm_services(&o->paths, "slurmdbd.service", watched);
        for (size_t i = 0; r >= 0 && i < n_watched; i++)
                r = watcher_remove(&o->paths, bus, watched[i], err);
        /* slurmdbd, and the token service where the generation has one (NULL ends the list) */
        const char *services[] = { "slurmdbd.service", charm_caps(&o->paths)->token_service, NULL };
        for (size_t i = 0; r >= 0 && services[i]; i++)
                r = charm_unit_retire(bus, services[i], unit_timeout(o), err);
        if (r < 0)
                return r;
        /* the files this charm wrote (the clients' configuration where an earlier version kept it too) */
        static const char *const files[] = { SLURMDBD_CONF_PATH, SLURMDBD_CLIENT_CONF_PATH,
                SLURMDBD_SACKD_DEFAULTS, LEGACY_CLIENT_CONF_PATH };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *path = charm_path(&o->paths, files[i]);
                if (unlink(path) < 0 && errno != ENOENT) {
                        strbuf_addf(err, "%s: %s", path, strerror(errno));
                        return -errno;
                }
        }
        charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "slurmdbd stopped");
        return 0;
}

static int reconcile_paths(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
        struct strbuf *err) {
        const struct slurmdbd_opts o = { .paths = *paths, .event = "update-status" };
        return slurmdbd_reconcile(ctx, &o, out, err);
}

int slurmdbd_pause(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        char *services[3];
        charm_services(&o->paths, "slurmdbd.service", services);
        return charm_action_pause_unit(ctx, &o->paths, services, err);
}

int slurmdbd_resume(struct juju_ctx *ctx, const struct slurmdbd_opts *o, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL;
        return charm_action_resume(ctx, &o->paths, reconcile_paths, &reason, err);
}
