#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-in-vm.sh --kernel <release|6.1|6.12> [--simgpu-params "k=v ..."] [--no-simgpu]
#              [--timeout SEC] [--interactive] [--run-dir DIR] [--env NAME=VALUE]...
#              -- <command...>
#
# Boots a Debian kernel (fetched by fetch-kernel.sh, never the host's) under QEMU TCG with the
# host root as a read-only 9p root and runs <command> there as root, cwd = this repository,
# after drm, drm_kms_helper, drm_shmem_helper, gpu-sched, vgem and (when
# build/kmod/<release>/simgpu.ko exists and --no-simgpu is not given) simgpu are loaded.
# The guest sees the results of this run writable at /run/vm ($VM_RESULTS); on the host they
# are in DIR (--run-dir; default build/vm/run/<release>/, or build/vm/run/<release>.pid<N>/ when
# another VM of that release is running): console.log, dmesg.txt, status, timing, and whatever
# the command wrote there. --timeout 0 means no time limit (default 600 s). --env adds a
# variable to the command's otherwise clean environment.
# The guest's vCPUs share one host thread (VM_TCG_THREAD=single): with multi-threaded TCG, a vCPU
# could loop forever on the int3 the kernel plants while it patches a live function (BPF
# trampoline attach, text_poke_bp), seen on 6.1 as a soft lockup at drm_sched_job_cleanup+0 in
# two scheduler kthreads while drmtop attached; VM_TCG_THREAD=multi brings it back.
# VM_SMP (default 2) and VM_MEM
# (default 2G) size the guest; on a loaded 2-core host VM_SMP=1 runs exec-heavy scripts 2-3x
# faster, at the price of no real parallelism in the guest.
#
# Exit status: the command's own status when it ran (0..124; a status >= 125 from the guest
# command is reported and mapped to 1), 125 when the VM could not boot or set up (or bad
# usage), 126 when the timeout expired.
set -uo pipefail

EXIT_BOOT=125
EXIT_TIMEOUT=126

here=$(cd "$(dirname "$0")" && pwd)
# Physical paths: the guest resolves symlinks in its own mount tree, where a link into the
# host's /tmp (hidden by the guest's scratch tmpfs) or an absolute link seen from the initramfs
# would lead nowhere.
top=$(cd "$here/../.." && pwd -P)
vmdir=${VM_BUILD_DIR:-$top/build/vm}

usage() {
	sed -n '4,6p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit $EXIT_BOOT
}

err() {
	echo "run-in-vm: $*" >&2
}

orig_args=("$@")
kernel=
simgpu_params=
use_simgpu=1
timeout=600
interactive=0
rundir=
guest_env=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage; kernel=$2; shift 2 ;;
	--simgpu-params) [ $# -ge 2 ] || usage; simgpu_params=$2; shift 2 ;;
	--no-simgpu) use_simgpu=0; shift ;;
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
	--interactive) interactive=1; shift ;;
	--run-dir) [ $# -ge 2 ] || usage; rundir=$2; shift 2 ;;
	--env)
		[ $# -ge 2 ] || usage
		case $2 in
		[A-Za-z_]*=*) ;;
		*) err "--env takes NAME=VALUE, got '$2'"; exit $EXIT_BOOT ;;
		esac
		name=${2%%=*}
		case $name in
		*[!A-Za-z0-9_]*) err "--env: bad variable name '$name'"; exit $EXIT_BOOT ;;
		esac
		guest_env+=("$2")
		shift 2
		;;
	--) shift; break ;;
	*) err "unknown option '$1'"; usage ;;
	esac
done
if [ -z "$kernel" ] || [ $# -eq 0 ]; then
	usage
fi
case $timeout in
'' | *[!0-9]*) err "--timeout takes whole seconds, got '$timeout'"; exit $EXIT_BOOT ;;
esac

rel=$("$here/resolve-kernel.sh" "$kernel") || exit $EXIT_BOOT

