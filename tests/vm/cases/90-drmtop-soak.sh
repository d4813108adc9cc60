#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: counts, floors and exact jobs; the churn's pace does not matter
# case-timeout: 600
#
# Churn soak: short-lived simgpu clients come and go for SOAK_SECONDS (60 by default; the
# vm-soak stage of make test runs 600 on 6.12) under two drmtops with the tracer attached, the
# live JSON stream (drmtop -J -d 1, the mode meant to run all day) and a record. Round after
# round the workload runs processes that each open three clients one after the other (a dup'd
# one among them), make, free and leave buffers, run jobs on every engine and close, and a
# client shared with a forked child.
# Every SAMPLE seconds (SOAK_SECONDS / 30, 2 to 10) the case prints a sample: each drmtop's
# VmRSS, the stream's heap (malloc's own count of bytes in use, tests/vm/heapwatch.c, the lowest
# since the previous sample: between two refreshes) and the entry count of each BPF hash map of
# either (bpftool map dump of the ids in the process's own fdinfo; exact when nothing changes,
# give or take the clients alive at that moment under churn). It fails if
#  - the stream's heap over the last third of the churn never comes down to its peak over the
#    first third plus SOAK_HEAP_SLACK_KIB (64 KiB; the floor moves by ~2 KiB between samples):
#    a leak of 64 bytes per client does not fit in that over a third of a 600 s run (~1300).
#    The reader's index of its last 4096 closed clients grows until they have come, so the
#    first third reaches at least that far; a churn too short to leave a last third after it
#    (90 s) is not judged on its heap, and says so;
#  - the stream's RSS over the last third exceeds its peak over the first third by more than
#    SOAK_RSS_SLACK_KIB (768 KiB): the tracer reader's ring of the last 4096 closed clients
#    (640 KiB, 160 bytes each) is allocated at once but its pages are touched as it first fills,
#    which takes about 4096 clients; malloc's arenas get the rest;
#  - any map of either drmtop never comes down, over the last third, to its peak over the first
#    third plus SOAK_MAP_SLACK (16) entries: what the map holds at a sample is the clients alive
#    then and, for engines, the closed ones' entries the reader deletes two refreshes later,
#    0 to 32 entries that vary with the moment (peaks compared with peaks failed on a 60 s run
#    whose first third held one sample), while a leak raises the floor: one entry per 40
#    clients lifts it by ~30 over a third of a 600 s run;
#  - once the churn has stopped and the tracer drained, any map holds more entries than before
#    the churn started (idle level, no slack); an LRU map (timelines: one per exec queue on the
#    fw personality, nothing deletes them) is held to its size instead;
#  - the record grows by more than SOAK_REC_BYTES (4096) per client it recorded: it keeps every
#    client by design, so its RSS follows the clients, not the time;
#  - any client of the workload's records is missing from the record's totals, or there more or
#    less than once, not closed, or with other job counts; or the tracer lost anything but
#    what the kernel skipped (a full map or ring buffer, an orphan: none; on 7.x, PREEMPT_LAZY,
#    the kernel skips a tracer program now and then, which is counted and shown: the stream's
#    missed figure must be exactly the skipped runs not made up for plus the loss counters
#    such a skip causes, each no more than those runs).
# With SOAK_SERVE=1 (make soak-long: an hour on the firmware-scheduled personality) a third
# drmtop, the exporter (serve -d 1, scraped every sample), runs beside them: its RSS and its maps
# are held to the stream's bounds, and its series count, labelled by comm, must stay within
# SOAK_SERIES_SLACK (8) of the first third's peak over the last third whatever the churn.
# Runs in the test VM from the repository root (tests/vm/run-suite.sh).
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
SOAK_SECONDS=${SOAK_SECONDS:-60}
SAMPLE=$((SOAK_SECONDS / 30))
[ "$SAMPLE" -lt 2 ] && SAMPLE=2
[ "$SAMPLE" -gt 10 ] && SAMPLE=10
RSS_SLACK_KIB=${SOAK_RSS_SLACK_KIB:-768}
HEAP_SLACK_KIB=${SOAK_HEAP_SLACK_KIB:-64}
HEAPWATCH=${HEAPWATCH:-build/tests/heapwatch.so}
MAP_SLACK=${SOAK_MAP_SLACK:-16}
REC_BYTES=${SOAK_REC_BYTES:-4096}
SERVE=${SOAK_SERVE:-0}
SERIES_SLACK=${SOAK_SERIES_SLACK:-8}
SPORT=9479

