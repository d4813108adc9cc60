#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs each cmocka binary given, then records the totals for scripts/summarise-tests.sh as
# "<passed> <failed>" in $RESULTS/unit. A binary that crashes counts as one failure.
# UNIT_RUNNER, if set, runs each binary (qemu-aarch64 for the arm64 build, tests/arm64).
set -u
RESULTS=${RESULTS:-build/test-results}
mkdir -p "$RESULTS"
passed=0
failed=0
for t in "$@"; do
	# shellcheck disable=SC2086 # the runner and its options are words
	out=$(${UNIT_RUNNER:-} "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	# cmocka prints its summary on stderr, so it may share a line with buffered stdout.
	p=$(printf '%s\n' "$out" | grep -o '\[  PASSED  \] [0-9]* test' | awk '{s+=$4} END {print s+0}')
	f=$(printf '%s\n' "$out" | grep -o '\[  FAILED  \] [0-9]* test' | awk '{s+=$4} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "unit: $t exited with status $rc" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed $failed" > "$RESULTS/unit"
[ "$failed" -eq 0 ]
