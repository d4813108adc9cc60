#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# case-timeout: 600
#
# simgpu's personalities (personality=, tests/kmod/simgpu/README.md) put drmtop's driver table
# (src/model/drivers.c) to work on a real kernel: simgpu is reloaded as v3d, then as amdgpu (with
# its buffer clears as kernel jobs), the workload generator drives it (finding it by the
# personality's name), and drmtop must show the driver's name and fdinfo engines, group every
# ring the scheduler names into the engine the table says (none unmapped, timing execution),
# agree with fdinfo without a divergence flag, and charge amdgpu's clears to the kernel client.
# Then as fw, a firmware-scheduled GPU named as xe (one scheduler per queue, cycles in fdinfo):
# the tracer's figure is occupancy, labelled so, above fdinfo's without a false divergence, and
# a driver counting more than its queues held is still flagged. Then as each driver that prints
# no engine time (lima, etnaviv, nouveau, powervr, panthor, and rocket, an accelerator on
# /dev/accel): the tracer's figure under the name the table gives, exact against simgpu's,
# nothing flagged, nothing unmapped.
# The default simgpu is loaded again at the end, with the suite's parameters.
# CASE80_PARTS (default: all) names the parts to run, comma-separated, among: v3d, amdgpu, fw,
# fw-churn, lima, etnaviv, nouveau, powervr, panthor, rocket. make test picks per kernel
# (tests/vm/vm.mk): the drivers without engine time in the arm64 stage (panthor on 7.2, rocket, an
# accelerator, on 6.12, whose x86 kernel has accel), with
# v3d there (the others' logic is the architecture's neither), and the churn on 6.1 and 7.2.
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
scale=/sys/module/simgpu/parameters/fdinfo_scale_pct
KO=${VM_SIMGPU:-build/kmod/$(uname -r)/simgpu.ko}
TOP_PID=
wl_require pers-setup
[ -x "$DRMTOP" ] || { fail pers-setup "$DRMTOP not built"; exit 1; }
tmp=$(mktemp -d)
keep() {
	[ "$case_fails" -gt 0 ] && [ -n "${VM_RESULTS:-}" ] && mkdir -p "$VM_RESULTS/80" &&
		cp -r "$tmp"/* "$VM_RESULTS/80/" 2>/dev/null
	rm -rf "$tmp"
}

# The suite's own simgpu back, whatever happened.
restore() {
	echo 100 >"$scale" 2>/dev/null
	wl_stop >/dev/null 2>&1
	if [ -n "$TOP_PID" ]; then
		kill "$TOP_PID" 2>/dev/null
		wait "$TOP_PID" 2>/dev/null
		TOP_PID=
	fi
	if ! grep -q ' personality=simgpu ' "$SIMGPU_DEBUGFS/device" 2>/dev/null; then
		grep -q '^simgpu ' /proc/modules && unload_wait simgpu
		# shellcheck disable=SC2086 # the parameters are words
		insmod "$KO" ${VM_SIMGPU_PARAMS:-}
	fi
}
trap 'restore; keep' EXIT

# Every engine kept busy by one process of its own, with buffers (amdgpu clears each one).
cat >"$tmp/scenario" <<'SCEN'
proc render
  open a
  bo a fb size=4M count=2
  stream a:10ms engine=gfx until=stop
proc infer
  open c
  bo c weights size=2M count=2
  stream c:8ms engine=compute until=stop
proc blit
  open d
  bo d buf size=1M count=2
  stream d:6ms engine=copy until=stop
SCEN

# reload_as NAME [PARAMS]: simgpu reloaded as personality NAME; fails pers-NAME-load if it is not.
reload_as() {
	# shellcheck disable=SC2086 # the parameters are words
	unload_wait simgpu && insmod "$KO" personality="$1" ${2:-} && return 0
	fail "pers-$1-load" "could not reload simgpu as $1: $(dmesg | tail -n 3 | tr '\n' ' ')"
	return 1
}

# personality NAME PARAMS RINGS ENGINES: one run. RINGS and ENGINES are the scheduler and fdinfo
# names of gfx, compute and copy, as JSON arrays.
personality() {
	p=$1
	params=$2
	rings=$3
	engines=$4
	d=$tmp/$p
	mkdir -p "$d"
	reload_as "$p" "$params" || return
	cp "$SIMGPU_DEBUGFS/device" "$SIMGPU_DEBUGFS/engines" "$d/" 2>/dev/null
	got=$(awk '$1 == "engine" { for (i = 2; i <= NF; i++) if ($i ~ /^ring=/) {
		sub(/^ring=/, "", $i); printf "%s\"%s\"", (n++ ? ", " : "["), $i } }
		END { print "]" }' "$d/engines")
	if grep -q " personality=$p driver=$p " "$d/device" && [ "$got" = "$rings" ]; then
		pass "pers-$p-load"
	else
		fail "pers-$p-load" "rings $got; debugfs: $(cat "$d/device" "$d/engines" | tr '\n' ' ')"
	fi

	"$DRMTOP" probe -J >"$d/probe.json" 2>"$d/probe.err"
	jq_check "pers-$p-probe-driver" "[.devices[] | select(.parent == \"simgpu\")] |
		length > 0 and all(.driver == \"$p\" and .in_driver_table)" "$d/probe.json" \
		'[.devices[] | select(.parent == "simgpu")]'
	jq_check "pers-$p-probe-table" "$engines as \$e | [.drivers[] | select(.driver == \"$p\")] |
		length == 1 and .[0].timing == \"execution\" and (\$e - [.[0].rings[].engine]) == []" \
		"$d/probe.json" "[.drivers[] | select(.driver == \"$p\")]"

	# drmtop first (its first frame comes at once: no client yet), then the workload.
	drmtop_bg "$d/top.all" "$d/top.err" -J -n 8 -d 1 --source bpf
	if ! wl_start "$d" --hold -f "$tmp/scenario" >"$d/why"; then
		fail "pers-$p-workload" "$(cat "$d/why")"
		kill "$TOP_PID" 2>/dev/null
		wait "$TOP_PID"
		TOP_PID=
		return
	fi
	pass "pers-$p-workload"
	wait "$TOP_PID"
	TOP_PID=
	wl_stop >/dev/null
	wl_settle
	tail -n 1 "$d/top.all" >"$d/top.json"
	cp "$SIMGPU_DEBUGFS/engines" "$d/engines.after"

	# The workload's three clients that ran jobs (each process also holds an idle probe client).
	mine="[.clients[] | select(.driver == \"$p\" and (.comm == \"render\" or
		.comm == \"infer\" or .comm == \"blit\") and any(.engines[]; .busy_ns > 0))]"
	gist="{devices: [.devices[] | select(.driver == \"$p\") | {device, e: [.engines[].name]}],
		c: [${mine}[] | {comm, client_id, e: [.engines[] | {name, busy_pct}],
		bpf: (.bpf | if . then {match, diverged, e: [.engines[] | {name, busy_pct,
		fdinfo_busy_pct, timing, unmapped, diverged, jobs}]} else null end)}],
		k: [.bpf.unmatched_clients[]? | select(.kernel) | {driver, client_id,
		e: [.engines[] | {name, jobs, unmapped}]}]}"
	jq_check "pers-$p-bpf-active" '.bpf.active == true' "$d/top.json" '.bpf'
	echo "info: $p on $(uname -r): $(jq -c "$gist" "$d/top.json" 2>&1 | head -c 1500)"
	# fdinfo: drm-driver and drm-engine-<e> as the real driver prints them.
	jq_check "pers-$p-fdinfo-engines" "$engines as \$e | $mine | length == 3 and
		([.[].engines[] | select(.busy_ns > 0) | .name] | sort) == (\$e | sort) and
		([.[].engines[].name] - \$e) == []" "$d/top.json" "$gist"
	jq_check "pers-$p-device-engines" "$engines as \$e | [.devices[] | select(.driver == \"$p\")] |
		length == 1 and ([.[0].engines[].name] | sort) == (\$e | sort)" "$d/top.json" "$gist"
	# Every ring the tracer saw went to the table's engine; none stayed an engine of its own.
	jq_check "pers-$p-rings-grouped" "$engines as \$e | $mine | all(.bpf != null and
		.bpf.match != \"none\" and (.bpf.engines | length) > 0 and all(.bpf.engines[];
		.unmapped == false and .timing == \"execution\" and (.name as \$n | \$e | index(\$n))))" \
		"$d/top.json" "$gist"
	jq_check "pers-$p-bpf-busy-seen" "$mine | all(any(.bpf.engines[]; .jobs_delta > 0 and
		.busy_pct > 20))" "$d/top.json" "$gist"
	# Not flagged, and within drmtop's threshold (5 points): v3d's depth 1 leaves a gap after
	# every job, so the two sources' windows, a few ms apart, hold different amounts of busy
	# time (6.1 saw 80.2 against 82.5 %).
	jq_check "pers-$p-no-false-divergence" "$mine | all(.bpf.diverged == false and
		all(.bpf.engines[] | select(.in_fdinfo and .busy_pct != null and
		.fdinfo_busy_pct != null); (.busy_pct - .fdinfo_busy_pct | fabs) < 5))" \
		"$d/top.json" "$gist"
	[ "$p" = amdgpu ] || return 0
	# The clears ran on sdma0 with AMDGPU_KERNEL_JOB_ID_TTM_CLEAR_BUFFER in the fence (6.12) or
	# on the driver's kernel-priority entity (6.1): every one the kernel client's, on "dma".
	kjobs=$(awk '$1 == "engine" && / name=copy / { for (i = 2; i <= NF; i++)
		if ($i ~ /^kernel_submitted=/) { sub(/^[^=]*=/, "", $i); print $i } }' \
		"$d/engines.after")
	jq_check "pers-$p-kernel-jobs" "[.bpf.unmatched_clients[] | select(.kernel and
		.driver == \"$p\")] | length == 1 and ([.[0].engines[] | select(.name == \"dma\" and
		.unmapped == false) | .jobs] | add) == ${kjobs:-0} and ${kjobs:-0} >= 6" \
		"$d/top.json" "$gist + {simgpu_kernel_jobs: ${kjobs:-null}}"
	jq_check "pers-$p-kernel-jobs-not-users" "[${mine}[] | select(.comm != \"blit\") |
		.bpf.engines[] | select(.name == \"dma\")] | length == 0" "$d/top.json" "$gist"
}

# fw (xe): one scheduler per queue, each file's own ("rcs<n>", ...), feeding "firmware" that runs
# the queues' jobs one after another on the engine. r1 and r2 keep rcs backlogged at once: each
# executes about half the time while its queue always holds a job, so the tracer's figure
# (occupancy) is well above fdinfo's (execution, in xe's cycles against total cycles), and that
# is no divergence. blit alone on bcs at a 50 % duty: its occupancy is its execution. Then the
# driver over-reports by half (fdinfo_scale_pct=150): blit's 75 % executed against 50 % held is
# flagged, r1's and r2's 75 % against their near 100 % held is not.
cat >"$tmp/fw-scenario" <<'SCEN'
proc r1
  open a
  stream a:10ms engine=gfx until=stop
proc r2
  open b
  stream b:10ms engine=gfx until=stop
proc blit
  open d
  duty d engine=copy dur=10ms period=20ms until=stop
SCEN

# fw_top OUT N: drmtop with both sources for N frames 1 s apart; returns once its first is out.
fw_top() {
	drmtop_bg "$1.all" "$1.err" -J -n "$2" -d 1
}

personality_fw() {
	d=$tmp/fw
	mkdir -p "$d"
	reload_as fw || return
	cp "$SIMGPU_DEBUGFS/device" "$SIMGPU_DEBUGFS/engines" "$d/" 2>/dev/null
	if grep -q " personality=fw driver=xe " "$d/device"; then
		pass pers-fw-load
	else
		fail pers-fw-load "debugfs: $(cat "$d/device" | tr '\n' ' ')"
	fi
	"$DRMTOP" probe -J >"$d/probe.json" 2>"$d/probe.err"
	jq_check pers-fw-probe-table '[.drivers[] | select(.driver == "xe")] | length == 1 and
		.[0].timing == "occupancy"' "$d/probe.json" '[.drivers[] | select(.driver == "xe")]'

	fw_top "$d/honest" 8
	if ! wl_start "$d" --hold -f "$tmp/fw-scenario" >"$d/why"; then
		fail pers-fw-workload "$(cat "$d/why")"
		kill "$TOP_PID" 2>/dev/null
		wait "$TOP_PID"
		TOP_PID=
		return
	fi
	pass pers-fw-workload
	cp "$SIMGPU_DEBUGFS/clients" "$d/clients"
	drmtop_bg_last "$d/honest.all" "$d/honest"
	# Each client's queues are its own schedulers: three per client (each process's idle
	# probe client has its own), nine or more names, none shared.
	queues=$(awk '/ state=open / && / comm=(r1|r2|blit) / { for (i = 2; i <= NF; i++)
		if ($i ~ /^queues=/) { sub(/^queues=/, "", $i); print $i } }' "$d/clients" |
		tr ',' '\n' | grep -E '^(rcs|bcs|ccs)[0-9]+$' | sort)
	if [ "$(echo "$queues" | grep -c .)" -ge 9 ] &&
		[ -z "$(echo "$queues" | uniq -d)" ]; then
		pass pers-fw-queues-own
	else
		fail pers-fw-queues-own "queues: $(echo "$queues" | tr '\n' ' ')"
	fi

	mine='[.clients[] | select(.driver == "xe" and (.comm == "r1" or .comm == "r2" or
		.comm == "blit") and any(.engines[]; (.cycles // 0) > 0))]'
	gist="[${mine}[] | {comm, e: [.engines[] | {name, busy_pct, cycles}],
		bpf: (.bpf | if . then {match, diverged, e: [.engines[] | {name, busy_pct,
		fdinfo_busy_pct, timing, unmapped, diverged, jobs}]} else null end)}]"
	echo "info: fw on $(uname -r), honest: $(jq -c "$gist" "$d/honest" 2>&1 | head -c 1500)"
	# fdinfo as xe prints it: cycles and total cycles per class, never drm-engine-.
	jq_check pers-fw-fdinfo-cycles "$mine | length == 3 and all(.[].engines[];
		.total_cycles != null and .busy_ns == null) and
		([.[].engines[] | select(.cycles > 0) | .name] | sort) == [\"bcs\", \"rcs\", \"rcs\"]" \
		"$d/honest" "$gist"
	# Execution: r1 and r2 share the engine, blit holds half of its own.
	jq_check pers-fw-fdinfo-execution "$mine | ([.[] | select(.comm != \"blit\") |
		.engines[] | select(.name == \"rcs\") | .busy_pct] | (add > 80 and add < 102 and
		all(. > 25 and . < 75))) and ([.[] | select(.comm == \"blit\") | .engines[] |
		select(.name == \"bcs\") | .busy_pct] | .[0] > 35 and .[0] < 65)" "$d/honest" "$gist"
	# Every queue's ring goes to its class, labelled occupancy.
	jq_check pers-fw-rings-grouped "$mine | all(.bpf != null and .bpf.match != \"none\" and
		([.bpf.engines[] | select(.jobs > 0)] | length == 1 and all(.unmapped == false and
		.timing == \"occupancy\" and (.name == \"rcs\" or .name == \"bcs\"))))" \
		"$d/honest" "$gist"
	# Occupancy: r1's and r2's queues held a job nearly all the time.
	jq_check pers-fw-occupancy-above-execution "$mine | [.[] | select(.comm != \"blit\") |
		.bpf.engines[] | select(.name == \"rcs\")] | length == 2 and
		all(.busy_pct > .fdinfo_busy_pct + 15) and ([.[].busy_pct] | add) > 120" \
		"$d/honest" "$gist"
	jq_check pers-fw-no-false-divergence "$mine | all(.bpf.diverged == false)" \
		"$d/honest" "$gist"
	if grep -q '\[DIVERGES\]' "$d/honest.all"; then
		fail pers-fw-no-false-divergence-text "a frame says DIVERGES"
	fi
	"$DRMTOP" -b -n 2 -d 1 >"$d/honest.txt" 2>&1
	if grep -q 'rcs [0-9.]*% occupancy' "$d/honest.txt"; then
		pass pers-fw-text-label
	else
		fail pers-fw-text-label "$(grep -E ' r1 | r2 ' "$d/honest.txt" | head -c 600)"
	fi

	echo 150 >"$scale"
	fw_top "$d/lying" 6
	drmtop_bg_last "$d/lying.all" "$d/lying"
	echo 100 >"$scale"
	echo "info: fw on $(uname -r), fdinfo x1.5: $(jq -c "$gist" "$d/lying" 2>&1 | head -c 1500)"
	jq_check pers-fw-overreport-flagged "$mine | [.[] | select(.comm == \"blit\")] |
		length == 1 and .[0].bpf.diverged == true" "$d/lying" "$gist"
	jq_check pers-fw-overreport-below-occupancy-not-flagged "$mine | [.[] |
		select(.comm != \"blit\")] | length == 2 and all(.bpf.diverged == false)" \
		"$d/lying" "$gist"
	wl_stop >/dev/null
	wl_settle
}

# fw churn: a desktop day of GL/Vulkan contexts on a firmware-scheduled GPU, in seconds. Every
# client file makes a scheduler per engine and frees them at close (xe per exec queue), so 400
# short-lived processes (each with its idle probe client: two files, three engines each) make and
# destroy some 2,400 schedulers during one drmtop record, many at addresses freed before. The
# tracer's rings map (4,096) must follow them: nothing counted missed (a full map refusing a
# new scheduler counts rings_full on each of its jobs), every client recorded once with exactly
# its jobs on each engine, under the engine its queues are (rcs, bcs, as its live figures are),
# none on engine "?" and no row of the queue's own name (rcs<n>) beside it.
cat >"$tmp/fw-churn" <<'SCEN'
proc q count=400 every=10ms
  open a
  submit a engine=gfx dur=1ms count=2 wait=end
  submit a engine=copy dur=1ms wait=end
  exit
SCEN

personality_fw_churn() {
	d=$tmp/fw-churn.d
	mkdir -p "$d"
	drmtop_record_bg "$d/rec.json" "$d/rec.err" -t 86400 -J --source bpf
	"$WL" -o "$d/wl.json" -f "$tmp/fw-churn" >"$d/wl.out" 2>&1 ||
		fail pers-fw-churn-workload "$(tail -c 300 "$d/wl.out")"
	wl_settle
	sleep 3
	kill -INT "$TOP_PID"
	wait "$TOP_PID"
	rc=$?
	TOP_PID=
	jq '[.clients[] | select(.probe | not)]' "$d/wl.json" >"$d/wl-clients.json" 2>/dev/null
	nwl=$(jq length "$d/wl-clients.json" 2>/dev/null || echo 0)
	echo "info: fw churn on $(uname -r): $nwl clients, record exit $rc," \
		"$(jq -c .record.bpf "$d/rec.json" 2>&1 | head -c 300)"
	[ "$rc" -eq 0 ] && [ "$nwl" -eq 400 ] && pass "pers-fw-churn-ran ($nwl clients)" ||
		fail pers-fw-churn-ran "record exit $rc, $nwl of 400 clients: $(tail -c 300 "$d/rec.err")"
	jq_check pers-fw-churn-nothing-missed '.record.bpf.active and
		.record.bpf.missed <= 2 * .record.bpf.skipped_runs' "$d/rec.json" '.record.bpf'
	# The workload counts gfx/copy jobs; xe's engine rcs is gfx, bcs copy.
	jq_class='def class: {rcs: "gfx", bcs: "copy", ccs: "compute"}[.] // "?" + .;'
	jq -n -c --slurpfile wl "$d/wl-clients.json" --slurpfile rec "$d/rec.json" "$jq_class"'
		($rec[0].clients | map(select(.bpf != null and .bpf.kernel == false))
		 | group_by(.bpf.tgid) | map({key: (.[0].bpf.tgid | tostring), value: .})
		 | from_entries) as $by
		| [$wl[0][] | . as $w
		   | ($w.engines | to_entries | map(select(.value.jobs > 0) | {(.key): .value.jobs})
		      | add // {}) as $want
		   | [($by[$w.opener_pid | tostring] // [])[] | select(.bpf.closed and
			([.bpf.engines[] | select(.jobs > 0) | {(.name | class): .jobs}] | add // {})
			== $want and all(.bpf.engines[] | select(.jobs > 0);
			.name | test("^(rcs|bcs)$")) and all(.bpf.engines[]; .name != "?" and
			(.name | test("[0-9]$") | not)))]
		   | select(length != 1)
		   | {client_id: $w.client_id, pid: $w.opener_pid, want: $want,
		      got: [($by[$w.opener_pid | tostring] // [])[] | .bpf.engines]}]' \
		>"$d/missing.json" 2>"$d/missing.err"
	# 7.x may skip a job's queue and run programs (PREEMPT_LAZY) for a client that closes
	# before the job runs: nobody is left to charge it, and the tracer counts it missed. Such
	# clients may be short, never over, by no more jobs in all than the tracer counted.
	short=$(jq -c --slurpfile rec "$d/rec.json" "$jq_class"'
		def counts: [.[] | select(.jobs > 0) | {key: (.name | class), value: .jobs}]
			| group_by(.key) | map({key: .[0].key, value: (map(.value) | add)})
			| from_entries;
		[.[] | select(.got | length == 1) | (.got[0] | counts) as $g | .want as $w
		 | select(all($g | to_entries[]; .value <= ($w[.key] // 0)))
		 | ([$w[]] | add) - ([$g[]] | add // 0)] as $s
		| {clients: length, short: ($s | length), jobs: ($s | add // 0),
		   missed: $rec[0].record.bpf.missed}' "$d/missing.json" 2>/dev/null)
	if [ "$(cat "$d/missing.json")" = "[]" ] && [ "$nwl" -gt 0 ]; then
		pass "pers-fw-churn-record-exact ($nwl clients, each once, its jobs by engine)"
	elif [ "$nwl" -gt 0 ] && echo "$short" | jq -e '.short == .clients and
		.jobs <= .missed' >/dev/null 2>&1; then
		pass "pers-fw-churn-record-exact ($nwl clients, each once, its jobs by engine but" \
			"those the tracer counted missed: $short)"
	else
		fail pers-fw-churn-record-exact "$(head -c 800 "$d/missing.json") $(head -c 200 \
			"$d/missing.err")"
	fi
}

# The drivers that print no engine time (lima, etnaviv, nouveau, powervr, panthor while its
# profiling is off, and rocket, an accelerator): the tracer's figure is the only one any tool
# has. Two processes run a known number of jobs on gfx and compute while drmtop (both sources)
# watches, then hold their clients: each client's tracer engines carry the name the driver
# table gives the ring (lima's "pp" and "gp", etnaviv's and rocket's core devices, "gpu" for
# nouveau's channels and powervr's queues, "panthor" for panthor's), none unmapped, with the
# driver's timing, jobs exactly simgpu's and busy time within 1 % or 2 ms of simgpu's own (of
# the bracket the tracer states, as in case 41); nothing flagged (no divergence, no
# inconclusive); fdinfo gives no engine; the text view has the engine's column with the
# tracer's figure in it, and no "(unmapped ring)".
cat >"$tmp/tracer-scenario" <<'SCEN'
proc render
  open a
  bo a fb size=1M count=2
  submit a engine=gfx dur=20ms count=15 wait=end
proc infer
  open c
  submit c engine=compute dur=10ms count=25 wait=end
SCEN

# personality_tracer NAME DRIVER TIMING GFX COMPUTE [PARAMS]: GFX and COMPUTE are the names the
# tracer's figures of those engines must carry.
personality_tracer() {
	p=$1
	drv=$2
	timing=$3
	want_gfx=$4
	want_compute=$5
	d=$tmp/$p
	mkdir -p "$d"
	reload_as "$p" "${6:-}" || return
	cp "$SIMGPU_DEBUGFS/device" "$SIMGPU_DEBUGFS/engines" "$d/" 2>/dev/null
	if grep -q " personality=$p driver=$drv " "$d/device"; then
		pass "pers-$p-load"
	else
		fail "pers-$p-load" "debugfs: $(cat "$d/device" | tr '\n' ' ')"
	fi
	"$DRMTOP" probe -J >"$d/probe.json" 2>"$d/probe.err"
	jq_check "pers-$p-probe" "([.devices[] | select(.parent == \"simgpu\")] | length > 0 and
		all(.driver == \"$drv\" and .in_driver_table)) and ([.drivers[] |
		select(.driver == \"$drv\")] | length == 1 and .[0].timing == \"$timing\")" \
		"$d/probe.json" "{d: [.devices[] | select(.parent == \"simgpu\")],
		t: [.drivers[] | select(.driver == \"$drv\")]}"

	# The text view beside the JSON one, both attached (first frame out) before the first job.
	# The text one runs until the JSON one ended: with a count of its own it could end before
	# the JSON one's tracer loaded and the workload started (seconds under TCG: seen on arm64).
	drmtop_bg "$d/top.txt" "$d/txt.err" -b -d 1
	txt_pid=$TOP_PID
	drmtop_bg "$d/top.all" "$d/top.err" -J -n 6 -d 1
	if ! wl_start "$d" --hold -f "$tmp/tracer-scenario" >"$d/why"; then
		fail "pers-$p-workload" "$(cat "$d/why")"
		kill "$TOP_PID" "$txt_pid" 2>/dev/null
		wait "$TOP_PID"
		wait "$txt_pid"
		TOP_PID=
		return
	fi
	pass "pers-$p-workload"
	wait "$TOP_PID"
	kill -TERM "$txt_pid"
	wait "$txt_pid"
	TOP_PID=
	wl_debugfs_clients >"$d/truth.json"
	tail -n 1 "$d/top.all" >"$d/top.json"
	# panthor 7.x with its profiling on: fdinfo's time (and cycles at 800 MHz) of all queues.
	if [ "$p" = panthor ] && [ "$(uname -r | cut -d. -f1)" -ge 7 ]; then
		echo 3 >/sys/module/simgpu/parameters/profiling
		"$DRMTOP" -J -n 1 >"$d/prof.json" 2>"$d/prof.err"
		echo 0 >/sys/module/simgpu/parameters/profiling
		if jq -e -n --slurpfile top "$d/prof.json" --slurpfile dbg "$d/truth.json" '
			[$top[0].clients[] | select(.comm == "render" and
			any(.engines[]; .name == "panthor" and .busy_ns > 0))] as $c
			| [$dbg[0][] | select(.comm == "render" and .gfx_completed > 0)] as $t
			| ($c | length) == 1 and ($t | length) == 1 and
			([$c[0].engines[] | select(.name == "panthor")] | length == 1 and
			 .[0].busy_ns == $t[0].gfx_busy_ns and
			 .[0].cycles == ($t[0].gfx_busy_ns * 4 / 5 | floor)) and
			$c[0].bpf.diverged != true' >/dev/null 2>&1; then
			pass "pers-$p-profiling-fdinfo"
		else
			fail "pers-$p-profiling-fdinfo" "$(jq -c '[.clients[] |
				select(.comm == "render") | {engines, bpf: .bpf.engines}]' \
				"$d/prof.json" 2>&1 | head -c 700)"
		fi
	fi
	wl_stop >/dev/null
	wl_settle

	# The client of each process that ran jobs, in drmtop and in simgpu's debugfs.
	mine="[.clients[] | select((.comm == \"render\" or .comm == \"infer\") and .bpf != null
		and any(.bpf.engines[]; .jobs > 0))]"
	gist="[${mine}[] | {comm, driver, e: [.engines[].name], bpf: {match: .bpf.match,
		diverged: .bpf.diverged, e: [.bpf.engines[] | {name, jobs, busy_ns, timing, unmapped,
		diverged, inconclusive}]}}]"
	echo "info: $p on $(uname -r): $(jq -c "$gist" "$d/top.json" 2>&1 | head -c 1200)"
	jq -n -c --slurpfile top "$d/top.json" --slurpfile dbg "$d/truth.json" \
		--arg g "$want_gfx" --arg c "$want_compute" --arg t "$timing" --arg drv "$drv" '
		# the truth within 1 % or 2 ms of the bracket the tracer states: [busy - slack, busy]
		# (a scheduler thread preempted between the run event and run_job, as in case 41)
		def near($e; $t): ([$t / 100, 2000000] | max) as $tol |
			$t >= $e.busy_ns - $e.start_slack_ns - $tol and $t <= $e.busy_ns + $tol;
		[{comm: "render", e: "gfx", name: $g}, {comm: "infer", e: "compute", name: $c}][]
		| . as $w
		| ([$dbg[0][] | select(.comm == $w.comm and .[$w.e + "_completed"] > 0)]) as $truth
		| ([$top[0].clients[] | select(.comm == $w.comm and .bpf != null and
		    any(.bpf.engines[]; .jobs > 0))]) as $got
		| select(($truth | length) != 1 or ($got | length) != 1 or
		    ($got[0].driver != $drv) or
		    ([$got[0].bpf.engines[] | select(.jobs > 0)] | length != 1) or
		    ([$got[0].bpf.engines[] | select(.jobs > 0)][0] as $e |
		     $e.name != $w.name or $e.unmapped or $e.timing != $t or
		     $e.jobs != $truth[0][$w.e + "_completed"] or
		     (near($e; $truth[0][$w.e + "_busy_ns"]) | not)))
		| {want: $w, truth_ids: [$truth[] | .id],
		   truth_jobs: [$truth[] | .[$w.e + "_completed"]],
		   truth_busy: [$truth[] | .[$w.e + "_busy_ns"]],
		   got: [$got[] | {driver, e: .bpf.engines}]}' \
		>"$d/wrong.json" 2>"$d/wrong.err"
	if [ ! -s "$d/wrong.json" ] && [ ! -s "$d/wrong.err" ]; then
		pass "pers-$p-tracer-exact (engines $want_gfx and $want_compute, jobs and busy time)"
	else
		fail "pers-$p-tracer-exact" "$(head -c 900 "$d/wrong.json") $(head -c 200 "$d/wrong.err")"
	fi
	jq_check "pers-$p-nothing-flagged" "$mine | length == 2 and all(.bpf.diverged != true and
		.bpf.inconclusive != true and all(.bpf.engines[]; .diverged != true and
		.inconclusive != true))" "$d/top.json" "$gist"
	# (panthor 7.x prints its frequencies whatever its profiling: an engine with no time)
	jq_check "pers-$p-fdinfo-no-engine" "$mine | all([.engines[] | select(.busy_ns != null or
		.cycles != null)] | length == 0)" "$d/top.json" "$gist"
	# An accelerator (rocket, where the kernel has accel): its clients on /dev/accel/accelN,
	# known to the tracer from their open (drm_file_alloc's exit), not first seen later.
	if grep -q ' accel_minor=[0-9]' "$d/device"; then
		jq_check "pers-$p-accel-node" ". as \$top | [.devices[] | select(.driver == \"$drv\")] |
			length == 1 and (.[0].node | startswith(\"accel/accel\")) and
			(\$top | $mine | length == 2 and all(.[]; (.node | startswith(\"accel/accel\")) and
			.bpf.opened_before_trace == false))" \
			"$d/top.json" "[.devices[] | {driver, node}] + [$mine[] | {comm, node,
			late: .bpf.opened_before_trace}]"
	fi
	# The text view: the engine's column (the tracer's figure in it) and no "(unmapped ring)".
	# (a column is 8 characters wide: etnaviv's "130000.gpu" shows as "130000.g"; a frame where
	# only infer's client was found yet has no column of render's engine)
	if awk -v c="$(printf %.8s "$want_gfx")" '$1 == "PID" && $2 == "COMMAND" &&
		$3 == "CLIENT" { for (i = 4; i <= NF; i++) if ($i == c) found = 1 }
		END { exit !found }' "$d/top.txt" &&
		grep -qE "^ *[0-9]+ render +[^ ]+ +[0-9]+\.[0-9]%" "$d/top.txt" &&
		! grep -q 'unmapped' "$d/top.txt"; then
		pass "pers-$p-text"
	else
		frames=$(grep -cE '^ *PID +COMMAND' "$d/top.txt")
		fail "pers-$p-text" "$frames frames: $(grep -E 'render|infer|unmapped' "$d/top.txt" |
			head -c 600); stderr: $(head -c 200 "$d/txt.err")"
	fi
}

# part NAME: whether CASE80_PARTS asks for part NAME; a part left out is said so, once. A part
# run is said with the case's seconds so far: what each part costs the suite shows in its log.
part() {
	case ",${CASE80_PARTS:-all}," in
	*,all,* | *",$1,"*)
		echo "# part $1: from $(($(date +%s) - case_start)) s"
		return 0
		;;
	esac
	echo "# part $1: not run here (CASE80_PARTS=$CASE80_PARTS)"
	return 1
}

case_start=$(date +%s)
! part v3d || personality v3d "" '["v3d_render", "v3d_csd", "v3d_tfu"]' \
	'["render", "csd", "tfu"]'
! part amdgpu || personality amdgpu "clear_jobs=1" '["gfx_0.0.0", "comp_1.0.0", "sdma0"]' \
	'["gfx", "compute", "dma"]'
! part fw || personality_fw
! part fw-churn || personality_fw_churn
! part lima || personality_tracer lima lima execution pp gp
! part etnaviv || personality_tracer etnaviv etnaviv execution 130000.gpu 2204000.gpu
! part nouveau || personality_tracer nouveau nouveau occupancy gpu gpu
! part powervr || personality_tracer powervr powervr occupancy gpu gpu
! part panthor || personality_tracer panthor panthor occupancy panthor panthor
! part rocket || personality_tracer rocket rocket execution fdab0000.npu fdac0000.npu

restore
if grep -q ' personality=simgpu driver=simgpu ' "$SIMGPU_DEBUGFS/device" 2>/dev/null; then
	pass pers-default-back
else
	fail pers-default-back "$(cat "$SIMGPU_DEBUGFS/device" 2>&1)"
fi
[ "$case_fails" -eq 0 ]
