/* SPDX-License-Identifier: Apache-2.0 */
#include "charm/slurmctld/mpiconf.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fileio.h"
#include "util/macro.h"

#include "util/banned.h"

void mpi_conf_render(const struct charm_paths *paths, struct strbuf *ret) {
        const char *env = charm_caps(paths)->pmix_env;
        if (!env || !*env)
                return;
        strbuf_addf(ret,
                "# Written by the slurmctld charm (charm/slurmctld/mpiconf.h); served to every slurmd.\n"
                "# PMIx clients ask their server for each key: PMIx's shared-memory datastore crashed\n"
                "# ranks in MPI_Init on this Slurm generation's PMIx.\n"
                "PMIxEnv=%s\n",
                env);
}

int mpi_conf_write(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err) {
        _cleanup_free_ char *path = charm_path(paths, CHARM_PATH_MPI_CONF);
        int r;
        if (len == 0) {
                if (unlink(path) == 0)
                        return 1;
                if (errno == ENOENT)
                        return 0;
                r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        _cleanup_free_ char *etc = charm_path(paths, "/etc/slurm");
        r = mkdir_p(etc, 0755);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, data, len, 0644, 0, 0);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}
