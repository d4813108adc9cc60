# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Helpers for the BPF guest cases (tests/vm/cases/40-*.sh .. 59-*.sh), sourced, run inside the
# test VM from the repository root. The cases compare what the tracer reports (through
# build/tests/bpfdump and the reader API) with simgpu's ground truth in debugfs and with the
# record simgpu-workload writes of what it did.
#
# A case: bl_init NAME; bl_start_bpf; bl_run_workload ARGS...; bl_stop_all; checks...; bl_end

BPFDUMP=${BPFDUMP:-build/tests/bpfdump}
WORKLOAD=build/tests/simgpu-workload
SIMGPU_DBG=/sys/kernel/debug/simgpu
# Busy time may differ from the truth by 1 % or 1 ms, whichever is larger (the run tracepoint
# fires a little before the driver's run_job callback stamps the start).
BL_TOL_PCT=${BL_TOL_PCT:-1}
BL_TOL_NS=${BL_TOL_NS:-1000000}

. tests/vm/case-lib.sh

# bl_init NAME: scratch directory $BL (under $VM_RESULTS so the host keeps it for debugging).
bl_init() {
	bl_name=$1
	BL=${VM_RESULTS:-/tmp}/$bl_name
	rm -rf "$BL"
	mkdir -p "$BL"
	bl_bpf_pid=
	bl_wl_pid=
	trap 'bl_cleanup' EXIT
}

bl_cleanup() {
	[ -z "$bl_wl_pid" ] || kill "$bl_wl_pid" 2>/dev/null
	[ -z "$bl_bpf_pid" ] || kill "$bl_bpf_pid" 2>/dev/null
}

# bl_wait_file FILE SECONDS [STEP]: polls every STEP seconds (0.1, or 0.5 with STEP 0.5).
# Each poll is an exec, tens of ms of CPU under TCG: a long wait while the jobs being measured
# run polls slowly, so the case itself takes less CPU from the scheduler threads it measures
# (on a preemptible kernel, 7.x, a scheduler thread preempted between the run tracepoint and
# the driver's run_job makes that job look longer).
bl_wait_file() {
	i=0
	per=10
	[ "${3:-}" = 0.5 ] && per=2
	while [ ! -s "$1" ] && [ $i -lt $(($2 * per)) ]; do
		sleep "${3:-0.1}"
		i=$((i + 1))
	done
	[ -s "$1" ]
}

# Starts bpfdump (fds recorded at stop, plus $BL_BPFDUMP_ARGS) and waits until the tracer is
# attached.
bl_start_bpf() {
	# shellcheck disable=SC2086
	"$BPFDUMP" -i 100 --ready "$BL/bpf.ready" --status "$BL/bpf.status" \
		--stop "$BL/bpf.stop" --fds ${BL_BPFDUMP_ARGS:-} >"$BL/bpf.json" 2>"$BL/bpf.err" &
	bl_bpf_pid=$!
	if ! bl_wait_file "$BL/bpf.ready" 30; then
		fail "$bl_name-bpf-start" "bpfdump not ready in 30 s: $(head -c 300 "$BL/bpf.json")"
		return 1
	fi
	pass "$bl_name-bpf-start"
}

# bl_run_workload ARGS...: starts the workload holding its clients, waits for its ready file.
bl_run_workload() {
	"$WORKLOAD" -o "$BL/record.json" -r "$BL/wl.ready" -H "$@" >"$BL/wl.out" 2>&1 &
	bl_wl_pid=$!
	if ! bl_wait_file "$BL/wl.ready" 120 0.5; then
		fail "$bl_name-workload-ready" "no ready file: $(tail -c 300 "$BL/wl.out")"
		return 1
	fi
}

# Lets every job finish, snapshots the truth, stops bpfdump (while the clients are still held,
# so its fd records see them), then stops the workload (which writes its record).
bl_stop_all() {
	bl_quiesce 30
	bl_truth
	touch "$BL/bpf.stop"
	wait "$bl_bpf_pid"
	bl_bpf_pid=
	if [ -n "$bl_wl_pid" ]; then
		kill -TERM "$bl_wl_pid"
		wait "$bl_wl_pid"
		echo $? >"$BL/wl.rc"
		bl_wl_pid=
	fi
	if ! jq -e .hooks "$BL/bpf.json" >/dev/null 2>&1; then
		fail "$bl_name-bpf-output" "bpfdump gave no JSON: $(head -c 300 "$BL/bpf.json")"
		return 1
	fi
	pass "$bl_name-bpf-output"
}

