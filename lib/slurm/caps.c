/* SPDX-License-Identifier: Apache-2.0 */
/* The Slurm generations as data (caps.h). */
#include "util/macro.h"
#include "slurm/caps.h"

#include "slurm/compat.h"

#include "util/banned.h"

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
};

const struct slurm_caps *const slurm_caps_all[] = { &caps_22_05, &caps_24_11, NULL };

const struct slurm_caps *slurm_caps_built(void) {
#if SLURM_AT_LEAST(24, 11)
        return &caps_24_11;
#else
        return &caps_22_05;
#endif
}

const struct slurm_caps *slurm_caps_find(const char *release) {
        for (size_t i = 0; release && slurm_caps_all[i]; i++)
                if (streq(slurm_caps_all[i]->release, release))
                        return slurm_caps_all[i];
        return NULL;
}
