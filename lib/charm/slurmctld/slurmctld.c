/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmctld charm: inputs read once, validated, then the auth key and slurm.conf written
 * only when they differ, munge (22.05) and slurmctld driven over sd-bus, relation data published. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/slurmctld.h"
#include "charm/slurmctld/trigops.h"
#include "charm/common/strand.h"
#include "charm/slurmctld/accounting.h"
#include "charm/slurmctld/login.h"
#include "charm/slurmctld/sentinel.h"
#include "charm/slurmctld/standby.h"
#include "charm/common/confpush.h"
#include "proc/proc.h"
#include "charm/common/authkey.h"
#include "charm/common/keyring.h"
#include "charm/slurmctld/keyrotate.h"
#include "util/base64.h"
#include "charm/slurmctld/cgroupconf.h"
#include "charm/slurmctld/mpiconf.h"
#include "charm/slurmctld/ctlapply.h"
#include "charm/slurmctld/ctlhang.h"
#include "charm/slurmctld/ctlconf.h"
#include "charm/slurmctld/memdef.h"
#include "charm/slurmctld/enforce.h"
#include "charm/slurmctld/ctlguard.h"
#include "charm/slurmctld/ctlrefshare.h"
#include "charm/slurmctld/fence.h"
#include "charm/common/gres.h"
#include "charm/slurmctld/ha.h"
#include "charm/slurmctld/nodeevents.h"
#include "charm/slurmctld/unitacts.h"
#include "charm/slurmctld/evpush.h"
#include "charm/slurmctld/metricsep.h"
#include "charm/common/nodeprogs.h"
#include "charm/common/pause.h"
#include "charm/common/watcher.h"
#include "slurmconf/conf.h"
#include "slurmconf/pathkeys.h"
#include "interfaces/slurmd.h"
#include "slurm/caps.h"
#include "slurm/client.h"
#include "slurm/confcheck.h"
#include "slurm/jobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/nodetable.h"
#include "slurm/partitions.h"
#include "systemd/unit.h"
#include "util/fileio.h"
#include "util/pathres.h"

#include <ctype.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "util/banned.h"

#define DEFAULT_UNIT_TIMEOUT_USEC (90 * 1000 * 1000ULL)
#define DEFAULT_ANSWER_TIMEOUT_MS (20 * 1000)
/* after the file is applied: this unit's slurmctld still there? (ctl_wait_answer) */
#define SELF_ANSWER_MS 2000
/* controller_leave: each controller's ping at most this long (slurm_ctl_ping_bounded) */
#define LEAVE_PING_MS 5000
/* a takeover asked for by a hook or an action: at most this long (slurm_ctl_takeover_bounded;
 * 22.05's takes ~2 s) */
#define TAKEOVER_MS 10000
#define DEFAULT_SLURMCTLD_TIMEOUT_S 120

/* Everything the controller is told, read once. */
struct ctl_inputs {
        const char *cfg_cluster_name, *cfg_default_partition, *cfg_params, *cfg_state_dir;
        int64_t cfg_timeout; /* slurmctld-timeout, s */
        char *state_dir;     /* StateSaveLocation as this unit sees it (under paths->root) */
        struct ha_view ha;   /* the controllers (charm/slurmctld/ha.h) */
        bool leader;
        char *peer_rel;         /* NULL: no peer relation yet */
        const cJSON *peer_app;  /* peer app bag */
        const cJSON *peer_self; /* this unit's peer bag */
        char hostname[HOST_NAME_MAX + 1];
        const char *address;       /* this unit's ingress address */
        const char *cluster_name;  /* decided */
        char *auth_key_id;         /* decided */
        struct strbuf auth_key;    /* base64, secret: a key made in this hook */
        struct auth_keyring keys;  /* the keys this unit runs with (charm/common/keyring.h) */
        struct strbuf key_note;    /* the rotation's state, for the leader's status */
        struct strv controllers;   /* "host(addr)", primary first */
        struct strv slurmd_rels;   /* relation ids on the slurmd endpoint */
        struct strv slurmd_apps;   /* remote app of each (same index) */
        struct strv login_rels;    /* relation ids on the login-node endpoint (login.h) */
        struct compute_data *data; /* what each published (same index), valid where data_ok */
        bool *data_ok;
        size_t n_ok;          /* applications whose data is complete and valid */
        size_t n_waiting;     /* related apps that have not published yet */
        struct strv refused;  /* "relation with "X": why", one per application refused */
        struct strv ignored;  /* applications left out on purpose (a note in the status) */
        char *generated_name; /* owned storage for a generated cluster name */
        cJSON *gres;          /* the GPU record (charm/common/gres.h); NULL until loaded */
        bool gres_served;     /* slurmctld runs with the gres.conf rendered from it */
        char *node_progs;     /* node-programs to publish (charm/common/nodeprogs.h); NULL: none */
        char *node_progs_released; /* the set released, for the peer app bag; NULL: none */
};

#define CTL_INPUTS_INIT \
        { \
                .auth_key = STRBUF_INIT, .keys = AUTH_KEYRING_INIT, .key_note = STRBUF_INIT, \
                .controllers = STRV_INIT, .slurmd_rels = STRV_INIT, .slurmd_apps = STRV_INIT, \
                .refused = STRV_INIT, .ignored = STRV_INIT, .ha = HA_VIEW_INIT, \
        }

static void ctl_inputs_done(struct ctl_inputs *in) {
        free(in->peer_rel);
        free(in->auth_key_id);
        strbuf_release_secret(&in->auth_key);
        auth_keyring_done(&in->keys);
        strbuf_release(&in->key_note);
        strv_clear(&in->controllers);
        strv_clear(&in->login_rels);
        free(in->state_dir);
        ha_view_done(&in->ha);
        /* (each application's data first: the count is slurmd_apps', cleared below) */
        for (size_t i = 0; in->data && i < in->slurmd_apps.n; i++)
                compute_data_clear(&in->data[i]);
        strv_clear(&in->slurmd_rels);
        strv_clear(&in->slurmd_apps);
        free(in->data);
        free(in->data_ok);
        strv_clear(&in->refused);
        strv_clear(&in->ignored);
        free(in->generated_name);
        cJSON_Delete(in->gres);
        free(in->node_progs);
        free(in->node_progs_released);
}

void slurmctld_status_message(size_t n_nodes, size_t n_partitions, struct strbuf *out) {
        if (n_partitions == 0) {
                strbuf_addf(out, "%zu node%s, no partition: relate a slurmd application", n_nodes,
                        n_nodes == 1 ? "" : "s");
                return;
        }
        strbuf_addf(out, "%zu node%s in %zu partition%s", n_nodes, n_nodes == 1 ? "" : "s", n_partitions,
                n_partitions == 1 ? "" : "s");
}

static uint64_t unit_timeout(const struct slurmctld_opts *o) {
        return o->unit_timeout_usec ? o->unit_timeout_usec : DEFAULT_UNIT_TIMEOUT_USEC;
}

/* The node table for a hook's status, its wait on a standby bounded (issue 26, G9b F1): while
 * the primary restarts (a file it tries, a rollback), a backup's own standby slurmctld answers
 * ESLURM_IN_STANDBY_MODE and libslurm sleeps SlurmctldTimeout/2 before it asks again, for up to
 * 1.5 × SlurmctldTimeout: the backup's config-changed for a value the primary refused took 60.8 s
 * (charm-refshare, SlurmctldTimeout=120; gdb: slurm_load_node -> sleep). Here each call waits on
 * standby answers for at most STATUS_STANDBY_CAP_S × 1.5 (sleeping half of it between asks), and
 * calls are made again for up to STATUS_STANDBY_WAIT_MS while the answer is a standby's (a
 * restart takes seconds); then the status says the controller does not answer, and a later run
 * (the watcher's, update-status) says more. The RPCs that change things keep libslurm's long
 * wait: through a takeover it is what lets them succeed. */
#define STATUS_STANDBY_CAP_S 4
#define STATUS_STANDBY_WAIT_MS (20 * 1000)
static int node_list_bounded(struct slurm_node_list *l, bool again, struct strbuf *err) {
        uint16_t was = 0;
        int r = slurm_client_cap_standby_wait(STATUS_STANDBY_CAP_S, &was, err);
        if (r < 0)
                return r;
        int64_t until = slurm_now_ms() + STATUS_STANDBY_WAIT_MS;
        for (;;) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = slurm_node_list(NULL, l, &e);
                if (r != -EHOSTDOWN || !again || slurm_now_ms() >= until) {
                        if (r < 0)
                                strbuf_addbuf(err, &e);
                        break;
                }
                struct timespec d = { 1, 0 };
                nanosleep(&d, NULL);
        }
        slurm_client_standby_wait_restore(was);
        return r;
}

/* The status line from slurmctld's node table. leaving: the nodes this unit knows are leaving
 * (the departing unit of this hook, and those of the open "leaving" expectations,
 * charm/slurmctld/expect.h; may be NULL): the ones still in the table are not counted while
 * they drain and are named ("; cpu-1 leaving", "; 6 leaving: cpu-1, …"). Under Juju several
 * leave at once, and a status refresh between a departure's hooks knows them only from the
 * expectations (issue 28). 0 and the outcome set (the node names in *names, and those of
 * leaving in the table in *ret_leaving, when given), or a negative errno. */
static int ctl_status_from_slurm(struct charm_outcome *out, const struct strv *leaving, struct strv *names,
        struct strv *ret_leaving, struct strbuf *err) {
        struct slurm_node_list l = { 0 };
        _cleanup_strv_ struct strv there = STRV_INIT;
        int r = node_list_bounded(&l, true, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l.n; i++) {
                if (leaving && strv_contains(leaving, l.v[i].name) && !strv_contains(&there, l.v[i].name))
                        strv_push(&there, l.v[i].name);
                if (names)
                        strv_push(names, l.v[i].name);
        }
        strbuf_reset(&out->message);
        out->status = JUJU_STATUS_ACTIVE;
        slurmctld_status_message(l.n - there.n, l.n_partitions, &out->message);
        if (there.n == 1)
                strbuf_addf(&out->message, "; %s leaving", there.v[0]);
        else if (there.n > 1) {
                strbuf_addf(&out->message, "; %zu leaving: ", there.n);
                for (size_t i = 0; i < there.n && i < 8; i++)
                        strbuf_addf(&out->message, "%s%s", i ? ", " : "", there.v[i]);
                if (there.n > 8)
                        strbuf_addstr(&out->message, ", …");
        }
        slurm_node_list_done(&l);
        if (ret_leaving) {
                strv_clear(ret_leaving);
                *ret_leaving = there;
                strv_init(&there);
        }
        return 0;
}

/* A compute unit came or is going: the node event watcher looks every second until Slurm's
 * table shows it (charm/slurmctld/expect.h), so that the status follows in seconds. */
static void expect_change(struct juju_ctx *ctx, const struct charm_paths *paths, const struct juju_env *env,
        const struct strv *names) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        bool leaving = streq(env->relation_event, "departed");
        const char *unit = leaving ? env->departing_unit : env->remote_unit;
        if (isempty(unit) ||
                (!leaving && !streq(env->relation_event, "joined") &&
                        !streq(env->relation_event, "changed")))
                return;
        _cleanup_free_ char *node = charm_node_name(unit);
        if (nodeevents_expect(paths, leaving ? EXPECT_LEAVING : EXPECT_JOINING, node, names, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node events: %s", e.buf);
}

/* issue 29: a compute unit's departure is a record of who asked (Juju, for that unit) in the
 * node event log, once: by the leader (every controller unit runs this hook; the log is their
 * one log). Before anything else of the hook, GPU units (full reconcile) included. */
static void departure_note(struct juju_ctx *ctx, const struct charm_paths *paths, const struct juju_env *env) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        bool leader = false;
        if (!streq_ptr(env->relation_event, "departed") || isempty(env->departing_unit) ||
                juju_is_leader(ctx, &leader, NULL) < 0 || !leader)
                return;
        _cleanup_free_ char *node = charm_node_name(env->departing_unit);
        _cleanup_free_ char *by =
                xasprintf("juju: %s leaves relation %s", env->departing_unit, strempty(env->relation_id));
        char *nodes[] = { node };
        const struct ev_note note = { .action = "departure", .by = by, .nodes = nodes, .n_nodes = 1 };
        if (nodeevents_note(paths, &note, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node events: %s", e.buf);
}

/* issue 29: a compute unit's own actions (pause, node-config, …) from its bag into the node
 * event log, at that unit's events, by the leader (charm/slurmctld/unitacts.h); a departing
 * unit's last ones too. Never fails the hook. */
static void unit_actions_event(struct juju_ctx *ctx, const struct charm_paths *paths, const struct juju_env *env) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        bool leader = false;
        const char *unit = streq_ptr(env->relation_event, "departed") ? env->departing_unit : env->remote_unit;
        if (isempty(unit) || isempty(env->relation_id) || juju_is_leader(ctx, &leader, NULL) < 0 || !leader)
                return;
        if (unitacts_take(ctx, paths, env->relation_id, unit, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node actions of %s: %s", unit, e.buf);
}

/* --- inputs ------------------------------------------------------------------------------------ */

static long relation_number(const char *id) {
        const char *colon = strrchr(id, ':');
        return colon ? strtol(colon + 1, NULL, 10) : 0;
}

static int cmp_relation_id(const void *a, const void *b) {
        long x = relation_number(*(char *const *) a), y = relation_number(*(char *const *) b);
        return x < y ? -1 : x > y;
}

/* A cluster-name set to another name than the cluster's: refused, in the status of every unit. */
static void refuse_cluster_rename(struct ctl_inputs *in, const char *kept) {
        if (!isempty(in->cfg_cluster_name) && !streq(in->cfg_cluster_name, kept))
                strv_pushf(&in->refused,
                        "cluster-name: cannot change once set: the cluster is \"%s\" (set cluster-name back "
                        "to it, or unset it)",
                        kept);
}

/* The leader's own slurmctld is in charge as a backup (the heartbeat's fresh index is this
 * unit's place, after the first, in the order in the peer app bag): it moves itself first
 * (claim_first() for the others). */
static bool self_asked_in_charge(const struct charm_paths *p, const char *hostname);

static bool leader_claims(const struct charm_paths *p, const struct ctl_inputs *in, const char *self) {
        _cleanup_free_ char *order = xstrdup(strempty(charm_bag_string(in->peer_app, "controller-order")));
        long idx = ha_heartbeat_fresh(in->state_dir, in->cfg_timeout);
        if (idx <= 0)
                return false;
        long i = 0;
        char *save = NULL;
        for (char *w = strtok_r(order, " ", &save); w; w = strtok_r(NULL, " ", &save), i++)
                if (streq(w, self))
                        /* the index is of the writer's list: right after a takeover the one in
                         * charge still runs the old list, whose index may be this unit's in the
                         * new order (a claim then undid the takeover): confirmed by asking */
                        return i == idx && self_asked_in_charge(p, in->hostname);
        return false;
}

/* Leader: the cluster name (config, or the one kept in the peer bag, or a new one). Returns
 * 0, or 1 with a blocked outcome. */
static int decide_cluster_name(
        struct juju_ctx *ctx, struct ctl_inputs *in, struct charm_outcome *out, struct strbuf *err) {
        const char *kept = charm_bag_string(in->peer_app, "cluster_name");
        const char *cfg = in->cfg_cluster_name;

        if (!isempty(kept)) {
                /* refused alone: the cluster keeps its name and every other input still applies
                 * (issue 26: a blocked input blocks only itself) */
                refuse_cluster_rename(in, kept);
                in->cluster_name = kept;
                return 0;
        }
        if (!isempty(cfg)) {
                if (!ctl_cluster_name_valid(cfg)) {
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                                "cluster-name: \"%.40s\" is not a valid cluster name (a-z, 0-9, _ and -)",
                                cfg);
                        return 1;
                }
                in->cluster_name = cfg;
        } else {
                int r = ctl_cluster_name_generate(&in->generated_name);
                if (r < 0) {
                        strbuf_addf(err, "cluster name: %s", strerror(-r));
                        return r;
                }
                in->cluster_name = in->generated_name;
        }
        int r = juju_relation_set(ctx, in->peer_rel, true, "cluster_name", in->cluster_name, err);
        return r < 0 ? r : 0;
}

/* Leader: the auth key secret (made once). */
static int decide_auth_key(struct juju_ctx *ctx, struct ctl_inputs *in, struct strbuf *err) {
        const char *id = charm_bag_string(in->peer_app, "auth_key_id");
        int r;

        if (!isempty(id)) {
                in->auth_key_id = xstrdup(id);
                return 0;
        }
        r = auth_key_generate_base64(&in->auth_key);
        if (r < 0) {
                strbuf_addf(err, "auth key: getrandom: %s", strerror(-r));
                return r;
        }
        r = charm_secret_add_private(ctx, AUTH_KEY_SECRET_LABEL, "Slurm cluster auth key (base64)",
                AUTH_KEY_SECRET_KEY, in->auth_key.buf, &in->auth_key_id, err);
        if (r < 0)
                return r;
        return juju_relation_set(ctx, in->peer_rel, true, "auth_key_id", in->auth_key_id, err);
}

/* Splits "host(addr) host(addr)" into ctl_controller records pointing into list's strings. */
static size_t split_controllers(struct strv *list, struct ctl_controller *ret, size_t max) {
        size_t n = 0;
        for (size_t i = 0; i < list->n && n < max; i++) {
                char *s = list->v[i], *open = strchr(s, '(');
                ret[n].host = s;
                ret[n].addr = NULL;
                if (open) {
                        char *close = strchr(open, ')');
                        *open = '\0';
                        if (close)
                                *close = '\0';
                        ret[n].addr = open + 1;
                }
                n++;
        }
        return n;
}

/* Reads and decides every input. Returns 0 (complete), 1 (outcome set: blocked or waiting), or
 * a negative errno. */
/* state-save-location changed on a running cluster: slurmctld would start on the new directory
 * with no jobs, nodes or reservations. Refused (blocked, nothing written) while the old one holds
 * state and the new one none: the admin copies it over first. 0 fine, 1 blocked. */
static int state_move_check(
        const struct charm_paths *p, const struct ctl_inputs *in, struct charm_outcome *out) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_free_ char *conf_path = charm_path(p, CHARM_PATH_SLURM_CONF), *old = NULL;
        size_t old_len = 0;
        const char *was;
        if (read_full_file(conf_path, &old, &old_len) < 0 ||
                slurmconf_parse("slurm.conf", old, old_len, &c, NULL) < 0 ||
                !(was = slurmconf_get(c, "StateSaveLocation")))
                return 0;
        const char *now = isempty(in->cfg_state_dir) ? CHARM_PATH_STATESAVE : in->cfg_state_dir;
        if (streq(was, now))
                return 0;
        _cleanup_free_ char *was_dir = charm_path(p, was);
        _cleanup_free_ char *a = xasprintf("%s/job_state", was_dir),
                            *b = xasprintf("%s/job_state", in->state_dir);
        if (access(a, F_OK) < 0 || access(b, F_OK) == 0)
                return 0;
        charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                "state-save-location: slurmctld's state is in %s, and %s holds none: moving would lose "
                "every "
                "job; pause the controllers, copy %s to %s, then set it again (or set it back)",
                was, now, was, now);
        out->set_app_status = in->leader;
        out->app_status = JUJU_STATUS_BLOCKED;
        return 1;
}

/* StateSaveLocation exists and belongs to SlurmUser (a freshly mounted shared file system, a
 * bind mount, is root's: slurmctld then exits "Incorrect permissions on state save loc"). The
 * directory is opened once, not through a link, and chowned by that descriptor: a parent
 * SlurmUser may write (an export whose root was given to slurm) let that user swap the leaf
 * for a link to /etc between the look and the chown (review R7). A link there is refused. */
static int ensure_statesave(const struct charm_paths *paths, const char *dir, uid_t *ret_uid, gid_t *ret_gid,
        struct strbuf *err) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        uid_t uid;
        gid_t gid;
        int r;

        r = charm_lookup_user(paths->slurm_user, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        r = mkdir_p(dir, 0755);
        if (r >= 0) {
                fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                r = fd < 0 ? -errno : RET_NERRNO(fstat(fd, &st));
        }
        if (r == -ELOOP || r == -ENOTDIR) {
                strbuf_addf(err, "%s: a symbolic link or not a directory: the state save location must be the directory itself", dir);
                return r;
        }
        if (r >= 0 && (st.st_uid != uid || st.st_gid != gid))
                r = RET_NERRNO(fchown(fd, uid, gid));
        if (r < 0) {
                strbuf_addf(err, "%s: %s", dir, strerror(-r));
                return r;
        }
        *ret_uid = uid;
        *ret_gid = gid;
        return 0;
}

