/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit's guard of the files and programs slurm.conf names for slurmd on its
 * machine (slurmconf/pathkeys.h, the NODE keys: Prolog, Epilog, TaskProlog, TaskEpilog,
 * HealthCheckProgram, RebootProgram, UnkillableStepProgram, PlugStackConfig, SlurmdLogFile).
 *
 * Design note. The controller refuses any such path outside the roots of its use, but it
 * cannot see the compute machines: a Prolog in /etc/slurm/scripts that is missing, or that
 * someone made writable by a group there, is only seen where slurmd runs it (as root). Each
 * compute hook (update-status at least) reads the configuration slurmd runs with (the
 * configless copy), checks every NODE key on this machine and, while one fails, drains its
 * node with a reason of the charm's (NODE_PATHS_REASON) and blocks the unit with the first
 * failure; once every check passes, a node drained with that reason (and only that one) is
 * resumed. An admin's own drain is never touched. The window: between slurm.conf naming a bad
 * program and this unit's next hook, and at slurmd's first start (the file is fetched by the
 * start itself), slurmd may run it.
 *
 * SlurmdLogFile's owner is SlurmdUser's (root unless slurm.conf says otherwise). Only what the
 * machine shows is judged (SLURMCONF_PATH_F_ANYWHERE): a path an older controller charm let
 * through and the current one refuses is the controller's to drop, not a reason to drain every
 * node at an upgrade. A drained node still runs some programs (HealthCheckProgram with
 * HealthCheckNodeState=ANY, Epilog of the jobs already there, RebootProgram): the drain stops
 * new jobs, it does not make an unsafe program safe.
 *
 * Ownership: strings are borrowed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "charm/common/charm.h"
#include "slurm/nodes.h"
#include "util/strbuf.h"

#define NODE_PATHS_REASON "charm: slurm.conf names an unsafe file here (see juju status)"
/* The configuration slurmd fetched from the controller (configless), which it runs with. */
#define NODE_PATHS_CONF "/run/slurm/conf/slurm.conf"
/* after the undrain, how long the node may take to answer slurmctld again */
#define NODE_PATHS_REGISTER_MS 5000

/* The NODE keys of the slurm.conf text (len bytes) checked on this machine (p->root): 0 all
 * fine; 1 one is not, the first failure ("Prolog: \"…\" is not root's alone …") in why; a
 * negative errno when the text cannot be read as slurm.conf (message in why). */
int node_paths_check(const struct charm_paths *p, const char *conf, size_t conf_len, struct strbuf *why);
/* As node_paths_check() with the flags of slurmconf_paths_check_keys() (0: the roots and the
 * lexical rule too, as for a value not published yet: charm/common/nodeprogs.h). */
int node_paths_check_flags(
        const struct charm_paths *p, const char *conf, size_t conf_len, unsigned flags, struct strbuf *why);

/* True when the node's drain reason is the charm's (NODE_PATHS_REASON). */
bool node_paths_reason_ours(const char *reason);

/* The record node_paths_guard() leaves each time it judges (its mtime is when): slurmd's watcher
 * (charm/slurmd/nodefollow.h) takes what a handler run judged as its baseline only when the run wrote
 * it, so a run that returned before judging hides nothing. */
#define NODE_PATHS_JUDGED_FILE "nodepaths-judged"
/* Whether node_paths_guard() judged since t (its record's mtime; p NULL: this machine). */
bool node_paths_judged_since(const struct charm_paths *p, const struct timespec *t);
/* The guard for this unit's node (its record in *node, refreshed when changed): reads the
 * configuration slurmd runs with (slurm/client.h), checks it, drains or resumes the node as
 * described above. 1 unsafe (why set, the node drained), 0 safe or nothing to check, or a
 * negative errno (message in err). */
int node_paths_guard(const struct charm_paths *p, const char *node_name, struct slurm_node *node,
        struct strbuf *why, struct strbuf *err);
