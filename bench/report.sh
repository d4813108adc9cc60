#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# report.sh DIR: the tables of one bench run from what bench-guest.sh left in DIR
# (raw.tsv, progs.tsv, scale.json, record.rss, maps.json, full.json, machine).
# Ratios are paired: each round's "on" over the same round's "off" (measured back to back in
# one boot), then the median and range of those per-round ratios. It ends with issue 19's
# targets, each with its figure and "met", "not met", "not judged" or "not measured"
# (bench/judge.sh; BENCH_MAX_LOAD, default 1.0, is the host load above which none is judged).
# A run with a base phase (BENCH_BASE: another revision's drmtop run as "on") has its columns
# and on/base, the same round's on over base; without one the tables are as they always were.
set -u
d=$1
[ -f "$d/raw.tsv" ] || { echo "report: no $d/raw.tsv" >&2; exit 1; }

# The median of a[1..n] (sorted in place), for every table's awk program.
median='
function sortv(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function med(a, n) { sortv(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
'
echo "== machine: $(tr '\n' ';' 2>/dev/null <"$d/machine")"

awk "$median"'
function stat(key,   n, i, a, s) {
	n = 0
	for (i = 1; i <= cnt[key]; i++) a[++n] = v[key, i]
	if (!n) return "-"
	m = med(a, n)
	return sprintf(fmt, m) sprintf(" [" fmt "-" fmt "]", a[1], a[n])
}
# ratio(METRIC, PH[, DEN]): per round PH / DEN (off if not given), median [min-max]
function ratio(metric, ph, den,   n, r, a) {
	if (den == "") den = "off"
	n = 0
	for (r = 1; r <= maxr; r++)
		if ((metric, ph, r) in byr && (metric, den, r) in byr && byr[metric, den, r] > 0)
			a[++n] = byr[metric, ph, r] / byr[metric, den, r]
	if (!n) return "-"
	m = med(a, n)
	return sprintf("%.3f [%.3f-%.3f] n=%d", m, a[1], a[n], n)
}
$1 == "base" && $2 == "rev" { rev = substr($5, 1, 12); next }
$1 == "overhead" && $5 != "" {
	k = $2 SUBSEP $3; v[k, ++cnt[k]] = $5; byr[$2, $3, $4] = $5
	if ($4 > maxr) maxr = $4
	if (!($2 in seen)) { seen[$2] = 1; order[++no] = $2 }
	if (!($3 in phseen)) { phseen[$3] = 1; nph++ }
	if ($3 == "base") base = 1
}
END {
	if (!no) exit
	printf "\n== overhead (median [min-max] over rounds; ratio = per-round phase/off, median [min-max];"
	printf " floor = empty programs on the hooks drmtop attaches, lookup = one hash lookup in each,"
	printf " least = a hash entry made and deleted per GEM object, handle and scheduler entity, a lookup elsewhere)\n"
	if (base) {
		printf "   base = drmtop of %s (BENCH_BASE) run as on, in the same rounds;", rev == "" ? "an unnamed revision" : rev
		printf " on/base = per-round on/base, median [min-max]\n"
		if (maxr % nph)
			printf "   %d rounds are not a multiple of the %d phases: not every phase took every place of the order equally often\n", maxr, nph
	}
	# The base columns go last, so that a run without them prints the table it always did.
	printf "%-19s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %-26s ", "metric",
		"off", "hooks", "on", "floor", "lookup", "least", "hooks/off", "on/off", "floor/off",
		"lookup/off"
	if (base)
		printf "%-26s %-26s %-26s %s\n", "least/off", "base", "base/off", "on/base"
	else
		printf "%s\n", "least/off"
	for (i = 1; i <= no; i++) {
		mt = order[i]
		fmt = "%.0f"
		if (mt == "attach_ms") continue
		printf "%-19s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %-26s ", mt,
			stat(mt SUBSEP "off"), stat(mt SUBSEP "hooks"), stat(mt SUBSEP "on"),
			stat(mt SUBSEP "floor"), stat(mt SUBSEP "lookup"), stat(mt SUBSEP "least"),
			ratio(mt, "hooks"), ratio(mt, "on"), ratio(mt, "floor"), ratio(mt, "lookup")
		if (base)
			printf "%-26s %-26s %-26s %s\n", ratio(mt, "least"), stat(mt SUBSEP "base"),
				ratio(mt, "base"), ratio(mt, "on", "base")
		else
			printf "%s\n", ratio(mt, "least")
	}
	fmt = "%.0f"
	printf "drmtop start to first frame (BPF load+attach), ms: hooks %s, on %s", stat("attach_ms" SUBSEP "hooks"), stat("attach_ms" SUBSEP "on")
	if (base) printf ", base %s", stat("attach_ms" SUBSEP "base")
	printf "\n"
}' "$d/raw.tsv"

# drmtop's own CPU while each loop ran: on this bench's guest (both vCPUs on one host thread)
# all of it comes out of the loop, so it is what "on" costs beyond "hooks".
awk "$median"'
$1 == "drmtop_cpu" && $5 != "" {
	v[$2, $3, ++cnt[$2, $3]] = $5
	if (!($2 in seen)) { seen[$2] = 1; order[++no] = $2 }
	if ($3 == "base") base = 1
}
function fig(k, ph,   n, i, a) {
	n = 0
	for (i = 1; i <= cnt[k, ph]; i++) a[++n] = v[k, ph, i]
	return n ? sprintf("%.0f [%.0f-%.0f] n=%d", med(a, n), a[1], a[n], n) : "-"
}
END {
	if (!no) exit
	printf "\n== drmtop'"'"'s own CPU during each loop, ms per second of the loop (run time of all its threads,\n"
	printf "   schedstat), median [min-max] over rounds\n"
	if (base) {
		printf "%-19s %-26s %-26s %s\n", "metric", "hooks", "on", "base"
		for (i = 1; i <= no; i++)
			printf "%-19s %-26s %-26s %s\n", order[i], fig(order[i], "hooks"),
				fig(order[i], "on"), fig(order[i], "base")
		exit
	}
	printf "%-19s %-26s %s\n", "metric", "hooks", "on"
	for (i = 1; i <= no; i++)
		printf "%-19s %-26s %s\n", order[i], fig(order[i], "hooks"), fig(order[i], "on")
}' "$d/raw.tsv"

if [ -s "$d/progs.tsv" ]; then
	echo
	echo "== per-program cost (kernel.bpf_stats_enabled=1; deltas over each loop)"
	printf '%-16s %-26s %10s %9s %10s %11s %s\n' loop program runs runs/op ns/run bpf_ns/op recursion_misses
	awk '{ printf "%-16s %-26s %10d %9.2f %10.0f %11.0f %s\n", $2, $3, $4, $5, $6, $7, $8
		tot[$2] += $7 }
		END { for (l in tot) printf "%-16s %-26s %10s %9s %10s %11.0f\n", l, "(all programs)", "", "", "", tot[l] }' \
		"$d/progs.tsv"
fi

awk "$median"'
function get(key, want_med,   n, i, a) {
	n = 0
	for (i = 1; i <= cnt[key]; i++) a[++n] = v[key, i]
	if (!n) return ""
	m = med(a, n)
	return want_med ? m : sprintf("%.1f [%.1f-%.1f] n=%d", m, a[1], a[n], n)
}
$1 == "refresh" && $5 != "" {
	k = $2 SUBSEP $3; v[k, ++cnt[k]] = $5; byr[$2, $3, $4] = $5
	if ($2 ~ /^cpu_ms_/) { pt = substr($2, 8); if (!(pt in seen)) { seen[pt] = 1; order[++no] = pt } }
}
END {
	if (!no) exit
	printf "\n== refresh cost: drmtop CPU ms per refresh, median [min-max]; cpu = utime+stime of /proc/PID/stat (10 ms ticks),\n"
	printf "   sched = scheduler run time of all threads (/proc/PID/task/*/schedstat, ns). --source bpf = the fdinfo of the fds the tracer lists + the BPF snapshot\n"
	printf "%-12s %-6s %-26s %-26s %-10s %-10s %-9s %s\n", "point", "clock", "--source fdinfo (sweep)", "--source bpf (listed+BPF)", "bpf/fdinfo", "BPF part", "hwm KiB", "seen procs/clients"
	for (i = 1; i <= no; i++) {
		pt = order[i]
		for (c = 1; c <= 2; c++) {
			ck = c == 1 ? "cpu" : "sched"
			f = get(ck "_ms_" pt SUBSEP "fdinfo", 1); b = get(ck "_ms_" pt SUBSEP "bpf", 1)
			printf "%-12s %-6s %-26s %-26s %-10s %-10s %-9s %s/%s\n", pt, ck, get(ck "_ms_" pt SUBSEP "fdinfo", 0),
				get(ck "_ms_" pt SUBSEP "bpf", 0), (f > 0 ? sprintf("%.2f", b / f) : "-"),
				sprintf("%.1f", b - f), get("hwm_kib_" pt SUBSEP (c == 1 ? "fdinfo" : "bpf"), 1),
				get("procs_seen_" pt SUBSEP "bpf", 1), get("clients_seen_" pt SUBSEP "bpf", 1)
		}
	}
	printf "(hwm KiB: peak RSS, --source fdinfo on the cpu row, --source bpf on the sched row)\n"
	for (i = 1; i <= no; i++) {
		pt = order[i]; n = 0; delete a
		for (r = 1; ("sched_ms_" pt, "fdinfo", r) in byr; r++)
			if (("sched_ms_" pt, "bpf", r) in byr && byr["sched_ms_" pt, "fdinfo", r] > 0)
				a[++n] = byr["sched_ms_" pt, "bpf", r] / byr["sched_ms_" pt, "fdinfo", r]
		if (n > 1) {
			m = med(a, n)
			printf "%s: paired per-repetition bpf/fdinfo (sched) %.2f [%.2f-%.2f] n=%d\n", pt, m, a[1], a[n], n
		}
	}
}' "$d/raw.tsv"

# The peers part: CPU per second of each live view at one refresh a second.
awk "$median"'
function fig(key, tool,   n, i, a) {
	n = 0
	for (i = 1; i <= cnt[key, tool]; i++) a[++n] = v[key, tool, i]
	return n ? sprintf("%.1f [%.1f-%.1f] n=%d", med(a, n), a[1], a[n], n) : "-"
}
$1 == "peers" && $2 ~ /^missing_/ { missing = missing " " substr($2, 9); next }
$1 == "peers" && $5 != "" {
	v[$2, $3, ++cnt[$2, $3]] = $5
	if (!($3 in seen)) { seen[$3] = 1; tools[++nt] = $3 }
	if ($2 ~ /^cpu_ms_per_s_/) pt = substr($2, 14)
}
END {
	if (!nt && missing == "") exit
	at = pt; sub(/^p/, "", at); sub(/_c/, " processes, ", at)
	printf "\n== peers at %s clients: CPU ms per second at one refresh a second, on a 160x50 terminal,\n", at
	printf "   median [min-max] over repetitions (tool order rotated); peers from Debian unstable\n"
	printf "%-14s %-26s %-26s %s\n", "tool", "cpu (utime+stime)", "sched (run time)", "peak RSS KiB"
	for (i = 1; i <= nt; i++)
		printf "%-14s %-26s %-26s %s\n", tools[i], fig("cpu_ms_per_s_" pt, tools[i]),
			fig("sched_ms_per_s_" pt, tools[i]), fig("hwm_kib_" pt, tools[i])
	if (missing != "") printf "not run:%s (no chroot with them: BENCH_PEERS_ROOT)\n", missing
}' "$d/raw.tsv"

if [ -f "$d/scale.json" ]; then
	echo
	echo "== scale: short-lived clients during one drmtop record"
	echo "workload run: $(awk '$2 == "churn_secs" { print $5 " s" }' "$d/raw.tsv")"
	echo "record (clients of the workload present closed / with exact job counts): $(cat "$d/scale.json")"
	echo "drmtop record peak RSS and CPU: $(cat "$d/record.rss" 2>/dev/null)"
	[ -s "$d/maps.json" ] && jq -r '"BPF maps: \(length) maps, memlock sum \([.[].bytes_memlock] | add) bytes (\(([.[].bytes_memlock] | add) / 1048576 | . * 10 | floor / 10) MiB); largest: \(sort_by(-.bytes_memlock) | .[0:4] | map("\(.name) \(.bytes_memlock / 1048576 | . * 10 | floor / 10) MiB") | join(", "))"' "$d/maps.json"
fi
if [ -f "$d/full.json" ]; then
	echo
	echo "== more clients open at once than the clients map holds (4096)"
	echo "while open: $(sed -n 1p "$d/full.json")"
	echo "after close: $(sed -n 2p "$d/full.json")"
	echo "drmtop -J -d 1 peak RSS: $(cat "$d/full.hwm" 2>/dev/null)"
fi

# Last, issue 19's targets with their verdicts (bench/judge.sh).
"$(dirname "$0")/judge.sh" "$d"
