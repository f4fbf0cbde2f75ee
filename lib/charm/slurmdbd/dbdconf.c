/* SPDX-License-Identifier: Apache-2.0 */
/* slurmdbd.conf rendering and the serving units (dbdconf.h). */
#include "util/macro.h"
#include "charm/slurmdbd/dbdconf.h"

#include <strings.h>

#include "charm/common/charm.h"

#include "util/banned.h"

/* The keys the charm sets: a template line with one of them is dropped. */
static const char *const charm_keys[] = { "AuthType", "DbdHost", "DbdAddr", "DbdBackupHost", "StorageHost",
        "StoragePort", "StorageUser", "StoragePass", "StorageLoc" };

static bool charm_key(const char *line, size_t len) {
        size_t k = strcspn(line, "=");
        if (k >= len)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(charm_keys); i++)
                if (strlen(charm_keys[i]) == k && strncasecmp(line, charm_keys[i], k) == 0)
                        return true;
        return false;
}

int dbd_conf_render(const struct dbd_conf_input *in, struct strbuf *out, struct strbuf *err) {
        const struct slurm_caps *caps = in->caps ? in->caps : slurm_caps_built();
        if (!in->primary || isempty(in->primary->host) || isempty(in->primary->addr) ||
                isempty(in->db_host) || !in->db_port || isempty(in->db_user) || isempty(in->db_pass) ||
                isempty(in->db_name)) {
                strbuf_addstr(err, "slurmdbd.conf: an input is missing");
                return -EINVAL;
        }
        const char *p = in->template_data ? in->template_data : "", *end = p + in->template_len;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);
                if (!charm_key(p, len)) {
                        strbuf_add(out, p, len);
                        strbuf_addch(out, '\n');
                }
                p += len + (nl ? 1 : 0);
        }
        strbuf_addf(out, "AuthType=%s\n", caps->auth_type);
        strbuf_addf(out, "DbdHost=%s\nDbdAddr=%s\n", in->primary->host, in->primary->addr);
        if (in->backup)
                strbuf_addf(out, "DbdBackupHost=%s\n", in->backup->host);
        strbuf_addf(out, "StorageHost=%s\nStoragePort=%u\nStorageUser=%s\nStoragePass=%s\nStorageLoc=%s\n",
                in->db_host, in->db_port, in->db_user, in->db_pass, in->db_name);
        return 0;
}

void dbd_client_conf_render(const struct slurm_caps *caps, const char *cluster, char *const *controllers,
        size_t n_controllers, const struct dbd_unit *primary, const struct dbd_unit *backup,
        struct strbuf *out) {
        if (!caps)
                caps = slurm_caps_built();
        strbuf_addstr(out,
                "# Written by the slurmdbd charm: the client side of this slurmdbd (libslurmdb, sacctmgr "
                "with\n"
                "# SLURM_CONF pointing here; sackd's on 24.11). Not read by slurmdbd.\n");
        strbuf_addf(out, "ClusterName=%s\n", cluster);
        for (size_t i = 0; i < n_controllers; i++)
                strbuf_addf(out, "SlurmctldHost=%.*s\n", (int) strcspn(controllers[i], ":"), controllers[i]);
        /* SlurmUser: the controllers' (the charms run Slurm as slurm); sackd (24.11) refuses a run
         * directory that is not SlurmUser's */
        strbuf_addf(out, "SlurmUser=slurm\nAuthType=%s\nAccountingStorageType=accounting_storage/slurmdbd\n",
                caps->auth_type);
        strbuf_addf(out, "AccountingStorageHost=%s\nAccountingStoragePort=6819\n", primary->addr);
        if (backup)
                strbuf_addf(out, "AccountingStorageBackupHost=%s\n", backup->addr);
}

void dbd_pick_serving(const struct dbd_unit *units, size_t n, long *ret_primary, long *ret_backup) {
        long best[2] = { -1, -1 };
        long num[2] = { 0, 0 };
        for (size_t i = 0; i < n; i++) {
                long k = charm_unit_number(units[i].unit);
                if (k < 0)
                        continue;
                if (best[0] < 0 || k < num[0]) {
                        best[1] = best[0];
                        num[1] = num[0];
                        best[0] = (long) i;
                        num[0] = k;
                } else if (best[1] < 0 || k < num[1]) {
                        best[1] = (long) i;
                        num[1] = k;
                }
        }
        *ret_primary = best[0];
        *ret_backup = best[1];
}
