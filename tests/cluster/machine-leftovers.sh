#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# After the machine tests (run last): every model they wrote to the ledger is gone: no process,
# cgroup, bridge, veth, mount, machine dir or registry entry remains. What it finds (say of a run
# killed earlier) fails the test and is then removed, and the ledger emptied.
set -u
. "$(dirname "$0")/machine-lib.sh"

fail=0
if [ -s "$LEDGER" ]; then
        while read -r model br cg _name vp; do
                [ -n "$model" ] && [ "$model" != "$MODEL" ] || continue
                left=$(leftovers_of "$model" "${br#bridge=}" "${cg#cgroup=}" "${vp#veth_prefix=}")
                if [ -n "$left" ]; then
                        log "left of $model: $left"
                        fail=1
                        # removed now, so that a run killed earlier does not fail every later one
                        "$JSM" destroy-all "$model" >/dev/null 2>&1 || log "destroy-all of $model failed"
                        case $model in
                        /tmp/jsim-cluster.*/* | /var/tmp/jsim-gc.*/*) rm -rf "${model%/*}" ;;
                        esac
                fi
        done <"$LEDGER"
fi
: >"$LEDGER"
[ $fail = 0 ] || die "leftovers found (removed now)"
log "ok"
