#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel style, the parts a machine can check: C lines of at most 100 columns (tabs count 8; as
# in checkpatch, a user-visible string is never split, so a line passes if it fits without its
# longest string literal), C indented by tabs, no trailing white space, and an SPDX line at the
# top of every source file.
# Writes "<passed> <failed>" (files) to $RESULTS/style when RESULTS is set.
set -u
cd "$(dirname "$0")/.." || exit 1
files=$(git ls-files '*.c' '*.h' '*.sh' 'Makefile' '*.mk' 'Kbuild' '.ci/run' | grep -v '^vmlinux/vmlinux.h$')
passed=0
failed=0
for f in $files; do
	[ -f "$f" ] || continue
	problems=$(
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' ||
			echo "$f: no SPDX-License-Identifier line in the first three lines"
		grep -n '[[:space:]]$' "$f" | sed "s|^|$f:|; s|:\([0-9]*\):.*|:\1: trailing white space|"
		case "$f" in
		*.c | *.h)
			expand -t 8 "$f" | awk -v f="$f" 'length > 100 {
				s = $0; best = 0
				while (match(s, /"([^"\\]|\\.)*"/)) {
					if (RLENGTH > best) best = RLENGTH
					s = substr(s, RSTART + RLENGTH)
				}
				if (length - best > 100 || best == 0)
					printf "%s:%d: %d columns\n", f, NR, length
			}'
			grep -n '^        ' "$f" | sed "s|^|$f:|; s|:\([0-9]*\):.*|:\1: indented with spaces|"
			;;
		esac
	)
	if [ -n "$problems" ]; then
		# FAIL lines are what make test repeats after its totals, the tail CI shows.
		printf '%s\n' "$problems" | sed 's/^/FAIL style: /'
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
done
echo "style: $passed files clean, $failed with problems"
[ -n "${RESULTS:-}" ] && mkdir -p "$RESULTS" && echo "$passed $failed" > "$RESULTS/style"
[ "$failed" -eq 0 ]
