/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's side of the login nodes (login.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/login.h"

#include "interfaces/sackd.h"
#include "util/fileio.h"

#include "util/banned.h"

int login_publish(struct juju_ctx *ctx, const struct charm_paths *paths, const struct strv *rels,
        const char *auth_key_id, const char *cluster_name, const char *controllers_json, struct strbuf *err) {
        if (rels->n == 0)
                return 0;
        _cleanup_free_ char *path = charm_path(paths, CHARM_PATH_SLURM_CONF);
        _cleanup_free_ char *conf = NULL;
        size_t len = 0;
        int r = read_full_file(path, &conf, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        if (len > SACKD_IFACE_MAX_CONF || strlen(conf) != len) {
                strbuf_addf(err, "%s: not a slurm.conf the login units can take (%zu bytes)", path, len);
                return -EFBIG;
        }
        for (size_t i = 0; i < rels->n; i++) {
                const char *rel = rels->v[i];
                const cJSON *mine;
                r = juju_relation_get(ctx, rel, juju_env(ctx)->app, &mine, err);
                if (r < 0)
                        return r;
                if (!streq_ptr(charm_bag_string(mine, "auth_key_id"), auth_key_id)) {
                        r = juju_secret_grant(ctx, auth_key_id, rel, NULL, err);
                        if (r >= 0)
                                r = juju_relation_set(ctx, rel, true, "auth_key_id", auth_key_id, err);
                }
                if (r >= 0)
                        r = charm_bag_update(ctx, rel, true, mine, "cluster_name", cluster_name, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, rel, true, mine, "controllers", controllers_json, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, rel, true, mine, SACKD_IFACE_CONF_KEY, conf, err);
                if (r < 0)
                        return r;
        }
        return 0;
}
