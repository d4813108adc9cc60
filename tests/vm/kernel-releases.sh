#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints the kernel releases the VM suites boot, one per line: the newest Debian 12 6.1 kernel
# and the newest 6.12 (+deb12) kernel whose headers are installed (scripts/install-deps.sh
# installs both). simgpu is built against these headers and the VM boots the matching image.
set -eu
# $1 is a glob on purpose; release names have no white space.
# shellcheck disable=SC2012,SC2086
newest() {
	ls -d /usr/src/linux-headers-$1 2>/dev/null | sed 's|/usr/src/linux-headers-||' |
		sort -V | tail -n 1
}
r61=$(newest '6.1.0-*-amd64')
r612=$(newest '6.12.*+deb12-amd64')
[ -n "$r61" ] || { echo "kernel-releases: no 6.1 headers; run scripts/install-deps.sh" >&2; exit 1; }
[ -n "$r612" ] || { echo "kernel-releases: no 6.12 headers; run scripts/install-deps.sh" >&2; exit 1; }
echo "$r61"
echo "$r612"
