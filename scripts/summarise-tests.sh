#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Adds up the "<passed> <failed>" files each test stage wrote and prints the closing line.
# Every expected stage must have reported: one that never ran is a failure, not a skip.
set -u
dir=$1
shift
passed=0
failed=0
for stage in "$@"; do
	if [ ! -s "$dir/$stage" ]; then
		echo "test stage '$stage' did not report results" >&2
		failed=$((failed + 1))
		continue
	fi
	read -r p f < "$dir/$stage"
	echo "stage $stage: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
