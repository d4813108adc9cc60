#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The layering of src/: views read only the model. A view file whose includes reach, directly or
# not, a source's records (the BPF reader, the fdinfo scan) or the reconciler breaks it. The
# compiler lists each file's whole include closure (-MM), so indirect includes count too.
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
forbidden='bpf_reader\.h|bpf_tracer\.h|drmtop_bpf\.h|proc_scan\.h|fdinfo\.h|usage\.h|reconcile\.h|model_build\.h|\.skel\.h'
bad=0
for f in src/views/*.c; do
	deps=$($CC -std=c11 -D_GNU_SOURCE -Iinclude -Ibuild -MM "$f" | tr ' \\' '\n\n')
	hits=$(printf '%s\n' "$deps" | grep -E "($forbidden)\$" || true)
	if [ -n "$hits" ]; then
		echo "FAIL layers: $f reaches $(echo $hits | tr '\n' ' ')"
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "layers: every view reads only the model"
exit "$bad"
