#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# arm64-sysroot.sh DIR [RELEASE]: what cross-building drmtop for arm64 needs from Debian 12's arm64
# archive, unpacked under DIR without touching the system's dpkg:
#  - DIR/root: the libraries drmtop links (libbpf, libelf, zlib, ncursesw), cmocka for its unit
#    tests and the C library they run on (under qemu-aarch64);
#  - DIR/headers/usr/src/linux-headers-RELEASE: the arm64 kernel headers simgpu builds against,
#    RELEASE by default the 6.12 amd64 headers installed here with -arm64 for -amd64 (they share
#    the installed linux-headers-*-common and the host's linux-kbuild, whose x86 tools Debian
#    ships for cross builds: the arm64 package links scripts/ and tools/ to it).
# A private apt configuration (its own lists, cache and an empty status) fetches the .debs from
# the archive the system's sources name; DIR/.complete marks a finished tree, which later runs
# reuse; a change to this script or arm64-apt.sh makes a new one. Prints nothing but errors
# and one summary line.
set -eu
. "$(dirname "$0")/arm64-apt.sh"

dir=${1:?usage: arm64-sysroot.sh DIR [RELEASE]}
rel=${2:-}
if [ -z "$rel" ]; then
	rel=$(for h in /usr/src/linux-headers-6.12.*+deb12-amd64; do
		[ ! -d "$h" ] || echo "${h#/usr/src/linux-headers-}"
	done | sort -V | tail -n 1)
	[ -n "$rel" ] || { echo "arm64-sysroot: no 6.12 amd64 headers installed" \
		"(scripts/install-deps.sh installs them)" >&2; exit 1; }
	rel=${rel%-amd64}-arm64
fi
libs="libc6 libc6-dev linux-libc-dev libgcc-s1 libbpf1 libbpf-dev libelf1 libelf-dev zlib1g
zlib1g-dev libzstd1 libncursesw6 libncurses6 libtinfo6 libncurses-dev libcmocka0 libcmocka-dev
libdrm2 libdrm-common libdrm-dev"
# The release first (cross.sh reads it), then the list's checksum: a new list, a new tree.
stamp="$rel $(cat "$0" "$(dirname "$0")/arm64-apt.sh" | cksum | cut -d' ' -f1)"
[ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$stamp" ] && exit 0

mkdir -p "$(dirname "$dir")"
dir=$(realpath -m "$dir")
tmp=$dir.tmp.$$
trap 'rm -rf "$tmp"' EXIT
arm64_apt_unpack "$tmp" exact $libs "linux-headers-$rel" >/dev/null

hdr=$tmp/headers/usr/src/linux-headers-$rel
kbuild=/usr/lib/linux-kbuild-${rel%-arm64}
for l in scripts tools; do
	[ -d "$kbuild/$l" ] || { echo "arm64-sysroot: $kbuild/$l missing (the amd64 headers" \
		"of the same version install it)" >&2; exit 1; }
	ln -sfn "$kbuild/$l" "$hdr/$l"
done
common=$(sed -n 's|^include /usr/src/\(linux-headers-[^/]*-common\)/Makefile$|\1|p' "$hdr/Makefile")
[ -d "/usr/src/$common" ] || { echo "arm64-sysroot: /usr/src/$common missing" >&2; exit 1; }
# Absolute .so links in -dev packages would point into the host's /usr/lib: made relative.
find "$tmp/root" -name '*.so' -lname '/*' | while read -r so; do
	ln -sfn "$(realpath -m --relative-to="${so%/*}" "$tmp/root$(readlink "$so")")" "$so"
done
arm64_apt_done "$tmp" "$dir" "$stamp"
echo "arm64-sysroot: $dir (Debian 12 arm64 libraries, linux-headers-$rel)"
