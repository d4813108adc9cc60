#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unit-skeletons.sh: for each unit test that includes a BPF skeleton, through any header, one
# line "test_NAME drmtop_X.skel.h...", as the preprocessor follows the includes (-MG: the
# skeletons need not be generated yet). Its users: the arm64 stage (those tests need bpf(2),
# which qemu-user has not) and the harness (a test built alone makes them first). Run from the
# repository root; HOSTCC honoured. Exit 1, naming the test, if the preprocessor fails on one.
set -u
for t in tests/unit/test_*.c; do
	deps=$(${HOSTCC:-cc} -MM -MG -Iinclude -Itests/unit "$t") ||
		{ echo "unit-skeletons: $t: the preprocessor failed" >&2; exit 1; }
	skels=$(echo "$deps" | grep -o 'drmtop_[a-z_]*\.skel\.h' | sort -u | tr '\n' ' ')
	[ -z "$skels" ] && continue
	t=${t##*/}
	echo "${t%.c} ${skels% }"
done