# An arm64 kernel boots under qemu-system-aarch64 with an arm64 root (arm64-root.sh) in place of
# the host's, the checkout and the kernel bound into it at their own paths and the checkout's
# build/ replaced by the arm64 build (tests/arm64/cross.sh): binds in a mount namespace of this
# run's own, gone with it.
arm64_root=
guest_build=$top/build
if [ "${rel%-arm64}" != "$rel" ]; then
	if [ -z "${DRMTOP_VM_MOUNT_NS:-}" ]; then
		DRMTOP_VM_MOUNT_NS=1 exec unshare --mount --propagation private "$0" "${orig_args[@]}"
	fi
	arm64_root=${VM_ARM64_ROOT:-$top/build/arm64/root}
	guest_build=${VM_ARM64_BUILD:-$top/build/arm64/build}
	"$here/arm64-root.sh" "$arm64_root" || { err "cannot make the arm64 root"; exit $EXIT_BOOT; }
	arm64_root=$(cd "$arm64_root" && pwd -P)
	[ -x "$guest_build/drmtop" ] ||
		{ err "no $guest_build/drmtop: make arm64-vm-deps"; exit $EXIT_BOOT; }
	qemu=${QEMU:-qemu-system-aarch64}
	qemu_pkg="qemu-system-arm"
	export BUSYBOX=$arm64_root/bin/busybox
else
	qemu=${QEMU:-qemu-system-x86_64}
	qemu_pkg="qemu-system-x86"
fi
if ! command -v "$qemu" >/dev/null 2>&1; then
	err "$qemu not found: install $qemu_pkg (scripts/install-deps.sh)"
	exit $EXIT_BOOT
fi

"$here/fetch-kernel.sh" "$rel" || { err "cannot fetch kernel $rel"; exit $EXIT_BOOT; }
"$here/mkinitramfs.sh" "$rel" || { err "cannot build the initramfs for $rel"; exit $EXIT_BOOT; }
# build/vm/kernels may be a link to a cache shared between checkouts.
kdir=$(cd "$vmdir/kernels/$rel" && pwd -P) || { err "no $vmdir/kernels/$rel"; exit $EXIT_BOOT; }
initrd=$vmdir/initramfs/$rel.cpio.gz
if [ -n "$arm64_root" ]; then
	for d in "$top" "$top/build" "$kdir"; do
		mkdir -p "$arm64_root$d" || { err "cannot make $arm64_root$d"; exit $EXIT_BOOT; }
	done
	mount --bind "$top" "$arm64_root$top" && mount --bind "$guest_build" "$arm64_root$top/build" &&
		mkdir -p "$arm64_root$kdir" && mount --bind "$kdir" "$arm64_root$kdir" ||
		{ err "cannot bind the checkout and the kernel into $arm64_root"; exit $EXIT_BOOT; }
fi

simgpu=
if [ $use_simgpu = 1 ] && [ -f "$guest_build/kmod/$rel/simgpu.ko" ]; then
	simgpu=$top/build/kmod/$rel/simgpu.ko
elif [ -n "$simgpu_params" ]; then
	err "--simgpu-params given but no $top/build/kmod/$rel/simgpu.ko (make simgpu-modules)"
	exit $EXIT_BOOT
fi

