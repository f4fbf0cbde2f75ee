/* SPDX-License-Identifier: Apache-2.0 */
/* First stage of the slurmd install hook: runs where only libc exists (no libslurm, cJSON or
 * libyaml yet), installs the packages, then execs bin/install-stage2. */
#include "util/macro.h"
#include "charm/common/bootstrap.h"
#include "slurm/caps.h"

#include "util/banned.h"

int main(void) {
        /* munge only where the Slurm generation authenticates with it (22.05; not 24.11) */
        char *pkgs[5];
        bootstrap_packages("slurmd", slurm_caps_built()->auth_package, slurm_caps_built()->pmix_package, pkgs);
        return bootstrap_main(pkgs, "bin/install-stage2");
}
