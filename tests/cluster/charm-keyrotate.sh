#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The auth key's rotation (issue 31 §3, charm/slurmctld/keyrotate.h): two controllers on shared
# state, two compute units, a login unit, slurmdbd on MariaDB; jobs running, pending and in an
# array throughout.
#  1. refusals change nothing: on a unit that is not the leader; while a rotation runs (its first
#     stage waits for the login unit, paused, and the leader's status names it);
#  2. resumed, the rotation goes through its stages by itself: every unit ends with the new key
#     only (24.11: slurm.jwks with the new key id alone; 22.05: munge.key), the old key on no
#     machine, the key never in the action's result or a bag;
#  3. a second rotation at once, a compute unit paused until the first stage waits for it alone:
#     it ends (the last confirmation comes from a compute unit), the standby slurmctld still
#     runs, and no revision of the key's secret holds a retired key;
#  4. every job completes with exit 0, none is re-run, no node went DOWN or NOT_RESPONDING, every
#     job is in sacct, and srun from the login unit works after it; on 24.11 no daemon refused a
#     single credential meanwhile (every machine's Slurm logs) and no client command failed.
# Figures: the rotation's time from the action to the last unit's confirmation, and the
# commands that failed meanwhile (squeue on the login unit and sinfo on a compute unit, one
# each per second; 22.05's munged holds one key, so its switch is not free of failures), and the
# messages the daemons refused for their credential.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"
# shellcheck source=tests/cluster/ha-lib.sh
source "$(dirname "$0")/ha-lib.sh"

DBD_CHARM=${DBD_CHARM:-${BASE_BUILDDIR:-$TOP_BUILDDIR}/slurmdbd.charm}
LOGIN_CHARM=${LOGIN_CHARM:-${BASE_BUILDDIR:-$TOP_BUILDDIR}/sackd.charm}
MARIADB=${TOP_SRCDIR:?}/tests/charms/mariadb
for prog in /usr/sbin/slurmdbd /usr/sbin/mariadbd /usr/bin/mariadb-install-db; do
        [ -x "$BASE_ROOT$prog" ] || skip "$BASE_ROOT$prog missing"
done
FIGURES=()

log "deploy two controllers, two compute units, a login unit, slurmdbd and MariaDB; integrate"
mkdir -p "$T/state"
js deploy "$CTL_CHARM" -n 2 --share "$T/state:/srv/slurm-state" --config state-save-location=/srv/slurm-state \
        --config slurmctld-timeout=20 >/dev/null
js deploy "$SLURMD_CHARM" cpu -n 2 >/dev/null
js deploy "$LOGIN_CHARM" login >/dev/null
js deploy "$DBD_CHARM" >/dev/null
js deploy "$MARIADB" >/dev/null
js integrate slurmdbd mariadb >/dev/null
# (slurmdbd with its database first: a 22.05 slurmctld whose first start meets a slurmdbd that
# cannot reach its database yet exits, "we have no TRES from it", and the charm then keeps that
# refusal, blocked: seen once here, left open in the closing note of this stop)
settle 300
js integrate slurmctld cpu >/dev/null
js integrate login slurmctld >/dev/null
js integrate slurmctld slurmdbd >/dev/null
settle 420
expect_status slurmctld/0 '^active primary, in charge; 2 nodes in 1 partition'
expect_status login/0 '^active'
expect_status slurmdbd/0 '^active slurmdbd primary'
units=(slurmctld/0 slurmctld/1 cpu/0 cpu/1 login/0 slurmdbd/0)