static bool state_dir_ok(const char *s) {
        size_t n = strlen(s);
        if (s[0] != '/' || n > 200 || streq(s, "/") || strstr(s, "/../") ||
                (n >= 3 && streq(s + n - 3, "/..")))
                return false;
        for (const char *p = s; *p; p++)
                if (!(isalnum((unsigned char) *p) || strchr("._-/", *p)))
                        return false;
        return true;
}

/* Whether state-save-location s (state_dir_ok) is the charm's own state directory, inside it,
 * or one of its parents: SlurmUser owns the state save location, and root's state below it
 * (the refusal memory, the applied file, …) could be renamed away and replaced by that user
 * (attack atk8 G10, with /var/lib/slurm). Judged as written and as the kernel walks it on the
 * machine (root: juju-sim's tree), so a parent that is a link to /var/lib/slurm does not pass
 * (issue 26 R13). 1 it does, 0 not, <0 when s cannot be resolved there. */
static int state_dir_holds_charm(const char *root, const char *s) {
        const char *own = CHARM_PATH_STATE_DIR;
        _cleanup_free_ char *norm = path_normalize(s);
        if (path_is_below_or_same(own, norm) || path_is_below_or_same(norm, own))
                return 1;
        _cleanup_free_ char *res = NULL, *own_res = NULL;
        int r = path_resolve(root, s, &res);
        if (r < 0)
                return r;
        r = path_resolve(root, own, &own_res);
        if (r < 0)
                return r;
        return path_is_below_or_same(own_res, res) || path_is_below_or_same(res, own_res);
}

/* Leader: this controller's Slurm in every slurmd and slurmdbd relation, before anything else
 * is published (a compute or slurmdbd unit that cannot work with it says so even while this
 * side has nothing else to give). */
static int publish_generation(struct juju_ctx *ctx, const struct charm_paths *paths,
        const struct ctl_inputs *in, struct strbuf *err) {
        _cleanup_strv_ struct strv rels = STRV_INIT;
        int r = charm_relation_ids_live(ctx, ACCT_ENDPOINT, &rels, err);
        if (r < 0)
                return r;
        strv_pushv(&rels, in->slurmd_rels.v);
        strv_pushv(&rels, in->login_rels.v);
        return charm_generation_publish(ctx, paths, &rels, err);
}

/* A slurmd application's published Slurm against this controller's: 0 it can join (or says
 * nothing: a charm from before the key), <0 with why in e. */
static int generation_check(const struct charm_paths *p, const char *json, struct strbuf *e) {
        strbuf_reset(e);
        int r = charm_generation_check(p, json, true, "slurmctld", "slurmd", e);
        if (r == -EPROTO)
                strbuf_addstr(e, ": its units cannot join; deploy it on this application's base");
        return r;
}

/* Every relation whose units confirm the keys they run with (keyrotate.h): the peer relation,
 * each slurmd, login and slurmdbd relation. */
static int key_rels(struct juju_ctx *ctx, const struct ctl_inputs *in, struct strv *ret, struct strbuf *err) {
        int r = charm_relation_ids_live(ctx, ACCT_ENDPOINT, ret, err);
        if (r < 0)
                return r;
        strv_push(ret, in->peer_rel);
        strv_pushv(ret, in->slurmd_rels.v);
        strv_pushv(ret, in->login_rels.v);
        return 0;
}

/* The leader: the next stage of a rotation once every other unit confirmed this one
 * (keyrotate_advance, which publishes it), made this unit's keys (in->keys); what keeps it is in
 * note when note is given, its error in in->key_note. 1 moved on, 0 not, a negative errno when
 * the relations cannot be listed (err). Read_keys() asks
 * first, so that no early end of a hook skips it; keys_follow() again once slurmctld runs
 * with a stage. */
static int leader_advance(struct juju_ctx *ctx, struct ctl_inputs *in, struct strbuf *note, struct strbuf *err) {
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring next = AUTH_KEYRING_INIT;
        _cleanup_strv_ struct strv rels = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = key_rels(ctx, in, &rels, err);
        if (r < 0)
                return r;
        r = keyrotate_advance(ctx, in->auth_key_id, in->peer_rel, &rels, &in->keys, &next, note, &e);
        if (r < 0) {
                strbuf_addf(&in->key_note, "auth key rotation: %s", e.buf);
                return 0;
        }
        if (r > 0) {
                auth_keyring_done(&in->keys);
                in->keys = next;
                next = (struct auth_keyring) AUTH_KEYRING_INIT;
        }
        return r > 0;
}

/* The keys this unit runs with (the secret's current revision; a key made in this hook is the
 * only one). */
static int read_keys(struct juju_ctx *ctx, struct ctl_inputs *in, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (in->auth_key.len > 0) {
                strbuf_addstr(&in->keys.key, in->auth_key.buf);
                return 0;
        }
        int r = auth_keyring_read(ctx, in->auth_key_id, JUJU_SECRET_CURRENT, &in->keys, &e);
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s (nothing changed)", e.buf);
                return 1;
        }
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }
        /* the leader, already running these keys (its own confirmation): a stage every other
         * unit confirmed moves on here, before any path of this hook that ends early (a quick
         * status refresh, a daemon restarting, a hold) could skip keys_follow(); this unit then
         * takes the new stage below like any change of keys (attack helper-69 F1) */
        _cleanup_free_ char *mine = auth_keyring_state(&in->keys);
        if (in->leader && in->keys.stage != AUTH_KEYRING_NONE &&
                streq_ptr(charm_bag_string(in->peer_self, AUTH_KEYRING_ACK_KEY), mine)) {
                /* (keys_follow asks again, and fails the hook on such an error) */
                _cleanup_strbuf_ struct strbuf ae = STRBUF_INIT;
                if (leader_advance(ctx, in, NULL, &ae) < 0)
                        strbuf_addf(&in->key_note, "auth key rotation: %s", ae.buf);
        }
        return 0;
}

/* The leader, while a rotation of the key runs (its stage in the peer application bag): every
 * hook is a full one, so that the last unit's confirmation, whatever event brings it, moves the
 * stage on (keyrotate.h). */
static bool key_rotation_running(struct juju_ctx *ctx) {
        bool leader = false;
        _cleanup_strv_ struct strv ids = STRV_INIT;
        const cJSON *app = NULL;
        if (juju_is_leader(ctx, &leader, NULL) < 0 || !leader ||
                juju_relation_ids(ctx, SLURMCTLD_PEER_ENDPOINT, &ids, NULL) < 0 || ids.n == 0 ||
                juju_relation_get(ctx, ids.v[0], juju_env(ctx)->app, &app, NULL) < 0)
                return false;
        const char *st = charm_bag_string(app, AUTH_KEYRING_ACK_KEY);
        return !isempty(st) && !startswith(st, "none:");
}

/* The keys installed (changed > 0) taken where a restart is harmless: 22.05's munged
 * restarted; 24.11's slurmctld restarted for slurm.key alone (read at its start only; a key
 * never rotated changes only at the first install). A key set (slurm.jwks) is taken by a
 * re-exec once slurmctld runs the slurm.conf on disk: keys_settle(). */
static int keys_load(const struct slurmctld_opts *o, sd_bus *bus, const struct auth_keyring *k, int changed,
        struct strbuf *err) {
        const char *auth = charm_caps(&o->paths)->auth_service;
        if (auth)
                return charm_unit_ensure(bus, auth, changed > 0, unit_timeout(o), err);
        if (changed <= 0 || auth_keyring_reloadable(&o->paths, k))
                return 0;
        return unit_try_restart(bus, "slurmctld.service", unit_timeout(o), err);
}

/* 1 when slurmctld runs with k (munge restarted by keys_load; a key set read at its start or
 * re-exec, or not running: read at its start), after this is made so: when it runs the
 * slurm.conf on disk, a re-exec of the one in charge, a restart of a standby (24.11's
 * run_backup takes SIGHUP as a reconfigure in place: no re-exec, the keys stay); 0 when it runs
 * an older slurm.conf (one held back or deferred: the keys come with that file's start) or is
 * running but held here (held, running: not touched; may_touch false). */
static int keys_settle(const struct slurmctld_opts *o, sd_bus *bus, const struct auth_keyring *k, bool in_charge,
        bool may_touch, struct strbuf *err) {
        if (!auth_keyring_reloadable(&o->paths, k))
                return 1;
        _cleanup_free_ char *jwks = charm_path(&o->paths, charm_caps(&o->paths)->keyset_path);
        _cleanup_free_ char *conf = charm_path(&o->paths, CHARM_PATH_SLURM_CONF);
        int r = charm_daemon_newer_than(bus, "slurmctld.service", jwks, err);
        if (r != 0 || !may_touch)
                return r;
        r = charm_daemon_newer_than(bus, "slurmctld.service", conf, err);
        if (r <= 0)
                return r;
        if (in_charge)
                r = auth_keyring_reload(bus, "slurmctld.service", KEYRING_RELOAD_USEC, err);
        else {
                /* a deliberate restart per stage: not counted toward the start limit that tells a
                 * crash loop (templates/slurmctld.service.d: 5 in 120 s), which two rotations in a
                 * row reached with the restarts of other changes (attack helper-69 F2) */
                r = unit_reset_failed(bus, "slurmctld.service", unit_timeout(o), err);
                if (r >= 0)
                        r = unit_try_restart(bus, "slurmctld.service", unit_timeout(o), err);
        }
        return r < 0 ? r : 1;
}

/* Once slurmctld runs with this unit's keys (keys_settle): the leader moves each stage of a
 * rotation every other unit confirmed on, taking it here at once (keyrotate.h); then this unit
 * confirms what it runs with. */
static int keys_follow(struct juju_ctx *ctx, const struct slurmctld_opts *o, sd_bus *bus, struct ctl_inputs *in,
        bool in_charge, bool may_touch, struct strbuf *err) {
        int r = keys_settle(o, bus, &in->keys, in_charge, may_touch, err);
        if (r <= 0)
                return r;
        /* (a stage at most three times: add, switch, none) */
        for (unsigned i = 0; in->leader && in->auth_key.len == 0 && i < 3; i++) {
                strbuf_reset(&in->key_note);
                r = leader_advance(ctx, in, &in->key_note, err);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                r = auth_keyring_install(&o->paths, &in->keys, err);
                if (r >= 0)
                        r = keys_load(o, bus, &in->keys, r, err);
                if (r >= 0)
                        r = keys_settle(o, bus, &in->keys, in_charge, may_touch, err);
                if (r <= 0)
                        return r;
        }
        r = charm_keys_confirm(ctx, in->peer_rel, &in->keys, err);
        return r < 0 ? r : 0;
}

static int read_inputs(struct juju_ctx *ctx, const struct charm_paths *o_paths, struct ctl_inputs *in,
        struct charm_outcome *out, struct strbuf *err) {
        _cleanup_strv_ struct strv ids = STRV_INIT;
        int r;

        r = charm_config_string(ctx, "cluster-name", &in->cfg_cluster_name, err);
        if (r >= 0)
                r = charm_config_string(ctx, "default-partition", &in->cfg_default_partition, err);
        if (r >= 0)
                r = charm_config_string(ctx, "slurm-conf-parameters", &in->cfg_params, err);
        if (r >= 0)
                r = charm_config_string(ctx, "state-save-location", &in->cfg_state_dir, err);
        if (r >= 0)
                r = juju_is_leader(ctx, &in->leader, err);
        if (r < 0)
                return r;
        in->cfg_timeout = DEFAULT_SLURMCTLD_TIMEOUT_S;
        {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                r = juju_config_int(ctx, "slurmctld-timeout", &in->cfg_timeout, &e);
                if (r < 0 && r != -ENOENT) {
                        strbuf_addbuf(err, &e);
                        return r;
                }
        }
        /* options that decide where state lives are checked before anything is written */
        if (in->cfg_timeout < 5 || in->cfg_timeout > 3600) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "slurmctld-timeout: %lld is not a number of seconds from 5 to 3600",
                        (long long) in->cfg_timeout);
                out->set_app_status = in->leader;
                out->app_status = JUJU_STATUS_BLOCKED;
                return 1;
        }
        if (!isempty(in->cfg_state_dir) && !state_dir_ok(in->cfg_state_dir)) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "state-save-location: \"%.60s\" is not an absolute path of letters, digits and . _ "
                        "- /",
                        in->cfg_state_dir);
                out->set_app_status = in->leader;
                out->app_status = JUJU_STATUS_BLOCKED;
                return 1;
        }
        if (!isempty(in->cfg_state_dir)) {
                _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
                _cleanup_free_ char *sd = charm_path(o_paths, in->cfg_state_dir);
                struct stat lst;
                int holds = state_dir_holds_charm(o_paths ? o_paths->root : NULL, in->cfg_state_dir);
                if (holds == -ENOLINK)
                        strbuf_addstr(&why, "goes through a symbolic link whose target is missing: give the "
                                            "directory itself");
                else if (holds < 0)
                        strbuf_addf(&why, "cannot be followed on this machine: %s", strerror(-holds));
                else if (holds)
                        strbuf_addf(&why,
                                "would hold the charm's own state (%s), which SlurmUser must not be able "
                                "to replace: choose a directory of its own (the default is "
                                "/var/lib/slurm/slurmctld)",
                                CHARM_PATH_STATE_DIR);
                else if (lstat(sd, &lst) == 0 && S_ISLNK(lst.st_mode))
                        /* the directory itself: root makes it SlurmUser's through a descriptor
                         * opened without following a link (ensure_statesave), so a link there
                         * would fail every hook; said here, once, as the admin's to change */
                        strbuf_addstr(&why, "is a symbolic link: give the directory it leads to (a link in "
                                            "a directory SlurmUser writes could be turned elsewhere)");
                if (why.len) {
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED, "state-save-location: \"%.60s\" %s",
                                in->cfg_state_dir, why.buf);
                        out->set_app_status = in->leader;
                        out->app_status = JUJU_STATUS_BLOCKED;
                        return 1;
                }
        }

        if (gethostname(in->hostname, sizeof in->hostname) < 0) {
                strbuf_addf(err, "gethostname: %s", strerror(errno));
                return -errno;
        }
        r = juju_relation_ids(ctx, SLURMCTLD_PEER_ENDPOINT, &ids, err);
        if (r < 0)
                return r;
        if (ids.n == 0) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the peer relation");
                return 1;
        }
        in->peer_rel = xstrdup(ids.v[0]);
        r = juju_relation_get(ctx, in->peer_rel, juju_env(ctx)->app, &in->peer_app, err);
        if (r >= 0)
                r = juju_relation_get(ctx, in->peer_rel, juju_env(ctx)->unit, &in->peer_self, err);
        if (r < 0)
                return r;
        in->address = charm_bag_string(in->peer_self, "ingress-address");
        if (isempty(in->address))
                in->address = charm_bag_string(in->peer_self, "private-address");
        if (isempty(in->address)) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for this unit's address");
                return 1;
        }
        /* the state directory, this unit's marker in it, the controller order (charm/slurmctld/ha.h) */
        {
                uid_t uid;
                gid_t gid;
                in->state_dir = charm_path(
                        o_paths, isempty(in->cfg_state_dir) ? CHARM_PATH_STATESAVE : in->cfg_state_dir);
                /* before anything is written there (the directory, this unit's marker) */
                r = state_move_check(o_paths, in, out);
                if (r != 0)
                        return r;
                r = ensure_statesave(o_paths, in->state_dir, &uid, &gid, err);
                if (r < 0)
                        return r;
                const struct ha_peers_input hi = {
                        .paths = o_paths,
                        .peer_rel = in->peer_rel,
                        .peer_app = in->peer_app,
                        .peer_self = in->peer_self,
                        .leader = in->leader,
                        .hostname = in->hostname,
                        .address = in->address,
                        .state_dir = in->state_dir,
                        .slurm_uid = uid,
                        .slurm_gid = gid,
                        .claim = in->leader && leader_claims(o_paths, in, juju_env(ctx)->unit),
                };
                r = ha_peers_sync(ctx, &hi, &in->ha, err);
                if (r < 0)
                        return r;
                strv_pushv(&in->controllers, in->ha.controllers.v);
        }

        if (in->leader) {
                r = decide_cluster_name(ctx, in, out, err);
                if (r != 0)
                        return r;
                r = decide_auth_key(ctx, in, err);
                if (r < 0)
                        return r;
        } else {
                const char *name = charm_bag_string(in->peer_app, "cluster_name");
                const char *id = charm_bag_string(in->peer_app, "auth_key_id");
                if (isempty(name) || isempty(id)) {
                        charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the leader");
                        return 1;
                }
                in->cluster_name = name;
                refuse_cluster_rename(in, name);
                in->auth_key_id = xstrdup(id);
        }
        if (in->controllers.n == 0) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the leader's controller list");
                return 1;
        }

        /* the login applications (login.h): they only take what the leader publishes */
        r = charm_relation_ids_live(ctx, LOGIN_ENDPOINT, &in->login_rels, err);
        if (r < 0)
                return r;

        /* every related slurmd application's data, oldest relation first */
        strv_clear(&ids);
        r = juju_relation_ids(ctx, SLURMCTLD_SLURMD_ENDPOINT, &ids, err);
        if (r < 0)
                return r;
        qsort(ids.v, ids.n, sizeof(char *), cmp_relation_id);
        in->data = xcalloc(ids.n + 1, sizeof *in->data);
        in->data_ok = xcalloc(ids.n + 1, sizeof *in->data_ok);
        for (size_t i = 0; i < ids.n; i++) {
                _cleanup_free_ char *app = NULL;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                const cJSON *bag;
                const struct juju_env *env = juju_env(ctx);

                /* relation-broken: that application is leaving, whatever relation-ids says */
                if (streq_ptr(env->relation_event, "broken") && streq_ptr(env->relation_id, ids.v[i]))
                        continue;

                if (env->remote_app && streq_ptr(env->relation_id, ids.v[i]))
                        app = xstrdup(env->remote_app);
                else {
                        r = juju_relation_remote_app(ctx, ids.v[i], &app, err);
                        if (r < 0)
                                return r;
                }
                r = juju_relation_get(ctx, ids.v[i], app, &bag, err);
                if (r < 0)
                        return r;
                /* one application's bad data is that application's problem: the others still
                 * apply, and its partition keeps its last good line (ctlguard.h) */
                size_t k = in->slurmd_apps.n;
                in->data[k] = (struct compute_data) COMPUTE_DATA_INIT;
                if (slurmd_iface_reserved_name(app)) {
                        /* its own charm blocks with the reason; here it is only left out */
                        strv_pushf(&in->ignored, "application \"%s\" left out: its name is a Slurm keyword",
                                app);
                        strv_push(&in->slurmd_rels, ids.v[i]);
                        strv_push(&in->slurmd_apps, app);
                        continue;
                }
                r = compute_data_decode(app, charm_bag_string(bag, "partition"),
                        charm_bag_string(bag, "nodeset"), &in->data[k], &e);
                if (r == -ENODATA)
                        in->n_waiting++;
                else if (r < 0)
                        strv_pushf(&in->refused, "relation with \"%s\": %s", app, e.buf);
                else if ((r = generation_check(o_paths, charm_bag_string(bag, "slurm"), &e)) == -EPROTO ||
                        r == -EINVAL)
                        strv_pushf(&in->refused, "application \"%s\" left out: %s", app, e.buf);
                else if (r < 0) {
                        compute_data_clear(&in->data[k]);
                        strbuf_addf(err, "slurm generation: %s", strerror(-r));
                        return r;
                } else {
                        in->data_ok[k] = true;
                        in->n_ok++;
                }
                strv_push(&in->slurmd_rels, ids.v[i]);
                strv_push(&in->slurmd_apps, app);
        }
        return read_keys(ctx, in, out, err);
}

/* --- writes and daemons ------------------------------------------------------------------------ */

int slurmctld_install(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct charm_outcome *ret,
        struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        /* munge (22.05) starts once the key is there (reconcile); slurmctld once slurm.conf is */
        return charm_install_finish(ctx, &o->paths, bus, unit_timeout(o), ret, err);
}

static bool is_unit_event_on_slurmd(const struct juju_env *env) {
        return env->relation && streq(env->relation, SLURMCTLD_SLURMD_ENDPOINT) && env->remote_unit &&
                env->relation_event &&
                (streq(env->relation_event, "joined") || streq(env->relation_event, "changed") ||
                        streq(env->relation_event, "departed"));
}

/* Leader, its slurmctld in charge: the hash of the file that daemon read (what configless
 * compute nodes fetch) in every slurmd relation's app bag, so that each compute unit looks at
 * once whether its slurmd runs it (charm/common/confpush.h). Not known: left as it is. */
