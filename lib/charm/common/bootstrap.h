/* SPDX-License-Identifier: Apache-2.0 */
/* The first stage of the install hook, for a machine where only libc and libsystemd exist:
 * install the charm's Debian packages (which bring libslurm, and the charm's other libraries
 * are already base packages or come with them), then the hook's main execs the second stage,
 * a full executable shipped in the charm.
 *
 * Invariant: this module uses only libc, lib/util and lib/proc, never lib/juju (cJSON),
 * lib/slurm or libyaml, so an executable built from it and its main has no NEEDED entry but
 * libc (the packaging test checks `readelf -d` of hooks/install). Hook tools are run as plain
 * programs (status-set, juju-log) through lib/proc.
 *
 * Ownership: lists are appended to the caller's strv; messages to the caller's strbuf. */
#pragma once

#include "util/strbuf.h"
#include "util/strv.h"

/* The most packages an install hook asks for, with the closing NULL. */
#define BOOTSTRAP_PKGS_MAX 6

/* The packages of a charm's install hook in ret: daemon's package, slurm-client, then the
 * generation's auth package and one more package where not NULL (slurm_caps: munge on 22.05;
 * the extra one is slurmdbd's token package, sackd on 24.11, or the PMIx library of slurmd and
 * slurmctld, libpmix-dev on 22.05), then NULL. */
void bootstrap_packages(
        const char *daemon, const char *auth_package, const char *extra_package, char *ret[static BOOTSTRAP_PKGS_MAX]);

struct slurm_caps;
/* The packages of daemon's charm ("slurmctld", "slurmd", "slurmdbd", "sackd") on the Slurm
 * generation c (for "sackd", the login nodes: its token package where the generation has one,
 * else slurm-client, then the auth package and the PMIx library):
 * bootstrap_packages() with its auth package and, as the extra one, slurmdbd's token package
 * (sackd on 24.11: the clients on a slurmdbd machine need it for their tokens) or the PMIx
 * library of slurmd and slurmctld (libpmix-dev on 22.05: MpiDefault=pmix, srun loads the
 * plugin), and on the controller the metrics exporter's HTTP library (caps->httpd_package).
 * The one list the install hook and upgrade-charm (charm_packages_ensure) share. */
void bootstrap_daemon_packages(const char *daemon, const struct slurm_caps *c, char *ret[static BOOTSTRAP_PKGS_MAX]);

/* Appends to ret the packages of pkgs (NULL-terminated) that dpkg does not report as
 * installed ("ii"). Returns the number missing, or a negative errno when dpkg-query could not
 * run. */
int bootstrap_missing_packages(char *const *pkgs, struct strv *ret, struct strbuf *err);

/* Installs the missing packages of pkgs with apt-get (noninteractive, no recommends; one
 * `apt-get update` and a retry when the first try fails), after a `status-set maintenance`.
 * Returns the number installed (0 when nothing was missing) or a negative errno; apt-get's
 * last output lines in err. */
int bootstrap_install_packages(char *const *pkgs, struct strbuf *err);

/* Runs a hook tool by name with arguments (NULL-terminated), discarding its output.
 * Returns its exit status or a negative errno. */
int bootstrap_tool(const char *tool, ...) __attribute__((__sentinel__));

/* The path of the second stage: "$JUJU_CHARM_DIR/<rel>" (or "./<rel>" without the variable).
 * Caller frees. */
char *bootstrap_stage2_path(const char *rel);

/* The whole first stage, for the install hook's main: installs pkgs, then execs the stage-2
 * executable at <charm dir>/<stage2_rel>. Returns only on failure: the exit code (1), after
 * writing the reason to stderr and `status-set blocked`. (The one place in lib/ that writes to
 * stderr: it stands in for a main, which it shares by both charms.) */
int bootstrap_main(char *const *pkgs, const char *stage2_rel);
