#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run-suite.sh [case-name...]: runs inside the test VM (run-in-vm.sh -- tests/vm/run-suite.sh).
# Runs every tests/vm/cases/*.sh in name order (or just the named ones, with or without .sh),
# each as `sh <case>` from the repository root. A case prints `PASS <name>` and
# `FAIL <name>: <reason>` lines and exits 0 only if all its checks passed.
#
# Counts: every PASS and FAIL line counts once. A case that exits non-zero without printing a
# FAIL line, that prints no PASS/FAIL line at all, or that exceeds its time limit
# (VM_CASE_TIMEOUT seconds, default 300, or more where the case says "# case-timeout: N" in its
# first lines) adds one failure of its own. Cases named in VM_SKIP_CASES (by spaces or commas)
# are not run (the stage that runs them elsewhere, e.g. vm-soak, counts them) and count nothing.
# VM_CASE_SET=exact runs only the cases that say "# parallel-safe: <why>" in their first five
# lines (their checks hold with another VM on the host), VM_CASE_SET=timed only the others
# (make test runs those with no other VM beside them); unset, every case.
# Writes "<passed> <failed>" to $VM_RESULTS/suite-result after every case, so a suite cut short
# still leaves what it counted, and exits non-zero when anything failed.
set -u

cd "$(dirname "$0")/../.." || exit 1
results=${VM_RESULTS:-/tmp}
case_timeout=${VM_CASE_TIMEOUT:-300}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

if [ $# -gt 0 ]; then
	cases=
	for c in "$@"; do
		f=tests/vm/cases/${c%.sh}.sh
		[ -f "$f" ] || { echo "run-suite: no case $f" >&2; exit 1; }
		cases="$cases $f"
	done
else
	# Case names are NN-name.sh: ls is safe here, and the order must not depend on the locale.
	# shellcheck disable=SC2012
	cases=$(ls tests/vm/cases/*.sh 2>/dev/null | LC_ALL=C sort)
fi
[ -n "$cases" ] || { echo "run-suite: no cases in tests/vm/cases" >&2; exit 1; }

passed=0
failed=0
failures=
ncases=0
suite_start=$(cut -d' ' -f1 /proc/uptime)
echo "0 0" >"$results/suite-result"

for f in $cases; do
	name=$(basename "$f" .sh)
	case " $(echo "${VM_SKIP_CASES:-}" | tr ',' ' ') " in *" $name "*)
		echo "=== $name: not run here (VM_SKIP_CASES)"
		continue ;;
	esac
	safe=$(head -n 5 "$f" | grep -c '^# parallel-safe: ')
	case ${VM_CASE_SET:-}:$safe in
	exact:0 | timed:1)
		echo "=== $name: not run here (not in VM_CASE_SET=$VM_CASE_SET)"
		continue ;;
	esac
	ncases=$((ncases + 1))
	echo "=== $name"
	limit=$case_timeout
	own=$(head -n 5 "$f" | sed -n 's/^# case-timeout: *\([0-9][0-9]*\)$/\1/p')
	[ -n "$own" ] && [ "$own" -gt "$limit" ] && limit=$own
	start=$(cut -d' ' -f1 /proc/uptime)
	# dash has no pipefail: the case's status travels through a file.
	{
		timeout -k 10 "$limit" sh "$f" </dev/null 2>&1
		echo $? >"$work/rc"
	} | tee "$work/out"
	rc=$(cat "$work/rc")
	end=$(cut -d' ' -f1 /proc/uptime)
	p=$(grep -c '^PASS ' "$work/out")
	n=$(grep -c '^FAIL ' "$work/out")
	extra=
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		extra="timed out after ${limit}s"
	elif [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
		extra="exited $rc without a FAIL line"
	elif [ "$p" -eq 0 ] && [ "$n" -eq 0 ]; then
		extra="reported no checks"
	elif [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; then
		echo "run-suite: $name printed FAIL lines but exited 0" >&2
	fi
	if [ -n "$extra" ]; then
		echo "FAIL $name: $extra"
		n=$((n + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + n))
	[ "$n" -eq 0 ] || failures="$failures $name"
	echo "$passed $failed" >"$results/suite-result"
	echo "=== $name: $p passed, $n failed, exit $rc," \
		"$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }') s"
done

suite_end=$(cut -d' ' -f1 /proc/uptime)
echo "=== suite on $(uname -r): $passed passed, $failed failed in $ncases cases," \
	"$(echo "$suite_start $suite_end" | awk '{ printf "%.1f", $2 - $1 }') s"
if [ "$failed" -gt 0 ]; then
	echo "=== failing cases:$failures"
	exit 1
fi
exit 0
