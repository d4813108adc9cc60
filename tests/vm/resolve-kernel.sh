#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# resolve-kernel.sh <6.1|6.12|release>: prints the full kernel release the VM harness boots.
# "6.1" and "6.12" name the releases tests/vm/kernel-releases.sh picks (the ones simgpu is
# built against); anything else is taken as a full release such as 6.1.0-56-amd64.
set -eu

[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 <6.1|6.12|kernel-release>" >&2; exit 2; }
case $1 in
*.*.*) echo "$1"; exit 0 ;;
esac
releases=$("$(dirname "$0")/kernel-releases.sh")
rel=$(echo "$releases" | awk -v s="$1" 'index($0, s ".") == 1 || index($0, s "-") == 1' |
	head -n 1)
[ -n "$rel" ] || { echo "resolve-kernel: no '$1' kernel among: $(echo $releases)" >&2; exit 1; }
echo "$rel"
