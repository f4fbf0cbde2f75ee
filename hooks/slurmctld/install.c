/* SPDX-License-Identifier: Apache-2.0 */
/* First stage of the slurmctld install hook: runs where only libc exists (no libslurm, cJSON
 * or libyaml yet), installs the packages, then execs bin/install-stage2. */
#include "util/macro.h"
#include "charm/common/bootstrap.h"
#include "slurm/caps.h"

#include "util/banned.h"

int main(void) {
        /* the generation's auth package (munge on 22.05), and its PMIx library (libpmix-dev on 22.05) */
        char *pkgs[BOOTSTRAP_PKGS_MAX];
        bootstrap_daemon_packages("slurmctld", slurm_caps_built(), pkgs);
        return bootstrap_main(pkgs, "bin/install-stage2");
}
