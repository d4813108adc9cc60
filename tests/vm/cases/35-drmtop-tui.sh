#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The live view on simgpu, as a person sees it: drmtop's TUI in tmux in the guest while the
# "steady" workload runs (every engine backlogged with jobs of several clients in a fixed
# rotation, one client idle). Every workload client appears once, under the command of its
# lowest pid, with each engine's busy % within TOLERANCE_PCT points of the truth and its memory
# as the workload held it; the filter keeps one process's clients; the detail view lists every
# holder; q restores the terminal. fdinfo only: case 60 covers the tracer.
# The truth is simgpu's own engine time per client (debugfs, sampled every 10 ms by the workload).
# The screen has no time stamp: the frame on it covers one refresh interval (1 s, up to
# FRAME_MAX_S under load) that ended at most FRAME_AGE_S before the read. Under TCG the
# "steady" streams are not steady (one client's share swings from 45 % to 80 % within seconds),
# so no single window stands for the frame: a figure passes when it is within TOLERANCE_PCT
# points of the truth over some window the frame can have covered (every end in the age range,
# 40 ms apart, lengths 1 s to FRAME_MAX_S). Case 30 checks drmtop's figures against their exact
# windows; this one checks that the screen shows those figures, for the right client.
# Runs in the test VM from the repository root (tests/vm/run-suite.sh).
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
TOLERANCE_PCT=${TOLERANCE_PCT:-2}
FRAME_AGE_S=${FRAME_AGE_S:-2}
FRAME_MAX_S=${FRAME_MAX_S:-1.5}

wl_require drmtop-tui-setup
if ! command -v tmux >/dev/null || [ ! -x "$DRMTOP" ]; then
	fail drmtop-tui-setup "tmux or $DRMTOP missing"
	exit 1
fi
tmp=$(mktemp -d)
sock=/tmp/tmux-35.$$	# not in $tmp, which is copied to the results after a failure
trap 'tmux -S "$sock" kill-server 2>/dev/null; wl_stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

screen() { tmux -S "$sock" capture-pane -p; }
# CLOCK_MONOTONIC in ns, the clock of the workload's truth samples.
now_ns() { awk '/^now at/ { print $3; exit }' /proc/timer_list; }
until_screen() {	# PATTERN [TENTHS]: until the screen shows it (default 60 s: TCG is slow)
	_t=0
	while [ $_t -lt "${2:-600}" ]; do
		screen | grep -q -- "$1" && return 0
		sleep 0.1
		_t=$((_t + 1))
	done
	return 1
}

if ! wl_start "$tmp" --sample-truth 10ms steady; then
	fail drmtop-tui-workload "$WL_WHY"
	exit 1
fi
tmux -S "$sock" new-session -d -x 200 -y 40 \
	"S0=\$(stty -g); $DRMTOP --source fdinfo -d 1; echo EXITED \$?;
	 [ \"\$(stty -g)\" = \"\$S0\" ] && echo STTY-SAME; sleep 600"
# Three refreshes in, every rate is over a full interval of the backlogged streams.
until_screen 'PID USER' && sleep 4
screen >"$tmp/screen"
t_read=$(now_ns)
echo "$t_read" >"$tmp/read.ns"	# for the post-mortem of a failure
# Rows as JSON: the header's words name the fields (engines included), a row starts with a pid.
awk '{
	if ($1 == "PID") { for (i = 1; i <= NF; i++) name[i] = $i; hdr = 1; next }
	if (!hdr || $1 !~ /^[0-9]+$/) next
	printf "{"
	for (i = 1; i <= NF && name[i] != "HISTORY"; i++)
		printf "%s\"%s\":\"%s\"", (i > 1 ? "," : ""), name[i], $i
	print "}"
}' "$tmp/screen" | jq -s . >"$tmp/rows.json"

# The filter: the clients of "infer" (c and e, also held by infer-kid) alone.
tmux -S "$sock" send-keys / i n f e r Enter
until_screen 'filter: infer (2 shown)' 300 &&
	[ "$(screen | awk '$1 ~ /^[0-9]+$/ && $3 != "infer"' | wc -l)" -eq 0 ] &&
	pass drmtop-tui-filter || fail drmtop-tui-filter "$(screen | head -n 3)"
# Detail of the first of them, then back; q.
tmux -S "$sock" send-keys Escape P Home Enter
until_screen '^holders (pid/fd): ' 300 && screen >"$tmp/detail" || fail drmtop-tui-detail "no detail view"
tmux -S "$sock" send-keys Escape q
# STTY-SAME comes an exec of stty after EXITED: waited for, not looked for once.
if until_screen 'EXITED 0' 300 && until_screen STTY-SAME 100 &&
	[ "$(tmux -S "$sock" display -p '#{alternate_on}')" = 0 ]; then
	pass drmtop-tui-quit-restores
else
	fail drmtop-tui-quit-restores "$(screen | tail -n 3 | tr '\n' ';')"
fi
ready=$(cat "$tmp/ready.json")
if wl_stop; then
	pass drmtop-tui-workload
else
	fail drmtop-tui-workload "workload failed: $(tail -n 3 "$tmp/stderr" | tr '\n' ';')"
	exit 1
