#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Two GPUs of one driver (simgpu devices=2), each with jobs the driver submits itself (a clear of
# every new BO on its copy engine, clear_jobs=1): drmtop keeps one kernel client per device,
# each with its own device's jobs and busy time, and the devices' GEM totals apart. A tool that
# keyed kernel clients by driver would merge them; so would an exporter. Unbound, both devices
# and their kernel clients leave the tracer's maps, the kernel clients' figures in close records.
# make test runs it on 6.1 and 7.2 (tests/vm/vm.mk says why not on 6.12).
. tests/vm/case-lib.sh

KO=${VM_SIMGPU:-build/kmod/$(uname -r)/simgpu.ko}
WORKLOAD=build/tests/simgpu-workload
DBG=/sys/kernel/debug
tmp=${VM_RESULTS:-/tmp}/52-bpf-two-devices
rm -rf "$tmp"
mkdir -p "$tmp"
TOP_PID=
SERVE_PID=
PORT=9471

restore() {
	for p in $TOP_PID $SERVE_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	grep -q '^simgpu ' /proc/modules && unload_wait simgpu
	# shellcheck disable=SC2086 # the parameters are words
	insmod "$KO" ${VM_SIMGPU_PARAMS:-}
}
trap restore EXIT

if ! unload_wait simgpu ||
	! insmod "$KO" devices=2 clear_jobs=1 clear_ns_per_mib=20000000; then
	fail two-devices-load "insmod $KO devices=2 failed"
	exit 1
fi
minor() { sed -n 's/^device .*render_minor=\([0-9]*\).*/\1/p' "$DBG/$1/device"; }
m0=$(minor simgpu)
m1=$(minor simgpu1)
if [ -z "$m0" ] || [ -z "$m1" ] || [ "$m0" = "$m1" ]; then
	fail two-devices-minors "simgpu render minor '$m0', simgpu1 '$m1'"
	exit 1
fi
pass two-devices-minors
loopback_up || fail two-devices-loopback "cannot bring the loopback interface up"

# kfield DEV KEY: the kernel client's KEY in simgpu's debugfs for DEV.
kfield() { awk -v k="$2" '$3 == "kind=kernel" { for (i = 4; i <= NF; i++)
	if (index($i, k "=") == 1) { sub(/.*=/, "", $i); print $i } }' "$DBG/$1/clients"; }
kjobs() { kfield "$1" copy_completed; }

drmtop_bg "$tmp/top.json" "$tmp/top.err" -J -d 1
build/drmtop serve --listen "127.0.0.1:$PORT" -d 0.5 2>"$tmp/serve.err" &
SERVE_PID=$!
_t=0
until curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$PORT/metrics" || [ $_t -ge 300 ]; do
	sleep 0.2
	_t=$((_t + 1))
done
# Each BO a clear job of 20 ms on its device's copy engine: 3 on the first device, 5 on the
# second, so a merged kernel client would show 8 and a swapped one the other's count.
"$WORKLOAD" -D "/dev/dri/renderD$m0" -s 'proc p; open a; bo a b size=1M count=3' \
	>"$tmp/wl0.out" 2>&1 || fail two-devices-workload0 "$(tail -n 3 "$tmp/wl0.out")"
"$WORKLOAD" -D "/dev/dri/renderD$m1" -s 'proc p; open a; bo a b size=1M count=5' \
	>"$tmp/wl1.out" 2>&1 || fail two-devices-workload1 "$(tail -n 3 "$tmp/wl1.out")"
# The clears run after the ioctl returns; then two more frames so the last one has them all.
_t=0
while { [ "$(kjobs simgpu)" != 3 ] || [ "$(kjobs simgpu1)" != 5 ]; } && [ $_t -lt 100 ]; do
	sleep 0.1
	_t=$((_t + 1))
done
sleep 2.5
curl -sf --max-time 10 "http://127.0.0.1:$PORT/metrics" >"$tmp/metrics.txt" ||
	fail two-devices-serve "no answer: $(head -c 300 "$tmp/serve.err")"
