#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a command "on" a base: tools/rootfs/run.sh BASE DIR -- CMD…  runs CMD as root with the
# cached root file system of BASE (tools/rootfs/build.sh) as /, DIR (the source tree) bound at its
# own path and the cwd there, in a private mount namespace: an overlay whose writes go to a tmpfs
# (the cache is never written), the host's /dev, a fresh /proc, /sys read-only, a private /tmp.
# Everything it mounts goes with the namespace when CMD exits. The build of the charms on their
# base (./dev build: build-debian13/) runs through it.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
[ $# -ge 4 ] && [ "$3" = -- ] || { echo "usage: run.sh BASE DIR -- CMD…" >&2; exit 2; }
base=$1 tree=$(realpath "$2")
shift 3
"$here/build.sh" --check "$base" || { echo "run.sh: no verified root file system for $base (tools/rootfs/build.sh $base)" >&2; exit 1; }
root=$("$here/build.sh" --path "$base")
# the namespace's own script: $1 rootfs, $2 tree, then the command
exec unshare --mount --propagation private -- bash -euc '
root=$1 tree=$2; shift 2
# a tmpfs over /run in this namespace holds the overlay: nothing is made on the host
case $tree in /run/*) echo "run.sh: the tree must not be under /run" >&2; exit 2 ;; esac
mount -t tmpfs -o mode=0755 tmpfs /run
stage=/run/rootfs-run
mkdir -p "$stage/upper" "$stage/work" "$stage/new"
mount -t overlay -o "lowerdir=$root,upperdir=$stage/upper,workdir=$stage/work" overlay "$stage/new"
new=$stage/new
mount --rbind /dev "$new/dev"
mount -t proc proc "$new/proc"
mount --rbind -o ro /sys "$new/sys" 2>/dev/null || mount --rbind /sys "$new/sys"
mount -t tmpfs -o mode=1777 tmpfs "$new/tmp"
mkdir -p "$new$tree"
mount --bind "$tree" "$new$tree"
cd "$new$tree"
exec chroot "$new" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
        bash -c "cd \"\$0\" && exec \"\$@\"" "$tree" "$@"
' run.sh "$root" "$tree" "$@"