static int publish_conf_hash(struct juju_ctx *ctx, const struct ctl_inputs *in, size_t n_nodes, struct strbuf *err) {
        uint32_t h = 0;
        if (slurm_ctl_conf_hash(&h, NULL, NULL) < 0)
                return 0; /* the next reconcile publishes it */
        char text[9], waves[8];
        confpush_hash_text(h, text);
        /* the idle nodes' restarts in waves, about a tenth of the nodes each (confpush.h) */
        snprintf(waves, sizeof waves, "%u", confpush_waves(n_nodes));
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                const cJSON *mine;
                int r = juju_relation_get(ctx, in->slurmd_rels.v[i], juju_env(ctx)->app, &mine, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, in->slurmd_rels.v[i], true, mine, CONFPUSH_WAVES_KEY, waves, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, in->slurmd_rels.v[i], true, mine, CONFPUSH_KEY, text, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Leader: auth_key_id and controllers in every slurmd relation's app bag (secret granted), and
 * what slurmdbd needs in the accounting relation's (charm/slurmctld/accounting.h), and what
 * the login units need in the login-node relations' (charm/slurmctld/login.h). */
/* The controllers as the relations carry them: JSON list of "host:port", primary first. */
static int controllers_json(const struct ctl_inputs *in, char **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv ctls = STRV_INIT;
        for (size_t i = 0; i < in->controllers.n; i++) {
                const char *s = in->controllers.v[i], *open = strchr(s, '(');
                if (open)
                        strv_pushf(
                                &ctls, "%.*s:%d", (int) (strcspn(open + 1, ")")), open + 1, SLURMCTLD_PORT);
                else
                        strv_pushf(&ctls, "%s:%d", s, SLURMCTLD_PORT);
        }
        int r = controllers_encode(ctls.v, ret);
        if (r < 0)
                strbuf_addstr(err, "controllers: cannot encode the controller list");
        return r;
}

/* Leader, early in every hook: the login units (login.h) get the key, the controllers and the
 * live slurm.conf even when this hook goes no further (a leader held as a standby, a refused
 * candidate): they need no decision of this hook. publish() sends them the file again after
 * this hook's change, with the controllers' JSON it made (controllers; NULL: made here). */
static int publish_login(struct juju_ctx *ctx, const struct charm_paths *paths, const struct ctl_inputs *in,
        const char *controllers, struct strbuf *err) {
        _cleanup_free_ char *own = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (in->login_rels.n == 0 || !in->auth_key_id || !in->cluster_name || in->controllers.n == 0)
                return 0;
        if (!controllers) {
                int r = controllers_json(in, &own, err);
                if (r < 0)
                        return r;
        }
        const char *json = controllers ? controllers : own;
        /* the login units never hold up a controller hook: what they cannot get is said in
         * debug-log, and their own status waits */
        if (login_publish(ctx, paths, &in->login_rels, in->auth_key_id, in->cluster_name, json, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "login units: %s", e.buf);
        return 0;
}

static int publish(struct juju_ctx *ctx, const struct charm_paths *paths, struct ctl_inputs *in,
        const struct acct_view *acct, struct strbuf *err) {
        _cleanup_free_ char *json = NULL;
        int r;

        r = controllers_json(in, &json, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                const char *rel = in->slurmd_rels.v[i];
                const cJSON *mine;
                r = juju_relation_get(ctx, rel, juju_env(ctx)->app, &mine, err);
                if (r < 0)
                        return r;
                if (!streq_ptr(charm_bag_string(mine, "auth_key_id"), in->auth_key_id)) {
                        r = juju_secret_grant(ctx, in->auth_key_id, rel, NULL, err);
                        if (r < 0)
                                return r;
                        r = juju_relation_set(ctx, rel, true, "auth_key_id", in->auth_key_id, err);
                        if (r < 0)
                                return r;
                }
                r = charm_bag_update(ctx, rel, true, mine, "controllers", json, err);
                if (r >= 0 && in->node_progs)
                        r = charm_bag_update(ctx, rel, true, mine, SLURMD_IFACE_NODE_PROGS_KEY, in->node_progs, err);
                if (r >= 0 && in->gres && in->gres_served) {
                        _cleanup_free_ char *gres = gres_served_json(in->gres, in->slurmd_apps.v[i]);
                        r = charm_bag_update(ctx, rel, true, mine, GRES_APP_KEY, gres, err);
                }
                if (r < 0)
                        return r;
        }
        if (in->peer_rel && in->node_progs_released) {
                r = charm_bag_update(ctx, in->peer_rel, true, in->peer_app, SLURMD_IFACE_NODE_RELEASED_KEY,
                        in->node_progs_released, err);
                if (r < 0)
                        return r;
        }
        r = acct_publish(ctx, acct, in->auth_key_id, in->cluster_name, json, err);
        if (r < 0)
                return r;
        return publish_login(ctx, paths, in, json, err);
}

/* --- applications that left (HACKING.md, "risk 2") ------------------------------------------- */

#define LEAVING_FILE "leaving"

static char *ctl_state_path(const struct charm_paths *p, const char *name) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, name);
}

static bool is_related(const struct ctl_inputs *in, const char *name) {
        return strv_contains(&in->slurmd_apps, name);
}

static int leaving_load(const struct charm_paths *p, struct ctl_leaving *ret, struct strbuf *err) {
        _cleanup_free_ char *path = ctl_state_path(p, LEAVING_FILE), *data = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = read_full_file(path, &data, NULL);
        if (r == -ENOENT)
                return 0;
        if (r >= 0)
                r = ctl_leaving_parse(data, ret, &e);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, e.len ? e.buf : strerror(-r));
        return r;
}

static int leaving_store(const struct charm_paths *p, const struct ctl_leaving *l, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = ctl_state_path(p, LEAVING_FILE);
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        int r;

        ctl_leaving_format(l, &s);
        if (s.len == 0) {
                if (unlink(path) < 0 && errno != ENOENT) {
                        strbuf_addf(err, "%s: %s", path, strerror(errno));
                        return -errno;
                }
                return 0;
        }
        r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, s.buf, s.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* Whether this unit's slurmctld runs (systemd: active) while the file it runs lists this host,
 * and does not answer a ping within SELF_ANSWER_MS. Every call the reconcile makes to it would
 * then wait: MessageTimeout each on 22.05, for ever on 24.11 (a client's credential comes from
 * this slurmctld's sack socket, read with no timeout: a stopped daemon held update-status until
 * juju killed it, attack atk7 F7, and a partition change, a compute unit's event, a leaving
 * partition's count the same way: review R4). One bounded ping before any of them. */
static bool self_silent(const struct charm_paths *p, const char *hostname, const char *conf, size_t len) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strbuf_ struct strbuf w = STRBUF_INIT;
        struct unit_state st;
        const char *auth = charm_caps(p)->auth_service;
        if (!conf || isempty(hostname) || ctl_conf_controller_index(conf, len, hostname) < 0 ||
                unit_bus_open(&bus, NULL) < 0 || unit_get_state(bus, "slurmctld.service", &st, NULL) < 0 ||
                !streq(st.active_state, "active"))
                return false;
        /* munge down (22.05): no client gets a credential, whatever slurmctld does; that is
         * not this daemon's silence (the reconcile starts munge first: charm-admin) */
        if (auth && (unit_get_state(bus, auth, &st, NULL) < 0 || !streq(st.active_state, "active")))
                return false;
        return ctl_wait_answer(bus, hostname, SELF_ANSWER_MS, &w) == -ETIMEDOUT;
}

#define SILENT_MESSAGE "slurmctld here runs but does not answer (no reply to a ping within %d s)"

/* Whether slurmctld's log shows a reconfigure stuck after its state save (ctl_hang_look: the
 * log only, no RPC). */
static bool hang_in_log(const struct slurmctld_opts *o) {
        _cleanup_free_ char *ctl_log = charm_path(&o->paths, CTL_SLURMCTLD_LOG);
        return ctl_hang_look(ctl_log, time(NULL));
}

/* This unit's slurmctld, silent: a 24.11.5 reconfigure stuck after its state save is cured (or
 * left, slurmdbd silent) and said in the status and debug-log (charm/slurmctld/ctlhang.h). True
 * when that was the case. */
static bool hang_outcome(struct juju_ctx *ctx, const struct slurmctld_opts *o, sd_bus *bus, struct charm_outcome *out) {
        _cleanup_strbuf_ struct strbuf hm = STRBUF_INIT;
        _cleanup_free_ char *ctl_log = charm_path(&o->paths, CTL_SLURMCTLD_LOG);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *own = NULL;
        if (!bus) {
                if (unit_bus_open(&own, NULL) < 0)
                        return false;
                bus = own;
        }
        int h = ctl_hang_cure(bus, ctl_log, time(NULL), &hm);
        if (h == 0 || hm.len == 0)
                return false;
        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s", hm.buf);
        charm_outcome_set(out, h == 1 ? JUJU_STATUS_MAINTENANCE : JUJU_STATUS_BLOCKED, "%s", hm.buf);
        return true;
}

/* Before slurm.conf is rendered: partitions in the old slurm.conf whose application is no
 * longer related join the leaving list (made INACTIVE at once over RPC, so that no job is
 * submitted between the count and the reconfigure); each leaving partition is kept while a
 * job of it is left (or slurmctld cannot tell), else moved to the nodesets to clean up. */
static int leaving_update(const struct slurmctld_opts *o, const struct ctl_inputs *in, const char *old,
        size_t old_len, size_t n_present, struct ctl_leaving *l, struct strbuf *note, struct strbuf *err) {
        _cleanup_(ctl_leaving_clear) struct ctl_leaving next = CTL_LEAVING_INIT;
        int silent = -1; /* asked at the first leaving partition (self_silent) */
        int r;

        r = leaving_load(&o->paths, l, err);
        if (r < 0)
                return r;
        if (old) {
                _cleanup_slurmconf_ struct slurmconf *c = NULL;
                _cleanup_strv_ struct strv names = STRV_INIT;
                if (slurmconf_parse("slurm.conf", old, old_len, &c, NULL) >= 0)
                        slurmconf_names(c, SLURMCONF_PARTITION, &names);
                for (size_t i = 0; i < names.n; i++) {
                        _cleanup_slurm_options_ struct slurm_options opts = SLURM_OPTIONS_INIT;
                        if (is_related(in, names.v[i]) || ctl_leaving_has(l, names.v[i]) ||
                                !slurmd_iface_valid_app_name(names.v[i]))
                                continue;
                        (void) slurmconf_lookup(c, SLURMCONF_PARTITION, names.v[i], &opts);
                        ctl_leaving_add_partition(l, names.v[i], &opts);
                }
        }
        for (size_t i = 0; i < l->n_parts; i++) {
                const char *name = l->parts[i].name;
                struct slurm_partition_jobs pj = { 0 };
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (is_related(in, name))
                        continue;
                if (silent < 0)
                        silent = self_silent(&o->paths, in->hostname, old, old_len);
                if (silent) {
                        /* nothing asked of a slurmctld that does not answer: its jobs are not
                         * known, so the partition stays (made INACTIVE by the next run) */
                        r = -ETIMEDOUT;
                        strbuf_addstr(&e, "slurmctld does not answer");
                } else {
                        /* INACTIVE at each run (the same state again is a no-op): no job is
                         * submitted between the count and the reconfigure */
                        (void) slurm_partition_set_state(name, SLURM_PARTITION_INACTIVE, NULL);
                        r = slurm_partition_jobs(name, &pj, &e);
                }
                if (r == 0 && !strv_contains(&next.nodesets, name))
                        strv_push(&next.nodesets, name);
                if (r == 0 && (n_present > 0 || next.n_parts > 0))
                        continue;
                ctl_leaving_add_partition(&next, name, &l->parts[i].partition);
                if (r == 0) {
                        /* slurmctld 22.05 exits on a reconfigure without any partition
                         * ("fatal: No PartitionName information available"): the last one
                         * stays, INACTIVE, until another application is related */
                        strbuf_addf(note, "; partition %s kept inactive (the last one)", name);
                        continue;
                }
                if (r > 0)
                        strbuf_addf(note, "; partition %s leaving: %zu running, %zu pending job%s", name,
                                pj.n_running, pj.n_pending, pj.n_pending + pj.n_running == 1 ? "" : "s");
                else
                        strbuf_addf(note, "; partition %s leaving: jobs unknown (%s)", name, e.buf);
                slurm_partition_jobs_done(&pj);
        }
        for (size_t i = 0; i < l->nodesets.n; i++)
                if (!is_related(in, l->nodesets.v[i]) && !strv_contains(&next.nodesets, l->nodesets.v[i]))
                        strv_push(&next.nodesets, l->nodesets.v[i]);
        r = leaving_store(&o->paths, &next, err);
        if (r < 0)
                return r;
        ctl_leaving_clear(l);
        *l = next;
        next = (struct ctl_leaving) CTL_LEAVING_INIT;
        return 0;
}

/* Deletes node n when no job holds it (a stale ALLOCATED flag is cleared, slurm/jobs.h).
 * 1 deleted, 0 kept (busy), negative errno. */
static int delete_if_idle(struct juju_ctx *ctx, const struct slurm_node *n, const char *why) {
        struct slurm_job_list jobs = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, reason = STRBUF_INIT;
        int r;

        r = slurm_jobs_on_node(n->name, &jobs, &e);
        slurm_job_list_done(&jobs);
        if (r != 0)
                return r < 0 ? r : 0;
        strbuf_addf(&reason, "slurmctld charm: %s", why);
        r = slurm_node_delete_free(n->name, reason.buf, 0, &e);
        if (r == -EBUSY)
                return 0;
        if (r < 0 && r != -ENOENT) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s", e.buf);
                return r;
        }
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "deleted node %s (%s%s)", n->name, why,
                r > 0 ? "; its stale allocation cleared" : "");
        return 1;
}

/* A live slurmd registers again within slurmctld's first ping pass, MIN_CHECKIN_TIME (3 s)
 * after its start (controller.c of 22.05; 24.11's reconfigure is a start too): a record that
 * still has no SlurmdStartTime this long after it has no slurmd. */
#define GHOST_GRACE_S 12

/* A gone unit's record that looks like a ghost: drained for its departure, and no slurmd
 * registered with the running slurmctld under its name (SlurmdStartTime: neither version saves it). */
static bool ghost_record(const struct slurm_node *n) {
        return n->slurmd_start_time == 0 && charm_reason_is_leaving(n->reason);
}

/* Whether node (ghost_record) is still one GHOST_GRACE_S after slurmctld's start: waits for that
 * moment first (once per start of slurmctld: *waited_for holds the start waited for), bounded by
 * GHOST_GRACE_S; a slurmctld that does not say when it started, or that started again meanwhile
 * (its grace begins anew: attack of stop 51), is no answer. 1 yes, 0 no or unknown. */
static int ghost_confirmed(const char *node, time_t *waited_for) {
        time_t boot = 0, again = 0, update = 0;
        if (slurm_ctl_boot_time(0, &boot, &update, NULL) < 0 || boot <= 0)
                return 0;
        if (*waited_for != boot) {
                int wait_ms = (int) (boot + GHOST_GRACE_S - time(NULL)) * 1000;
                if (wait_ms > GHOST_GRACE_S * 1000)
                        wait_ms = GHOST_GRACE_S * 1000;
                if (wait_ms > 0)
                        (void) slurm_poll_sleep(&wait_ms, slurm_now_ms() + wait_ms);
                *waited_for = boot;
        }
        struct slurm_node n = { 0 };
        if (slurm_node_get(node, &n, NULL) < 0)
                return 0;
        int ghost = ghost_record(&n);
        slurm_node_done(&n);
        if (slurm_ctl_boot_time(0, &again, &update, NULL) < 0 || again != boot)
                return 0;
        return ghost;
}

/* After the reconfigure (leader): node records of removed NodeSets, once idle; stale records of
 * related applications (the unit is gone from the relation, the node is not responding and
 * holds no job: a machine that vanished without its hooks). */
static int cleanup_nodes(struct juju_ctx *ctx, const struct slurmctld_opts *o, const struct ctl_inputs *in,
        struct ctl_leaving *l, struct strbuf *note, struct strbuf *err) {
        struct slurm_node_list nodes = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_strv_ struct strv done = STRV_INIT;
        time_t grace_waited = 0;
        int r;

        r = node_list_bounded(&nodes, false, &e);
        if (r < 0)
                return 0; /* not answering: a later hook */
        for (size_t i = 0; i < l->nodesets.n; i++) {
                size_t left = 0;
                for (size_t j = 0; j < nodes.n; j++) {
                        if (!slurm_list_has(nodes.v[j].features, l->nodesets.v[i]))
                                continue;
                        r = delete_if_idle(ctx, &nodes.v[j], "its application left");
                        if (r <= 0)
                                left++;
                }
                if (left == 0)
                        strv_push(&done, l->nodesets.v[i]);
                else
                        strbuf_addf(note, "; %zu node%s of removed partition %s still running jobs", left,
                                left == 1 ? "" : "s", l->nodesets.v[i]);
        }
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                _cleanup_strv_ struct strv units = STRV_INIT, names = STRV_INIT;
                r = juju_relation_list(ctx, in->slurmd_rels.v[i], &units, err);
                if (r < 0) {
                        slurm_node_list_done(&nodes);
                        return r;
                }
                for (size_t k = 0; k < units.n; k++)
                        strv_push_take(&names, charm_node_name(units.v[k]));
                for (size_t j = 0; j < nodes.n; j++) {
                        const struct slurm_node *n = &nodes.v[j];
                        if (!slurm_list_has(n->features, in->slurmd_apps.v[i]) ||
                                strv_contains(&names, n->name))
                                continue;
                        /* a node whose slurmd answers is on a machine that is there, DOWN or
                         * not: a joining unit registers before this controller unit's
                         * relation-joined for it has run (relation-list lacks it), under Juju
                         * often with a status refresh in between (issue 28: burn-in nodes,
                         * DOWN by default-node-state, were deleted and came back idle). But a
                         * record slurmctld brought back from its state file after a crash reads
                         * as responding until its ping pass, ~20 s on: a departed unit's node,
                         * deleted within slurmctld's 5 s save window before the crash (a ghost,
                         * issue 26). Drained for its departure, and no slurmd registered with
                         * this slurmctld under that name (SlurmdStartTime: neither version saves
                         * it) GHOST_GRACE_S after its start, it is gone for good */
                        bool ghost = ghost_record(n);
                        if (slurm_state_registered(n->state) && !ghost)
                                continue;
                        if (slurm_state_registered(n->state)) {
                                if (ghost_confirmed(n->name, &grace_waited) <= 0)
                                        continue;
                                /* pending jobs require it: its placeholder, as the departure
                                 * made it (that change may be what the crash lost) */
                                if (strand_keep_record(ctx, n->name, 0) > 0)
                                        continue;
                                if (delete_if_idle(ctx, n, "a departed unit's record, back from slurmctld's state") == 0)
                                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                                "node %s: its unit left, slurmctld brought its record back from its "
                                                "state file, and it is busy (a job, a reservation): kept",
                                                n->name);
                                continue;
                        }
                        (void) delete_if_idle(ctx, n, "stale: its unit is gone");
                }
        }
        slurm_node_list_done(&nodes);
        if (done.n > 0) {
                _cleanup_strv_ struct strv keep = STRV_INIT;
                for (size_t i = 0; i < l->nodesets.n; i++)
                        if (!strv_contains(&done, l->nodesets.v[i]))
                                strv_push(&keep, l->nodesets.v[i]);
                strv_clear(&l->nodesets);
                l->nodesets = keep;
                keep = (struct strv) STRV_INIT;
                return leaving_store(&o->paths, l, err);
        }
        return 0;
}

/* --- the candidate file ----------------------------------------------------------------------- */

#define PARAMS_APPLIED_FILE "slurm-conf-parameters.applied"
/* the string applied before that one (a backup's way back, ctlrefshare.h) */
#define PARAMS_PREVIOUS_FILE "slurm-conf-parameters.previous"
#define REFUSED_STATUS_FILE "refused"
/* The newest retry-refused time (Unix s) of any controller unit this unit has followed
 * (ctlrefshare.h: its own older refusals forgotten then). */
#define REFUSED_FORGET_SEEN_FILE "refused-forget-seen"
/* This unit is being removed: every later hook only says so (controller_leave). */
#define UNIT_LEAVING_FILE "unit-leaving"
#define NOTES_STATUS_FILE "notes"
/* Why this unit may not run slurmctld now ("<status> <message>"; empty when it may). */
#define GATE_STATUS_FILE "gate"

