#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run-bench.sh [KERNEL...]: boots each kernel (default 6.12) once under QEMU with simgpu, runs
# bench/bench-guest.sh there and prints the tables (bench/report.sh). Each run keeps its results
# in build/bench/run-<kernel>-<UTC time>/ (raw.tsv and friends, report.txt); run-<kernel> links
# to the latest. Nothing of an earlier run is overwritten. `make bench` runs this after
# building what it needs; BENCH_SMOKE=1 makes it a quick check that every part works.
# BENCH_BASE=REV adds drmtop of git revision REV as the overhead part's "base" phase
# (bench/build-base.sh builds it; BENCH_ROUNDS then defaults to 12).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ $# -gt 0 ] || set -- 6.12
rc=0
# BENCH_BASE=REV: drmtop of REV runs as a sixth overhead phase, "base", beside "on" in every
# round of the same boot: two boots gave the same code 1.43x and 1.60x, so only ratios paired
# within rounds tell a small change. Built first, so that the build's load can settle below.
base_sha=
base_bin=
rounds=${BENCH_ROUNDS:-12}
if [ -n "${BENCH_BASE:-}" ]; then
	base_sha=$(git rev-parse -q --verify "$BENCH_BASE^{commit}") ||
		{ echo "bench: BENCH_BASE '$BENCH_BASE' is no commit of this repository" >&2; exit 1; }
	base_bin=$(bench/build-base.sh "$base_sha") || exit 1
	echo "bench: base $base_sha: $base_bin" >&2
	# seven phases: each takes each place of the order twice
	rounds=${BENCH_ROUNDS:-14}
fi
# The host's load beside the VM, ours excluded (bench/host-load.sh): report.sh judges no target
# when it is above BENCH_MAX_LOAD before, during or after a boot.
# A build just before (make bench builds first) lifts the 1-minute average for a minute or two:
# wait up to BENCH_SETTLE seconds (120; none for the smoke) for it to fall to BENCH_MAX_LOAD.
max_load=${BENCH_MAX_LOAD:-1.0}
settle=${BENCH_SETTLE:-120}
[ "${BENCH_SMOKE:-0}" = 1 ] && settle=${BENCH_SETTLE:-0}
waited=0
while awk -v l="$(cut -d ' ' -f 1 /proc/loadavg)" -v m="$max_load" 'BEGIN { exit !(l > m) }' &&
	[ $waited -lt "$settle" ]; do
	[ $waited = 0 ] && echo "bench: host load $(cut -d ' ' -f 1 /proc/loadavg) > $max_load:" \
		"waiting up to $settle s for it to fall (BENCH_SETTLE)" >&2
	sleep 5
	waited=$((waited + 5))
done
[ $waited -gt 0 ] && echo "bench: host load $(cut -d ' ' -f 1 /proc/loadavg) after $waited s" >&2
loadlog=$(mktemp) || exit 1
bench/host-load.sh $$ >"$loadlog" &
loadpid=$!
trap 'kill $loadpid 2>/dev/null; wait $loadpid; rm -f "$loadlog"' EXIT
trap 'exit 1' INT TERM	# sh runs the EXIT trap on a signal only through one of its own
# load_avg: the latest average of host-load.sh (the 1-minute load average without ours)
load_avg() { tail -n 1 "$loadlog" | cut -d ' ' -f 3; }
until [ -s "$loadlog" ]; do sleep 0.1; done
parts=${BENCH_PARTS:-overhead progs refresh snapshot peers scale}
# The smoke leaves the peers out: installing them takes a minute of network, under the lock of
# the sid chroot the 7.x suites build in at the same time.
[ "${BENCH_SMOKE:-0}" = 1 ] && [ -z "${BENCH_PARTS:-}" ] && parts="overhead progs refresh snapshot scale"
peers_root=
case " $parts " in
*" peers "*)
	# igt's gputop and nvtop from Debian unstable (Debian 12 has neither), in the chroot the
	# 7.x suites use; the guest runs them chrooted there (bench/bench-guest.sh)
	echo "bench: installing gputop (igt-gpu-tools) and nvtop in the sid chroot" >&2
	if tests/vm/sid-root.sh tools igt-gpu-tools nvtop; then
		peers_root=${SID_ROOT:-$top/build/sid}
		peers_root=$(cd "$peers_root" && pwd -P)
	else
		echo "bench: no peers to compare with (above): the peers part says so" >&2
	fi
	;;
