#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the drmtop test VM (busybox sh inside the initramfs made by mkinitramfs.sh).
# Mounts the host root read-only (9p tag "hostroot") and the per-run results directory
# writable (9p tag "results"), sources the run's vm.conf from there (written by run-in-vm.sh),
# turns the host root into a chroot with fresh proc/sys/dev/debugfs/tracefs/bpffs and tmpfs
# /tmp and /run (with the host directories under /tmp the run needs bound back in), loads the DRM modules of the booted kernel (and simgpu when asked), runs the
# command, writes its exit status to the results share and powers off.
#
# Results share files: status (exit status of the command), timing (uptime seconds at command
# start and end), dmesg.txt, error (why the command could not be started).
# Checked on Debian 6.1.0-56-amd64, 6.12.117+deb12-amd64 and 6.12.117+deb12-arm64.

PATH=/bin
export PATH
R=/newroot
SHARE=$R/run/vm
MSIZE=262144

# "/init --run": the command itself, in the chroot with a clean environment and cwd = VM_CWD.
if [ "$1" = --run ]; then
	# shellcheck source=/dev/null # written by run-in-vm.sh for this run
	. $SHARE/vm.conf
	# $1 is expanded by the chroot's shell: VM_CWD, passed as an argument.
	# shellcheck disable=SC2016
	exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \
		LANG=C.UTF-8 TERM="$VM_TERM" DRMTOP_VM=1 VM_RELEASE="$VM_RELEASE" \
		VM_RESULTS=/run/vm VM_SIMGPU="$VM_SIMGPU" VM_SIMGPU_PARAMS="$VM_SIMGPU_PARAMS" \
		VM_CWD="$VM_CWD" \
		chroot $R /bin/sh -c 'cd "$1" && . /run/vm/command' sh "$VM_CWD"
fi

log() {
	echo "vm-init: $*"
}

# Nothing must keep the VM alive after a failure: say why, leave the reason for the host, stop.
die() {
	log "FATAL: $*"
	if grep -q " $SHARE 9p " /proc/mounts 2>/dev/null; then
		echo "$*" >"$SHARE/error"
		dmesg >"$SHARE/dmesg.txt" 2>/dev/null
		sync
	fi
	echo "drmtop-vm: setup failed: $*"
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
}

/bin/busybox --install -s /bin

mount -t proc proc /proc || die "mount /proc"
mount -t sysfs sysfs /sys || die "mount /sys"
mount -t devtmpfs devtmpfs /dev || die "mount /dev"

# 9p and virtio modules, host-decompressed and in dependency order (modules.order).
while read -r ko; do
	insmod "/lib/modules/$ko" || die "insmod $ko"
done </lib/modules/modules.order

mkdir -p $R
# The virtio-9p devices appear once virtio_pci has probed; give them a moment.
n=0
until mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=$MSIZE hostroot $R \
	2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 50 ] || die "cannot mount the host root (9p tag hostroot)"
	sleep 0.1
done

mount -t proc proc $R/proc || die "mount proc in chroot"
mount -t sysfs sysfs $R/sys || die "mount sysfs in chroot"
mount -t devtmpfs devtmpfs $R/dev || die "mount devtmpfs in chroot"
mkdir -p $R/dev/pts $R/dev/shm 2>/dev/null
mount -t devpts -o newinstance,ptmxmode=0666 devpts $R/dev/pts || die "mount devpts"
mount -t tmpfs tmpfs $R/dev/shm || die "mount /dev/shm"
mount -t debugfs debugfs $R/sys/kernel/debug || die "mount debugfs"
mount -t tracefs tracefs $R/sys/kernel/tracing || die "mount tracefs"
mount -t bpf bpf $R/sys/fs/bpf || die "mount bpffs"
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup || die "mount cgroup2"
# The guest's /tmp is a scratch tmpfs, but the checkout (or the kernel cache) may live under
# the host's /tmp: keep the host's /tmp reachable beside the chroot and bind those directories
# back over the tmpfs at their own paths, read-only like the rest of the host root.
mkdir -p /hosttmp
mount --bind $R/tmp /hosttmp || die "bind the host's /tmp"
mount -t tmpfs -o mode=1777 tmpfs $R/tmp || die "mount /tmp"
mount -t tmpfs -o mode=0755 tmpfs $R/run || die "mount /run"
mkdir -p $SHARE
mount -t 9p -o trans=virtio,version=9p2000.L,msize=$MSIZE results $SHARE ||
	die "cannot mount the results share (9p tag results)"

[ -f $SHARE/vm.conf ] || die "no vm.conf in the results share"
# shellcheck source=/dev/null # written by run-in-vm.sh for this run
. $SHARE/vm.conf

printf '%s\n' "$VM_HOST_PATHS" | while read -r p; do
	case $p in
	/tmp/*)
		mkdir -p "$R$p" && mount --bind "/hosttmp/${p#/tmp/}" "$R$p" ||
			die "bind the host's $p over the guest's /tmp"
		;;
	esac
done || exit 1

[ "$(uname -r)" = "$VM_RELEASE" ] || die "booted $(uname -r), expected $VM_RELEASE"

# The chroot's modprobe (host kmod, reads .ko.xz itself) must see the booted kernel's modules,
# not the host's: put the unpacked package's module tree over /lib/modules.
mount --bind "$R$VM_MODULES_DIR" $R/lib/modules || die "bind $VM_MODULES_DIR on /lib/modules"

inchroot() {
	chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

inchroot modprobe -a drm drm_kms_helper drm_shmem_helper gpu-sched vgem ||
	die "modprobe drm drm_kms_helper drm_shmem_helper gpu-sched vgem"
# The socket table drmtop serve reads to tell local users apart: the kernel's own module
# autoload would look for modprobe outside the chroot.
inchroot modprobe -a inet_diag tcp_diag || die "modprobe inet_diag tcp_diag"

if [ -n "$VM_SIMGPU" ]; then
	deps=$(inchroot modinfo -F depends "$VM_SIMGPU" | tr ',' ' ')
	if [ -n "$deps" ]; then
		# shellcheck disable=SC2086
		inchroot modprobe -a $deps || die "modprobe simgpu dependencies: $deps"
	fi
	# shellcheck disable=SC2086
	inchroot insmod "$VM_SIMGPU" $VM_SIMGPU_PARAMS ||
		die "insmod $VM_SIMGPU $VM_SIMGPU_PARAMS"
fi

hostname drmtop-vm
cut -d' ' -f1 /proc/uptime >$SHARE/timing

if [ "$VM_INTERACTIVE" = 1 ]; then
	# A TUI needs a controlling terminal with the host's size, and no kernel chatter over it.
	dmesg -n 1
	stty -F "/dev/$VM_CONSOLE" rows "$VM_ROWS" cols "$VM_COLS" 2>/dev/null
	setsid -c /init --run <"/dev/$VM_CONSOLE" >"/dev/$VM_CONSOLE" 2>&1
	status=$?
else
	# Non-interactive commands write to a pipe, as they would in CI, not to a terminal.
	# shellcheck disable=SC3040 # busybox ash has pipefail
	set -o pipefail
	/init --run </dev/null 2>&1 | cat
	status=$?
	# shellcheck disable=SC3040
	set +o pipefail
fi

cut -d' ' -f1 /proc/uptime >>$SHARE/timing
dmesg >$SHARE/dmesg.txt
echo "$status" >$SHARE/status
sync
umount $SHARE
echo "drmtop-vm: command exited with status $status"
poweroff -f
