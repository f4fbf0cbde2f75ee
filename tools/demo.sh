#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The demo (./dev demo [--keep]): a Slurm cluster from the charms in a local juju-sim model
# with namespaced machines: deploy slurmctld, two slurmd units and a login unit (the sackd charm),
# integrate, wait (showing each hook as it finishes), print the status, sinfo and
# `srun -N2 hostname`, then, as the user alice on the login unit (a local account with one uid on
# every machine: a directory user needs the sssd charm, not built yet), `srun -N2 id` and an
# sbatch job she owns; the per-hook figures, then destroy the model. --keep leaves it running and says how to use and remove it. Ctrl-C at
# any point destroys what was made. Needs root; ./dev demo builds first.
# --base debian@13: the charms built on Debian 13 (build-debian13/: Slurm 24.11, auth/slurm) on
# machines of that base (tools/rootfs's tree); default: this host's base and build/.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
BUILD=${BUILD:-build}
JS=$BUILD/juju-sim
keep= base=
while [ $# -gt 0 ]; do
        a=$1
        shift
        case $a in
        --keep) keep=1 ;;
        --base)
                base=${1:?demo: --base needs a base (debian@13)}
                shift
                ;;
        -h | --help)
                sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'
                exit 0
                ;;
        *)
                echo "demo: unknown argument \"$a\" (use --keep, --base debian@13)" >&2
                exit 2
                ;;
        esac
done
if [ -n "$base" ]; then
        # the other base's charms; juju-sim stays the host's build (it runs on the host)
        CHARMS=build-${base/@/}
else
        CHARMS=$BUILD
fi
[ "$(id -u)" = 0 ] || { echo "demo: needs root (namespaces, a systemd manager per machine)" >&2; exit 1; }
for f in "$JS" "$CHARMS/slurmctld.charm" "$CHARMS/slurmd.charm" "$CHARMS/sackd.charm"; do
        [ -e "$f" ] || { echo "demo: $f missing: run ./dev build" >&2; exit 1; }
done

bold() { printf '\033[1m%s\033[0m\n' "$*"; }
T0=$(date +%s%N)
ms() { echo $((($(date +%s%N) - T0) / 1000000)); }

