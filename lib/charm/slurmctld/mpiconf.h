/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's mpi.conf (issue 30 §4, MPI): written next to slurm.conf where the Slurm
 * generation needs one, served configless to every slurmd with slurm.conf (22.05's
 * slurmd_config_files in proc_req.c lists it), read by slurmd at its start and handed to each
 * step's slurmstepd, whose PMIx plugin puts PMIxEnv's variables into the tasks' environment.
 *
 * 22.05 (Debian 12: PMIx 4.2.2, Open MPI 4.1.4) gets `PMIxEnv=PMIX_MCA_gds=hash`: a rank's
 * PMIx client then asks its server for each key instead of reading the shared-memory datastore
 * (ds21/ds12), which crashed ranks in MPI_Init in the first seconds after slurmd started
 * (HACKING.md, "MPI"). 24.11 (PMIx 5) needs nothing: no file (caps pmix_env NULL). The file is
 * the charm's: a generation without one has it removed.
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

/* Appends the mpi.conf the generation (charm_caps(paths)) needs to ret: nothing when it needs
 * none. Never fails. */
void mpi_conf_render(const struct charm_paths *paths, struct strbuf *ret);

/* Makes /etc/slurm/mpi.conf hold data (root 0644, atomically), or removes it when len is 0:
 * 1 changed, 0 unchanged, or a negative errno (message in err). */
int mpi_conf_write(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err);