/* A state file's content (NULL when there is none). */
static int read_state(const struct charm_paths *p, const char *name, char **ret, struct strbuf *err) {
        _cleanup_free_ char *path = ctl_state_path(p, name);
        int r = read_full_file(path, ret, NULL);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

static int write_state(const struct charm_paths *p, const char *name, const char *data, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR), *path = ctl_state_path(p, name);
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, data, strlen(data), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* slurmctld runs as SlurmUser from its start (templates/slurmctld.service.d/CTL_USER_DROPIN.conf:
 * root opened its log and chowned it to SlurmUser, attack atk7 F4), in place before its first
 * start; a change takes effect at its next start. */
#define CTL_USER_DROPIN "10-charm-user"
static int ctl_user_dropin(const struct slurmctld_opts *o, const char *charm_dir, sd_bus *bus, struct strbuf *err) {
        return charm_dropin_install(&o->paths, charm_dir, bus, "slurmctld.service", CTL_USER_DROPIN, unit_timeout(o), err);
}

/* --- slurmd's programs, published once every compute unit judged them (charm/common/nodeprogs.h) --- */

/* "1" while items are held back: a compute unit's verdict then runs the full reconcile. */
#define NODE_PROGS_HELD_FILE "node-programs.held"
/* Units named in the status at most (then "and N more"). */
#define NODE_PROGS_NAMED 3

/* "UNIT why" lines of MEMDEF_BAD_FILE: unit's line replaced (why NULL: removed); true when the
 * text changed. */
static bool memdef_bad_set(struct strbuf *text, const char *unit, const char *why) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        size_t ul = strlen(unit);
        for (const char *l = text->buf; *l;) {
                size_t n = strcspn(l, "\n");
                if (!(n > ul && strncmp(l, unit, ul) == 0 && l[ul] == ' '))
                        strbuf_addf(&out, "%.*s\n", (int) n, l);
                l += n + (l[n] == '\n');
        }
        if (why)
                strbuf_addf(&out, "%s %s\n", unit, why);
        bool changed = !streq(out.buf, text->buf);
        strbuf_reset(text);
        strbuf_addbuf(text, &out);
        return changed;
}

/* One compute unit's published resources into the record: counted when good, else out of it
 * and named in MEMDEF_BAD_FILE (every controller unit decides alike from the same bag). 0
 * absent (not registered yet: nothing changes), 1 handled, negative errno. *changed set when
 * the record or the refusals changed. */
static int memdef_take(struct juju_ctx *ctx, const char *rel, const char *unit, const char *app,
        struct memdef_units *units, struct strbuf *bad, bool *changed, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const char *v = NULL;
        struct node_resources res;
        int r = juju_relation_get_value(ctx, rel, unit, SLURMD_UNIT_RESOURCES_KEY, &v, err);
        if (r < 0)
                return r;
        r = node_resources_decode(v, &res, &e);
        if (r == -ENODATA)
                return 0;
        if (r < 0) {
                *changed |= memdef_units_drop(units, unit);
                *changed |= memdef_bad_set(bad, unit, e.buf);
        } else {
                *changed |= memdef_units_set(units, unit, app, &res);
                *changed |= memdef_bad_set(bad, unit, NULL);
        }
        return 1;
}

/* A compute unit's own event: what it published of its node (interfaces/slurmd.h
 * "node-resources") into this unit's record (charm/slurmctld/memdef.h). 1 when the record
 * changed the application's value while default-mem-per-cpu is auto, or changed the refusals
 * (the full reconcile renders and says so), 0 otherwise. */
static int memdef_event(struct juju_ctx *ctx, const struct slurmctld_opts *o, const struct juju_env *env,
        struct strbuf *err) {
        _cleanup_(memdef_units_done) struct memdef_units units = { 0 };
        _cleanup_free_ char *text = NULL, *mode_text = NULL, *bad_text = NULL;
        _cleanup_strbuf_ struct strbuf out_text = STRBUF_INIT, bad = STRBUF_INIT;
        bool gone = streq(env->relation_event, "departed");
        const char *unit = gone ? env->departing_unit : env->remote_unit;
        enum memdef_mode mode = MEMDEF_NONE;
        bool changed = false;
        int r;
        if (isempty(unit) || isempty(env->remote_app))
                return 0;
        r = read_state(&o->paths, MEMDEF_UNITS_FILE, &text, err);
        if (r >= 0)
                r = read_state(&o->paths, MEMDEF_BAD_FILE, &bad_text, err);
        if (r >= 0)
                r = read_state(&o->paths, MEMDEF_MODE_FILE, &mode_text, err);
        if (r < 0)
                return r;
        if (!text)
                return 1; /* no record yet: the full reconcile builds it from every bag */
        memdef_units_parse(text, &units);
        strbuf_addstr(&bad, strempty(bad_text));
        if (mode_text)
                (void) memdef_mode_parse(mode_text, &mode);
        uint64_t before = 0, after = 0;
        (void) memdef_per_cpu(&units, env->remote_app, &before);
        if (gone) {
                changed |= memdef_units_drop(&units, unit);
                changed |= memdef_bad_set(&bad, unit, NULL);
        } else {
                r = memdef_take(ctx, env->relation_id, unit, env->remote_app, &units, &bad, &changed, err);
                if (r < 0)
                        return r;
        }
        if (!changed)
                return 0;
        memdef_units_format(&units, &out_text);
        r = write_state(&o->paths, MEMDEF_UNITS_FILE, out_text.buf, err);
        if (r >= 0)
                r = write_state(&o->paths, MEMDEF_BAD_FILE, bad.buf, err);
        if (r < 0)
                return r;
        /* a full reconcile when the application's value moves (the first unit, a smaller one,
         * the smallest gone), or for the status when a refusal comes or goes */
        (void) memdef_per_cpu(&units, env->remote_app, &after);
        return (mode == MEMDEF_AUTO && after != before) || !streq(bad.buf, strempty(bad_text)) ? 1 : 0;
}

/* The partitions' default memory per CPU (charm/slurmctld/memdef.h), in the full reconcile:
 * the mode (a bad value keeps the last good one); the record made to match the related units
 * (relation-list: a unit gone while this one missed its hook, paused or fenced, is dropped; a
 * listed unit missing from it is read from its bag), so every controller unit counts the same
 * units; then DefMemPerCPU in each application's partition data when the mode is auto and its
 * partition-config sets no default of its own. Its own refusals go into the status. */
static int memdef_inputs(struct juju_ctx *ctx, const struct charm_paths *p, struct ctl_inputs *in,
        enum memdef_mode *ret_mode, struct strbuf *err) {
        _cleanup_(memdef_units_done) struct memdef_units units = { 0 };
        _cleanup_free_ char *text = NULL, *stored_mode = NULL, *bad_text = NULL;
        _cleanup_strbuf_ struct strbuf out_text = STRBUF_INIT, bad = STRBUF_INIT;
        _cleanup_strv_ struct strv listed = STRV_INIT;
        const char *cfg = NULL;
        enum memdef_mode mode = MEMDEF_NONE;
        int r;

        r = read_state(p, MEMDEF_MODE_FILE, &stored_mode, err);
        if (r >= 0)
                r = charm_config_string(ctx, MEMDEF_CONFIG_KEY, &cfg, err);
        if (r >= 0)
                r = read_state(p, MEMDEF_UNITS_FILE, &text, err);
        if (r >= 0)
                r = read_state(p, MEMDEF_BAD_FILE, &bad_text, err);
        if (r < 0)
                return r;
        if (stored_mode)
                (void) memdef_mode_parse(stored_mode, &mode);
        if (memdef_mode_parse(cfg, &mode) < 0)
                strv_pushf(&in->refused, MEMDEF_CONFIG_KEY ": \"%.40s\" is neither auto nor none (%s stays)",
                        strempty(cfg), memdef_mode_name(mode));
        *ret_mode = mode;
        r = write_state(p, MEMDEF_MODE_FILE, memdef_mode_name(mode), err);
        if (r < 0)
                return r;

        memdef_units_parse(text, &units);
        strbuf_addstr(&bad, strempty(bad_text));
        bool changed = !text;
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                size_t from = listed.n;
                r = juju_relation_list(ctx, in->slurmd_rels.v[i], &listed, err);
                if (r < 0)
                        return r;
                for (size_t k = from; k < listed.n; k++) {
                        if (memdef_units_has(&units, listed.v[k]))
                                continue;
                        r = memdef_take(ctx, in->slurmd_rels.v[i], listed.v[k], in->slurmd_apps.v[i], &units, &bad,
                                &changed, err);
                        if (r < 0)
                                return r;
                }
        }
        changed |= memdef_units_keep_units(&units, listed.v, listed.n) > 0;
        {
                /* refusals of units no longer related go too */
                _cleanup_strbuf_ struct strbuf kept = STRBUF_INIT;
                for (const char *l = bad.buf; *l;) {
                        size_t n = strcspn(l, "\n"), u = strcspn(l, " ");
                        _cleanup_free_ char *unit = xstrndup(l, u < n ? u : n);
                        if (strv_contains(&listed, unit))
                                strbuf_addf(&kept, "%.*s\n", (int) n, l);
                        l += n + (l[n] == '\n');
                }
                changed |= !streq(kept.buf, bad.buf);
                strbuf_reset(&bad);
                strbuf_addbuf(&bad, &kept);
        }
        if (changed) {
                memdef_units_format(&units, &out_text);
                r = write_state(p, MEMDEF_UNITS_FILE, out_text.buf, err);
                if (r >= 0)
                        r = write_state(p, MEMDEF_BAD_FILE, bad.buf, err);
                if (r < 0)
                        return r;
        }
        /* refused units and those below the floor: named, three at most */
        _cleanup_strv_ struct strv named = STRV_INIT;
        for (const char *l = bad.buf; *l;) {
                size_t n = strcspn(l, "\n"), u = strcspn(l, " ");
                if (u < n)
                        strv_pushf(&named, "unit %.*s's node-resources refused: %.*s", (int) u, l, (int) (n - u - 1),
                                l + u + 1);
                l += n + (l[n] == '\n');
        }
        if (mode == MEMDEF_AUTO)
                memdef_units_small(&units, &named);
        for (size_t i = 0; i < named.n && i < 3; i++)
                strv_push(&in->ignored, named.v[i]);
        if (named.n > 3)
                strv_pushf(&in->ignored, "%zu more units left out of the memory default", named.n - 3);
        if (mode != MEMDEF_AUTO)
                return 0;
        for (size_t i = 0; i < in->slurmd_apps.n; i++) {
                uint64_t per_cpu;
                if (in->data_ok[i] && memdef_per_cpu(&units, in->slurmd_apps.v[i], &per_cpu) >= 0)
                        (void) memdef_apply(&in->data[i].partition, per_cpu);
        }
        return 0;
}

/* The gate over every related compute unit's verdict (their unit bags). A unit that is not the
 * leader renders the set the leader released (the peer app bag), when there is one; the leader
 * takes it as the live set until it has rendered one itself (charm/common/nodeprogs.h, review R1). */
static int node_progs_votes_gate(struct juju_ctx *ctx, const struct ctl_inputs *in, const char *params_applied,
        struct node_progs_gate *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv units = STRV_INIT, values = STRV_INIT;
        _cleanup_(slurm_options_clearp) struct slurm_options released = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *released_text = NULL;
        const char *json = charm_bag_string(in->peer_app, SLURMD_IFACE_NODE_RELEASED_KEY);
        if (json && node_progs_set_decode(json, &released, &e) >= 0)
                released_text = node_progs_text(&released);
        if (!in->leader && released_text) {
                const struct node_progs_vote leader = { .unit = "the leader", .verdict = NULL };
                return node_progs_gate(in->cfg_params, released_text, &leader, 1, ret);
        }
        const char *live = params_applied ? params_applied : released_text;
        if (!node_progs_pending(in->cfg_params, live))
                return node_progs_gate(in->cfg_params, live, NULL, 0, ret); /* no bag read */
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                size_t from = units.n;
                int r = juju_relation_list(ctx, in->slurmd_rels.v[i], &units, err);
                if (r < 0)
                        return r;
                for (size_t k = from; k < units.n; k++) {
                        const char *v = NULL;
                        r = juju_relation_get_value(
                                ctx, in->slurmd_rels.v[i], units.v[k], SLURMD_IFACE_NODE_VERDICT_KEY, &v, err);
                        if (r < 0)
                                return r;
                        strv_push(&values, strempty(v));
                }
        }
        _cleanup_free_ struct node_progs_vote *votes = xcalloc(units.n + 1, sizeof *votes);
        for (size_t k = 0; k < units.n; k++)
                votes[k] = (struct node_progs_vote){ .unit = units.v[k], .verdict = values.v[k] };
        int r = node_progs_gate(in->cfg_params, live, votes, units.n, ret);
        if (r < 0)
                strbuf_addf(err, "slurm-conf-parameters: %s", strerror(-r));
        return r;
}

/* "cpu/1, cpu/2 and 3 more" */
static void name_units(const struct strv *v, struct strbuf *out) {
        for (size_t i = 0; i < v->n && i < NODE_PROGS_NAMED; i++)
                strbuf_addf(out, "%s%s", i == 0 ? "" : i + 1 == v->n ? " and " : ", ", v->v[i]);
        if (v->n > NODE_PROGS_NAMED)
                strbuf_addf(out, " and %zu more", v->n - NODE_PROGS_NAMED);
}

/* The held items in the status (the leader's: it decides): a refusal blocks (the admin must
 * act), a wait is a note; at most NODE_PROGS_NAMED units are named. */
static void node_progs_status(const struct node_progs_gate *pg, struct ctl_inputs *in) {
        if (!pg->held || !in->leader)
                return;
        if (pg->refused.n > 0) {
                _cleanup_strv_ struct strv first = STRV_INIT;
                for (size_t i = 0; i < pg->refused.n && i < NODE_PROGS_NAMED; i++)
                        strv_push(&first, pg->refused.v[i]);
                if (pg->refused.n > NODE_PROGS_NAMED)
                        strv_pushf(&first, "and %zu more", pg->refused.n - NODE_PROGS_NAMED);
                _cleanup_free_ char *why = strv_join(&first, "; ");
                strv_pushf(&in->refused, "slurm-conf-parameters: %s held back, unsafe on a compute machine (%s)",
                        pg->pending, why);
        }
        if (pg->waiting.n > 0) {
                _cleanup_strbuf_ struct strbuf who = STRBUF_INIT;
                name_units(&pg->waiting, &who);
                strv_pushf(&in->ignored, "%s held back until %s judge%s it on %s machine%s", pg->pending, who.buf,
                        pg->waiting.n == 1 ? "s" : "", pg->waiting.n == 1 ? "its" : "their",
                        pg->waiting.n == 1 ? "" : "s");
        }
}

/* The sets the leader publishes: the admin's, and the one slurm.conf has (params_live). */
static int node_progs_prepare(const struct node_progs_gate *pg, const char *params_live, struct ctl_inputs *in,
        struct strbuf *err) {
        _cleanup_(slurm_options_clearp) struct slurm_options live = SLURM_OPTIONS_INIT;
        if (node_progs_of_params(params_live, &live, NULL) < 0)
                slurm_options_clear(&live);
        free(in->node_progs);
        free(in->node_progs_released);
        in->node_progs = in->node_progs_released = NULL;
        if (pg->want.n == 0 && live.n == 0) {
                /* nothing to judge: no key (no hook on every compute unit for it) */
                in->node_progs = xstrdup("");
                in->node_progs_released = xstrdup("");
                return 0;
        }
        int r = node_progs_set_encode(&live, &in->node_progs_released);
        if (r >= 0)
                r = node_progs_encode(&pg->want, &live, &in->node_progs);
        if (r < 0)
                strbuf_addf(err, "node-programs: cannot encode (%s)", strerror(-r));
        return r;
}

/* The files and programs a candidate names for slurmctld, checked on this machine
 * (slurmconf/pathkeys.h): a log file SlurmUser does not own, a link out of Slurm's log
 * directory, a program others can write, … -EINVAL with "Key: …" (the guard then finds the
 * input that brought it). */
static int ctl_paths_check(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurmconf_parse("slurm.conf", data, len, &c, err);
        if (r < 0)
                return r;
        uid_t uid;
        gid_t gid;
        r = charm_lookup_user(paths->slurm_user, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        r = slurmconf_paths_check_keys(slurmconf_get_key, (void *) c, SLURMCONF_PATH_CTLD, paths->root, uid, 0, &e);
        if (r < 0) {
                strbuf_addf(err, "%s", e.buf);
                return -EINVAL;
        }
        return 0;
}

/* What the judge knows besides the candidate: this unit's store of refusals, and those the
 * other controller units published (ctlrefshare.h), newer than any unit's retry-refused. */
struct judge_input {
        const struct charm_paths *paths;
        struct ctl_refusals peers;
        int64_t forget_at;
};

static void judge_input_done(struct judge_input *j) {
        ctl_refusals_clear(&j->peers);
}

/* The other controller units' published refusals, and the newest retry-refused time of any
 * unit (this one's too). A unit whose list does not read is left out, logged. */
static int peer_refusals(struct juju_ctx *ctx, const struct ctl_inputs *in, struct judge_input *j, struct strbuf *err) {
        _cleanup_strv_ struct strv units = STRV_INIT;
        j->forget_at = ctl_refshare_forget_at(charm_bag_string(in->peer_self, CTL_REFSHARE_FORGET_KEY));
        int r = juju_relation_list(ctx, in->peer_rel, &units, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < units.n; i++) {
                const cJSON *bag;
                r = juju_relation_get(ctx, in->peer_rel, units.v[i], &bag, err);
                if (r < 0)
                        return r;
                int64_t f = ctl_refshare_forget_at(charm_bag_string(bag, CTL_REFSHARE_FORGET_KEY));
                if (f > j->forget_at)
                        j->forget_at = f;
                const char *list = charm_bag_string(bag, CTL_REFSHARE_KEY);
                if (!isempty(list) && ctl_refshare_decode(list, units.v[i], &j->peers) < 0)
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                "%s's refused candidates (%s) are not a JSON list: left out", units.v[i],
                                CTL_REFSHARE_KEY);
        }
        return 0;
}

/* A retry-refused newer than this unit has followed (run on another unit): this unit forgets
 * its own refusals as well, once. *forget_at becomes the newest of the two (this unit's own
 * retry-refused is in its bag only once its action has ended). */
static int refused_forget_follow(
        struct juju_ctx *ctx, const struct charm_paths *paths, int64_t *forget_at, struct strbuf *err) {
        _cleanup_free_ char *seen = NULL;
        int r = read_state(paths, REFUSED_FORGET_SEEN_FILE, &seen, err);
        if (r < 0)
                return r;
        if (seen)
                seen[strcspn(seen, "\n")] = '\0';
        if (*forget_at <= ctl_refshare_forget_at(seen)) {
                *forget_at = ctl_refshare_forget_at(seen);
                return 0;
        }
        size_t n = 0;
        r = ctl_refused_forget(paths, &n, err);
        if (r < 0)
                return r;
        char t[32];
        snprintf(t, sizeof t, "%lld\n", (long long) *forget_at);
        r = write_state(paths, REFUSED_FORGET_SEEN_FILE, t, err);
        if (r < 0)
                return r;
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                "retry-refused on a controller unit: %zu refused slurm.conf candidate%s forgotten here too", n,
                n == 1 ? "" : "s");
        return 0;
}

/* This unit's own refusals in its peer bag, for the other controller units (when they changed). */
static int refused_publish(
        struct juju_ctx *ctx, const struct charm_paths *paths, const struct ctl_inputs *in, struct strbuf *err) {
        struct ctl_refusals mine = {};
        int r = ctl_refused_list(paths, &mine);
        if (r < 0) {
                ctl_refusals_clear(&mine);
                strbuf_addf(err, "refused candidates: %s", strerror(-r));
                return r;
        }
        _cleanup_free_ char *json = mine.n ? ctl_refshare_encode(&mine) : NULL;
        ctl_refusals_clear(&mine);
        r = charm_bag_update(ctx, in->peer_rel, false, in->peer_self, CTL_REFSHARE_KEY, json, err);
        return r < 0 ? r : 0;
}

/* The judge of ctlguard.h: a candidate slurmctld refused before, on this unit or on another
 * controller unit (ctlrefshare.h), is refused again (with its reason: slurmctld's own checks go
 * beyond the reader's), everything else goes to Slurm's reader (slurm/confcheck.h). */
static int judge_candidate(const char *data, size_t len, struct strbuf *err, void *userdata) {
        const struct judge_input *j = userdata;
        const struct charm_paths *paths = j->paths;
        _cleanup_free_ char *reason = NULL;
        int r = ctl_refused_match(paths, data, len, &reason);
        if (r > 0 && r != CTL_REFUSED_RETRY) {
                strbuf_addf(err, "slurm.conf refused by slurmctld before (%s)", reason);
                return -EINVAL;
        }
        free(reason);
        reason = NULL;
        r = ctl_refshare_match(&j->peers, data, len, j->forget_at, (int64_t) time(NULL), &reason);
        if (r > 0 && r != CTL_REFUSED_RETRY) {
                strbuf_addf(err, "slurm.conf refused by slurmctld before (%s)", reason);
                return -EINVAL;
        }
        r = ctl_paths_check(paths, data, len, err);
        if (r < 0)
                return r;
        return slurm_conf_check(data, len, err);
}

/* How many related applications will have a partition line: those whose data is good, and
 * those with a line in the live file (kept as their last good one). */
