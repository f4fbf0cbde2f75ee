/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's cgroup.conf: templates/cgroup.conf written next to slurm.conf, which
 * configless slurmctld serves to every slurmd with slurm.conf (proctrack/cgroup, task/cgroup).
 *
 * The template is checked first: every line a comment, blank, or Key=Value with a key of
 * Slurm 22.05's cgroup.conf (src/common/cgroup.c's option table) and a yes/no value for its
 * boolean keys, so a typo cannot reach the nodes (slurmd ignores nothing: an unknown key is
 * fatal there). slurmctld reads cgroup.conf only when it starts (it serves the bytes it read),
 * so a changed file must restart it like a changed slurm.conf: the controller stamps its digest
 * on the slurm.conf template (ctl_conf_stamp(), as gres.conf's), which makes a change of it a
 * change of slurm.conf to ctl_apply (restart, rollback, push; a hook that fails in between
 * still restarts it next time).
 *
 * Ownership: strings are borrowed; nothing is kept. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define CHARM_PATH_CGROUP_CONF "/etc/slurm/cgroup.conf"

/* Checks a cgroup.conf (name for messages): 0, or -EINVAL with "NAME line N: …" in err. */
int cgroup_conf_check(const char *name, const char *data, size_t len, struct strbuf *err);

/* Reads templates/cgroup.conf (of paths->charm_dir, else charm_dir), checks it and appends it
 * to ret. 0, or a negative errno (message in err; ret unchanged). */
int cgroup_conf_render(
        const struct charm_paths *paths, const char *charm_dir, struct strbuf *ret, struct strbuf *err);

/* Writes /etc/slurm/cgroup.conf (root 0644, atomically) when the bytes differ: 1 written, 0
 * unchanged, or a negative errno (message in err). */
int cgroup_conf_write(const struct charm_paths *paths, const char *data, size_t len, struct strbuf *err);
