#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 28 (attack of stop 47, F4): the slurm.conf push's cap under Juju's concurrency. Four
# compute units, each node held by a long job, each unit behind the file slurmctld runs for
# longer than CONFPUSH_DRAIN_AFTER_S (aged by hand, as charm-restart does), then update-status
# on all four at once: at most a tenth of the nodes, at least one, is drained for the push, and
# one is (lib/charm/common/confpush.h: the holds counted again after a second, the earlier hold
# first; before, each hook counted room at the same moment and 2 or 3 of 4 were drained). Then
# the idle nodes' waves, and the canary: a file slurmd cannot start with (a drop-in's failing
# ExecStartPre) takes out only the first wave's idle nodes, the others wait and say for whom.
set -euo pipefail
# under Juju's concurrency whatever the suite's default (the point of the test)
export JUJU_SIM_HOOK_CONCURRENCY=${JUJU_SIM_HOOK_CONCURRENCY:-machines}
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
N=4
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu -n "$N" >/dev/null
js integrate slurmctld cpu >/dev/null
settle 400
jobs=()
for ((i = 0; i < N; i++)); do jobs+=("$(submit --exclusive -w "cpu-$i" -o /dev/null --wrap 'sleep 1200')"); done
for j in "${jobs[@]}"; do wait_job_state "$j" RUNNING 60; done
# a new slurm.conf (a setting slurmctld restarts for): every node is behind it while its job runs
js config slurmctld slurm-conf-parameters="MinJobAge=299" >/dev/null
settle 300
have_all() {
        local i
        for ((i = 0; i < N; i++)); do
                [ -s "$(root_of "cpu/$i")/var/lib/slurm/charm/slurm-conf-behind" ] || return 1
        done
}
for k in $(seq 1 12); do
        have_all && break
        sleep 15
        js trigger slurmctld update-status >/dev/null
        settle 120
done
have_all || die "not every unit is behind: $(ls "$MODEL"/machines/*/root/var/lib/slurm/charm/ | tr '\n' ' ')"
log "behind records: $(cat "$MODEL"/machines/*/root/var/lib/slurm/charm/slurm-conf-behind | tr '\n' ' ')"
for ((i = 0; i < N; i++)); do
        f=$(root_of "cpu/$i")/var/lib/slurm/charm/slurm-conf-behind
        printf '%s %s\n' "$(cut -d' ' -f1 "$f")" $(($(date +%s) - 601)) >"$f"
done
js trigger cpu update-status >/dev/null
settle 300
n=$(ctl sinfo -h -N -o '%T|%E' | grep -c 'drain.*slurm.conf push' || true)
log "nodes drained for the push at once: $n of $N (cap: 1)"
[ "$n" -le 1 ] || die "push cap exceeded: $n nodes drained at once: $(ctl sinfo -h -N -o '%N %T %E')"
[ "$n" -ge 1 ] || die "no node drained for the push: $(ctl sinfo -h -N -o '%N %T %E')"
ctl scancel "${jobs[@]}" || true

# the idle nodes' restarts in waves (confpush.h; attack atk8 G6: one change restarted every idle
# node within seconds): the leader publishes N waves for N nodes (at most 10), each node's wave
# from its name and the file's hash, CONFPUSH_WAVE_S (5 s) apart from when it saw the file
log "a new slurm.conf with three nodes idle: their restarts come in waves"
fetched_ok() { js exec "$1" -- cat /run/slurm/conf/slurm.conf | cmp -s - "$(root_of slurmctld/0)/etc/slurm/slurm.conf"; }
all_fetched() {
        local i
        for ((i = 0; i < N; i++)); do fetched_ok "cpu/$i" || return 1; done
}
until_true 180 "not every node has the file after its job: $(ctl sinfo -h -N -o '%N %T %E' | tr '\n' ' ')" all_fetched
until_true 60 "a node still drained or busy: $(ctl sinfo -h -N -o '%N %T' | tr '\n' ' ')" \
        eval '[ "$(ctl sinfo -h -N -o %T | sort -u)" = idle ]'
