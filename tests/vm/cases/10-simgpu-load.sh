#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: simgpu against its own debugfs, exact; no wall-clock bands
#
# simgpu is the GPU of every tracer test: prove it is loaded as the host asked and that its
# engines, memory, fdinfo, debugfs ground truth and drm_sched tracepoints agree with what a
# client did (build/kmod/simgpu-smoke, source tests/kmod/simgpu/simgpu-smoke.c).
# Runs in the test VM from the repository root; prints PASS/FAIL lines, exits 0 only if all pass.
set -u

. tests/vm/case-lib.sh

if grep -q '^simgpu ' /proc/modules; then
	pass simgpu-module-loaded
else
	fail simgpu-module-loaded "simgpu not in /proc/modules (run-in-vm.sh loads build/kmod/<release>/simgpu.ko)"
	exit 1
fi

for f in clients engines device; do
	if [ -r "/sys/kernel/debug/simgpu/$f" ]; then
		pass "simgpu-debugfs-$f"
	else
		fail "simgpu-debugfs-$f" "/sys/kernel/debug/simgpu/$f missing"
	fi
done

minor=$(sed -n 's/^device .*render_minor=\([0-9]*\).*/\1/p' /sys/kernel/debug/simgpu/device)
if [ -n "$minor" ] && [ -c "/dev/dri/renderD$minor" ]; then
	pass simgpu-render-node
else
	fail simgpu-render-node "debugfs render_minor '$minor' has no /dev/dri/renderD$minor"
fi

smoke=build/kmod/simgpu-smoke
if [ ! -x "$smoke" ]; then
	fail simgpu-smoke "$smoke not built (make simgpu-modules)"
	exit 1
fi
# The smoke test needs simgpu's default parameters; it changes runtime ones and restores them.
"$smoke"
rc=$?
[ $rc -eq 0 ] || fail simgpu-smoke "$smoke exited $rc"

[ "$case_fails" -eq 0 ]
