#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The tracer's maps made tiny with drmtop --bpf-map: every insert a full map refuses is counted
# exactly, shown in JSON's missed figures, the client whose figures are short is marked as a
# lower bound in the frames where it happened, and nothing is charged to anyone else.
#   handles=4: one client makes 10 buffers of 64 KiB: 4 tracked, 6 in handles_full;
#   jobs=2: the same client queues 8 copy jobs of 300 ms at once (copy runs one at a time):
#   the first two are tracked, the 6 queued behind them in jobs_full. A job the kernel's run or
#   done event names (6.17+) may still be accounted from that event, never more than 8.
#   timelines=2: jobs on gfx, compute and copy in turn (three execution units, one at a time):
#   the LRU map keeps two, each new unit makes room; the reader counts what it dropped
#   (timelines_evicted: every timeline made, minus the one or two still there), and as every
#   unit is idle when its next job comes, the jobs and their time are all there.
# The live view and CSV show the same losses: the TUI's loss line (what was missed, of which
# kinds) in every frame once the tracer missed something, the short client's SRC marked "?";
# CSV's lower_bound and bpf_missed columns.
# And --bpf-map with a value the kernel would refuse is rejected before anything loads.
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
wl_require bpf-small-maps-setup
[ -x "$DRMTOP" ] || { fail bpf-small-maps-setup "$DRMTOP not built"; exit 1; }
d=$(mktemp -d)
sock=/tmp/tmux-49.$$	# not in $d, which is kept after a failure
trap 'tmux -S "$sock" kill-server 2>/dev/null; wl_stop >/dev/null 2>&1; wl_keep_on_failure "$d" 49;
	rm -rf "$d"' EXIT
screen() { tmux -S "$sock" capture-pane -p; }

check() {
	if jq -e -s "$2" "$d/top.all" >/dev/null 2>&1; then
		pass "bpf-small-maps-$1"
	else
		fail "bpf-small-maps-$1" "$(jq -c -s "${3:-.[-1].bpf.counters}" "$d/top.all" 2>&1 |
			head -c 600)"
	fi
}

# start_top ARGS...: drmtop -J --source bpf ARGS in the background into a new $d/top.all (the
# previous one moved aside), once it printed its first frame (the tracer attached).
start_top() {
	[ ! -e "$d/top.all" ] || mv -f "$d/top.all" "$d/top.all.prev"
	drmtop_bg "$d/top.all" "$d/top.err" -J -d 1 --source bpf "$@"
	top=$TOP_PID
}

# The live view and CSV beside the JSON run, with the same maps (each drmtop its own tracer).
tmux -S "$sock" new-session -d -x 200 -y 40 \
	"$DRMTOP -d 1 --bpf-map handles=4 --bpf-map jobs=2; echo EXITED; sleep 600"
_t=0
until screen | grep -q 'source: fdinfo + BPF' || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done
# (the CSV one runs until the JSON one ended: with a count of its own it could end before the
# JSON one's tracer loaded and the workload ran)
drmtop_bg "$d/top.csv" "$d/csv.err" -o csv -d 1 --bpf-map handles=4 --bpf-map jobs=2
csv_top=$TOP_PID
start_top -n 14 --bpf-map handles=4 --bpf-map jobs=2
if ! wl_start "$d" -s "proc small; open a; bo a b size=64K count=10;
	submit a engine=copy dur=300ms count=8 wait=end; hold" >"$d/why"; then
	fail bpf-small-maps-workload "$(cat "$d/why")"
	exit 1
fi
wait "$top"
screen >"$d/screen"
tmux -S "$sock" send-keys q
kill -TERM "$csv_top"
wait "$csv_top"
wl_stop >/dev/null
echo "frames: $(wc -l <"$d/top.all")"
cat "$d/screen"
if grep -Eq '^bpf missed [0-9]+ events since start, [0-9]+ in the last interval' "$d/screen" &&
	grep -q 'handles_full 6 (' "$d/screen" && grep -q 'jobs_full 6 (' "$d/screen" &&
	awk '$3 == "small"' "$d/screen" | grep -q 'F+B?'; then
	pass bpf-small-maps-tui-loss-line
else
	fail bpf-small-maps-tui-loss-line "$(head -n 8 "$d/screen" | tr '\n' ';')"
