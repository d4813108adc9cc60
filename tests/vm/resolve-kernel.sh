#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# resolve-kernel.sh <6.1|6.12|7.2|arm64-6.12|release>: prints the full kernel release the VM
# harness boots.
# "6.1" and "6.12" name the releases tests/vm/kernel-releases.sh picks (the ones simgpu is
# built against); another series such as "7.2" names the newest of that series whose headers
# the unstable chroot holds (tests/vm/sid-root.sh prepare 7.2 puts them there); anything else is
# taken as a full release such as 6.1.0-56-amd64. arm64-<series> names Debian's arm64 build of
# the release <series> resolves to (6.12.117+deb12-arm64).
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 <6.1|6.12|7.2|kernel-release>" >&2
	exit 2
fi
case $1 in
*.*.*) echo "$1"; exit 0 ;;
arm64-*)
	# Debian 12's arm64 kernel of the same release as the amd64 one of that series.
	rel=$("$0" "${1#arm64-}") || exit 1
	case $rel in
	*-amd64) echo "${rel%-amd64}-arm64"; exit 0 ;;
	esac
	echo "resolve-kernel: no arm64 twin of $rel" >&2
	exit 1
	;;
esac
releases=$("$(dirname "$0")/kernel-releases.sh")
rel=$(echo "$releases" | awk -v s="$1" 'index($0, s ".") == 1 || index($0, s "-") == 1' |
	head -n 1)
[ -n "$rel" ] || rel=$("$(dirname "$0")/sid-root.sh" release "$1" 2>/dev/null) || :
[ -n "$rel" ] || { echo "resolve-kernel: no '$1' kernel among: $(echo "$releases" | tr '\n' ' ')" >&2; exit 1; }
echo "$rel"