kill "$SERVE_PID"
wait "$SERVE_PID"
SERVE_PID=
for d in simgpu simgpu1; do
	cp "$DBG/$d/clients" "$tmp/$d.clients"
	cp "$DBG/$d/device" "$tmp/$d.device"
done
kt0=$(kjobs simgpu)
kt1=$(kjobs simgpu1)
kb0=$(kfield simgpu copy_busy_ns)
kb1=$(kfield simgpu1 copy_busy_ns)
# The frame before the devices go; then both are unbound (module unload) under the same drmtop.
frames=$(wc -l <"$tmp/top.json")
sed -n "${frames}p" "$tmp/top.json" >"$tmp/last.json"
unload_wait simgpu || fail two-devices-unload "rmmod simgpu failed"
sleep 2.5
kill "$TOP_PID"
drmtop_bg_last "$tmp/top.json" "$tmp/gone.json"
tail -n "+$((frames + 1))" "$tmp/top.json" >"$tmp/after.json"
[ "$kt0" = 3 ] && [ "$kt1" = 5 ] && pass two-devices-truth ||
	fail two-devices-truth "simgpu kernel copy jobs: $kt0 and $kt1, expected 3 and 5"

# Each device's kernel client: one, on that device's minor, with that device's clears (busy
# time within 1 % or 1 ms of simgpu's, plus the start bracket the tracer reports).
for i in 0 1; do
	eval "m=\$m$i kt=\$kt$i kb=\$kb$i"
	jq_check "two-devices-kernel-client-$i" "[.bpf.unmatched_clients[] | select(.kernel)] as \$k |
		[\$k[] | select(.minor == $m)] as \$mine |
		[\$mine[0].engines[]? | select(.name == \"copy\")][0] as \$e |
		(\$mine | length) == 1 and \$e.jobs == $kt and
		(\$e.busy_ns - $kb | fabs) <= ([$kb * 0.01, 1000000] | max) + \$e.start_slack_ns" \
		"$tmp/last.json" "[.bpf.unmatched_clients[] | select(.kernel)]"
done
# The exporter: a kernel client series per GPU, each with its own device's clears.
kseries=$(grep '^drmtop_client_jobs_total{' "$tmp/metrics.txt" | grep 'comm="\[kernel\]"' |
	grep 'engine="copy"')
got=$(printf '%s\n' "$kseries" | awk 'NF { print $NF }' | sort -n | tr '\n' ' ')
ndev=$(printf '%s\n' "$kseries" | grep -o 'device="[^"]*"' | sort -u | wc -l)
[ "$got" = "$kt0 $kt1 " ] && [ "$ndev" = 2 ] && pass two-devices-exporter ||
	fail two-devices-exporter "kernel copy job series: $(echo $kseries)"
jq_check two-devices-kernel-clients "[.bpf.unmatched_clients[] | select(.kernel)] | length == 2" \
	"$tmp/last.json" "[.bpf.unmatched_clients[] | select(.kernel)]"
# Unbound, the devices and their kernel clients are gone from the tracer's live figures, each
# kernel client's final figures in a close record.
jq_check two-devices-unbound-forgotten "([.bpf.unmatched_clients[] | select(.kernel and
	.driver == \"simgpu\")] | length) == 0 and
	([.bpf.devices[] | select(.driver == \"simgpu\")] | length) == 0" "$tmp/gone.json" \
	"{k: [.bpf.unmatched_clients[] | select(.kernel)], d: .bpf.devices}"
jq -s '[.[].bpf.closed_clients[] | select(.kernel and .driver == "simgpu")]' "$tmp/after.json" \
	>"$tmp/closed-kernel.json"
jq_check two-devices-unbound-closed "([.[] | [.engines[] | select(.name == \"copy\") | .jobs] |
	add] | sort) == [$kt0, $kt1] and ([.[].minor] | sort) == ([$m0, $m1] | sort)" \
	"$tmp/closed-kernel.json"
[ "$case_fails" -eq 0 ]