esac
for k in "$@"; do
	name=run-$k${BENCH_SMOKE:+-smoke}
	dir=$top/build/bench/$name-$(date -u +%Y%m%dT%H%M%SZ)
	mkdir -p "$dir" || exit 1
	link=$top/build/bench/$name
	{ [ -L "$link" ] || [ ! -e "$link" ]; } && ln -sfn "$(basename "$dir")" "$link"
	start=$(date +%s)
	load_before=$(load_avg)
	tests/vm/run-in-vm.sh --kernel "$k" --timeout "${BENCH_TIMEOUT:-3600}" --run-dir "$dir" \
		--env BENCH_ROUNDS="$rounds" --env BENCH_SECS="${BENCH_SECS:-2}" \
		--env BENCH_SCALE_CLIENTS="${BENCH_SCALE_CLIENTS:-}" --env BENCH_SMOKE="${BENCH_SMOKE:-0}" \
		--env BENCH_PARTS="$parts" --env BENCH_PEERS_ROOT="$peers_root" \
		--env BENCH_BASE_DRMTOP="$base_bin" --env BENCH_PEER_REPS="${BENCH_PEER_REPS:-}" \
		-- sh bench/bench-guest.sh || { echo "bench: the VM run on $k failed" >&2; rc=1; continue; }
	echo "bench: $k took $(($(date +%s) - start)) s" >&2
	# The host's load, as raw.tsv lines: before and after (1-minute averages without ours),
	# during (the mean count of others' R and D threads over the boot's samples).
	{
		echo "host loadavg_before run 1 $load_before"
		awk -v t0="$start" '$1 >= t0 && $2 != "-" { s += $2; n++ }
			END { if (n) printf "host load_during run 1 %.2f\nhost load_samples run 1 %d\n", s / n, n }' \
			"$loadlog"
		echo "host loadavg_after run 1 $(load_avg)"
		echo "host loadavg_after_raw run 1 $(cut -d ' ' -f 1 /proc/loadavg)"
		[ -z "$base_sha" ] || echo "base rev run 1 $base_sha"
	} >>"$dir/bench/raw.tsv"
	{
		echo "drmtop bench, kernel $k, $(date -u +%Y-%m-%dT%H:%MZ), host: $(nproc) CPUs," \
			"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), QEMU TCG"
		bench/report.sh "$dir/bench"
	} >"$dir/report.txt"
	cat "$dir/report.txt"
	if [ -n "${BENCH_SMOKE:-}" ] && [ "$BENCH_SMOKE" = 1 ]; then
		# Every section produced figures.
		for f in raw.tsv progs.tsv scale.json full.json; do
			[ -s "$dir/bench/$f" ] || { echo "bench-smoke: no $f" >&2; rc=1; }
		done
		grep -q ' on 1 [0-9]' "$dir/bench/raw.tsv" || { echo "bench-smoke: no 'on' figures" >&2; rc=1; }
		# bench-floor loaded a twin of every program drmtop loaded (the least phase's: the
		# smoke runs it alone of the three floors, bench/floor.bpf.c built with FLOOR_LOOKUP
		# and FLOOR_LEAST), and the loops ran beside them (the "floor programs" count is
		# written whatever happened)
		grep -q '^overhead [a-z_]* least 1 [0-9]' "$dir/bench/raw.tsv" ||
			{ echo "bench-smoke: no 'least' figures (bench/floor.bpf.c)" >&2; rc=1; }
		[ -z "$base_bin" ] || grep -q '^drmtop_cpu open_close_ns base 1 [1-9]' "$dir/bench/raw.tsv" ||
			{ echo "bench-smoke: no 'base' figures (BENCH_BASE)" >&2; rc=1; }
		# Both of drmtop's objects ran on the loops: a drm object the kernel refused leaves
		# the sched one alone, and every figure still comes (seen: a verifier rejection)
		for p in drmtop_file_alloc drmtop_handle_create drmtop_run_btf; do
			grep -q " $p " "$dir/bench/progs.tsv" ||
				{ echo "bench-smoke: $p never ran (not loaded?)" >&2; rc=1; }
		done
		# drmtop's own CPU beside the loops, from its threads' run time (none: not read). Any
		# loop's: a loop of the smoke's half second may see no refresh of drmtop's at 1 s
		# (open_close 0 ms/s once, the ioctl loops 29 and 90, at d3c0641)
		grep -q '^drmtop_cpu [a-z_]* on 1 [1-9]' "$dir/bench/raw.tsv" ||
			{ echo "bench-smoke: no drmtop CPU figures" >&2; rc=1; }
		grep -q '^snapshot snapshot_ms full 1 [0-9]' "$dir/bench/raw.tsv" ||
			{ echo "bench-smoke: no snapshot figures" >&2; rc=1; }
		# Every target's line with its figure; one round judges none ("not judged").
		bench/check-targets.sh "$dir/report.txt" || rc=1
	fi
done
exit $rc
