#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# mkinitramfs.sh <release> [<output>]: builds the test VM's initramfs for a kernel that
# fetch-kernel.sh unpacked into build/vm/kernels/<release>/. It holds a static busybox,
# guest-init.sh as /init and just the modules needed to reach the host over virtio-9p
# (9p, 9pnet_virtio, virtio_pci and what they depend on, as modprobe --show-depends lists them),
# decompressed because busybox insmod only takes plain .ko files. Everything else (DRM modules,
# simgpu, the tests) comes from the host root once it is mounted.
# Default output: build/vm/initramfs/<release>.cpio.gz. Rebuilt only when an input changed (the
# busybox by its contents, in <output>.inputs).
set -eu

usage() {
	echo "usage: $0 <kernel-release> [<output.cpio.gz>]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
rel=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vmdir=${VM_BUILD_DIR:-$top/build/vm}
kdir=$vmdir/kernels/$rel
out=${2:-$vmdir/initramfs/$rel.cpio.gz}
init=$here/guest-init.sh
# Modules the guest needs before it can mount anything; the 9p transport finds its device
# through virtio_pci (built in on 6.12, a module on 6.1).
MODULES="virtio_pci 9pnet_virtio 9p"

[ -f "$kdir/.complete" ] || { echo "mkinitramfs: $kdir missing; run fetch-kernel.sh $rel" >&2; exit 1; }

busybox=${BUSYBOX:-/bin/busybox}
if [ ! -x "$busybox" ] || readelf -l "$busybox" 2>/dev/null | grep -q INTERP; then
	echo "mkinitramfs: need a static busybox at $busybox (apt-get install busybox-static)" >&2
	exit 1
fi
for tool in cpio gzip modprobe readelf; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "mkinitramfs: $tool not found (run scripts/install-deps.sh)" >&2; exit 1; }
done

# What no date tells: which busybox went in (an arm64 kernel's initramfs made with the host's
# x86 busybox boots to an /init the guest cannot run, and is newer than either busybox).
inputs="busybox $(sha256sum <"$busybox" | cut -d' ' -f1)
modules $MODULES"
# shellcheck disable=SC3013 # dash and busybox both have -nt
if [ -f "$out" ] && [ "$out" -nt "$init" ] && [ "$out" -nt "$0" ] &&
	[ "$out" -nt "$kdir/.complete" ] && [ "$out" -nt "$busybox" ] &&
	[ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs" ]; then
	exit 0
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/drmtop-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM

mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/newroot" \
	"$stage/lib/modules"
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$init" "$stage/init"
chmod 0755 "$stage/init"

# shellcheck disable=SC2086
deps=$(modprobe -d "$kdir" -S "$rel" --show-depends -a $MODULES) ||
	{ echo "mkinitramfs: modprobe --show-depends $MODULES failed for $rel" >&2; exit 1; }
: >"$stage/lib/modules/modules.order"
echo "$deps" | awk '$1 == "insmod" { print $2 }' | while read -r path; do
	name=$(basename "$path")
	case $name in
	*.ko.xz) plain=${name%.xz}; dec="xz -dc" ;;
	*.ko.zst) plain=${name%.zst}; dec="zstd -qdc" ;;
	*.ko.gz) plain=${name%.gz}; dec="gzip -dc" ;;
	*.ko) plain=$name; dec="cat" ;;
	*) echo "mkinitramfs: unexpected module file $path" >&2; exit 1 ;;
	esac
	# A module shared by several dependency chains is listed more than once; load it once.
	if grep -qx "$plain" "$stage/lib/modules/modules.order"; then
		continue
	fi
	$dec "$path" >"$stage/lib/modules/$plain"
	echo "$plain" >>"$stage/lib/modules/modules.order"
done
[ -s "$stage/lib/modules/modules.order" ] || { echo "mkinitramfs: no modules resolved" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "$inputs" >"$out.inputs"
echo "mkinitramfs: $out ($(tr '\n' ' ' <"$stage/lib/modules/modules.order"))" >&2
