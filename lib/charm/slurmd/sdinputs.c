/* SPDX-License-Identifier: Apache-2.0 */
/* What the slurmd charm's hooks and actions share (sdinputs.h): every input read once and
 * validated, the leader's partition and this unit's GPUs and node published, the charm's state
 * files, the bounded wait for the node's registration. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmd/slurmd.h"
#include "charm/common/nodepaths.h"
#include "charm/slurmd/nodecfgmark.h"
#include "charm/slurmd/sdinputs.h"
#include "charm/common/authkey.h"
#include "charm/common/confpush.h"
#include "charm/common/gres.h"
#include "charm/slurmd/nodeconf.h"
#include "charm/common/nodeprogs.h"
#include "charm/slurmd/nodefollow.h"
#include "slurmconf/pathkeys.h"
#include "charm/common/pause.h"
#include "charm/common/strand.h"
#include "charm/common/watcher.h"
#include "interfaces/slurmd.h"
#include "slurm/caps.h"
#include "slurm/client.h"
#include "slurmconf/conf.h"
#include "slurm/hardware.h"
#include "slurm/jobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "systemd/unit.h"
#include "util/fileio.h"
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/banned.h"

#define DEFAULT_UNIT_TIMEOUT_USEC (90 * 1000 * 1000ULL)

/* Where slurmd (configless) leaves the fetched slurm.conf; libslurm looks there (slurm/client.h). */
#define CONF_CACHE_PATH "/run/slurm/conf/slurm.conf"

uint64_t sd_unit_timeout(const struct slurmd_opts *o) {
        return o->unit_timeout_usec ? o->unit_timeout_usec : DEFAULT_UNIT_TIMEOUT_USEC;
}

char *sd_state_path(const struct charm_paths *p, const char *name) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, name);
}

