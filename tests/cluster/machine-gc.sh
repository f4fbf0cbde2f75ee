#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `juju-sim gc`: models whose directory was deleted by hand (rm -rf, no destroy) leave running
# machines behind; gc removes every process, cgroup, bridge, veth and registry entry of them, also
# of a model the registry does not know, and leaves every model whose directory exists alone.
set -u
. "$(dirname "$0")/machine-lib.sh"

JS=${JUJU_SIM:-$TOP_BUILDDIR/juju-sim}
[ -x "$JS" ] || die "no juju-sim at $JS"
CHARMS=${TOP_SRCDIR:?}/tests/charms
REG=/run/juju-sim/models
# juju-sim's namespace models must live outside /tmp (machines have their own)
V=$(readlink -f "$(mktemp -d /var/tmp/jsim-gc.XXXXXX)") # canonical, as the registry has it
A=$V/orphan-a # juju-sim, 2 machines, registered; its dir is deleted
B=$V/orphan-b # juju-sim-machine, 1 machine, dir and registry entry deleted (an older juju-sim's)
L=$V/live     # juju-sim, 2 machines, left alone
F=$V/fake     # never made: a bare jsim-H cgroup holding a sleep, and a jsbH bridge
G=$V/fake-v1  # never made: an empty jsim-H/m2 in our v1 memory cgroup only (a create cut short)
# $MODEL (machine-lib's, juju-sim-machine, 1 machine): alive, registry entry deleted: adopted
fake_pid=

gc_cleanup() {
        local rc=$? m
        set +e # a failing step here must not end the cleanup (errexit holds in traps too)
        if [ -z "${KEEP:-}" ]; then
                [ -n "$fake_pid" ] && { kill -KILL "$fake_pid"; wait "$fake_pid"; } 2>/dev/null
                JUJU_SIM_MODEL=$L "$JS" destroy >/dev/null 2>&1 || rc=1
                # destroy-all works from the cgroups when the dir is gone
                for m in "$A" "$B" "$F" "$G"; do
                        "$JSM" destroy-all "$m" >/dev/null 2>&1 || rc=1
                done
                rm -rf "$V"
        fi
        (exit $rc)
        machine_cleanup
}
trap gc_cleanup EXIT
trap 'exit 130' INT TERM

for m in "$A" "$B" "$L" "$F" "$G"; do
        printf '%s %s\n' "$m" "$("$JSM" names "$m" | tr '\n' ' ')" >>"$LEDGER"
done
hash_of() { "$JSM" names "$1" | sed -n 's/^cgroup=jsim-//p'; }
hA=$(hash_of "$A") hB=$(hash_of "$B") hL=$(hash_of "$L") hF=$(hash_of "$F") hG=$(hash_of "$G") hM=$(hash_of "$MODEL")
left_of() {
        local bridge cgroup veth_prefix
        eval "$("$JSM" names "$1" | grep -E '^(bridge|cgroup|veth_prefix)=')"
        leftovers_of "$1" "$bridge" "$cgroup" "$veth_prefix"
}
# procs_of MODEL: the pids in the model's cgroup2 tree, sorted as text (for comm)
procs_of() {
        local cg
        cg=$("$JSM" names "$1" | sed -n 's/^cgroup=//p')
        find "/sys/fs/cgroup/unified/$cg" "/sys/fs/cgroup/$cg" -name cgroup.procs -exec cat {} + 2>/dev/null |
                sort
}

# --- the models --------------------------------------------------------------------------------
export JUJU_SIM_MACHINES=namespace
for m in "$A" "$L"; do
        export JUJU_SIM_MODEL=$m
        timeout 60 "$JS" deploy "$CHARMS/recorder" rec -n 2 >/dev/null || die "deploy in $m"
        timeout 60 "$JS" wait --timeout 50 >/dev/null || die "wait in $m"
        # a service of the machine's systemd and a stray process, as a charm's would be
        timeout 30 "$JS" exec rec/0 -- sh -c 'sleep 600 >/dev/null 2>&1 &
                systemd-run -q -u jsim-sleep sleep 600' || die "processes in $m"
        [ -s "$REG/$(hash_of "$m")" ] || die "no registry entry for $m"
        [ "$(cat "$REG/$(hash_of "$m")")" = "$m" ] || die "registry entry of $m: $(cat "$REG/$(hash_of "$m")")"
