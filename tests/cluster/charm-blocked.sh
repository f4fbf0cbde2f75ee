#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bad inputs block with a clear message and leave every file the charms write unchanged:
# a bad partition-config, bad slurm-conf-parameters, malformed data from a slurmd-side test charm
# (tests/charms/bad-slurmd) and from a controller-side one (tests/charms/bad-slurmctld).
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
CHARMS=${TOP_SRCDIR:?}/tests/charms

js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
expect_status slurmctld/0 '^active 1 node in 1 partition$'
expect_status slurmd/0 '^active idle$'
# the files of the charms' units (the test charms' machines are not ours to check)
fp() {
        local u
        for u in slurmctld/0 slurmd/0; do
                # shellcheck disable=SC2046
                fingerprint $(charm_files "$u")
        done
}
good=$(fp)
unchanged() { [ "$(fp)" = "$good" ] || die "$1: files changed: $(diff <(echo "$good") <(fp))"; }

log "bad partition-config"
js config slurmd partition-config="MaxTime=1 Foo=bar" >/dev/null
settle
expect_status slurmd/0 '^blocked partition-config: .*"Foo"'
app=$(js status --format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["applications"]["slurmd"]["application-status"]["current"])')
[ "$app" = blocked ] || die "slurmd application status: $app"
unchanged "partition-config"
js config slurmd --reset partition-config >/dev/null
settle
expect_status slurmd/0 '^active idle$'
unchanged "partition-config reset"

log "bad slurm-conf-parameters"
for bad in "MaxNodeCount=5" "SlurmctldDebug=info;reboot" "NoSuchKey=1"; do
        js config slurmctld slurm-conf-parameters="$bad" >/dev/null
        settle
        expect_status slurmctld/0 '^blocked slurm-conf-parameters: '
        unchanged "slurm-conf-parameters=$bad"
done
js config slurmctld --reset slurm-conf-parameters >/dev/null
settle
expect_status slurmctld/0 '^active 1 node in 1 partition$'
unchanged "slurm-conf-parameters reset"

log "cluster-name changed after the cluster was named: refused alone (issue 26, item 5)"
name=$(sed -n 's/^ClusterName=//p' "$(root_of slurmctld/0)/etc/slurm/slurm.conf")
js config slurmctld cluster-name=other >/dev/null
settle
expect_status slurmctld/0 "^blocked cluster-name: cannot change once set: the cluster is \"$name\""
app=$(js status --format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["applications"]["slurmctld"]["application-status"]["current"])')
[ "$app" = blocked ] || die "slurmctld application status: $app"
unchanged "cluster-name=other"
# another application's change still applies meanwhile
js config slurmd partition-config="MaxTime=77" >/dev/null
settle
on_ctl() { js exec slurmctld/0 -- "$@"; }
on_ctl scontrol -o show partition slurmd | grep -q 'MaxTime=01:17:00' ||
        die "partition-config waited for cluster-name: $(on_ctl scontrol -o show partition slurmd)"
expect_status slurmctld/0 "^blocked cluster-name: cannot change once set"
[ "$(sed -n 's/^ClusterName=//p' "$(root_of slurmctld/0)/etc/slurm/slurm.conf")" = "$name" ] || die "ClusterName changed"
js config slurmd --reset partition-config >/dev/null
js config slurmctld --reset cluster-name >/dev/null
settle
expect_status slurmctld/0 '^active 1 node in 1 partition$'
good=$(fp) # slurm.conf was rewritten twice by the partition-config change and its reset

log "malformed data from a slurmd-side application"
ns='{"NodeSet":"bad-slurmd","Feature":"bad-slurmd"}'
js deploy "$CHARMS/bad-slurmd" --config partition='{"PartitionName":"bad-slurmd","Nodes":"bad-slurmd","MaxTime":"1$(reboot)"}' \
        --config nodeset="$ns" >/dev/null
js integrate slurmctld bad-slurmd >/dev/null
settle
expect_status slurmctld/0 '^blocked relation with "bad-slurmd": '
unchanged "bad partition data"
for part in '{"PartitionName":"other","Nodes":"other"}' 'not json' \
        '{"PartitionName":"bad-slurmd","Nodes":"bad-slurmd","Default":"YES\nNodeName=x"}'; do
        js config bad-slurmd partition="$part" >/dev/null
        settle
        expect_status slurmctld/0 '^blocked relation with "bad-slurmd": '
        unchanged "partition data $part"
done
js remove-application bad-slurmd >/dev/null
settle

log "malformed data from a controller-side application"
js deploy "$SLURMD_CHARM" lonely >/dev/null
js deploy "$CHARMS/bad-slurmctld" --config auth-key-id=secret:nope \
        --config controllers='["bad host:6817"]' >/dev/null
js integrate lonely bad-slurmctld >/dev/null
settle
expect_status lonely/0 '^blocked relation with "bad-slurmctld": '
r=$(root_of lonely/0)
! grep -qs 'Written by the slurmd charm' "$r/etc/default/slurmd" || die "lonely: /etc/default/slurmd written from bad data"
[ ! -e "$r$AUTH_KEY" ] || die "lonely: ${AUTH_KEY##*/} written from bad data"
js config bad-slurmctld controllers='["ok:6817"]' auth-key-id='not-a-secret' >/dev/null
settle
expect_status lonely/0 '^blocked relation with "bad-slurmctld": '
! grep -qs 'Written by the slurmd charm' "$r/etc/default/slurmd" || die "lonely: /etc/default/slurmd written from bad data"
log "ok"