# a job on cpu-0: the leader's own push (a reconfigure once no job holds a node) waits, so the
# idle nodes get the file by their own restarts
busy=$(submit --exclusive -w cpu-0 -o /dev/null --wrap 'sleep 1200')
wait_job_state "$busy" RUNNING 60
start_us() { js exec "$1" -- systemctl show -p ExecMainStartTimestampMonotonic --value slurmd; }
declare -A before
for ((i = 1; i < N; i++)); do before[$i]=$(start_us "cpu/$i"); done
mark=$(js debug-log --replay --format=json | wc -l)
js config slurmctld slurm-conf-parameters="MinJobAge=298" >/dev/null
settle 300
idle_fetched() {
        local i
        for ((i = 1; i < N; i++)); do fetched_ok "cpu/$i" || return 1; done
}
until_true 120 "not every idle node fetched the new file" idle_fetched
! fetched_ok cpu/0 || die "cpu-0 fetched the new file under its job"
declare -A wave at
for ((i = 1; i < N; i++)); do
        at[$i]=$(start_us "cpu/$i")
        [ "${at[$i]}" != "${before[$i]}" ] || die "cpu/$i: slurmd not restarted for the new file"
        line=$(js debug-log --replay --format=json | tail -n +"$((mark + 1))" |
                jq -r --arg u "cpu/$i" 'select(.unit == $u) | .log[]?' | grep -o 'wave [0-9]* of [0-9]*' | tail -1 || true)
        [ -n "$line" ] || die "cpu/$i: no debug-log line of its restart's wave"
        [ "${line##* of }" = "$N" ] || die "cpu/$i: $line, want $N waves"
        w=${line#wave }
        wave[$i]=${w%% of*}
done
log "waves: $(for ((i = 1; i < N; i++)); do printf 'cpu-%d:%s ' "$i" "${wave[$i]}"; done)"
# a later wave restarted at least its waves' difference × 5 s after an earlier one (1 s slack)
for ((i = 1; i < N; i++)); do
        for ((j = 1; j < N; j++)); do
                d=$((wave[j] - wave[i]))
                [ "$d" -gt 0 ] || continue
                gap_ms=$(((at[$j] - at[$i]) / 1000))
                [ "$gap_ms" -ge $((d * 5000 - 1000)) ] ||
                        die "cpu-$j (wave ${wave[$j]}) restarted ${gap_ms} ms after cpu-$i (wave ${wave[$i]})"
        done
done

# the canary (confpush.h): a file that breaks slurmd takes out only the first wave's idle nodes;
# the later waves wait for the earlier restarts to come back, and restart once they did
log "a file slurmd cannot start with: the later waves wait for the first wave's restart"
break_slurmd() { # UNIT: its slurmd fails to start from now on, each try noted in $T
        local d
        d=$(root_of "$1")/etc/systemd/system/slurmd.service.d
        mkdir -p "$d"
        printf '[Service]\nExecStartPre=/bin/sh -c "date +%%%%s.%%%%N >>%s/attempt-%s; exit 1"\n' \
                "$T" "${1//\//-}" >"$d/zz-test-broken.conf"
        js exec "$1" -- systemctl daemon-reload
}
mend_slurmd() {
        rm -f "$(root_of "$1")/etc/systemd/system/slurmd.service.d/zz-test-broken.conf"
        js exec "$1" -- systemctl daemon-reload
}
exercised=0
for value in 297 296 295; do
        rm -f "$T"/attempt-*
        for ((i = 1; i < N; i++)); do
                break_slurmd "cpu/$i"
                before[$i]=$(start_us "cpu/$i")
        done
        mark=$(js debug-log --replay --format=json | wc -l)
        js config slurmctld slurm-conf-parameters="MinJobAge=$value" >/dev/null
        # the hooks run (the first wave's fail on purpose: no settle); the waves' turns are the
        # watchers' runs, which need no wait
        js wait --timeout 60 >/dev/null 2>&1 || true
        until_true 120 "no node tried to start slurmd for the new file" eval 'ls "$T"/attempt-* >/dev/null 2>&1'
        # every later wave's turn has come by then (4 waves: 15 s), and its look 5 s after
        sleep 40
        tried=() waited=()
        for ((i = 1; i < N; i++)); do
                if [ -e "$T/attempt-cpu-$i" ]; then tried+=("$i"); else waited+=("$i"); fi
        done
        log "MinJobAge=$value: slurmd tried on cpu-${tried[*]}; not on ${waited[*]/#/cpu-}"
        names=$(printf 'cpu-%s|' "${tried[@]}")
        for i in "${waited[@]}"; do
                [ "$(start_us "cpu/$i")" = "${before[$i]}" ] || die "cpu/$i: slurmd restarted while an earlier wave's failed"
                expect_status "cpu/$i" "restarts for it once node (${names%|}), an earlier wave's, is back"
        done
        for ((i = 1; i < N; i++)); do mend_slurmd "cpu/$i"; done
        for i in "${tried[@]}"; do js resolve "cpu/$i" >/dev/null 2>&1 || true; done
        # (a failed restart in a watcher's run leaves no hook in error: the next look is the
        # unit's; the push's restart resets the start limit its failures may have hit)
        js trigger cpu update-status >/dev/null
        settle 300
        until_true 180 "not every idle node fetched the file after the mend" idle_fetched
        [ "$(job_field "$busy" JobState)" = RUNNING ] || die "job $busy: $(job_field "$busy" JobState)"
        # the waves, from each restart's line (a node that tried may have none: systemd's own
        # restart after the mend can give it the file first): every node that waited is in a
        # later wave than every node that tried, and restarted after them; the nodes that tried
        # share one wave
        declare -A wv=()
        for ((i = 1; i < N; i++)); do
                line=$(js debug-log --replay --format=json | tail -n +"$((mark + 1))" |
                        jq -r --arg u "cpu/$i" 'select(.unit == $u) | .log[]?' | grep -o 'wave [0-9]* of [0-9]*' | tail -1 || true)
                w=${line#wave }
                wv[$i]=${w%% of*}
        done
        first=
        for i in "${tried[@]}"; do
                [ -n "${wv[$i]}" ] || continue
                first=${first:-$i}
                [ "${wv[$i]}" = "${wv[$first]}" ] ||
                        die "cpu-$i (wave ${wv[$i]}) and cpu-$first (wave ${wv[$first]}) both tried a file slurmd cannot start with"
        done
        [ "${#waited[@]}" -gt 0 ] || continue # all three in one wave: another file, other waves
        for j in "${waited[@]}"; do
                [ -n "${wv[$j]}" ] || die "cpu/$j: no debug-log line of its restart's wave after the mend"
                for i in "${tried[@]}"; do
                        [ -z "${wv[$i]}" ] || [ "${wv[$i]}" -lt "${wv[$j]}" ] ||
                                die "cpu-$j (wave ${wv[$j]}) waited for cpu-$i (wave ${wv[$i]})"
                        [ "$(start_us "cpu/$j")" -gt "$(start_us "cpu/$i")" ] || die "cpu-$j restarted before cpu-$i came back"
                done
        done
        exercised=1
        break
done
[ "$exercised" = 1 ] || die "three files in a row: every idle node tried each (one wave each time, or no canary)"
ctl scancel "$busy"
log "ok"
