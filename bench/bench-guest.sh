#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# bench-guest.sh: drmtop's overhead, measured inside one VM boot (run by bench/run-bench.sh
# through tests/vm/run-in-vm.sh, as root, cwd = the repository). Writes raw figures, one per
# line "<section> <metric> <phase> <round> <value>", to $OUT/raw.tsv, and the files the
# host-side table is made from. Sections:
#   overhead  the loops of build/bench (ioctl, open+close, GEM create+close, jobs) with drmtop
#             off, "hooks" (drmtop -J -d 86400 --source bpf: tracer attached, no refresh in
#             the window), "on" (drmtop -J -d 1 --source bpf: attached and refreshing) and
#             "floor" (empty programs on the hooks drmtop attaches: bench-floor), "lookup"
#             (the same with one hash lookup each) and "least" (a hash entry made and deleted
#             per GEM object, handle and scheduler entity, a lookup elsewhere), in an order
#             that changes every round; drmtop_cpu: drmtop's own CPU during each loop;
#             with BENCH_BASE_DRMTOP, "base" too: that drmtop (another revision's) run as "on"
#             is, so that on/base is paired within each round of one boot
#   progs     per-program cost from BPF stats (kernel.bpf_stats_enabled=1), per loop
#   refresh   drmtop's CPU time per refresh, --source fdinfo vs --source bpf, with N
#             sleeping processes and C clients
#   snapshot  the time one refresh spends reading the tracer's maps (bpf.snapshot_ns) with
#             more buffers held than its handles map holds
#   peers     the CPU per second of drmtop's live view (--source fdinfo and bpf), igt's gputop
#             and nvtop, each on a terminal at one refresh a second, with the first refresh
#             point's processes and clients; the peers run from the Debian unstable chroot
#             BENCH_PEERS_ROOT (bench/run-bench.sh installs them there: Debian 12 has neither);
#             with BENCH_BASE_DRMTOP, "drmtop-base" too: that drmtop's live view --source fdinfo
#   scale     drmtop record while S short-lived clients come and go; then more clients at
#             once than the tracer's clients map holds
# Knobs (environment): BENCH_ROUNDS (10), BENCH_SECS (2), BENCH_SCALE_CLIENTS (10000),
# BENCH_SMOKE=1 (everything once, briefly), BENCH_PARTS ("overhead progs refresh snapshot
# peers scale"), BENCH_BASE_DRMTOP (absolute path of the base phase's drmtop; none: no base),
# BENCH_PEER_REPS (4: the peers' repetitions).
set -u

ROUNDS=${BENCH_ROUNDS:-10}
SECS=${BENCH_SECS:-2}
SCALE=${BENCH_SCALE_CLIENTS:-10000}
PARTS=${BENCH_PARTS:-overhead progs refresh snapshot peers scale}
PEERS_ROOT=${BENCH_PEERS_ROOT:-}
BASE_DRMTOP=${BENCH_BASE_DRMTOP:-}
PEER_REPS=${BENCH_PEER_REPS:-4}
PEER_SECS=15
# Refresh points "procs:clients"; the first is measured REFRESH_REPS times per mode.
POINTS="2000:100 200:100 1000:100 2000:10 2000:400"
REFRESH_REPS=3
REFRESH_FRAMES=8
FULL_CLIENTS=5000
# Buffers held for the snapshot part: more than the tracer's handles map holds (32,768).
SNAP_HANDLES=33000
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
	ROUNDS=1
	SECS=0.5
	SCALE=${BENCH_SCALE_CLIENTS:-200}
	POINTS="200:10"
	REFRESH_REPS=1
	REFRESH_FRAMES=2
	FULL_CLIENTS=300
	SNAP_HANDLES=300
	PEER_REPS=1
	PEER_SECS=3
fi
B=build/bench
DRMTOP=build/drmtop
WL=build/tests/simgpu-workload
OUT=${VM_RESULTS:-/tmp}/bench
mkdir -p "$OUT"
RAW=$OUT/raw.tsv
: >"$RAW"
T=$(mktemp -d)
ulimit -n 65536 2>/dev/null

