#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: bytes exact; nothing timed
#
# A real driver and a real client that nobody here wrote: the kernel's virtio-gpu on QEMU's
# virtio-gpu-pci, and Debian's modetest (libdrm-tests) setting a mode with a dumb buffer.
# Ground truth comes from the driver, not from drmtop's own arithmetic: the DRM core's debugfs
# `framebuffer` file lists each framebuffer's allocating process and its GEM object's size.
# drmtop must show modetest's client, named as the driver, with exactly that many bytes (the
# driver's fdinfo figure too where it prints one: virtio-gpu prints no fdinfo at all on 6.1,
# 6.12 and 7.2, so the client is known by its fd and the tracer names its driver), `record` must
# keep the client after it left with that peak and every card libdrm opened on the way, and the
# device's GEM bytes must go back to where they were.
# virtio-gpu does not use drm_sched: this is the GEM side of the tracer on a driver of its own.
# Checked on Debian 6.1, 6.12 and 7.2.
set -u

. tests/vm/case-lib.sh

DRMTOP=${DRMTOP:-build/drmtop}
tmp=$(mktemp -d)
MT_PID=
TOP_PID=
REC_PID=
cleanup() {
	[ -n "$MT_PID" ] && kill "$MT_PID" 2>/dev/null
	[ -n "$TOP_PID" ] && kill "$TOP_PID" 2>/dev/null
	[ -n "$REC_PID" ] && kill "$REC_PID" 2>/dev/null
	wait 2>/dev/null
	rm -f "$tmp/mt.in"	# a FIFO: the results share (9p) takes regular files only
	[ -n "${VM_RESULTS:-}" ] && mkdir -p "$VM_RESULTS/85" &&
		cp -r "$tmp"/* "$VM_RESULTS/85/" 2>/dev/null
	rm -rf "$tmp"
	# Leave no second DRM device to the cases after this one.
	[ -d /sys/module/virtio_gpu ] && unload_wait virtio_gpu
}
trap cleanup EXIT

if ! command -v modetest >/dev/null; then
	fail virtio-setup "modetest not found (Debian package libdrm-tests, scripts/install-deps.sh)"
	exit 1
fi
if ! grep -qs 0x1050 /sys/bus/pci/devices/*/device; then
	fail virtio-setup "no virtio-gpu PCI device (run-in-vm.sh adds -device virtio-gpu-pci)"
	exit 1
fi
modprobe virtio_gpu || { fail virtio-setup "modprobe virtio_gpu failed"; exit 1; }

# The card node and debugfs directory of virtio-gpu: the DRM core's debugfs `name` file says
# which driver a minor belongs to (the card's sysfs device is the PCI function, bound to
# virtio-pci, not to virtio_gpu).
minor=
_t=0
while [ -z "$minor" ] && [ $_t -lt 100 ]; do
	for n in /sys/kernel/debug/dri/[0-9]*/name; do
		read -r drv _ <"$n" 2>/dev/null || continue
		_m=${n%/name}
		_m=${_m##*/}
		[ "$drv" = virtio_gpu ] && [ "$_m" -lt 64 ] && minor=$_m
	done
	[ -n "$minor" ] || sleep 0.1
	_t=$((_t + 1))
done
card=card$minor
if [ -z "$minor" ] || [ ! -c "/dev/dri/$card" ]; then
	fail virtio-setup "virtio_gpu loaded, no card: $(cat /sys/kernel/debug/dri/*/name 2>&1)"
	exit 1
fi
fbfile=/sys/kernel/debug/dri/$minor/framebuffer
[ -r "$fbfile" ] || { fail virtio-setup "no $fbfile"; exit 1; }

# The first connected connector and its first mode (the preferred one: 1280x800 from QEMU).
modetest -M virtio_gpu -c >"$tmp/connectors" 2>&1
conn=$(awk '$3 == "connected" { print $1; exit }' "$tmp/connectors")
mode=$(awk -v c="$conn" '$1 == c { in_c = 1; next }
	in_c && /^[0-9]+[ \t]+[0-9]+[ \t]+connected|^[0-9]+[ \t]+[0-9]+[ \t]+disconnected/ { exit }
	in_c && $2 ~ /^[0-9]+x[0-9]+$/ { print $2; exit }' "$tmp/connectors")
if [ -z "$conn" ] || [ -z "$mode" ]; then
	fail virtio-setup "no connected connector with a mode: $(head -c 600 "$tmp/connectors")"
	exit 1
fi
pass virtio-setup
echo "info: virtio-gpu is $card; modetest sets $mode on connector $conn"

# drmtop with the tracer, one frame a second, and a record spanning modetest's whole life.
"$DRMTOP" record -t 600 -J >"$tmp/record.json" 2>"$tmp/record.err" &
REC_PID=$!
drmtop_bg "$tmp/top.all" "$tmp/top.err" -J -d 1 --source auto
sleep 2
tail -n 1 "$tmp/top.all" >"$tmp/before.json"
jq_check virtio-tracer-attached '.bpf.active == true' "$tmp/before.json" '.bpf'
# gpu_mem/gpu_mem_total (CONFIG_TRACE_GPU_MEM): read exactly where the kernel has it, and its
# absence no missing hook (none of Debian's x86 kernels has it; virtio-gpu would not emit it).
has_gpu_mem=false
[ -d /sys/kernel/tracing/events/gpu_mem/gpu_mem_total ] && has_gpu_mem=true
jq_check virtio-gpu-mem-total-traced ".bpf.gpu_mem.traced == $has_gpu_mem and
	((.bpf.detail // \"\") | test(\"gpu_mem\") | not)" "$tmp/before.json" ".bpf | {gpu_mem, detail}"
base=$(jq "[.bpf.devices[]? | select(.driver == \"virtio_gpu\") | .gem_bytes] | add // 0" \
	"$tmp/before.json")

# modetest holds the mode (and its buffer) until a line arrives on its stdin.
mkfifo "$tmp/mt.in"
modetest -M virtio_gpu -s "$conn:$mode" <"$tmp/mt.in" >"$tmp/modetest.out" 2>&1 &
MT_PID=$!
mtp=$MT_PID
exec 3>"$tmp/mt.in"
_t=0
until grep -q "allocated by = modetest" "$fbfile" 2>/dev/null || [ $_t -ge 300 ]; do
	sleep 0.1
	_t=$((_t + 1))
done
cp "$fbfile" "$tmp/framebuffer"
# The GEM object of modetest's framebuffer: "obj[0]:" then "size=<bytes>" in its block.
want=$(awk '/^framebuffer\[/ { fb = 0 } /allocated by = modetest/ { fb = 1 }
	fb && /obj\[0\]:/ { obj = 1 } fb && obj && $1 ~ /^size=[0-9]+$/ {
		sub("size=", "", $1); print $1; exit }' "$tmp/framebuffer")
if [ -z "$want" ]; then
	fail virtio-modetest-framebuffer "none in debugfs: $(head -c 600 "$tmp/modetest.out")"
	exit 1
fi
pass virtio-modetest-framebuffer
echo "info: modetest's framebuffer object is $want bytes (debugfs framebuffer)"

# Two whole frames with modetest in them.
sleep 3
tail -n 1 "$tmp/top.all" >"$tmp/during.json"
MT="[.clients[] | select(.driver == \"virtio_gpu\" and .pid == $mtp)]"
jq_check virtio-client-shown "$MT | length == 1 and .[0].comm == \"modetest\"" "$tmp/during.json" \
	"[.clients[] | {pid, comm, driver}], .bpf.unmatched_clients"
jq_check virtio-client-bpf-bytes "$MT | .[0].bpf.memory.total_bytes == $want" "$tmp/during.json" \
	"$MT | .[0] | {memory, bpf}"
# The driver's own fdinfo of modetest's fd: where it prints a memory key (none of 6.1, 6.12 and
# 7.2's virtio-gpu prints any) drmtop's fdinfo figure must be those bytes; where it prints none,
# drmtop must show none rather than make one up.
fdinfo_bytes=
for l in /proc/"$mtp"/fd/*; do
	[ "$(readlink "$l")" = "/dev/dri/$card" ] || continue
	cp "/proc/$mtp/fdinfo/${l##*/}" "$tmp/modetest.fdinfo"
	fdinfo_bytes=$(awk '$1 ~ /^drm-(total|resident)-/ { v = $2
		if ($3 == "KiB") v *= 1024; else if ($3 == "MiB") v *= 1048576
		if (!seen[$1]++) { if ($1 ~ /total/) t += v; else r += v } }
		END { if (t) print t; else if (r) print r }' "$tmp/modetest.fdinfo")
done
if [ -n "$fdinfo_bytes" ]; then
	echo "info: virtio-gpu's fdinfo prints $fdinfo_bytes bytes for modetest"
	jq_check virtio-client-fdinfo-bytes "$MT | .[0] | [.memory[] | .total_bytes //
		.resident_bytes] | add == $fdinfo_bytes" "$tmp/during.json" "$MT | .[0].memory"
else
	echo "info: virtio-gpu's fdinfo has no memory keys on $(uname -r)"
	jq_check virtio-client-fdinfo-none "$MT | .[0] | (.memory | length) == 0" \
		"$tmp/during.json" "$MT | .[0] | {fdinfo_format, memory}"
fi
jq_check virtio-client-not-diverged "$MT | .[0].bpf.memory.diverged != true" "$tmp/during.json" \
	"$MT | .[0].bpf.memory"
jq_check virtio-device-bytes "([.bpf.devices[] | select(.driver == \"virtio_gpu\") | .gem_bytes] |
	add) - $base == $want" "$tmp/during.json" ".bpf.devices"

# modetest restores the previous mode, frees its buffer and exits.
echo >&3
exec 3>&-
wait "$MT_PID"
mt_rc=$?
MT_PID=
[ $mt_rc -eq 0 ] && pass virtio-modetest-exit || fail virtio-modetest-exit "modetest exited $mt_rc"
sleep 3
tail -n 1 "$tmp/top.all" >"$tmp/after.json"
jq_check virtio-client-gone "$MT | length == 0" "$tmp/after.json" "[.clients[] | {pid, comm}]"
jq_check virtio-device-bytes-back "([.bpf.devices[] | select(.driver == \"virtio_gpu\") |
	.gem_bytes] | add // 0) == $base" "$tmp/after.json" ".bpf.devices"
jq_check virtio-no-loss '.bpf.missed.since_start == 0' "$tmp/after.json" '.bpf.missed'

kill -INT "$REC_PID"
wait "$REC_PID"
rec_rc=$?
REC_PID=
[ $rec_rc -eq 0 ] && pass virtio-record-exit || fail virtio-record-exit "record exited $rec_rc"
# libdrm's drmOpen finds virtio-gpu by opening each card and asking its name: modetest's
# earlier opens of the other cards are short-lived clients the record keeps too, all closed.
jq_check virtio-record-client "[.clients[] | select(.driver == \"virtio_gpu\" and .pid == $mtp and
	.bpf.peak_total_bytes > 0)] | length == 1 and .[0].comm == \"modetest\" and
	.[0].bpf.peak_total_bytes == $want and .[0].closed == true" "$tmp/record.json" \
	"[.clients[] | select(.pid == $mtp) | {key, driver, closed, bpf}]"
jq_check virtio-record-probes-closed "[.clients[] | select(.pid == $mtp)] | length >= 2 and
	all(.closed == true)" "$tmp/record.json" \
	"[.clients[] | select(.pid == $mtp) | {key, driver, closed}]"
[ "$case_fails" -eq 0 ]
