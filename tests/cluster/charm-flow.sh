#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The charms end to end with real systemd, munge, slurmctld and slurmd in juju-sim machines:
# deploy slurmctld + 2 slurmd, integrate, nodes IDLE, srun -N2; config-changed and update-status
# on every unit change no byte; a third unit joins with the controller's slurm.conf (bytes, mtime)
# and slurmctld's configuration time unchanged; a second slurmd application adds a NodeSet and a
# partition; the auth key never appears in a databag, the log, any tool's argv, a process's argv or
# a file readable by others. Prints the figures (hook times, add-unit → IDLE) on stderr.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

# Every hook tool call's argv, through a wrapper that juju-sim links the tools to.
cat >"$T/tool-wrap" <<WRAP
#!/bin/bash
line=\$(printf '%s ' "\${0##*/}" "\$@")
printf '%s\n' "\$line" >>"$T/argv.log"
exec -a "\${0##*/}" "$TOP_BUILDDIR/juju-sim-tool" "\$@"
WRAP
chmod +x "$T/tool-wrap"
export JUJU_SIM_TOOL=$T/tool-wrap

log "deploy slurmctld, 2 slurmd, integrate"
js deploy "$CTL_CHARM" >/dev/null
# --share (what several controllers will need for StateSaveLocation): one host dir at one path
mkdir -p "$T/shared"
js deploy "$SLURMD_CHARM" -n 2 --share "$T/shared:/var/lib/slurm/shared" >/dev/null
js integrate slurmctld slurmd >/dev/null
settle 180
js exec slurmd/0 -- sh -c 'echo from-slurmd-0 >/var/lib/slurm/shared/probe'
[ "$(js exec slurmd/1 -- cat /var/lib/slurm/shared/probe)" = from-slurmd-0 ] || die "--share: slurmd/1 does not see slurmd/0's file"
[ "$(cat "$T/shared/probe")" = from-slurmd-0 ] || die "--share: the host dir does not hold the file"
js exec slurmctld/0 -- test ! -e /var/lib/slurm/shared/probe || die "--share: a machine deployed without it sees it"
expect_status slurmctld/0 '^active 2 nodes in 1 partition$'
expect_status slurmd/0 '^active idle$'
expect_status slurmd/1 '^active idle$'

sinfo=$(js exec slurmctld/0 -- sinfo -h -o '%P %D %t')
[ "$sinfo" = "slurmd* 2 idle" ] || die "sinfo: \"$sinfo\""
hosts=$(js exec slurmctld/0 -- timeout 60 srun -N2 hostname | sort -u | wc -l)
[ "$hosts" = 2 ] || die "srun -N2 hostname: $hosts distinct hosts"

# one key everywhere (munge's on 22.05, Slurm's own on 24.11), 0400
ref=$(root_of slurmctld/0)$AUTH_KEY
for u in slurmd/0 slurmd/1; do
        cmp -s "$ref" "$(root_of "$u")$AUTH_KEY" || die "$u: ${AUTH_KEY##*/} differs from the controller's"
done
for u in slurmctld/0 slurmd/0 slurmd/1; do
        m=$(stat -c '%a %U:%G' "$(root_of "$u")$AUTH_KEY")
        [ "$m" = "400 $AUTH_OWNER" ] || die "$u: ${AUTH_KEY##*/} is $m"
done
grep -q '^SLURMD_OPTIONS="-Z --conf '"'"'.*Features=slurmd'"'"' -N slurmd-0 --conf-server 10\.[0-9.]*:6817"$' \
        "$(root_of slurmd/0)/etc/default/slurmd" || die "/etc/default/slurmd: $(cat "$(root_of slurmd/0)/etc/default/slurmd")"

log "idempotence: config-changed and update-status on every unit"
before=$(fingerprint_all)
for app in slurmctld slurmd; do
        js trigger "$app" config-changed >/dev/null
        js trigger "$app" update-status >/dev/null
done
settle
after=$(fingerprint_all)
[ "$before" = "$after" ] || die "files changed: $(diff <(echo "$before") <(echo "$after"))"

