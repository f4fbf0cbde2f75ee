/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's mpi.conf (issue 30 §4, MPI): written next to slurm.conf where the Slurm
 * generation needs one, served configless to every slurmd with slurm.conf (22.05's
 * slurmd_config_files in proc_req.c lists it), read by slurmd at its start and handed to each
 * step's slurmstepd, whose PMIx plugin puts PMIxEnv's variables into the tasks' environment.
 *
 * 22.05 (Debian 12: PMIx 4.2.2, Open MPI 4.1.4) gets `PMIxEnv=PMIX_MCA_gds=hash`: a rank's
 * PMIx client then asks its server for each key instead of reading the shared-memory datastore
 * (ds21/ds12), which crashed ranks in MPI_Init in the first seconds after slurmd started
 * (HACKING.md, "MPI"). 24.11 (PMIx 5) needs nothing: no file (caps pmix_env NULL). Where the
 * generation needs one the file is the charm's (an admin's is replaced: Slurm 22.05 puts PMIxEnv
 * over a user's own value of the variable, so users cannot opt out); where it needs none, the
 * charm's own file (its first line MPI_CONF_HEADER) is removed and an admin's is left alone.
 *
 * slurmctld reads mpi.conf only when it starts, as cgroup.conf: its digest is stamped on the
 * slurm.conf template (ctl_conf_stamp()) when there is a file, so a change of it is a change of
 * slurm.conf to ctl_apply (restart, push; slurmd's restart at the push reads the new file).
 *
 * Ownership: strings are borrowed; nothing is kept. */
#pragma once

#include <stddef.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define CHARM_PATH_MPI_CONF "/etc/slurm/mpi.conf"
/* the first line of the charm's mpi.conf (what tells its own file from an admin's) */
#define MPI_CONF_HEADER "# Written by the slurmctld charm (charm/slurmctld/mpiconf.h)"

/* Appends the mpi.conf the generation (charm_caps(paths)) needs to ret: nothing when it needs
 * none. Never fails. */
void mpi_conf_render(const struct charm_paths *paths, struct strbuf *ret);

/* Makes /etc/slurm/mpi.conf hold data (root 0644, atomically), or when len is 0 removes it if
 * it is the charm's own (MPI_CONF_HEADER): 1 changed, 0 unchanged, or a negative errno (message
 * in err). */
int mpi_conf_write(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err);