static size_t count_present(const struct ctl_inputs *in, const char *old, size_t old_len) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strv_ struct strv names = STRV_INIT;
        size_t n = 0;
        if (old && slurmconf_parse("slurm.conf", old, old_len, &c, NULL) >= 0)
                slurmconf_names(c, SLURMCONF_PARTITION, &names);
        for (size_t i = 0; i < in->slurmd_apps.n; i++)
                if (in->data_ok[i] || strv_contains(&names, in->slurmd_apps.v[i]))
                        n++;
        return n;
}

/* A takeover announced in the shared state directory (ha_takeover_mark) for who: a unit name, or
 * the host a leaving primary hands control to. The sentinel there then knows that the one in
 * charge before stepped down for it (charm/slurmctld/fence.h, "took charge while another was in charge"). */
static int announce_takeover(struct juju_ctx *ctx, const struct slurmctld_opts *o, const char *who, struct strbuf *err) {
        _cleanup_free_ char *dir = NULL;
        const char *cfg = NULL;
        uid_t uid;
        gid_t gid;
        int r = charm_config_string(ctx, "state-save-location", &cfg, err);
        if (r >= 0)
                r = charm_lookup_user(o->paths.slurm_user, "slurm", &uid, &gid, err);
        if (r < 0)
                return r;
        dir = charm_path(&o->paths, isempty(cfg) ? CHARM_PATH_STATESAVE : cfg);
        return ha_takeover_mark(dir, who, uid, gid, err);
}

/* The unit goes away (stop: remove-unit, remove-application): a primary hands control to the
 * next controller that answers (slurm_takeover: ~2 s, instead of SlurmctldTimeout), then
 * slurmctld is stopped with SIGTERM (its state saved: a kill loses the last seconds of job
 * changes) and its watcher removed so nothing starts it again. The survivors' leader rewrites
 * the controller order without this unit. */
static int controller_leave(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct charm_outcome *out,
        struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *marker = ctl_state_path(&o->paths, UNIT_LEAVING_FILE);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, note = STRBUF_INIT;
        char host[HOST_NAME_MAX + 1] = "";
        int r;

        (void) gethostname(host, sizeof host);
        if (access(marker, F_OK) == 0) {
                /* the event log's consumer once more: a hook that failed after the marker did not
                 * reach it below (second review of evpush, 5); idempotent */
                if (unit_bus_open(&bus, NULL) >= 0) {
                        (void) evpush_apply(&o->paths, bus, NULL, NULL, "", false, NULL);
                        (void) metricsep_apply(&o->paths, bus, NULL, NULL, 0, false, NULL);
                }
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "slurmctld stopped: the unit is leaving");
                return 0; /* done by an earlier hook */
        }
        r = write_state(&o->paths, UNIT_LEAVING_FILE, "", err);
        if (r < 0)
                return r;
        if (slurm_config_path()) {
                struct slurm_controllers c = { 0 };
                int self = slurm_client_init(NULL) >= 0 ? slurm_ctl_index_of(host) : -1;
                /* the primary hands over, and a backup whose own slurmctld says it is in charge
                 * (after a failover, before the order names it first: issue 25's review), asked
                 * through the sentinel's private slurm.conf naming only this host */
                if (self >= 0 && slurm_ctl_ping_bounded(&c, LEAVE_PING_MS, NULL) > 0) {
                        _cleanup_free_ bool *up = xcalloc(c.n + 1, sizeof *up);
                        for (size_t i = 0; i < c.n; i++)
                                up[i] = c.v[i].up;
                        bool mine = self > 0 && slurm_ctl_self_in_charge(SENTINEL_PRIVATE_CONF, 3000) == 1;
                        long next = ha_leave_successor(self, mine, up, c.n);
                        if (next > 0) {
                                strbuf_reset(&e);
                                r = announce_takeover(ctx, o, c.v[next].host, &e);
                                if (r >= 0)
                                        r = slurm_ctl_takeover_bounded(NULL, (int) next, TAKEOVER_MS, &e);
                                strbuf_addf(&note, "; control handed to %s%s%s", c.v[next].host,
                                        r < 0 ? ": " : "", r < 0 ? e.buf : "");
                        }
                }
                slurm_controllers_done(&c);
        }
        r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        /* the daemons the service watcher follows on a controller unit (charm/common/watcher.h) */
        char *watched[3];
        size_t n_watched = charm_services(&o->paths, "slurmctld.service", watched);
        for (size_t i = 0; i < n_watched; i++) {
                r = watcher_remove(&o->paths, bus, watched[i], err);
                if (r < 0)
                        return r;
        }
        /* the sentinel (it asks nothing of a controller that is not in charge). Not fatal: the
         * leaving marker is written, and a hook run again would stop nothing (review) */
        strbuf_reset(&e);
        if (sentinel_remove(&o->paths, bus, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "sentinel: %s", e.buf);
        /* the node event watcher too (charm/slurmctld/nodeevents.h): this unit keeps no log any more */
        (void) unit_stop(bus, NODEEVENTS_UNIT, unit_timeout(o), NULL);
        (void) unit_disable(bus, NODEEVENTS_UNIT, unit_timeout(o), NULL);
        /* and its consumer: a leaving unit must not hold the push lock (review of evpush, 4) */
        strbuf_reset(&e);
        if (evpush_apply(&o->paths, bus, NULL, NULL, "", false, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "event push: %s", e.buf);
        /* and the metrics exporter (charm/slurmctld/metricsep.h) */
        strbuf_reset(&e);
        if (metricsep_apply(&o->paths, bus, NULL, NULL, 0, false, &e) < 0)
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "metrics exporter: %s", e.buf);
        r = charm_unit_retire(bus, "slurmctld.service", unit_timeout(o), err);
        if (r < 0)
                return r;
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "slurmctld stopped (state saved)%s", note.buf);
        charm_outcome_set(
                out, JUJU_STATUS_MAINTENANCE, "slurmctld stopped: the unit is leaving%s", note.buf);
        return 0;
}

/* --- several controllers (charm/slurmctld/ha.h) ------------------------------------------------------ */

/* This unit's role: its index, and who writes the heartbeat (the controller in charge); fresh
 * means written within the last SlurmctldTimeout (it is rewritten every T/4, at most 30 s). */
static void role_line(long self, const char *state_dir, int64_t timeout, char *const *hosts, size_t n,
        struct strbuf *out, struct strbuf *app) {
        long boss = ha_heartbeat_fresh(state_dir, timeout);
        ha_role_message(self, boss < (long) n ? boss : -1, hosts, n, out);
        ha_app_message(boss < (long) n ? boss : -1, hosts, n, app);
        /* a timeout too short for a failover to keep a job's end: said on every unit and on
         * the application (charm/slurmctld/standby.h) */
        if (timeout > 0 && timeout <= 3600) {
                standby_timeout_note((unsigned) timeout, n, out);
                standby_timeout_note((unsigned) timeout, n, app);
        }
}

/* The application's message: the unit's with its role line replaced by the application's
 * (ha_app_message: how many controllers, which one is in charge). NULL when there is none. */
static char *app_message_of(const char *message, const struct strbuf *role, const struct strbuf *app) {
        const char *at = role->len && app->len ? strstr(message, role->buf) : NULL;
        if (!at)
                return NULL;
        return xasprintf("%.*s%s%s", (int) (at - message), message, app->buf, at + role->len);
}

/* Whether this unit's slurmctld is the one in charge: the only controller; with several, a
 * fresh heartbeat whose index is this unit's (in the order, or in the list its slurmctld took
 * last: slurm.conf.applied), confirmed by asking this unit's own slurmctld alone (an index may
 * name the wrong unit while the order changes; a standby is asked only then). */
#define SELF_CONF_FILE "self-controller.conf"
#define SELF_ASK_TIMEOUT_MS 5000
/* This host's slurmctld, asked alone (slurm_ctl_self_in_charge, through a copy of the live
 * slurm.conf that names only it), says it is in charge. */
static bool self_asked_in_charge(const struct charm_paths *p, const char *hostname) {
        _cleanup_free_ char *live = NULL, *live_path = charm_path(p, CHARM_PATH_SLURM_CONF);
        _cleanup_strbuf_ struct strbuf copy = STRBUF_INIT;
        int n = 0, self = -1;
        if (read_full_file(live_path, &live, NULL) < 0 ||
                sentinel_conf_private(live, hostname, &copy, &n, &self) < 0 || self < 0)
                return false;
        if (write_state(p, SELF_CONF_FILE, copy.buf, NULL) < 0)
                return false;
        _cleanup_free_ char *path = ctl_state_path(p, SELF_CONF_FILE);
        return slurm_ctl_self_in_charge(path, SELF_ASK_TIMEOUT_MS) == 1;
}
static bool ha_in_charge(const struct charm_paths *p, const struct ctl_inputs *in) {
        if (in->ha.order.n <= 1)
                return in->ha.self == 0;
        long idx = ha_heartbeat_fresh(in->state_dir, in->cfg_timeout);
        if (idx < 0)
                return false;
        /* the writer's list is the one its daemon runs: the order's, or (this unit being the
         * writer) the list this unit's slurmctld took last */
        _cleanup_free_ char *applied = NULL;
        long applied_idx = -1;
        if (read_state(p, CTL_APPLIED_FILE, &applied, NULL) >= 0 && applied)
                applied_idx = ctl_conf_controller_index(applied, strlen(applied), in->hostname);
        if (idx != in->ha.self && idx != applied_idx)
                return false;
        /* an index names an entry of its writer's list, which differs from this unit's while the
         * order changes: asked directly */
        return self_asked_in_charge(p, in->hostname);
}

/* Slurm 22.05's takeover bug (slurm_caps.backup_sched_lost): this unit's slurmctld took control
 * as a backup and runs without its main scheduler thread ("sched_agent"), so jobs start only at
 * backfill passes. It ends when the order makes this unit first (its claim, ha.h) and
 * slurmctld starts again as the primary; said in the status meanwhile. */
static void sched_lost_note(const struct charm_paths *p, sd_bus *bus, const struct ctl_inputs *in,
        struct strbuf *out) {
        struct unit_state st;
        if (!charm_caps(p)->backup_sched_lost || in->ha.order.n <= 1 || in->ha.self <= 0 || !ha_in_charge(p, in) ||
                unit_get_state(bus, "slurmctld.service", &st, NULL) < 0 || st.main_pid == 0)
                return;
        if (proc_thread_named((pid_t) st.main_pid, "sched_agent") == 0)
                strbuf_addstr(out,
                        "; its slurmctld took control without its main scheduler (Slurm 22.05's takeover "
                        "bug, fixed in 23.02.4): jobs start only at backfill passes until it starts again "
                        "as the primary");
}

/* Several controllers: when this unit's slurmctld is newly in charge, HA_IN_CHARGE_KEY in its
 * unit bag of every slurmd relation, so that the compute units check their registration
 * (charm/slurmctld/ha.h). */
static int announce_charge(struct juju_ctx *ctx, const struct slurmctld_opts *o, sd_bus *bus,
        const struct ctl_inputs *in, struct strbuf *err) {
        struct unit_state st;
        if (in->ha.order.n <= 1 || unit_get_state(bus, "slurmctld.service", &st, NULL) < 0)
                return 0;
        _cleanup_free_ char *dir = charm_path(&o->paths, CHARM_PATH_STATE_DIR);
        int r = ha_charge_note(dir, ha_in_charge(&o->paths, in), st.active_enter_usec, err);
        if (r <= 0)
                return r;
        _cleanup_free_ char *now = xasprintf("%lld", (long long) time(NULL));
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                r = juju_relation_set(ctx, in->slurmd_rels.v[i], false, HA_IN_CHARGE_KEY, now, err);
                if (r < 0)
                        return r;
        }
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                "slurmctld in charge (a failover, failback or takeover): the compute units check that "
                "their node is registered");
        return 0;
}

/* What the quick status refresh of compute unit events needs to say the role too
 * (<state>/ROLE_FILE: "<self> <timeout> <state dir> <host> <host>…"; none with one controller). */
#define ROLE_FILE "controllers"

static void ha_role_line(const struct ctl_inputs *in, struct strbuf *out, struct strbuf *app) {
        _cleanup_strv_ struct strv hosts = STRV_INIT;
        for (size_t i = 0; i < in->controllers.n; i++)
                strv_pushf(&hosts, "%.*s", (int) strcspn(in->controllers.v[i], "("), in->controllers.v[i]);
        role_line(in->ha.self, in->state_dir, in->cfg_timeout, hosts.v, hosts.n, out, app);
}

static int role_store(const struct charm_paths *p, const struct ctl_inputs *in, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        if (in->ha.order.n > 1) {
                strbuf_addf(&s, "%ld %lld %s", in->ha.self, (long long) in->cfg_timeout, in->state_dir);
                for (size_t i = 0; i < in->controllers.n; i++)
                        strbuf_addf(
                                &s, " %.*s", (int) strcspn(in->controllers.v[i], "("), in->controllers.v[i]);
        }
        return write_state(p, ROLE_FILE, s.buf ? s.buf : "", err);
}

/* The role line from <state>/ROLE_FILE (nothing with one controller). */
static void role_from_store(const struct charm_paths *p, struct strbuf *out, struct strbuf *app) {
        _cleanup_free_ char *data = NULL;
        _cleanup_strv_ struct strv w = STRV_INIT;
        if (read_state(p, ROLE_FILE, &data, NULL) < 0 || isempty(data))
                return;
        char *save = NULL;
        for (char *t = strtok_r(data, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
                strv_push(&w, t);
        if (w.n < 4)
                return;
        role_line(atol(w.v[0]), w.v[2], atoll(w.v[1]), w.v + 3, w.n - 3, out, app);
}

/* Whether this unit may run slurmctld now: 0 yes; 1 no, with the outcome set (and slurmctld
 * stopped when it must not run: a unit that is not one of the controllers); negative errno. */
/* The standby hold (charm/slurmctld/standby.h): this unit was moved behind another by a takeover and job
 * steps that may ask it first still run: 1 with slurmctld stopped and the outcome set, 0 when
 * it may run (its record removed), negative errno. */
#define STANDBY_RELEASED_FILE "standby-released"
static int standby_gate(struct juju_ctx *ctx, const struct charm_paths *paths, struct ctl_inputs *in,
        sd_bus *bus, uint64_t timeout_usec, struct charm_outcome *out, struct strbuf *err) {
        struct unit_state st;
        int r = unit_get_state(bus, "slurmctld.service", &st, err);
        if (r < 0)
                return r;
        bool active = !streq(st.active_state, "inactive") && !streq(st.active_state, "failed");
        if (in->ha.self <= 0 || in->ha.displaced_since <= 0 || (active && ha_in_charge(paths, in)))
                return standby_record_clear(paths, err);
        /* this unit is taking charge (its takeover, or its claim, pending or announced): never
         * held (the heartbeat may still name the one it relieves) */
        {
                _cleanup_free_ char *taker = NULL;
                time_t when = 0;
                const char *self = juju_env(ctx)->unit;
                /* the request in the bag is written only after the takeover succeeded; the mark
                 * before it, so with it this unit's slurmctld must run (a failed takeover on a
                 * held unit left a mark that ended the hold: attack 3, F1) */
                if (streq_ptr(in->ha.takeover, self) ||
                        (active && ha_takeover_read(in->state_dir, &taker, &when) >= 0 && streq(taker, self) &&
                                time(NULL) - when < HA_TAKEOVER_WAIT_S))
                        return standby_record_clear(paths, err);
        }
        /* a running slurmctld is stopped only while another controller is surely in charge */
        long boss = ha_heartbeat_fresh(in->state_dir, in->cfg_timeout);
        if (active && (boss < 0 || boss == in->ha.self))
                return standby_record_clear(paths, err);
        _cleanup_free_ char *released = NULL, *mark = xasprintf("%lld", (long long) in->ha.displaced_since);
        r = read_state(paths, STANDBY_RELEASED_FILE, &released, err);
        if (r < 0)
                return r;
        if (streq_ptr(released, mark))
                return standby_record_clear(paths, err);
        /* the sentinel ended the hold ahead of SlurmctldTimeout (charm/slurmctld/standby.h): this unit's
         * slurmctld is left to start (or run) while no heartbeat was written since; one written
         * again voids that (a late controller, not a lost one) and the hold comes back */
        time_t now = time(NULL), beat_now = 0;
        int64_t age = ha_heartbeat_age(in->state_dir, now, &beat_now, NULL);
        {
                time_t when = 0, beat_then = 0;
                if (standby_early_read(paths, &when, &beat_then) > 0) {
                        if (standby_early_valid(now, when, beat_then, age >= 0, beat_now, (unsigned) in->cfg_timeout))
                                return standby_record_clear(paths, err);
                        r = standby_early_clear(paths, err);
                        if (r < 0)
                                return r;
                }
        }
        /* no controller in charge (the heartbeat older than SlurmctldTimeout): this one is the
         * standby that is missing, and the job query would wait on the lost controller */
        if (boss < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "standby hold: no controller in charge; slurmctld runs, and its sentinel has it "
                        "take control at once");
                return standby_record_clear(paths, err);
        }
        uint32_t example = 0;
        _cleanup_strbuf_ struct strbuf q = STRBUF_INIT;
        /* the heartbeat's age: a late one keeps the hold without the query, which would wait on
         * a controller that may be lost past the sentinel's early end (review 11, F1); else the
         * query is bounded by the time left before that end */
        int n;
        if (standby_heartbeat_late(age, (unsigned) in->cfg_timeout)) {
                n = -ETIMEDOUT;
                strbuf_addf(&q, "the controller in charge is late: its heartbeat is %lld s old",
                        (long long) age);
        } else
                n = standby_old_jobs(in->ha.displaced_since, charm_caps(paths)->stepd_conf_push,
                        standby_query_timeout_ms(age, (unsigned) in->cfg_timeout), &example, &q);
        if (n == -ETIMEDOUT) {
                /* the controller in charge is slow or hung, not lost (its heartbeat is fresh):
                 * the hold stays (the sentinel ends it once the heartbeat goes stale); before,
                 * a slow answer started a standby ahead of old steps (attack 3, F5) */
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "standby hold: the job list is unreadable (%s); held while the controller in "
                        "charge writes its heartbeat",
                        q.buf);
                n = 1;
        } else if (n < 0) {
                /* refused, not slow (24.11: a client on a machine whose slurmctld is stopped may
                 * get no token, "Protocol authentication error"): nothing to hold for */
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "standby hold: the job list is unreadable (%s); slurmctld may run", q.buf);
                return standby_record_clear(paths, err);
        }
        if (n == 0) {
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                        "standby hold over: no job runs that started under the controller order before %s",
                        mark);
                r = write_state(paths, STANDBY_RELEASED_FILE, mark, err);
                return r < 0 ? r : standby_record_clear(paths, err);
        }
        if (active) {
                r = unit_stop(bus, "slurmctld.service", timeout_usec, err);
                if (r < 0)
                        return r;
        }
        r = standby_record_write(paths, in->ha.displaced_since, n, example, err);
        if (r < 0)
                return r;
        if (!example)
                charm_outcome_set(out, JUJU_STATUS_WAITING,
                        "held as a standby: the job list is unreadable now (%s), and jobs that started "
                        "under the old controller order may run; their steps would ask this unit first",
                        q.buf);
        else
                charm_outcome_set(out, JUJU_STATUS_WAITING,
                        "held as a standby until %d job%s that started under the old controller order end%s "
                        "(job %u): their steps ask the controllers in the order they started with, and a "
                        "standby ahead of %s would refuse their completion",
                        n, n == 1 ? "" : "s", n == 1 ? "s" : "", example,
                        in->ha.order.n ? in->ha.order.v[0] : "the first");
        return 1;
}

/* A takeover of another unit that the leader has not put first yet: announced in the peer
 * bags, or in the shared directory by the action itself (ha_takeover_mark, within
 * HA_TAKEOVER_WAIT_S). Returns that unit's name (NULL: none), *ret_at its index in the order
 * (-1: not in it); *ret_announced holds the name read from the directory (caller frees). */
static const char *takeover_pending(
        struct juju_ctx *ctx, const struct ctl_inputs *in, char **ret_announced, long *ret_at) {
        time_t when = 0;
        const char *who = in->ha.takeover;
        *ret_at = -1;
        if (!who && ha_takeover_read(in->state_dir, ret_announced, &when) >= 0 &&
                time(NULL) - when < HA_TAKEOVER_WAIT_S)
                who = *ret_announced;
        if (!who || streq(who, juju_env(ctx)->unit))
                return NULL;
        for (size_t i = 0; i < in->ha.order.n; i++)
                if (streq(in->ha.order.v[i], who))
                        *ret_at = (long) i;
        return who;
}

/* The sentinel's fence record there (charm/slurmctld/fence.h): the unit waits, saying why, and
 * the hook ends (nothing more is asked of a slurmctld held down; on 24.11 no client call works
 * without it: the sack socket is its). True when fenced. */
