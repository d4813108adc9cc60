#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# path-test.sh <result-file>: the `vm-path` stage of `make test`. The VM harness must work from
# any checkout, and CI may clone under /tmp, the one host directory the guest hides (it mounts a
# scratch tmpfs there; guest-init.sh binds the checkout back). So this copies the harness
# (tests/vm) to a new directory under /tmp, links the kernel cache into it, and runs the stage
# there: Debian 12's 6.12 kernel, no simgpu (the copy has none), case 00-environment, which
# checks that the guest's cwd is that directory. Writes "<passed> <failed>" to <result-file>
# like vm-test.sh and keeps the run directory as build/vm/run/vm-path.
set -u

[ $# -eq 1 ] || { echo "usage: $0 <result-file>" >&2; exit 2; }
case $1 in
/*) result=$1 ;;
*) result=$(pwd)/$1 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vmdir=${VM_BUILD_DIR:-$top/build/vm}
mkdir -p "$(dirname "$result")" "$vmdir/kernels" "$vmdir/run"
echo "0 1" >"$result"

d=$(mktemp -d /tmp/drmtop-path.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT INT TERM
mkdir -p "$d/tests" "$d/build/vm"
cp -a "$here" "$d/tests/vm"
ln -s "$(cd "$vmdir/kernels" && pwd -P)" "$d/build/vm/kernels"

# The copy's stage: its own initramfs and run directory under /tmp, its own paths everywhere.
VM_BUILD_DIR='' VM_CASES=00-environment VM_SIMGPU_PARAMS='' "$d/tests/vm/vm-test.sh" 6.12 "$result"
rc=$?
rm -rf "$vmdir/run/vm-path"
cp -a "$(cd "$d/build/vm/run/vm-test-6.12" && pwd -P)" "$vmdir/run/vm-path" 2>/dev/null
echo "vm-path: harness run from $d: $(cat "$result") (passed failed)"
exit $rc
