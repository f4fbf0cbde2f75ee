/* SPDX-License-Identifier: Apache-2.0 */
/* First stage of the slurmctld install hook: runs where only libc exists (no libslurm, cJSON
 * or libyaml yet), installs the packages, then execs bin/install-stage2. */
#include "util/macro.h"
#include "charm/bootstrap.h"

#include "util/banned.h"

int main(void) {
        char *pkgs[] = { (char *) "slurmctld", (char *) "munge", (char *) "slurm-client", NULL };
        return bootstrap_main(pkgs, "bin/install-stage2");
}
