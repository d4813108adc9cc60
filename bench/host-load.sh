#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# host-load.sh OURS: the host's load without the bench's own VM, for bench/run-bench.sh.
# /proc/loadavg after a run counts the bench's own QEMU (about one busy thread), so it cannot
# say whether others used the host. Every 5 s (the kernel's LOAD_FREQ) this counts the host's
# threads in state R or D (what the load average counts) outside the process tree of PID OURS,
# and keeps the kernel's 1-minute average of that count (load = load * e^(-5/60) + n * (1 -
# e^(-5/60))), seeded with /proc/loadavg's 1-minute figure at its start. Prints one line per
# sample, "<epoch s> <threads counted> <average>", the first at once, until killed.
set -u
ours=$1

# others: the R and D threads of the host outside OURS's tree. A thread's ppid field is its
# process's parent, so a thread is ours when that parent is OURS or one of its descendants (or
# it is OURS).
others() {
	{
		cat /proc/[0-9]*/stat 2>/dev/null | sed 's/^/P /'
		cat /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null | sed 's/^/T /'
	} | awk -v ours="$ours" '
	{
		kind = $1; id = $2
		line = $0; sub(/^.*\) /, "", line)	# past the command name, which may hold ") "
		split(line, f, " ")
		if (kind == "P") { parent[id] = f[2]; pids[++np] = id; next }
		if (f[1] == "R" || f[1] == "D") { tid[++nt] = id; ppid[nt] = f[2] }
	}
	END {
		mine[ours] = 1
		do {	# the descendants of OURS, to a fixed point
			grew = 0
			for (i = 1; i <= np; i++)
				if (!(pids[i] in mine) && (parent[pids[i]] in mine)) { mine[pids[i]] = 1; grew = 1 }
		} while (grew)
		n = 0
		for (i = 1; i <= nt; i++) if (!(ppid[i] in mine) && !(tid[i] in mine)) n++
		print n
	}'
}

avg=$(cut -d ' ' -f 1 /proc/loadavg)
echo "$(date +%s) - $avg"
# Killed, it takes its sleep along (a stage of make test fails if anything outlives it).
s=
trap '[ -n "$s" ] && kill $s 2>/dev/null; exit 0' TERM INT
while :; do
	sleep 5 &
	s=$!
	wait $s
	n=$(others)
	avg=$(awk -v a="$avg" -v n="$n" 'BEGIN { e = exp(-5 / 60); printf "%.3f", a * e + n * (1 - e) }')
	echo "$(date +%s) $n $avg"
done