int sd_state_write(const struct charm_paths *p, const char *name, const char *data, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, data, strlen(data), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int sd_hardware(const struct charm_paths *paths, struct strv *ret, struct strbuf *err) {
        _cleanup_free_ char *path = sd_state_path(paths, SLURMD_HARDWARE_FILE), *data = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        int r;

        r = read_full_file(path, &data, NULL);
        if (r == -ENOENT) {
                _cleanup_free_ char *line = NULL;
                r = slurm_detect_hardware(&kv, err);
                if (r < 0)
                        return r;
                line = strv_join(&kv, " ");
                r = sd_state_write(paths, SLURMD_HARDWARE_FILE, line, err);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < kv.n; i++)
                        strv_push(ret, kv.v[i]);
                return 0;
        }
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        char *save = NULL;
        for (char *w = strtok_r(data, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
                strv_push(ret, w);
        return 0;
}

void sd_inputs_done(struct sd_inputs *in) {
        slurm_options_clear(&in->partition);
        free(in->rel);
        free(in->remote_app);
        controller_data_clear(&in->ctl);
        auth_keyring_done(&in->keys);
        strv_clear(&in->hardware);
        slurm_options_clear(&in->admin);
        slurm_options_clear(&in->node_conf);
        free(in->node_name);
        strbuf_release(&in->defaults);
        strv_clear(&in->gpus);
        free(in->bag_node);
        free(in->bag_resources);
}

/* This unit's GPU device files in its own bag (every unit; [] without GPUs), so that the
 * controller renders their gres.conf lines before this unit's slurmd starts (charm/common/gres.h). */
static int publish_gpus(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct sd_inputs *in, struct strbuf *err) {
        _cleanup_free_ char *json = NULL;
        const cJSON *mine;
        int r = gres_local_devices(&o->paths, &in->gpus, err);
        if (r < 0)
                return r;
        r = gpu_devices_encode(in->gpus.v, &json);
        if (r < 0) {
                strbuf_addstr(err, "gpu devices: cannot encode this machine's device files");
                return r;
        }
        r = juju_relation_get(ctx, in->rel, juju_env(ctx)->unit, &mine, err);
        if (r < 0)
                return r;
        free(in->bag_node);
        in->bag_node = charm_bag_string(mine, SLURMD_UNIT_NODE_KEY)
                ? xstrdup(charm_bag_string(mine, SLURMD_UNIT_NODE_KEY))
                : NULL;
        free(in->bag_resources);
        in->bag_resources = charm_bag_string(mine, SLURMD_UNIT_RESOURCES_KEY)
                ? xstrdup(charm_bag_string(mine, SLURMD_UNIT_RESOURCES_KEY))
                : NULL;
        return charm_bag_update(ctx, in->rel, false, mine, GRES_UNIT_KEY, json, err);
}

/* The node's name in this unit's bag once slurmctld registered it (interfaces/slurmd.h): the
 * controller units get a hook for it, whose status then counts the node. Under Juju their hook
 * for this unit's arrival may run while this slurmd still registers (issue 28); without this
 * key their status would wait for the node event watcher. Set once (the name never changes).
 * Beside it the node's CPUs and memory as slurmctld registered them (a node-config change shows
 * at the next hook), from which the controllers take the partition's default memory per CPU. */
int sd_publish_node(struct juju_ctx *ctx, const struct sd_inputs *in, const struct slurm_node *node,
        struct strbuf *err) {
        if (!in->rel)
                return 0;
        const struct node_resources res = {
                .cpus = node->cpus, .real_memory = node->real_memory, .mem_spec_limit = node->mem_spec_limit
        };
        _cleanup_free_ char *json = NULL;
        if (node_resources_encode(&res, &json) >= 0 && !streq_ptr(in->bag_resources, json)) {
                int r = juju_relation_set(ctx, in->rel, false, SLURMD_UNIT_RESOURCES_KEY, json, err);
                if (r < 0)
                        return r;
        }
        if (streq_ptr(in->bag_node, in->node_name))
                return 0;
        return juju_relation_set(ctx, in->rel, false, SLURMD_UNIT_NODE_KEY, in->node_name, err);
}

/* Blocked with "<prefix><msg>"; app: the application's status too (leader). */
static void blocked(struct charm_outcome *out, bool app, const char *prefix, const char *msg) {
        charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s%s", prefix, msg);
        if (app) {
                out->set_app_status = true;
                out->app_status = JUJU_STATUS_BLOCKED;
        }
}

/* Leader: partition and nodeset in our app bag when they differ. */
static int publish(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct sd_inputs *in, struct strbuf *err) {
        _cleanup_free_ char *part = NULL, *ns = NULL;
        const cJSON *mine;
        int r;

        r = compute_data_encode(juju_env(ctx)->app, &in->partition, &part, &ns);
        if (r < 0) {
                strbuf_addstr(err, "partition-config: cannot encode");
                return r;
        }
        r = juju_relation_get(ctx, in->rel, juju_env(ctx)->app, &mine, err);
        if (r >= 0)
                r = charm_bag_update(ctx, in->rel, true, mine, "partition", part, err);
        if (r >= 0)
                r = charm_bag_update(ctx, in->rel, true, mine, "nodeset", ns, err);
        if (r >= 0) {
                _cleanup_free_ char *gen = charm_generation_json(&o->paths);
                r = gen ? charm_bag_update(ctx, in->rel, true, mine, "slurm", gen, err) : -ENOMEM;
                if (!gen)
                        strbuf_addstr(err, "slurm generation: out of memory");
        }
        return r < 0 ? r : 0;
}

int sd_read_inputs(struct juju_ctx *ctx, const struct slurmd_opts *o, struct sd_inputs *in,
        const struct slurm_options *admin, struct charm_outcome *out, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_strv_ struct strv ids = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const cJSON *bag;
        int r;

        r = charm_config_string(ctx, "partition-config", &in->partition_config, err);
        if (r >= 0)
                r = charm_config_string(ctx, "default-node-state", &in->default_state, err);
        if (r >= 0)
                r = charm_config_string(ctx, "default-node-reason", &in->default_reason, err);
        if (r >= 0)
                r = juju_is_leader(ctx, &in->leader, err);
        if (r < 0)
                return r;
        /* application-wide problems block the application (the leader says so) */
        if (slurmd_iface_reserved_name(env->app)) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "application name \"%s\" is a Slurm keyword (%s): deploy this charm under another "
                        "name",
                        env->app, slurmd_iface_reserved_name(env->app));
                out->set_app_status = in->leader;
                out->app_status = JUJU_STATUS_BLOCKED;
                return 1;
        }
        if (!slurmd_iface_valid_app_name(env->app)) {
                blocked(out, in->leader, "", "the application name is not usable as a Slurm partition name");
                return 1;
        }
        if (slurm_options_parse(in->partition_config, SLURM_OPTIONS_PARTITION, &in->partition, &e) < 0 ||
                charm_check_partition(env->app, &in->partition, &e) < 0) {
                blocked(out, in->leader, "partition-config: ", e.buf);
                return 1;
        }
        r = sd_drain_timeout_ms(ctx, &e);
        if (r < 0) {
                blocked(out, in->leader, "", e.buf);
                return 1;
        }
        if (isempty(in->default_state))
                in->default_state = "idle";
        if (!streq(in->default_state, "idle") && !streq(in->default_state, "down")) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "default-node-state: \"%.20s\" is not idle or down", in->default_state);
                out->set_app_status = in->leader;
                out->app_status = JUJU_STATUS_BLOCKED;
                return 1;
        }
        if (!isempty(in->default_reason) &&
                charm_reason_check("default-node-reason", in->default_reason, &e) < 0) {
                blocked(out, in->leader, "", e.buf);
                return 1;
        }

        r = juju_relation_ids(ctx, SLURMD_CONTROLLER_ENDPOINT, &ids, err);
        if (r < 0)
                return r;
        if (ids.n == 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "missing relation to slurmctld");
                return 1;
        }
        in->rel = xstrdup(ids.v[0]);
        r = sd_left_relation(&o->paths, in->rel);
        if (r != 0) {
                if (r < 0)
                        return r;
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "left the cluster");
                return 1;
        }
        r = sd_leaving_relation(&o->paths, in->rel);
        if (r != 0) {
                if (r < 0)
                        return r;
                charm_outcome_set(
                        out, JUJU_STATUS_MAINTENANCE, "leaving the cluster: the departure has not finished");
                return 1;
        }
        if (in->leader) {
                r = publish(ctx, o, in, err);
                if (r < 0)
                        return r;
        }
        r = publish_gpus(ctx, o, in, err);
        if (r < 0)
                return r;

        if (env->remote_app && streq_ptr(env->relation_id, in->rel))
                in->remote_app = xstrdup(env->remote_app);
        else {
                r = juju_relation_remote_app(ctx, in->rel, &in->remote_app, err);
                if (r < 0)
                        return r;
        }
        r = juju_relation_get(ctx, in->rel, in->remote_app, &bag, err);
        if (r < 0)
                return r;
        /* the controllers' Slurm (absent: a charm from before the key): one this slurmd can
         * join, or nothing is written and slurmd not started */
        strbuf_reset(&e);
        r = charm_generation_check(
                &o->paths, charm_bag_string(bag, "slurm"), false, "slurmd", "slurmctld", &e);
        if (r == -EPROTO) {
                /* the whole application (one base) is refused: its status too */
                _cleanup_free_ char *why = xasprintf("%s; deploy slurmd on the controllers' base", e.buf);
                _cleanup_free_ char *prefix = xasprintf("\"%s\" cannot take this unit: ", in->remote_app);
                blocked(out, in->leader, prefix, why);
                return 1;
        }
        if (r == -EINVAL) {
                charm_outcome_set(
                        out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s", in->remote_app, e.buf);
                return 1;
        }
        if (r < 0) {
                strbuf_addf(err, "slurm generation: %s", strerror(-r));
                return r;
        }

        strbuf_reset(&e);
        r = controller_data_decode(
                charm_bag_string(bag, "auth_key_id"), charm_bag_string(bag, "controllers"), &in->ctl, &e);
        if (r == -ENODATA) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for slurmctld");
                return 1;
        }
        if (r < 0) {
                charm_outcome_set(
                        out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s", in->remote_app, e.buf);
                return 1;
        }
        /* the hash of the file slurmctld runs (charm/common/confpush.h): a hint that a restart may be
         * owed, checked with the controller before anything is done; a bad value does nothing
         * and is said in debug-log */
        {
                const char *h = charm_bag_string(bag, CONFPUSH_KEY);
                in->conf_push_waves = confpush_waves_parse(charm_bag_string(bag, CONFPUSH_WAVES_KEY));
                if (confpush_hash_parse(h, &in->conf_hash) == 0)
                        in->have_conf_hash = true;
                else if (!isempty(h))
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                "relation with \"%s\": %s is not a slurm.conf hash (8 hex digits): ignored",
                                in->remote_app, CONFPUSH_KEY);
        }
        /* the keys: checked before anything is written */
        {
                _cleanup_strbuf_ struct strbuf ke = STRBUF_INIT;
                /* always the latest revision: a secret-changed met by a paused unit (its gate ends
                 * the hook first) is not sent again, and a rotation would wait for this unit for
                 * good (keyrotate.h) */
                r = auth_keyring_read(ctx, in->ctl.auth_key_id, JUJU_SECRET_REFRESH, &in->keys, &ke);
                if (r == -EINVAL) {
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s (nothing changed)",
                                in->remote_app, ke.buf);
                        return 1;
                }
                if (r < 0) {
                        strbuf_addbuf(err, &ke);
                        return r;
                }
        }

        r = sd_hardware(&o->paths, &in->hardware, err);
        if (r < 0)
                return r;
        if (admin)
                slurm_options_copy(&in->admin, admin);
        else {
                r = sd_admin_load(&o->paths, &in->admin, err);
                if (r < 0)
                        return r;
        }
        strbuf_reset(&e);
        r = node_conf_build(in->hardware.v, &in->admin, env->app, &in->node_conf, &e);
        if (r < 0) {
                blocked(out, false, "", e.buf);
                return 1;
        }
        in->node_name = charm_node_name(env->unit);
        r = node_defaults_render(&in->node_conf, in->node_name, in->ctl.controllers.v, &in->defaults);
        if (r < 0) {
                blocked(out, false, "", "cannot render /etc/default/slurmd for these parameters");
                return 1;
        }
        if (in->gpus.n > 0) {
                /* slurmd reads the File= lines only when it starts: not before they are served */
                strbuf_reset(&e);
                r = gres_served_covers(charm_bag_string(bag, GRES_APP_KEY), in->node_name, in->gpus.v, &e);
                if (r < 0) {
                        charm_outcome_set(
                                out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s", in->remote_app, e.buf);
                        return 1;
                }
                if (r == 0) {
                        _cleanup_free_ char *list = strv_join(&in->gpus, ", ");
                        charm_outcome_set(out, JUJU_STATUS_WAITING,
                                "waiting for slurmctld to serve gres.conf for this node's GPU%s (%s)",
                                in->gpus.n == 1 ? "" : "s", list);
                        return 1;
                }
        }
        return 0;
}

