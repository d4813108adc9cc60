#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# arm64-root.sh DIR: the arm64 guest's root for the VM harness (run-in-vm.sh on a *-arm64
# kernel): Debian 12's arm64 packages the guest cases run (shell, coreutils, kmod, jq, ...) and
# the libraries drmtop links, unpacked with dpkg-deb -x into DIR. No package script runs (none
# can here: they are arm64 programs), so the few links and files they would make are made
# below. The x86 guests run the host's own root instead. DIR/.complete marks a finished root,
# which later runs reuse; a change to this script or arm64-apt.sh makes a new one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/scripts/arm64-apt.sh"

dir=${1:?usage: arm64-root.sh DIR}
pkgs="busybox-static dash bash coreutils grep sed gawk findutils procps kmod jq util-linux
diffutils debianutils base-files base-passwd libbpf1 libelf1 libncursesw6 libdrm2 python3
curl iproute2 tmux bpftool"
stamp=$(cat "$0" "$top/scripts/arm64-apt.sh" | cksum | cut -d' ' -f1)
[ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$stamp" ] && exit 0

mkdir -p "$(dirname "$dir")"
dir=$(realpath -m "$dir")
tmp=$dir.tmp.$$
trap 'rm -rf "$tmp"' EXIT INT TERM
n=$(arm64_apt_unpack "$tmp" deps $pkgs)
r=$tmp/root
ln -sfn dash "$r/bin/sh"
ln -sfn gawk "$r/usr/bin/awk"
cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
mkdir -p "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/run" "$r/root" "$r/lib/modules"
chmod 1777 "$r/tmp"
arm64_apt_done "$r" "$dir" "$stamp"
echo "arm64-root: $dir ($n packages)" >&2
