#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Clients that open, allocate, submit and exit between two snapshots of the tracer, some with
# jobs still queued or running at exit, reach userspace through the ring buffer: every client
# the workload opened appears closed exactly once, with its jobs (exactly simgpu's completed
# count), its busy time (1 % / 1 ms of simgpu's, jobs ending after the close included) and the
# memory it held when it closed (exact vs the workload's record). Each client has 1 s of work
# per engine for the same reason as in 41; jobs not yet run when the process exits may be
# cancelled by drm_sched (they count in neither source).
. tests/bpf/guest-lib.sh
bl_init 43-bpf-short-lived
cat >"$BL/scenario" <<'SCEN'
proc blip count=6 every=60ms
  open a
  bo a scratch size=64K
  bo a more size=12K
  free a more
  submit a engine=gfx dur=100ms count=10 wait=none
  submit a engine=compute dur=100ms count=10 wait=none
  exit
SCEN
bl_start_bpf || bl_end
bl_run_workload_fg -f "$BL/scenario"
bl_finish || bl_end
bl_jq_checks '
	[r.clients[]] as $rcs |
	[b.closed[] | select(.kind == "user" and .driver == "simgpu")] as $cl |
	check("closed-count"; ($cl | length) == ($rcs | length);
		"bpf \($cl | length) closed simgpu clients, workload opened \($rcs | length)"),
	check("none-left-open"; ([b.clients[] | select(.kind == "user" and .driver == "simgpu")] | length) == 0;
		"\([b.clients[] | select(.kind == "user" and .driver == "simgpu") | .tgid])"),
	($rcs[] | . as $rc | [$cl[] | select(.tgid == $rc.opener_pid)] as $m |
		truth_client($rc.client_id) as $tc |
		check("client-\($rc.client_id)-closed-once"; ($m | length) == 1;
			"\($m | length) closed BPF clients with tgid \($rc.opener_pid)"),
		($m[0] // null) as $c |
		if $c == null then empty else
			check("client-\($rc.client_id)-id"; if is61 then $c.client_id == 0 else $c.client_id == $rc.client_id end;
				"bpf \($c.client_id)"),
			check("client-\($rc.client_id)-close-time"; $c.close_ns >= $c.open_ns and $c.close_ns > 0;
				"open \($c.open_ns) close \($c.close_ns)"),
			check("client-\($rc.client_id)-mem-at-close"; $c.mem_total == $rc.memory.held_bytes;
				"bpf \($c.mem_total), workload held \($rc.memory.held_bytes)"),
			(if $rc.probe then empty else engine_checks("client-\($rc.client_id)"; $c; $tc; true) end)
		end),
	counter_checks'
bl_end
