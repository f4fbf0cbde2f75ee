/* SPDX-License-Identifier: Apache-2.0 */
/* The files a Slurm plugin reads from the configuration directory at its start and cannot run
 * without (issue 26, item 4: judge a candidate before the live daemon is touched).
 *
 * Design note (22.05.8 and 24.11.5 source, get_extra_conf_path() callers): topology/tree and
 * topology/hypercube parse topology.conf and call fatal() when they cannot
 * (_read_topo_file); job_submit/lua, cli_filter/lua, jobcomp/lua and burst_buffer/lua load
 * job_submit.lua, cli_filter.lua, jobcomp.lua and burst_buffer.lua (slurm_lua_loadscript: the
 * plugin's init fails, and the daemon or every client command with it); node_features/helpers
 * needs helpers.conf with a Feature line; job_container/tmpfs needs job_container.conf (slurmd:
 * "No job_container.conf file", init fails); ext_sensors/rrd (22.05) exits without
 * ext_sensors.conf. A slurm.conf naming one of these plugins while the file is missing makes
 * slurmctld retry and exit at its start (topology/tree: the controller was away for 50 s before
 * the charm rolled back), so the candidate is refused before the live file changes. The charms
 * write none of these files.
 *
 * Ownership: static strings. */
#pragma once

/* The file (a name in the configuration directory) plugin type/name needs, or NULL. Pure. */
const char *slurm_plugin_needs_file(const char *type, const char *name);
