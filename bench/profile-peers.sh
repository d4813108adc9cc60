#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# profile-peers.sh: where a refresh of drmtop's live view --source fdinfo goes, beside igt's
# gputop, at the bench's peers point (2,000 processes, 100 clients): the system calls each makes
# in the same 12 s (strace -c -f), and a perf profile of drmtop's (cpu-clock: TCG has no PMU).
# A guest script, after make bench has built build/bench and put gputop in the sid chroot:
#   tests/vm/run-in-vm.sh --kernel 6.1.0-57-amd64 --timeout 900 -- sh bench/profile-peers.sh
# Writes drmtop.strace, gputop.strace, perf.txt (by symbol, kernel and user) and perf.dso
# under $VM_RESULTS/profile (build/vm/run/<release>/profile on the host). Not part of any
# test; docs/PERFORMANCE.md quotes its output with the run's date.
set -u
B=build/bench
O=${VM_RESULTS:-/tmp}/profile
ROOT=$(pwd -P)/build/sid
rm -rf "$O" && mkdir -p "$O" || exit 1
for t in strace perf "$B/bench-spawn" "$B/bench-tui" "$ROOT/usr/bin/gputop"; do
	command -v "$t" >/dev/null 2>&1 || [ -x "$t" ] ||
		{ echo "profile-peers: no $t (make bench first; strace and perf on the host)" >&2; exit 1; }
done
NODE=/dev/dri/renderD$(sed -n 's/.*render_minor=\([0-9]*\).*/\1/p' /sys/kernel/debug/simgpu/device)
"$B/bench-spawn" -D "$NODE" -p 2000 -c 100 >"$O/spawn.out" 2>&1 &
spawn=$!
i=0
until grep -q ready "$O/spawn.out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -ge 600 ] || ! kill -0 $spawn 2>/dev/null; then
		echo "profile-peers: bench-spawn: $(cat "$O/spawn.out")" >&2
		exit 1
	fi
	sleep 1
done
gputop="unshare --mount sh -c 'mount -t proc proc $ROOT/proc && mount --rbind /sys $ROOT/sys &&
	mount --rbind /dev $ROOT/dev && exec chroot $ROOT /usr/bin/gputop -d 1'"
strace -c -f -o "$O/drmtop.strace" "$B/bench-tui" -w 2 -s 10 -- \
	build/drmtop -d 1 --source fdinfo >"$O/drmtop.tui" 2>&1
eval "strace -c -f -o \"$O/gputop.strace\" \"$B/bench-tui\" -w 2 -s 10 -- $gputop" \
	>"$O/gputop.tui" 2>&1
perf record -q -F 499 -g -o "$O/perf.data" -- "$B/bench-tui" -w 2 -s 15 -- \
	build/drmtop -d 1 --source fdinfo >"$O/perf.tui" 2>&1
perf report -i "$O/perf.data" --no-children --sort dso,sym --stdio 2>/dev/null |
	grep '%' | head -80 >"$O/perf.txt"
perf report -i "$O/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null |
	grep '%' >"$O/perf.dso"
kill $spawn
wait $spawn
echo "profile-peers: drmtop.strace gputop.strace perf.txt perf.dso in $O"
