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
                MPI_CONF_HEADER "; served to every slurmd.\n"
                "# PMIx clients ask their server for each key: PMIx's shared-memory datastore crashed\n"
                "# ranks in MPI_Init on this Slurm generation's PMIx.\n"
                "PMIxEnv=%s\n",
                env);
}

int mpi_conf_write(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err) {
        _cleanup_free_ char *path = charm_path(paths, CHARM_PATH_MPI_CONF);
        int r;
        if (len == 0) {
                /* only the charm's own file: one an admin wrote on a generation that needs none
                 * is left as it is (the attack's F3) */
                _cleanup_free_ char *had = NULL;
                r = read_full_file(path, &had, NULL);
                if (r == -ENOENT)
                        return 0;
                if (r >= 0 && !startswith(had, MPI_CONF_HEADER))
                        return 0;
                if (r >= 0 && unlink(path) == 0)
                        return 1;
                r = r < 0 ? r : -errno;
                if (r == -ENOENT)
                        return 0;
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