static int wait_registered(const char *node, time_t since, int timeout_ms, int unknown_ms, struct slurm_node *ret,
        struct strbuf *err) {
        int64_t deadline = slurm_now_ms() + timeout_ms;
        int delay = SLURM_POLL_FIRST_MS;
        struct stat st;

        /* the configuration slurmd fetched since it (re)started: an older cache may name the
         * controllers in an order where a standby comes first, and every RPC through it then
         * waits 1.5 x SlurmctldTimeout */
        while (!slurm_config_path() ||
                (since > 0 && (stat(CONF_CACHE_PATH, &st) < 0 || st.st_mtime < since))) {
                if (!slurm_poll_sleep(&delay, deadline)) {
                        strbuf_addf(err, "slurmd has not fetched its configuration (%s) within %d ms",
                                CONF_CACHE_PATH, timeout_ms);
                        return -ETIMEDOUT;
                }
        }
        (void) slurm_client_reload(NULL);
        int left = (int) (deadline - slurm_now_ms());
        return slurm_node_wait_registered_unknown(node, left > 0 ? left : 1, unknown_ms, ret, err);
}

int sd_wait_registered(
        const char *node, time_t since, int timeout_ms, struct slurm_node *ret, struct strbuf *err) {
        return wait_registered(node, since, timeout_ms, 0, ret, err);
}

