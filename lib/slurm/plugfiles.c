/* SPDX-License-Identifier: Apache-2.0 */
/* The files a plugin needs in the configuration directory (see plugfiles.h). */
#include "util/macro.h"
#include "slurm/plugfiles.h"

#include "util/banned.h"

static const struct {
        const char *type, *name, *file;
} needs[] = {
        { "topology", "tree", "topology.conf" },
        { "topology", "hypercube", "topology.conf" },
        { "job_submit", "lua", "job_submit.lua" },
        { "cli_filter", "lua", "cli_filter.lua" },
        { "jobcomp", "lua", "jobcomp.lua" },
        { "burst_buffer", "lua", "burst_buffer.lua" },
        { "node_features", "helpers", "helpers.conf" },
        { "job_container", "tmpfs", "job_container.conf" },
        { "ext_sensors", "rrd", "ext_sensors.conf" },
};

const char *slurm_plugin_needs_file(const char *type, const char *name) {
        for (size_t i = 0; type && name && i < ELEMENTSOF(needs); i++)
                if (streq(needs[i].type, type) && streq(needs[i].name, name))
                        return needs[i].file;
        return NULL;
}
