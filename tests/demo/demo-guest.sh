#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs inside the demo VM (tests/demo/demo.mk): starts simgpu-workload's "mixed" scenario in the
# background (named processes with their own engine mixes and memory, some coming and going)
# and drmtop live in front of it. Quitting drmtop (q) ends the demo and powers the VM off.
# DEMO_DRMTOP_ARGS adds options to drmtop; DEMO_BATCH=1 prints DEMO_ITERATIONS batch frames
# instead of the live view (for a terminal that cannot show it); DEMO_RECORD=SECONDS runs
# `drmtop record -t SECONDS` instead, started before the workload so it sees every client open.
set -u
WL=build/tests/simgpu-workload
DRMTOP=build/drmtop
log=$(mktemp)
if [ -n "${DEMO_RECORD:-}" ]; then
	# shellcheck disable=SC2086
	"$DRMTOP" record -t "$DEMO_RECORD" ${DEMO_DRMTOP_ARGS:-} 2>"$log.rec" &
	rec=$!
	until grep -q recording "$log.rec" 2>/dev/null; do sleep 0.1; done
	# The workload outlives the session: the summary has clients still open at its end.
	"$WL" --duration "$((DEMO_RECORD + 30))s" mixed >/dev/null 2>"$log" &
	wl=$!
	wait "$rec"
	status=$?
	kill -TERM "$wl" 2>/dev/null
	wait "$wl"
	rm -f "$log" "$log.rec"
	exit "$status"
fi
"$WL" --duration 60m mixed >/dev/null 2>"$log" &
wl=$!
trap 'kill -TERM $wl 2>/dev/null; wait $wl 2>/dev/null; rm -f "$log"' EXIT
sleep 1
if ! kill -0 "$wl" 2>/dev/null; then
	echo "demo: the workload did not start: $(cat "$log")" >&2
	exit 1
fi
export TERM=${TERM:-linux}
# shellcheck disable=SC2086
if [ "${DEMO_BATCH:-0}" = 1 ]; then
	"$DRMTOP" -b -d 1 -n "${DEMO_ITERATIONS:-10}" ${DEMO_DRMTOP_ARGS:-}
else
	"$DRMTOP" -d 1 ${DEMO_DRMTOP_ARGS:-}
fi