# The results share. Whoever holds DIR.lock owns DIR; a second VM for the same release (another
# engineer in the same checkout) gets a directory of its own instead of waiting.
claim() {
	mkdir -p "$1" || return 1
	exec 9>"$1.lock"
	flock -n 9
}
# Private run directories (NAME.pid<N>) of runs that ended over half an hour ago go away.
for d in "$vmdir"/run/*.pid[0-9]*; do
	if [ ! -d "$d" ] || [ -z "$(find "$d" -maxdepth 0 -mmin +30)" ]; then
		continue
	fi
	flock -n "$d.lock" rm -rf "$d" && rm -f "$d.lock"
done
# Only ever empty a directory that an earlier run filled.
if [ -n "$rundir" ] && [ -d "$rundir" ] && [ -n "$(ls -A "$rundir")" ] &&
	[ ! -f "$rundir/vm.conf" ]; then
	err "$rundir is not empty and holds no earlier run (no vm.conf); not using it"
	exit $EXIT_BOOT
fi
if [ -n "$rundir" ]; then
	claim "$rundir" || { err "run directory $rundir is in use by another VM"; exit $EXIT_BOOT; }
else
	rundir=$vmdir/run/$rel
	if ! claim "$rundir"; then
		rundir=$vmdir/run/$rel.pid$$
		claim "$rundir" || { err "cannot claim $rundir"; exit $EXIT_BOOT; }
		err "$vmdir/run/$rel is in use by another VM; results go to $rundir"
	fi
fi
rundir=$(cd "$rundir" && pwd)
case $rundir in
*,*) err "QEMU cannot share a path with a comma: $rundir"; exit $EXIT_BOOT ;;
esac
rm -rf "${rundir:?}"/* "${rundir:?}"/.[!.]* 2>/dev/null

# vm.conf is sourced by the guest's /init (busybox sh): single-quote every value.
q() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
rows=24
cols=80
if [ $interactive = 1 ] && [ -t 0 ]; then
	read -r rows cols < <(stty size 2>/dev/null || echo "24 80")
fi
{
	echo "VM_RELEASE=$(q "$rel")"
	echo "VM_CWD=$(q "$top")"
	echo "VM_MODULES_DIR=$(q "$kdir/lib/modules")"
	# Host directories the guest must see at their own paths although they lie under /tmp,
	# where the guest mounts its scratch tmpfs (one per line; guest-init.sh binds them back).
	echo "VM_HOST_PATHS=$(q "$top
$kdir")"
	echo "VM_SIMGPU=$(q "$simgpu")"
	echo "VM_SIMGPU_PARAMS=$(q "$simgpu_params")"
	echo "VM_INTERACTIVE=$interactive"
	echo "VM_CONSOLE=$([ -n "$arm64_root" ] && echo ttyAMA0 || echo ttyS0)"
	echo "VM_TERM=$(q "${TERM:-vt100}")"
	echo "VM_ROWS=$rows"
	echo "VM_COLS=$cols"
} >"$rundir/vm.conf"
{
	for kv in "${guest_env[@]}"; do
		printf 'export %s=%s\n' "${kv%%=*}" "$(q "${kv#*=}")"
	done
	printf 'exec'
	for a in "$@"; do
		printf ' %s' "$(q "$a")"
	done
	printf '\n'
} >"$rundir/command"

# oops=panic + panic=-1 + -no-reboot: a kernel oops ends the VM at once instead of leaving a
# hung suite to the timeout.
append="panic=-1 oops=panic quiet loglevel=4 mitigations=off nokaslr rdinit=/init"
if [ -n "$arm64_root" ]; then
	# virt's PL011 console; max with QEMU's own pointer authentication, as the architected
	# one costs much under TCG and Debian's kernel signs its return addresses.
	append="console=ttyAMA0 $append"
	machine=(-machine virt -cpu "max,pauth-impdef=on")
else
	append="console=ttyS0,115200 $append tsc=reliable no_timer_check"
	machine=(-machine q35 -cpu max)
fi
qemu_args=(
	"${machine[@]}" -accel "tcg,thread=${VM_TCG_THREAD:-single}" -m "${VM_MEM:-2G}" -smp "${VM_SMP:-2}"
	-nodefaults -no-user-config -nographic -no-reboot
	-kernel "$kdir/boot/vmlinuz-$rel" -initrd "$initrd" -append "$append"
	-virtfs "local,path=${arm64_root:-/},mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$rundir,mount_tag=results,security_model=none"
	# A real DRM driver beside simgpu (case 85); the guest has no udev, so virtio_gpu stays
	# unloaded and the device unused until a case modprobes it.
	-device virtio-gpu-pci
)
# qboot starts the kernel sooner than SeaBIOS and prints no escape sequences on the console.
qboot_dir=$("$qemu" -L help 2>/dev/null | grep -m1 /)
[ -z "$arm64_root" ] && [ -n "$qboot_dir" ] && [ -f "$qboot_dir/qboot.rom" ] &&
	qemu_args+=(-bios qboot.rom)

echo "run-in-vm: booting $rel${simgpu:+ with simgpu${simgpu_params:+ ($simgpu_params)}}" \
	"($([ "$timeout" -gt 0 ] && echo "timeout ${timeout}s" || echo "no timeout")): $*" >&2
# --foreground keeps QEMU in our process group: Ctrl-C, or a signal to make's process group,
# must reach it rather than leave an orphaned VM running until the timeout.
interrupted=0
tmo=()
[ "$timeout" -gt 0 ] && tmo=(timeout --foreground -k 10 "$timeout")
start=$(date +%s.%N)
if [ $interactive = 1 ]; then
	# Serial and monitor share the terminal: Ctrl-A x quits QEMU.
	err "interactive console: the VM powers off when the command exits; Ctrl-A x kills it"
	"${tmo[@]}" "$qemu" "${qemu_args[@]}" -serial mon:stdio
	qrc=$?
	[ -t 0 ] && stty sane 2>/dev/null
else
	# QEMU runs in the background so that a signal to this script (bash defers traps while a
	# foreground command runs) stops the VM too. The guest's tty turns \n into \r\n; keep
	# logs and CI output free of \r.
	fifo_dir=$(mktemp -d)
	mkfifo "$fifo_dir/console"
	sed -u 's/\r$//' <"$fifo_dir/console" | tee "$rundir/console.log" &
	tee_pid=$!
	"${tmo[@]}" "$qemu" "${qemu_args[@]}" -serial stdio </dev/null >"$fifo_dir/console" 2>&1 &
	qemu_pid=$!
	trap 'interrupted=1; kill -TERM $qemu_pid 2>/dev/null' INT TERM HUP
	wait $qemu_pid
	while kill -0 $qemu_pid 2>/dev/null; do
		wait $qemu_pid
	done
	wait $qemu_pid
	qrc=$?
	trap - INT TERM HUP
	wait $tee_pid
	rm -rf "$fifo_dir"
fi
end=$(date +%s.%N)
wall=$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')

timing=
if [ -f "$rundir/timing" ]; then
	timing=$(awk 'NR == 1 { b = $1 } NR == 2 { e = $1 }
		END { if (e != "") printf "boot %.1f s, command %.1f s, ", b, e - b }' "$rundir/timing")
fi
echo "run-in-vm: $rel: ${timing}boot-to-result ${wall} s wall" >&2

if [ -f "$rundir/dmesg.txt" ]; then
	n=$(grep -cE 'WARNING:|BUG:|Oops|Call Trace' "$rundir/dmesg.txt")
	[ "$n" -eq 0 ] || err "guest kernel log has $n WARNING/BUG/Oops lines: $rundir/dmesg.txt"
fi

if [ $interrupted = 1 ]; then
	err "interrupted: the VM on $rel was stopped"
	exit $EXIT_BOOT
fi
if [ -f "$rundir/status" ]; then
	status=$(cat "$rundir/status")
	case $status in
	'' | *[!0-9]*) err "bad status '$status' from the guest"; exit $EXIT_BOOT ;;
	esac
	if [ "$status" -ge 125 ]; then
		err "guest command exited with $status (reported as 1)"
		exit 1
	fi
	exit "$status"
fi
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	err "TIMEOUT: $rel did not finish within ${timeout}s"
	exit $EXIT_TIMEOUT
fi
if [ -f "$rundir/error" ]; then
	err "VM setup failed on $rel: $(cat "$rundir/error")"
elif [ -f "$rundir/console.log" ] && grep -q 'Kernel panic' "$rundir/console.log"; then
	err "guest kernel panicked on $rel (see $rundir/console.log)"
else
	err "VM on $rel ended without a result (qemu status $qrc; see console output above)"
fi
exit $EXIT_BOOT