fi
# CSV, by the header's names: the client marked (its last row, after the losses), the frame's
# losses on every row.
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ last = $(col["bpf_missed"]); if ($(col["bpf_missed"]) == "") empty = 1 }
	$(col["comm"]) == "small" { lb = $(col["lower_bound"]) }
	END { exit !(lb == "1" && !empty && last >= 12) }' "$d/top.csv"; then
	pass bpf-small-maps-csv-loss-columns
else
	fail bpf-small-maps-csv-loss-columns "$(head -n 1 "$d/top.csv"; grep small "$d/top.csv" |
		tail -n 2)"
fi
jq -c '{t: .time_ns, missed: .bpf.missed, small: [.clients[] | select(.comm == "small") |
	.bpf]}' "$d/top.all" | tail -n 4

check handles-full '.[-1].bpf.counters.handles_full == 6'
check jobs-full '.[-1].bpf.counters.jobs_full == 6'
check missed-since-start '.[-1].bpf.missed.since_start >= 12' '.[-1].bpf.missed'
small='[.[-1].clients[] | select(.comm == "small")][0]'
check interval-loss-marked \
	'any(.[]; .bpf.missed.interval > 0 and
		any(.clients[]; .comm == "small" and .bpf.lower_bound == true))' \
	'[.[] | {m: .bpf.missed, lb: [.clients[] | select(.comm == "small") | .bpf.lower_bound]}]'
# long after the losses, the client's own count keeps it a lower bound, and its memory,
# short by the 6 buffers the map refused, is no accusation against the driver
check client-missed "$small.bpf.missed == 12" "$small.bpf"
check lasting-lower-bound "$small.bpf.lower_bound == true and .[-1].bpf.missed.interval == 0" \
	"{c: $small.bpf, m: .[-1].bpf.missed}"
check mem-inconclusive "$small.bpf.memory.diverged == false and $small.bpf.inconclusive == true" \
	"$small.bpf"
check mem-tracked-handles \
	"$small.bpf.memory.total_bytes == 262144" "$small.bpf"
check jobs-bounded \
	"$small.bpf.engines | map(select(.name == \"copy\")) | .[0].jobs as \$j |
		\$j >= 2 and \$j <= 8" "$small.bpf"
# only counted jobs are charged: 300 ms each (and at most the completion lag more)
check busy-only-counted-jobs \
	"$small.bpf.engines | map(select(.name == \"copy\")) | .[0] |
		.busy_ns >= .jobs * 300000000 and .busy_ns <= .jobs * 400000000" "$small.bpf"

start_top -n 8 --bpf-map timelines=2
if ! wl_start "$d" -s "proc lanes; open a;
	submit a engine=gfx dur=100ms count=1 wait=end; submit a engine=compute dur=100ms count=1 wait=end;
	submit a engine=copy dur=100ms count=1 wait=end; submit a engine=gfx dur=100ms count=1 wait=end;
	submit a engine=compute dur=100ms count=1 wait=end; submit a engine=copy dur=100ms count=1 wait=end;
	hold" >"$d/why"; then
	fail bpf-small-maps-lanes-workload "$(cat "$d/why")"
	exit 1
fi
wait "$top"
wl_stop >/dev/null
lanes='[.[-1].clients[] | select(.comm == "lanes")][0]'
check timelines-evicted '.[-1].bpf.counters as $k | $k.timelines >= 3 and
	$k.timelines_evicted >= $k.timelines - 2 and $k.timelines_evicted <= $k.timelines - 1'
check timelines-jobs-all-there "$lanes.bpf.engines | map(.jobs) | add == 6" "$lanes.bpf"
check timelines-busy-all-there "$lanes.bpf.engines | map(.busy_ns) | add >= 600000000" \
	"$lanes.bpf"

for bad in handles=0 ringbuf=1000 nosuch=4 timelines=0; do
	out=$("$DRMTOP" -J -n 1 --bpf-map "$bad" 2>&1)
	rc=$?
	case $rc:$out in
	2:*"invalid --bpf-map '$bad'"*) pass "bpf-small-maps-rejects-$bad" ;;
	*) fail "bpf-small-maps-rejects-$bad" "exit $rc: $out" ;;
	esac
done
