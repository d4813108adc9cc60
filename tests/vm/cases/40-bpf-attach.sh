#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: hooks, the iterator and a 12 s job seen running; nothing timed against the truth
#
# The BPF tracer attaches every hook on this kernel (tracepoints as tp_btf, with the name set
# the gpu_sched BTF has), its task_file iterator maps a DRM descriptor held before it started
# to a drm_file, a job still running shows its time so far (running_ns) but no busy time yet,
# and without root it refuses with a reason that names what is missing. Last, the scheduler
# tracepoints' raw_tp fallback, forced.
. tests/bpf/guest-lib.sh
bl_init 40-bpf-attach

# The kernel's own answer, from its BTF: does every job's fence carry its client's id?
fence_cid=false
if bpftool btf dump file /sys/kernel/btf/gpu_sched format c 2>/dev/null |
	awk '/^struct drm_sched_fence \{/,/^\};/' | grep -q 'drm_client_id;'; then
	fence_cid=true
fi
echo "drm_sched_fence.drm_client_id in BTF: $fence_cid"
gpu_mem=false
[ -d /sys/kernel/tracing/events/gpu_mem/gpu_mem_total ] && gpu_mem=true
# The scheduler tracepoints under the names this kernel's gpu_sched BTF has them (a
# btf_trace_<name> typedef per event): 6.17 renamed all three.
if grep -qaF btf_trace_drm_sched_job_queue /sys/kernel/btf/gpu_sched; then
	tps='"tp_btf/drm_sched_job_queue", "tp_btf/drm_sched_job_run", "tp_btf/drm_sched_job_done"'
else
	tps='"tp_btf/drm_sched_job", "tp_btf/drm_run_job", "tp_btf/drm_sched_process_job"'
fi
echo "# scheduler tracepoints: $tps"

render=$(sed -n 's/.*render_minor=\([0-9]*\).*/\1/p' "$SIMGPU_DBG/device")
exec 9<>"/dev/dri/renderD$render"
bl_start_bpf || bl_end
# a job that is still running when bpfdump stops: its time so far shows as running_ns
"$WORKLOAD" -s "proc longjob; open a; submit a engine=gfx dur=12s count=1" >"$BL/wl.out" 2>&1 &
bl_wl_pid=$!
# once the job is on simgpu's gfx ring (under a loaded host starting the workload alone may
# take seconds), let it run a second
i=0
until awk '$1 == "engine" && $2 == "name=gfx" && $0 ~ / on_hardware=[1-9]/ { f = 1 }
	END { exit !f }' "$SIMGPU_DBG/engines" || [ $i -ge 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
sleep 1
bl_truth
# the kernel memory the tracer's maps hold, as the kernel reports it (bpftool map show): at
# most 16 MiB with the default --bpf-map sizes (this guest runs no other BPF user)
memlock=$(bpftool -j map show 2>/dev/null | jq '[.[] | .bytes_memlock // 0] | add // 0')
echo "bpftool map show: ${memlock:-?} bytes locked by $(bpftool -j map show | jq length) maps"
if [ -n "$memlock" ] && [ "$memlock" -gt 0 ] && [ "$memlock" -le $((16 << 20)) ]; then
	pass "$bl_name-maps-memlock-16mib"
else
	fail "$bl_name-maps-memlock-16mib" "$(bpftool map show 2>&1 | head -c 1500)"
