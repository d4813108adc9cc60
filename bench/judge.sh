#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# judge.sh DIR: issue 19's targets, each with its figure from DIR/raw.tsv (and the BPF time per
# operation from DIR/progs.tsv, and the floor: empty programs on drmtop's hooks) and a verdict:
# "met", "not met", "not met: the floor alone is X", "not judged: WHY" or "not measured: WHY".
# No target is judged when the host's load (the "host" lines bench/run-bench.sh
# adds) is unknown or above BENCH_MAX_LOAD (default 1.0) before, during or after the boot, nor
# from fewer than 6 rounds (3 repetitions for the refresh); the figure is printed all the same.
# With a base phase (BENCH_BASE), each overhead target has a "vs base" line under it: on/base
# and base/off, information only; the verdicts are on/off's, as without one.
# Called by bench/report.sh; bench/judge-test.sh checks it on canned figures.
set -u
d=$1
[ -f "$d/raw.tsv" ] || { echo "judge: no $d/raw.tsv" >&2; exit 1; }
progs=$d/progs.tsv
[ -f "$progs" ] || progs=/dev/null

awk -v progs="$progs" -v max_load="${BENCH_MAX_LOAD:-1.0}" -v min_rounds=6 -v min_reps=3 \
	-v rss_clients=5000 '