int sd_wait_registered_nudge(sd_bus *bus, const struct slurmd_opts *o, const char *node, time_t since, int timeout_ms,
        struct slurm_node *ret, bool *ret_nudged, struct strbuf *err) {
        int64_t deadline = slurm_now_ms() + timeout_ms;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = wait_registered(node, since, timeout_ms, since > 0 ? SD_REGISTER_UNKNOWN_MS : 0, ret, &e);
        int left = (int) (deadline - slurm_now_ms());
        if (r != -ENOENT)
                goto out;
        /* slurmctld answers and has not heard of the node. Only a controller that started after
         * slurmd did, or just before (its start takes a few seconds before it listens), can
         * have missed a registration that went to a standby meanwhile and now sleeps; otherwise
         * slurmd is slow (a GPU node's detection), and a restart would only start that again */
        uint32_t hash;
        time_t boot = 0;
        if (left <= 0 || slurm_ctl_conf_hash(&hash, &boot, NULL) < 0 ||
                boot + SD_REGISTER_UNKNOWN_MS / 1000 < since) {
                strbuf_reset(&e);
                r = left > 0 ? wait_registered(node, 0, left, 0, ret, &e) : -ETIMEDOUT;
                if (r == -ETIMEDOUT && left <= 0)
                        strbuf_addf(&e, "node \"%s\": not registered after %d ms (unknown to slurmctld)", node, timeout_ms);
                goto out;
        }
        /* started again, it registers at once */
        since = time(NULL);
        r = sd_restart_unregistered(bus, o, err);
        if (r < 0)
                return r;
        left = (int) (deadline - slurm_now_ms());
        r = wait_registered(node, since, left > 0 ? left : 1, 0, ret, err);
        if (r < 0)
                strbuf_addf(err, " (slurmd started again once: slurmctld, started after it, did not know the node for %d s)",
                        SD_REGISTER_UNKNOWN_MS / 1000);
        else if (ret_nudged)
                *ret_nudged = true;
        return r;
out:
        strbuf_addbuf(err, &e);
        return r;
}

