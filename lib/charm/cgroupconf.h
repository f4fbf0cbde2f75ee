/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's cgroup.conf: templates/cgroup.conf written next to slurm.conf, which
 * configless slurmctld serves to every slurmd with slurm.conf (proctrack/cgroup, task/cgroup).
 *
 * The template is checked first: every line a comment, blank, or Key=Value with a key of
 * Slurm 22.05's cgroup.conf (src/common/cgroup.c's option table) and a yes/no value for its
 * boolean keys, so a typo cannot reach the nodes (slurmd ignores nothing: an unknown key is
 * fatal there). slurmctld reads cgroup.conf only when it starts (it serves the bytes it read),
 * so a changed file must restart it like a changed slurm.conf; the bytes slurmctld last ran
 * with are kept in <state>/CGROUP_CONF_APPLIED_FILE to tell (a hook that fails in between
 * still restarts it next time).
 *
 * Ownership: strings are borrowed; nothing is kept. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "charm/charm.h"
#include "util/strbuf.h"

#define CHARM_PATH_CGROUP_CONF "/etc/slurm/cgroup.conf"
#define CGROUP_CONF_APPLIED_FILE "cgroup.conf.applied"

/* Checks a cgroup.conf (name for messages): 0, or -EINVAL with "NAME line N: …" in err. */
int cgroup_conf_check(const char *name, const char *data, size_t len, struct strbuf *err);

/* Checks templates/cgroup.conf (of paths->charm_dir, else charm_dir) and writes it to
 * /etc/slurm/cgroup.conf (root 0644, atomically) when the bytes differ. Returns 1 when the
 * file differs from what slurmctld last ran with (cgroup_conf_applied()), 0 when not, or a
 * negative errno (message in err). */
int cgroup_conf_install(const struct charm_paths *paths, const char *charm_dir, struct strbuf *err);

/* Records the written cgroup.conf as the one slurmctld runs with (after a start or restart
 * that read it). 0 or a negative errno (message in err). */
int cgroup_conf_applied(const struct charm_paths *paths, struct strbuf *err);
