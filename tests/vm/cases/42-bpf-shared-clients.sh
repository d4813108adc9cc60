#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: job counts and bytes exact; busy time is left to case 41
#
# BPF tracer on the "shared" scenario: one client held through dup, fork and SCM_RIGHTS by
# three processes must be one BPF client (one drm_file), and a BO exported as dma-buf into
# another process's client counts as shared in both clients, to the byte (simgpu's
# shared_bytes and the workload's record), and as imported in the importer. Its jobs last 1-2 ms:
# job counts are checked exactly, busy time is left to 41 (see there).
. tests/bpf/guest-lib.sh
bl_init 42-bpf-shared-clients
bl_start_bpf || bl_end
bl_run_workload shared || bl_end
bl_stop_all || bl_end
bl_jq_checks 'live_client_checks(false; true), device_checks, counter_checks,
	([$ready[0].open[] | select(.how == "import" or true) | .client_id] | unique) as $ids |
	($ids[] as $id | ([r.clients[] | select(.client_id == $id)][0]) as $rc |
		([$ready[0].open[] | select(.client_id == $id)][0]) as $o |
		bpf_client_by_file(bpf_file($o.pid; $o.fd)) as $c |
		check("client-\($id)-mem-imported"; $c != null and
			$c.mem_imported == ($rc.memory.imported_bytes // 0);
			"bpf \($c.mem_imported), workload imported \($rc.memory.imported_bytes)"))'
bl_end
