#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerates vmlinux/vmlinux.h from a Debian kernel's BTF: vmlinux plus the drm and gpu_sched
# modules (CONFIG_DRM=m and CONFIG_DRM_SCHED=m in Debian, so the stock vmlinux BTF has no DRM
# types). Nothing is booted: the kernel image package is fetched with `apt-get download`,
# unpacked with `dpkg-deb -x`, the vmlinux ELF is decompressed out of the bzImage, and its .BTF
# plus the modules' split .BTF are merged and deduplicated by vmlinux/btf-merge.c.
#
# Usage: vmlinux/gen-vmlinux-h.sh [release] [output]
#   release  Debian kernel release, default 6.12.117+deb12-amd64 (has drm_sched_fence.drm_client_id
#            and drm_file.client_id; older field layouts are handled by ___flavour structs in bpf/).
#   output   default vmlinux/vmlinux.h
# Reuses build/vm/kernels/<release>/ (tests/vm/fetch-kernel.sh) when it holds the unpacked
# image, else downloads into build/kernels/<release>/. Needs apt-get, dpkg-deb, bpftool, cc,
# libbpf-dev, and the decompressor the image uses (xz/zstd/gzip). APT_OPTS: extra apt-get
# options, e.g. a private sources list for Debian unstable's 7.x kernels (-o
# Dir::Etc::sourcelist=... -o Dir::State::Lists=... -o Dir::Cache=...).
set -eu

release=${1:-6.12.117+deb12-amd64}
out=${2:-vmlinux/vmlinux.h}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
BPFTOOL=${BPFTOOL:-bpftool}
CC=${CC:-cc}

die() {
	echo "gen-vmlinux-h: $*" >&2
	exit 1
}

# The kernel image and module tree of an unpacked package: Debian 12 ships boot/vmlinuz-<rel>
# and lib/modules/<rel>; Debian 14 (7.x) usr/lib/modules/<rel>/{vmlinuz,kernel}.
find_image() {
	for _img in "$1/boot/vmlinuz-$release" "$1/usr/lib/modules/$release/vmlinuz"; do
		[ -f "$_img" ] && { echo "$_img"; return 0; }
	done
	return 1
}
find_moddir() {
	for _mod in "$1/lib/modules/$release" "$1/usr/lib/modules/$release"; do
		[ -d "$_mod/kernel" ] && { echo "$_mod"; return 0; }
	done
	return 1
}

# Finds (or makes) an unpacked tree of the release.
tree=""
for d in "$build/vm/kernels/$release" "$build/kernels/$release/root"; do
	if find_image "$d" >/dev/null && find_moddir "$d" >/dev/null; then
		tree=$d
		break
	fi
done
if [ -z "$tree" ]; then
	tree=$build/kernels/$release/root
	dl=$build/kernels/$release/dl
	mkdir -p "$dl"
	# Debian 12: the -unsigned package holds image and modules (and exists for every
	# release; the signed one is the fallback). Debian 14: linux-image-<rel> is a meta
	# package over linux-binary-<rel> (image) and linux-modules-<rel>. APT_OPTS may point
	# apt at a private sources list (e.g. unstable, for 7.x).
	for p in "linux-image-$release-unsigned" "linux-image-$release" \
		"linux-binary-$release" "linux-modules-$release"; do
		ls "$dl/${p}"_*.deb >/dev/null 2>&1 ||
			# shellcheck disable=SC2086
			(cd "$dl" && apt-get ${APT_OPTS:-} download "$p" >/dev/null 2>&1) || true
	done
	ls "$dl"/*.deb >/dev/null 2>&1 ||
		die "apt-get download linux-image-$release(-unsigned) failed (apt sources?)"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	for deb in "$dl"/*.deb; do
		dpkg-deb -x "$deb" "$tree.tmp"
	done
	mv "$tree.tmp" "$tree"
fi
image=$(find_image "$tree") || die "no vmlinuz of $release under $tree"
moddir=$(find_moddir "$tree") || die "no modules of $release under $tree"

work=$build/kernels/$release/btf
mkdir -p "$work"

# The bzImage holds the compressed vmlinux ELF after the setup code: find the first compressed
# stream that decompresses into an ELF (the same idea as the kernel's scripts/extract-vmlinux).
extract_vmlinux() {
	img=$1
	dst=$2
	for fmt in 'xz:fd377a585a00:xz -dc' 'zstd:28b52ffd:zstd -dc' 'gzip:1f8b0800:gzip -dc' \
		'lz4:02214c18:lz4 -dc' 'lzma:5d000000:xz -dc --format=lzma'; do
		magic=$(echo "$fmt" | cut -d: -f2)
		cmd=$(echo "$fmt" | cut -d: -f3)
		for off in $(LC_ALL=C grep -obUaP "$(echo "$magic" | sed 's/../\\x&/g')" "$img" |
			cut -d: -f1); do
			tail -c +$((off + 1)) "$img" | $cmd > "$dst" 2>/dev/null || true
			if [ "$(head -c 4 "$dst" | od -A n -t x1 | tr -d ' ')" = "7f454c46" ]; then
				return 0
			fi
		done
	done
	return 1
}

vmlinux=$work/vmlinux
if [ ! -s "$vmlinux" ]; then
	extract_vmlinux "$image" "$vmlinux.tmp" ||
		die "no compressed vmlinux ELF found in $image"
	mv "$vmlinux.tmp" "$vmlinux"
fi

# Modules may be shipped compressed (.ko.xz / .ko.zst); libbpf needs the plain ELF.
module() {
	name=$1
	f=$(find "$moddir/kernel/drivers/gpu/drm" -name "$name.ko*" | head -n 1)
	[ -n "$f" ] || die "$name.ko not found under $moddir"
	case $f in
	*.ko) cp "$f" "$work/$name.ko" ;;
	*.ko.xz) xz -dc "$f" > "$work/$name.ko" ;;
	*.ko.zst) zstd -qdc "$f" > "$work/$name.ko" ;;
	*.ko.gz) gzip -dc "$f" > "$work/$name.ko" ;;
	*) die "unknown module compression: $f" ;;
	esac
	echo "$work/$name.ko"
}
drm_ko=$(module drm)
sched_ko=$(module gpu-sched)

merge=$build/vmlinux/btf-merge
mkdir -p "$build/vmlinux"
# shellcheck disable=SC2046
$CC -std=c11 -Wall -Wextra -Werror -O2 $(pkg-config --cflags libbpf 2>/dev/null) \
	"$top/vmlinux/btf-merge.c" -o "$merge" \
	$(pkg-config --libs libbpf 2>/dev/null || echo -lbpf) -lelf -lz
"$merge" "$vmlinux" "$work/merged.btf" "$drm_ko" "$sched_ko"

tmp=$out.tmp
{
	echo "/* SPDX-License-Identifier: GPL-2.0-only */"
	echo "/*"
	echo " * Generated by vmlinux/gen-vmlinux-h.sh from the BTF of Debian kernel $release:"
	echo " * vmlinux + drm.ko + gpu-sched.ko, merged and deduplicated. Do not edit."
	echo " */"
	"$BPFTOOL" btf dump file "$work/merged.btf" format c
} > "$tmp"
grep -q 'struct drm_sched_fence {' "$tmp" || die "merged BTF lacks struct drm_sched_fence"
grep -q 'struct drm_file {' "$tmp" || die "merged BTF lacks struct drm_file"
mv "$tmp" "$out"
echo "gen-vmlinux-h: wrote $out from $release"
