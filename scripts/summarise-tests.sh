#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Adds up the "<passed> <failed>" files each test stage wrote and prints the closing line.
# Every expected stage must have reported: one that never ran is a failure, not a skip. Last, the
# failed stages' first FAIL lines (kept by scripts/run-stage.py): CI shows only a log's tail.
# Each stage's line says how long it took and when it started (its STAGE.time), counted from
# $dir/test.start (written by make test) where there is one, and the time since then: where the
# suite's time went, in any run's log.
set -u
dir=$1
shift
passed=0
failed=0
t0=
[ -s "$dir/test.start" ] && read -r t0 <"$dir/test.start"
for stage in "$@"; do
	if [ ! -s "$dir/$stage" ]; then
		echo "test stage '$stage' did not report results" >&2
		failed=$((failed + 1))
		continue
	fi
	read -r p f < "$dir/$stage"
	took=
	if [ -s "$dir/$stage.time" ]; then
		read -r start end <"$dir/$stage.time"
		took=" ($((end - start)) s${t0:+, from $((start - t0)) s})"
	fi
	echo "stage $stage: $p passed, $f failed$took"
	[ "$f" -eq 0 ] || failing="${failing:-} $stage"
	passed=$((passed + p))
	failed=$((failed + f))
done
[ -n "$t0" ] && echo "make test: $(($(date +%s) - t0)) s"
echo "$passed passed, $failed failed"
for stage in ${failing:-}; do
	if [ -s "$dir/$stage.fails" ]; then
		sed "s/^/$stage: /" "$dir/$stage.fails" | head -n 4 | cut -c1-300
	else
		echo "$stage: failed without a FAIL line; its own output, above, says why"
	fi
done
[ "$failed" -eq 0 ]
