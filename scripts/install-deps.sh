#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs everything drmtop needs to build and to run its whole test suite on Debian 12.
# Needs root (apt-get). Safe to run again.
set -eu

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Build: BPF toolchain, libbpf, the TUI. Tests: cmocka, qemu, busybox, kernel headers to build
# the simulated GPU driver against the kernels the VM suite boots; debootstrap for the Debian
# unstable chroot where it is built for unstable's 7.x kernel (tests/vm/sid-root.sh makes that
# chroot under build/ when the 7.2 stage first runs; nothing of unstable is installed on this
# machine); clang's runtimes (libFuzzer, ASan, UBSan) for make fuzz and make sanitize, valgrind
# for the latter; prometheus (promtool, and the server the VM case scrapes drmtop serve with)
# and curl for the exporter's tests, python3-yaml for dist/'s fleet files; tmux, groff, man and
# python3 for the live view, manual page and CSV checks; libdrm-tests for modetest, the real
# client of the virtio-gpu VM case; the aarch64 cross compiler, qemu-user and
# qemu-system-aarch64 for make arm64 and vm-test-arm64 (tests/arm64), whose arm64 libraries,
# headers, kernel and guest root are Debian 12's arm64 packages unpacked under build/.
PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config libncurses-dev
libdrm-dev libcmocka-dev qemu-system-x86 busybox-static cpio kmod xz-utils zstd jq dwarves
valgrind tmux debootstrap libclang-rt-14-dev prometheus curl groff-base
man-db python3 python3-yaml libdrm-tests gcc-aarch64-linux-gnu qemu-user qemu-system-arm file"

# The VM suites boot Debian's amd64 kernels and build simgpu against their headers: x86-64 only.
arch=$(dpkg --print-architecture)
[ "$arch" != amd64 ] || PKGS="$PKGS linux-headers-amd64"

export DEBIAN_FRONTEND=noninteractive
as_root apt-get update -qq
# shellcheck disable=SC2086
as_root apt-get install -y -qq --no-install-recommends $PKGS >/dev/null

if [ "$arch" != amd64 ]; then
	echo "install-deps: done ($arch: drmtop builds here; the VM suites need an amd64 host)"
	exit 0
fi
# The newest 6.12 kernel that bookworm carries, for the second VM suite.
k612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
	awk '{print $1}' | sort -V | tail -n 1)
if [ -n "$k612" ]; then
	as_root apt-get install -y -qq --no-install-recommends "$k612" >/dev/null
else
	echo "install-deps: no linux-headers-6.12.*+deb12-amd64 in the apt sources" >&2
	exit 1
fi
echo "install-deps: done"
