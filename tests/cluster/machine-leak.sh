#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Creates are SIGKILLed halfway (at several moments), beside a running machine; destroy-all then
# leaves no process, cgroup, bridge, veth, mount or machine dir, working from the files alone.
set -u
. "$(dirname "$0")/machine-lib.sh"

mountinfo_before=$(cut -d' ' -f5 /proc/self/mountinfo | sort)
eval "$("$JSM" names "$MODEL")"
"$JSM" create "$MODEL" 0 >/dev/null || die "create 0"
mx 0 sh -c 'sleep 600 & systemd-run -q -u jsim-sleep sleep 600' || die "start processes in machine 0"

id=1
for delay in 0.01 0.03 0.06 0.1 0.2 0.4; do
        "$JSM" create "$MODEL" $id >/dev/null 2>&1 &
        victim=$!
        sleep $delay
        kill -KILL $victim 2>/dev/null
        wait $victim 2>/dev/null
        id=$((id + 1))
done
# and one with a hook-like process running inside when its caller is killed
"$JSM" exec "$MODEL" 0 -- sleep 600 &
victim=$!
sleep 0.2
kill -KILL $victim
wait $victim 2>/dev/null

left=$(leftovers_of "$MODEL" "$bridge" "$cgroup" "$veth_prefix")
[ -n "$left" ] || die "nothing running before destroy-all: the test proves nothing"
"$JSM" destroy-all "$MODEL" || die "destroy-all"
left=$(leftovers_of "$MODEL" "$bridge" "$cgroup" "$veth_prefix")
[ -z "$left" ] || die "left after destroy-all: $left"
[ "$(cut -d' ' -f5 /proc/self/mountinfo | sort)" = "$mountinfo_before" ] || die "host mounts changed"
"$JSM" destroy-all "$MODEL" || die "destroy-all is not idempotent"
log "ok"
