#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# bench-refresh-ab.sh: the refresh cost of two drmtop builds side by side in one boot, so a
# change is judged by ratios taken under the same load (run it in the VM, as bench-guest.sh:
#   tests/vm/run-in-vm.sh --kernel 6.12 --timeout 3000 --env AB_OLD=build/before/drmtop \
#     -- sh bench/bench-refresh-ab.sh
# with the old build copied below the repository: the guest's /tmp is its own). Per point "procs:clients" (bench-spawn's sleepers and DRM client holders) and round, each
# of old/new x --source fdinfo/bpf runs `drmtop -J -d 0.1` under bench-refresh (2 frames of
# warm-up, 8 measured), in an order rotated every round. One line per run:
#   ab <point> <build> <source> <round> cpu_ms sched_ms procs_seen fds_seen from_tracer
#      simgpu_clients <digest of the simgpu clients' key, pid, fd, comm and holders>
# The digest is equal across builds when both list the same clients the same way.
# Knobs: AB_OLD (required), AB_NEW (build/drmtop), AB_ROUNDS (3), AB_POINTS ("2000:100 200:20").
set -u
B=build/bench
OLD=${AB_OLD:?AB_OLD: the drmtop to compare against}
NEW=${AB_NEW:-build/drmtop}
ROUNDS=${AB_ROUNDS:-3}
POINTS=${AB_POINTS:-2000:100 200:20}
[ -x "$OLD" ] && [ -x "$NEW" ] || { echo "bench-refresh-ab: $OLD or $NEW missing" >&2; exit 1; }
T=$(mktemp -d)
ulimit -n 65536 2>/dev/null
NODE=/dev/dri/renderD$(sed -n 's/.*render_minor=\([0-9]*\).*/\1/p' /sys/kernel/debug/simgpu/device)
[ -c "$NODE" ] || { echo "bench-refresh-ab: no simgpu render node" >&2; exit 1; }
echo "ab-machine kernel $(uname -r) vcpus $(nproc) load $(cut -d' ' -f1-3 /proc/loadavg)"
SIM='[.clients[] | select(.driver == "simgpu") | {key, pid, fd, comm, holders}] | sort_by(.key)'
for pt in $POINTS; do
	$B/bench-spawn -D "$NODE" -p "${pt%%:*}" -c "${pt#*:}" >"$T/spawn.out" 2>&1 &
	spawn=$!
	_t=0
	until grep -q ready "$T/spawn.out" || [ $_t -ge 1200 ]; do sleep 0.1; _t=$((_t + 1)); done
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		set -- old:fdinfo old:bpf new:fdinfo new:bpf
		# rotate by the round number, so no configuration always runs first
		k=1
		while [ $k -lt "$r" ]; do first=$1; shift; set -- "$@" "$first"; k=$((k + 1)); done
		for cfg in "$@"; do
			bin=$NEW
			[ "${cfg%%:*}" = old ] && bin=$OLD
			out=$($B/bench-refresh -w 2 -n 8 -o "$T/frame.json" -- "$bin" -J -d 0.1 \
				--source "${cfg#*:}")
			f() { echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
			echo "ab $pt ${cfg%%:*} ${cfg#*:} $r $(f cpu_ms_per_frame) $(f sched_ms_per_frame)" \
				"$(jq -r '"\(.scan.processes) \(.scan.fds) \(.scan.from_tracer // false)"' \
					"$T/frame.json")" \
				"$(jq "[.clients[] | select(.driver == \"simgpu\")] | length" "$T/frame.json")" \
				"$(jq -c "$SIM" "$T/frame.json" | md5sum | cut -c1-12)"
		done
		r=$((r + 1))
	done
	kill "$spawn" 2>/dev/null
	wait "$spawn" 2>/dev/null
done
echo "ab-machine load-after $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$T"