int sd_restart_unregistered(sd_bus *bus, const struct slurmd_opts *o, struct strbuf *err) {
        /* no running main process (stopped, failed) is no error: the restart starts it */
        (void) unit_kill(bus, "slurmd.service", "main", SIGKILL, sd_unit_timeout(o), NULL);
        (void) unit_reset_failed(bus, "slurmd.service", sd_unit_timeout(o), NULL);
        return unit_restart(bus, "slurmd.service", sd_unit_timeout(o), err);
}

int sd_drain_timeout_ms(struct juju_ctx *ctx, struct strbuf *err) {
        int64_t s = SLURMD_DEFAULT_DRAIN_TIMEOUT_S;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = juju_config_int(ctx, "drain-timeout", &s, &e);
        if (r == -ENOENT)
                s = SLURMD_DEFAULT_DRAIN_TIMEOUT_S;
        else if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        } else if (s <= 0 || s > SLURMD_MAX_DRAIN_TIMEOUT_S) {
                strbuf_addf(err, "drain-timeout: %lld is not a number of seconds from 1 to %d",
                        (long long) s, SLURMD_MAX_DRAIN_TIMEOUT_S);
                return -EINVAL;
        }
        return (int) (s * 1000);
}

/* 1 when the marker file names rel (or is empty and empty_all), else 0 (the file, naming
 * another relation, removed: the unit joins again). */
static int marker_relation(const struct charm_paths *p, const char *name, const char *rel, bool empty_all) {
        _cleanup_free_ char *path = sd_state_path(p, name), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        data[strcspn(data, "\n")] = '\0';
        if (streq(data, strempty(rel)) || (empty_all && isempty(data)))
                return 1;
        /* a new relation: the unit joins again */
        (void) unlink(path);
        return 0;
}

int sd_left_relation(const struct charm_paths *p, const char *rel) {
        return marker_relation(p, SLURMD_LEFT_FILE, rel, false);
}

int sd_leaving_relation(const struct charm_paths *p, const char *rel) {
        return marker_relation(p, SLURMD_LEAVING_FILE, rel, true);
}

int sd_admin_load(const struct charm_paths *p, struct slurm_options *ret, struct strbuf *err) {
        _cleanup_free_ char *path = sd_state_path(p, SLURMD_ADMIN_FILE), *data = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = read_full_file(path, &data, NULL);
        if (r == -ENOENT)
                data = xstrdup("");
        else if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        data[strcspn(data, "\n")] = '\0';
        r = slurm_options_parse(data, SLURM_OPTIONS_NODE, ret, &e);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, e.buf);
        return r;
}