function sortv(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
}
function med(a, n) { sortv(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
# paired(KEY, PH, BASE): per-round KEY[PH] / KEY[BASE], median into M, count into N, the
# range into LO and HI
function paired(key, ph, base,   r, a) {
	N = 0
	for (r = 1; r <= maxr[key]; r++)
		if ((key, ph, r) in byr && (key, base, r) in byr && byr[key, base, r] > 0)
			a[++N] = byr[key, ph, r] / byr[key, base, r]
	if (!N) return 0
	M = med(a, N); LO = a[1]; HI = a[N]
	return 1
}
# verdict(OK, NEED, HAVE, UNIT): the verdict of a measured figure whose comparison gave OK,
# from HAVE UNIT of at least NEED
function verdict(ok, need, have, unit) {
	if (load_why != "") { judged_not++; return "not judged: " load_why }
	if (have < need) {
		judged_not++
		return sprintf("not judged: %d %s (at least %d)", have, unit, need)
	}
	if (ok) { met++; return "met" }
	not_met++
	return "not met"
}
function get(a, k) { return (k in a) ? a[k] : "?" }
function unmeasured(why) { measured_not++; return "not measured: " why }
function line(name, target, figure, v) { printf "%-34s %-9s %-44s  %s\n", name, target, figure, v }
function bpf(loop) {
	return (loop in bpf_ns) ? sprintf(", BPF %.1f us/op", bpf_ns[loop] / 1000) : ""
}
# overhead(NAME, METRIC, LOOP, LIMIT, ATLEAST, LEAST): on/off of one loop against LIMIT (a floor
# when ATLEAST, else a ceiling), with floor/off beside it (empty programs on the same hooks),
# lookup/off (one hash lookup in each) and, where LEAST names what the least phase keeps a hash
# entry per on the hooks of this loop (objects and handles for GEM; scheduler entities for open
# + close, on kernels where they are hooked), least/off. A target missed where the floor alone
# misses it says so: no change to the programs of drmtop meets it; where a lookup in each
# misses it, no program on each of those hooks that keeps anything per event does; where the
# least misses it, no exact count in hash maps does.
function overhead(name, metric, loop, limit, atleast, least,   tgt, fl, f, lk, l, ls, s, v) {
	tgt = sprintf("%s %.2fx", atleast ? ">=" : "<=", limit)
	fl = lk = ls = ""
	if (paired(metric, "floor", "off")) {
		f = M
		fl = sprintf(", floor %.3f", f)
	}
	if (paired(metric, "lookup", "off")) {
		l = M
		lk = sprintf(", lookup %.3f", l)
	}
	if (least != "" && paired(metric, "least", "off")) {
		s = M
		ls = sprintf(", least %.3f", s)
	}
	if (!paired(metric, "on", "off")) {
		line(name, tgt, "-", unmeasured("no on/off rounds"))
		return
	}
	v = verdict(atleast ? M >= limit : M <= limit, min_rounds, N, "rounds")
	if (v == "not met" && fl != "" && (atleast ? f < limit : f > limit))
		v = sprintf("not met: the floor alone is %.3f", f)
	else if (v == "not met" && lk != "" && (atleast ? l < limit : l > limit))
		v = sprintf("not met: a lookup a program alone is %.3f", l)
	else if (v == "not met" && ls != "" && (atleast ? s < limit : s > limit))
		v = sprintf("not met: a hash entry per %s alone is %.3f", least, s)
	line(name, tgt, sprintf("%.3f [%.3f-%.3f] n=%d%s%s%s%s", M, LO, HI, N, bpf(loop), fl, lk,
		ls), v)
	vsbase(metric)
}
# vsbase(METRIC): the line under a target with on/base and base/off, when a base phase ran
function vsbase(metric,   fig) {
	if (!paired(metric, "on", "base")) return
	fig = sprintf("%.3f [%.3f-%.3f] n=%d", M, LO, HI, N)
	if (paired(metric, "base", "off")) fig = fig sprintf(", base/off %.3f [%.3f-%.3f]", M, LO, HI)
	baseline("on/base", fig)
}
# baseline(WHAT, FIGURE): a line under a target with a figure against BENCH_BASE, not judged
function baseline(what, fig) {
	printf "%-34s %-9s %s\n", "  vs base " (rev == "" ? "?" : substr(rev, 1, 12)) ":", what, fig
}
FILENAME == progs { if ($1 == "progs") bpf_ns[$2] += $7; next }
$5 == "" || $5 == "-" { next }
$1 == "host" { host[$2] = $5; next }
$1 == "base" && $2 == "rev" { rev = $5; next }
$1 == "floor" && $2 == "entities" { entities = $5 + 0; next }
$1 == "guest" { guest[$2] = $5; next }
$1 == "scale" { scale[$2] = $5; next }
$1 == "peers" && $2 ~ /^missing_/ { missing[substr($2, 9)] = 1; next }
$1 == "peers" && $2 ~ /^sched_ms_per_s_/ { peerkey = $2 }
$1 == "overhead" && $3 == "base" { base = 1 }
$1 == "overhead" || $1 == "refresh" || $1 == "snapshot" || $1 == "peers" {
	byr[$2, $3, $4] = $5
	if ($4 > maxr[$2]) maxr[$2] = $4
}
END {
	# The load that decides: the highest of before, during and after.
	load = -1
	for (k in host)
		if (k ~ /^(loadavg_before|load_during|loadavg_after)$/ && host[k] + 0 > load)
			load = host[k] + 0
	if (load < 0) load_why = "host load unknown"
	else if (load > max_load + 0) load_why = sprintf("host load %.2f > %s", load, max_load)
	printf "\n== targets (issue 19): on/off = median [min-max] of the per-round ratios,"
	printf " drmtop -J -d 1 --source bpf vs none\n"
	printf "host load (1-minute, the bench VM excluded; limit %s): before %s,", max_load,
		get(host, "loadavg_before")
	printf " during %s (%s samples), after %s;", get(host, "load_during"),
		get(host, "load_samples"), get(host, "loadavg_after")
	printf " /proc/loadavg after %s; guest %s -> %s\n", get(host, "loadavg_after_raw"),
		get(guest, "loadavg_before"), get(guest, "loadavg_after")
	if (base)
		printf "vs base: drmtop of %s (BENCH_BASE) run as on in the same rounds; on/base ="\
			" median [min-max] of the per-round ratios, not judged\n", rev == "" ? "?" : rev
	line("target", "limit", "measured", "verdict")
	overhead("render-node open + close", "open_close_ns", "open_close", 1.25, 0,
		entities ? "entity" : "")
	overhead("GEM create + close (4 KiB)", "gem_create_close_ns", "gem_create_close", 1.15, 0,
		"object and handle")
	overhead("zero-length jobs/s", "jobs_per_s", "jobs", 0.95, 1)
	overhead("cheap ioctl (DRM_IOCTL_VERSION)", "ioctl_version_ns", "ioctl", 1.05, 0)
	overhead("cheap ioctl (DRM_IOCTL_GET_CAP)", "ioctl_getcap_ns", "", 1.05, 0)
	# The refresh as root with the tracer against the full /proc sweep of --source fdinfo,
	# paired per repetition (scheduler run time of all threads).
	name = "refresh bpf/fdinfo, 2000:100"
	if (paired("sched_ms_p2000_c100", "bpf", "fdinfo"))
		line(name, "<= 0.50x", sprintf("%.2f [%.2f-%.2f] n=%d", M, LO, HI, N),
			verdict(M <= 0.5, min_reps, N, "repetitions"))
	else
		line(name, "<= 0.50x", "-", unmeasured("no 2000:100 point"))
	# The live view of drmtop with --source fdinfo against each peer, paired per repetition (the
	# scheduler run time per second at one refresh a second); the worse of the two decides.
	name = "refresh vs gputop, nvtop"
	fig = ""; worst = -1; reps = -1; gone = ""
	for (i = 1; i <= 2; i++) {
		p = i == 1 ? "gputop" : "nvtop"
		if (peerkey != "" && paired(peerkey, "drmtop-fdinfo", p)) {
			fig = fig sprintf("%s%s %.2f [%.2f-%.2f] n=%d", fig == "" ? "" : ", ", p, M, LO,
				HI, N)
			if (M > worst) worst = M
			if (reps < 0 || N < reps) reps = N
		} else
			gone = gone (gone == "" ? "" : " and ") p
	}
	# A peer that cannot run here (nvtop monitors only the drivers it knows, not simgpu)
	# leaves the other to judge by, and is named.
	if (fig == "")
		line(name, "<= 1.00x", "-", unmeasured(gone " did not run (BENCH_PEERS_ROOT)"))
	else
		line(name, "<= 1.00x", fig (gone == "" ? "" : "; " gone " did not run"),
			verdict(worst <= 1.0, min_reps, reps, "repetitions"))
	# the live view of BENCH_BASE in the same repetitions: this drmtop against it, paired
	if (peerkey != "" && paired(peerkey, "drmtop-fdinfo", "drmtop-base")) {
		fig = sprintf("%.3f [%.3f-%.3f] n=%d", M, LO, HI, N)
		if (paired(peerkey, "drmtop-base", "gputop"))
			fig = fig sprintf(", base/gputop %.2f [%.2f-%.2f]", M, LO, HI)
		baseline("fdinfo/base", fig)
	}
	# The median over the frames of the snapshot part, judged only with the map full.
	name = "snapshot, handles map full"
	n = 0
	for (r = 1; ("snapshot_ms", "full", r) in byr; r++) {
		a[++n] = byr["snapshot_ms", "full", r]
		full = byr["handles_full", "full", r]
	}
	if (n) {
		m = med(a, n)
		if (load_why == "" && full + 0 == 0) {
			judged_not++
			v = "not judged: the handles map was not full"
		} else
			v = verdict(m <= 10, 3, n, "snapshots")
		line(name, "<= 10 ms", sprintf("%.2f ms [%.2f-%.2f] n=%d, handles_full %d", m, a[1], a[n],
			n, full), v)
	} else
		line(name, "<= 10 ms", "-", unmeasured("no snapshot part"))
	if ("full_hwm_kib" in scale) {
		c = ("full_clients" in scale) ? scale["full_clients"] : 0
		line("peak RSS, 5,000 clients open", "<= 32 MiB",
			sprintf("%.1f MiB with %d clients", scale["full_hwm_kib"] / 1024, c),
			verdict(scale["full_hwm_kib"] <= 32 * 1024, rss_clients, c, "clients open"))
	} else
		line("peak RSS, 5,000 clients open", "<= 32 MiB", "-", unmeasured("no scale part"))
	printf "targets: %d met, %d not met, %d not judged, %d not measured", met, not_met,
		judged_not, measured_not
	if (load_why != "") printf " (no target judged: %s)", load_why
	printf "\n"
}' "$progs" "$d/raw.tsv"