fi
touch "$BL/bpf.stop"
wait "$bl_bpf_pid"
bl_bpf_pid=
kill "$bl_wl_pid" 2>/dev/null
wait "$bl_wl_pid"
bl_wl_pid=
bl_quiesce 30
bl_jq_checks '
	check("all-hooks-attached"; (b.hooks | length) > 0 and all(b.hooks[]; .attached);
		"\([b.hooks[] | select(.attached | not) | "\(.target): \(.why)"])"),
	(["fexit/drm_file_alloc", "fentry/drm_gem_release",
	  "fexit/drm_gem_release", "fentry/drm_gem_private_object_init",
	  "fentry/drm_gem_object_release", "fexit/drm_gem_handle_create_tail",
	  "fentry/drm_gem_object_release_handle", "fentry/drm_gem_prime_fd_to_handle",
	  "fexit/drm_gem_prime_handle_to_fd", "iter/task_file", "fentry/drm_sched_job_cleanup",
	  "fentry/drm_dev_unregister",
	  '"$tps"'][] as $h |
	  check("hook-\($h)"; any(b.hooks[]; .target == $h and .attached); "not attached")),
	# who queued a job: from the fence where the kernel puts the client id there, else
	# from hooks on every ioctl and on entity creation (only then loaded)
	(["fentry/drm_ioctl", "fexit/drm_sched_entity_init", "fentry/drm_sched_entity_fini",
	  "fentry/drm_sched_entity_destroy"][] as $h |
	  if '"$fence_cid"' then
	    check("no-hook-\($h)"; all(b.hooks[]; .target != $h); "loaded, not needed")
	  else
	    check("hook-\($h)"; any(b.hooks[]; .target == $h and .attached); "not attached")
	  end),
	check("reason-attribution"; (b.reason | test("jobs carry drm_client_id: no per-ioctl")) ==
		'"$fence_cid"'; "fence has drm_client_id: '"$fence_cid"'; \(b.reason)"),
	check("no-raw-tp-fallback"; all(b.hooks[]; .target | startswith("raw_tp/drm_") | not);
		"\([b.hooks[] | .target])"),
	# one hook on the open path: the exit of drm_file_alloc makes the client
	check("no-hook-fexit/drm_open"; all(b.hooks[]; .target != "fexit/drm_open");
		"\([b.hooks[] | .target])"),
	# gpu_mem_total is a raw tracepoint by design, loaded where the kernel has it (arm64:
	# msm selects TRACE_GPU_MEM; no Debian x86 kernel has it)
	check("gpu-mem-total-where-the-kernel-has-it"; any(b.hooks[]; .target ==
		"raw_tp/gpu_mem_total" and .attached) == '"$gpu_mem"'; "tracefs event: '"$gpu_mem"'"),
	check("reason"; b.reason | test("^([0-9]+)/\\1 hooks attached; drm: attached; gpu_sched: attached"); b.reason),
	([b.fds[] | select(.tgid == '"$$"' and .fd == 9)][0]) as $f |
	check("iter-fd"; $f != null and $f.major == 226 and $f.minor == t.device.render_minor;
		"no record for pid '"$$"' fd 9 (renderD\(t.device.render_minor)): \(b.fds)"),
	([b.clients[] | select(.comm == "longjob") | .engines[] | select(.name == "gfx")][0]) as $g |
	check("running-job"; $g != null and $g.jobs == 0 and $g.busy_ns == 0 and
		$g.running_ns > 500000000 and $g.running_ns < 12000000000; "\($g)"),
	check("iter-client-id"; if is61 then $f.client_id == 0 else $f.client_id > 0 end;
		"client_id \($f.client_id) on \($release)")'
exec 9<&-

# The scheduler tracepoints as raw_tp, the fallback where tp_btf will not load: no kernel here
# needs it, so it is forced (a test-only variable), and its programs, which read every field
# with probe reads where tp_btf's make plain loads, must load and count three jobs.
DRMTOP_TEST_SCHED_RAW=1 "$BPFDUMP" -i 100 --ready "$BL/raw.ready" --stop "$BL/raw.stop" \
	>"$BL/raw.json" 2>"$BL/raw.err" &
raw_pid=$!
if bl_wait_file "$BL/raw.ready" 30; then
	"$WORKLOAD" -s "proc rawjobs; open a; submit a engine=gfx dur=20ms count=3" \
		>"$BL/rawwl.out" 2>&1
	bl_quiesce 30
fi
touch "$BL/raw.stop"
wait "$raw_pid"
hooks=$(jq -c '[.hooks[] | select(.target | startswith("raw_tp/drm_")) | select(.attached) |
	.target]' "$BL/raw.json" 2>&1)
if [ "$(echo "$hooks" | jq length 2>/dev/null)" = 3 ]; then
	pass "$bl_name-raw-tp-hooks"
else
	fail "$bl_name-raw-tp-hooks" "$hooks $(head -c 300 "$BL/raw.err")"
fi
jobs=$(jq '[(.clients + .closed)[] | select(.comm == "rawjobs") | .engines[] |
	select(.name == "gfx") | .jobs] | add' "$BL/raw.json" 2>&1)
if [ "$jobs" = 3 ]; then
	pass "$bl_name-raw-tp-jobs"
else
	fail "$bl_name-raw-tp-jobs" "$jobs of 3: $(tail -c 300 "$BL/rawwl.out")"
fi

out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$BPFDUMP" -t 0 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q '"error":"BPF tracing needs root'; then
	pass "$bl_name-non-root-reason"
else
	fail "$bl_name-non-root-reason" "exit $rc, output: $out"
fi
bl_end
