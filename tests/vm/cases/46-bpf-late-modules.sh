#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: attach and accounting by counts; waits are generous polls
#
# The tracer started before the DRM modules exist says what is missing, then attaches by
# itself when drm and gpu_sched load (drmtop_bpf_poll, module BTF appearing in
# /sys/kernel/btf), and accounts the clients that come afterwards like any other. The modules
# the guest had (drm, helpers, gpu-sched, vgem, simgpu with its parameters) are loaded again
# afterwards whatever happens, for the cases that follow.
. tests/bpf/guest-lib.sh
bl_init 46-bpf-late-modules
MODS="simgpu vgem drm_shmem_helper drm_kms_helper gpu_sched drm"
reload() {
	modprobe -a drm drm_kms_helper drm_shmem_helper gpu-sched vgem
	if [ -n "${VM_SIMGPU:-}" ] && ! grep -q '^simgpu ' /proc/modules; then
		# shellcheck disable=SC2086
		insmod "$VM_SIMGPU" ${VM_SIMGPU_PARAMS:-}
	fi
}
restore() {
	bl_cleanup
	reload
}
trap restore EXIT

if [ -z "${VM_SIMGPU:-}" ]; then
	fail "$bl_name-simgpu" "VM_SIMGPU not set: the harness did not load simgpu"
	bl_end
fi
for m in $MODS; do
	if grep -q "^$m " /proc/modules && ! rmmod "$m" 2>"$BL/rmmod.err"; then
		fail "$bl_name-unload" "rmmod $m: $(cat "$BL/rmmod.err"); still using: $(grep "^$m " /proc/modules)"
		bl_end
	fi
done
if [ -e /sys/kernel/btf/drm ] || [ -e /sys/kernel/btf/gpu_sched ]; then
	fail "$bl_name-unload" "module BTF still present after rmmod"
	bl_end
fi
pass "$bl_name-unload"

bl_start_bpf || bl_end
if grep -q 'drm: module not loaded (no /sys/kernel/btf/drm); gpu_sched: module not loaded' \
	"$BL/bpf.ready"; then
	pass "$bl_name-reason-before"
else
	fail "$bl_name-reason-before" "$(cat "$BL/bpf.ready")"
fi

reload
# bpfdump polls every 100 ms; loading (verifying) a part takes seconds under TCG
i=0
while ! grep -q 'drm: attached; gpu_sched: attached' "$BL/bpf.status" 2>/dev/null &&
	[ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
if grep -q 'drm: attached; gpu_sched: attached' "$BL/bpf.status"; then
	pass "$bl_name-attached-late"
else
	fail "$bl_name-attached-late" "not attached 60 s after the modules loaded: $(cat "$BL/bpf.status" 2>&1)"
	bl_end
fi
cat >"$BL/scenario" <<'SCEN'
proc late
  open a
  bo a buf size=256K count=2
  submit a engine=gfx dur=100ms count=10
  submit a engine=compute dur=100ms count=10 wait=each
SCEN
bl_run_workload -f "$BL/scenario" || bl_end
bl_stop_all || bl_end
bl_jq_checks '
	check("all-hooks-attached-late"; (b.hooks | length) > 0 and all(b.hooks[]; .attached);
		"\([b.hooks[] | select(.attached | not) | "\(.target): \(.why)"])"),
	check("reason-after"; b.reason | test("drm: attached; gpu_sched: attached"); b.reason),
	live_client_checks(true; true), device_checks, counter_checks'
bl_end
