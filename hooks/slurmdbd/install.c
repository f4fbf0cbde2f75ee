/* SPDX-License-Identifier: Apache-2.0 */
/* First stage of the slurmdbd install hook: runs where only libc exists (no libslurm, cJSON or
 * libyaml yet), installs the packages, then execs bin/install-stage2. */
#include "util/macro.h"
#include "charm/common/bootstrap.h"
#include "slurm/caps.h"

#include "util/banned.h"

int main(void) {
        /* the generation's auth package (munge on 22.05), and its token package (sackd on 24.11) */
        char *pkgs[BOOTSTRAP_PKGS_MAX];
        bootstrap_daemon_packages("slurmdbd", slurm_caps_built(), pkgs);
        return bootstrap_main(pkgs, "bin/install-stage2");
}
