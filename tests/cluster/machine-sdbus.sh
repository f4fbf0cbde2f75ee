#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Inside a machine, sdbus-probe (lib/systemd on sd_bus_default system bus, no test switch)
# starts, stops and restarts a unit and follows its ActiveState by D-Bus signals; it measures
# the latency from `systemctl kill` to the signal.
set -u
. "$(dirname "$0")/machine-lib.sh"
PROBE=${SDBUS_PROBE:-${TOP_BUILDDIR}/tests/cluster/sdbus-probe}
[ -x "$PROBE" ] || die "no probe at $PROBE"

# The machine has its own /tmp and /run: share the probe's directory at its own path, so a
# build tree anywhere (also under /tmp) is seen inside.
probe_dir=$(dirname "$(readlink -f "$PROBE")")
PROBE=$probe_dir/$(basename "$PROBE")
"$JSM" create "$MODEL" 0 --share "$probe_dir:$probe_dir" >/dev/null || die "create 0"
mx 0 sh -c 'printf "[Service]\nExecStart=/bin/sleep infinity\n" > /etc/systemd/system/jsim-probe.service &&
        systemctl daemon-reload' || die "install the probe unit"
out=$(mx 0 env -u DBUS_SYSTEM_BUS_ADDRESS "$PROBE" jsim-probe.service) || { echo "$out"; die "sdbus-probe failed"; }
echo "$out"
grep -q '^signal: jsim-probe.service ActiveState=active' <<<"$out" || die "no active signal"
grep -q '^signal: jsim-probe.service ActiveState=inactive' <<<"$out" || die "no inactive signal"
grep -q '^kill-to-signal latency' <<<"$out" || die "no latency"
log "ok"
