#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# fetch-kernel.sh <release>: puts Debian's kernel image and modules for <release> (for example
# 6.1.0-56-amd64 or 6.12.117+deb12-amd64, as printed by tests/vm/kernel-releases.sh) into
# build/vm/kernels/<release>/ (boot/vmlinuz-<release>, lib/modules/<release>/ with modules.dep).
# The package is fetched with `apt-get download` and unpacked with `dpkg-deb -x`, never
# installed: the host's own kernel and /lib/modules are left alone. Does nothing when the cache
# is already complete.
#
# Checked on bookworm: linux-image-<release>-unsigned carries vmlinuz and all modules for both
# 6.1.0-* (plain .ko) and 6.12.*+deb12 (.ko.xz); there is no separate modules package there.
set -eu

usage() {
	echo "usage: $0 <kernel-release>" >&2
	exit 2
}

[ $# -eq 1 ] || usage
rel=$1
case $rel in
'' | *[!A-Za-z0-9.+_~-]*) echo "fetch-kernel: bad kernel release '$rel'" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=${VM_BUILD_DIR:-$top/build/vm}
cache=$vmdir/kernels/$rel

if [ -f "$cache/.complete" ]; then
	exit 0
fi

# Two VM runs may want the same kernel at once: one fetches, the other waits for it.
mkdir -p "$vmdir/kernels"
exec 8>"$vmdir/kernels/$rel.lock"
flock 8
if [ -f "$cache/.complete" ]; then
	exit 0
fi

for tool in apt-get apt-cache dpkg-deb depmod flock; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "fetch-kernel: $tool not found (run scripts/install-deps.sh)" >&2; exit 1; }
done

# The unsigned image is the same build minus the Secure Boot signatures; prefer it, fall back
# to the signed one.
has_pkg() {
	apt-cache show --no-all-versions "$1" >/dev/null 2>&1
}
pkg=
for cand in "linux-image-$rel-unsigned" "linux-image-$rel"; do
	if has_pkg "$cand"; then
		pkg=$cand
		break
	fi
done
if [ -z "$pkg" ]; then
	echo "fetch-kernel: no linux-image-${rel}[-unsigned] package in the apt sources" >&2
	echo "fetch-kernel: run 'apt-get update' (scripts/install-deps.sh does it)" >&2
	exit 1
fi

dl=$vmdir/debs/$rel
tmp=$cache.tmp.$$
trap 'rm -rf "$dl" "$tmp"; rmdir "$vmdir/debs" 2>/dev/null' EXIT INT TERM
rm -rf "$dl" "$tmp"
mkdir -p "$dl" "$tmp"

# apt drops privileges to _apt for downloads; it cannot write into a root-owned build tree,
# so download as the invoking user.
unpack() {
	echo "fetch-kernel: downloading $1" >&2
	(cd "$dl" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$1" >&2)
	for deb in "$dl"/"$1"_*.deb; do
		[ -f "$deb" ] || { echo "fetch-kernel: apt-get download produced no .deb for $1" >&2; exit 1; }
		dpkg-deb -x "$deb" "$tmp"
		rm -f "$deb"
	done
}

unpack "$pkg"
# Newer Debian kernels may move modules into linux-modules-<release>; take it when the image
# package brought none.
if [ ! -d "$tmp/lib/modules/$rel/kernel" ] && has_pkg "linux-modules-$rel"; then
	unpack "linux-modules-$rel"
fi

[ -f "$tmp/boot/vmlinuz-$rel" ] || { echo "fetch-kernel: $pkg has no boot/vmlinuz-$rel" >&2; exit 1; }
[ -d "$tmp/lib/modules/$rel/kernel" ] || { echo "fetch-kernel: no modules for $rel" >&2; exit 1; }

# Debian generates modules.dep in postinst; do the same in the cache so that
# `modprobe -d <cache> -S <release>` (and modprobe inside the guest) resolves dependencies.
depmod -b "$tmp" "$rel"

rm -rf "$cache"
mv "$tmp" "$cache"
touch "$cache/.complete"
echo "fetch-kernel: $rel ready in $cache" >&2
