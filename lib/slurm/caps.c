/* SPDX-License-Identifier: Apache-2.0 */
/* The Slurm generations as data (caps.h). */
#include "util/macro.h"
#include "slurm/caps.h"

#include "slurm/compat.h"

#include "util/banned.h"

static const char *const gone_none[] = { NULL };
/* 24.11.5's reader, tried key by key (tests/unit/test-values-property on that base): the first
 * seven log "defunct" or "has moved to CommunicationParameters", SlurmctldPlugstack is an
 * unrecognized key */
static const char *const gone_24_11[] = { "CoreSpecPlugin", "ExtSensorsFreq", "ExtSensorsType",
        "JobCredentialPrivateKey", "JobCredentialPublicCertificate", "KeepAliveTime", "PowerPlugin",
        "SlurmctldPlugstack", NULL };

static const char *const gone_items_24_11[] = { "DebugFlags=TimeCray", "DebugFlags=ExtSensors", NULL };

static const struct slurm_caps caps_22_05 = {
        .release = "22.05",
        .auth_type = "auth/munge",
        .cred_type = "cred/munge",
        .key_path = "/etc/munge/munge.key",
        .key_dir = "/etc/munge",
        .key_dir_private = true,
        .key_owner = "munge",
        .key_mode = 0400,
        .auth_service = "munge.service",
        .auth_package = "munge",
        .service_notify = false,
        .ctld_pid_file = "/run/slurmctld.pid",
        .slurmd_pid_file = "/run/slurmd.pid",
        .listjobs = false,
        .reconfigure_reexecs = false,
        .gone_keys = gone_none,
        .gone_items = gone_none,
};

static const struct slurm_caps caps_24_11 = {
        .release = "24.11",
        .auth_type = "auth/slurm",
        .cred_type = "cred/slurm",
        .key_path = "/etc/slurm/slurm.key",
        .key_dir = "/etc/slurm",
        .key_dir_private = false,
        .key_owner = "slurm",
        .key_mode = 0400,
        .auth_service = NULL,
        .auth_package = NULL,
        .service_notify = true,
        .ctld_pid_file = "/run/slurmctld/slurmctld.pid",
        .slurmd_pid_file = "/run/slurm/slurmd.pid",
        .listjobs = true,
        .reconfigure_reexecs = true,
        .gone_keys = gone_24_11,
        .gone_items = gone_items_24_11,
};

const struct slurm_caps *const slurm_caps_all[] = { &caps_22_05, &caps_24_11, NULL };

const struct slurm_caps *slurm_caps_built(void) {
#if SLURM_AT_LEAST(24, 11)
        return &caps_24_11;
#else
        return &caps_22_05;
#endif
}

bool slurm_caps_key_gone(const struct slurm_caps *c, const char *key) {
        for (size_t i = 0; key && c->gone_keys[i]; i++)
                if (strcaseeq(c->gone_keys[i], key))
                        return true;
        return false;
}

const char *slurm_caps_item_gone(const struct slurm_caps *c, const char *key, const char *value) {
        for (size_t i = 0; key && value && c->gone_items[i]; i++) {
                const char *g = c->gone_items[i], *item = strchr(g, '=') + 1;
                size_t kl = (size_t) (item - 1 - g), il = strlen(item);
                if (strlen(key) != kl || strncasecmp(key, g, kl) != 0)
                        continue;
                for (const char *p = value; *p;) {
                        size_t n = strcspn(p, ",");
                        if (n == il && strncasecmp(p, item, il) == 0)
                                return item;
                        p += n + (p[n] == ',');
                }
        }
        return NULL;
}

const struct slurm_caps *slurm_caps_find(const char *release) {
        for (size_t i = 0; release && slurm_caps_all[i]; i++)
                if (streq(slurm_caps_all[i]->release, release))
                        return slurm_caps_all[i];
        return NULL;
}