# bl_run_workload_fg ARGS...: runs the workload to its end (no hold).
bl_run_workload_fg() {
	"$WORKLOAD" -o "$BL/record.json" "$@" >"$BL/wl.out" 2>&1
	rc=$?
	echo $rc >"$BL/wl.rc"
	[ $rc -eq 0 ] || fail "$bl_name-workload" "exit $rc: $(tail -c 300 "$BL/wl.out")"
}

# Without a held workload: let jobs finish, snapshot the truth, stop bpfdump.
bl_finish() {
	bl_wl_pid=
	bl_stop_all
}

# Waits until simgpu has no job on its "hardware" and every submitted job completed/cancelled.
bl_quiesce() {
	i=0
	while [ $i -lt $(($1 * 10)) ]; do
		if awk '/^engine / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (v["on_hardware"] != 0 || v["submitted"] != v["completed"] + v["cancelled"])
				busy = 1 } END { exit busy }' "$SIMGPU_DBG/engines"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	fail "$bl_name-quiesce" "simgpu still busy after $1 s"
}

# simgpu's debugfs as JSON: $BL/truth.json = {clients: [...], device: {...}, engines: [...]}.
# Numbers become numbers; every line is "<kind> key=value ...".
bl_truth() {
	for f in clients engines device; do
		cp "$SIMGPU_DBG/$f" "$BL/debugfs.$f"
	done
	awk 'function line(   i, kv, s, v) {
			s = ""
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				v = kv[2]
				if (v !~ /^-?[0-9]+$/) {
					gsub(/\\/, "\\\\", v)
					gsub(/"/, "\\\"", v)
					v = "\"" v "\""
				}
				s = s (s == "" ? "" : ",") "\"" kv[1] "\":" v
			}
			return "{" s "}"
		}
		FILENAME ~ /clients$/ && $1 == "client" { c = c (c == "" ? "" : ",") line() }
		FILENAME ~ /engines$/ && $1 == "engine" { e = e (e == "" ? "" : ",") line() }
		FILENAME ~ /device$/ && $1 == "device" { d = line() }
		END { printf "{\"clients\":[%s],\"engines\":[%s],\"device\":%s}\n", c, e, d }' \
		"$BL/debugfs.clients" "$BL/debugfs.engines" "$BL/debugfs.device" >"$BL/truth.json"
}

# simgpu's figures before the workload starts ($truth0 in the checks): the driver's kernel
# client lives as long as the module, so its counters include earlier cases' jobs.
bl_truth_baseline() {
	bl_truth
	mv "$BL/truth.json" "$BL/truth0.json"
}

# bl_jq_checks PROGRAM: runs a jq program over {bpf, truth, record, ready, fdinfo} that outputs
# "PASS name" / "FAIL name: reason" lines; counts them into this case's result. $fdinfo is what
# the case wrote to $BL/fdinfo.json (one object a line), empty if it wrote none.
bl_jq_checks() {
	rec=$BL/record.json
	rdy=$BL/wl.ready
	fdi=$BL/fdinfo.json
	echo '{}' >"$BL/none.json"
	: >"$BL/empty.json"
	[ -s "$rec" ] || rec=$BL/none.json
	[ -s "$rdy" ] || rdy=$BL/none.json
	[ -s "$fdi" ] || fdi=$BL/empty.json
	[ -s "$BL/truth.json" ] || cp "$BL/none.json" "$BL/truth.json"
	[ -s "$BL/truth0.json" ] || cp "$BL/truth.json" "$BL/truth0.json"
	jq -n -r --slurpfile bpf "$BL/bpf.json" --slurpfile truth "$BL/truth.json" \
		--slurpfile record "$rec" --slurpfile ready "$rdy" --slurpfile truth0 "$BL/truth0.json" \
		--slurpfile fdinfo "$fdi" \
		--argjson pct "$BL_TOL_PCT" --argjson tolns "$BL_TOL_NS" \
		--arg case "$bl_name" --arg release "$(uname -r)" \
		"$BL_JQ_LIB $1" >"$BL/checks.txt" 2>"$BL/checks.err"
	rc=$?
	cat "$BL/checks.txt"
	if [ $rc -ne 0 ] || [ ! -s "$BL/checks.txt" ]; then
		fail "$bl_name-checks" "jq failed (rc $rc): $(head -c 300 "$BL/checks.err")"
		return
	fi
	case_fails=$((case_fails + $(grep -c '^FAIL ' "$BL/checks.txt")))
}