fi

# What the screen should show, from the record: per client its lowest pid's comm, its busy %
# per engine over the window, and its memory in the table's units (tui_fmt_bytes).
jq -r --slurpfile rows "$tmp/rows.json" --argjson tol "$TOLERANCE_PCT" --argjson t "$t_read" \
	--argjson age "$FRAME_AGE_S" --argjson maxlen "$FRAME_MAX_S" '
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
	# The busy % of column $k over every window the frame can have covered: [min, max].
	def span($rows; $times; $k):
		[range(0; $age * 1000 + 1; 40) as $back | ($t - $back * 1000000) as $e
		 | (1, 1.25, $maxlen) as $len | ($e - $len * 1000000000) as $s
		 | at($rows; $times; $k; $e) as $be | at($rows; $times; $k; $s) as $bs
		 | select($be != null and $bs != null) | ($be - $bs) * 100 / ($e - $s)]
		| if length == 0 then null else [min, max] end;
	def pct: . * 100 | round / 100;
	def cell: if . < 1000 then "\(.)B"
		else [., 0] | until(.[0] < 1000; [.[0] / 1024, .[1] + 1])
		| (if .[0] < 9.95 then (.[0] * 10 | round / 10 | tostring
			| if test("\\.") then . else . + ".0" end)
		   else (.[0] | round | tostring) end) + ("BKMGTPE"[.[1]:.[1] + 1]) end;
	(.truth_samples.samples | group_by(.[1])
	 | map({key: (.[0][1] | tostring), value: sort_by(.[0])}) | from_entries) as $truth
	| [.clients[] | select(.probe | not)] as $cl
	| $rows[0] as $r
	| ($cl[] | . as $c
	   | "client \($c.client_id)" as $who
	   | ([$r[] | select(.ID == ($c.client_id | tostring))]) as $m
	   | if ($m | length) != 1 then "once: \($who) shown \($m | length) times"
	     else $m[0] as $row
	     | ($c.holders | min_by(.pid)) as $first
	     | (if $row.PID != ($first.pid | tostring) or $row.COMMAND != ($first.comm[:15])
		then "who: \($who) shown as \($row.PID) \($row.COMMAND), want \($first.pid) \($first.comm)"
		else empty end),
	       (if $row.MEM != ($c.memory.held_bytes | cell)
		then "memory: \($who) MEM \($row.MEM), held \($c.memory.held_bytes | cell)"
		else empty end),
	       (($truth[$c.client_id | tostring] // []) as $rows
		| ($rows | map(.[0])) as $times
		| range(3) as $ei | ["gfx", "compute", "copy"][$ei] as $e
		| span($rows; $times; $ei + 2) as $w
		| ($row[$e] // "-") as $got
		| if $w == null then "busy: \($who) \($e): no truth around \($t)"
		  else "[\($w[0] | pct), \($w[1] | pct)] %" as $range
		  | if $got == "-" or $got == "..." then
			(if $w[0] > $tol then "busy: \($who) \($e): no figure, truth \($range)"
			 else empty end)
		    elif ($got | tonumber) < $w[0] - $tol or ($got | tonumber) > $w[1] + $tol then
			"busy: \($who) \($e): screen \($got) %, truth \($range)"
		    elif $w[1] > 0 then "info: \($who) \($e): screen \($got) %, truth \($range)"
		    else empty end
		  end)
	     end),
	  ($r[] | select(.ID as $i | $cl | map(.client_id | tostring) | index($i) | not)
	   | select(.DEV | test("^renderD|^card"))
	   | "extra: row \(.PID) \(.COMMAND) client \(.ID) is no client of the workload")
' "$tmp/record.json" >"$tmp/mismatch" 2>&1
sed -n 's/^info: /# /p' "$tmp/mismatch"
for check in once who memory busy extra; do
	if grep -q "^$check: " "$tmp/mismatch"; then
		fail "drmtop-tui-$check" "$(grep "^$check: " "$tmp/mismatch" | head -n 3 | tr '\n' ';')"
	else
		pass "drmtop-tui-$check"
	fi
done
grep -qv '^\(once\|who\|memory\|busy\|info\|extra\): ' "$tmp/mismatch" &&
	fail drmtop-tui-compare "$(head -n 3 "$tmp/mismatch" | tr '\n' ';')"

# The detail view's holders are every (pid, fd) the workload opened that client through.
id=$(sed -n 's/^client id \([0-9]*\) .*/\1/p' "$tmp/detail")
want=$(printf '%s\n' "$ready" | jq -r --arg id "$id" \
	'[.open[] | select(.client_id == ($id | tonumber)) | "\(.pid)/\(.fd)"] | sort | join(" ")')
got=$(sed -n 's/^holders (pid\/fd): //p' "$tmp/detail" | tr ' ' '\n' | sort | tr '\n' ' ' |
	sed 's/ $//')
[ -n "$id" ] && [ "$got" = "$want" ] && pass drmtop-tui-detail-holders ||
	fail drmtop-tui-detail-holders "client '$id': screen '$got', workload '$want'"

wl_keep_on_failure "$tmp" 35-drmtop-tui
[ "$case_fails" -eq 0 ]