log "a third slurmd unit joins: the controller changes nothing"
conf=$(root_of slurmctld/0)/etc/slurm/slurm.conf
ctl_before=$(fingerprint "$conf")
# a reconfigure logs "Processing Reconfiguration Request"; a restart changes the MainPID
ctl_log=$(root_of slurmctld/0)/var/log/slurm/slurmctld.log
reconf() { grep -c 'Processing Reconfiguration Request' "$ctl_log" || true; }
ctl_pid() { js exec slurmctld/0 -- systemctl show -p MainPID --value slurmctld; }
reconf_before=$(reconf) pid_before=$(ctl_pid)
log_lines=$(wc -l <"$MODEL/debug-log.jsonl")
t0=$(date +%s%N)
js add-unit slurmd >/dev/null
settle
t1=$(date +%s%N)
state=$(js exec slurmctld/0 -- sinfo -h -n slurmd-2 -o '%t')
[ "$state" = idle ] || die "slurmd-2: \"$state\""
[ "$(fingerprint "$conf")" = "$ctl_before" ] || die "slurm.conf changed when a unit joined"
[ "$(reconf)" = "$reconf_before" ] || die "slurmctld reconfigured when a unit joined"
[ "$(ctl_pid)" = "$pid_before" ] || die "slurmctld restarted when a unit joined"
expect_status slurmd/2 '^active idle$'
ctl_work=$(tail -n +"$((log_lines + 1))" "$MODEL/debug-log.jsonl" | python3 -c '
import json, sys
hooks = [json.loads(l) for l in sys.stdin]
c = [h for h in hooks if h["unit"].startswith("slurmctld/")]
print("%d hooks, %d tool calls, %d ms, max rss %d kB: %s" % (len(c), sum(h["tool-calls"] for h in c),
      sum(h["duration-ms"] for h in c), max([h["maxrss-kb"] for h in c] or [0]),
      " ".join(h["hook"] for h in c)))')
log "figure: add-unit -> node IDLE (settled): $(((t1 - t0) / 1000000)) ms"
log "figure: controller work for the join: $ctl_work"
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active 3 nodes in 1 partition$'

log "a second slurmd application adds a NodeSet and a partition"
js deploy "$SLURMD_CHARM" gpu >/dev/null
js integrate slurmctld gpu >/dev/null
settle
grep -qx 'NodeSet=gpu Feature=gpu' "$conf" || die "no NodeSet=gpu"
nomemdef <"$conf" | grep -qx "PartitionName=gpu Nodes=gpu" || die "no PartitionName=gpu: $(grep PartitionName "$conf")"
nomemdef <"$conf" | grep -qx 'PartitionName=slurmd Nodes=slurmd Default=YES' || die "default partition lost"
[ "$(js exec slurmctld/0 -- sinfo -h -p gpu -o '%D %t')" = "1 idle" ] || die "partition gpu: $(js exec slurmctld/0 -- sinfo)"
expect_status gpu/0 '^active idle$'
js trigger slurmctld update-status >/dev/null
settle
expect_status slurmctld/0 '^active 4 nodes in 2 partitions$'

log "the key is nowhere it should not be"
key64=$(base64 -w0 <"$ref")
[ ${#key64} -ge 40 ] || die "no key read"
grep -qF "$key64" "$T/argv.log" && die "the key was in a hook tool's argv"
grep -q 'secret-add' "$T/argv.log" || die "argv log misses secret-add (wrapper not used?)"
grep -qF "$key64" "$MODEL/debug-log.jsonl" && die "the key is in the debug log"
python3 - "$MODEL/state.json" "$key64" <<'PY' || die "the key is in a databag"
import json, sys
s = json.load(open(sys.argv[1])); k = sys.argv[2]
sys.exit(1 if k in json.dumps(s["relations"]) or k in json.dumps(s.get("units", {})) else 0)
PY
for f in /proc/[0-9]*/cmdline; do
        { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF "$key64" && die "the key is in the argv of $f"
done
leak=$(find "$MODEL/machines" -xdev -type f -perm -o=r -size -1M -print0 2>/dev/null | xargs -0 -r grep -lF "$key64" || true)
[ -z "$leak" ] || die "the key is in files readable by others: $leak"

log "figures: per-hook wall time and peak RSS"
python3 - "$MODEL/debug-log.jsonl" <<'PY' >&2
import json, sys
for l in open(sys.argv[1]):
    h = json.loads(l)
    if h["hook"] == "exec":
        continue
    print("  %-14s %-34s %5d ms %6d kB tools=%d" % (h["unit"], h["hook"], h["duration-ms"], h["maxrss-kb"], h["tool-calls"]))
PY
log "ok"