static bool fenced_outcome(const struct charm_paths *paths, struct charm_outcome *out) {
        _cleanup_free_ char *why = NULL;
        if (fence_record_read(paths, NULL, NULL, &why) == 0)
                return false;
        charm_outcome_set(out, JUJU_STATUS_WAITING,
                "fenced: %s; slurmctld held down until the controller in charge answers here "
                "(the sentinel then runs the charm)",
                why ? why : "unreadable fence record");
        return true;
}

struct start_look {
        struct juju_ctx *ctx;
        const struct charm_paths *paths;
        const struct ctl_inputs *in;
};

/* ctl_apply_opts.may_start: the gate's takeover check again right before slurmctld starts
 * (attack F3: the takeover action on another machine may have announced itself since the gate
 * read the mark, a hook's length before; started now, this unit would take control back). */
static int start_look(void *data, struct strbuf *why) {
        const struct start_look *l = data;
        _cleanup_free_ char *announced = NULL, *fenced = NULL;
        long at;
        /* the sentinel's fence (charm/slurmctld/fence.h), also one written during this hook */
        if (fence_record_read(l->paths, NULL, NULL, &fenced) != 0) {
                strbuf_addf(why, "fenced: %s; slurmctld held down until the controller in charge answers here",
                        fenced ? fenced : "unreadable fence record");
                return 1;
        }
        const char *who = takeover_pending(l->ctx, l->in, &announced, &at);
        if (!who || at <= l->in->ha.self)
                return 0;
        strbuf_addf(why,
                "%s took over while this hook ran: slurmctld here stays as it is until the leader "
                "makes %s the primary",
                who, who);
        return 1;
}

/* ctl_apply_opts.start_stopped: the sentinel fenced this unit since the start began (the
 * process it killed took charge while another controller was in charge; the fence may be
 * lifted already), or the start is held now. */
static int start_stopped(void *data, time_t began, struct strbuf *why) {
        const struct start_look *l = data;
        _cleanup_free_ char *fenced = NULL;
        if (fence_since(l->paths, began, &fenced) > 0) {
                strbuf_addf(why, "fenced: %s", strempty(fenced));
                return 1;
        }
        return start_look(data, why);
}

static int ha_gate(struct juju_ctx *ctx, const struct charm_paths *paths, struct ctl_inputs *in,
        sd_bus *bus, uint64_t timeout_usec, struct charm_outcome *out, struct strbuf *err) {
        if (in->ha.self < 0) {
                struct unit_state st;
                int r = unit_get_state(bus, "slurmctld.service", &st, err);
                if (r < 0)
                        return r;
                if (!streq(st.active_state, "inactive") && !streq(st.active_state, "failed")) {
                        /* "This host not a valid controller": it must not run */
                        r = unit_stop(bus, "slurmctld.service", timeout_usec, err);
                        if (r < 0)
                                return r;
                }
                if (in->ha.not_shared_with)
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                                "state-save-location %s is not shared with %s (its marker is not there): "
                                "two "
                                "controllers with private state directories lose jobs; mount one shared "
                                "directory on every unit",
                                isempty(in->cfg_state_dir) ? CHARM_PATH_STATESAVE : in->cfg_state_dir,
                                in->ha.not_shared_with);
                else
                        charm_outcome_set(out, JUJU_STATUS_WAITING,
                                "not one of the controllers yet: the leader adds a unit once its state "
                                "directory is proven shared");
                return 1;
        }
        /* a takeover the leader has not put first yet (announced in the peer bags, or in the
         * shared directory by the action itself, recently): a unit ahead of it must not start
         * again (it would take control back: the primary always does) */
        _cleanup_free_ char *announced = NULL;
        long at = -1;
        const char *who = takeover_pending(ctx, in, &announced, &at);
        if (who) {
                if (at > in->ha.self) {
                        charm_outcome_set(out, JUJU_STATUS_WAITING,
                                "%s took over: waiting for the leader to make it the primary", who);
                        return 1;
                }
                /* first now: the others start as its backups once it runs the new list (until
                 * then clients with its old list would ask a standby first and hang) */
                _cleanup_free_ char *order = strv_join(&in->ha.order, " ");
                if (at == 0 && announced && !streq_ptr(in->ha.first_serving, order)) {
                        charm_outcome_set(out, JUJU_STATUS_WAITING,
                                "%s took over: waiting for it to run as the primary", who);
                        return 1;
                }
        }
        /* another controller in charge behind this one in the order (its sentinel's charge
         * mark, renewed every 2 s): a stopped slurmctld here stays stopped until the leader has
         * moved that one first (its claim, claim_first), whatever the fence or a hook's timing */
        if (in->ha.order.n > 1) {
                struct unit_state st;
                int r = unit_get_state(bus, "slurmctld.service", &st, err);
                if (r < 0)
                        return r;
                _cleanup_free_ char *boss = NULL;
                long idx;
                time_t t;
                if ((streq(st.active_state, "inactive") || streq(st.active_state, "failed")) &&
                        ha_charge_mark_read(in->state_dir, &idx, &t, &boss) >= 0 &&
                        llabs((long long) (time(NULL) - t)) <= (long long) in->cfg_timeout &&
                        ha_charge_behind(&in->ha.controllers, in->hostname, boss)) {
                        charm_outcome_set(out, JUJU_STATUS_WAITING,
                                "%s is in charge: waiting for the leader to make it the primary", boss);
                        return 1;
                }
        }
        return standby_gate(ctx, paths, in, bus, timeout_usec, out, err);
}

/* Several controllers: a backup whose slurmctld is in charge (a failover) asks to be made the
 * primary, as the takeover action does, so that control never goes back by itself to a
 * controller that was away (issue 25): the takeover mark in the shared directory first (no unit
 * ahead of it starts meanwhile, ha_gate), then the request in its peer bag for the leader. */
static int claim_first(struct juju_ctx *ctx, const struct slurmctld_opts *o, sd_bus *bus,
        const struct ctl_inputs *in, struct strbuf *err) {
        const char *self = juju_env(ctx)->unit;
        struct unit_state st;
        if (in->ha.order.n <= 1 || in->ha.self <= 0 || !in->peer_rel || streq_ptr(in->ha.takeover, self) ||
                !ha_in_charge(&o->paths, in) || unit_get_state(bus, "slurmctld.service", &st, NULL) < 0 ||
                !streq(st.active_state, "active"))
                return 0;
        uid_t uid;
        gid_t gid;
        int r = charm_lookup_user(o->paths.slurm_user, "slurm", &uid, &gid, err);
        if (r >= 0)
                r = ha_takeover_mark(in->state_dir, self, uid, gid, err);
        if (r >= 0)
                r = ha_request_first(ctx, in->peer_rel, err);
        if (r < 0)
                return r;
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                "slurmctld took charge as backup %ld (a failover): asking the leader to make this unit the "
                "primary, so that control does not go back to %s, which was away",
                in->ha.self, in->ha.order.v[0]);
        return 1;
}

/* --- GPU nodes (charm/common/gres.h) ----------------------------------------------------------------- */

/* A compute unit's own event: its GPU device files into the record. 1 when the record changed
 * (the full reconcile renders gres.conf), 0 when the quick status refresh is enough. */
static int gres_event(struct juju_ctx *ctx, const struct slurmctld_opts *o, const struct juju_env *env,
        struct strbuf *err) {
        _cleanup_(gres_state_freep) cJSON *st = NULL;
        bool gone = streq(env->relation_event, "departed");
        const char *unit = gone ? env->departing_unit : env->remote_unit;
        const char *value = NULL;
        int r;
        if (isempty(unit))
                return 0;
        r = gres_state_load(&o->paths, &st, err);
        if (r >= 0 && !gone)
                r = juju_relation_get_value(ctx, env->relation_id, unit, GRES_UNIT_KEY, &value, err);
        if (r < 0)
                return r;
        if (gres_unit_update(st, unit, value, gone) == 0)
                return 0;
        r = gres_state_store(&o->paths, st, err);
        return r < 0 ? r : 1;
}

/* gres.conf's text from the record (pruned of applications no longer related), and its stamp
 * on the slurm.conf template, so that every candidate the guard judges carries it (a refused
 * file is then recognized as such); refused unit data into in->refused. */
static int prepare_gres(const struct slurmctld_opts *o, const char *charm_dir, struct ctl_inputs *in,
        struct strbuf *text, struct strbuf *tmpl, struct strbuf *err) {
        _cleanup_free_ char *tmpl_path = charm_template_path(&o->paths, charm_dir, GRES_TEMPLATE),
                            *head = NULL;
        int r = gres_state_load(&o->paths, &in->gres, err);
        if (r < 0)
                return r;
        if (gres_prune(in->gres, &in->slurmd_apps) > 0) {
                r = gres_state_store(&o->paths, in->gres, err);
                if (r < 0)
                        return r;
        }
        gres_refusals(in->gres, &in->refused);
        r = read_full_file(tmpl_path, &head, NULL);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", tmpl_path, strerror(-r));
                return r;
        }
        gres_render(in->gres, head, text);
        ctl_conf_stamp("gres.conf", text->buf, tmpl);
        return 0;
}

/* The node names of the compute units in a slurmd relation now (the departing one left out,
 * as relation-list does). */
static int present_nodes(struct juju_ctx *ctx, const struct ctl_inputs *in, struct strv *ret, struct strbuf *err) {
        for (size_t i = 0; i < in->slurmd_rels.n; i++) {
                _cleanup_strv_ struct strv units = STRV_INIT;
                int r = juju_relation_list(ctx, in->slurmd_rels.v[i], &units, err);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < units.n; k++)
                        strv_push_take(ret, charm_node_name(units.v[k]));
        }
        return 0;
}

/* The nodes this unit knows are leaving (ctl_status_from_slurm's candidates): the departing
 * unit's of this hook, and those of the open "leaving" expectations. */
static void leaving_candidates(const struct charm_paths *paths, const struct juju_env *env, struct strv *ret) {
        if (is_unit_event_on_slurmd(env) && streq(env->relation_event, "departed") && env->departing_unit)
                strv_push_take(ret, charm_node_name(env->departing_unit));
        nodeevents_leaving(paths, ret);
}

/* secret-remove: a revision of a secret this application owns that no unit tracks any more (the
 * auth key's before a rotation's stage) is removed, so that a key rotated out is not kept in
 * the secret store (attack helper-69 F4). The status is left as it is. */
static int obsolete_revision_remove(struct juju_ctx *ctx, struct charm_outcome *out, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        out->skip_status = true;
        char *end = NULL;
        errno = 0;
        unsigned long rev = env->secret_revision ? strtoul(env->secret_revision, &end, 10) : 0;
        if (isempty(env->secret_id) || rev == 0 || errno || !end || *end || rev > UINT_MAX) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "secret-remove: no secret id or revision given");
                return 0;
        }
        int r = juju_secret_remove(ctx, env->secret_id, (unsigned) rev, err);
        if (r >= 0)
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "secret %s: revision %lu removed (no unit uses it)",
                        env->secret_id, rev);
        return r;
}