want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
log() { echo "bench: $*" >&2; }
raw() { echo "$*" >>"$RAW"; }
# field NAME LINE: the value of NAME=value in a result line of the loop programs
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

NODE=/dev/dri/renderD$(sed -n 's/.*render_minor=\([0-9]*\).*/\1/p' /sys/kernel/debug/simgpu/device)
[ -c "$NODE" ] || { log "no simgpu render node"; exit 1; }
# A base asked for and not found would leave a run without what it was for: stop here, not
# after the boot's hour.
[ -z "$BASE_DRMTOP" ] || [ -x "$BASE_DRMTOP" ] ||
	{ log "no base drmtop at $BASE_DRMTOP (BENCH_BASE_DRMTOP)"; exit 1; }

# The guest's own load average, for the report only: the host's decides whether a target is judged
# (bench/run-bench.sh), the guest's is high by design while the loops run.
raw guest loadavg_before run 1 "$(cut -d ' ' -f 1 /proc/loadavg)"

# The machine, for docs/PERFORMANCE.md.
{
	echo "kernel $(uname -r)"
	echo "vcpus $(nproc)"
	echo "cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "mem_kib $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
	echo "simgpu $(cat /sys/module/simgpu/parameters/queue_depth) queue_depth"
} >"$OUT/machine"

