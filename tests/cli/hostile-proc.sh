#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A synthetic proc tree of hostile input, for the CLI test and make sanitize: process and client
# names and cgroup paths with terminal escapes, C1 controls and invalid UTF-8, a cgroup file
# without a cgroup v2 line; fdinfo that is truncated,
# malformed, full of NULs, at u64 max, a 1 MiB line, many engines. Root (mknod).
# Usage: hostile-proc.sh DIR   -> DIR/dev/dri/renderD128, DIR/proc/{10..17}
set -eu
d=$1
mkdir -p "$d/dev/dri" "$d/proc"
[ -e "$d/dev/dri/renderD128" ] || mknod "$d/dev/dri/renderD128" c 226 128

# proc PID COMM CMDLINE: a process with one DRM fd (3), its fdinfo from stdin
proc() {
	mkdir -p "$d/proc/$1/fd" "$d/proc/$1/fdinfo"
	printf '%b\n' "$2" >"$d/proc/$1/comm"
	printf '%b' "$3" >"$d/proc/$1/cmdline"
	ln -sf "$d/dev/dri/renderD128" "$d/proc/$1/fd/3"
	cat >"$d/proc/$1/fdinfo/3"
}
big=$(head -c 1048576 /dev/zero | tr '\0' 'x')

# Escapes everywhere a name can come from; u64 max; a key twice; NULs mid-line; a 1 MiB value.
{
	printf 'pos:\t0\nflags:\t02100002\ndrm-driver:\tsim\033[31mgpu\ndrm-client-id:\t1\n'
	printf 'drm-client-name:\tname\033]0;pwned\007\xff\xfe\xc2\x9b\n'
	printf 'drm-pdev:\t0000:00:\0330.0\n'
	printf 'drm-engine-g\033[2Jfx:\t18446744073709551615 ns\n'
	printf 'drm-engine-capacity-g\033[2Jfx:\t18446744073709551615\n'
	printf 'drm-total-vram:\t18446744073709551615\ndrm-total-gtt:\t18446744073709551615\n'
	printf 'drm-resident-gtt:\t18014398509481983 KiB\n'
	printf 'pasid:\t1\npasid:\t2\ndrm-engine-nul:\t5\0 ns\nk\0ey:\tv\n'
	printf 'amd-evict:\t%s\n' "$big"
} | proc 10 'evil\033[2J\033]0;pwned\007' 'prog\0--\033[2J\0\xff\xfe\0'
# Truncated mid-line, malformed lines, invalid UTF-8 as the command name.
printf 'drm-driver:\tsim\ndrm-client-id:\t2\nno separator\n:\t1\ndrm-engine-gfx:\t-1 ns\ndrm-engine-gfx:\t12' |
	proc 11 '\xff\xfe\x9b\xc0\xaf' '\xff\0'
# Nothing but NULs; then an empty fdinfo; then amdgpu's pre-5.19 format.
head -c 4096 /dev/zero | proc 12 'nuls' ''
proc 13 'empty' 'empty' </dev/null
printf 'pos:\t0\npdev:\t0000:04:00.0\npasid:\t32774\nvram mem:\t17196 kB\ngfx0:\t70.59%%\n' |
	proc 14 'legacy' 'legacy'
# A 1 MiB line as a key, and 3000 engines.
{
	printf 'drm-driver:\tsim\ndrm-client-id:\t15\ndrm-engine-%s:\t1 ns\n' "$big"
	for i in $(seq 3000); do printf 'drm-engine-e%d:\t%d ns\n' "$i" "$i"; done
} | proc 15 'wide' 'wide'
# A tab, a DEL and a backslash in the name.
printf 'drm-driver:\tsim\ndrm-client-id:\t16\ndrm-engine-gfx:\t1 ns\n' | proc 16 'a\tb\x7fc\\\\d' 'x'
# Spreadsheet formulas as the command, driver and engine names (CSV injection).
printf 'drm-driver:\t+sim\ndrm-client-id:\t17\ndrm-engine--gfx:\t5 ns\n' | proc 17 '=1+cmd|x' '@x'
# cgroup paths: escapes and invalid UTF-8 in a unit's name; cgroup v1 only, systemd's
# hierarchy to be taken; a formula; one line without a path at all.
printf '0::/system.slice/evil\033]0;pwned\007\xff.service\n' >"$d/proc/10/cgroup"
printf '5:cpu:/x\n1:name=systemd:/system.slice/legacy.service\n' >"$d/proc/14/cgroup"
printf '0::/=HYPERLINK("x").scope\n' >"$d/proc/17/cgroup"
printf '0:\n' >"$d/proc/16/cgroup"