int slurmctld_reconcile(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct charm_outcome *out,
        struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_free_ char *leaving_marker = ctl_state_path(&o->paths, UNIT_LEAVING_FILE);
        __attribute__((__cleanup__(ctl_inputs_done))) struct ctl_inputs in = CTL_INPUTS_INIT;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, note = STRBUF_INIT;
        _cleanup_(ctl_leaving_clear) struct ctl_leaving leaving = CTL_LEAVING_INIT;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result g = CTL_GUARD_RESULT_INIT;
        _cleanup_(ctl_apply_result_done) struct ctl_apply_result applied = CTL_APPLY_RESULT_INIT;
        _cleanup_(acct_view_done) struct acct_view acct = ACCT_VIEW_INIT;
        _cleanup_free_ char *tmpl_path = NULL, *tmpl = NULL, *conf_path = NULL, *old = NULL, *etc = NULL,
                            *params_applied = NULL;
        struct ctl_controller ctl[SLURMD_IFACE_MAX_CONTROLLERS];
        size_t tmpl_len = 0, old_len = 0;
        int r, key_changed;

        /* this unit is being removed: Juju's relation-departed naming it as the departing unit
         * comes first (then -broken, stop). Nothing of the cluster is this unit's business any
         * more: it hands over and stops (a slurmd-relation-broken handled as usual would make
         * the partitions INACTIVE on the live cluster) */
        if (streq_ptr(o->event, "stop") || streq_ptr(env->departing_unit, env->unit) ||
                access(leaving_marker, F_OK) == 0)
                return controller_leave(ctx, o, out, err);
        if (streq_ptr(o->event, "secret-remove"))
                return obsolete_revision_remove(ctx, out, err);
        r = charm_packages_ensure(o->event, "slurmctld", err);
        if (r < 0)
                return r;
        {
                /* the admin's maintenance: nothing is started or written (charm/common/pause.h) */
                char *services[3];
                charm_services(&o->paths, "slurmctld.service", services);
                r = charm_paused_gate(NULL, &o->paths, env->unit, services, out, err);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        /* fenced by the sentinel (charm/slurmctld/fence.h): slurmctld stays down until it lifts the hold */
        if (fenced_outcome(&o->paths, out))
                return 0;
        if (is_unit_event_on_slurmd(env)) {
                departure_note(ctx, &o->paths, env);
                unit_actions_event(ctx, &o->paths, env);
        }
        r = 1;
        if (is_unit_event_on_slurmd(env)) {
                /* its GPUs (gres.conf), its node's CPUs and memory (each partition's memory
                 * default, memdef.h): a record changed is a full reconcile */
                r = gres_event(ctx, o, env, err);
                int m = r < 0 ? 0 : memdef_event(ctx, o, env, err);
                if (m < 0)
                        r = m;
                else if (r >= 0)
                        r = r || m;
        }
        if (r == 0 && key_rotation_running(ctx))
                r = 1;
        if (r == 0) {
                /* items held back for the compute units' verdicts: this unit may have answered */
                _cleanup_free_ char *held = NULL;
                r = read_state(&o->paths, NODE_PROGS_HELD_FILE, &held, err);
                if (r >= 0 && !isempty(held))
                        r = 1;
        }
        if (r < 0)
                return r;
        if (r == 0) {
                /* dynamic nodes: a compute unit coming or going changes nothing here (unless its
                 * GPUs change gres.conf); the status is refreshed, keeping what the last full
                 * reconcile refused in front */
                _cleanup_free_ char *refused = NULL, *notes = NULL, *gate = NULL;
                bool leader = false;
                r = read_state(&o->paths, GATE_STATUS_FILE, &gate, err);
                if (r < 0)
                        return r;
                if (!isempty(gate)) {
                        /* not running slurmctld: the reason stays */
                        size_t n = strcspn(gate, " ");
                        gate[n] = '\0';
                        charm_outcome_set(out,
                                streq(gate, "blocked") ? JUJU_STATUS_BLOCKED : JUJU_STATUS_WAITING, "%s",
                                gate + n + 1);
                        return 0;
                }
                _cleanup_strv_ struct strv names = STRV_INIT;
                {
                        _cleanup_free_ char *live = NULL;
                        _cleanup_free_ char *live_path = charm_path(&o->paths, CHARM_PATH_SLURM_CONF);
                        size_t live_len = 0;
                        char host[HOST_NAME_MAX + 1] = "";
                        if (read_full_file(live_path, &live, &live_len) >= 0 &&
                                gethostname(host, sizeof host) == 0 && self_silent(&o->paths, host, live, live_len)) {
                                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, SILENT_MESSAGE,
                                        SELF_ANSWER_MS / 1000);
                                return 0;
                        }
                }
                _cleanup_strv_ struct strv cand = STRV_INIT, going = STRV_INIT;
                leaving_candidates(&o->paths, env, &cand);
                if (ctl_status_from_slurm(out, &cand, &names, &going, &e) < 0) {
                        out->skip_status = true;
                        return 0;
                }
                expect_change(ctx, &o->paths, env, &names);
                r = read_state(&o->paths, REFUSED_STATUS_FILE, &refused, err);
                if (r >= 0)
                        r = read_state(&o->paths, NOTES_STATUS_FILE, &notes, err);
                if (r >= 0)
                        r = juju_is_leader(ctx, &leader, err);
                if (r < 0)
                        return r;
                if (!isempty(notes))
                        strbuf_addf(&out->message, "; %s", notes);
                /* pending jobs that need the departing node or a gone one (charm/common/strand.h) */
                strand_status_note(&going, false, NULL, &out->message);
                /* site trigger programs this machine lacks (charm/slurmctld/trigops.h) */
                trigops_status_note(&o->paths, &out->message);
                _cleanup_strbuf_ struct strbuf role = STRBUF_INIT, app = STRBUF_INIT;
                role_from_store(&o->paths, &role, &app);
                if (role.len) {
                        _cleanup_free_ char *rest = xstrdup(out->message.buf);
                        strbuf_reset(&out->message);
                        strbuf_addf(&out->message, "%s; %s", role.buf, rest);
                }
                if (!isempty(refused)) {
                        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                        strbuf_addf(&msg, "%s; %s", refused, out->message.buf);
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s", msg.buf);
                }
                out->set_app_status = leader;
                out->app_status = out->status;
                if (leader)
                        out->app_message = app_message_of(out->message.buf, &role, &app);
                return 0;
        }

        r = read_inputs(ctx, &o->paths, &in, out, err);
        if (r != 0)
                return r < 0 ? r : 0;
        if (in.leader) {
                r = publish_generation(ctx, &o->paths, &in, err);
                if (r >= 0)
                        r = publish_login(ctx, &o->paths, &in, NULL, err);
                if (r < 0)
                        return r;
        }

        conf_path = charm_path(&o->paths, CHARM_PATH_SLURM_CONF);
        r = read_full_file(conf_path, &old, &old_len);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "%s: %s", conf_path, strerror(-r));
                return r;
        }
        /* a 24.11.5 reconfigure stuck after its state save (ctlhang.h; its log first, no RPC):
         * cured before anything below asks the daemon (each call would wait MessageTimeout
         * twice: the sentinel's run killed it 22 s after it started) */
        if (hang_in_log(o) && self_silent(&o->paths, in.hostname, old, old_len) && hang_outcome(ctx, o, NULL, out))
                return 0;
        r = leaving_update(o, &in, old, old_len, count_present(&in, old, old_len), &leaving, &note, err);
        if (r < 0)
                return r;

        tmpl_path = charm_template_path(&o->paths, env->charm_dir, "slurm.conf");
        r = read_full_file(tmpl_path, &tmpl, &tmpl_len);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", tmpl_path, strerror(-r));
                return r;
        }
        /* GPU nodes: gres.conf's text, stamped on the template (charm/common/gres.h) */
        _cleanup_strbuf_ struct strbuf gres_text = STRBUF_INIT, cgroup_text = STRBUF_INIT,
                                       mpi_text = STRBUF_INIT, stamped = STRBUF_INIT;
        strbuf_add(&stamped, tmpl, tmpl_len);
        r = prepare_gres(o, env->charm_dir, &in, &gres_text, &stamped, err);
        if (r >= 0)
                r = cgroup_conf_render(&o->paths, env->charm_dir, &cgroup_text, err);
        if (r < 0)
                return r;
        ctl_conf_stamp("cgroup.conf", cgroup_text.buf, &stamped);
        /* mpi.conf where the generation needs one (charm/slurmctld/mpiconf.h): its digest only
         * then, so a generation without it keeps the slurm.conf it had */
        mpi_conf_render(&o->paths, &mpi_text);
        if (mpi_text.len > 0)
                ctl_conf_stamp("mpi.conf", mpi_text.buf, &stamped);
        free(tmpl);
        tmpl_len = stamped.len;
        tmpl = strbuf_detach(&stamped, NULL);
        r = read_state(&o->paths, PARAMS_APPLIED_FILE, &params_applied, err);
        if (r < 0)
                return r;
        /* slurmd's programs wait for every compute unit's verdict (charm/common/nodeprogs.h) */
        _cleanup_(node_progs_gate_done) struct node_progs_gate pg = NODE_PROGS_GATE_INIT;
        r = node_progs_votes_gate(ctx, &in, params_applied, &pg, err);
        if (r >= 0)
                r = write_state(&o->paths, NODE_PROGS_HELD_FILE, pg.held && in.leader ? "1" : "", err);
        if (r < 0)
                return r;
        node_progs_status(&pg, &in);
        enum memdef_mode memdef_mode = MEMDEF_NONE;
        r = memdef_inputs(ctx, &o->paths, &in, &memdef_mode, err);
        if (r < 0)
                return r;

        /* what the other controller units refused, and an admin's retry-refused there */
        _cleanup_(judge_input_done) struct judge_input judge = { .paths = &o->paths };
        r = peer_refusals(ctx, &in, &judge, err);
        if (r >= 0)
                r = refused_forget_follow(ctx, &o->paths, &judge.forget_at, err);
        if (r < 0)
                return r;
        /* the running file refused by another controller unit's slurmctld (this unit took it
         * before that refusal came: ctlrefshare.h): the settings before it are the last good
         * ones, so that the guard renders them and this unit goes back to them */
        _cleanup_free_ char *params_previous = NULL;
        const char *params_last = params_applied;
        bool live_refused = false;
        if (old && params_applied) {
                _cleanup_free_ char *why = NULL;
                if (ctl_refshare_match(&judge.peers, old, old_len, judge.forget_at, (int64_t) time(NULL), &why) == 1) {
                        r = read_state(&o->paths, PARAMS_PREVIOUS_FILE, &params_previous, err);
                        if (r < 0)
                                return r;
                        if (params_previous) {
                                params_last = params_previous;
                                live_refused = true;
                                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                        "the running slurm.conf was refused by slurmctld %s: back to the "
                                        "slurm-conf-parameters before it",
                                        why);
                        }
                }
        }

        /* every input checked; a bad one keeps its last good value (ctlguard.h) */
        const char *deflt = in.cfg_default_partition;
        if (!isempty(deflt) && !slurmd_iface_usable_app_name(deflt)) {
                strv_pushf(&in.refused, "default-partition: \"%.40s\" is not an application name", deflt);
                deflt = NULL;
        }
        /* the node event log's receiver (charm/slurmctld/evpush.h): a bad URL is refused and the
         * pushing in place stays (NULL); empty stops it */
        _cleanup_free_ char *push_url = NULL;
        {
                _cleanup_strbuf_ struct strbuf pe = STRBUF_INIT;
                r = evpush_config(ctx, &push_url, &pe);
                if (r == -EINVAL)
                        strv_pushf(&in.refused, "%s (nothing changed)", pe.buf);
                else if (r < 0) {
                        strbuf_addbuf(err, &pe);
                        return r;
                } else if (r == 0)
                        push_url = xstrdup("");
        }
        /* the metrics exporter's port (charm/slurmctld/metricsep.h): a bad value is refused and
         * the exporter keeps the port it has */
        unsigned metrics_port = 0;
        {
                _cleanup_strbuf_ struct strbuf pe = STRBUF_INIT;
                r = metricsep_config(ctx, &metrics_port, &pe);
                if (r == -EINVAL) {
                        strv_pushf(&in.refused, "%s (nothing changed)", pe.buf);
                        _cleanup_free_ char *pf = metricsep_port_path(&o->paths);
                        if (metricsep_port_read(pf, &metrics_port) < 0)
                                metrics_port = 0;
                } else if (r < 0) {
                        strbuf_addbuf(err, &pe);
                        return r;
                }
        }
        _cleanup_strv_ struct strv ctl_copy = STRV_INIT; /* split_controllers() cuts its strings */
        strv_pushv(&ctl_copy, in.controllers.v);
        _cleanup_free_ struct ctl_guard_app *apps = xcalloc(in.slurmd_apps.n + 1, sizeof *apps);
        size_t n_apps = 0;
        for (size_t i = 0; i < in.slurmd_apps.n; i++)
                if (slurmd_iface_usable_app_name(in.slurmd_apps.v[i]))
                        apps[n_apps++] = (struct ctl_guard_app){ .name = in.slurmd_apps.v[i],
                                .data = in.data_ok[i] ? &in.data[i] : NULL };
        /* accounting: where slurmdbd serves (charm/slurmctld/accounting.h); a standby also
         * takes what the primary's slurmctld runs with (struct acct_standby) */
        struct acct_standby sb;
        bool standby = in.peer_rel && in.ha.order.n > 1 && in.ha.self > 0;
        if (standby)
                acct_standby_read(ctx, in.peer_rel, in.ha.order.v[0], in.state_dir, &sb);
        r = acct_read(ctx, &o->paths, standby ? &sb : NULL, &acct, err);
        if (r < 0)
                return r;
        if (acct.refused.len)
                strv_push(&in.refused, acct.refused.buf);
        if (acct.waiting.len)
                strv_push(&in.ignored, acct.waiting.buf);
        /* followed by the service watcher until slurmdbd answers (acctfollow.h) */
        r = acct_wait_record(&o->paths, &acct, err);
        if (r < 0)
                return r;
        /* accounting-enforce (charm/slurmctld/enforce.h): a bad value keeps the option's last
         * good one; not in the first file with slurmdbd */
        _cleanup_free_ char *enforce = NULL, *enforce_last = NULL;
        {
                const char *v = NULL;
                _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
                r = charm_config_string(ctx, ENFORCE_CONFIG_KEY, &v, err);
                if (r >= 0)
                        r = read_state(&o->paths, ENFORCE_APPLIED_FILE, &enforce_last, err);
                if (r < 0)
                        return r;
                enforce_choose(v, enforce_last, &enforce, &why);
                if (why.len)
                        strv_push(&in.refused, why.buf);
        }
        const enum enforce_stage enforce_stage = acct.hosts.n == 0 ? ENFORCE_NO_ACCOUNTING
                : enforce_accounting_live(old, old_len)               ? ENFORCE_APPLIED
                                                                      : ENFORCE_FIRST_START;
        struct ctl_guard_input gi = {
                .conf = {
                        .caps = charm_caps(&o->paths),
                        .template_path = tmpl_path,
                        .template_data = tmpl,
                        .template_len = tmpl_len,
                        .cluster_name = in.cluster_name,
                        .controllers = ctl,
                        .n_controllers = split_controllers(&ctl_copy, ctl, ELEMENTSOF(ctl)),
                        .default_partition = deflt,
                        .leaving = leaving.parts,
                        .n_leaving = leaving.n_parts,
                        .state_save_location = isempty(in.cfg_state_dir) ? NULL : in.cfg_state_dir,
                        .slurmctld_timeout = (int) in.cfg_timeout,
                        .accounting = acct.hosts.v,
                        .n_accounting = acct.hosts.n,
                        .accounting_enforce = enforce,
                        .accounting_enforce_wait = enforce_stage != ENFORCE_APPLIED,
                },
                .old_data = old,
                .old_len = old_len,
                .params = pg.params,
                .params_applied = params_last,
                .apps = apps,
                .n_apps = n_apps,
                .judge = judge_candidate,
                .judge_userdata = &judge,
                .judge_live = live_refused,
        };
        r = ctl_guard_render(&gi, &g, &e);
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s", e.buf);
                out->set_app_status = in.leader;
                out->app_status = JUJU_STATUS_BLOCKED;
                return 0;
        }
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }
        strv_pushv(&in.refused, g.refused.v);
        /* accounting-enforce beside slurm-conf-parameters' own key (enforce.h) */
        if (enforce && enforce_params_set(g.params_applied))
                strv_push(&in.ignored, "slurm-conf-parameters' " ENFORCE_SLURM_KEY ": " ENFORCE_CONFIG_KEY
                                       " comes first (yours is left out)");
        /* the admin's global defaults beside auto: each partition's own DefMemPerCPU wins over
         * them in Slurm, which the status says (the rendered line: a refused one changes
         * nothing, so the partitions do not depend on it) */
        if (memdef_mode == MEMDEF_AUTO) {
                const char *k = memdef_global_conflict(g.params_applied);
                if (k)
                        strv_pushf(&in.ignored,
                                "slurm-conf-parameters' %s: each partition's DefMemPerCPU from "
                                MEMDEF_CONFIG_KEY "=auto comes first (none: yours applies)",
                                k);
        }
        /* the keys were checked before anything is written (auth_keyring_read) */

        /* --- all inputs valid: write what differs --- */
        /* slurmctld's user first: no start, by anyone, with the new files as root (review R12) */
        r = unit_bus_open(&bus, err);
        if (r >= 0)
                r = ctl_user_dropin(o, env->charm_dir, bus, err);
        if (r < 0)
                return r;
        key_changed = auth_keyring_install(&o->paths, &in.keys, err);
        if (key_changed < 0)
                return key_changed;

        etc = charm_path(&o->paths, "/etc/slurm");
        r = mkdir_p(etc, 0755);
        if (r >= 0)
                r = charm_site_scripts_ensure(&o->paths, err);
        /* the charm's own state lives below it: nobody else's to rename (attack atk7 F4); not
         * when it is the state save location itself, which is SlurmUser's (review R7) */
        if (r >= 0 && !streq_ptr(in.cfg_state_dir, "/var/lib/slurm"))
                r = charm_root_dir_ensure(&o->paths, "/var/lib/slurm", err);
        if (r >= 0)
                r = cgroup_conf_write(&o->paths, cgroup_text.buf, cgroup_text.len, err);
        if (r >= 0)
                r = mpi_conf_write(&o->paths, mpi_text.buf, mpi_text.len, err);
        if (r < 0)
                return r;
        if (r >= 0) {
                _cleanup_free_ char *gres_path = charm_path(&o->paths, GRES_CONF_PATH);
                r = write_file_atomic_if_changed(gres_path, gres_text.buf, gres_text.len, 0644, 0, 0);
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", gres_path, strerror(-r));
                        return r;
                }
                r = write_file_atomic_if_changed(conf_path, g.conf.buf, g.conf.len, 0644, 0, 0);
        }
        if (r < 0) {
                strbuf_addf(err, "%s: %s", conf_path, strerror(-r));
                return r;
        }

        /* --- daemons --- (the bus opened above) */
        r = keys_load(o, bus, &in.keys, key_changed, err);
        if (r < 0)
                return r;

        struct unit_state st;
        r = unit_get_state(bus, "slurmctld.service", &st, err);
        if (r < 0)
                return r;
        if (o->automatic && watcher_daemon_status("slurmctld.service", &st, out) > 0)
                /* a watcher's run: no start that would reset systemd's start limit, so that a
                 * crash loop still ends in "failed" (templates/slurmctld.service.d) */
                return 0;
        if (!streq(st.active_state, "active") && g.rendered.n == 0 && leaving.n_parts == 0) {
                /* slurmctld 22.05 exits at start without a partition ("No PartitionName
                 * information available"): it starts with the first related application, and
                 * only then is the controller data published (slurmd would find no controller) */
                _cleanup_free_ char *why = strv_join(&in.refused, "; ");
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "%s%sno partition: relate a slurmd application%s", strempty(why),
                        in.refused.n ? "; " : "", in.n_waiting ? " (waiting for its data)" : "");
                if (in.n_waiting)
                        out->status = JUJU_STATUS_WAITING;
                return 0;
        }
        r = ha_gate(ctx, &o->paths, &in, bus, unit_timeout(o), out, err);
        if (r < 0)
                return r;
        /* kept for the quick status refresh of compute unit events: a unit that may not run
         * slurmctld says why there too */
        {
                _cleanup_free_ char *line = r > 0
                        ? xasprintf("%s %s", juju_status_name(out->status), out->message.buf)
                        : xstrdup("");
                int k = write_state(&o->paths, GATE_STATUS_FILE, line, err);
                if (k < 0)
                        return k;
        }
        if (r > 0)
                /* held or stopped here: the keys are read at its start (keys_follow) */
                return keys_follow(ctx, o, bus, &in, false, false, err);
        /* one bounded ping before any call to this unit's slurmctld, munge up by now (review R4) */
        bool silent = self_silent(&o->paths, in.hostname, old, old_len);
        /* asked once for both (ha_in_charge may ask this unit's slurmctld) */
        bool in_charge = ha_in_charge(&o->paths, &in);
        /* the leader keeps the departed nodes' placeholders, never one of these (strand.h) */
        _cleanup_strv_ struct strv present = STRV_INIT;
        if (in.leader) {
                r = present_nodes(ctx, &in, &present, err);
                if (r < 0)
                        return r;
        }
        struct start_look look = { .ctx = ctx, .paths = &o->paths, .in = &in };
        const struct ctl_apply_opts ao = {
                .present_nodes = in.leader ? &present : NULL,
                .silent = silent,
                .paths = &o->paths,
                .bus = bus,
                .self_host = in.hostname,
                .push = in.leader,
                .in_charge = in_charge,
                .hold_restart = in.ha.order.n > 1 && in.ha.self > 0 && in_charge,
                .unit_timeout_usec = unit_timeout(o),
                .answer_timeout_ms = o->answer_timeout_ms ? o->answer_timeout_ms : DEFAULT_ANSWER_TIMEOUT_MS,
                .previous = old,
                .previous_len = old_len,
                .may_start = in.ha.order.n > 1 ? start_look : NULL,
                .may_start_data = &look,
                .start_stopped = in.ha.order.n > 1 ? start_stopped : NULL,
                .acct_hosts = &acct.hosts,
        };
        r = acct_cluster_id_release(&o->paths, &acct, in.state_dir, err);
        if (r < 0)
                return r;
        if (r > 0)
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                        "%s/clustername: ClusterID dropped, slurmctld takes slurmdbd's (new slurmdbd hosts)",
                        in.state_dir);
        /* a backup made the primary takes control with the old list first (ctl_apply): announced
         * as a takeover, so that its sentinel knows the one in charge before stepped down for it
         * (charm/slurmctld/fence.h) and the others wait for it to run the new list (ha_gate) */
        if (old && in.ha.order.n > 1 && ctl_conf_controller_index(old, old_len, in.hostname) > 0 &&
                ctl_conf_controller_index(g.conf.buf, g.conf.len, in.hostname) == 0) {
                r = announce_takeover(ctx, o, env->unit, err);
                if (r < 0)
                        return r;
        }
        /* this unit's slurmctld silent (the ping before leaving_update): with the file
         * unchanged ctl_apply is skipped (it would only ask the daemon which file it read, and
         * on 24.11 wait for ever), and so is every call below that needs the daemon, not what
         * needs none (the watchers and the sentinel on new binaries at upgrade-charm, the
         * leader's relation data: review R5); a changed file is applied by a restart, never
         * live (ctl_apply_opts.silent: its restart may be the cure) */
        bool same_file = old && g.conf.len == old_len && memcmp(g.conf.buf, old, old_len) == 0;
        if (!silent || !same_file) {
                r = ctl_apply(&ao, g.conf.buf, g.conf.len, &applied, err);
                if (r < 0)
                        return r;
                /* a new file restarted it: the quick ping below says whether it answers now */
                silent = false;
        }
        /* what slurmctld refused here, for the other controller units' judges */
        r = refused_publish(ctx, &o->paths, &in, err);
        if (r >= 0)
                /* the keys, once slurmctld runs the file on disk (keyrotate.h) */
                r = keys_follow(ctx, o, bus, &in, in_charge, true, err);
        if (r < 0)
                return r;
        /* the start stopped by the fence or a hold (ctl_apply deferred the file, blaming
         * nothing): the daemon is down, so the hook ends here, as at the top for a fence; the
         * sentinel runs the charm when it lifts the fence */
        /* (also a fence that came during the restart's stop: held at the last look) */
        bool fenced = applied.action == CTL_APPLY_DEFERRED && fenced_outcome(&o->paths, out);
        if (applied.start_stopped || fenced) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s", applied.message.buf);
                if (!fenced)
                        charm_outcome_set(out, JUJU_STATUS_WAITING, "%s; the new slurm.conf waits",
                                applied.message.buf);
                return 0;
        }
        /* a held restart (CTL_APPLY_DEFERRED) leaves the daemon on its file: nothing of the new
         * one is taken yet */
        bool took = applied.action != CTL_APPLY_ROLLED_BACK && applied.action != CTL_APPLY_DEFERRED;
        if (took) {
                r = ha_publish_serving(ctx, in.peer_rel, in.peer_self, &in.ha.order, err);
                if (r < 0)
                        return r;
        }
        /* a start that failed for want of slurmdbd: its hosts stay out for a while (acct_read) */
        if (applied.acct_fault) {
                r = acct_defer(&o->paths, &acct, applied.message.buf, err);
                if (r < 0)
                        return r;
        }
        in.gres_served = applied.action != CTL_APPLY_ROLLED_BACK && !applied.acct_fault;
        if (applied.action == CTL_APPLY_ROLLED_BACK)
                strv_push(&in.refused, applied.message.buf);
        else if (took) {
                r = 0;
                if (params_applied && !streq(params_applied, strempty(g.params_applied)))
                        r = write_state(&o->paths, PARAMS_PREVIOUS_FILE, params_applied, err);
                if (r >= 0)
                        r = write_state(&o->paths, PARAMS_APPLIED_FILE, g.params_applied, err);
                if (r >= 0)
                        r = acct_store(&o->paths, &acct, err);
                if (r >= 0)
                        r = in.peer_rel ? acct_peer_publish(ctx, &o->paths, in.peer_rel, in.peer_self, err) : 0;
                if (r >= 0)
                        r = write_state(&o->paths, ENFORCE_APPLIED_FILE, strempty(enforce), err);
                if (r < 0)
                        return r;
        }
        char *watched[3];
        size_t n_watched = charm_services(&o->paths, "slurmctld.service", watched);
        for (size_t i = 0; i < n_watched; i++) {
                r = watcher_install(&o->paths, bus, env->unit, watched[i], env->charm_dir,
                        streq_ptr(o->event, "upgrade-charm"), err);
                if (r < 0)
                        return r;
        }
        /* the sentinel: a job state save asked for after each job start (charm/slurmctld/sentinel.h) */
        r = sentinel_install(
                &o->paths, bus, env->unit, env->charm_dir, streq_ptr(o->event, "upgrade-charm"), err);
        if (r < 0)
                return r;

        if (in.leader) {
                r = node_progs_prepare(&pg, took ? g.params_applied : params_applied, &in, err);
                if (r >= 0)
                        r = publish(ctx, &o->paths, &in, &acct, err);
                if (r < 0)
                        return r;
        }
        /* slurmctld may have died since: one quick ping (no retries) before the calls below,
         * each of which libslurm would retry for MessageTimeout against a dead controller;
         * a crash loop's status must not wait behind them (the service watcher's handler runs
         * after this hook) */
        {
                _cleanup_strbuf_ struct strbuf w = STRBUF_INIT;
                int k = silent ? -ETIMEDOUT : ctl_wait_answer(bus, in.hostname, SELF_ANSWER_MS, &w);
                if (k == -ETIMEDOUT && ctl_conf_controller_index(g.conf.buf, g.conf.len, in.hostname) >= 0) {
                        /* this unit's slurmctld (one the file lists: else the ping went to the
                         * primary) runs but is silent or slow, e.g. a start that hangs in a
                         * plugin after the rollback too (attack atk7 F7: the status said active
                         * for 5 minutes without a controller). The calls below would each wait
                         * for it: MessageTimeout on 22.05, for ever on 24.11 (a client's
                         * credential comes from this slurmctld's sack socket, read with no
                         * timeout: update-status was killed at juju's deadline) */
                        /* or a 24.11.5 reconfigure stuck after its state save (ctlhang.h) */
                        if (hang_outcome(ctx, o, bus, out))
                                return 0;
                        charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, SILENT_MESSAGE, SELF_ANSWER_MS / 1000);
                        return 0;
                }
                if (k == -ESRCH) {
                        if (unit_get_state(bus, "slurmctld.service", &st, NULL) < 0 ||
                                watcher_daemon_status("slurmctld.service", &st, out) == 0)
                                charm_outcome_set(
                                        out, JUJU_STATUS_MAINTENANCE, "slurmctld not answering: %s", w.buf);
                        return 0;
                }
        }
        if (in.leader) {
                r = cleanup_nodes(ctx, o, &in, &leaving, &note, err);
                if (r < 0)
                        return r;
        }

        _cleanup_strv_ struct strv names = STRV_INIT, cand = STRV_INIT, going = STRV_INIT;
        leaving_candidates(&o->paths, env, &cand);
        r = ctl_status_from_slurm(out, &cand, &names, &going, &e);
        if (r < 0) {
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "slurmctld not answering: %s", e.buf);
                return 0;
        }
        /* a compute unit's event that took the full reconcile (its application's data changed
         * with it, or held items): the status follows its node's registration or deletion as
         * on the quick path (issue 28: with hooks at once, the controller's hook for a joining
         * unit often runs before that unit's slurmd registered) */
        if (is_unit_event_on_slurmd(env))
                expect_change(ctx, &o->paths, env, &names);
        /* asked of the controller in charge only when that is this unit's (a standby listed
         * first would hold the call for 1.5 x SlurmctldTimeout); not while the leader's own push
         * is due with no job running (its reconfigure, within seconds, gives every node the file:
         * a restart of each slurmd as well would only cost a drain each) */
        /* (a push file older than CONFPUSH_SOON_S says that reconfigure keeps failing, and a
         * deferred restart runs no push at all: the nodes are told then; review 12, F7) and not
         * by a backup in charge on a Slurm whose takeover keeps serving the bytes it started
         * with while its hash is the re-read file's (review 12, F2: every node would restart
         * for a file nobody serves) */
        _cleanup_free_ char *push_file = ctl_state_path(&o->paths, CTL_PUSH_FILE);
        struct stat pst;
        bool push_soon = applied.action != CTL_APPLY_DEFERRED && applied.push_note.len == 0 &&
                stat(push_file, &pst) == 0 && time(NULL) - pst.st_mtime < CONFPUSH_SOON_S;
        bool serves_unknown = in.ha.self > 0 && !charm_caps(&o->paths)->takeover_serves_conf;
        if (in.leader && in_charge && !push_soon && !serves_unknown) {
                r = publish_conf_hash(ctx, &in, present.n, err);
                if (r < 0)
                        return r;
        }
        r = role_store(&o->paths, &in, err);
        if (r < 0)
                return r;
        _cleanup_strbuf_ struct strbuf role = STRBUF_INIT, app = STRBUF_INIT;
        if (in.ha.order.n > 1) {
                /* several controllers: this one's role first ("backup 1, juju-m-0 in charge; …"),
                 * the application's says which one is in charge ("3 controllers, juju-m-0 in charge") */
                ha_role_line(&in, &role, &app);
                _cleanup_free_ char *rest = xstrdup(out->message.buf);
                strbuf_reset(&out->message);
                strbuf_addf(&out->message, "%s; %s", role.buf, rest);
                sched_lost_note(&o->paths, bus, &in, &out->message);
        }
        strbuf_addbuf(&out->message, &note);
        /* pending jobs that need a node that left: named, and held by the leader (strand.h) */
        strand_status_note(&going, in.leader, &present, &out->message);
        /* slurmdbd unreachable, or slurmctld holding many records for it (charm/slurmctld/accounting.h) */
        acct_status_note(&acct, &out->message);
        /* accounting-enforce: waiting for slurmdbd, or pending jobs it holds (enforce.h; kept
         * with the notes below) */
        _cleanup_strbuf_ struct strbuf enforce_note = STRBUF_INIT;
        {
                _cleanup_(enforce_waiting_done) struct enforce_waiting ew = ENFORCE_WAITING_INIT;
                bool counted = enforce && enforce_stage == ENFORCE_APPLIED && in_charge &&
                        enforce_waiting_load(&ew, NULL) >= 0;
                enforce_status_note(enforce, enforce_stage, counted ? &ew : NULL, &enforce_note);
        }
        if (in.n_waiting > 0)
                strbuf_addf(&out->message, "; %zu application%s not ready", in.n_waiting,
                        in.n_waiting == 1 ? "" : "s");
        if (!isempty(deflt) && !strv_contains(&g.rendered, deflt))
                strbuf_addf(&out->message,
                        "; default-partition \"%s\" is not related: the default is the oldest", deflt);
        /* what the file's application says (a push that waits for running jobs, …) is kept
         * with the notes: a compute unit's event refreshes the status without it otherwise */
        _cleanup_strv_ struct strv kept = STRV_INIT;
        if (applied.action != CTL_APPLY_ROLLED_BACK && applied.message.len > 0)
                strv_push(&kept, applied.message.buf);
        if (applied.push_note.len > 0)
                strv_push(&kept, applied.push_note.buf);
        strv_pushv(&kept, in.ignored.v);
        if (enforce_note.len > 2)
                strv_push(&kept, enforce_note.buf + 2); /* its "; " is the join's */
        _cleanup_free_ char *notes = strv_join(&kept, "; ");
        r = write_state(&o->paths, NOTES_STATUS_FILE, notes, err);
        if (r < 0)
                return r;
        if (!isempty(notes))
                strbuf_addf(&out->message, "; %s", notes);
        /* what an admin must fix comes first, and blocks the application as well; kept for
         * the quick status refresh of compute unit events */
        _cleanup_free_ char *why = strv_join(&in.refused, "; ");
        r = write_state(&o->paths, REFUSED_STATUS_FILE, why, err);
        if (r < 0)
                return r;
        if (in.refused.n > 0) {
                _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                strbuf_addf(&msg, "%s; %s", why, out->message.buf);
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s", msg.buf);
        }
        /* last of what can fail: the notice is recorded as given when it is queued, and a hook
         * that fails after that has its relation data dropped (Juju commits none of it) */
        r = claim_first(ctx, o, bus, &in, err);
        if (r >= 0)
                r = announce_charge(ctx, o, bus, &in, err);
        if (r < 0)
                return r;
        /* the node event log: watcher, triggers, reconcile (charm/slurmctld/nodeevents.h; never fails) */
        nodeevents_after_reconcile(ctx, &o->paths, bus, o->event, in.ha.self >= 0 ? in.state_dir : NULL, out);
        /* the compute units' own actions, every unit's list: a new leader, and hourly
         * (charm/slurmctld/unitacts.h) */
        if (in.leader && in.ha.self >= 0)
                unitacts_sweep(ctx, &o->paths, &in.slurmd_rels, streq_ptr(o->event, "leader-elected"));
        /* its consumer, once this unit is in the log (never fails the hook: said in the status);
         * a unit out of the controller order pushes nothing (review of evpush, 4) */
        {
                _cleanup_strbuf_ struct strbuf pe = STRBUF_INIT;
                const char *charm_dir = o->paths.charm_dir ? o->paths.charm_dir : juju_env(ctx)->charm_dir;
                if (evpush_apply(&o->paths, bus, juju_env(ctx)->unit, charm_dir, in.ha.self >= 0 ? push_url : "",
                            streq_ptr(o->event, "upgrade-charm"), &pe) < 0) {
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "event push: %s", pe.buf);
                        strbuf_addf(&out->message, "; event push: %s", pe.buf);
                }
                evpush_status_note(&o->paths, (int64_t) time(NULL) * 1000, &out->message);
        }
        /* the metrics exporter and the prometheus_scrape relation (never fail the hook: said in
         * the status); a unit out of the controller order serves nothing */
        {
                _cleanup_strbuf_ struct strbuf pe = STRBUF_INIT;
                const char *charm_dir = o->paths.charm_dir ? o->paths.charm_dir : juju_env(ctx)->charm_dir;
                unsigned port = in.ha.self >= 0 ? metrics_port : 0;
                _cleanup_free_ char *pf = metricsep_port_path(&o->paths);
                unsigned before = 0;
                (void) metricsep_port_read(pf, &before);
                r = metricsep_apply(&o->paths, bus, juju_env(ctx)->unit, charm_dir, port,
                        streq_ptr(o->event, "upgrade-charm"), &pe);
                /* Juju's opened ports follow the exporter's port file, told when it changed (its
                 * first start included), not at every hook, and also when the start failed (a
                 * squatted port: the file names the new port, the old one is no longer served) */
                unsigned after = 0;
                (void) metricsep_port_read(pf, &after);
                if (after != before && before)
                        (void) juju_close_port(ctx, before, "tcp", NULL);
                if ((after != before || r > 0) && after)
                        (void) juju_open_port(ctx, after, "tcp", NULL);
                if (r < 0) {
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "metrics exporter: %s", pe.buf);
                        strbuf_addf(&out->message, "; metrics exporter: %s", pe.buf);
                } else
                        metricsep_status_note(bus, port, r > 0 ? 3000 : 500, &out->message);
                metricsep_publish(ctx, charm_dir, port, in.leader, &out->message);
        }
        /* site trigger programs this machine lacks (charm/slurmctld/trigops.h) */
        trigops_status_note(&o->paths, &out->message);
        if (in.key_note.len)
                strbuf_addf(&out->message, "; %s", in.key_note.buf);
        out->set_app_status = in.leader;
        out->app_status = out->status;
        if (in.leader)
                out->app_message = app_message_of(out->message.buf, &role, &app);
        return 0;
}

