#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# vm-test-arm64.sh RESULT: the arm64 VM stage (tests/arm64/arm64.mk). Debian 12's arm64 6.12
# boots with simgpu and runs VM_ARM64_CASES; then its arm64 6.1, which has no BPF trampolines,
# boots without simgpu for case 39 (fentry/fexit named missing for that reason, the rest
# attached). Writes the two boots' "<passed> <failed>" summed to RESULT; exits non-zero on any
# failure. VM_ARM64_BUILD (the arm64 build) and the vm-test.sh knobs are passed on.
set -u
result=${1:?usage: vm-test-arm64.sh RESULT}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$(dirname "$result")"
echo "0 1" >"$result"
# The guest's programs and simgpu, built here rather than as a make prerequisite, so that make
# starts this stage as soon as it comes first in the timed pool (tests/arm64/arm64.mk).
if ! why=$(cd "$top" && tests/arm64/cross.sh "${ARM64_DIR:-build/arm64}" vm-guest-bins \
	"$(realpath -m "${ARM64_DIR:-build/arm64}")/build/kmod/simgpu-smoke" simgpu 2>&1); then
	echo "FAIL vm-test-arm64-build: $why"
	exit 1
fi
rc=0
VM_CASES=$VM_ARM64_CASES VM_STAGE=vm-test-arm64-6.12 "$top/tests/vm/vm-test.sh" arm64-6.12 \
	"$result.6.12" || rc=1
VM_CASES=39-bpf-trampolines VM_STAGE=vm-test-arm64-6.1 VM_GUEST_ENV='' \
	"$top/tests/vm/vm-test.sh" arm64-6.1 "$result.6.1" || rc=1
cat "$result.6.12" "$result.6.1" | awk '{ p += $1; f += $2 } END { print p + 0, f + 0 }' \
	>"$result"
rm -f "$result.6.12" "$result.6.1"
exit $rc
