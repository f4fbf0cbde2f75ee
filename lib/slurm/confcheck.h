/* SPDX-License-Identifier: Apache-2.0 */
/* Judges a candidate slurm.conf with Slurm's own reader (libslurm's slurm_conf_reinit()) in a
 * child process, before the file replaces the live one.
 *
 * Design note. libslurm 22.05 calls fatal() (exit) on any configuration problem, so the check
 * runs in a forked child that: writes the bytes to a memfd and reads it back through
 * /proc/self/fd/N; sets slurm_prog_name to "slurmctld" so the reader applies the rules it
 * keeps for the controller (FastSchedule, …); calls slurm_conf_reinit(); then checks what the
 * reader leaves to the daemons but needs no daemon: every plugin named by the parsed
 * slurm_conf (SchedulerType, SelectType, TaskPlugin items, JobSubmitPlugins, MpiDefault, …)
 * exists as <dir>/<type>_<name>.so in one of the PluginDir directories. The child's stderr
 * comes back through a pipe, its exit status through waitpid(); a child still running after
 * the timeout is killed (SIGKILL). The parent never calls into libslurm's configuration code,
 * so a bad candidate cannot take the calling process down.
 *
 * The child runs as the caller (root in a hook); the reader looks up SlurmUser and SlurmdUser
 * with getpwnam(), so the `slurm` user must exist (Debian's slurm packages create it).
 *
 * Return rule: 0 accepted; -EINVAL rejected, with Slurm's error lines condensed into one
 * message in err (the generic "Unable to process configuration file" dropped), e.g.
 * `slurm.conf refused by Slurm: Bad value "forever" for MaxTime`; another negative errno when
 * the check could not run (-ETIMEDOUT, fork or memfd failures), with a message too.
 *
 * A plugin named is also refused when a file it reads from the configuration directory at its
 * start is missing (slurm/plugfiles.h: TopologyPlugin=topology/tree without topology.conf made
 * slurmctld exit at its start; the controller was away 50 s before the rollback).
 *
 * Ownership: the caller owns data and err; nothing is kept. */
#pragma once

#include <stddef.h>

#include "util/strbuf.h"

#define SLURM_CONF_CHECK_TIMEOUT_MS 10000
#define SLURM_CONF_CHECK_CONF_DIR "/etc/slurm"

struct slurm_conf_check_opts {
        unsigned timeout_ms; /* 0: SLURM_CONF_CHECK_TIMEOUT_MS */
        struct strbuf *log;  /* NULL, or receives Slurm's error lines also when accepted (one a
                              * line, "error: …"): what the reader reported but let through */
        int no_plugin_check; /* non-zero: only the reader, no plugin file check */
        const char *conf_dir; /* where the daemons read the plugins' own files (topology.conf,
                               * job_submit.lua, …: slurm/plugfiles.h); NULL:
                               * SLURM_CONF_CHECK_CONF_DIR */
};

/* Checks the len bytes at data as a complete slurm.conf; see the return rule above. */
int slurm_conf_check(const char *data, size_t len, struct strbuf *err);
/* As slurm_conf_check() with options (opts may be NULL). */
int slurm_conf_check_opts(
        const char *data, size_t len, const struct slurm_conf_check_opts *opts, struct strbuf *err);
