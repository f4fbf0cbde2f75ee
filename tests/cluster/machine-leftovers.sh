#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# After the machine tests (run last): every model they wrote to the ledger is gone: no process,
# cgroup, bridge, veth, mount or machine dir remains.
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
                fi
        done <"$LEDGER"
fi
[ $fail = 0 ] || die "leftovers found"
: >"$LEDGER"
log "ok"
