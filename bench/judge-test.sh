#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# judge-test.sh: bench/judge.sh's verdicts and bench/check-targets.sh on canned raw.tsv figures
# (no VM): targets met, not met (one just over each limit; a limit reached exactly is met), a
# loaded host (none judged, the figures still shown; BENCH_MAX_LOAD raises the limit), an
# unknown load, too few rounds, too few clients for the RSS target, a base phase (on/base
# shown, verdicts on/off's; none without one; the base's live view among the peers), and
# check-targets.sh
# accepting a loaded host's report but not one that lost a target line. Run by the harness
# stage (scripts/harness-test.sh); prints PASS/FAIL lines, exits non-zero on a failure.
set -u
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
passed=0
failed=0

# canned DIR ROUNDS OPEN GEM JOBS VERSION GETCAP: a run of ROUNDS rounds whose on/off ratio per
# loop is the given factor in every round (the off figures differ by round, so only a per-round
# pairing gives the factor exactly), hooks halfway; then the host lines of stdin.
canned() {
	mkdir -p "$1"
	awk -v rounds="$2" -v o="$3" -v g="$4" -v j="$5" -v v="$6" -v c="$7" 'BEGIN {
		for (r = 1; r <= rounds; r++) {
			b = 1 + r / 10	# the off figures drift over the rounds
			split("off hooks on", ph, " ")
			for (p = 1; p <= 3; p++) {
				k = (p - 1) / 2	# 0 off, 0.5 hooks, 1 on
				printf "overhead open_close_ns %s %d %.4f\n", ph[p], r, 15000 * b * (1 + k * (o - 1))
				printf "overhead gem_create_close_ns %s %d %.4f\n", ph[p], r, 25000 * b * (1 + k * (g - 1))
				printf "overhead jobs_per_s %s %d %.4f\n", ph[p], r, 9800 / b * (1 + k * (j - 1))
				printf "overhead ioctl_version_ns %s %d %.4f\n", ph[p], r, 1700 * b * (1 + k * (v - 1))
				printf "overhead ioctl_getcap_ns %s %d %.4f\n", ph[p], r, 1600 * b * (1 + k * (c - 1))
			}
		}
	}' >"$1/raw.tsv"
	cat >>"$1/raw.tsv"
}
quiet='host loadavg_before run 1 0.30
host load_during run 1 0.25
host load_samples run 1 200
host loadavg_after run 1 0.40
host loadavg_after_raw run 1 1.38'
refresh_scale() {	# refresh_scale RATIO CLIENTS KIB: three 2000:100 repetitions, the full scale
	for k in 1 2 3; do
		echo "refresh sched_ms_p2000_c100 fdinfo $k $((300 + k))"
		echo "refresh sched_ms_p2000_c100 bpf $k $(awk -v r="$1" -v k=$k 'BEGIN { print r * (300 + k) }')"
	done
	echo "scale full_clients run 1 $2"
	echo "scale full_hwm_kib run 1 $3"
}