TOP_PID=
# top_start ARGS...: drmtop -J ARGS in the background, output in $T/top.jsonl; returns once
# its first frame is out (no simgpu client then, so that frame comes at once: attached).
top_start() { top_start_bin "$DRMTOP" "$@"; }
# top_start_bin BIN ARGS...: the same with the drmtop BIN
top_start_bin() {
	_bin=$1
	shift
	rm -f "$T/top.jsonl"	# the background shell truncates it only after we look
	: >"$T/top.jsonl"
	"$_bin" -J "$@" >"$T/top.jsonl" 2>"$T/top.err" &
	TOP_PID=$!
	_t=0
	until [ -s "$T/top.jsonl" ] || [ $_t -ge 1200 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	[ -s "$T/top.jsonl" ] || log "drmtop gave no frame: $(cat "$T/top.err")"
}
top_stop() {
	[ -n "$TOP_PID" ] || return 0
	kill "$TOP_PID" 2>/dev/null
	wait "$TOP_PID" 2>/dev/null
	TOP_PID=
}
# top_next N: waits until drmtop has printed N more frames.
top_next() {
	_n=$(($(wc -l <"$T/top.jsonl") + $1))
	_t=0
	while [ "$(wc -l <"$T/top.jsonl")" -lt $_n ] && [ $_t -ge 0 ] && [ $_t -lt 600 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
}
# bg_ready OUT PATTERN PID TENTHS: waits until a line of OUT matches PATTERN, PID has ended or
# TENTHS tenths of a second have passed; true if the line came (a background helper is ready).
bg_ready() {
	_t=0
	until grep -q "$2" "$1" || ! kill -0 "$3" 2>/dev/null || [ $_t -ge "$4" ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	grep -q "$2" "$1"
}
# floor_start OBJ: bench-floor's programs of OBJ (build/bench/floor.bpf.o: empty; floor-lookup.bpf.o:
# a lookup each; floor-least.bpf.o: the least exact count) on the hooks in $FLOOR_PROGS, until
# floor_stop.
FLOOR_PID=
floor_start() {
	$B/bench-floor "$1" $FLOOR_PROGS >"$T/floor.out" 2>&1 &
	FLOOR_PID=$!
	bg_ready "$T/floor.out" '^attached' $FLOOR_PID 600 && return 0
	log "bench-floor: $(cat "$T/floor.out")"
	floor_stop
	return 1
}
floor_stop() {
	[ -n "$FLOOR_PID" ] || return 0
	kill "$FLOOR_PID" 2>/dev/null
	wait "$FLOOR_PID" 2>/dev/null
	FLOOR_PID=
}

trap 'top_stop; floor_stop; [ -n "${SPAWN_PID:-}" ] && kill $SPAWN_PID 2>/dev/null; rm -rf "$T"' EXIT

# The run time of every thread of drmtop (its drain thread too), in ns: what it takes from the
# loops on this guest, whose vCPUs share one host thread. 0 when drmtop is not running. (%.0f:
# mawk's %d stops at 2^31 - 1, 2.1 s.)
top_cpu_ns() {
	[ -n "$TOP_PID" ] || { echo 0; return; }
	cat /proc/"$TOP_PID"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
# loop METRIC FIELD PHASE ROUND PROGRAM ARGS...: one run of a loop program, its figure FIELD to
# raw.tsv as METRIC; with drmtop running, also drmtop's CPU in ms per second of the loop.
loop() {
	_m=$1 _f=$2 _ph=$3 _rd=$4
	shift 4
	_c0=$(top_cpu_ns)
	_t0=$(date +%s%N)
	_r=$("$@") || log "$1: $_r"
	_t1=$(date +%s%N)
	_c1=$(top_cpu_ns)
	raw overhead "$_m" "$_ph" "$_rd" "$(field "$_f" "$_r")"
	[ -z "$TOP_PID" ] ||
		raw drmtop_cpu "$_m" "$_ph" "$_rd" $(((_c1 - _c0) * 1000 / (_t1 - _t0)))
}

# loops PHASE ROUND: one run of each loop program; the figures go to raw.tsv.
loops() {
	loop ioctl_version_ns ns_per_op "$1" "$2" $B/bench-ioctl -D "$NODE" -t "$SECS" -k version
	loop ioctl_getcap_ns ns_per_op "$1" "$2" $B/bench-ioctl -D "$NODE" -t "$SECS" -k getcap
	loop open_close_ns ns_per_op "$1" "$2" $B/bench-open -D "$NODE" -t "$SECS"
	loop gem_create_close_ns ns_per_op "$1" "$2" $B/bench-gem -D "$NODE" -t "$SECS"
	loop jobs_per_s ops_per_s "$1" "$2" $B/bench-jobs -D "$NODE" -t "$SECS" -c 6 -b 16
}

# rotate K WORD...: the words, the first K of them moved to the end
rotate() {
	_k=$1
	shift
	while [ "$_k" -gt 0 ]; do
		_w=$1
		shift
		set -- "$@" "$_w"
		_k=$((_k - 1))
	done
	echo "$*"
}

# settle: the kernel frees an exited tracer's maps and trampolines in the background (workqueue,
# RCU): a second for that, so the next phase's loops do not share the vCPUs with it.
settle() {
	[ "${BENCH_SMOKE:-0}" = 1 ] || sleep 1
}

# --- overhead: off, hooks, on, [base,] floor, lookup, least, rotated ----------------------------
if want overhead; then
	sysctl -qw kernel.bpf_stats_enabled=0
	# The floor phase hooks what drmtop hooks on this kernel, with empty programs.
	FLOOR_PROGS=$("$DRMTOP" -J -n 1 -d 0.1 --source bpf 2>/dev/null |
		jq -r '[.bpf.programs[]?.name] | join(" ")')
	[ -n "$FLOOR_PROGS" ] || log "drmtop listed no programs: no floor phase"
	raw floor programs floor 1 "$(echo $FLOOR_PROGS | wc -w)"
	# whether the least phase changes open + close too (its entities' hooks, bench/floor.bpf.c)
	raw floor entities floor 1 "$(echo " $FLOOR_PROGS " | grep -c ' drmtop_entity_init ')"
	# base right after on: each then follows a drmtop's exit, so neither pays alone for what
	# that leaves behind. The smoke's one round: bench-floor with the least object checks the
	# floor's programs as well (one source, the same names; a lookup on the hooks it does not
	# count on), in less of make test's time.
	phases="off hooks on"
	[ -n "$BASE_DRMTOP" ] && phases="$phases base"
	if [ "${BENCH_SMOKE:-0}" = 1 ]; then
		phases="$phases least"
	else
		phases="$phases floor lookup least"
	fi
	nphases=$(echo "$phases" | wc -w)
	i=1
	while [ $i -le "$ROUNDS" ]; do
		# The phase order changes every round: a phase run later in a round was measured
		# slower (whatever drmtop's start and stop leave behind), so each phase takes each
		# place equally often (every nphases rounds: 12 rounds of 6 phases, 14 of 7).
		order=$(rotate "$(((i - 1) % nphases))" $phases)
		for ph in $order; do
			log "overhead round $i/$ROUNDS: $ph"
			if [ $ph = off ]; then
				loops off $i
				continue
			fi
			if [ $ph = floor ] || [ $ph = lookup ] || [ $ph = least ]; then
				obj=$B/floor.bpf.o
				[ $ph = lookup ] && obj=$B/floor-lookup.bpf.o
				[ $ph = least ] && obj=$B/floor-least.bpf.o
				[ -n "$FLOOR_PROGS" ] && floor_start "$obj" || continue
				loops $ph $i
				floor_stop
				settle
				continue
			fi
			t0=$(date +%s%N)
			if [ $ph = hooks ]; then
				top_start -d 86400 --source bpf
			elif [ $ph = base ]; then
				top_start_bin "$BASE_DRMTOP" -d 1 --source bpf
			else
				top_start -d 1 --source bpf
			fi
			raw overhead attach_ms $ph $i $((($(date +%s%N) - t0) / 1000000))
			loops $ph $i
			top_stop
			settle
		done
		i=$((i + 1))
	done
fi

# --- progs: per-program cost per event, per loop -------------------------------------------------
# last_frame FILE: the last complete frame of the running drmtop into FILE
last_frame() {
	sed -n "$(wc -l <"$T/top.jsonl")p" "$T/top.jsonl" >"$1"
}
# frame FILE: the last frame of the running drmtop after two more, into FILE
frame() {
	top_next 2
	last_frame "$1"
}
if want progs; then
	log "per-program cost (BPF stats on)"
	sysctl -qw kernel.bpf_stats_enabled=1
	top_start -d 1 --source bpf
	frame "$OUT/progs-0.json"
	r=$($B/bench-ioctl -D "$NODE" -t "$SECS" -k version)
	echo "ioctl $(field ops "$r")" >"$OUT/progs-ops"
	frame "$OUT/progs-1.json"
	r=$($B/bench-open -D "$NODE" -t "$SECS")
	echo "open_close $(field ops "$r")" >>"$OUT/progs-ops"
	frame "$OUT/progs-2.json"
	r=$($B/bench-gem -D "$NODE" -t "$SECS")
	echo "gem_create_close $(field ops "$r")" >>"$OUT/progs-ops"
	frame "$OUT/progs-3.json"
	r=$($B/bench-jobs -D "$NODE" -t "$SECS" -c 6 -b 16)
	echo "jobs $(field ops "$r")" >>"$OUT/progs-ops"
	frame "$OUT/progs-4.json"
	top_stop
	sysctl -qw kernel.bpf_stats_enabled=0
	# Deltas per loop: program, runs, runs per op, ns per run, BPF ns per op.
	n=1
	for loop in ioctl open_close gem_create_close jobs; do
		ops=$(awk -v l=$loop '$1 == l { print $2 }' "$OUT/progs-ops")
		jq -r -n --slurpfile a "$OUT/progs-$((n - 1)).json" --slurpfile b "$OUT/progs-$n.json" \
			--arg loop $loop --argjson ops "$ops" '
			($a[0].bpf.programs | map({(.name): .}) | add) as $A |
			$b[0].bpf.programs[] | . as $p | ($A[$p.name] // {run_cnt: 0, run_time_ns: 0}) as $q |
			($p.run_cnt - $q.run_cnt) as $runs | ($p.run_time_ns - $q.run_time_ns) as $ns |
			select($runs > 0) |
			"progs \($loop) \($p.name) \($runs) \($runs / $ops) \($ns / $runs) \($ns / $ops) \($p.recursion_misses - ($q.recursion_misses // 0))"' \
			>>"$OUT/progs.tsv"
		n=$((n + 1))
	done
fi

# --- refresh: CPU per refresh, fdinfo sweep vs BPF ---------------------------------------------
SPAWN_PID=
spawn() {
	$B/bench-spawn -D "$NODE" -p "$1" -c "$2" >"$T/spawn.out" 2>&1 &
	SPAWN_PID=$!
	bg_ready "$T/spawn.out" ready $SPAWN_PID 1200 || log "bench-spawn: $(cat "$T/spawn.out")"
}
unspawn() {
	kill "$SPAWN_PID" 2>/dev/null
	wait "$SPAWN_PID" 2>/dev/null
	SPAWN_PID=
}
if want refresh; then
	sysctl -qw kernel.bpf_stats_enabled=0
	first=1
	for pt in $POINTS; do
		p=${pt%%:*}
		c=${pt#*:}
		log "refresh: $p processes, $c clients"
		spawn "$p" "$c"
		reps=1
		[ $first = 1 ] && reps=$REFRESH_REPS
		k=1
		while [ $k -le $reps ]; do
			for mode in fdinfo bpf; do
				r=$($B/bench-refresh -w 2 -n "$REFRESH_FRAMES" -o "$T/frame.json" -- \
					"$DRMTOP" -J -d 0.1 --source $mode)
				raw refresh "cpu_ms_p${p}_c$c" "$mode" $k "$(field cpu_ms_per_frame "$r")"
				raw refresh "sched_ms_p${p}_c$c" "$mode" $k "$(field sched_ms_per_frame "$r")"
				raw refresh "hwm_kib_p${p}_c$c" "$mode" $k "$(field hwm_kib "$r")"
				raw refresh "procs_seen_p${p}_c$c" "$mode" $k \
					"$(jq '.scan.processes' "$T/frame.json" 2>/dev/null)"
				raw refresh "clients_seen_p${p}_c$c" "$mode" $k \
					"$(jq '[.clients[] | select(.driver == "simgpu")] | length' "$T/frame.json" 2>/dev/null)"
			done
			k=$((k + 1))
		done
		first=0
		unspawn
	done
fi

# --- peers: drmtop's live view against igt's gputop and nvtop ---------------------------------------
# peer TOOL: the command line of TOOL at one refresh a second, on the pty bench-tui gives it.
# The peers run chrooted in BENCH_PEERS_ROOT, /proc, /sys and /dev the guest's own.
peer() {
	case $1 in
	drmtop-fdinfo) echo "$DRMTOP -d 1 --source fdinfo" ;;
	drmtop-bpf) echo "$DRMTOP -d 1 --source bpf" ;;
	drmtop-base) echo "$BASE_DRMTOP -d 1 --source fdinfo" ;;
	gputop | nvtop)
		_args="-d 1"
		[ "$1" = nvtop ] && _args="-d 10"	# nvtop counts tenths of a second
		echo "unshare --mount sh -c 'mount -t proc proc $PEERS_ROOT/proc &&" \
			"mount --rbind /sys $PEERS_ROOT/sys && mount --rbind /dev $PEERS_ROOT/dev &&" \
			"exec chroot $PEERS_ROOT /usr/bin/$1 $_args'"
		;;
	esac
}
if want peers; then
	p=${POINTS%%:*}
	c=${POINTS#*:}
	c=${c%% *}
	tools="drmtop-fdinfo drmtop-bpf gputop nvtop"
	[ -n "$BASE_DRMTOP" ] && tools="$tools drmtop-base"
	for t in gputop nvtop; do
		[ -n "$PEERS_ROOT" ] && [ -x "$PEERS_ROOT/usr/bin/$t" ] && continue
		log "peers: no $t in the chroot '$PEERS_ROOT' (BENCH_PEERS_ROOT): not measured"
		raw peers "missing_$t" all 1 1
		tools=$(echo "$tools" | sed "s/ $t//")
	done
	log "peers: $tools, $p processes, $c clients, $PEER_REPS x $PEER_SECS s"
	spawn "$p" "$c"
	k=1
	while [ $k -le $PEER_REPS ]; do
		# each tool in each place of the order once over the repetitions
		set -- $tools
		i=1
		while [ $i -lt $k ]; do
			first=$1
			shift
			set -- "$@" "$first"
			i=$((i + 1))
		done
		for t in "$@"; do
			r=$(eval "$B/bench-tui -w 8 -s $PEER_SECS -- $(peer "$t")" 2>"$T/tui.err") ||
				log "peers: $t: $(cat "$T/tui.err")"
			raw peers "cpu_ms_per_s_p${p}_c$c" "$t" $k "$(field cpu_ms_per_s "$r")"
			raw peers "sched_ms_per_s_p${p}_c$c" "$t" $k "$(field sched_ms_per_s "$r")"
			raw peers "hwm_kib_p${p}_c$c" "$t" $k "$(field hwm_kib "$r")"
		done
		k=$((k + 1))
	done
	unspawn
fi

# --- scale: SCALE short-lived clients during one record; then a full clients map ----------------
# --- snapshot: one refresh's read of the tracer's maps, the handles map full ----------------------
if want snapshot; then
	log "snapshot: $SNAP_HANDLES buffers held"
	$B/bench-gem -D "$NODE" -H $SNAP_HANDLES >"$T/hold.out" 2>&1 &
	HOLD_PID=$!
	if bg_ready "$T/hold.out" ready $HOLD_PID 3000; then
		# drmtop attaches after the buffers exist: its adoption walk fills the handles map
		"$DRMTOP" -J -n 10 -d 0.5 --source bpf >"$T/snap.jsonl" 2>"$T/snap.err"
		jq -r 'select(.bpf.snapshot_ns != null) | "\(.bpf.snapshot_ns / 1e6) \(.bpf.counters.handles_full)"' \
			"$T/snap.jsonl" | tail -n +3 | {
			k=1
			while read -r ms full; do
				raw snapshot snapshot_ms full $k "$ms"
				raw snapshot handles_full full $k "$full"
				k=$((k + 1))
			done
		}
	else
		log "bench-gem -H: $(cat "$T/hold.out")"
	fi
	kill $HOLD_PID 2>/dev/null
	wait $HOLD_PID 2>/dev/null
fi

if want scale; then
	per=500
	[ "$SCALE" -lt 2000 ] && per=$(((SCALE + 19) / 20))
	procs=$(((SCALE + per - 1) / per))
	{
		echo "proc churn count=$procs every=5ms"
		j=0
		while [ $j -lt $per ]; do
			echo "  open a"
			echo "  submit a engine=gfx dur=1us wait=end"
			echo "  close a"
			j=$((j + 1))
		done
	} >"$T/churn.scen"
	log "scale: $((procs * per)) short-lived clients during drmtop record"
	$B/bench-rss "$DRMTOP" record -t 3600 -J >"$OUT/record.json" 2>"$T/record.err" &
	rec_pid=$!
	_t=0
	until grep -q recording "$T/record.err" 2>/dev/null || [ $_t -ge 1200 ]; do sleep 0.1; _t=$((_t + 1)); done
	t0=$(date +%s%N)
	$WL -o "$OUT/churn-wl.json" -f "$T/churn.scen" 2>"$T/wl.err" || log "workload: $(tail -n 3 "$T/wl.err")"
	raw scale churn_secs run 1 $((($(date +%s%N) - t0) / 1000000000))
	# The map memory while it is loaded: memlock of drmtop's maps (bpftool), and their fdinfo.
	bpftool -j map show >"$OUT/maps.json" 2>/dev/null
	sleep 3
	kill -INT $rec_pid
	wait $rec_pid
	grep '^rss ' "$T/record.err" | tail -n 1 >"$OUT/record.rss"
	cp "$T/record.err" "$OUT/record.err"
	# How many of the workload's clients the record has, closed, with the exact job count: by
	# client id, or where the kernel has none (6.1: the tracer's clients carry no id, fdinfo
	# saw few of them) per process, its clients' job counts sorted side by side.
	jq -n -c --slurpfile wl "$OUT/churn-wl.json" --slurpfile rec "$OUT/record.json" '
		[$rec[0].clients[] | select(.bpf != null and .bpf.kernel == false and .bpf.closed)] as $C
		| [$wl[0].clients[] | select(.probe | not)] as $W
		| if ($C | map(.client_id // .bpf.client_id) | all(. != null)) then
			($C | map({key: "\(.client_id // .bpf.client_id)",
				   value: (([.bpf.engines[] | .jobs] | add) // 0)}) | from_entries) as $R
			| {join: "client_id", clients: ($W | length),
			   present: ([$W[] | select($R["\(.client_id)"] != null)] | length),
			   exact: ([$W[] | select($R["\(.client_id)"] == .jobs)] | length)}
		  else
			($C | group_by(.bpf.tgid) | map({key: "\(.[0].bpf.tgid)",
				value: (map(([.bpf.engines[] | .jobs] | add) // 0) | sort)})
			 | from_entries) as $R
			| ($W | group_by(.opener_pid) | map({p: "\(.[0].opener_pid)",
				w: (map(.jobs) | sort)})) as $P
			| {join: "process", clients: ($W | length),
			   present: ([$P[] | [(.w | length), ($R[.p] // [] | length)] | min] | add),
			   exact: ([$P[] | . as $x | ($R[$x.p] // []) as $r
				| [range([($x.w | length), ($r | length)] | min)
				   | select($x.w[.] == $r[.])] | length] | add)}
		  end
		+ {missed: $rec[0].record.bpf.missed, skipped_runs: $rec[0].record.bpf.skipped_runs}' \
		>"$OUT/scale.json"

	log "scale: $FULL_CLIENTS clients open at once (clients map: 4096)"
	top_start -d 1 --source bpf
	$B/bench-spawn -D "$NODE" -p $((FULL_CLIENTS / 100)) -c $((FULL_CLIENTS / 100)) -k 100 \
		>"$T/spawn.out" 2>&1 &
	SPAWN_PID=$!
	bg_ready "$T/spawn.out" ready $SPAWN_PID 1200 || log "bench-spawn: $(cat "$T/spawn.out")"
	top_next 3
	last_frame "$OUT/full-open.json"
	grep VmHWM /proc/$TOP_PID/status >"$OUT/full.hwm"
	raw scale full_clients run 1 "$(sed -n 's/^ready .*clients=\([0-9]*\).*/\1/p' "$T/spawn.out")"
	raw scale full_hwm_kib run 1 "$(awk '{ print $2 }' "$OUT/full.hwm")"
	unspawn
	top_next 3
	last_frame "$OUT/full-closed.json"
	top_stop
	jq -c '{clients_fdinfo: [.clients[] | select(.driver == "simgpu")] | length,
		clients_bpf: [.clients[] | select(.driver == "simgpu" and .bpf != null)] | length,
		missed: .bpf.missed, counters_not_zero: (.bpf.counters | with_entries(select(.value > 0))),
		notes: .notes}' "$OUT/full-open.json" >"$OUT/full.json"
	jq -c '{missed: .bpf.missed, counters_not_zero: (.bpf.counters | with_entries(select(.value > 0))),
		closed_clients: (.bpf.closed_clients | length), notes: .notes}' \
		"$OUT/full-closed.json" >>"$OUT/full.json"
fi
raw guest loadavg_after run 1 "$(cut -d ' ' -f 1 /proc/loadavg)"
log "done"
