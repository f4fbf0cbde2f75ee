#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The secrets audit (issue 31 §3): the cluster's secrets (its auth key, munge's or auth/slurm's,
# and the accounting database's password) are nowhere a user who is not root can read them, on
# any machine of a cluster with controller, compute, login, slurmdbd and MariaDB units:
#  - no process's argv or environment holds one (every process of the host, the machines' too:
#    their pid namespaces are children of the host's);
#  - no file user nobody can read holds one: a walk as nobody in each machine (find -readable,
#    below /etc /var /run /tmp /root /home /srv /opt /usr/local /dev/shm, files changed since the
#    test began), raw key bytes, base64 or the password;
#  - no log holds one, whoever may read it: each machine's /var/log and its journal, the model's
#    debug log and the hook tools' argv, read as root;
#  - no relation bag holds one (the Juju secret store is where they belong).
# Each look first finds a planted decoy token (a readable file, a process's environment, a log
# file, a journal line, a bag) and the patterns are shown to match the secrets where they belong,
# so that a look that sees nothing cannot pass for one that looked. Jobs run from the
# compute and the login unit before the walk, so that the daemons have used the key.
set -euo pipefail
# shellcheck source=tests/cluster/charm-lib.sh
source "$(dirname "$0")/charm-lib.sh"

DBD_CHARM=${DBD_CHARM:-$TOP_BUILDDIR/slurmdbd.charm}
LOGIN_CHARM=${LOGIN_CHARM:-${BASE_BUILDDIR:-$TOP_BUILDDIR}/sackd.charm}
MARIADB=${TOP_SRCDIR:?}/tests/charms/mariadb
for prog in /usr/sbin/slurmdbd /usr/sbin/mariadbd /usr/bin/mariadb-install-db; do
        [ -x "$BASE_ROOT$prog" ] || skip "$BASE_ROOT$prog missing"
done
[ -f "$DBD_CHARM" ] || die "no slurmdbd charm at $DBD_CHARM"
[ -f "$LOGIN_CHARM" ] || die "no login charm at $LOGIN_CHARM"
command -v runuser >/dev/null || skip "runuser missing"
start=$(($(date +%s) - 2))
log_tools

log "deploy slurmctld, a compute unit, a login unit, slurmdbd and MariaDB; integrate"
js deploy "$CTL_CHARM" >/dev/null
js deploy "$SLURMD_CHARM" cpu >/dev/null
js deploy "$LOGIN_CHARM" login >/dev/null
js deploy "$DBD_CHARM" >/dev/null
js deploy "$MARIADB" >/dev/null
js integrate slurmctld cpu >/dev/null
js integrate login slurmctld >/dev/null
js integrate slurmdbd mariadb >/dev/null
js integrate slurmctld slurmdbd >/dev/null
settle 300
expect_status slurmctld/0 '^active 1 node in 1 partition'
expect_status login/0 '^active'
expect_status slurmdbd/0 '^active slurmdbd primary'
units=(slurmctld/0 cpu/0 login/0 slurmdbd/0 mariadb/0)

log "jobs from the controller and the login unit, an account added: the key and the password in use"
j=$(submit -o /dev/null --wrap true)
wait_job_state "$j" COMPLETED 60 || die "job $j did not complete"
js exec login/0 -- srun -N1 -t 1 true || die "srun from the login unit failed"
js run slurmdbd/0 account-add name=audit >/dev/null || die "account-add failed"