done
unset JUJU_SIM_MODEL
mkdir -p "$B"
"$JSM" create "$B" 0 >/dev/null 2>&1 || die "create in $B"
"$JSM" exec "$B" 0 --timeout 30 -- systemd-run -q -u jsim-sleep sleep 600 || die "processes in $B"
"$JSM" create "$MODEL" 0 >/dev/null 2>&1 || die "create in $MODEL"
rm -f "$REG/$hB" "$REG/$hM"
# the fake: a sleep in jsim-hF/m3 of the cgroup2 hierarchy, a bridge jsb-hF, no dir, no entry
cg2=/sys/fs/cgroup/unified
[ -e /sys/fs/cgroup/cgroup.controllers ] && cg2=/sys/fs/cgroup
mkdir -p "$cg2/jsim-$hF/m3" || die "fake cgroup"
sleep 600 &
fake_pid=$!
echo "$fake_pid" >"$cg2/jsim-$hF/m3/cgroup.procs" || die "fake process into its cgroup"
ip link add "jsb$hF" type bridge || die "fake bridge"
# the v1 fake, below our own cgroup as juju-sim makes them (machine-cgroup.c): hybrid hosts only
gone_v1=("$A" "$B" "$F")
if [ "$(stat -f -c %T /sys/fs/cgroup/memory 2>/dev/null)" = cgroupfs ]; then
        mkdir -p "/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)/jsim-$hG/m2" ||
                die "fake v1 cgroup"
        gone_v1+=("$G")
fi

for m in "${gone_v1[@]}" "$L"; do
        [ -n "$(left_of "$m")" ] || die "nothing of $m before gc: the test proves nothing"
done
live_before=$(procs_of "$L")
[ "$(wc -l <<<"$live_before")" -ge 6 ] || die "live model runs only: $live_before"
model_before=$(procs_of "$MODEL")

# --- rm -rf, then gc ---------------------------------------------------------------------------
rm -rf "$A" "$B" || die "rm -rf"
t0=$(date +%s%N)
out=$(timeout 120 "$JS" gc) || die "gc failed: $out"
t_gc=$((($(date +%s%N) - t0) / 1000000))
printf '%s\n' "$out" >&2
grep -q "^removed jsim-$hA \"$A\" (directory gone): killed [0-9]* processes of 2 machines" <<<"$out" ||
        die "gc did not report $A"
grep -q "^removed jsim-$hB \"$B\" (unregistered, directory gone)" <<<"$out" || die "gc did not report $B"
grep -q "^removed jsim-$hF (unregistered, model unknown): killed 1 process of 1 machine" <<<"$out" ||
        die "gc did not report the fake jsim-$hF"
if [ ${#gone_v1[@]} = 4 ]; then
        grep -q "^removed jsim-$hG (unregistered, no process left): removed cgroups jsim-$hG$" <<<"$out" ||
                die "gc did not report the v1 fake jsim-$hG"
fi
grep -q "jsim-$hL\|jsim-$hM" <<<"$out" && die "gc touched a live model: $out"
{ wait "$fake_pid"; } 2>/dev/null # reaped: no zombie of it either
fake_pid=

for m in "${gone_v1[@]}"; do
        left=$(left_of "$m")
        [ -z "$left" ] || die "left of $m after gc: $left"
done
for h in "$hA" "$hB" "$hF"; do
        [ -e "$REG/$h" ] && die "registry entry $h left"
done
# the live ones: same processes, still usable, registered (the unregistered one adopted)
gone=$(comm -23 <(echo "$live_before") <(procs_of "$L"))
[ -z "$gone" ] || die "processes of the live model gone: $gone"
gone=$(comm -23 <(echo "$model_before") <(procs_of "$MODEL"))
[ -z "$gone" ] || die "processes of the unregistered live model gone: $gone"
JUJU_SIM_MODEL=$L timeout 30 "$JS" exec rec/1 -- true || die "live model unusable after gc"
mx 0 true || die "unregistered live model unusable after gc"
[ "$(cat "$REG/$hL" 2>/dev/null)" = "$L" ] || die "registry entry of the live model lost"
[ "$(cat "$REG/$hM" 2>/dev/null)" = "$(readlink -f "$MODEL")" ] || die "the unregistered live model was not adopted"

# idempotent: nothing more of ours to remove
out=$(timeout 120 "$JS" gc) || die "second gc failed: $out"
grep -q "jsim-\($hA\|$hB\|$hF\|$hL\|$hM\)" <<<"$out" && die "second gc: $out"

# destroy of the live model still works and drops its entry
JUJU_SIM_MODEL=$L timeout 60 "$JS" destroy || die "destroy of the live model"
[ -z "$(left_of "$L")" ] || die "left of $L after destroy: $(left_of "$L")"
[ -e "$REG/$hL" ] && die "destroy left the registry entry"
log "ok (gc of 3 orphaned models: $t_gc ms)"
