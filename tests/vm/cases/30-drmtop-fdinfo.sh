#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# drmtop from fdinfo alone shows every simgpu client of a workload exactly once (fds shared by
# fork and by dup included), with the processes and fds that hold it, engine busy % within
# 2 points of the truth and memory to the byte, while it samples -d 1 -n 3. A saturated engine
# is not flagged over 100 %, a driver over-reporting by 4 % is.
# The truth of a client's busy % in a frame is simgpu's own engine time (debugfs, sampled every
# 10 ms by the workload with --sample-truth) over that client's window: the window ends when
# drmtop read the client (its per-client sample_ns if the JSON carries it, else the frame's
# time) and lasts the client's interval_ns. The "steady" scenario keeps every engine backlogged
# with jobs of several clients in a fixed rotation (gfx 75/25, compute 50/50, copy 100, one
# client idle), so the figures barely move if drmtop's read time is off by a few ms.
# Runs in the test VM from the repository root (tests/vm/run-suite.sh).
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
TOLERANCE_PCT=${TOLERANCE_PCT:-2}

wl_require drmtop-fdinfo-setup
if [ ! -x "$DRMTOP" ]; then
	fail drmtop-fdinfo-setup "$DRMTOP not built"
	exit 1
fi
tmp=$(mktemp -d)
scale=/sys/module/simgpu/parameters/fdinfo_scale_pct
old_scale=$(cat "$scale")
trap 'echo "$old_scale" >"$scale"; rm -rf "$tmp"' EXIT

if ! wl_start "$tmp" --sample-truth 10ms steady; then
	fail drmtop-fdinfo-workload "$WL_WHY"
	exit 1
fi
"$DRMTOP" --source fdinfo -J -d 1 -n 3 >"$tmp/drmtop.jsonl" 2>"$tmp/drmtop.err"
rc=$?
# The same comparison must catch a driver whose fdinfo claims 1.5x the engine time.
lie_rc=1
if echo 150 >"$scale"; then
	"$DRMTOP" --source fdinfo -J -d 1 -n 1 >"$tmp/drmtop-lie.jsonl" 2>>"$tmp/drmtop.err"
	lie_rc=$?
fi
echo "$old_scale" >"$scale"
# What the kernel itself printed, for the memory keys it may leave out (wl_resident_rule).
wl_fdinfo_all "$(sed -n 's/^  "device": "\(.*\)",$/\1/p' "$tmp/ready.json")" >"$tmp/fdinfo.jsonl"
# Let the truth sampler (every 10 ms) cover the end of drmtop's last window.
sleep 0.3
if wl_stop; then
	pass drmtop-fdinfo-workload
else
	fail drmtop-fdinfo-workload "workload failed: $(tail -n 3 "$tmp/stderr" | tr '\n' ';')"
	exit 1
fi
frames=$(grep -c '^{' "$tmp/drmtop.jsonl")
if [ $rc -eq 0 ] && [ "$frames" -eq 3 ]; then
	pass drmtop-fdinfo-runs
else
	fail drmtop-fdinfo-runs "exit $rc, $frames JSON frames: $(head -c 300 "$tmp/drmtop.err")"
	exit 1
fi

