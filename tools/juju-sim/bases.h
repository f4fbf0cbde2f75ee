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
