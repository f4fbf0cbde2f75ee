/* SPDX-License-Identifier: Apache-2.0 */
/* A compute node's daemon configuration as pure functions: the --conf node parameters (the
 * detected hardware, the admin's parameters, Feature=<app>), the /etc/default/slurmd bytes
 * that carry them to slurmd, and the status line of a node. No I/O.
 *
 * /etc/default/slurmd is read by systemd (EnvironmentFile=) and $SLURMD_OPTIONS is split into
 * words by systemd when ExecStart= (`slurmd -D -s $SLURMD_OPTIONS`) runs. The file holds one
 * assignment in double quotes; inside, the --conf value is in single quotes, which systemd 252
 * keeps as one word (TESTBED.md). This is only safe because NODE option values can hold none
 * of ' " \ $ % ` or blanks (slurmconf/options.h), which node_conf_build() re-checks by parsing
 * the rendered string as NODE options, and because node names, application names and
 * controller "host:port" strings are validated by interfaces/slurmd.h.
 *
 * Ownership: results are appended to caller-owned buffers/lists. */
#pragma once

#include <stdint.h>

#include "slurmconf/options.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* Builds the node parameters: hardware ("Key=Value" strings, as from slurm_detect_hardware),
 * then admin (may be NULL) over it, then Features=<app> (the admin's features, if any, after
 * the application's: "app,big"). Validates the result as NODE options and its CPU layout
 * (node_conf_topology_check) (-EINVAL with a message). *ret is replaced. */
int node_conf_build(char *const *hardware, const struct slurm_options *admin, const char *app,
        struct slurm_options *ret, struct strbuf *err);

/* The node's CPU layout as Slurm reads it (issue 26 item 3, attack atk7 F2/F3), checked before
 * slurmd registers with it: slurmctld 22.05's cons_tres fatal()s when CPUs matches neither
 * Sockets × CoresPerSocket nor that × ThreadsPerCore ("doesn't match neither …", the controller
 * restarted by systemd, its last seconds of state lost; `Boards=2` or `CPUs=1` on a 2-core node
 * did it), and both generations reset quietly what does not fit (CPUs, CoreSpecCount). conf is
 * the built set (hardware with the admin's over it), hw the detected hardware (slurmd -C).
 * Refused, with -EINVAL and one message: a zero count; Sockets fewer than Boards; CPUs matching
 * neither product (Slurm's defaults for what is not given, as read_config.c infers them); more
 * CPUs (sockets × cores × threads, or CPUs) or more threads per core than slurmd detected here;
 * a CoreSpecCount or CpuSpecList that leaves no core or CPU for jobs or names a CPU the node
 * does not have. 0 otherwise. Pure. */
int node_conf_topology_check(const struct slurm_options *conf, const struct slurm_options *hw, struct strbuf *err);

/* A node stays in its own application's partition (issue 26): the partitions select their nodes
 * by feature (a NodeSet=X Feature=X line per compute application, in the slurm.conf the node
 * fetched: conf_text), so an admin feature that is another NodeSet's feature would put this
 * node into that application's partition. -EPERM naming the first such feature of the
 * comma-separated list features (app's own is fine; node_conf_build adds it anyway), 0 when
 * none. Pure. */
int node_features_check(const char *features, const char *app, const char *conf_text, struct strbuf *err);

/* Whether the node slurmctld registered (its cpus and real_memory) is what the parameters asked
 * for: slurmctld 22.05 and 24.11 reset a CPUs count that does not match Boards × Sockets ×
 * CoresPerSocket × ThreadsPerCore ("… match no Sockets … Resetting CPUs") and register the node
 * anyway. -EINVAL naming the difference, 0 when CPUs and RealMemory (those asked) are as asked.
 * Pure. */
int node_conf_effective_check(
        const struct slurm_options *asked, uint16_t cpus, uint64_t real_memory, struct strbuf *err);

/* The whole /etc/default/slurmd for node_conf (rendered normalized), node name and the
 * controllers ("host:port", primary first). -EINVAL when an argument would break the quoting. */
int node_defaults_render(const struct slurm_options *node_conf, const char *node_name,
        char *const *controllers, struct strbuf *out);

/* The status message of a node from its Slurm state and reason: "idle", "allocated",
 * "mixed", "down (REASON)" (also DOWN+DRAIN), "drained (REASON)", "draining (REASON)",
 * "not responding", … */
void node_status_message(uint32_t state, const char *reason, struct strbuf *out);