int slurmctld_show_current_config(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err) {
        _cleanup_free_ char *path = charm_path(&o->paths, CHARM_PATH_SLURM_CONF), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, r == -ENOENT ? "not written yet" : strerror(-r));
                return r;
        }
        return juju_action_set(ctx, "slurm-conf", data, err);
}

static int reconcile_paths(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
        struct strbuf *err) {
        const struct slurmctld_opts o = { .paths = *paths, .event = "update-status" };
        return slurmctld_reconcile(ctx, &o, out, err);
}

/* retry-refused's time, now, in this unit's peer bag (and followed here: refused_forget_follow). */
static int refused_forget_everywhere(struct juju_ctx *ctx, const struct charm_paths *paths, struct strbuf *err) {
        _cleanup_strv_ struct strv ids = STRV_INIT;
        int r = juju_relation_ids(ctx, SLURMCTLD_PEER_ENDPOINT, &ids, err);
        if (r < 0 || ids.n == 0)
                return r;
        char t[32];
        /* (a record of this same second counts as forgotten: at <= the forget time) */
        snprintf(t, sizeof t, "%lld", (long long) time(NULL));
        r = juju_relation_set(ctx, ids.v[0], false, CTL_REFSHARE_FORGET_KEY, t, err);
        if (r >= 0)
                r = juju_relation_set(ctx, ids.v[0], false, CTL_REFSHARE_KEY, NULL, err);
        if (r < 0)
                return r;
        char line[34];
        snprintf(line, sizeof line, "%s\n", t);
        return write_state(paths, REFUSED_FORGET_SEEN_FILE, line, err);
}

int slurmctld_retry_refused(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err) {
        _cleanup_free_ char *paused = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        size_t n = 0;
        int r = ctl_refused_forget(&o->paths, &n, err);
        if (r < 0)
                return r;
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "retry-refused: %zu refused slurm.conf candidate%s forgotten",
                n, n == 1 ? "" : "s");
        /* every other controller unit forgets its own too, and its published ones are no longer
         * believed (ctlrefshare.h): the time goes to this unit's peer bag */
        r = refused_forget_everywhere(ctx, &o->paths, err);
        if (r < 0)
                return r;
        strv_push(&kv, "forgotten");
        strv_pushf(&kv, "%zu", n);
        r = charm_paused(&o->paths, &paused);
        if (r < 0) {
                strbuf_addf(err, "pause state: %s", strerror(-r));
                return r;
        }
        if (r > 0) {
                /* nothing starts on a paused unit: resume tries them */
                strv_push(&kv, "note");
                strv_pushf(&kv, "this unit is paused (%s): the values are tried at resume", paused);
                return juju_action_set_many(ctx, &kv, err);
        }
        /* the values tried now, as a hook would: a start bounded by the record of good ones,
         * and the previous file back if slurmctld still refuses (ctlapply.h) */
        return charm_action_reconcile(ctx, &o->paths, reconcile_paths, &kv, err);
}

int slurmctld_rotate_auth_key(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err) {
        __attribute__((__cleanup__(ctl_inputs_done))) struct ctl_inputs in = CTL_INPUTS_INIT;
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring next = AUTH_KEYRING_INIT;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strv_ struct strv ids = STRV_INIT, rels = STRV_INIT, kv = STRV_INIT;
        _cleanup_free_ char *paused = NULL;
        int r = juju_is_leader(ctx, &in.leader, err);
        if (r < 0)
                return r;
        if (!in.leader) {
                strbuf_addstr(err, "run it on the leader (slurmctld/leader): the leader owns the key");
                return -EPERM;
        }
        r = charm_paused(&o->paths, &paused);
        if (r != 0) {
                strbuf_addf(err, "this unit is paused (%s): nothing changed; resume it first", strempty(paused));
                return r < 0 ? r : -EBUSY;
        }
        r = juju_relation_ids(ctx, SLURMCTLD_PEER_ENDPOINT, &ids, err);
        if (r < 0)
                return r;
        const cJSON *app = NULL;
        if (ids.n > 0) {
                in.peer_rel = xstrdup(ids.v[0]);
                r = juju_relation_get(ctx, in.peer_rel, juju_env(ctx)->app, &app, err);
                if (r >= 0)
                        r = juju_relation_get(ctx, in.peer_rel, juju_env(ctx)->unit, &in.peer_self, err);
                if (r < 0)
                        return r;
        }
        const char *id = charm_bag_string(app, "auth_key_id");
        if (isempty(id)) {
                strbuf_addstr(err, "no auth key yet: nothing to rotate");
                return -ENOENT;
        }
        in.auth_key_id = xstrdup(id);
        strv_clear(&ids);
        r = juju_relation_ids(ctx, SLURMCTLD_SLURMD_ENDPOINT, &in.slurmd_rels, err);
        if (r >= 0)
                r = charm_relation_ids_live(ctx, LOGIN_ENDPOINT, &in.login_rels, err);
        if (r >= 0)
                r = key_rels(ctx, &in, &rels, err);
        if (r >= 0)
                r = keyrotate_start(ctx, in.auth_key_id, in.peer_rel, &rels,
                        charm_bag_string(in.peer_self, AUTH_KEYRING_ACK_KEY), &next, &kv, err);
        if (r < 0)
                return r;
        /* this unit takes the new stage now (its hooks move the next ones on) */
        r = unit_bus_open(&bus, err);
        if (r >= 0)
                r = auth_keyring_install(&o->paths, &next, err);
        if (r >= 0)
                r = keys_load(o, bus, &next, r, err);
        if (r >= 0) {
                /* a standby is restarted for the keys, the one in charge re-executes (keys_settle) */
                char host[HOST_NAME_MAX + 1];
                bool in_charge = gethostname(host, sizeof host) == 0 && self_asked_in_charge(&o->paths, host);
                r = keys_settle(o, bus, &next, in_charge, true, err);
        }
        if (r < 0)
                return r;
        if (r == 0) {
                /* (a slurm.conf not taken yet: its start loads the keys; the next hook confirms) */
                return juju_action_set_many(ctx, &kv, err);
        }
        r = charm_keys_confirm(ctx, in.peer_rel, &next, err);
        if (r < 0)
                return r;
        strv_pushl(&kv, "note",
                "each stage moves on once every unit confirmed the one before; the leader's status names the units "
                "it waits for, and says nothing of a rotation once it is done",
                NULL);
        return juju_action_set_many(ctx, &kv, err);
}

int slurmctld_pause(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err) {
        char *services[3];
        charm_services(&o->paths, "slurmctld.service", services);
        return charm_action_pause_unit(ctx, &o->paths, services, err);
}

int slurmctld_resume(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL, *why = NULL;
        /* the admin's word lifts a fence too (charm/slurmctld/fence.h): the one way back for a controller
         * that reaches no other controller's machine, its fence kept on for that */
        if (fence_record_read(&o->paths, NULL, NULL, &why) != 0) {
                int r = fence_record_clear(&o->paths, err);
                if (r < 0)
                        return r;
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "resume: the fence lifted by the admin (%s)",
                        why ? why : "unreadable record");
        }
        return charm_action_resume(ctx, &o->paths, reconcile_paths, &reason, err);
}

/* The action's force parameter (default false). */
static int takeover_force(struct juju_ctx *ctx, bool *ret, struct strbuf *err) {
        const cJSON *params = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        *ret = false;
        int r = juju_action_params(ctx, &params, err);
        if (r >= 0)
                r = charm_param_bool(params, "force", ret, &e);
        if (r == -EINVAL)
                strbuf_addf(err, "takeover: %s", e.buf);
        return r < 0 ? r : 0;
}

/* A takeover stops every controller ahead of this one. A running job whose steps may list only
 * those (started before this unit joined the order, STANDBY_JOINED_KEY, standby_job_lacks())
 * would have no controller to report its end to: its completion refused by held standbys, the
 * holds waiting for that job for good (attack 4, F-A). 0 when every running job lists this unit,
 * the unit's join time is unknown (an order from before the record), or force (the admin's
 * call: a warning in the result); -EBUSY with the reason, or the query's error. */
static int takeover_jobs_know_self(struct juju_ctx *ctx, const struct slurmctld_opts *o, const char *peer_rel,
        const char *host, bool force, struct strv *kv, struct strbuf *err) {
        const cJSON *app = NULL;
        int r = juju_relation_get(ctx, peer_rel, juju_env(ctx)->app, &app, err);
        if (r < 0)
                return r;
        time_t joined = standby_displaced_of(charm_bag_string(app, STANDBY_JOINED_KEY), juju_env(ctx)->unit);
        if (joined <= 0)
                return 0;
        uint32_t example = 0;
        _cleanup_strbuf_ struct strbuf q = STRBUF_INIT, why = STRBUF_INIT;
        int n = standby_lacking_jobs(joined, charm_caps(&o->paths)->stepd_conf_push, STANDBY_QUERY_TIMEOUT_MS,
                &example, &q);
        if (n == 0)
                return 0;
        if (n < 0)
                strbuf_addf(&why,
                        "the running jobs cannot be read (%s): whether their steps list %s, which joined "
                        "the controllers later than some of them may have started, is not known",
                        q.buf, host);
        else
                strbuf_addf(&why,
                        "%d running job%s (job %u) started before %s joined the controllers: %s steps "
                        "report their end only to the controllers listed then, which a takeover here would stop",
                        n, n == 1 ? "" : "s", example, host, n == 1 ? "its" : "their");
        if (force) {
                strv_push(kv, "warning");
                strv_pushf(kv, "force: taken over although %s", why.buf);
                return 0;
        }
        strbuf_addf(err, "takeover: %s; take over on one of those, or once %s, or with force=true; nothing changed",
                why.buf, n < 0 ? "the jobs can be read" : n == 1 ? "it has ended" : "they have ended");
        return n < 0 ? n : -EBUSY;
}

int slurmctld_takeover(struct juju_ctx *ctx, const struct slurmctld_opts *o, struct strbuf *err) {
        _cleanup_strv_ struct strv ids = STRV_INIT, kv = STRV_INIT;
        bool force = false;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        char host[HOST_NAME_MAX + 1] = "";
        int r;

        if (gethostname(host, sizeof host) < 0) {
                strbuf_addf(err, "takeover: gethostname: %s", strerror(errno));
                return -errno;
        }
        r = slurm_client_init(&e);
        if (r < 0) {
                strbuf_addf(err, "takeover: %s", e.buf);
                return r;
        }
        int self = slurm_ctl_index_of(host);
        if (self < 0) {
                strbuf_addf(err, "takeover: %s is not one of the controllers (SlurmctldHost)", host);
                return -ENOENT;
        }
        r = juju_relation_ids(ctx, SLURMCTLD_PEER_ENDPOINT, &ids, err);
        if (r < 0)
                return r;
        if (ids.n == 0) {
                strbuf_addstr(err, "takeover: no peer relation yet");
                return -ENOENT;
        }
        if (self == 0) {
                /* the primary takes control back whenever its slurmctld starts: nothing to move */
                r = slurm_ctl_ping_one(0, &e);
                if (r < 0) {
                        strbuf_addf(err,
                                "takeover: this unit is the primary and its slurmctld does not answer: %s",
                                e.buf);
                        return r;
                }
                strv_push(&kv, "in-charge");
                strv_push(&kv, host);
                strv_push(&kv, "note");
                strv_push(&kv, "this unit is the primary already");
                return juju_action_set_many(ctx, &kv, err);
        }
        /* only a slurmctld that runs can take control: a held, fenced or paused unit's does not
         * (a failed takeover left its announcement behind, which ended the hold while old steps
         * still asked this unit first: attack 3, F1) */
        r = slurm_ctl_ping_one(self, &e);
        if (r < 0) {
                strbuf_addf(err, "takeover: this unit's slurmctld does not answer (%s)%s", e.buf,
                        standby_record_read(&o->paths, &(time_t){ 0 }) > 0
                                ? ": it is held as a standby while job steps that started under the "
                                  "old controller order may ask it first (its status names one); "
                                  "take over once the hold is over"
                                : "");
                return r;
        }
        r = takeover_force(ctx, &force, err);
        if (r >= 0)
                r = takeover_jobs_know_self(ctx, o, ids.v[0], host, force, &kv, err);
        if (r < 0)
                return r;
        /* announced first in the shared directory, so that no controller ahead of this one
         * starts again meanwhile (charm/slurmctld/ha.h) */
        r = announce_takeover(ctx, o, juju_env(ctx)->unit, err);
        if (r < 0)
                return r;
        strbuf_reset(&e);
        r = slurm_ctl_takeover_bounded(NULL, self, TAKEOVER_MS, &e);
        if (r < 0) {
                /* nothing was taken: the announcement goes, or it would hold the others back
                 * and exempt this unit from its hold */
                const char *cfg = NULL;
                uid_t uid;
                gid_t gid;
                if (charm_config_string(ctx, "state-save-location", &cfg, NULL) >= 0 &&
                        charm_lookup_user(o->paths.slurm_user, "slurm", &uid, &gid, NULL) >= 0) {
                        _cleanup_free_ char *dir = charm_path(&o->paths, isempty(cfg) ? CHARM_PATH_STATESAVE : cfg);
                        (void) ha_takeover_unmark(dir, juju_env(ctx)->unit, uid, gid);
                }
                strbuf_addf(err, "takeover: %s", e.buf);
                return r;
        }
        /* the leader puts this unit first; until then the controllers ahead of it stay down */
        r = ha_request_first(ctx, ids.v[0], err);
        if (r >= 0)
                r = juju_flush(ctx, err);
        if (r < 0)
                return r;
        strv_push(&kv, "in-charge");
        strv_push(&kv, host);
        strv_push(&kv, "note");
        strv_push(&kv,
                "the controllers ahead of this one stopped; the leader makes this unit the primary, "
                "then they run again as its backups");
        return juju_action_set_many(ctx, &kv, err);
}