wl_require drmtop-soak-setup
tools="$DRMTOP bpftool"
[ "$SERVE" = 1 ] && tools="$tools curl"
for tool in $tools; do
	command -v "$tool" >/dev/null || { fail drmtop-soak-setup "$tool not found"; exit 1; }
done
[ -r "$HEAPWATCH" ] || { fail drmtop-soak-setup "$HEAPWATCH not built"; exit 1; }
tmp=$(mktemp -d)
TOP=
REC=
SRV=
CHURN=
cleanup() {
	for p in $CHURN $TOP $REC $SRV; do kill -KILL "$p" 2>/dev/null; done
	wl_keep_on_failure "$tmp" 90-drmtop-soak
	rm -rf "$tmp"
}
trap cleanup EXIT

# rss PID: VmRSS in KiB (no exec: read is a builtin)
rss() {
	while read -r _k _v _; do
		[ "$_k" = VmRSS: ] && { echo "$_v"; return; }
	done <"/proc/$1/status"
	echo 0
}
# until_file_has FILE PATTERN SECONDS
until_has() {
	_t0=$(now)
	until grep -q "$2" "$1" 2>/dev/null; do
		awk -v t="$(since "$_t0")" -v l="$3" 'BEGIN { exit !(t > l) }' && return 1
		sleep 0.2
	done
}

# Without malloc's per-thread cache, whose parked chunks count as in use (tests/vm/heapwatch.c).
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 HEAPWATCH_FILE=$tmp/heap LD_PRELOAD=$(realpath "$HEAPWATCH") \
	"$DRMTOP" -J -d 1 >"$tmp/top.jsonl" 2>"$tmp/top.err" &
TOP=$!
"$DRMTOP" record -t 86400 -J >"$tmp/rec.json" 2>"$tmp/rec.err" &
REC=$!
if [ "$SERVE" = 1 ]; then
	loopback_up
	"$DRMTOP" serve --listen "127.0.0.1:$SPORT" -d 1 2>"$tmp/srv.err" &
	SRV=$!
fi
# series: the exporter's sample count (lines that are not comments), 0 when it does not answer
series() {
	curl -sf --max-time 10 "http://127.0.0.1:$SPORT/metrics" 2>/dev/null | grep -vc '^#'
}
# No simgpu client yet: the stream's first frame comes at once, when its tracer is attached.
if ! until_has "$tmp/top.jsonl" iteration 300 || ! until_has "$tmp/rec.err" recording 300; then
	fail drmtop-soak-start "not attached in 300 s: $(tail -c 300 "$tmp/top.err" "$tmp/rec.err")"
	exit 1
fi
if [ "$SERVE" = 1 ]; then
	_t=0
	while nseries=$(series); [ "$nseries" -eq 0 ] && [ "$_t" -lt 300 ]; do
		sleep 1
		_t=$((_t + 1))
	done
	if [ "$nseries" -gt 0 ]; then
		pass "drmtop-soak-serve-answers ($nseries series)"
	else
		fail drmtop-soak-serve-answers "no /metrics in 300 s: $(tail -c 300 "$tmp/srv.err")"
		exit 1
	fi
fi
# The heap figures come from inside the stream's drmtop; without them its heap check would
# compare zeros.
if [ "$(awk '$2 > 0' "$tmp/heap" 2>/dev/null | wc -l)" -gt 0 ]; then
	pass "drmtop-soak-heapwatch ($(tail -n 1 "$tmp/heap" | awk '{ print int($2 / 1024) }') KiB in use)"
else
	fail drmtop-soak-heapwatch "no figures from $HEAPWATCH in $tmp/heap"
	exit 1
fi
if head -n 1 "$tmp/top.jsonl" | jq -e '.bpf.active' >/dev/null; then
	pass drmtop-soak-tracer-attached
else
	fail drmtop-soak-tracer-attached "$(head -n 1 "$tmp/top.jsonl" | jq -c .bpf)"
	exit 1
fi

