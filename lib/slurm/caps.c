/* SPDX-License-Identifier: Apache-2.0 */
/* The Slurm generations as data (caps.h). */
#include "util/macro.h"
#include "slurm/caps.h"

#include "slurm/compat.h"

#include <errno.h>
#include <stdio.h>

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
        .keyset_path = NULL,
        .auth_package = "munge",
        .service_notify = false,
        .token_service = NULL,
        .token_package = NULL,
        .pmix_package = "libpmix-dev",
        .httpd_package = "libmicrohttpd12",
        .pmix_env = "PMIX_MCA_gds=hash",
        .ctld_pid_file = "/run/slurmctld/slurmctld.pid", /* run as SlurmUser (templates/slurmctld.service.d) */
        .slurmd_pid_file = "/run/slurmd.pid",
        .listjobs = false,
        .reconfigure_reexecs = false,
        .stepd_conf_push = false,
        .backup_sched_lost = true,
        .takeover_serves_conf = false,
        .cluster_id_in_state = false,
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
        .keyset_path = "/etc/slurm/slurm.jwks",
        .auth_package = NULL,
        .service_notify = true,
        .token_service = "sackd.service",
        .token_package = "sackd",
        .pmix_package = NULL,
        .httpd_package = "libmicrohttpd12t64",
        .pmix_env = NULL,
        .ctld_pid_file = "/run/slurmctld/slurmctld.pid",
        .slurmd_pid_file = "/run/slurm/slurmd.pid",
        .listjobs = true,
        .reconfigure_reexecs = true,
        .stepd_conf_push = true,
        .backup_sched_lost = false,
        .takeover_serves_conf = true,
        .cluster_id_in_state = true,
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

const char *slurm_version_built(void) {
        static char v[16];
        if (!v[0])
                snprintf(v, sizeof v, "%02d.%02d.%d", SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
                        SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
                        SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
        return v;
}

/* The major releases in order, to 24.05; from there one every six months (May, November). */
static const char *const majors_before_24_05[] = { "17.02", "17.11", "18.08", "19.05", "20.02", "20.11",
        "21.08", "22.05", "23.02", "23.11", NULL };

/* The position of version's major release (0: 17.02), or -1 when it names none. */
static int major_index(const char *version, char ret_major[static 6]) {
        unsigned yy, mm;
        int n = 0;
        if (!version || sscanf(version, "%2u.%2u%n", &yy, &mm, &n) != 2 || n != 5 ||
                (version[5] != '.' && version[5] != '\0'))
                return -1;
        snprintf(ret_major, 6, "%02u.%02u", yy, mm);
        for (int i = 0; majors_before_24_05[i]; i++)
                if (streq(majors_before_24_05[i], ret_major))
                        return i;
        if (yy < 24 || yy > 99 || (mm != 5 && mm != 11))
                return -1;
        return (int) ELEMENTSOF(majors_before_24_05) - 1 + (int) (yy - 24) * 2 + (mm == 11);
}

int slurm_caps_takes(const char *server, const char *s_version, const char *s_auth, const char *client,
        const char *c_version, const char *c_auth, struct strbuf *why) {
        char sm[6], cm[6];
        int s = major_index(s_version, sm), c = major_index(c_version, cm);
        if (s < 0 || c < 0) {
                if (why)
                        strbuf_addf(why, "Slurm %s names no Slurm major release",
                                s < 0 ? strempty(s_version) : c_version);
                return -EINVAL;
        }
        if (c > s) {
                if (why)
                        strbuf_addf(why, "%s %s is newer than %s %s (%s takes no newer %s)", client,
                                c_version, server, s_version, server, client);
                return -EPROTO;
        }
        char m24_11[6];
        int window = s >= major_index("24.11.0", m24_11) ? 3 : 2;
        if (s - c > window) {
                if (why)
                        strbuf_addf(why, "%s %s is %d major releases behind %s %s (it takes %d at most)",
                                client, c_version, s - c, server, s_version, window);
                return -EPROTO;
        }
        if (!streq_ptr(s_auth, c_auth)) {
                if (why)
                        strbuf_addf(why, "%s uses %s, %s %s (one AuthType for the cluster)", client,
                                strempty(c_auth), server, strempty(s_auth));
                return -EPROTO;
        }
        return 0;
}

int slurm_caps_takes_slurmd(const char *ctl_version, const char *ctl_auth, const char *d_version,
        const char *d_auth, struct strbuf *why) {
        return slurm_caps_takes("slurmctld", ctl_version, ctl_auth, "slurmd", d_version, d_auth, why);
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
