# SPDX-License-Identifier: GPL-2.0-only
# Sourced by a host stage's script after it sets STAGE: ok NAME and bad NAME WHY count checks,
# finish writes "<passed> <failed>" to $RESULTS/$STAGE (what scripts/summarise-tests.sh reads),
# prints the stage's line and exits non-zero if any failed.
RESULTS=${RESULTS:-build/test-results}
mkdir -p "$RESULTS"
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
finish() {
	echo "$pass $fail" >"$RESULTS/$STAGE"
	echo "$STAGE: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
