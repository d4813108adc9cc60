#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs each libFuzzer target: first every input of tests/fuzz/regress/<target> (crashes found
# before, kept as regression tests) and of the generated replay set once, then fuzzing for
# SECONDS from the generated seeds. A target passes when nothing crashed, leaked or failed a
# check. Writes "<passed> <failed>" (targets) to $RESULTS/fuzz.
# Targets run FUZZ_JOBS at a time (default: the CPUs), each on one core.
# FUZZ_SEED (make test: 1) fixes libFuzzer's random seed, so that a run of the same tree walks the
# same inputs and CI's verdict is the code's, not the dice's; FUZZ_SEED= (empty) draws a new
# seed each run, for fuzzing by hand.
# Usage: run-fuzz.sh FUZZ_DIR SECONDS TARGET...
set -u
dir=$1
seconds=$2
shift 2
RESULTS=${RESULTS:-build/test-results}
mkdir -p "$RESULTS" "$dir/corpus" "$dir/crashes" "$dir/logs"
here=$(dirname "$0")
# A smaller quarantine than ASan's 256 MiB: the model's 64 KiB pool chunks would otherwise each
# be fresh pages, and page faults would be most of a run. Use-after-free is still caught.
ASAN_OPTIONS="quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS
# fuzz_one TARGET: replay, then fuzz; the verdict line in $dir/logs/TARGET.verdict.
fuzz_one() {
	t=$1
	bin=$dir/fuzz_$t
	log=$dir/logs/$t.log
	ok=1
	: >"$log"
	# Only files: a directory argument would make libFuzzer fuzz instead of replay.
	inputs=$(find "$here/regress/$t" "$dir/replay/$t" -type f 2>/dev/null | sort)
	if [ -n "$inputs" ]; then
		# shellcheck disable=SC2086
		if ! "$bin" -rss_limit_mb=4096 -timeout=60 $inputs >>"$log" 2>&1; then
			echo "fuzz $t: a regression or replay input fails" >&2
			ok=0
		fi
	fi
	if [ "$ok" -eq 1 ]; then
		mkdir -p "$dir/corpus/$t"
		# shellcheck disable=SC2086
		if ! "$bin" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
			${FUZZ_SEED:+-seed=$FUZZ_SEED} -print_final_stats=1 -artifact_prefix="$dir/crashes/$t-" \
			"$dir/corpus/$t" "$dir/seeds/$t" >>"$log" 2>&1; then
			echo "fuzz $t: crash, leak or failed check; input in $dir/crashes/" >&2
			ok=0
		fi
	fi
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}')
	if [ "$ok" -eq 1 ]; then
		echo "PASS fuzz $t (${execs:-?} runs in ${seconds} s)" >"$dir/logs/$t.verdict"
	else
		{
			echo "FAIL fuzz $t (log: $log)"
			grep -E 'ERROR|SUMMARY|check failed|runtime error| at byte |got .*reference' \
				"$log" | head -n 5
		} >"$dir/logs/$t.verdict"
	fi
}

# FUZZ_JOBS targets at a time (default: one per CPU); each is one process, one core.
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
for t in "$@"; do
	rm -f "$dir/logs/$t.verdict"
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
passed=0
failed=0
for t in "$@"; do
	if [ -s "$dir/logs/$t.verdict" ]; then
		cat "$dir/logs/$t.verdict"
	else
		echo "FAIL fuzz $t: no verdict (log: $dir/logs/$t.log)"
	fi
	if grep -q '^PASS' "$dir/logs/$t.verdict" 2>/dev/null; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed $failed" >"$RESULTS/fuzz"
echo "fuzz: $passed targets passed, $failed failed"
[ "$failed" -eq 0 ]