# Machines have their own /tmp and /run: the model lives under /var/tmp.
export JUJU_SIM_MODEL
JUJU_SIM_MODEL=$(mktemp -d /var/tmp/slurm-demo.XXXXXX)/model
export JUJU_SIM_MACHINES=namespace
JS=$(readlink -f "$JS")
waiter=
cleanup() {
        local rc=$?
        set +e
        trap - EXIT INT TERM
        if [ -n "$waiter" ]; then
                kill "$waiter" 2>/dev/null
                wait "$waiter" 2>/dev/null
        fi
        if [ -n "$keep" ] && [ "$rc" = 0 ]; then
                return
        fi
        bold "==> destroying the model"
        "$JS" destroy >/dev/null 2>&1 || echo "demo: juju-sim destroy failed; collecting what is left with: $JS gc" >&2
        rm -rf "$(dirname "$JUJU_SIM_MODEL")"
        # safety net: whatever a failed destroy left belongs to a deleted model dir now
        "$JS" gc >/dev/null 2>&1 || echo "demo: juju-sim gc failed; run: $JS gc" >&2
        exit "$rc"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted" >&2; exit 130' INT TERM

bold "==> model $JUJU_SIM_MODEL (namespaced machines)"
"$JS" deploy "$CHARMS/slurmctld.charm" ${base:+--base "$base"}
"$JS" deploy "$CHARMS/slurmd.charm" -n 2 ${base:+--base "$base"}
"$JS" integrate slurmctld slurmd
"$JS" deploy "$CHARMS/sackd.charm" login ${base:+--base "$base"}
"$JS" integrate slurmctld login

bold "==> running hooks (each line: a hook that finished, its wall time and peak RSS)"
log=$JUJU_SIM_MODEL/debug-log.jsonl
"$JS" wait --timeout 150 >"$JUJU_SIM_MODEL.wait" 2>&1 &
waiter=$!
seen=0
show_new() {
        [ -f "$log" ] || return 0
        local n
        n=$(wc -l <"$log")
        [ "$n" -gt "$seen" ] || return 0
        tail -n +"$((seen + 1))" "$log" | head -n "$((n - seen))" | python3 -c '
import json, sys
for l in sys.stdin:
    h = json.loads(l)
    print("  %6.1fs  %-12s %-34s %-6s %5d ms %6d kB" % (float(sys.argv[1]) / 1000, h["unit"], h["hook"],
          h["status"], h["duration-ms"], h["maxrss-kb"]))' "$(ms)"
        seen=$n
}
while kill -0 "$waiter" 2>/dev/null; do
        show_new
        sleep 0.2
done
rc=0
wait "$waiter" || rc=$?
waiter=
show_new
if [ "$rc" != 0 ]; then
        cat "$JUJU_SIM_MODEL.wait" >&2
        echo "demo: the model did not settle" >&2
        exit 1
fi
bold "==> settled after $(ms) ms"

bold "==> juju-sim status"
"$JS" status
bold "==> sinfo"
"$JS" exec slurmctld/0 -- sinfo
bold "==> srun -N2 hostname"
"$JS" exec slurmctld/0 -- timeout 60 srun -N2 hostname

# a user: the same local account on every machine (uid 2001), no root on any of them
for u in slurmctld/0 slurmd/0 slurmd/1 login/0; do
        "$JS" exec "$u" -- useradd -u 2001 -U -m -s /bin/bash alice
done
as_alice() { "$JS" exec login/0 -- runuser -l alice -c "$*"; }
bold "==> as alice on login/0 (no slurmd there): srun -N2 id"
as_alice timeout 60 srun -N2 id
bold "==> as alice: sbatch --wait onto slurmd-0; the output file there is hers"
as_alice "timeout 60 sbatch -w slurmd-0 -o job.out --wait --wrap 'echo ran as \$(id -un) on \$(hostname)'"
"$JS" exec slurmd/0 -- sh -c 'ls -l /home/alice/job.out && cat /home/alice/job.out'

bold "==> figures (from juju-sim debug-log)"
python3 - "$log" <<'PY'
import json, sys
hooks = [json.loads(l) for l in open(sys.argv[1])]
hooks = [h for h in hooks if h["hook"] != "exec"]
ws = [h for h in hooks if h["hook"] in ("slurmctld-relation-created", "slurmctld-relation-joined",
      "slurmctld-relation-changed") or h["hook"] == "install"]
print("  hooks run: %d; slowest: %s" % (len(hooks), ", ".join("%s %s %d ms" % (h["unit"], h["hook"],
      h["duration-ms"]) for h in sorted(hooks, key=lambda h: -h["duration-ms"])[:3])))
print("  peak RSS over all hooks: %d kB" % max(h["maxrss-kb"] for h in hooks))
ctl = [h for h in hooks if h["unit"].startswith("slurmctld/") and h["hook"] in
       ("slurmd-relation-joined", "slurmd-relation-changed") and h["tool-calls"] <= 2]
if ctl:
    print("  controller work per compute-unit event: %.0f ms, %d tool call(s), no file, no reconfigure" %
          (sum(h["duration-ms"] for h in ctl) / len(ctl), max(h["tool-calls"] for h in ctl)))
PY
echo "  all hooks: $JS debug-log --replay   (while the model exists)"
bold "==> done in $(ms) ms"

if [ -n "$keep" ]; then
        cat <<EOF

The model is left running (--keep). Use it with:
  export JUJU_SIM_MODEL=$JUJU_SIM_MODEL
  $JS status
  $JS exec slurmctld/0 -- sinfo
  $JS exec slurmctld/0 -- srun -N2 hostname
  $JS exec login/0 -- runuser -l alice -c 'srun -N2 id'    # the user alice, on the login unit
  $JS add-unit slurmd && $JS wait        # a third node joins, no slurm.conf change
  $JS debug-log --replay
Remove it with:
  JUJU_SIM_MODEL=$JUJU_SIM_MODEL $JS destroy && rm -rf $(dirname "$JUJU_SIM_MODEL")
EOF
fi