# key_files UNIT: the key files of a unit, one "path sha256" line each
key_files() {
        local r f
        r=$(root_of "$1")
        for f in "$AUTH_KEY" /etc/slurm/slurm.jwks; do
                [ -f "$r$f" ] && echo "$f $(sha256sum <"$r$f" | cut -d' ' -f1)"
        done
        return 0
}
# bag_state UNIT: the state its bag confirms (the peer bag for controllers)
bag_state() {
        python3 - "$MODEL/state.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for rel in s.get("relations", []):
    rel = rel if isinstance(rel, dict) else s["relations"][rel]
    v = rel.get("unit-data", {}).get(sys.argv[2], {}).get("auth-key-state")
    if v:
        print(v)
        break
PY
}
# bags: every unit's confirmation, on one line
bags() { for u in "${units[@]}"; do echo -n "$u=$(bag_state "$u") "; done; }
# rotation_ends KID: the model settled (hooks run only then) until every unit confirms the
# rotation's end with KID signing, 20 settles at most (no update-status comes by itself here)
rotation_ends() {
        local i u all
        for ((i = 0; i < 20; i++)); do
                settle 240
                all=1
                for u in "${units[@]}"; do
                        [ "$(bag_state "$u")" = "none:$1" ] || all=0
                done
                [ "$all" = 1 ] && return 0
                sleep 1
        done
        return 1
}
old_b64=$(base64 -w0 <"$(root_of slurmctld/0)$AUTH_KEY")
declare -A old
for u in "${units[@]}"; do
        old[$u]=$(key_files "$u")
        [ -n "${old[$u]}" ] || die "$u: no key file"
done
[ "$(key_files cpu/0)" = "$(key_files slurmctld/0)" ] || die "cpu/0 and slurmctld/0 hold different keys before any rotation"
for u in "${units[@]}"; do
        # (a key never rotated is confirmed by saying nothing: no bag write, no relation event)
        [ -z "$(bag_state "$u")" ] || die "$u confirms \"$(bag_state "$u")\" before any rotation, want nothing"
done

log "jobs: one running on each compute node, an array running and pending, a pending job behind them"
long0=$(submit -o /dev/null -w cpu-0 -n1 --wrap 'sleep 150')
long1=$(submit -o /dev/null -w cpu-1 -n1 --wrap 'sleep 150')
arr=$(submit -o /dev/null --array=1-8 -n1 --wrap 'sleep 25')
pend=$(submit -o /dev/null -N2 --exclusive --wrap 'true')
wait_job_state "$long0" RUNNING 60
wait_job_state "$long1" RUNNING 60

log "refused, nothing changed: on the unit that is not the leader"
js run slurmctld/1 rotate-auth-key >"$T/out" 2>&1 && die "rotate-auth-key on slurmctld/1 succeeded"
grep -q "run it on the leader" "$T/out" || die "slurmctld/1's refusal: $(cat "$T/out")"

log "the login unit paused: the rotation's first stage waits for it, named in the leader's status; a second start refused"
js run login/0 pause reason=keytest >/dev/null
settle 60
t0=$(now_ms)
js run slurmctld/0 rotate-auth-key --format=json >"$T/res" || die "rotate-auth-key failed: $(cat "$T/res")"
kid=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=list(d.values())[0]["results"]; print(r["key-id"]); assert r["stage"]=="add", r' "$T/res") ||
        die "rotate-auth-key's results: $(cat "$T/res")"
[[ $kid =~ ^k[0-9a-f]{16}$ ]] || die "key id \"$kid\""

# the commands of users meanwhile, one each per second (bounded: 400 s)
(
        for ((i = 0; i < 400; i++)); do
                [ -e "$T/stop-load" ] && break
                if js exec login/0 -- timeout 20 squeue -h >/dev/null 2>&1; then echo ok; else echo fail; fi >>"$T/login.log"
                if js exec cpu/1 -- timeout 20 sinfo -h -o '%T' >"$T/sinfo.one" 2>/dev/null; then
                        echo ok >>"$T/sinfo.log"
                        grep -Ei 'down|not_responding|\*' "$T/sinfo.one" >>"$T/bad-nodes" || true
                else
                        echo fail >>"$T/sinfo.log"
                fi
                sleep 1
        done
) &
load=$!
# (the login unit paused: its clients fail by design until resume; counted from then on only)

settle 240
js run slurmctld/0 rotate-auth-key >"$T/out" 2>&1 && die "a second rotate-auth-key during the rotation succeeded"
grep -q "a rotation runs (stage add)" "$T/out" || die "the second start's refusal: $(cat "$T/out")"
until_true 60 "the leader's status does not name login/0: $(unit_status slurmctld/0)" \
        status_is slurmctld/0 "auth key rotation at stage add: waiting for login/0"
for u in slurmctld/0 slurmctld/1 cpu/0 cpu/1 slurmdbd/0; do
        [[ $(bag_state "$u") == add:* ]] || die "$u confirms \"$(bag_state "$u")\" at stage add"
