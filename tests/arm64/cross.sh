#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cross.sh ARM64_DIR TARGET...: builds make TARGETs for arm64 into ARM64_DIR/build with
# aarch64-linux-gnu-gcc against Debian 12's arm64 libraries (scripts/arm64-sysroot.sh, fetched
# into ARM64_DIR/deps once); the target "simgpu" builds simgpu against the arm64 headers there
# into ARM64_DIR/build/kmod/<release>/simgpu.ko, with the host's kbuild tools. The host's clang
# and bpftool make the BPF objects. Output goes to ARM64_DIR/log; prints what failed.
# Run from the repository root; MAKE honoured.
set -eu
arm=${1:?usage: cross.sh ARM64_DIR TARGET...}
shift
cross=aarch64-linux-gnu-
mkdir -p "$arm"
arm=$(realpath "$arm")
log=$arm/log
command -v ${cross}gcc >/dev/null ||
	{ echo "cross: ${cross}gcc not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
scripts/arm64-sysroot.sh "$arm/deps" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
sys=$arm/deps/root
rel=$(cut -d" " -f1 "$arm/deps/.complete")
build=$arm/build
targets=
simgpu=0
for t in "$@"; do
	case $t in
	simgpu) simgpu=1 ;;
	*) targets="$targets $t" ;;
	esac
done
if [ -n "$targets" ]; then
	pc="env PKG_CONFIG_SYSROOT_DIR=$sys"
	pc="$pc PKG_CONFIG_LIBDIR=$sys/usr/lib/aarch64-linux-gnu/pkgconfig:$sys/usr/share/pkgconfig"
	# shellcheck disable=SC2086 # $targets is words
	${MAKE:-make} --no-print-directory -j"$(nproc)" OUTPUT="$build" ARCH=arm64 \
		CC="${cross}gcc --sysroot=$sys" AR="${cross}ar" PKG_CONFIG="$pc $(command -v pkg-config)" \
		$targets >"$log" 2>&1 ||
		{ grep -m 5 -E 'error|Error|\*\*\*' "$log" >&2; exit 1; }
fi
ko=$build/kmod/$rel/simgpu.ko
if [ $simgpu = 1 ] && [ -f "$ko" ] && [ -z "$(find tests/kmod/simgpu -newer "$ko" -type f)" ]; then
	simgpu=0	# up to date
fi
if [ $simgpu = 1 ]; then
	# As tests/kmod/simgpu/simgpu.mk builds it for x86, with the arm64 headers' own compiler.
	hdr=$arm/deps/headers/usr/src/linux-headers-$rel
	src=$build/kmod/$rel/src
	rm -rf "$src" && mkdir -p "$src"
	cp tests/kmod/simgpu/Kbuild tests/kmod/simgpu/*.[ch] tests/kmod/simgpu/simgpu-probe.sh "$src/"
	rm -f "$src/simgpu-smoke.c"
	${MAKE:-make} -C "$hdr" M="$src" ARCH=arm64 CROSS_COMPILE=$cross CC=${cross}gcc-12 \
		modules >"$log" 2>&1 || { grep -m 5 -E 'error|Error|\*\*\*' "$log" >&2; exit 1; }
	cp "$src/simgpu.ko" "$ko"
fi
