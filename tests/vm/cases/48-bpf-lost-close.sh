#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A reader that falls behind: bpfdump takes no snapshot while 2048 clients open, run a job and
# close, so their close records overflow the drain thread's queue, made 256 records here for the
# test (--close-queue; drmtop's holds 32,768), and are lost (ringbuf_full). Once it reads
# again, the clients whose record came are closed clients; the others are orphans, settled after
# the grace period (5 s, 2 snapshots): each reported once (never also as closed), with its
# engine figures, counted in orphan_engines. Every job lands exactly once (closed + orphans ==
# simgpu's completed), and the busy time is all there: at least the jobs' simulated time, at
# most that plus the completion interrupts' lag (under TCG it dwarfs 100 us jobs, and the tracer
# ends a job at its hardware fence's timestamp), nothing else lost.
. tests/bpf/guest-lib.sh
bl_init 48-bpf-lost-close
# The 32 processes run one after another (a parent forks each and waits for it): with them all
# at once, a kernel that skips a preempted tracer program's runs on the same CPU (7.x) skips
# most of the open and close hooks, and the close records this case must overflow the ring
# buffer with are never sent.
{
	echo "proc bursts"
	i=0
	while [ $i -lt 32 ]; do
		printf '  fork burst\n  join\n'
		i=$((i + 1))
	done
	cat <<'SCEN'
proc burst child
  open c count=64
  submit c engine=copy dur=100us count=1 wait=end
  exit
SCEN
} >"$BL/scenario"
bl_truth_baseline
touch "$BL/pause"
"$BPFDUMP" -i 100 --ready "$BL/bpf.ready" --stop "$BL/bpf.stop" --pause "$BL/pause" \
	--close-queue 256 \
	>"$BL/bpf.json" 2>"$BL/bpf.err" &
bl_bpf_pid=$!
if ! bl_wait_file "$BL/bpf.ready" 30; then
	fail "$bl_name-bpf-start" "bpfdump not ready in 30 s: $(head -c 300 "$BL/bpf.json")"
	bl_end
fi
pass "$bl_name-bpf-start"
bl_run_workload_fg -f "$BL/scenario"
bl_quiesce 30
rm -f "$BL/pause"
# the grace period is 5 s and 2 snapshots; then each orphan is reported and its entry deleted
sleep 8
bl_truth
touch "$BL/bpf.stop"
wait "$bl_bpf_pid"
bl_bpf_pid=
bl_jq_checks '
	[r.clients[] | select(.probe | not)] as $rcs |
	[$rcs[] | .client_id] as $ids |
	[b.closed[] | select(.kind == "user" and .driver == "simgpu" and .comm == "burst")] as $cl |
	[b.orphans[]] as $orph |
	def jobs($cs): [$cs[] | .engines[] | select(.name == "copy") | .jobs] | add // 0;
	def busy($cs): [$cs[] | .engines[] | select(.name == "copy") | .busy_ns] | add // 0;
	def copy($T): [$T.engines[] | select(.name == "copy")][0];
	copy(t) as $e1 | copy($truth0[0]) as $e0 |
	($e1.completed - $e0.completed) as $tjobs | ($e1.busy_ns - $e0.busy_ns) as $tbusy |
	($e1.irq_lag_total_ns - $e0.irq_lag_total_ns) as $lag |
	(busy($cl) + busy($orph)) as $bbusy |
	check("records-lost"; b.counters.ringbuf_full > 0;
		"ring buffer never full: the case needs lost close records"),
	check("orphans-found"; ($orph | length) > 0 and ($orph | length) <= b.counters.ringbuf_full;
		"\($orph | length) orphans, \(b.counters.ringbuf_full) records lost"),
	check("orphans-counted"; b.counters.orphan_engines == ([$orph[] | .engines | length] | add);
		"orphan_engines \(b.counters.orphan_engines)"),
	check("orphans-flagged"; all($orph[]; .closed and .orphan and .driver == "" and .mem_total == 0);
		"\([$orph[] | {uid, closed, orphan, driver, mem_total}] | .[0:3])"),
	check("each-client-once"; ($cl | length) + ($orph | length) == ($rcs | length) and
		([$cl[] | .uid] - [$orph[] | .uid] | length) == ($cl | length);
		"\($cl | length) closed + \($orph | length) orphans, workload opened \($rcs | length)"),
	check("every-job-once"; jobs($cl) + jobs($orph) == $tjobs and $tjobs == ($rcs | length);
		"closed \(jobs($cl)) + orphans \(jobs($orph)) jobs, simgpu completed \($tjobs)"),
	check("busy"; $bbusy >= $tbusy - $tolns and $bbusy <= $tbusy + $lag + $tolns;
		"closed \(busy($cl)) + orphans \(busy($orph)) ns, simgpu \($tbusy) ns + lag \($lag)"),
	([b.counters | to_entries[] | select((.key | test("_full$|mem_underflow")) and
		.key != "ringbuf_full" and .value != 0)]) as $bad |
	check("nothing-else-lost"; ($bad | length) == 0; "\($bad)")'
bl_end