# The hash maps of each drmtop, from its own descriptors: "<who> <id> <name>" (the arrays and
# the ring buffer have a fixed size).
bpftool -j map show >"$tmp/maps.json"
whos="top rec"
[ "$SERVE" = 1 ] && whos="$whos srv"
for who in $whos; do
	case $who in top) p=$TOP ;; rec) p=$REC ;; srv) p=$SRV ;; esac
	cat /proc/"$p"/fdinfo/* 2>/dev/null | awk '
		$1 == "map_type:" { t = $2 }
		$1 == "map_id:" && (t == 1 || t == 5 || t == 9 || t == 10) { print $2 }' | sort -un |
		while read -r id; do
			echo "$who $id $(jq -r --argjson id "$id" '.[] | select(.id == $id) | .name' \
				"$tmp/maps.json")"
		done
done >"$tmp/maps"
sort -k2,2 "$tmp/maps" >"$tmp/maps.byid"
# The LRU hash maps, "<who>-<name> <max_entries>": they keep what nothing deletes (timelines of
# exec queues long gone) until the space is needed, so they are bounded by their size instead.
jq -r '.[] | select(.type == "lru_hash" or .type == "lru_percpu_hash") |
	"\(.id) \(.max_entries)"' "$tmp/maps.json" | sort -k1,1 |
	join -1 2 -2 1 "$tmp/maps.byid" - 2>/dev/null | awk '{ print $2 "-" $3, $4 }' >"$tmp/lru"
awk '{ print "map dump id " $2 }' "$tmp/maps" >"$tmp/dump.batch"
echo "# hash maps: $(awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $1, $3 }' "$tmp/maps")"
if [ "$(awk '$1 == "top"' "$tmp/maps" | wc -l)" -gt 0 ] && [ "$(awk '$1 == "rec"' "$tmp/maps" | wc -l)" -gt 0 ]; then
	pass "drmtop-soak-maps-found ($(wc -l <"$tmp/maps") hash maps)"
else
	fail drmtop-soak-maps-found "$(cat "$tmp/maps")"
	exit 1
fi

# sample PHASE: one line "t=<s> phase=<p> rounds=<n> top_rss=<KiB> top_heap=<KiB> rec_rss=<KiB>
# <who>-<map>=<n>..."
# in $tmp/samples, and in the log.
t0=$(now)
heap_lines=0
sample() {
	_line="t=$(since "$t0") phase=$1 rounds=$(cat "$tmp/rounds.n" 2>/dev/null || echo 0)"
	# the lowest heap figure since the previous sample, in KiB, and where this one ends
	set -- $(awk -v from="$heap_lines" 'NR > from && (m == "" || $2 < m) { m = $2 }
		END { print (m == "" ? 0 : int(m / 1024)), NR }' "$tmp/heap")
	heap_lines=$2
	_line="$_line top_rss=$(rss "$TOP") top_heap=$1 rec_rss=$(rss "$REC")"
	[ "$SERVE" = 1 ] && _line="$_line srv_rss=$(rss "$SRV") srv_series=$(series)"
	_counts=$(bpftool -j batch file "$tmp/dump.batch" 2>"$tmp/dump.err" |
		jq -r '.[] | "\(.command[3]) \(.output | length)"' | sort -k1,1 |
		join -1 2 -2 1 "$tmp/maps.byid" - 2>/dev/null)
	# "<id> <who> <name> <count>"
	_line="$_line $(echo "$_counts" | awk '{ print $2 "-" $3 "=" $4 }' | sort -r | tr '\n' ' ')"
	echo "$_line" >>"$tmp/samples"
	echo "# sample $_line"
}

cat >"$tmp/churn.scen" <<'SCEN'
proc churn count=3 every=30ms
  open a
  bo a keep size=64K
  bo a tmp size=16K
  free a tmp
  submit a engine=gfx dur=1ms count=2 wait=end
  close a
  open b
  dup b c
  bo b x size=8K
  submit c engine=compute dur=1ms wait=end
  close b
  close c
  open d
  bo d y size=4K
  submit d engine=copy dur=1ms wait=end
  exit
proc parent
  open a
  bo a z size=8K
  fork kid
  join
  submit a engine=gfx dur=1ms wait=end
  exit
proc kid child
  submit a engine=compute dur=1ms wait=end
  exit
SCEN
mkdir -p "$tmp/rounds"
# One round first: the tracer learns the device and its rings once (entries that stay, one per
# ring, not per client); the idle level is what is left after it.
"$WL" -o "$tmp/rounds/0.json" -f "$tmp/churn.scen" >"$tmp/rounds/0.out" 2>&1 ||
	echo 0 >>"$tmp/rounds.failed"
wl_settle
sleep 3
sample idle0
sleep 2
sample idle0

(
	end=$(echo "$(now) $SOAK_SECONDS" | awk '{ print $1 + $2 }')
	i=0
	while awk -v e="$end" -v n="$(now)" 'BEGIN { exit !(n < e) }'; do
		i=$((i + 1))
		"$WL" -o "$tmp/rounds/$i.json" -f "$tmp/churn.scen" >"$tmp/rounds/$i.out" 2>&1 ||
			echo "$i" >>"$tmp/rounds.failed"
		echo "$i" >"$tmp/rounds.n"
	done
) &
CHURN=$!
tc0=$(now)
exited() { [ ! -e /proc/"$1"/stat ] || [ "$(cut -d' ' -f3 /proc/"$1"/stat)" = Z ]; }
while ! exited "$CHURN"; do
	sample churn
	sleep "$SAMPLE"
done
wait "$CHURN"
CHURN=
churn_s=$(since "$tc0")
# Settled: simgpu idle, the stream refreshed twice and the record read its ring buffer since.
wl_settle || fail drmtop-soak-settle "simgpu still busy 30 s after the churn"
sleep 3
sample idle1
sleep 2
sample idle1

kill -INT "$REC"
wait "$REC"
rec_rc=$?
REC=
if [ "$SERVE" = 1 ]; then
	kill -TERM "$SRV"
	wait "$SRV"
	srv_rc=$?
	SRV=
	[ "$srv_rc" -eq 0 ] && pass drmtop-soak-serve-exit-0 ||
		fail drmtop-soak-serve-exit-0 "serve $srv_rc: $(tail -c 300 "$tmp/srv.err")"
fi
kill -TERM "$TOP"
wait "$TOP"
top_rc=$?
TOP=
[ "$rec_rc" -eq 0 ] && [ "$top_rc" -eq 0 ] && pass drmtop-soak-exit-0 ||
	fail drmtop-soak-exit-0 "record $rec_rc, stream $top_rc: $(tail -c 300 "$tmp/rec.err" "$tmp/top.err")"

rounds=$(cat "$tmp/rounds.n" 2>/dev/null || echo 0)
jq -s '[.[] | .clients[] | select(.probe | not)]' "$tmp"/rounds/*.json >"$tmp/wl.json" 2>"$tmp/wl.err"
nwl=$(jq length "$tmp/wl.json" 2>/dev/null || echo 0)
nfail=$(wc -l <"$tmp/rounds.failed" 2>/dev/null || echo 0)
echo "# churn: $rounds rounds, $nwl clients in ${churn_s} s"
[ "$nfail" -eq 0 ] && [ "$nwl" -gt 0 ] &&
	[ "$(jq -s 'all(.ok)' "$tmp"/rounds/*.json)" = true ] &&
	pass "drmtop-soak-workload ($rounds rounds, $nwl clients)" ||
	fail drmtop-soak-workload "$nfail of $rounds rounds failed: $(cat "$tmp/rounds.failed" 2>/dev/null |
		head -n 1 | xargs -I{} tail -n 3 "$tmp/rounds/{}.out")"

# --- Growth: the samples, as "<key> <phase> <t> <value>" rows. --------------------------------
awk '{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	for (i = 4; i <= NF; i++) { split($i, kv, "="); print kv[1], f["phase"], f["t"], kv[2] }
}' "$tmp/samples" >"$tmp/rows"
echo "# samples: $(grep -c . "$tmp/samples") (every ${SAMPLE} s), churn ${churn_s} s; per value:" \
	"idle before | first third's peak | last third's peak | idle after"
# summary KEY: "<idle before> <first third's peak> <last third's peak> <idle after> <last third's
# lowest>" of the churn samples (thirds by time).
summary() {
	awk -v k="$1" '$1 == k && $2 == "churn" { t[++n] = $3; v[n] = $4 }
		$1 == k && $2 == "idle0" { i0 = $4 } $1 == k && $2 == "idle1" { i1 = $4 }
		END {
			if (n < 3) { print "few"; exit }
			lo = t[1]; hi = t[n]; a = lo + (hi - lo) / 3; b = hi - (hi - lo) / 3
			for (j = 1; j <= n; j++) {
				if (t[j] <= a && v[j] > f) f = v[j]
				if (t[j] >= b && v[j] > l) l = v[j]
				if (t[j] >= b && (lmin == "" || v[j] < lmin)) lmin = v[j]
			}
			print i0 + 0, f + 0, l + 0, i1 + 0, lmin + 0
		}' "$tmp/rows"
}
# heap_reference: "<peak KiB> <last third's lowest KiB> <until s>" of the stream's heap, the
# peak over the first third or until the reader's ring of 4096 closed clients is full if later
# (clients: rounds times the clients of round 0); "short <s>" when no last third is left after.
per_round=$(jq '[.clients[] | select(.probe | not)] | length' "$tmp/rounds/0.json" 2>/dev/null || echo 0)
heap_reference() {
	awk -v per="$per_round" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["phase"] != "churn") next
		t[++n] = f["t"]; v[n] = f["top_heap"]
		if (full == "" && f["rounds"] * per >= 4096) full = f["t"]
	} END {
		lo = t[1]; hi = t[n]; a = lo + (hi - lo) / 3; b = hi - (hi - lo) / 3
		if (full == "" || full > a) a = full == "" ? hi : full
		if (a >= b) { print "short", (full == "" ? "never" : "at " full " s"); exit }
		for (j = 1; j <= n; j++) {
			if (t[j] <= a && v[j] > p) p = v[j]
			if (t[j] >= b && (m == "" || v[j] < m)) m = v[j]
		}
		print p + 0, m + 0, a
	}' "$tmp/samples"
}
for key in $(awk '{ print $1 }' "$tmp/rows" | sort -u); do
	set -- $(summary "$key")
	if [ "$1" = few ]; then
		fail "drmtop-soak-$key" "fewer than 3 samples during the churn"
		continue
	fi
	echo "#   $key: $1 | $2 | $3 | $4 (last third's lowest $5)"
	case $key in
	top_heap)
		set -- $(heap_reference)
		if [ "$1" = short ]; then
			shift
			echo "# drmtop-soak-stream-heap not judged: the reader's 4096 closed clients" \
				"came $* in ${churn_s} s of churn, no last third after that"
			continue
		fi
		[ "$2" -le $(($1 + HEAP_SLACK_KIB)) ] &&
			pass "drmtop-soak-stream-heap-bounded ($1 KiB peak up to $3 s, down to $2 KiB in the last third)" ||
			fail drmtop-soak-stream-heap-bounded "$1 KiB at most up to $3 s, never under $2 KiB over the last third (slack $HEAP_SLACK_KIB KiB)" ;;
	top_rss | srv_rss)
		[ "$3" -le $(($2 + RSS_SLACK_KIB)) ] &&
			pass "drmtop-soak-$key-bounded ($2 KiB first third, $3 KiB last third)" ||
			fail "drmtop-soak-$key-bounded" "$2 KiB over the first third, $3 KiB over the last (slack $RSS_SLACK_KIB KiB)" ;;
	srv_series)
		[ "$5" -gt 0 ] && [ "$3" -le $(($2 + SERIES_SLACK)) ] &&
			pass "drmtop-soak-series-bounded ($2 at most over the first third, $3 over the last)" ||
			fail drmtop-soak-series-bounded "$2 series at most over the first third, $3 over the last, lowest $5 (slack $SERIES_SLACK)" ;;
	rec_rss)
		per=$(( ($4 - $1) * 1024 / (nwl > 0 ? nwl : 1) ))
		[ "$per" -le "$REC_BYTES" ] &&
			pass "drmtop-soak-record-rss-per-client ($1 -> $4 KiB, $per bytes per client)" ||
			fail drmtop-soak-record-rss-per-client "$1 -> $4 KiB for $nwl clients: $per bytes each (at most $REC_BYTES)" ;;
	*)
		lru_max=$(awk -v k="$key" '$1 == k { print $2 }' "$tmp/lru")
		if [ -n "$lru_max" ]; then
			[ "$3" -le "$lru_max" ] && [ "$4" -le "$lru_max" ] &&
				pass "drmtop-soak-$key-within-lru-size ($1 before, $3 at most in the last third, $4 after, LRU of $lru_max)" ||
				fail "drmtop-soak-$key-within-lru-size" "$3 during, $4 after, LRU of $lru_max"
			continue
		fi
		[ "$5" -le $(($2 + MAP_SLACK)) ] &&
			pass "drmtop-soak-$key-bounded ($2 at most over the first third, down to $5 in the last)" ||
			fail "drmtop-soak-$key-bounded" "$2 entries at most over the first third, never under $5 over the last (slack $MAP_SLACK)"
		[ "$4" -le "$1" ] &&
			pass "drmtop-soak-$key-back-to-idle ($1 before, $4 after)" ||
			fail "drmtop-soak-$key-back-to-idle" "$1 entries before the churn, $4 after it stopped" ;;
	esac
done

# --- Every client of the workload in the record's totals, once, closed, with its jobs. --------
jq -n -c --slurpfile wl "$tmp/wl.json" --slurpfile rec "$tmp/rec.json" '
	# personality=fw names each queue after its class and id (rcs<n> runs the gfx engine)
	def engine: if test("^(rcs|ccs|bcs)[0-9]+$")
		then sub("[0-9]+$"; "") | {rcs: "gfx", ccs: "compute", bcs: "copy"}[.] else . end;
	def jobs: [.[] | select(.jobs > 0) | {(.name | engine): .jobs}] | add // {};
	($rec[0].clients | map(select(.bpf != null and .bpf.kernel == false))
	 | group_by(.bpf.tgid) | map({key: (.[0].bpf.tgid | tostring), value: .}) | from_entries) as $by
	| [$wl[0][] | . as $w
	   | ($w.engines | to_entries | map(select(.value.jobs > 0) | {(.key): .value.jobs}) | add // {}) as $want
	   | [($by[$w.opener_pid | tostring] // [])[] | select(.bpf.closed and
		(if .bpf.client_id then .bpf.client_id == $w.client_id else true end) and
		(.bpf.engines | map({name, jobs}) | jobs) == $want)]
	   | select(length != 1)
	   | {client_id: $w.client_id, opener_pid: $w.opener_pid, want: $want, found: length}]' \
	>"$tmp/missing.json" 2>"$tmp/missing.err"
if [ "$(cat "$tmp/missing.json")" = "[]" ] && [ "$nwl" -gt 0 ]; then
	pass "drmtop-soak-record-every-client ($nwl clients, each once with its jobs)"
else
	fail drmtop-soak-record-every-client "of $nwl: $(head -c 600 "$tmp/missing.json") $(head -c 200 "$tmp/missing.err")"
fi
# Skipped program runs the tracer made up for do not count as missed (README, The tracer); one
# not made up for counts once, and may cause one loss counted on its own (a GEM hook's skipped
# run, a release that then takes more than was held): at most twice the runs skipped.
rb=$(jq -c '.record.bpf' "$tmp/rec.json")
[ "$(jq '.record.bpf.active and .record.bpf.missed <= 2 * .record.bpf.skipped_runs' \
	"$tmp/rec.json")" = true ] &&
	pass "drmtop-soak-record-nothing-missed ($rb)" || fail drmtop-soak-record-nothing-missed "$rb"
# Every frame of the stream whole; the last one: no loss counter above 0, no simgpu client open.
nf=$(jq -c .iteration "$tmp/top.jsonl" 2>/dev/null | wc -l)
[ "$nf" -gt 0 ] && [ "$nf" -eq "$(grep -c . "$tmp/top.jsonl")" ] && [ ! -s "$tmp/top.err" ] &&
	pass "drmtop-soak-stream-frames-whole ($nf frames)" ||
	fail drmtop-soak-stream-frames-whole "$nf of $(grep -c . "$tmp/top.jsonl") frames parse; $(head -c 200 "$tmp/top.err")"
tail -n 1 "$tmp/top.jsonl" >"$tmp/last.json"
# Losses a skipped run can cause, one each: the rest must be 0, and the missed figure is exactly
# the skipped runs not made up for plus these (0 on a kernel that skips nothing). An object whose
# end hooks were both skipped and whose address came back before the reader pruned it is stale
# (an hour of 7.2's churn: 1 of 91,010 clients' objects).
if jq -e '.bpf.missed as $m | .bpf.counters as $k |
	["done_without_run", "ended_without_done", "job_client_unknown", "mem_underflow",
	 "objects_stale"] as $by_skip |
	([$by_skip[] | $k[.] // 0] | add) as $caused |
	([.bpf.loss_counters[] | select(. as $n | $by_skip | index($n) | not) | $k[.] // 0] |
		add // 0) == 0 and
	$caused <= $m.skipped_runs - $m.skipped_runs_covered and
	$m.since_start == $m.skipped_runs - $m.skipped_runs_covered + $caused and
	([.clients[] | select(.driver == "simgpu" and (.bpf.kernel // false) == false)] | length == 0)' \
	"$tmp/last.json" >/dev/null; then
	pass drmtop-soak-stream-nothing-lost
else
	fail drmtop-soak-stream-nothing-lost "$(jq -c '{missed: .bpf.missed, full: [.bpf.counters |
		to_entries[] | select(.value > 0)], open: [.clients[] | select(.driver == "simgpu") | .comm]}' \
		"$tmp/last.json")"
fi
[ "$case_fails" -eq 0 ]
