#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check-targets.sh REPORT: every target the bench measures has its line in REPORT (bench/report.sh's
# output) with a figure and a verdict: "met", "not met[: the floor...]" or "not judged: WHY" (a smoke run, a
# loaded host); "not measured" or a missing line fails, and so does a missing "targets:" summary.
# The targets of the parts bench-smoke does not measure (the 2000:100 refresh point, peers,
# snapshot timing) may say "not measured". bench-smoke runs this; bench/judge-test.sh tests it.
set -u
report=$1
rc=0
for t in "render-node open + close" "GEM create + close (4 KiB)" "zero-length jobs/s" \
	"cheap ioctl (DRM_IOCTL_VERSION)" "cheap ioctl (DRM_IOCTL_GET_CAP)" \
	"peak RSS, 5,000 clients open"; do
	grep -F "$t " "$report" | grep -Eq '[0-9] .* (met|not met|not met: .+|not judged: .+)$' ||
		{ echo "check-targets: no figure and verdict for '$t'" >&2; rc=1; }
done
for t in "refresh bpf/fdinfo, 2000:100" "refresh vs gputop, nvtop" "snapshot, handles map full"; do
	grep -F "$t " "$report" | grep -Eq ' (met|not met|not judged: .+|not measured: .+)$' ||
		{ echo "check-targets: no verdict for '$t'" >&2; rc=1; }
done
grep -Eq '^targets: [0-9]+ met, [0-9]+ not met, [0-9]+ not judged, [0-9]+ not measured' "$report" ||
	{ echo "check-targets: no 'targets:' summary" >&2; rc=1; }
exit $rc