# compare_drmtop FRAMES OUT: one line per mismatch in OUT; the check name before ':' lets each
# property pass or fail alone. "info:" lines show the busy figures that agreed.
compare_drmtop() {
	jq -r -n --slurpfile rec "$tmp/record.json" --slurpfile ready "$tmp/ready.json" \
		--slurpfile frames "$1" --argjson tol "$TOLERANCE_PCT" --arg rule "$rule" '
	# simgpu busy ns of engine column $k at monotonic time $x, linear between the samples
	# around it (rows [t, id, gfx, compute, copy] of one client, sorted); null outside.
	def at($rows; $times; $k; $x):
		($times | bsearch($x)) as $i
		| if $i >= 0 then $rows[$i][$k]
		  else (-1 - $i) as $j
		  | if $j == 0 or $j >= ($rows | length) then null
		    else $rows[$j - 1] as $a | $rows[$j] as $b
		    | $a[$k] + ($b[$k] - $a[$k]) * ($x - $a[0]) / ($b[0] - $a[0]) end
		  end;
	def pct: . * 100 | round / 100;
	def fds: map("\(.pid)/\(.fd)") | join(" ");
	$rec[0] as $r
	| ($r.truth_samples.samples | group_by(.[1])
	   | map({key: (.[0][1] | tostring), value: sort_by(.[0])}) | from_entries) as $truth
	| [$r.clients[] | select(.probe | not)] as $cl
	| ($cl | map(.client_id)) as $ids
	| $frames | to_entries[] | .key as $k | .value as $f
	| "frame \($k + 1)" as $fr
	| ($f.time_ns - $r.realtime_minus_monotonic_ns) as $t
	| ($f.clients // [] | map(select(.driver == "simgpu"))) as $dc
	| (
	    ($dc[] | select(.client_id as $i | $ids | any(. == $i) | not)
	     | "clients: \($fr): drmtop shows simgpu client \(.client_id) (\(.comm)),"
	       + " which the workload never opened"),
	    ($cl[] as $c
	     | "client \($c.client_id) (\($c.comm))" as $who
	     | ($dc | map(select(.client_id == $c.client_id))) as $m
	     | if ($m | length) != 1 then "once: \($fr): \($who) shown \($m | length) times"
	       else $m[0] as $d
	       | (if $d.sample_ns then $d.sample_ns else $t end) as $t
	       | ($t - ($d.interval_ns // 0)) as $s
	       | ([$ready[0].open[] | select(.client_id == $c.client_id) | {pid, fd}] | sort) as $held
	       | (if ([$d.holders[] | {pid, fd}] | sort) != $held
		  then "holders: \($fr): \($who) drmtop \($d.holders | fds), workload \($held | fds)"
		  else empty end),
		 (if ($c.pids | any(. == $d.pid)) | not
		  then "holders: \($fr): \($who) shown with pid \($d.pid), not one of \($c.pids)"
		  else empty end),
		 (if ([$c.holders[] | select(.pid == $d.pid) | .comm] | any(. == $d.comm)) | not
		  then "holders: \($fr): \($who) shown with comm \($d.comm) for pid \($d.pid)"
		  else empty end),
		 (if ($d.interval_ns // 0) <= 0
		  then "window: \($fr): \($who) has no interval_ns" else empty end),
		 (($truth[$c.client_id | tostring] // []) as $rows
		  | ($rows | map(.[0])) as $times
		  | range(3) as $ei | ["gfx", "compute", "copy"][$ei] as $e
		  | at($rows; $times; $ei + 2; $t) as $bt | at($rows; $times; $ei + 2; $s) as $bs
		  | ([$d.engines[]? | select(.name == $e)] | first) as $de
		  | if $bt == null or $bs == null
		    then "window: \($fr): \($who) \($e): no simgpu samples around [\($s), \($t)]"
		    else (($bt - $bs) * 100 / ($t - $s)) as $tr
		    | if $de == null or $de.busy_pct == null
		      then "busy: \($fr): \($who) \($e): drmtop shows no busy % (truth \($tr | pct) %)"
		      elif ($de.busy_pct - $tr) | fabs > $tol
		      then "busy: \($fr): \($who) \($e): drmtop \($de.busy_pct) %, truth \($tr | pct) %"
		      elif $tr > 0
		      then "info: \($fr): \($who) \($e): drmtop \($de.busy_pct) %, truth \($tr | pct) %"
		      else empty end
		    end),
		 (([$d.memory[]? | select(.region == "memory")] | first) as $dm
		  | [["total_bytes", $c.memory.held_bytes],
		     ["shared_bytes", $c.memory.shared_held_bytes]][]
		  | select($dm == null or $dm[.[0]] != .[1])
		  | "memory: \($fr): \($who) \(.[0]): drmtop \($dm[.[0]]? // "nothing"),"
		    + " record \(.[1])"),
		 # resident: shown exactly where fdinfo prints it, null (not reported, never 0)
		 # where the kernel leaves it out (nothing resident, and the rule of this kernel:
		 # wl_resident_rule)
		 (([$d.memory[]? | select(.region == "memory")] | first // {}) as $dm
		  | $c.memory.resident_held_bytes as $res
		  | if $res > 0 or ($c.memory.held_count > 0 and $rule == "printed") then
		      (if $dm.resident_bytes != $res then
			 "memory: \($fr): \($who) resident_bytes: drmtop \($dm.resident_bytes // "nothing"),"
			 + " record \($res)"
		       else empty end)
		    elif $dm.resident_bytes != null and
			 ($c.memory.held_count == 0 or $rule == "left-out") then
		      "memory: \($fr): \($who) resident_bytes: drmtop \($dm.resident_bytes), but fdinfo"
		      + " leaves it out (nothing resident)"
		    else empty end)
	       end)
	  ),
	  (if $rule == "mixed" then "memory: fdinfo prints drm-resident-memory at 0 for some"
	     + " clients without resident objects and leaves it out for others" else empty end)
	' >"$2" 2>&1
}

rule=$(wl_resident_rule "$tmp/record.json" "$tmp/fdinfo.jsonl")
echo "# fdinfo drm-resident-memory for a client with nothing resident: $rule"
compare_drmtop "$tmp/drmtop.jsonl" "$tmp/mismatch"
sed -n 's/^info: /# /p' "$tmp/mismatch"

for check in clients once holders window busy memory; do
	if grep -q "^$check: " "$tmp/mismatch"; then
		n=$(grep -c "^$check: " "$tmp/mismatch")
		fail "drmtop-fdinfo-$check" \
			"$n mismatch(es): $(grep "^$check: " "$tmp/mismatch" | head -n 3 | tr '\n' ';')"
	else
		pass "drmtop-fdinfo-$check"
	fi
done
if grep -qv '^\(clients\|once\|holders\|window\|busy\|memory\|info\): ' "$tmp/mismatch"; then
	fail drmtop-fdinfo-compare "$(head -n 3 "$tmp/mismatch" | tr '\n' ';')"
fi

# With fdinfo_scale_pct=150 every engine busy enough for 1.5x to stand out must be flagged,
# and nothing but busy %.
if [ $lie_rc -eq 0 ]; then
	compare_drmtop "$tmp/drmtop-lie.jsonl" "$tmp/mismatch-lie"
	caught=$(grep -c '^busy: ' "$tmp/mismatch-lie")
	missed=$(sed -n 's/^info: .*, truth \([0-9.]*\) %$/\1/p' "$tmp/mismatch-lie" |
		awk '$1 >= 6 { n++ } END { print n + 0 }')
	other=$(grep -cv '^\(busy\|info\): ' "$tmp/mismatch-lie")
	if [ "$caught" -gt 0 ] && [ "$missed" -eq 0 ] && [ "$other" -eq 0 ]; then
		pass drmtop-fdinfo-check-catches-misreport
	else
		fail drmtop-fdinfo-check-catches-misreport \
			"fdinfo_scale_pct=150: $caught flagged, $missed busy engines missed, $other other mismatches"
	fi
else
	fail drmtop-fdinfo-check-catches-misreport "drmtop with fdinfo_scale_pct=150 failed"
fi

# The scenario must really share: a client held by two processes (fork), one held by two fds
# of one process (dup), and streams that put every engine to work.
shape=$(jq -r '[.clients[] | select(.probe | not)] as $c
	| [($c | map(select((.pids | length) == 2 and (.holders | map(.how) | index("fork"))))
		| length > 0),
	   ($c | map(select((.pids | length) == 1 and (.holders | map(.how) | index("dup"))))
		| length > 0),
	   ([$c[].phases[] | select(.kind == "stream") | .engine] | unique | length)] | join(" ")' \
	"$tmp/record.json")
if [ "$shape" = "true true 3" ]; then
	pass drmtop-fdinfo-scenario-shares
else
	fail drmtop-fdinfo-scenario-shares \
		"fork-shared, dup-shared clients and busy engines: '$shape', expected 'true true 3'"
fi

# A saturated engine: one client with ten 1 s gfx jobs queued at once (one runs at a time).
# Its figure reads a little over 100 % from the timing of the reads alone (the driver's interval
# may be longer than drmtop's by a read's duration): never flagged over 100 %, on the client's
# engine or the device's (it was in about half the frames). A driver claiming 4 % more is
# flagged in a frame.
mkdir -p "$tmp/sat"
if wl_start "$tmp/sat" -s "proc sat; open a; submit a engine=gfx dur=1s count=10 wait=none; hold"
then
	sleep 0.5
	"$DRMTOP" --source fdinfo -J -d 1 -n 3 >"$tmp/sat.jsonl" 2>"$tmp/sat.err"
	sat_rc=$?
	few_rc=1
	if echo 104 >"$scale"; then
		"$DRMTOP" --source fdinfo -J -d 1 -n 2 >"$tmp/few.jsonl" 2>>"$tmp/sat.err"
		few_rc=$?
	fi
	echo "$old_scale" >"$scale"
	wl_stop >/dev/null
	gfx='.clients[] | select(.comm == "sat") | .engines[] | select(.name == "gfx")'
	over_all='[.[] | (.clients[].engines[], .devices[].engines[]) | select(.over_100)]'
	sat=$(jq -s "[.[] | $gfx | .busy_pct // 0] | min" "$tmp/sat.jsonl" 2>/dev/null)
	flagged=$(jq -s "$over_all | length" "$tmp/sat.jsonl" 2>/dev/null)
	echo "saturated gfx: $(jq -s -c "[.[] | $gfx | .busy_pct]" "$tmp/sat.jsonl" 2>&1)"
	if [ $sat_rc -eq 0 ] && awk -v s="$sat" 'BEGIN { exit !(s >= 99) }' &&
		[ "$flagged" = 0 ]; then
		pass drmtop-fdinfo-saturated-not-over
	else
		fail drmtop-fdinfo-saturated-not-over "exit $sat_rc, gfx at least $sat % (saturated:
			>= 99), flagged: $(jq -s -c "$over_all" "$tmp/sat.jsonl" 2>&1 | head -c 300)"
	fi
	few=$(jq -s "[.[] | $gfx | select(.over_100)] | length" "$tmp/few.jsonl" 2>/dev/null)
	if [ $few_rc -eq 0 ] && [ "${few:-0}" -gt 0 ]; then
		pass drmtop-fdinfo-few-pct-over-flagged
	else
		fail drmtop-fdinfo-few-pct-over-flagged "fdinfo_scale_pct=104: exit $few_rc: $(jq -s \
			-c "[.[] | $gfx | [.busy_pct, .over_100]]" "$tmp/few.jsonl" 2>&1 | head -c 300)"
	fi
else
	fail drmtop-fdinfo-saturated-workload "$WL_WHY"
fi

wl_keep_on_failure "$tmp" 30-drmtop-fdinfo
[ "$case_fails" -eq 0 ]
