#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# build-base.sh REV: builds drmtop of git revision REV (its BPF skeletons embedded) in a
# worktree build/bench/base-<12 hex of the commit>/, reused when it is already there at that
# commit, and prints the binary's absolute path. bench/run-bench.sh runs it for BENCH_BASE; the
# guest finds the binary at the same path (the host root is its root, read-only).
# The build's output goes to stderr. Exit 1 on a bad revision or a failed build.
set -u
top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top" || exit 1
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: bench/build-base.sh REV" >&2
	exit 1
fi
sha=$(git rev-parse -q --verify "$1^{commit}") ||
	{ echo "bench: BENCH_BASE '$1' is no commit of this repository" >&2; exit 1; }
wt=$top/build/bench/base-$(echo "$sha" | cut -c1-12)
if [ -e "$wt" ]; then
	# Never moved: a worktree at another commit is someone's, not ours to check out over. A
	# plain directory there answers for the repository around it: its top level says which.
	if [ "$(git -C "$wt" rev-parse --show-toplevel 2>/dev/null)" != "$wt" ] ||
		[ "$(git -C "$wt" rev-parse -q --verify HEAD 2>/dev/null)" != "$sha" ]; then
		echo "bench: $wt exists but is no worktree at $sha: remove it" \
			"(git worktree remove --force $wt)" >&2
		exit 1
	fi
	echo "bench: base $sha: reusing the worktree $wt" >&2
else
	mkdir -p "$top/build/bench" || exit 1
	echo "bench: base $sha: worktree $wt" >&2
	# -f: make clean removes build/ but leaves the worktree registered; add refuses such a
	# path without it.
	git worktree add -f --detach "$wt" "$sha" >&2 || {
		echo "bench: git worktree add $wt $sha failed" >&2
		exit 1
	}
fi
# Its own build/, whatever OUTPUT or flags the make bench above us was given: build/drmtop
# here, the one a VM may be running, is never touched.
echo "bench: building the base drmtop (make -C $wt build/drmtop)" >&2
(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$wt" -j"$(nproc)" OUTPUT=build build/drmtop) >&2 || {
	echo "bench: the base drmtop of $sha did not build (above); the worktree is $wt" >&2
	exit 1
}
[ -x "$wt/build/drmtop" ] || { echo "bench: no $wt/build/drmtop after the build" >&2; exit 1; }
echo "$wt/build/drmtop"