# expect NAME FILE TARGET END: FILE's line of TARGET ends in END (a grep -E pattern)
expect() {
	if grep -F "$3 " "$2" | grep -Eq "$4\$"; then
		passed=$((passed + 1))
	else
		echo "FAIL judge-test: $1: '$3' should end in '$4':"
		grep -F "$3 " "$2" || echo "(no such line)"
		failed=$((failed + 1))
	fi
}
overhead_targets="render-node open + close|GEM create + close (4 KiB)|zero-length jobs/s|cheap ioctl (DRM_IOCTL_VERSION)|cheap ioctl (DRM_IOCTL_GET_CAP)"
# expect_all NAME FILE VERDICT: every overhead target and the RSS one end in VERDICT
expect_all() {
	_ifs=$IFS
	IFS='|'
	for t in $overhead_targets "peak RSS, 5,000 clients open"; do
		IFS=$_ifs
		expect "$1" "$2" "$t" "  $3"	# two spaces before the verdict column
		IFS='|'
	done
	IFS=$_ifs
}
# summary NAME FILE LINE: FILE's summary line is LINE
summary() {
	if [ "$(grep '^targets: ' "$2")" = "$3" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL judge-test: $1: summary '$(grep '^targets: ' "$2")', expected '$3'"
		failed=$((failed + 1))
	fi
}
judge() { BENCH_MAX_LOAD=${MAXLOAD:-1.0} bench/judge.sh "$1" >"$1/out" 2>&1; }

# Quiet host, 6 rounds, every limit met (GET_CAP exactly at its limit counts as met).
{ echo "$quiet"; refresh_scale 0.45 5000 20480; } | canned "$T/met" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/met"
expect_all "met" "$T/met/out" "met"
expect "met" "$T/met/out" "render-node open + close" "1\.200 \[1\.200-1\.200\] n=6 +met"
expect "met" "$T/met/out" "refresh bpf/fdinfo, 2000:100" "0\.45 \[0\.45-0\.45\] n=3 +met"
expect "met" "$T/met/out" "peak RSS, 5,000 clients open" "20\.0 MiB with 5000 clients +met"
expect "met" "$T/met/out" "refresh vs gputop, nvtop" "  not measured: .*"
summary "met" "$T/met/out" "targets: 7 met, 0 not met, 0 not judged, 2 not measured"

# Open+close past its limit where empty programs on the same hooks are past it too: the verdict
# says the floor alone misses it; GEM past its limit with the floor, a lookup and the least
# exact count under it: plain "not met"; jobs past theirs with the floor within it but one
# lookup a program past it: says so.
{ echo "$quiet"; refresh_scale 0.45 5000 20480
  for r in 1 2 3 4 5 6; do
	echo "overhead open_close_ns floor $r $(awk -v r=$r 'BEGIN { print 15000 * (1 + r / 10) * 1.30 }')"
	echo "overhead gem_create_close_ns floor $r $(awk -v r=$r 'BEGIN { print 25000 * (1 + r / 10) * 1.05 }')"
	echo "overhead gem_create_close_ns lookup $r $(awk -v r=$r 'BEGIN { print 25000 * (1 + r / 10) * 1.10 }')"
	echo "overhead gem_create_close_ns least $r $(awk -v r=$r 'BEGIN { print 25000 * (1 + r / 10) * 1.12 }')"
	echo "overhead jobs_per_s floor $r $(awk -v r=$r 'BEGIN { print 9800 / (1 + r / 10) * 0.99 }')"
	echo "overhead jobs_per_s lookup $r $(awk -v r=$r 'BEGIN { print 9800 / (1 + r / 10) * 0.90 }')"
  done; } | canned "$T/floor" 6 1.40 1.20 0.80 1.01 1.05
judge "$T/floor"
expect "floor" "$T/floor/out" "render-node open + close" \
	"1\.400 \[1\.400-1\.400\] n=6, floor 1\.300 +not met: the floor alone is 1\.300"
expect "floor" "$T/floor/out" "GEM create + close (4 KiB)" \
	"n=6, floor 1\.050, lookup 1\.100, least 1\.120 +not met"
expect "floor" "$T/floor/out" "zero-length jobs/s" \
	"0\.800 \[0\.800-0\.800\] n=6, floor 0\.990, lookup 0\.900 +not met: a lookup a program alone is 0\.900"
summary "floor" "$T/floor/out" "targets: 4 met, 3 not met, 0 not judged, 2 not measured"

# GEM past its limit where a lookup a program is within it but the least exact count in hash
# maps (an entry made and deleted per object and handle) is past it: says so. Open + close
# names the least phase only where drmtop hooked scheduler entities (bench-guest.sh's "floor
# entities" line), whose least it changes: not here, then there.
{ echo "$quiet"; refresh_scale 0.45 5000 20480
  for r in 1 2 3 4 5 6; do
	echo "overhead open_close_ns least $r $(awk -v r=$r 'BEGIN { print 15000 * (1 + r / 10) * 1.30 }')"
	echo "overhead gem_create_close_ns lookup $r $(awk -v r=$r 'BEGIN { print 25000 * (1 + r / 10) * 1.10 }')"
	echo "overhead gem_create_close_ns least $r $(awk -v r=$r 'BEGIN { print 25000 * (1 + r / 10) * 1.17 }')"
  done; } | canned "$T/least" 6 1.20 1.20 0.97 1.01 1.05
judge "$T/least"
expect "least" "$T/least/out" "GEM create + close (4 KiB)" \
	"1\.200 \[1\.200-1\.200\] n=6.*, lookup 1\.100, least 1\.170 +not met: a hash entry per object and handle alone is 1\.170"
expect "least" "$T/least/out" "render-node open + close" "1\.200 \[1\.200-1\.200\] n=6 +met"
{ echo "$quiet"; echo "floor entities floor 1 1"; refresh_scale 0.45 5000 20480
  for r in 1 2 3 4 5 6; do
	echo "overhead open_close_ns lookup $r $(awk -v r=$r 'BEGIN { print 15000 * (1 + r / 10) * 1.20 }')"
	echo "overhead open_close_ns least $r $(awk -v r=$r 'BEGIN { print 15000 * (1 + r / 10) * 1.30 }')"
  done; } | canned "$T/leastent" 6 1.40 1.10 0.97 1.01 1.05
judge "$T/leastent"
expect "least, entities" "$T/leastent/out" "render-node open + close" \
	"1\.400 \[1\.400-1\.400\] n=6, lookup 1\.200, least 1\.300 +not met: a hash entry per entity alone is 1\.300"

# The snapshot part: judged from the median of its frames, only with the handles map full.
snap() {	# snap FULL MS...: one frame per MS, handles_full FULL in each
	full=$1
	shift
	k=1
	for ms in "$@"; do
		echo "snapshot snapshot_ms full $k $ms"
		echo "snapshot handles_full full $k $full"
		k=$((k + 1))
	done
}
{ echo "$quiet"; snap 232 4.1 3.9 4.0 12.5; } | canned "$T/snap" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/snap"
expect "snapshot" "$T/snap/out" "snapshot, handles map full" \
	"4\.05 ms \[3\.90-12\.50\] n=4, handles_full 232 +met"
{ echo "$quiet"; snap 232 10.5 11.0 12.0; } | canned "$T/snapslow" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/snapslow"
expect "snapshot slow" "$T/snapslow/out" "snapshot, handles map full" "n=3, handles_full 232 +not met"
{ echo "$quiet"; snap 0 1.0 1.0 1.0; } | canned "$T/snapnotfull" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/snapnotfull"
expect "snapshot, map not full" "$T/snapnotfull/out" "snapshot, handles map full" \
	"  not judged: the handles map was not full"

# The peers: drmtop's live view (--source fdinfo) against gputop and nvtop, paired per
# repetition, the worse ratio decides; a peer that did not run leaves the target unmeasured.
peers() {	# peers GPUTOP_RATIO NVTOP_RATIO REPS [MISSING]: drmtop's CPU per s over each peer's
	k=1
	while [ "$k" -le "$3" ]; do
		d=$((250 + 10 * k))
		echo "peers sched_ms_per_s_p2000_c100 drmtop-fdinfo $k $d"
		[ "${4:-}" = gputop ] ||
			echo "peers sched_ms_per_s_p2000_c100 gputop $k $(awk -v d=$d -v r="$1" 'BEGIN { print d / r }')"
		echo "peers sched_ms_per_s_p2000_c100 nvtop $k $(awk -v d=$d -v r="$2" 'BEGIN { print d / r }')"
		k=$((k + 1))
	done
	[ -z "${4:-}" ] || echo "peers missing_$4 all 1 1"
}
{ echo "$quiet"; peers 0.90 1.00 4; } | canned "$T/peers" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/peers"
expect "peers met" "$T/peers/out" "refresh vs gputop, nvtop" \
	"gputop 0\.90 \[0\.90-0\.90\] n=4, nvtop 1\.00 \[1\.00-1\.00\] n=4 +met"
{ echo "$quiet"; peers 0.90 1.02 4; } | canned "$T/peersslow" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/peersslow"
expect "peers, nvtop cheaper" "$T/peersslow/out" "refresh vs gputop, nvtop" "nvtop 1\.02 .* +not met"
{ echo "$quiet"; peers 0.90 0.90 2; } | canned "$T/peersfew" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/peersfew"
expect "peers, 2 repetitions" "$T/peersfew/out" "refresh vs gputop, nvtop" \
	"  not judged: 2 repetitions \(at least 3\)"
{ echo "$quiet"; peers 0.90 0.90 4 gputop; } | canned "$T/peersgone" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/peersgone"
expect "peers, no gputop" "$T/peersgone/out" "refresh vs gputop, nvtop" \
	"nvtop 0\.90 \[0\.90-0\.90\] n=4; gputop did not run +met"
{ echo "$quiet"; echo "peers missing_gputop all 1 1"; echo "peers missing_nvtop all 1 1"; } |
	canned "$T/peersnone" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/peersnone"
expect "peers, none ran" "$T/peersnone/out" "refresh vs gputop, nvtop" \
	"  not measured: gputop and nvtop did not run \(BENCH_PEERS_ROOT\)"

# Each figure just past its limit: not met.
{ echo "$quiet"; refresh_scale 0.55 5000 33000; } | canned "$T/notmet" 6 1.26 1.16 0.94 1.06 1.06
judge "$T/notmet"
expect_all "not met" "$T/notmet/out" "not met"
expect "not met" "$T/notmet/out" "refresh bpf/fdinfo, 2000:100" "  not met"
summary "not met" "$T/notmet/out" "targets: 0 met, 7 not met, 0 not judged, 2 not measured"

# A loaded host (during the boot; before and after quiet): the figures, no verdict.
{ echo "$quiet" | sed 's/load_during run 1 0.25/load_during run 1 2.50/'; refresh_scale 0.45 5000 20480; } |
	canned "$T/loaded" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/loaded"
expect_all "loaded" "$T/loaded/out" "not judged: host load 2\.50 > 1\.0"
expect "loaded" "$T/loaded/out" "render-node open + close" "1\.200 \[1\.200-1\.200\] n=6 +not judged: host load 2\.50 > 1\.0"
summary "loaded" "$T/loaded/out" \
	"targets: 0 met, 0 not met, 7 not judged, 2 not measured (no target judged: host load 2.50 > 1.0)"
# ... loaded after the run only
sed 's/loadavg_after run 1 0.40/loadavg_after run 1 1.20/; s/load_during run 1 2.50/load_during run 1 0.25/' \
	"$T/loaded/raw.tsv" >"$T/loaded/raw2" && mv "$T/loaded/raw2" "$T/loaded/raw.tsv"
judge "$T/loaded"
expect_all "loaded after" "$T/loaded/out" "not judged: host load 1\.20 > 1\.0"
# ... and judged under a higher limit
MAXLOAD=1.5 judge "$T/loaded"
expect_all "BENCH_MAX_LOAD=1.5" "$T/loaded/out" "met"
# ... compared as numbers, not strings ("10.50" > "9")
sed 's/loadavg_after run 1 1.20/loadavg_after run 1 10.50/' "$T/loaded/raw.tsv" >"$T/loaded/raw2" &&
	mv "$T/loaded/raw2" "$T/loaded/raw.tsv"
MAXLOAD=9 judge "$T/loaded"
expect_all "load 10.50, limit 9" "$T/loaded/out" "not judged: host load 10\.50 > 9"

# No host lines (a raw.tsv of an older run): unknown load, nothing judged.
refresh_scale 0.45 5000 20480 | canned "$T/unknown" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/unknown"
expect_all "unknown load" "$T/unknown/out" "not judged: host load unknown"

# Five rounds (and 300 clients): too few to judge, quiet host.
{ echo "$quiet"; refresh_scale 0.45 300 9000; } | canned "$T/few" 5 1.20 1.10 0.97 1.01 1.05
judge "$T/few"
expect "few rounds" "$T/few/out" "render-node open + close" "n=5 +not judged: 5 rounds \(at least 6\)"
expect "few rounds" "$T/few/out" "zero-length jobs/s" "  not judged: 5 rounds \(at least 6\)"
expect "few clients" "$T/few/out" "peak RSS, 5,000 clients open" \
	"with 300 clients +not judged: 300 clients open \(at least 5000\)"
expect "few rounds" "$T/few/out" "refresh bpf/fdinfo, 2000:100" "  met"

# A base phase (BENCH_BASE): open+close's base such that on/base is, by round, 0.90 0.94 0.96
# 1.00 0.92 0.98: median (0.94 + 0.96) / 2 = 0.950, and base/off = 1.20 / those, median
# (1.20 / 0.96 + 1.20 / 0.94) / 2 = (1.250 + 1.2766) / 2 = 1.263, range 1.20 / 1.00 to 1.20 /
# 0.90 = 1.200-1.333; jobs/s's base 0.98 of off: on/base 0.97 / 0.98 = 0.990 (under 1: fewer
# jobs/s than the base, as on/off). The verdicts stay on/off's; the other loops, without base
# figures, get no base line.
sha=3318fe5abcdef0123456789abcdef0123456789a
{ echo "$quiet"; refresh_scale 0.45 5000 20480; echo "base rev run 1 $sha"
  r=1
  for q in 0.90 0.94 0.96 1.00 0.92 0.98; do
	echo "overhead open_close_ns base $r $(awk -v r=$r -v q=$q 'BEGIN { print 15000 * (1 + r / 10) * 1.20 / q }')"
	echo "overhead jobs_per_s base $r $(awk -v r=$r 'BEGIN { print 9800 / (1 + r / 10) * 0.98 }')"
	echo "drmtop_cpu open_close_ns base $r $((40 + 2 * r))"
	r=$((r + 1))
  done; } | canned "$T/base" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/base"
# under_expect NAME FILE TARGET LINE: the line under FILE's line of TARGET is LINE, exactly
under_expect() {
	_got=$(awk -v t="$3 " 'found { print; exit } index($0, t) == 1 { found = 1 }' "$2")
	if [ "$_got" = "$4" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL judge-test: $1: under '$3': '$_got', expected '$4'"
		failed=$((failed + 1))
	fi
}
expect_all "base" "$T/base/out" "met"
expect "base" "$T/base/out" "render-node open + close" "1\.200 \[1\.200-1\.200\] n=6 +met"
under_expect "base" "$T/base/out" "render-node open + close" \
	"  vs base 3318fe5abcde:            on/base   0.950 [0.900-1.000] n=6, base/off 1.263 [1.200-1.333]"
under_expect "base" "$T/base/out" "zero-length jobs/s" \
	"  vs base 3318fe5abcde:            on/base   0.990 [0.990-0.990] n=6, base/off 0.980 [0.980-0.980]"
under_expect "base, none for GEM" "$T/base/out" "GEM create + close (4 KiB)" \
	"zero-length jobs/s                 >= 0.95x  0.970 [0.970-0.970] n=6                       met"
expect "base" "$T/base/out" "vs base:" "drmtop of $sha \(BENCH_BASE\) .*, not judged"
summary "base" "$T/base/out" "targets: 7 met, 0 not met, 0 not judged, 2 not measured"
# The base's live view among the peers: this drmtop's over the base's 0.95 in every repetition
# (a median of 0.950), the base over gputop 0.90 / 0.95 = 0.947; the verdict stays drmtop's.
{ echo "$quiet"; echo "base rev run 1 $sha"; peers 0.90 0.90 4
  k=1
  while [ "$k" -le 4 ]; do
	echo "peers sched_ms_per_s_p2000_c100 drmtop-base $k $(awk -v k=$k 'BEGIN { print (250 + 10 * k) / 0.95 }')"
	k=$((k + 1))
  done; } | canned "$T/peersbase" 6 1.20 1.10 0.97 1.01 1.05
judge "$T/peersbase"
under_expect "peers, base" "$T/peersbase/out" "refresh vs gputop, nvtop" \
	"  vs base 3318fe5abcde:            fdinfo/base 0.950 [0.950-0.950] n=4, base/gputop 0.95 [0.95-0.95]"
expect "peers, base" "$T/peersbase/out" "refresh vs gputop, nvtop" \
	"gputop 0\.90 \[0\.90-0\.90\] n=4, nvtop 0\.90 \[0\.90-0\.90\] n=4 +met"
bench/report.sh "$T/base" >"$T/base/report" 2>&1
expect "base report" "$T/base/report" "open_close_ns" \
	" 1\.263 \[1\.200-1\.333\] n=6 +0\.950 \[0\.900-1\.000\] n=6"
expect "base report" "$T/base/report" "open_close_ns" "  +47 \[42-52\] n=6"
expect "base report" "$T/base/report" "6 rounds are not a multiple of the 4 phases:" ".*"
# ... and without one, no word of a base anywhere
bench/report.sh "$T/met" >"$T/met/report" 2>&1
if grep -qi 'base' "$T/met/out" "$T/met/report"; then
	echo "FAIL judge-test: no base: a base mentioned: $(grep -i base "$T/met/out" "$T/met/report")"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

# check-targets.sh (bench-smoke's check) passes a loaded host's whole report, and fails one
# that lost a target's line, or its summary, or says an overhead target was not measured.
bench/report.sh "$T/loaded" >"$T/report" 2>&1
check() {	# check NAME WANT_RC FILE
	bench/check-targets.sh "$3" >"$T/check.out" 2>&1
	rc=$?
	if [ $rc -eq "$2" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL judge-test: check-targets $1: exit $rc, expected $2: $(cat "$T/check.out")"
		failed=$((failed + 1))
	fi
}
MAXLOAD= check "a loaded host's report" 0 "$T/report"
check "a report with a base phase" 0 "$T/base/report"
grep -v '^GEM create' "$T/report" >"$T/report-nogem"
check "no GEM line" 1 "$T/report-nogem"
grep -v '^targets: ' "$T/report" >"$T/report-nosum"
check "no summary" 1 "$T/report-nosum"
sed 's/^\(cheap ioctl (DRM_IOCTL_VERSION) *<= 1.05x *\).*/\1-  not measured: no on\/off rounds/' \
	"$T/report" >"$T/report-unmeasured"
check "an overhead target not measured" 1 "$T/report-unmeasured"

echo "judge-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
