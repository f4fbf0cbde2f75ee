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
