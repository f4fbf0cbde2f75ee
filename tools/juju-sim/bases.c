/* SPDX-License-Identifier: Apache-2.0 */
/* Juju 3.x machine-charm bases (bases.h): the manifest's OS names and the supported workload
 * bases, as juju/juju internal/charm/base.go and core/base/supportedseries.go list them. */
#include "util/macro.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bases.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/banned.h"

const char juju_bases_accepted[] = "ubuntu@20.04, ubuntu@22.04, ubuntu@24.04, centos@7, centos@9";

int juju_base_check(const char *os, const char *channel, struct strbuf *err) {
        static const char *const valid_os[] = { "ubuntu", "centos", "windows", "osx", "opensuse",
                "genericlinux" };
        static const struct {
                const char *os, *track;
        } workload[] = { { "ubuntu", "20.04" }, { "ubuntu", "22.04" }, { "ubuntu", "24.04" },
                { "centos", "7" }, { "centos", "9" } };
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(valid_os); i++)
                known = known || streq(os, valid_os[i]);
        if (!known) {
                strbuf_addf(err, "os \"%s\" not valid", os);
                return -EINVAL;
        }
        if (isempty(channel)) {
                strbuf_addstr(err, "channel not valid");
                return -EINVAL;
        }
        size_t tl = strcspn(channel, "/");
        const char *risk = channel[tl] ? channel + tl + 1 : "stable";
        for (size_t i = 0; i < ELEMENTSOF(workload); i++)
                if (streq(os, workload[i].os) && strlen(workload[i].track) == tl &&
                        strncmp(channel, workload[i].track, tl) == 0 && startswith(risk, "stable"))
                        return 0;
        strbuf_addf(err, "base \"%s@%s\" is not a supported machine base (Juju 3.x: %s)", os, channel,
                juju_bases_accepted);
        return -EINVAL;
}

char *os_release_value(const char *text, const char *var) {
        size_t vl = strlen(var);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, var, vl) != 0 || l[vl] != '=')
                        continue;
                const char *v = l + vl + 1;
                size_t n = strcspn(v, "\n");
                if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
                        v++, n -= 2;
                return xstrndup(v, n);
        }
        return NULL;
}

char *sim_host_base(void) {
        _cleanup_free_ char *text = NULL;
        if (read_full_file("/etc/os-release", &text, NULL) < 0)
                return NULL;
        _cleanup_free_ char *id = os_release_value(text, "ID"), *ver = os_release_value(text, "VERSION_ID");
        if (isempty(id) || isempty(ver))
                return NULL;
        return xasprintf("%s@%s", id, ver);
}

int sim_base_rootfs(const char *base, char **ret_rootfs, struct strbuf *err) {
        _cleanup_free_ char *host = sim_host_base();
        if (host && streq(base, host)) {
                *ret_rootfs = NULL;
                return 0;
        }
        static const struct { const char *base, *dir; } built[] = { { "debian@13", "debian-13" } };
        for (size_t i = 0; i < ELEMENTSOF(built); i++) {
                if (!streq(base, built[i].base))
                        continue;
                const char *cache = getenv("SLURM_CHARMS_CACHE");
                _cleanup_free_ char *root = xasprintf("%s/rootfs/%s/root",
                        isempty(cache) ? "/var/cache/slurm-charms" : cache, built[i].dir);
                _cleanup_free_ char *stamp = xasprintf("%s/.slurm-charms-rootfs", root);
                if (access(stamp, F_OK) < 0) {
                        strbuf_addf(err,
                                "base \"%s\": no root file system at %s (build it: tools/rootfs/build.sh "
                                "%s)",
                                base, root, base);
                        return -ENOENT;
                }
                *ret_rootfs = TAKE_PTR(root);
                return 0;
        }
        strbuf_addf(err, "base \"%s\": juju-sim has no machines of that base (this host's %s, debian@13)",
                base, strempty(host));
        return -EINVAL;
}
