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
# Kernels newer than Debian 12 has (7.2.*+deb14) come from unstable through the chroot of
# sid-root.sh (whose headers name the release) and are split in two: linux-binary-<release>
# (usr/lib/modules/<release>/vmlinuz) and linux-modules-<release>, merged-/usr, without
# modules.builtin. The cache gets the same layout for every kernel: boot/vmlinuz-<release> and
# lib/modules/<release>/, with a modules.builtin written from the kernel's config when the
# packages have none.
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

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
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

# Where the packages come from: the host's apt (Debian 12), or the unstable chroot when its
# headers are those of this release.
sid=$here/sid-root.sh
sid_root=${SID_ROOT:-$top/build/sid}
from_arm64=0
if [ -d "$sid_root/usr/src/linux-headers-$rel" ]; then
	from_sid=1
	config=$sid_root/usr/src/linux-headers-$rel/.config
elif [ "${rel%-arm64}" != "$rel" ]; then
	# Debian 12's arm64 kernels: the packages through a private arm64 apt configuration.
	from_sid=0
	from_arm64=1
	. "$top/scripts/arm64-apt.sh"
	arm64_apt_init "$vmdir/apt-arm64"
	config=
else
	from_sid=0
	config=/usr/src/linux-headers-$rel/.config
fi
has_pkg() {
	if [ $from_arm64 = 1 ]; then
		arm64_apt_cache show --no-all-versions "$1" >/dev/null 2>&1
	elif [ $from_sid = 1 ]; then
		"$sid" run -- apt-cache show --no-all-versions "$1" >/dev/null 2>&1
	else
		apt-cache show --no-all-versions "$1" >/dev/null 2>&1
	fi
}

# The unsigned image is the same build minus the Secure Boot signatures; prefer it. Newer
# kernels split the image off into linux-binary-<release> (linux-image-<release> is then an
# empty package depending on it and the modules); else the signed image.
pkg=
for cand in "linux-image-$rel-unsigned" "linux-binary-$rel" "linux-image-$rel"; do
	if has_pkg "$cand"; then
		pkg=$cand
		break
	fi
done
if [ -z "$pkg" ]; then
	echo "fetch-kernel: no linux-image-${rel}[-unsigned] or linux-binary-$rel package" >&2
	echo "fetch-kernel: run 'apt-get update' (scripts/install-deps.sh does it), or" \
		"'$sid prepare <series>' for a kernel from unstable" >&2
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
	if [ $from_arm64 = 1 ]; then
		(cd "$dl" && arm64_apt download "$1" >&2)
	elif [ $from_sid = 1 ]; then
		"$sid" download "$dl" "$1" >&2
	else
		(cd "$dl" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$1" >&2)
	fi
	for deb in "$dl"/"$1"_*.deb; do
		[ -f "$deb" ] || { echo "fetch-kernel: apt-get download produced no .deb for $1" >&2; exit 1; }
		dpkg-deb -x "$deb" "$tmp"
		rm -f "$deb"
	done
}

unpack "$pkg"
# Newer Debian kernels may move modules into linux-modules-<release>; take it when the image
# package brought none.
if [ ! -d "$tmp/lib/modules/$rel/kernel" ] && [ ! -d "$tmp/usr/lib/modules/$rel/kernel" ] &&
	has_pkg "linux-modules-$rel"; then
	unpack "linux-modules-$rel"
fi
# Merged /usr (7.x packages): the rest of the harness, and the guest's bind of the module tree
# on /lib/modules, expect lib/modules/ and boot/vmlinuz-<release>.
if [ -d "$tmp/usr/lib/modules/$rel" ] && [ ! -d "$tmp/lib/modules/$rel" ]; then
	mkdir -p "$tmp/lib/modules"
	mv "$tmp/usr/lib/modules/$rel" "$tmp/lib/modules/$rel"
fi
if [ -f "$tmp/lib/modules/$rel/vmlinuz" ] && [ ! -f "$tmp/boot/vmlinuz-$rel" ]; then
	mkdir -p "$tmp/boot"
	mv "$tmp/lib/modules/$rel/vmlinuz" "$tmp/boot/vmlinuz-$rel"
fi

[ -f "$tmp/boot/vmlinuz-$rel" ] || { echo "fetch-kernel: $pkg has no boot/vmlinuz-$rel" >&2; exit 1; }
[ -d "$tmp/lib/modules/$rel/kernel" ] || { echo "fetch-kernel: no modules for $rel" >&2; exit 1; }

# Without modules.builtin, modprobe calls a built-in driver unknown: mkinitramfs.sh asks for
# virtio_pci (a module on 6.1, built in on 6.12 and 7.2), the guest for the DRM modules. Write
# one from the kernel's config for those; depmod turns it into modules.builtin.bin.
builtin=$tmp/lib/modules/$rel/modules.builtin
if [ ! -f "$builtin" ]; then
	[ -f "$tmp/boot/config-$rel" ] && config=$tmp/boot/config-$rel
	[ -f "$config" ] || { echo "fetch-kernel: no modules.builtin and no config for $rel" >&2; exit 1; }
	while read -r opt path; do
		if grep -qx "$opt=y" "$config"; then echo "kernel/$path"; fi
	done >"$builtin" <<-EOF
	CONFIG_VIRTIO drivers/virtio/virtio.ko
	CONFIG_VIRTIO drivers/virtio/virtio_ring.ko
	CONFIG_VIRTIO_PCI drivers/virtio/virtio_pci.ko
	CONFIG_VIRTIO_PCI_LIB drivers/virtio/virtio_pci_modern_dev.ko
	CONFIG_VIRTIO_PCI_LIB_LEGACY drivers/virtio/virtio_pci_legacy_dev.ko
	CONFIG_NETFS_SUPPORT fs/netfs/netfs.ko
	CONFIG_NET_9P net/9p/9pnet.ko
	CONFIG_NET_9P_VIRTIO net/9p/9pnet_virtio.ko
	CONFIG_9P_FS fs/9p/9p.ko
	CONFIG_DRM drivers/gpu/drm/drm.ko
	CONFIG_DRM_KMS_HELPER drivers/gpu/drm/drm_kms_helper.ko
	CONFIG_DRM_GEM_SHMEM_HELPER drivers/gpu/drm/drm_shmem_helper.ko
	CONFIG_DRM_SCHED drivers/gpu/drm/scheduler/gpu-sched.ko
	CONFIG_DRM_VGEM drivers/gpu/drm/vgem/vgem.ko
	EOF
fi

# Debian generates modules.dep in postinst; do the same in the cache so that
# `modprobe -d <cache> -S <release>` (and modprobe inside the guest) resolves dependencies.
depmod -b "$tmp" "$rel"

rm -rf "$cache"
mv "$tmp" "$cache"
touch "$cache/.complete"
echo "fetch-kernel: $rel ready in $cache" >&2
