#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# case-timeout: 600
#
# Engines with several lanes: simgpu is loaded again with engine_capacity 2 (then 3) on gfx and
# compute and a hardware queue deeper than that, and three clients with different job lengths
# backlog both engines, so their jobs run on the lanes side by side, queue behind each other on
# a lane, and finish out of submission order. drm-engine-<e> is the sum over the lanes (the
# usage-stats rule; capacity says how many there are), so per client and engine the tracer's
# busy ns must equal simgpu's debugfs truth and fdinfo's figure, within case 41's tolerance;
# jobs exact. That the lanes were really used together is checked too (engine busy time well
# above the wall time the work took): one lane per ring would count about 1/capacity of it.
# A job that lost its done and cleanup on such a ring ages out past its scheduler's timeout.
# simgpu goes back to the harness's parameters afterwards, whatever happens.
. tests/bpf/guest-lib.sh

# simgpu with the harness's parameters again, for the cases that follow.
restore() {
	bl_cleanup
	wait
	bl_name=50-bpf-engine-capacity-restore
	[ -z "${VM_SIMGPU:-}" ] || reload_simgpu
}

# reload_simgpu [PARAMS...]: simgpu again with these parameters after the harness's (the last
# value given wins), once nobody holds it (processes of earlier cases may still be exiting).
reload_simgpu() {
	t=0
	while [ "$(awk '$1 == "simgpu" { n = $3 } END { print n + 0 }' /proc/modules)" != 0 ] &&
		[ $t -lt 300 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if grep -q '^simgpu ' /proc/modules && ! rmmod simgpu 2>"$BL/rmmod.err"; then
		fail "$bl_name-reload" "rmmod simgpu: $(cat "$BL/rmmod.err")"
		return 1
	fi
	# shellcheck disable=SC2086
	if ! insmod "$VM_SIMGPU" ${VM_SIMGPU_PARAMS:-} "$@" 2>"$BL/insmod.err"; then
		fail "$bl_name-reload" "insmod simgpu $*: $(cat "$BL/insmod.err")"
		return 1
	fi
	pass "$bl_name-reload"
}

# Every client the ready file lists, once: its fdinfo engine lines as one JSON object a line,
# {"client_id":N,"engines":{"gfx":{"busy_ns":N,"capacity":N},...}} (capacity 1 when absent).
fdinfo_snapshot() {
	jq -r '[.open[] | {client_id, pid, fd}] | unique_by(.client_id)[] |
		"\(.client_id) \(.pid) \(.fd)"' "$BL/wl.ready" |
	while read -r id pid fd; do
		awk -v id="$id" '
			$1 ~ /^drm-engine-capacity-/ { e = substr($1, 21); sub(/:$/, "", e); cap[e] = $2; next }
			$1 ~ /^drm-engine-/ { e = substr($1, 12); sub(/:$/, "", e); busy[e] = $2; n[++k] = e }
			END {
				s = ""
				for (i = 1; i <= k; i++) {
					e = n[i]
					s = s (s == "" ? "" : ",") sprintf("\"%s\":{\"busy_ns\":%s,\"capacity\":%s}",
						e, busy[e], (e in cap) ? cap[e] : 1)
				}
				printf "{\"client_id\":%s,\"engines\":{%s}}\n", id, s
			}' "/proc/$pid/fdinfo/$fd"
	done >"$BL/fdinfo.json"
}

# one_run CAPACITY [JQ-CHECKS]: simgpu with that many lanes on gfx and compute (and the parameters
# in $SIMGPU_MORE), the tracer, the workload, the checks and JQ-CHECKS.
one_run() {
	cap=$1
	bl_init "50-bpf-engine-capacity-$cap"
	trap 'restore' EXIT
	# twice as many jobs on the ring as lanes: jobs also wait on a lane behind another
	# shellcheck disable=SC2086
	reload_simgpu "engine_capacity=$cap,$cap,1" "queue_depth=$((2 * cap)),$((2 * cap)),1" \
		${SIMGPU_MORE:-} || return
	# Job lengths differ per client so lanes free up out of order; every client has more than
	# 2 s on each engine it uses (case 41 says why); gfx is backlogged for most of the run.
	cat >"$BL/scenario" <<SCEN
proc short
  open a
  submit a engine=gfx dur=30ms count=$((20 * cap)) threads=2
proc long
  open b
  submit b engine=gfx dur=70ms count=$((8 * cap)) threads=2
proc compute
  open c
  submit c engine=compute dur=20ms count=$((40 * cap)) threads=2
proc mixed
  open d count=2
  submit d engine=compute dur=45ms count=$((12 * cap)) threads=2
  submit d engine=gfx dur=50ms count=$((12 * cap)) threads=2
SCEN
	if ! bl_start_bpf || ! bl_run_workload -f "$BL/scenario"; then
		bl_cleanup
		wait
		return
	fi
	bl_quiesce 60
	fdinfo_snapshot
	bl_stop_all || return
	# An open's program skipped by the kernel (7.x skips a program whose run on that CPU was
	# preempted; both open programs of the time were seen skipped once in 7.2's timed half):
	# the tracer learns the client at its first buffer, or never, and says so (its skipped
	# runs, client_late, its jobs' job_client_unknown), but no figure of the run can be held
	# exact. Made again, once.
	if [ -z "${open_retried:-}" ] && jq -e '(.recursion_misses.drmtop_file_alloc // 0) > 0' \
		"$BL/bpf.json" >/dev/null 2>&1; then
		echo "# $bl_name: the kernel skipped the program of an open" \
			"($(jq -c .recursion_misses "$BL/bpf.json")): run again, once"
		open_retried=1
		one_run "$@"
		open_retried=
		return
	fi
	bl_jq_checks "${2:+$2, }misses_line, live_client_checks(true; true), counter_checks, skip_checks,
		(\$fdinfo | length) as \$n | check(\"fdinfo-clients\"; \$n >= 5; \"\(\$n) clients\"),
		(\$fdinfo[] | . as \$f | truth_client(.client_id) as \$tc |
			bpf_client_by_file([\$ready[0].open[] | select(.client_id == \$f.client_id) |
				bpf_file(.pid; .fd)][0]) as \$c |
			engines[] as \$e | \$f.engines[\$e] as \$fe | bpf_engine(\$c; \$e) as \$g |
			({gfx: $cap, compute: $cap, copy: 1}[\$e]) as \$want |
			check(\"client-\(\$f.client_id)-\(\$e)-fdinfo-capacity\"; \$fe.capacity == \$want;
				\"fdinfo capacity \(\$fe.capacity), simgpu has \(\$want) lanes\"),
			check(\"client-\(\$f.client_id)-\(\$e)-fdinfo-truth\"; \$fe.busy_ns == \$tc[\"\(\$e)_busy_ns\"];
				\"fdinfo \(\$fe.busy_ns) ns, simgpu \(\$tc[\"\(\$e)_busy_ns\"]) ns\"),
			check(\"client-\(\$f.client_id)-\(\$e)-bpf-fdinfo\";
				within_busy(\$g.busy; \$g.slack; \$fe.busy_ns);
				\"bpf \(\$g.busy) ns (start slack \(\$g.slack)), fdinfo \(\$fe.busy_ns) ns\")),
		(r.ready_ns - r.start_ns) as \$wall |
		([t.engines[] | select(.name == \"gfx\")][0]) as \$te |
		check(\"gfx-lanes-used-together\"; \$te.capacity == $cap and \$te.busy_ns > 1.2 * \$wall;
			\"simgpu capacity \(\$te.capacity), busy \(\$te.busy_ns) ns in \(\$wall) ns of wall time\")"
}

# lost_pair: the job drm_sched hands to the idle second lane while the first lane is busy, its
# queue and run events both lost (dropped on purpose: event #2 of each), the first job the tracer
# sees on that lane (no previous end there). Made from its done event, it may not start at its
# scheduled fence's time: drm_sched moved that to the end of the job before it on the other lane
# (30 ms in: a 70 ms job counted 40 ms, no bracket). Counted when it is freed from its queue
# time, its scheduled fence bounding the bracket, the truth must lie within it. Only where fences
# carry drm_client_id (nothing else names its client at its done event).
lost_pair() {
	bl_init 50-bpf-engine-capacity-lost-pair
	trap 'restore' EXIT
	reload_simgpu "engine_capacity=2,2,1" "queue_depth=4,4,1" || return
	cat >"$BL/scenario" <<SCEN
proc pair
  open a
  submit a engine=gfx dur=30ms wait=none
  submit a engine=gfx dur=70ms wait=end
SCEN
	if ! BL_BPFDUMP_ARGS="--drop-queue 2 --drop-run 2" bl_start_bpf ||
		! bl_run_workload -f "$BL/scenario"; then
		bl_cleanup
		wait
		return
	fi
	bl_quiesce 60
	bl_stop_all || return
	bl_jq_checks "misses_line, counter_checks, skip_checks,
		check(\"lost-pair-from-done\"; b.counters.job_from_done == 1; \"\(b.counters)\"),
		([\$ready[0].open[] | select(truth_client(.client_id).gfx_completed > 0)][0]) as \$o |
		truth_client(\$o.client_id) as \$tc |
		bpf_engine(bpf_client_by_file(bpf_file(\$o.pid; \$o.fd)); \"gfx\") as \$g |
		check(\"lost-pair-jobs\"; \$g.jobs == 2 and \$tc.gfx_completed == 2;
			\"bpf \(\$g.jobs) jobs, simgpu \(\$tc.gfx_completed)\"),
		check(\"lost-pair-busy-bracketed\"; within_busy(\$g.busy; \$g.slack; \$tc.gfx_busy_ns);
			\"bpf \(\$g.busy) ns (start slack \(\$g.slack)), simgpu \(\$tc.gfx_busy_ns) ns\")"
}

# leaked_job: a job that lost both its done event and its cleanup (a GPU reset on 7.x), on a ring
# of two lanes, where no later job overtaking it proves it ended: its scheduler's timeout
# (job_timeout_ms 2 s) does. bpfdump drops the 6th done it may drop (not a lane's first job's:
# the last of the run where both lanes ran jobs) and, with --leak, does not make it up at its
# cleanup. The reader must age it out once twice the
# timeout and a second have passed since the ring's last end (5 s; the case waits 7), so the
# client is not left running there for ever: aged out 1, nothing running, the other jobs exact.
leaked_job() {
	bl_init 50-bpf-engine-capacity-leaked-job
	trap 'restore' EXIT
	reload_simgpu "engine_capacity=2,2,1" "queue_depth=4,4,1" "job_timeout_ms=2000" || return
	cat >"$BL/scenario" <<SCEN
proc leak
  open a
  submit a engine=gfx dur=20ms count=4 threads=2
SCEN
	if ! BL_BPFDUMP_ARGS="--drop-done 6 --leak" bl_start_bpf ||
		! bl_run_workload -f "$BL/scenario"; then
		bl_cleanup
		wait
		return
	fi
	bl_quiesce 60
	sleep 7
	bl_stop_all || return
	bl_jq_checks "misses_line,
		check(\"leak-dropped\"; dropped(\"done\") == 1; \"dropped \(dropped(\"done\"))\"),
		check(\"leak-aged-out\"; b.counters.jobs_aged_out == 1 and
			b.counters.ended_without_done == 0;
			\"jobs_aged_out \(b.counters.jobs_aged_out), ended_without_done \(b.counters.ended_without_done)\"),
		([\$ready[0].open[] | select(truth_client(.client_id).gfx_completed > 0)][0]) as \$o |
		truth_client(\$o.client_id) as \$tc | bpf_client_by_file(bpf_file(\$o.pid; \$o.fd)) as \$c |
		([\$c.engines[] | select(.name == \"gfx\") | .running_ns] | add // 0) as \$run |
		check(\"leak-not-running\"; \$run == 0; \"gfx running \(\$run) ns 7 s after the last job\"),
		check(\"leak-other-jobs\"; bpf_engine(\$c; \"gfx\").jobs == \$tc.gfx_completed - 1;
			\"bpf \(bpf_engine(\$c; \"gfx\").jobs) jobs, simgpu \(\$tc.gfx_completed), one lost\")"
}

if [ -z "${VM_SIMGPU:-}" ]; then
	bl_init 50-bpf-engine-capacity
	fail "$bl_name-simgpu" "VM_SIMGPU not set: the harness did not load simgpu"
	bl_end
fi
one_run 2
# Run events dropped on purpose: a job whose run event is lost starts no later than its
# scheduled fence, but drm_sched moves that fence's time to the end of the ring's previous job
# (drm_sched_get_finished_job), which on a ring of several lanes may be on another lane and end
# well after this job started: the tracer must still count every job, within its start bracket.
# Where fences carry drm_client_id queue events are dropped too, so that some jobs lose both
# and are made from their done event.
if grep -qaF drm_client_id /sys/kernel/btf/gpu_sched; then
	BL_BPFDUMP_ARGS="--drop-queue 4 --drop-run 3" one_run 3 \
		'check("jobs-from-done"; b.counters.job_from_done > 0; "\(b.counters)")'
	lost_pair
else
	BL_BPFDUMP_ARGS="--drop-run 7" one_run 3
fi
# Done events dropped on purpose (7.x skips them when a completion runs in a kworker while
# another on that CPU is inside the program): each such job is made up where it is freed, its
# finished fence signalled, from its own hardware times, so every job still counts exactly.
# simgpu frees each job 30 ms late (a loaded host's free worker), so the next job on the lane
# often ends before the one whose done was dropped is made up: it must wait for that (done_held),
# or it takes the other's time on the lane and the split between clients is wrong (seen on a
# slow host on 6.1 before the tracer held such jobs).
SIMGPU_MORE="free_delay_ms=30" BL_BPFDUMP_ARGS="--drop-done 5" one_run 2 \
	'check("dones-made-up-at-cleanup"; dropped("done") > 0 and
		b.counters.done_at_cleanup == dropped("done") + skipped("done");
		"dropped \(dropped("done")), skipped \(skipped("done")), done_at_cleanup \(b.counters.done_at_cleanup)"),
	check("dones-held-behind-made-up"; b.counters.done_held > 0;
		"done_held \(b.counters.done_held), done_at_cleanup \(b.counters.done_at_cleanup)")'
leaked_job
trap - EXIT
restore
[ "$case_fails" -eq 0 ]
