#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: exact checks only (modules, files, parameters)
#
# The guest is what the other cases assume: the requested kernel, the DRM modules with their
# BTF, the pseudo filesystems drmtop needs, a vgem device, simgpu exactly when the host asked
# for it (with the parameters it asked for), and writable scratch space.
# VM_RELEASE, VM_SIMGPU, VM_SIMGPU_PARAMS and VM_RESULTS come from run-in-vm.sh.
set -u

. tests/vm/case-lib.sh

loaded() {
	grep -q "^$1 " /proc/modules
}

mounted() {
	awk -v dir="$1" -v type="$2" '$2 == dir && $3 == type { found = 1 } END { exit !found }' \
		/proc/mounts
}

if [ "$(uname -r)" = "${VM_RELEASE:-}" ]; then
	pass env-kernel-release
else
	fail env-kernel-release "running $(uname -r), host asked for '${VM_RELEASE:-}'"
fi

[ "$(id -u)" -eq 0 ] && pass env-root || fail env-root "running as uid $(id -u)"

for m in drm gpu_sched vgem; do
	loaded $m && pass "env-module-$m" || fail "env-module-$m" "$m not in /proc/modules"
done

for b in vmlinux drm gpu_sched; do
	if [ -r "/sys/kernel/btf/$b" ]; then
		pass "env-btf-$b"
	else
		fail "env-btf-$b" "/sys/kernel/btf/$b missing"
	fi
done

mounted /sys/kernel/debug debugfs && pass env-debugfs ||
	fail env-debugfs "debugfs not mounted on /sys/kernel/debug"
mounted /sys/kernel/tracing tracefs && pass env-tracefs ||
	fail env-tracefs "tracefs not mounted on /sys/kernel/tracing"
mounted /sys/fs/bpf bpf && pass env-bpffs || fail env-bpffs "bpffs not mounted on /sys/fs/bpf"

# The scheduler's tracepoints are what drmtop hooks; their events must exist once gpu_sched is in.
if ls -d /sys/kernel/tracing/events/gpu_scheduler/* >/dev/null 2>&1; then
	pass env-gpu-scheduler-events
else
	fail env-gpu-scheduler-events "no /sys/kernel/tracing/events/gpu_scheduler/*"
fi

vgem_card=
for card in /sys/class/drm/card[0-9]*; do
	# vgem is a bare platform device named "vgem" with no driver bound to it.
	if [ "$(basename "$(readlink -f "$card/device")")" = vgem ]; then
		vgem_card=$(basename "$card")
	fi
done
if [ -n "$vgem_card" ] && [ -c "/dev/dri/$vgem_card" ]; then
	pass env-vgem-device
else
	fail env-vgem-device "no /dev/dri/card* driven by vgem"
fi

if [ -n "${VM_SIMGPU:-}" ]; then
	if loaded simgpu; then
		pass env-simgpu-loaded
	else
		fail env-simgpu-loaded "host passed $VM_SIMGPU but simgpu is not in /proc/modules"
	fi
	for kv in ${VM_SIMGPU_PARAMS:-}; do
		k=${kv%%=*}
		v=${kv#*=}
		got=$(cat "/sys/module/simgpu/parameters/$k" 2>/dev/null)
		# bool parameters read back as Y/N whatever spelling was passed.
		case $got:$v in
		Y:1 | Y:y | Y:Y | Y:true | N:0 | N:n | N:N | N:false) v=$got ;;
		esac
		if [ "$got" = "$v" ]; then
			pass "env-simgpu-param-$k"
		else
			fail "env-simgpu-param-$k" "asked $k=$v, /sys/module/simgpu/parameters/$k is '$got'"
		fi
	done
else
	if loaded simgpu; then
		fail env-simgpu-absent "simgpu is loaded although the host did not ask for it"
	else
		pass env-simgpu-absent
	fi
fi

# The checkout is where the host has it, wherever that is (/tmp included: guest-init.sh binds it
# back over the guest's scratch tmpfs), and it is this case's cwd.
if [ -n "${VM_CWD:-}" ] && [ "$(pwd -P)" = "$VM_CWD" ] && [ -r "$VM_CWD/tests/vm/case-lib.sh" ]; then
	pass env-checkout-path
else
	fail env-checkout-path "cwd $(pwd -P), host checkout '${VM_CWD:-}'"
fi

t=$(mktemp) && echo ok >"$t" && [ "$(cat "$t")" = ok ] && rm -f "$t" && pass env-tmp-writable ||
	fail env-tmp-writable "cannot write /tmp"
if [ -n "${VM_RESULTS:-}" ] && echo ok >"$VM_RESULTS/.probe" && rm -f "$VM_RESULTS/.probe"; then
	pass env-results-writable
else
	fail env-results-writable "cannot write VM_RESULTS '${VM_RESULTS:-}'"
fi

[ "$case_fails" -eq 0 ]
