/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmdbd interface (slurmdbd.h). */
#include "util/macro.h"
#include "slurmdbd.h"

#include "slurmd.h"
#include "util/alloc.h"

#include "util/banned.h"

int dbd_hosts_decode(const char *json, struct strv *ret, struct strbuf *err) {
        if (isempty(json))
                return -ENODATA;
        return hostport_list_decode("dbd_hosts", "slurmdbd host", json, SLURMDBD_IFACE_MAX_HOSTS, ret, err);
}

int dbd_auth_key_decode(const char *auth_key_id, char **ret, struct strbuf *err) {
        if (isempty(auth_key_id))
                return -ENODATA;
        if (!slurmd_iface_check_secret_id("auth_key_id", auth_key_id, err))
                return -EINVAL;
        free(*ret);
        *ret = xstrdup(auth_key_id);
        return 0;
}

int dbd_cluster_decode(const char *cluster_name, const char *controllers_json, char **ret_name,
        struct strv *ret_controllers, struct strbuf *err) {
        _cleanup_strv_ struct strv ctls = STRV_INIT;
        if (isempty(cluster_name) || isempty(controllers_json))
                return -ENODATA;
        if (!slurmd_iface_valid_cluster_name(cluster_name)) {
                strbuf_addstr(err, "relation data: cluster_name is not a cluster name");
                return -EINVAL;
        }
        int r = hostport_list_decode(
                "controllers", "controller", controllers_json, SLURMD_IFACE_MAX_CONTROLLERS, &ctls, err);
        if (r < 0)
                return r;
        free(*ret_name);
        *ret_name = xstrdup(cluster_name);
        strv_clear(ret_controllers);
        *ret_controllers = ctls;
        ctls = (struct strv) STRV_INIT;
        return 0;
}
