/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's cgroup.conf: templates/cgroup.conf checked against Slurm 22.05's keys and
 * written next to slurm.conf; the copy slurmctld last started with, to know when it must restart. */
#include "util/macro.h"

#include <strings.h>

#include "charm/slurmctld/cgroupconf.h"
#include "util/alloc.h"
#include "util/fileio.h"

#include "util/banned.h"

/* Slurm 22.05's cgroup.conf keys (src/common/cgroup.c, read_slurm_cgroup_conf()); b: boolean. */
static const struct {
        const char *key;
        bool boolean;
} keys[] = {
        { "CgroupAutomount", true },
        { "CgroupMountpoint", false },
        { "CgroupReleaseAgentDir", false },
        { "ConstrainCores", true },
        { "ConstrainRAMSpace", true },
        { "AllowedRAMSpace", false },
        { "MaxRAMPercent", false },
        { "MinRAMSpace", false },
        { "ConstrainSwapSpace", true },
        { "ConstrainKmemSpace", true },
        { "AllowedKmemSpace", false },
        { "MaxKmemPercent", false },
        { "MinKmemSpace", false },
        { "AllowedSwapSpace", false },
        { "MaxSwapPercent", false },
        { "MemoryLimitEnforcement", true },
        { "MemoryLimitThreshold", false },
        { "ConstrainDevices", true },
        { "AllowedDevicesFile", false },
        { "MemorySwappiness", false },
        { "CgroupPlugin", false },
        { "IgnoreSystemd", true },
        { "IgnoreSystemdOnFailure", true },
};

/* Slurm's boolean words (s_p_parse_boolean). */
static bool is_boolean(const char *v) {
        static const char *const words[] = { "yes", "up", "true", "1", "no", "down", "false", "0" };
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (strcasecmp(v, words[i]) == 0)
                        return true;
        return false;
}

int cgroup_conf_check(const char *name, const char *data, size_t len, struct strbuf *err) {
        _cleanup_free_ char *copy = xstrndup(data, len);
        unsigned n = 0;
        for (char *line = copy, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                n++;
                line += strspn(line, " \t");
                size_t l = strlen(line);
                while (l > 0 && (line[l - 1] == ' ' || line[l - 1] == '\t' || line[l - 1] == '\r'))
                        line[--l] = '\0';
                if (l == 0 || line[0] == '#')
                        continue;
                char *eq = strchr(line, '=');
                if (!eq || eq == line || !eq[1] || strpbrk(eq + 1, " \t")) {
                        strbuf_addf(err, "%s line %u: not Key=Value: \"%.60s\"", name, n, line);
                        return -EINVAL;
                }
                *eq = '\0';
                size_t k = 0;
                while (k < ELEMENTSOF(keys) && strcasecmp(keys[k].key, line) != 0)
                        k++;
                if (k == ELEMENTSOF(keys)) {
                        strbuf_addf(err, "%s line %u: \"%.40s\" is not a Slurm 22.05 cgroup.conf key", name,
                                n, line);
                        return -EINVAL;
                }
                if (keys[k].boolean && !is_boolean(eq + 1)) {
                        strbuf_addf(err, "%s line %u: %s takes yes or no, not \"%.40s\"", name, n,
                                keys[k].key, eq + 1);
                        return -EINVAL;
                }
        }
        return 0;
}

int cgroup_conf_render(
        const struct charm_paths *paths, const char *charm_dir, struct strbuf *ret, struct strbuf *err) {
        _cleanup_free_ char *tmpl_path = charm_template_path(paths, charm_dir, "cgroup.conf");
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        int r = read_full_file(tmpl_path, &data, &len);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", tmpl_path, strerror(-r));
                return r;
        }
        r = cgroup_conf_check(tmpl_path, data, len, err);
        if (r < 0)
                return r;
        strbuf_add(ret, data, len);
        return 0;
}

int cgroup_conf_write(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err) {
        _cleanup_free_ char *path = charm_path(paths, CHARM_PATH_CGROUP_CONF);
        _cleanup_free_ char *etc = charm_path(paths, "/etc/slurm");
        int r = mkdir_p(etc, 0755);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, data, len, 0644, 0, 0);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}
