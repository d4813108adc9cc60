#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: memory exact; nothing timed
#
# Clients that opened and allocated before the tracer attached: the loader's adoption walk of
# every open DRM file's handle table gives their memory exactly as if the tracer had seen every
# handle made (total, and shared incl. dma-buf and dup/fork/SCM_RIGHTS sharing, vs simgpu and
# the workload's record), one BPF client per drm_file, and later handle releases and closes
# balance out without "unknown handle" counts.
. tests/bpf/guest-lib.sh
bl_init 47-bpf-adopt
bl_run_workload shared || bl_end
bl_start_bpf || bl_end
sleep 0.5
bl_stop_all || bl_end
bl_jq_checks 'live_client_checks(false; false), counter_checks,
	check("adopted"; b.counters.adopted == ([b.clients[] | select(.driver == "simgpu") | .handles] | add);
		"adopted \(b.counters.adopted)"),
	check("adopted-clients-late"; all(b.clients[] | select(.driver == "simgpu" and .kind == "user");
		.late); "\([b.clients[] | {tgid, late}])")'
bl_end