# the secrets, and the patterns that find them: the key's base64, a run of its raw bytes (no
# newline or NUL, which grep -F cannot hold), and the password
key_file=$(root_of slurmctld/0)$AUTH_KEY
pass=$(sed -n 's/^StoragePass=//p' "$(root_of slurmdbd/0)/etc/slurm/slurmdbd.conf")
[ ${#pass} -ge 8 ] || die "no StoragePass in slurmdbd.conf"
mkdir -m 0700 "$T/audit"
pat=$T/audit/patterns
python3 - "$key_file" "$pass" "$pat" <<'PY' || die "no patterns made from $key_file"
import base64, os, sys
key = open(sys.argv[1], "rb").read()
if len(key) < 32:
    sys.exit(1)
run = None
for i in range(len(key) - 24):
    w = key[i:i + 24]
    if b"\n" not in w and b"\0" not in w:
        run = w
        break
if run is None:
    sys.exit(1)
fd = os.open(sys.argv[3], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(fd, base64.b64encode(key) + b"\n" + run + b"\n" + sys.argv[2].encode() + b"\n")
os.close(fd)
PY
# (the raw run, written as a pattern file, is what a leaked copy of the key file would hold)

# readable_hits UNIT PATTERNS: files of the unit's machine that user nobody can read and that
# hold a pattern (ctime since the test began: a copy that kept an old mtime is still seen)
readable_hits() {
        js exec "$1" -- bash -c '
touch -d "@$1" /tmp/audit-mark
dirs=()
for d in /etc /var /run /tmp /root /home /srv /opt /usr/local /dev/shm; do [ -d "$d" ] && dirs+=("$d"); done
runuser -u nobody -- find "${dirs[@]}" -cnewer /tmp/audit-mark -type f -readable -size -4M \
        ! -path "/tmp/audit-*" -print0 2>/dev/null | xargs -0 -r grep -l -a -F -f "$2" 2>/dev/null || true
rm -f /tmp/audit-mark' _ "$start" "$2"
}
# log_hits UNIT PATTERNS: the unit's machine's logs and journal that hold a pattern (as root)
log_hits() {
        js exec "$1" -- bash -c '
grep -r -l -a -F -f "$1" /var/log 2>/dev/null || true
if command -v journalctl >/dev/null && journalctl -o cat --no-pager 2>/dev/null | grep -q -a -F -f "$1"; then
        echo "the journal"
fi' _ "$2"
}
# process_hits PATTERNS: the host's processes whose argv or environment holds a pattern
process_hits() {
        local p f
        for p in /proc/[0-9]*; do
                for f in cmdline environ; do
                        if grep -q -a -F -f "$1" "$p/$f" 2>/dev/null; then
                                printf '%s of %s: %s\n' "$f" "${p#/proc/}" \
                                        "$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | cut -c1-160)"
                        fi
                done
        done
}
# bag_hits PATTERNS: relation bags (unit and application) holding a pattern
bag_hits() {
        python3 - "$MODEL/state.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
pats = [p for p in open(sys.argv[2], "rb").read().split(b"\n") if p]
for rid, rel in s.get("relations", {}).items():
    for kind in ("unit-data", "app-data"):
        for owner, bag in (rel.get(kind) or {}).items():
            for k, v in (bag or {}).items():
                b = str(v).encode("utf-8", "surrogateescape")
                if any(p in b for p in pats):
                    print("relation %s %s of %s: key %s" % (rid, kind, owner, k))
PY
}

log "the patterns find the secrets where they belong (as root: the key file, slurmdbd.conf, the secret store)"
grep -q -a -F -f "$pat" "$key_file" || die "the patterns miss the key file"
grep -q -a -F -f "$pat" "$(root_of slurmdbd/0)/etc/slurm/slurmdbd.conf" || die "the patterns miss slurmdbd.conf"
grep -q -a -F -f "$pat" "$MODEL/state.json" || die "the patterns miss the model's secret store"

log "each look finds a planted decoy token (a readable file, an environment, a log line, a journal line, a bag)"
token=audit-decoy-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$token" >"$T/audit/decoy"
dfile=/var/lib/audit-decoy.$$
js exec cpu/0 -- bash -c 'install -m 0644 /dev/null "$1" && printf "x%sx\n" "$2" >"$1"' _ "$dfile" "$token"
grep -qx "$dfile" <<<"$(readable_hits cpu/0 "$T/audit/decoy")" || die "the walk as nobody missed a planted readable file"
js exec cpu/0 -- chmod 0600 "$dfile"
[ -z "$(readable_hits cpu/0 "$T/audit/decoy")" ] || die "the walk as nobody found a file only root reads"
js exec cpu/0 -- rm -f "$dfile"
AUDIT_DECOY=$token sleep 30 &
dpid=$!
sleep 0.2
grep -q "^environ of $dpid:" <<<"$(process_hits "$T/audit/decoy")" || die "the process look missed a planted environment"
kill "$dpid" 2>/dev/null || true
wait "$dpid" 2>/dev/null || true
js exec login/0 -- bash -c 'printf "x%sx\n" "$1" >>/var/log/audit-decoy.log' _ "$token"
hits=$(log_hits login/0 "$T/audit/decoy")
grep -qx /var/log/audit-decoy.log <<<"$hits" || die "the log look missed a planted log file: $hits"
js exec login/0 -- rm -f /var/log/audit-decoy.log
if js exec login/0 -- sh -c 'command -v journalctl >/dev/null && systemctl is-active -q systemd-journald'; then
        js exec login/0 -- logger -t audit "$token"
        sleep 1
        grep -qx "the journal" <<<"$(log_hits login/0 "$T/audit/decoy")" || die "the log look missed a planted journal line"
fi
rel=$(js exec cpu/0 -- relation-ids slurmctld | head -1)
js exec cpu/0 -- relation-set -r "$rel" audit-decoy="x${token}x"
grep -q 'audit-decoy' <<<"$(bag_hits "$T/audit/decoy")" || die "the bag look missed a planted bag value"
js exec cpu/0 -- relation-set -r "$rel" audit-decoy=
settle

log "the audit: every machine, every process, every log and bag"
found=()
for u in "${units[@]}"; do
        while IFS= read -r f; do [ -n "$f" ] && found+=("$u: a file nobody reads: $f"); done <<<"$(readable_hits "$u" "$pat")"
        while IFS= read -r f; do [ -n "$f" ] && found+=("$u: a log: $f"); done <<<"$(log_hits "$u" "$pat")"
done
while IFS= read -r f; do [ -n "$f" ] && found+=("a process: $f"); done <<<"$(process_hits "$pat")"
while IFS= read -r f; do [ -n "$f" ] && found+=("$f"); done <<<"$(bag_hits "$pat")"
for f in "$MODEL/debug-log.jsonl" "$T/argv.log"; do
        if grep -q -a -F -f "$pat" "$f"; then found+=("the model: ${f##*/}"); fi
done
if [ ${#found[@]} -gt 0 ]; then
        printf '  %s\n' "${found[@]}" >&2
        die "${#found[@]} places hold a secret"
fi
log "  ${#units[@]} machines walked as nobody, $(find /proc -maxdepth 1 -name '[0-9]*' | wc -l) processes, logs, journals, bags: no secret"
log "ok"
