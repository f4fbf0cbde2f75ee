#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds (once) and checks the cached root file system of a second base for juju-sim machines and
# for building the charms on that base: tools/rootfs/build.sh [--check|--path] [debian@13]
#   (no flag)  build it when missing or when its recipe changed, else verify and reuse it
#   --check    exit 0 when a verified rootfs for the current recipe is there (builds nothing;
#              verified: the recipe's hash, the tarball's sha256, root/'s stamp naming it)
#   --path     print the root directory (after building it when needed)
# The cache ($SLURM_CHARMS_CACHE, default /var/cache/slurm-charms; not /tmp: machines have their
# own) holds rootfs/debian-13/: recipe.sha256 (recipe_hash below), rootfs.tar.zst and
# its .sha256, packages.lock (every installed package and version: the record of what was built),
# and root/ (the tree machines pivot into, unpacked from the verified tarball; its stamp
# root/.slurm-charms-rootfs names the tarball's hash). The host's apt configuration is untouched:
# mmdebstrap runs its own apt on the mirror given ($SLURM_CHARMS_MIRROR, default deb.debian.org).
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
mode=build
case "${1:-}" in --check | --path) mode=${1#--}; shift ;; esac
base=${1:-debian@13}
case $base in
debian@13) suite=trixie name=debian-13 ;;
*) echo "rootfs: base \"$base\" has no recipe (known: debian@13)" >&2; exit 2 ;;
esac
cache=${SLURM_CHARMS_CACHE:-/var/cache/slurm-charms}
dir=$cache/rootfs/$name
mirror=${SLURM_CHARMS_MIRROR:-http://deb.debian.org/debian}
pkgfile=$here/$name.packages

# The recipe: the package list and the lines of this script between the two "recipe" marks (what
# goes into the tree); editing anything else here does not rebuild.
recipe_hash() { { sed -n '/^# >>> recipe/,/^# <<< recipe/p' "$here/build.sh"; cat "$pkgfile"; } | sha256sum | cut -d' ' -f1; }

# 0 when root/ is the unpacked, hash-verified tarball of the current recipe
verified() {
        [ -f "$dir/recipe.sha256" ] && [ -f "$dir/rootfs.tar.zst.sha256" ] && [ -f "$dir/root/.slurm-charms-rootfs" ] || return 1
        [ "$(cat "$dir/recipe.sha256")" = "$(recipe_hash)" ] || return 1
        [ "$(cat "$dir/root/.slurm-charms-rootfs")" = "$(cat "$dir/rootfs.tar.zst.sha256")" ] || return 1
        [ "$(sha256sum "$dir/rootfs.tar.zst" | cut -d' ' -f1)" = "$(cat "$dir/rootfs.tar.zst.sha256")" ]
}

if [ "$mode" = check ]; then
        verified
        exit
fi
if verified; then
        [ "$mode" = path ] && echo "$dir/root"
        exit 0
fi
[ "$(id -u)" = 0 ] || { echo "rootfs: building $dir needs root" >&2; exit 1; }
# one build at a time (two ./dev runs on one host): the second waits, then finds it built
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if verified; then
        [ "$mode" = path ] && echo "$dir/root"
        exit 0
fi
need=()
for p in mmdebstrap zstd dpkg-dev; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
        echo "rootfs: installing ${need[*]} on the host" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

mkdir -p "$dir"
chmod 0755 "$cache" "$cache/rootfs" "$dir"
work=$(mktemp -d "$dir/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

# >>> recipe
# Fixed timestamps: the same package versions give the same tarball bytes.
export SOURCE_DATE_EPOCH=1735689600
# Debian 13's slurmctld and slurmd Depend on munge, which the auth/slurm path never runs: an empty
# package that Provides and Conflicts munge takes its place, so munged is not installed at all
# (libmunge2 stays: the auth/munge plugin links it). The empty mount point the .deb leaves is
# removed up to the first directory a package owns, so the tree does not depend on $work.
mkdir -p "$work/nomunge/DEBIAN"
cat >"$work/nomunge/DEBIAN/control" <<'CTL'
Package: slurm-charms-no-munge
Version: 1
Architecture: all
Maintainer: slurm-charms <root@localhost>
Provides: munge
Conflicts: munge
Section: admin
Priority: optional
Description: stands in for munge on an auth/slurm machine (slurm-charms rootfs)
CTL
dpkg-deb --root-owner-group -Zxz --build "$work/nomunge" "$work/slurm-charms-no-munge.deb" >/dev/null
chmod 0755 "$work"
chmod 0644 "$work/slurm-charms-no-munge.deb"

mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$pkgfile" | grep -v '^$')
echo "rootfs: building $base ($suite, ${#pkgs[@]} packages) from $mirror into $dir" >&2
# In a mount namespace of its own, with its temporary directory in $work: a failed run (no mirror)
# leaves no mount (its .deb bind) and no directory behind.
TMPDIR=$work unshare --mount --propagation private -- mmdebstrap --quiet --mode=root --variant=apt --format=tar \
        --aptopt='APT::Install-Recommends "false"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-exclude=/usr/share/info/*' \
        --include="$(IFS=,; echo "${pkgs[*]}")" \
        --include="$work/slurm-charms-no-munge.deb" \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        --customize-hook='chroot "$1" dpkg-query -W -f="\${Package} \${Version}\n" > "$1/.packages.lock"' \
        --customize-hook='rm -f "$1'"$work"'/slurm-charms-no-munge.deb"; d='"$work"'; until chroot "$1" dpkg -S "$d" >/dev/null 2>&1 || ! rmdir "$1$d" 2>/dev/null; do d=${d%/*}; done' \
        --customize-hook='rm -f "$1/etc/hostname" "$1/etc/machine-id" "$1/var/lib/dbus/machine-id"; : > "$1/etc/machine-id"' \
        "$suite" "$work/rootfs.tar" "deb $mirror $suite main" >&2
# <<< recipe
zstd -q -T0 -10 --rm "$work/rootfs.tar" -o "$work/rootfs.tar.zst"
sha=$(sha256sum "$work/rootfs.tar.zst" | cut -d' ' -f1)
mkdir "$work/root"
tar --zstd -xpf "$work/rootfs.tar.zst" -C "$work/root" --numeric-owner
mv "$work/root/.packages.lock" "$work/packages.lock"
printf '%s\n' "$sha" >"$work/root/.slurm-charms-rootfs"
# swap in: the old tree goes only after the new one is complete
rm -rf "$dir/root.old"
[ -d "$dir/root" ] && mv "$dir/root" "$dir/root.old"
mv "$work/root" "$dir/root"
mv -f "$work/rootfs.tar.zst" "$dir/rootfs.tar.zst"
printf '%s\n' "$sha" >"$dir/rootfs.tar.zst.sha256"
mv -f "$work/packages.lock" "$dir/packages.lock"
recipe_hash >"$dir/recipe.sha256"
rm -rf "$dir/root.old"
echo "rootfs: $base built in $(($(date +%s) - start)) s: $(du -sh --apparent-size "$dir/root" | cut -f1) tree, $(du -h "$dir/rootfs.tar.zst" | cut -f1) tarball (sha256 $sha)" >&2
[ "$mode" = path ] && echo "$dir/root"
exit 0
