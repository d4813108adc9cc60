#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-test.sh <6.1|6.12> <result-file>: one VM test stage of `make test`. Boots the kernel once,
# runs tests/vm/run-suite.sh there and writes "<passed> <failed>" to <result-file>. A VM that
# did not boot, did not finish in time (VM_TIMEOUT seconds) or left no count adds one failure
# to whatever the suite had counted; exits non-zero on any failure.
# VM_SIMGPU_PARAMS (simgpu module parameters), VM_CASE_TIMEOUT (seconds per case) and VM_CASES
# (case names to run instead of all) are passed on, and VM_GUEST_ENV ("NAME=VALUE ...") goes to
# the guest's environment. VM_STAGE names the stage (default vm-test-<short>): its run
# directory build/vm/run/<stage> and its messages.
set -u

[ $# -eq 2 ] || { echo "usage: $0 <6.1|6.12> <result-file>" >&2; exit 2; }
short=$1
result=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vmdir=${VM_BUILD_DIR:-$top/build/vm}
mkdir -p "$(dirname "$result")"
# Until the suite has counted anything, this stage stands as failed.
echo "0 1" >"$result"

stage=${VM_STAGE:-vm-test-$short}
rel=$("$here/resolve-kernel.sh" "$short") || {
	echo "$stage: no kernel release for $short" >&2
	exit 1
}

# A run directory of its own (others may run the same stage in this checkout at the same time);
# build/vm/run/<stage> points to the latest one.
rundir=$vmdir/run/$stage.pid$$
latest=$vmdir/run/$stage
mkdir -p "$vmdir/run"
if [ -d "$latest" ] && [ ! -L "$latest" ]; then
	flock -n "$latest.lock" rm -rf "$latest"
fi
if [ -L "$latest" ] || [ ! -e "$latest" ]; then
	ln -sfn "$stage.pid$$" "$latest"
fi
set -- --kernel "$rel" --timeout "${VM_TIMEOUT:-1500}" --run-dir "$rundir"
[ -z "${VM_SIMGPU_PARAMS:-}" ] || set -- "$@" --simgpu-params "$VM_SIMGPU_PARAMS"
[ -z "${VM_CASE_TIMEOUT:-}" ] || set -- "$@" --env "VM_CASE_TIMEOUT=$VM_CASE_TIMEOUT"
for kv in ${VM_GUEST_ENV:-}; do
	set -- "$@" --env "$kv"
done
# shellcheck disable=SC2086
"$here/run-in-vm.sh" "$@" -- tests/vm/run-suite.sh ${VM_CASES:-}
rc=$?

counts=$rundir/suite-result
passed=0
failed=0
if [ -f "$counts" ] && read -r passed failed <"$counts" &&
	[ -n "$passed" ] && [ -n "$failed" ]; then
	:
else
	passed=0
	failed=0
fi
if [ $rc -ge 125 ] || { [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; }; then
	# Boot failure, timeout, or a suite that failed without counting it: one more failure.
	failed=$((failed + 1))
fi
echo "$passed $failed" >"$result"
echo "$stage ($rel): $passed passed, $failed failed (run-in-vm exit $rc)"
[ $rc -eq 0 ] && [ "$failed" -eq 0 ]