done
if [ -z "$AUTH_SERVICE" ]; then
        # 24.11: both keys in slurm.jwks, the old one signing
        grep -q "\"kid\":\"$kid\"" "$(root_of cpu/0)/etc/slurm/slurm.jwks" || die "cpu/0's slurm.jwks lacks $kid"
fi

log "resumed: the rotation goes through its stages by itself"
: >"$T/login.log"
js run login/0 resume >/dev/null
rotation_ends "$kid" || die "the rotation did not end: $(bags)"
t1=$(now_ms)
touch "$T/stop-load"
wait "$load" || true
FIGURES+=("rotation, action to the last unit's confirmation: $((t1 - t0)) ms (login/0 paused for part of it)")
status_is slurmctld/0 "auth key rotation" && die "the leader's status still speaks of a rotation: $(unit_status slurmctld/0)"

log "every unit holds the new key only; the old key is on no machine; the key in no result"
new=$(key_files slurmctld/0)
for u in "${units[@]}"; do
        [ "$(key_files "$u")" = "$new" ] || die "$u's key files differ from slurmctld/0's: $(key_files "$u") / $new"
        old_key_hash=$(echo "${old[$u]}" | head -1 | cut -d' ' -f2)
        key_files "$u" | grep -q "$old_key_hash" && die "$u still holds the old key"
done
if [ -z "$AUTH_SERVICE" ]; then
        jw=$(root_of cpu/1)/etc/slurm/slurm.jwks
        [ "$(stat -c '%a %U' "$jw")" = "400 slurm" ] || die "slurm.jwks: $(stat -c '%a %U' "$jw")"
        python3 - "$jw" "$kid" <<'PY' || die "slurm.jwks: $(python3 -c 'import json,sys; print([k["kid"] for k in json.load(open(sys.argv[1]))["keys"]])' "$jw")"
import json, sys
keys = json.load(open(sys.argv[1]))["keys"]
assert [k["kid"] for k in keys] == [sys.argv[2]] and keys[0].get("use") == "default"
PY
fi
b64=$(base64 -w0 <"$(root_of slurmctld/0)$AUTH_KEY")
grep -qF "$b64" "$T/res" && die "the new key is in the action's result"
grep -qF "$b64" "$MODEL/state.json" || true # (the secret store is where it belongs)
python3 - "$MODEL/state.json" "$b64" <<'PY' || die "the key is in a relation bag"
import json, sys
s = json.load(open(sys.argv[1]))
rels = s.get("relations", [])
rels = rels if isinstance(rels, list) else list(rels.values())
assert sys.argv[2] not in json.dumps(rels)
PY

log "every job completed with exit 0, none re-run; no node went down; every job in sacct"
for ((i = 0; i < 120; i++)); do
        left=$(ctl squeue -h -o %i | wc -l)
        [ "$left" = 0 ] && break
        sleep 2
done
[ "$left" = 0 ] || die "jobs left: $(ctl squeue -h)"
ctl sacct -n -X -P -o JobID,State,ExitCode,Start -S now-1hours >"$T/sacct" || die "sacct failed"
for j in "$long0" "$long1" "$pend"; do
        grep -q "^$j|COMPLETED|0:0|" "$T/sacct" || die "job $j: $(grep "^$j|" "$T/sacct" || echo 'not in sacct')"
done
n_arr=$(grep -c "^${arr}_[0-9]*|COMPLETED|0:0|" "$T/sacct" || true)
[ "$n_arr" = 8 ] || die "array $arr: $n_arr of 8 tasks COMPLETED in sacct: $(grep "^${arr}_" "$T/sacct")"
ctl sacct -n -P -o JobID,State -S now-1hours | grep -E "^($long0|$long1|$arr|$pend)[._|]" |
        grep -E "REQUEUE|NODE_FAIL|FAILED|CANCELLED" && die "a job was requeued or failed"
# (a job run again has a record per run: -D shows them all)
for j in "$long0" "$long1" "$pend"; do
        [ "$(ctl sacct -n -X -D -P -o JobID -j "$j" | wc -l)" = 1 ] || die "job $j was re-run: $(ctl sacct -n -X -D -P -o JobID,State,Start -j "$j")"
