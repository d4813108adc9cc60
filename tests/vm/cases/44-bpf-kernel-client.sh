#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Jobs the driver submits itself (simgpu clear_jobs=1: a copy-engine clear of every new BO,
# queued from the user's BO_CREATE ioctl on the driver's own entity) are charged to the
# device's kernel client, not to the user whose ioctl queued them: on 6.12 through
# drm_sched_fence.drm_client_id (0); on 6.1 through the entity: created at probe, before the
# tracer attached, with DRM_SCHED_PRIORITY_KERNEL.
# Jobs and busy time of the kernel and the user client are checked against simgpu's (for the
# kernel client, what simgpu counted since the tracer attached: it lives as long as the module).
# The user client has 2 s per engine, for the reason given in case 41.
. tests/bpf/guest-lib.sh
bl_init 44-bpf-kernel-client
P=/sys/module/simgpu/parameters
old_clear=$(cat $P/clear_jobs)
old_ns=$(cat $P/clear_ns_per_mib)
restore() {
	echo "$old_clear" >$P/clear_jobs
	echo "$old_ns" >$P/clear_ns_per_mib
	bl_cleanup
}
trap restore EXIT
echo 1 >$P/clear_jobs
echo 60000000 >$P/clear_ns_per_mib	# 60 ms per MiB: 240 ms per 4 MiB clear
cat >"$BL/scenario" <<'SCEN'
proc p
  open a
  bo a big size=4M count=5
  submit a engine=gfx dur=100ms count=20 bos=big.1
  submit a engine=copy dur=100ms count=20
SCEN
bl_start_bpf || bl_end
bl_truth_baseline
bl_run_workload -f "$BL/scenario" || bl_end
bl_stop_all || bl_end
bl_jq_checks '
	truth_kernel_delta as $tk |
	([b.clients[] | select(.kind == "kernel" and .parent_dev == simgpu_dev.parent_dev)]) as $k |
	check("kernel-client-present"; ($k | length) == 1 and $tk.copy_completed > 0;
		"bpf kernel clients for simgpu: \($k | length), simgpu kernel copy jobs \($tk.copy_completed)"),
	engine_checks("kernel"; $k[0]; $tk; true),
	check("kernel-jobs-counter"; b.counters.kernel_jobs == ($tk.gfx_submitted + $tk.compute_submitted + $tk.copy_submitted);
		"counter \(b.counters.kernel_jobs), simgpu kernel submitted \($tk.gfx_submitted + $tk.compute_submitted + $tk.copy_submitted)"),
	live_client_checks(true; true), counter_checks'
bl_end
