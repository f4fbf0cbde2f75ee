#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mixed bases in one model (issue 14): Juju deploys each application on its charm's base, so a
# Debian 12 controller (Slurm 22.05, auth/munge) and Debian 13 compute units (24.11, auth/slurm)
# can meet over the slurmd relation. Slurm cannot make one cluster of them; the charms say so:
#  1. slurmctld 22.05 + a 22.05 slurmd application + a 24.11 slurmd application: the 24.11 units
#     are blocked (a slurmd newer than slurmctld), write nothing and run no slurmd; the
#     controller leaves that application out (no partition) and says why; the 22.05 application
#     is served (a job runs).
#  2. slurmctld 24.11 + a 22.05 slurmd application: 22.05 is four major releases behind 24.11
#     (it takes three) and uses another AuthType: blocked, left out, named.
#  3. slurmctld 24.11 + a 22.05 slurmdbd: slurmdbd serves slurmctld and must not be older; the
#     slurmdbd unit is blocked and writes nothing, the controller takes no accounting from it
#     and says why.
# Needs the Debian 13 tree and build-debian13/'s charms (./dev build); skips without them.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
[ -z "$CHARM_BASE" ] || skip "runs on this host's base, with Debian 13 applications beside"
"$TOP_SRCDIR/tools/rootfs/build.sh" --check debian@13 || skip "no root file system for debian@13 (./dev rootfs debian@13)"
B13=$TOP_SRCDIR/build-debian13
[ -f "$B13/slurmctld.charm" ] && [ -f "$B13/slurmd.charm" ] || skip "charms not built on debian@13 (./dev build)"
V12=$SLURM_VERSION
V13=$(dpkg-query --admindir="$("$TOP_SRCDIR/tools/rootfs/build.sh" --path debian@13)/var/lib/dpkg" -W -f '${Version}' slurmd)
V13=${V13%%-*}
re() { sed 's/[.]/[.]/g' <<<"$1"; }

log "1. slurmctld $V12 (debian@12) with slurmd $V12 (cpu) and slurmd $V13 (new, debian@13)"
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js deploy "$B13/slurmd.charm" new --base debian@13 --share "$T:$T" >/dev/null
js integrate slurmctld cpu >/dev/null
js integrate slurmctld new >/dev/null
settle 240
js trigger slurmctld update-status >/dev/null
settle
expect_status new/0 "^blocked \"slurmctld\" cannot take this unit: slurmd $(re "$V13") is newer than slurmctld $(re "$V12") .*deploy slurmd on the controllers' base$"
expect_status slurmctld/0 "application \"new\" left out: slurmd $(re "$V13") is newer than slurmctld $(re "$V12")"
expect_status cpu/0 '^active idle$'
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
grep -q '^PartitionName=cpu ' "$conf" || die "no partition cpu"
! grep -q 'PartitionName=new\|NodeSet=new' "$conf" || die "the Debian 13 application got a partition: $(grep new "$conf")"
nr=$(root_of new/0)
[ ! -e "$nr/etc/slurm/slurm.key" ] || die "new/0 wrote its auth key"
! grep -qs -- '--conf-server' "$nr/etc/default/slurmd" || die "new/0 wrote /etc/default/slurmd: $(cat "$nr/etc/default/slurmd")"
[ "$(js exec new/0 -- systemctl is-active slurmd || true)" != active ] || die "slurmd runs on new/0"
job=$(js exec slurmctld/0 -- sbatch --parsable -p cpu -o /dev/null --wrap true)
wait_job_state "${job%%;*}" COMPLETED 60

log "2. slurmctld $V13 (ctl13, debian@13) with slurmd $V12 (old, debian@12)"
js deploy "$B13/slurmctld.charm" ctl13 --base debian@13 --share "$T:$T" >/dev/null
js deploy "$SLURMD_CHARM" old >/dev/null
js integrate ctl13 old >/dev/null
settle 240
js trigger ctl13 update-status >/dev/null
settle
expect_status old/0 "^blocked \"ctl13\" cannot take this unit: slurmd $(re "$V12") is [0-9]+ major releases behind slurmctld $(re "$V13") \(it takes 3 at most\)"
expect_status ctl13/0 "application \"old\" left out: slurmd $(re "$V12") is [0-9]+ major releases behind"
! grep -q 'PartitionName=old' "$(root_of ctl13/0)/etc/slurm/slurm.conf" 2>/dev/null || die "the Debian 12 application got a partition on ctl13"
[ "$(js exec old/0 -- systemctl is-active slurmd || true)" != active ] || die "slurmd runs on old/0"

log "3. slurmctld $V13 (ctl13) with slurmdbd $V12 (dbd, debian@12): slurmdbd serves the controllers, and is older"
js deploy "$TOP_BUILDDIR/slurmdbd.charm" dbd >/dev/null
js integrate ctl13 dbd >/dev/null
settle 240
js trigger ctl13 update-status >/dev/null
settle
expect_status dbd/0 "^blocked \"ctl13\" cannot use this slurmdbd: slurmctld $(re "$V13") is newer than slurmdbd $(re "$V12") .*deploy slurmdbd on the controllers' base$"
expect_status ctl13/0 "relation with \"dbd\": slurmctld $(re "$V13") is newer than slurmdbd $(re "$V12") .*\(accounting stays as it was\)"
! grep -q '^AccountingStorage' "$(root_of ctl13/0)/etc/slurm/slurm.conf" || die "ctl13 took the Debian 12 slurmdbd: $(grep ^Accounting "$(root_of ctl13/0)/etc/slurm/slurm.conf")"
[ ! -e "$(root_of dbd/0)/etc/slurm/slurmdbd.conf" ] || die "dbd/0 wrote slurmdbd.conf"
[ "$(js exec dbd/0 -- systemctl is-active slurmdbd || true)" != active ] || die "slurmdbd runs on dbd/0"

log "removing the mismatched relation: the unit is out (never joined), the controller's note goes"
js remove-relation slurmctld new >/dev/null
settle 120
expect_status new/0 '^(blocked missing relation to slurmctld|maintenance left the cluster)$'
js trigger slurmctld update-status >/dev/null
settle
st=$(unit_status slurmctld/0)
[[ $st != *'left out'* ]] || die "slurmctld/0 still names the removed application: $st"
log "ok"
