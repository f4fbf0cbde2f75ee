#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# juju-sim machines of another base (CHARM_BASE=debian@13): a charm is refused on machines of a
# base it was not built on (nothing made), model-config default-base picks the base of a charm
# that names none, such a machine runs the Debian 13 tree (its systemd, its Slurm) and sees of
# the host only what juju-sim binds, and nothing of it is left on the host after destroy.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
[ -n "$CHARM_BASE" ] || skip "CHARM_BASE not set (suite cluster-debian13)"
host_base=$(. /etc/os-release && echo "$ID@$VERSION_ID")
[ "$host_base" != "$CHARM_BASE" ] || skip "the host is $CHARM_BASE itself"
HOST_CHARM=$TOP_BUILDDIR/slurmd.charm
NOOP=$TOP_SRCDIR/tests/charms/noop

log "a charm built on one base is refused on machines of another; nothing is made"
out=$(js deploy "$HOST_CHARM" --base "$CHARM_BASE" 2>&1) && die "deploy of a $host_base charm on $CHARM_BASE: $out"
[[ $out == *"was built on $host_base"*"cannot run on $CHARM_BASE machines"* ]] || die "refusal: $out"
out=$(js deploy "$SLURMD_CHARM" --base "$host_base" 2>&1) && die "deploy of a $CHARM_BASE charm on $host_base: $out"
[[ $out == *"was built on $CHARM_BASE"* ]] || die "refusal: $out"
out=$(js deploy "$NOOP" --base ubuntu@99.04 2>&1) && die "deploy on an unknown base: $out"
[[ $out == *"juju-sim has no machines of that base"* ]] || die "refusal: $out"
[ ! -d "$MODEL/machines/0" ] || die "a refused deploy made a machine"

log "model-config default-base: a charm that names no base gets it; one built elsewhere keeps its own"
js model-config default-base="$CHARM_BASE"
[ "$(js model-config default-base)" = "$CHARM_BASE" ] || die "model-config: $(js model-config)"
js deploy "$NOOP" newer >/dev/null
js deploy "$HOST_CHARM" older >/dev/null
settle 120
newer=$(js exec newer/0 -- cat /etc/debian_version)
older=$(js exec older/0 -- cat /etc/debian_version)
[ "${newer%%.*}" = "${CHARM_BASE#*@}" ] || die "newer/0 runs Debian $newer"
[ "$older" = "$(cat /etc/debian_version)" ] || die "older/0 runs Debian $older, the host $(cat /etc/debian_version)"
log "newer/0: Debian $newer, systemd $(js exec newer/0 -- sh -c 'systemctl --version | head -1'); older/0: Debian $older"

bases=$(js status --format=json | jq -r --arg n "$(machine_of newer/0)" --arg o "$(machine_of older/0)" \
        '"\(.machines[$n].base.name)@\(.machines[$n].base.channel) \(.machines[$o].base.name)@\(.machines[$o].base.channel)"')
[ "$bases" = "$CHARM_BASE $host_base" ] || die "status: machine bases $bases"

log "a $CHARM_BASE machine sees the host only through juju-sim's binds"
js exec newer/0 -- test -d "$MODEL" || die "the model dir is not bound"
js exec newer/0 -- test -x "$JS" || die "juju-sim's directory is not bound"
[ "$(js exec newer/0 -- sh -c 'test -e /etc/munge/munge.key || test -e /usr/sbin/munged || echo none')" = none ] ||
        die "newer/0 sees munge"
js exec newer/0 -- sh -c 'touch /usr/local/share/juju-sim-probe' || die "cannot write its own /"
[ ! -e /usr/local/share/juju-sim-probe ] || die "a write in the machine reached the host"
[ ! -e "$BASE_ROOT/usr/local/share/juju-sim-probe" ] || die "a write in the machine reached the cached tree"
[ "$(js exec newer/0 -- systemctl is-system-running)" = running ] || die "newer/0's manager is not running"

log "destroy leaves no mount of the model on the host"
js destroy >/dev/null
! grep -qF "$MODEL" /proc/self/mountinfo || die "mounts left: $(grep -F "$MODEL" /proc/self/mountinfo)"
[ ! -e "$MODEL" ] || [ -z "$(ls -A "$MODEL" 2>/dev/null)" ] || die "model dir left: $(ls "$MODEL")"
log ok
