#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# sid-root.sh: the Debian unstable (sid) chroot that gives the VM suites kernels newer than
# Debian 12 has (7.x). Such a kernel is built with a compiler Debian 12 does not have (7.2:
# gcc-16), and neither that gcc nor the kernel's objtool runs on Debian 12's glibc, so simgpu is
# built for it inside this chroot; its apt also fetches the kernel packages. Nothing is installed
# on the host. The chroot is made once with `debootstrap --variant=minbase sid` and kept in
# build/sid (SID_ROOT) so that later runs only refresh its package lists.
#
#   sid-root.sh prepare SERIES      make the chroot if needed, refresh its package lists when
#                                   older than SID_LISTS_MAX_AGE minutes (default 720), install
#                                   gcc-16, make and the headers and kbuild of the newest SERIES.x
#                                   amd64 kernel unstable has; print that release. SERIES is
#                                   e.g. 7.2 (the plain flavour, -amd64) or 7.2-rt (PREEMPT_RT,
#                                   -rt-amd64)
#   sid-root.sh tools PKG...        make the chroot if needed, refresh its lists as prepare does,
#                                   install PKG... (the peer tools `make bench` compares drmtop
#                                   with: igt-gpu-tools' gputop, nvtop; Debian 12 has neither)
#   sid-root.sh release SERIES      print the newest SERIES.x release whose headers the chroot
#                                   holds (no network); fails when there is none
#   sid-root.sh download DIR PKG... apt-get download PKG... into the host directory DIR
#   sid-root.sh run [--bind HOSTDIR DIR]... -- CMD...
#                                   run CMD as root in the chroot, /proc mounted (objtool needs
#                                   it), HOSTDIR bound on DIR; the mounts live in a private mount
#                                   namespace and vanish with CMD
#
# Several runs may share one chroot (SID_ROOT) at once: `prepare` makes and refreshes it holding
# an exclusive lock on SID_ROOT.lock, `run` holds a shared one while CMD runs, so no build sees
# packages change under it. A new chroot is made in SID_ROOT.tmp.<pid> and renamed into place
# complete; nothing ever deletes SID_ROOT: an SID_ROOT without its marker is something this
# script did not make (or an older one still making it in place) and is reported, not removed.
# Only SID_ROOT.tmp.* left by a preparer that died are removed, under the exclusive lock
# (every maker holds it until its rename, so a temporary directory seen then is nobody's).
# SID_DEBOOTSTRAP replaces the debootstrap command (tests/vm/sid-root-test.sh).
#
# Needs root (debootstrap, chroot, unshare) and debootstrap (scripts/install-deps.sh).
# Checked 2026-11 with bookworm's debootstrap 1.0.128: sid, linux-headers-7.2.13+deb14-amd64,
# gcc-16 16.2.0; making the chroot takes about 50 s, installing the compiler and headers 30 s.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd -P)
root=${SID_ROOT:-$top/build/sid}
# One spelling per chroot, so that every run locks the same file: no trailing slash (which
# would put the lock and the temporary directory inside the chroot), the parent's physical
# path (two paths through a symlink are one chroot).
while [ "${root%/}" != "$root" ] && [ "$root" != / ]; do root=${root%/}; done
case $root in
/*) ;;
*) root=$(pwd)/$root ;;
esac
mkdir -p "$(dirname "$root")"
root=$(cd "$(dirname "$root")" && pwd -P)/$(basename "$root")
[ -L "$root" ] && root=$(readlink -f "$root")
lock=$root.lock
mirror=${SID_MIRROR:-http://deb.debian.org/debian}
max_age=${SID_LISTS_MAX_AGE:-720}
gcc=${SID_GCC:-gcc-16}

err() {
	echo "sid-root: $*" >&2
}

usage() {
	sed -n '11,28p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# The release suffix of a series' flavour: 7.2 is the plain one, 7.2-rt PREEMPT_RT (Debian
# also has -cloud-amd64, which the suites do not boot).
flavour() {
	case $1 in
	*-rt) echo -rt-amd64 ;;
	*) echo -amd64 ;;
	esac
}

# The newest release of a series among names on stdin (linux-headers-<release> or <release>),
# of the series' flavour only.
newest() {
	sed 's/^linux-headers-//' |
		grep -E "^$(echo "${1%-rt}" | sed 's/\./\\./g')\.[0-9]+\+deb[0-9]+$(flavour "$1")\$" |
		sort -V | tail -n 1
}

case ${1:-} in
release)
	[ $# -eq 2 ] || usage
	rel=$(find "$root/usr/src" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | newest "$2")
	[ -n "$rel" ] || { err "no $2.x headers in $root; run: $0 prepare $2"; exit 1; }
	echo "$rel"
	exit 0
	;;
run)
	shift
	# Shared while CMD runs, unless this is prepare's own command (it holds the lock already).
	if [ "${SID_ROOT_LOCKED:-}" != "$root" ]; then
		exec 7>"$lock"
		flock -s 7
	fi
	[ -f "$root/.drmtop-complete" ] || { err "no chroot in $root; run: $0 prepare SERIES"; exit 1; }
	# A private mount namespace: nothing mounted for CMD outlives it, even if CMD is killed.
	exec unshare --mount --propagation private "$0" --in-namespace "$@"
	;;
--in-namespace)
	shift
	mount -t proc proc "$root/proc"
	while [ "${1:-}" = --bind ]; do
		[ $# -ge 3 ] || usage
		mkdir -p "$root$3"
		mount --bind "$2" "$root$3"
		shift 3
	done
	[ "${1:-}" = -- ] && shift
	[ $# -gt 0 ] || usage
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	;;
download)
	[ $# -ge 3 ] || usage
	dir=$(cd "$2" && pwd -P)
	shift 2
	# apt runs as root in the chroot: its _apt user could not write the bound host directory.
	exec "$0" run --bind "$dir" /var/tmp/drmtop-download -- sh -c \
		'cd /var/tmp/drmtop-download && apt-get download -q -o APT::Sandbox::User=root "$@"' \
		sh "$@"
	;;
prepare)
	[ $# -eq 2 ] || usage
	series=$2
	tools=
	;;
tools)
	[ $# -ge 2 ] || usage
	shift
	series=
	tools=$*
	;;
*)
	usage
	;;
esac

[ -n "$tools" ] || case ${series%-rt} in
'' | *[!0-9.]*) err "bad kernel series '$series' (expected something like 7.2 or 7.2-rt)"; exit 2 ;;
esac
debootstrap=${SID_DEBOOTSTRAP:-debootstrap}
for tool in "$debootstrap" unshare chroot flock; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ err "$tool not found (run scripts/install-deps.sh)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { err "must run as root (debootstrap, chroot)"; exit 1; }

# One preparer at a time, and no `run` while it makes or refreshes (two VM stages, two
# checkouts sharing SID_ROOT, two engineers in one checkout). The commands it runs in the
# chroot itself know that it holds the lock.
exec 7>"$lock"
flock 7
SID_ROOT_LOCKED=$root
export SID_ROOT_LOCKED

if [ ! -f "$root/.drmtop-complete" ]; then
	if [ -e "$root" ]; then
		err "$root exists but is not a complete chroot of this script (no .drmtop-complete):"
		err "another run may be making it; if none is, remove it by hand"
		exit 1
	fi
	# Makers hold the lock until their rename: these are left by one that died.
	for old in "$root".tmp.*; do
		[ -e "$old" ] || continue
		err "removing $old, left by a run that ended before finishing it"
		rm -rf "$old"
	done
	err "making a Debian unstable chroot in $root (debootstrap, about a minute)"
	tmp=$root.tmp.$$
	trap 'rm -rf "$tmp" "$tmp.log"' EXIT
	trap 'exit 1' INT TERM HUP
	# debootstrap mounts /proc and /sys in the target; in a private namespace those mounts
	# cannot be left behind (and then be walked by rm -rf) when it fails.
	unshare --mount --propagation private \
		"$debootstrap" --variant=minbase sid "$tmp" "$mirror" >"$tmp.log" 2>&1 ||
		{ err "debootstrap failed:"; tail -n 20 "$tmp.log" >&2; rm -f "$tmp.log"; exit 1; }
	rm -f "$tmp.log"
	# unstable's Release file may be past its Valid-Until; nothing here needs translations or
	# recommended packages.
	cat >"$tmp/etc/apt/apt.conf.d/99drmtop" <<-EOF
	Acquire::Check-Valid-Until "false";
	Acquire::Languages "none";
	APT::Install-Recommends "false";
	EOF
	touch "$tmp/.drmtop-complete"
	mv -T "$tmp" "$root"
	trap - EXIT INT TERM HUP
fi

# The host's resolver configuration may have changed since the chroot was made.
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :

stamp=$root/var/lib/apt/lists/.drmtop-updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +"$max_age")" ]; then
	err "refreshing unstable's package lists"
	"$0" run -- apt-get update -qq >&2 || { err "apt-get update failed in $root"; exit 1; }
	touch "$stamp"
fi

if [ -n "$tools" ]; then
	pkgs=$tools
else
	rel=$("$0" run -- apt-cache search --names-only "^linux-headers-${series%-rt}\\." |
		awk '{ print $1 }' | newest "$series")
	[ -n "$rel" ] ||
		{ err "unstable has no linux-headers-${series%-rt}.*+deb*$(flavour "$series")"; exit 1; }
	ver=${rel%"$(flavour "$series")"}
	pkgs="$gcc make linux-headers-$rel linux-headers-$ver-common linux-kbuild-$ver"
fi
# dpkg-query prints nothing for a package dpkg never heard of: count what is installed.
# shellcheck disable=SC2086,SC2016 # ${db:...} is dpkg-query's, not the shell's
installed=$("$0" run -- dpkg-query -W -f '${db:Status-Status}\n' $pkgs 2>/dev/null |
	grep -cx installed) || :
if [ "$installed" != "$(echo "$pkgs" | wc -w)" ]; then
	err "installing $pkgs"
	# shellcheck disable=SC2086
	"$0" run -- apt-get install -y -q $pkgs >"$root.install.log" 2>&1 || {
		err "cannot install $pkgs in $root:"
		tail -n 20 "$root.install.log" >&2
		exit 1
	}
fi
[ -n "$tools" ] || echo "$rel"
