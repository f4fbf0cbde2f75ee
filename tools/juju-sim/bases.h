/* SPDX-License-Identifier: Apache-2.0 */
/* The bases a Juju 3.x controller accepts for a machine charm, from Juju's source:
 * - a manifest base's name must be one of validOSForBase (juju/juju internal/charm/base.go:
 *   ubuntu, centos, windows, osx, opensuse, genericlinux), else "os \"debian\" not valid";
 * - a machine workload must be a supported workload base (juju/juju core/base/
 *   supportedseries.go: ubuntuSeries with Supported/ESMSupported set, 20.04, 22.04 and 24.04,
 *   and centosSeries 7 and 9; interim Ubuntu releases only while distro-info calls them
 *   supported, which juju-sim does not model).
 * Used by juju-sim deploy (a charm whose manifest names no such base is refused) and by
 * charm-pack (the manifest it writes). No allocation; messages go to err. */
#pragma once

#include <stdbool.h>

#include "util/strbuf.h"

/* 0 when Juju 3.x deploys a machine charm on os@channel ("22.04", "22.04/stable"), else
 * -EINVAL with the reason in err. */
int juju_base_check(const char *os, const char *channel, struct strbuf *err);

/* The accepted bases, for messages: "ubuntu@20.04, ubuntu@22.04, ubuntu@24.04, centos@7, centos@9". */
extern const char juju_bases_accepted[];

/* juju-sim's machine bases (an extension: Juju names a machine's base by the Ubuntu/CentOS
 * release it runs; juju-sim's machines run this host's Debian or a cached root file system):
 * "debian@12"-style names, ID@VERSION_ID of /etc/os-release. The host's own base runs on the
 * host's file system; "debian@13" on tools/rootfs/build.sh's tree under $SLURM_CHARMS_CACHE
 * (default /var/cache/slurm-charms)/rootfs/debian-13/root. */

/* VALUE of KEY=VALUE in os-release text (quotes removed), or NULL. Caller frees. */
char *os_release_value(const char *text, const char *key);

/* The host's base ("debian@12"; caller frees), or NULL when /etc/os-release lacks ID/VERSION_ID. */
char *sim_host_base(void);

/* For machine base `base`: 0 with *ret_rootfs NULL (the host's base) or the root directory
 * (caller frees); -ENOENT when the base's root file system is not built (err says how to build
 * it), -EINVAL for a base juju-sim has no machines of. */
int sim_base_rootfs(const char *base, char **ret_rootfs, struct strbuf *err);