# jq definitions the checks share.
# shellcheck disable=SC2016
BL_JQ_LIB='
def b: $bpf[0];
def t: $truth[0];
def r: $record[0];
def within($got; $want): (($got - $want) | fabs) <= ([($want * $pct / 100), $tolns] | max);
# Busy time: the tracer knows a job that starts on an idle ring started between its run event
# and its scheduled fence, and counts from the run event, reporting the bracket as
# start_slack_ns: the truth is within tolerance of [busy - slack, busy].
def within_busy($got; $slack; $want): ([($want * $pct / 100), $tolns] | max) as $tol |
	$want >= $got - $slack - $tol and $want <= $got + $tol;
def check($name; $ok; $why): if $ok then "PASS \($case)-\($name)" else "FAIL \($case)-\($name): \($why)" end;
# Runs of one program the kernel skipped.
def skipped_prog($name): (b.recursion_misses // {})[$name] // 0;
# Events bpfdump --drop-* made the tracer drop on purpose, per role.
def dropped($role): b.test_dropped[$role] // 0;
# Skipped runs of the GEM hooks (7.x), each of which may leave one object or handle uncounted
# or counted too long: memory then differs from the truth by at most that many objects, none
# larger than the most one client of the workload created.
def gem_skips: ["drmtop_gem_init", "drmtop_gem_object_release", "drmtop_gem_resv_fini",
	"drmtop_handle_create",
	"drmtop_handle_release", "drmtop_import_enter", "drmtop_import_exit", "drmtop_export",
	"drmtop_gem_release_enter", "drmtop_gem_release_exit"] | map(skipped_prog(.)) | add;
def within_objects($got; $want): (($got - $want) | fabs) <=
	gem_skips * ([r.clients[]?.memory.created_bytes] | max // 0);
# The BPF client holding descriptor (pid, fd), through the task_file iterator records.
def bpf_file($pid; $fd): [b.fds[] | select(.tgid == $pid and .fd == $fd) | .file][0];
def bpf_client_by_file($f): [b.clients[] | select(.file == $f)][0];
def truth_client($id): [t.clients[] | select(.id == $id)][0];
# Figures of the kernel client gained since bl_truth_baseline (numbers subtracted by key).
def truth_kernel_delta:
	([t.clients[] | select(.kind == "kernel")][0]) as $after |
	([$truth0[0].clients[]? | select(.kind == "kernel")][0] // {}) as $before |
	$after | with_entries(if (.value | type) == "number" and ($before[.key] | type) == "number"
		then .value -= $before[.key] else . end);
def engines: ["gfx", "compute", "copy"];
def bpf_engine($c; $e): {busy: ([$c.engines[] | select(.name == $e) | .busy_ns] | add // 0),
	slack: ([$c.engines[] | select(.name == $e) | .start_slack_ns] | add // 0),
	jobs: ([$c.engines[] | select(.name == $e) | .jobs] | add // 0)};
# Engine figures of BPF client $c against simgpu client $tc: jobs exact, busy within tolerance.
def engine_checks($lbl; $c; $tc; $busy):
	engines[] as $e | bpf_engine($c; $e) as $g |
	# A job made from its done event, or held there, is counted at its cleanup: a cleanup run the
	# kernel skipped (7.2-rt, 3 in a run of case 50) leaves it out, unflagged until the reader
	# ages it out 10 s later (jobs_aged_out): short by at most those runs, never over.
	skipped_prog("drmtop_job_cleanup") as $sc |
	check("\($lbl)-\($e)-jobs"; $g.jobs <= $tc["\($e)_completed"] and
		$g.jobs >= $tc["\($e)_completed"] - $sc;
		"bpf \($g.jobs) jobs, simgpu completed \($tc["\($e)_completed"]), cleanup runs skipped \($sc)"),
	# every job that ran has one queue-to-run latency sample, but one made from its done event
	# (its queue and run events lost: no queue time), of all clients at most job_from_done
	([$c.engines[] | select(.name == $e) | .lat_hist[]] | add // 0) as $h |
	check("\($lbl)-\($e)-latency-samples"; $h <= $g.jobs and $h >= $g.jobs - b.counters.job_from_done;
		"\($h) samples, \($g.jobs) jobs, \(b.counters.job_from_done) made from their done event"),
	if $busy then
		check("\($lbl)-\($e)-busy"; within_busy($g.busy; $g.slack; $tc["\($e)_busy_ns"]);
			"bpf \($g.busy) ns (start slack \($g.slack)), simgpu \($tc["\($e)_busy_ns"]) ns")
	else empty end;
def simgpu_dev: [b.devices[] | select(.driver == "simgpu")][0];
def is61: $release | startswith("6.1.");
# Every open client of the ready file: one drm_file per client id (dup, fork, SCM_RIGHTS
# included), then its engine figures against simgpu and its memory against simgpu and the
# workload record.
def live_client_checks($busy; $engines):
	[$ready[0].open[] | {id: .client_id, pid, fd, file: bpf_file(.pid; .fd)}] as $m |
	check("fds-mapped"; ($m | length) > 0 and all($m[]; .file != null);
		"descriptors without a drm_file in the iterator: \([$m[] | select(.file == null)])"),
	([$m | group_by(.id)[] | {id: .[0].id, files: (map(.file) | unique)}]) as $g |
	check("one-drm-file-per-client"; all($g[]; (.files | length) == 1) and
		(($g | map(.files[0]) | unique | length) == ($g | length)); "\($g)"),
	($g[] | .id as $id | bpf_client_by_file(.files[0]) as $c | truth_client($id) as $tc |
		([r.clients[]? | select(.client_id == $id)][0]) as $rc |
		if $c == null then
			check("client-\($id)"; false; "no BPF client for drm_file \(.files[0])")
		else
			check("client-\($id)-id"; if is61 then $c.client_id == 0 else $c.client_id == $id end;
				"bpf client_id \($c.client_id), simgpu \($id)"),
			(if $engines then engine_checks("client-\($id)"; $c; $tc; $busy) else empty end),
			(if gem_skips == 0 then
				check("client-\($id)-mem-total"; $c.mem_total == $rc.memory.held_bytes;
					"bpf \($c.mem_total), workload holds \($rc.memory.held_bytes)"),
				check("client-\($id)-mem-shared"; $c.mem_shared == $tc.shared_bytes and
					$c.mem_shared == $rc.memory.shared_held_bytes;
					"bpf \($c.mem_shared), simgpu \($tc.shared_bytes), workload \($rc.memory.shared_held_bytes)")
			else
				"# \($case): client \($id) memory bpf \($c.mem_total) (shared \($c.mem_shared)), workload \($rc.memory.held_bytes) (shared \($rc.memory.shared_held_bytes)), GEM hook runs skipped \(gem_skips)",
				check("client-\($id)-mem-total"; within_objects($c.mem_total; $rc.memory.held_bytes);
					"bpf \($c.mem_total), workload holds \($rc.memory.held_bytes), \(gem_skips) GEM hook runs skipped"),
				check("client-\($id)-mem-shared"; within_objects($c.mem_shared; $rc.memory.shared_held_bytes);
					"bpf \($c.mem_shared), workload \($rc.memory.shared_held_bytes), \(gem_skips) GEM hook runs skipped")
			end)
		end);
# Live GEM objects and bytes per device, exact; where the kernel skipped runs of the GEM object
# hooks (7.x), each skipped init may leave one object uncounted and each skipped release one
# counted too long, and the bytes differ by whole objects, none larger than the most one client
# of the workload created.
def device_checks:
	simgpu_dev as $d |
	skipped_prog("drmtop_gem_init") as $si | skipped_prog("drmtop_gem_object_release") as $sr |
	([r.clients[]?.memory.created_bytes] | max // 0) as $big |
	if $si + $sr == 0 then
		check("device-gem-objects"; $d != null and $d.gem_objects == t.device.bo_alive;
			"bpf \($d.gem_objects), simgpu bo_alive \(t.device.bo_alive)"),
		check("device-gem-bytes"; $d != null and $d.gem_bytes == t.device.bo_alive_bytes;
			"bpf \($d.gem_bytes), simgpu bo_alive_bytes \(t.device.bo_alive_bytes)")
	else
		"# \($case): GEM object hook runs skipped (init \($si), release \($sr)): device totals bpf \($d.gem_objects) objects \($d.gem_bytes) bytes, simgpu \(t.device.bo_alive) objects \(t.device.bo_alive_bytes) bytes",
		check("device-gem-objects"; $d != null and $d.gem_objects >= t.device.bo_alive - $si and
			$d.gem_objects <= t.device.bo_alive + $sr;
			"bpf \($d.gem_objects), simgpu bo_alive \(t.device.bo_alive), init skipped \($si), release skipped \($sr)"),
		check("device-gem-bytes"; $d != null and
			$d.gem_bytes >= t.device.bo_alive_bytes - $si * $big and
			$d.gem_bytes <= t.device.bo_alive_bytes + $sr * $big;
			"bpf \($d.gem_bytes), simgpu bo_alive_bytes \(t.device.bo_alive_bytes), objects skipped \($si)/\($sr) of at most \($big) bytes")
	end;
# Nothing dropped or unmatched, every job accounted for: those seen queued, and those the tracer
# first saw at their run event (job_from_run: queued before attach, or a queue run skipped).
# counter_checks_except($ok): the same, but the counters named in $ok are checked by the case.
def counter_checks_except($ok):
	b.counters as $k |
	"_full$|_unknown$|_truncated$|done_without_run|done_no_hw_time|mem_underflow|orphan_engines|idle_unsettled"
		as $losses |
	# releases of handles or objects whose creation run the kernel skipped: no more than those
	# and objects whose end both end hooks missed (dropped on purpose, or skipped), settled
	{handle_unknown: (skipped_prog("drmtop_handle_create") + skipped_prog("drmtop_import_exit")),
	 object_unknown: skipped_prog("drmtop_gem_init"), mem_underflow: gem_skips,
	 objects_stale: (dropped("object") + skipped_prog("drmtop_gem_object_release"))} as $skip |
	([$k | to_entries[] | select((.key | test($losses)) and .value > ($skip[.key] // 0) and
		(.key as $n | $ok | index($n) | not))]) as $bad |
	check("counters-clean"; ($bad | length) == 0; "\($bad)"),
	# a job whose done event was skipped is counted when it is freed (done_at_cleanup)
	check("jobs-balanced"; $k.jobs_queued + $k.job_from_run + $k.job_from_done ==
		$k.jobs_done + $k.done_at_cleanup + $k.ended_without_done;
		"queued \($k.jobs_queued), from run \($k.job_from_run), from done \($k.job_from_done), done \($k.jobs_done), at cleanup \($k.done_at_cleanup), ended without done \($k.ended_without_done)");
def counter_checks: counter_checks_except([]);
# Runs of the tracer programs the kernel skipped (recursion_misses, 7.x: PREEMPT_LAZY), summed
# per role: "queue", "run", "done" match drmtop_<role>_{btf,raw}[_617].
def skipped($role): [(b.recursion_misses // {}) | to_entries[] |
	select(.key | test("^drmtop_\($role)_(btf|raw)")) | .value] | add // 0;
# For a case whose jobs all come after attach: every skipped or dropped scheduler event was made
# up for, one job made from its run event per lost queue event, one start bracketed by the queue
# time and the scheduled fence per lost run event, one job made from its done event per job that
# lost both; a skipped done is made up where its job is freed (done_at_cleanup, case 50).
def skip_checks:
	b.counters as $k |
	(skipped("queue") + dropped("queue")) as $q | (skipped("run") + dropped("run")) as $r |
	check("lost-queue-events-recovered"; $k.job_from_run + $k.job_from_done == $q;
		"queue events skipped or dropped \($q), jobs made from their run event \($k.job_from_run), from their done event \($k.job_from_done)"),
	check("lost-run-events-recovered"; $k.start_from_fence + $k.job_from_done == $r;
		"run events skipped or dropped \($r), starts bracketed by queue time and fence \($k.start_from_fence), jobs made from their done event \($k.job_from_done)");
# One line for the log: what the kernel skipped in this run, what was dropped on purpose, what
# the tracer inferred.
def misses_line:
	"# \($case): skipped program runs: \([(b.recursion_misses // {}) | to_entries[] | select(.value > 0) |
		"\(.key) \(.value)"] | if length == 0 then "none" else join(", ") end)" +
	(if b.test_dropped then "; dropped on purpose: queue \(dropped("queue")), run \(dropped("run"))"
	 else "" end) +
	"; inferred: job_from_run \(b.counters.job_from_run), start_from_fence \(b.counters.start_from_fence), job_from_done \(b.counters.job_from_done)";
'

bl_end() {
	[ "$case_fails" -eq 0 ]
	exit $?
}
