#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make sanitize: the unit tests and the CLI test built with clang's AddressSanitizer, UBSan and
# LeakSanitizer (every finding fatal) into their own output directory, then batch runs of the
# normal build under valgrind (memcheck, full leak check) on a hostile synthetic proc tree.
# Writes "<passed> <failed>" to $RESULTS/sanitize: the sanitized unit and CLI tests' own counts,
# plus one per valgrind run. Needs root, as the CLI test and the BPF unit tests do.
# Usage: run-sanitize.sh OUTPUT SAN_DIR   (from the repository root; MAKE and CLANG honoured)
set -u
out=$1
san=$2
RESULTS=${RESULTS:-$out/test-results}
mkdir -p "$RESULTS"
passed=0
failed=0
ok() { echo "PASS sanitize: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL sanitize: $1${2:+: $2}"; failed=$((failed + 1)); }
finish() {
	echo "$passed $failed" >"$RESULTS/sanitize"
	echo "sanitize: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# No option bounds LeakSanitizer's exit-time check: a SIGCONT that comes while its tracer attaches
# discards the attach's SIGSTOP and the process spins in sched_yield for ever. The CLI test never
# hangs up a live drmtop (tui_stop says why), and scripts/run-stage.py kills what outlives a stage.
export LSAN_OPTIONS="${LSAN_OPTIONS:-}"

# One make with its own OUTPUT: build/san gets its own objects, skeletons and results, so the
# normal build is never touched. Its unit-test and cli stages write to $san/test-results.
# Built on every core first (make test runs another host stage beside this one), then run one
# stage at a time.
rm -rf "$san/test-results"
for targets in "-j$(nproc) unit-build" "unit-test cli"; do
	# shellcheck disable=SC2086 # the job count and targets are words
	${MAKE:-make} --no-print-directory -k OUTPUT="$san" CC="${CLANG:-clang}" CFLAGS="$flags" \
		LDFLAGS="-fsanitize=address,undefined" $targets
done
for stage in unit cli; do
	if [ -s "$san/test-results/$stage" ]; then
		read -r p f <"$san/test-results/$stage"
		echo "sanitized $stage: $p passed, $f failed"
		passed=$((passed + p))
		failed=$((failed + f))
	else
		bad "sanitized $stage" "did not report (build failed?)"
	fi
done

# valgrind on the normal build: batch text, JSON and record over a proc tree of hostile input.
drmtop=$out/drmtop
if ! command -v valgrind >/dev/null; then
	bad valgrind "valgrind missing (scripts/install-deps.sh installs it)"
	finish
fi
[ -x "$drmtop" ] || { bad valgrind "$drmtop not built"; finish; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! tests/cli/hostile-proc.sh "$T"; then
	bad "hostile proc tree" "could not be made (root needed for mknod)"
	finish
fi
vg() {	# NAME ARGS...: one drmtop run under memcheck; any error or leak fails it
	local name=$1
	shift
	if valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=all --track-origins=yes "$drmtop" "$@" \
		>"$T/$name.out" 2>"$T/$name.err"; then
		ok "valgrind $name"
	else
		bad "valgrind $name" "rc=$? $(head -c 3000 "$T/$name.err")"
	fi
}
common=(--proc-root "$T/proc" --sys-root "" --source fdinfo)
vg batch-text "${common[@]}" -b -n 2 -d 0.2
vg batch-json "${common[@]}" -J -n 2 -d 0.2
vg batch-csv "${common[@]}" -o csv -n 2 -d 0.2
vg record record "${common[@]}" -t 0.5
vg record-json record "${common[@]}" -t 0.5 -J
vg pid-filter "${common[@]}" -J -n 1 -d 0.2 -p 10,11
# Error paths leak nothing either.
valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
	"$drmtop" --proc-root "$T/nonexistent" -J -n 1 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && ok "valgrind unreadable proc root" || bad "valgrind unreadable proc root" "rc=$rc"
finish