done
[ -s "$T/bad-nodes" ] && die "a node was down or not responding during the rotation: $(sort -u "$T/bad-nodes")"
js exec login/0 -- srun -N2 -t 1 hostname >"$T/out" 2>&1 || die "srun from the login unit after the rotation: $(cat "$T/out")"

log "a second rotation at once, a compute unit paused: its confirmation, the last, moves the stage on"
# (a compute unit's relation event took the controller's quick status path, which never moved a
# stage on: attack helper-69 F1; the standby's restarts of two rotations in a row met systemd's
# start limit: F2)
js run cpu/1 pause reason=keytest >/dev/null
settle 120
js run slurmctld/0 rotate-auth-key --format=json >"$T/res2" || die "the second rotate-auth-key failed: $(cat "$T/res2")"
kid2=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(list(d.values())[0]["results"]["key-id"])' "$T/res2")
settle 240
until_true 60 "the leader's status does not name cpu/1: $(unit_status slurmctld/0)" \
        status_is slurmctld/0 "auth key rotation at stage add: waiting for cpu/1"
js run cpu/1 resume >/dev/null
rotation_ends "$kid2" || die "the second rotation stalled: $(bags); leader: $(unit_status slurmctld/0)"
js exec slurmctld/1 -- systemctl is-active --quiet slurmctld ||
        die "the standby slurmctld is not running after two rotations: $(js exec slurmctld/1 -- systemctl status slurmctld --no-pager 2>&1 | head -n 5)"
expect_status slurmctld/1 '^active backup'
js exec login/0 -- srun -N2 -t 1 hostname >"$T/out" 2>&1 || die "srun from the login unit after two rotations: $(cat "$T/out")"

log "no revision of the key's secret holds a retired key (obsolete revisions removed)"
python3 - "$MODEL/state.json" "$old_b64" "$b64" <<'PY' || die "a retired key is still in the secret store"
import json, sys
s = json.load(open(sys.argv[1]))
found = []
for uri, sec in s.get("secrets", {}).items():
    for rev, content in sec.get("revisions", {}).items():
        text = json.dumps(content)
        for name, k in (("the original key", sys.argv[2]), ("the first rotation's key", sys.argv[3])):
            if k in text:
                found.append(f"{uri} revision {rev}: {name}")
if found:
    print("\n".join(found), file=sys.stderr)
    sys.exit(1)
PY

fails_login=$(grep -c fail "$T/login.log" || true)
all_login=$(wc -l <"$T/login.log")
fails_sinfo=$(grep -c fail "$T/sinfo.log" || true)
all_sinfo=$(wc -l <"$T/sinfo.log")
# every message a daemon refused for its credential since the action (the logs of every
# machine: one auth_g_verify line per message, after the plugin's own lines)
: >"$T/auth-errors"
for u in "${units[@]}"; do
        for f in "$(root_of "$u")"/var/log/slurm/*.log; do
                [ -f "$f" ] || continue
                awk -v t0="$(date -u -d "@$((t0 / 1000))" +%Y-%m-%dT%H:%M:%S)" 'substr($1, 2, 19) >= t0' "$f" |
                        grep -E 'auth_g_verify: .* has authentication error' |
                        sed "s|^|$u: |" >>"$T/auth-errors" || true
        done
done
auth_errs=$(wc -l <"$T/auth-errors")
FIGURES+=("commands that failed during the rotation after the resume: squeue on login/0 $fails_login of $all_login, sinfo on cpu/1 $fails_sinfo of ${all_sinfo:-0}")
FIGURES+=("messages refused for their credential since the action (every daemon's log): $auth_errs")
if [ -z "$AUTH_SERVICE" ]; then
        # 24.11: every stage keeps every unit's credentials checkable
        [ "$auth_errs" = 0 ] || die "credentials refused during a 24.11 rotation: $(head -n 8 "$T/auth-errors")"
        [ "$fails_login" = 0 ] || die "squeue on login/0 failed $fails_login times during a 24.11 rotation"
        [ "$fails_sinfo" = 0 ] || die "sinfo failed $fails_sinfo times during a 24.11 rotation"
fi
log "figure: ${FIGURES[*]}"
log "PASS"
