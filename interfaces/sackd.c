/* SPDX-License-Identifier: Apache-2.0 */
/* The sackd interface (sackd.h). */
#include "util/macro.h"
#include "sackd.h"

#include "slurmd.h"
#include "slurmconf/conf.h"
#include "util/alloc.h"

#include "util/banned.h"

int login_conf_text_check(const char *cluster, const char *text, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_strv_ struct strv inc = STRV_INIT;
        size_t n = strlen(text);
        if (n > SACKD_IFACE_MAX_CONF) {
                strbuf_addf(err, "relation data: %s is %zu bytes, more than %d", SACKD_IFACE_CONF_KEY, n,
                        SACKD_IFACE_MAX_CONF);
                return -EINVAL;
        }
        /* read as Slurm reads it (escapes, continued lines, several keys on a line, blanks
         * around "="): the parser's first error line names the line and the key, never a
         * file's content */
        if (slurmconf_parse("slurm.conf", text, n, &c, &e) < 0) {
                strbuf_addf(err, "relation data: %s: %.*s", SACKD_IFACE_CONF_KEY, (int) strcspn(e.buf, "\n"), e.buf);
                return -EINVAL;
        }
        if (slurmconf_includes(c, &inc) > 0) {
                strbuf_addf(err, "relation data: %s includes another file, which a login unit does not have",
                        SACKD_IFACE_CONF_KEY);
                return -EINVAL;
        }
        const char *name = slurmconf_get(c, "ClusterName");
        if (!name) {
                strbuf_addf(err, "relation data: %s has no ClusterName", SACKD_IFACE_CONF_KEY);
                return -EINVAL;
        }
        if (!streq(name, cluster)) {
                strbuf_addf(err, "relation data: %s names cluster \"%s\", cluster_name \"%s\"", SACKD_IFACE_CONF_KEY,
                        slurmd_iface_valid_cluster_name(name) ? name : "(not a cluster name)", cluster);
                return -EINVAL;
        }
        return 0;
}

int login_data_decode(const char *auth_key_id, const char *cluster_name, const char *controllers_json,
        const char *slurm_conf, struct login_data *ret, struct strbuf *err) {
        _cleanup_(controller_data_clear) struct controller_data ctl = CONTROLLER_DATA_INIT;
        if (isempty(auth_key_id) || isempty(cluster_name) || isempty(controllers_json) || isempty(slurm_conf))
                return -ENODATA;
        if (!slurmd_iface_valid_cluster_name(cluster_name)) {
                strbuf_addstr(err, "relation data: cluster_name is not a cluster name");
                return -EINVAL;
        }
        int r = controller_data_decode(auth_key_id, controllers_json, &ctl, err);
        if (r < 0)
                return r;
        r = login_conf_text_check(cluster_name, slurm_conf, err);
        if (r < 0)
                return r;
        login_data_clear(ret);
        ret->auth_key_id = TAKE_PTR(ctl.auth_key_id);
        ret->cluster = xstrdup(cluster_name);
        ret->controllers = ctl.controllers;
        ctl.controllers = (struct strv) STRV_INIT;
        ret->slurm_conf = xstrdup(slurm_conf);
        return 0;
}

void login_data_clear(struct login_data *d) {
        free(d->auth_key_id);
        free(d->cluster);
        free(d->slurm_conf);
        d->auth_key_id = d->cluster = d->slurm_conf = NULL;
        strv_clear(&d->controllers);
}
