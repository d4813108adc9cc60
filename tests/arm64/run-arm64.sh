#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make arm64 (tests/arm64/arm64.mk): the arm64 cross build, checked.
#  - drmtop, its BPF objects, the unit tests and simgpu built by tests/arm64/cross.sh (Debian
#    12's arm64 libraries and 6.12 headers fetched once) into their own output directory;
#  - the binaries are aarch64; the BPF objects are the host build's, byte for byte (CO-RE: one
#    object for every architecture, relocated against the running kernel's BTF at load);
#  - every unit test passes under qemu-aarch64 (arm64's unsigned char and alignment, for real);
#  - simgpu builds against the arm64 headers with the host's kbuild tools: an aarch64 module
#    with that kernel's vermagic and BTF.
# Usage: run-arm64.sh OUTPUT ARM64_DIR   (from the repository root; MAKE honoured)
set -u
STAGE=arm64
out=$1
# absolute, as cross.sh makes its OUTPUT: make's targets are named as its rules name them
arm=$(realpath -m "$2")
. tests/stage-lib.sh
mkdir -p "$arm"

for tool in aarch64-linux-gnu-gcc qemu-aarch64 file; do
	command -v "$tool" >/dev/null ||
		{ bad arm64-tools "$tool not found (scripts/install-deps.sh installs it)"; finish; }
done
build=$arm/build
units=
for t in tests/unit/test_*.c; do
	t=${t##*/}
	units="$units $build/tests/${t%.c}"
done
# shellcheck disable=SC2086 # $units is words
if why=$(tests/arm64/cross.sh "$arm" "$build/drmtop" $units simgpu 2>&1); then
	ok "arm64-build (drmtop, $(echo "$units" | wc -w) unit tests, simgpu)"
else
	bad arm64-build "$(echo "$why" | tr '\n' ';')"
	finish
fi
sys=$(realpath "$arm/deps/root")
rel=$(cut -d" " -f1 "$arm/deps/.complete")
ok "arm64-sysroot (Debian 12 arm64 libraries, linux-headers-$rel)"
case $(file -b "$build/drmtop") in
*"ARM aarch64"*) ok "arm64-drmtop-is-aarch64" ;;
*) bad arm64-drmtop-is-aarch64 "$(file -b "$build/drmtop")" ;;
esac
for o in "$out"/bpf/*.bpf.o; do
	if cmp -s "$o" "$build/bpf/${o##*/}"; then
		ok "arm64-bpf-object-as-host ${o##*/}"
	else
		bad "arm64-bpf-object-as-host ${o##*/}" "differs from the host build's"
	fi
done
v=$(qemu-aarch64 -L "$sys" "$build/drmtop" --version 2>&1)
case $v in
drmtop*) ok "arm64-drmtop-runs ($v)" ;;
*) bad arm64-drmtop-runs "$v" ;;
esac
# Those that include a skeleton make BPF maps and programs in the running kernel, which
# qemu-user cannot ask for (it has no bpf(2)); they run in the host's unit stage on the same BPF
# objects (checked above). Found by what they include, through any header
# (scripts/unit-skeletons.sh).
skels=$(scripts/unit-skeletons.sh 2>&1) || { bad arm64-unit-includes "$skels"; finish; }
in_kernel=$(echo "$skels" | cut -d' ' -f1 | tr '\n' ' ')
in_kernel=${in_kernel% }
qemu_units=
for t in $units; do
	case " $in_kernel " in
	*" ${t##*/} "*) ;;
	*) qemu_units="$qemu_units $t" ;;
	esac
done
echo "arm64: not run under qemu-aarch64 (no bpf(2) there; run by the host's unit stage):" \
	"$in_kernel"
# shellcheck disable=SC2086
if RESULTS=$arm/results UNIT_RUNNER="qemu-aarch64 -L $sys" scripts/run-unit-tests.sh \
	$qemu_units >"$arm/log" 2>&1; then
	read -r p _ <"$arm/results/unit"
	ok "arm64-unit-tests ($p passed under qemu-aarch64)"
else
	bad arm64-unit-tests "$(cat "$arm/results/unit" 2>/dev/null) passed, failed:$(grep -E \
		'^\[  FAILED|ERROR|exited' "$arm/log" | head -n 5 | tr '\n' ';')"
fi

ko=$build/kmod/$rel/simgpu.ko
case $(file -b "$ko") in
*"ARM aarch64"*) ok "arm64-simgpu-is-aarch64" ;;
*) bad arm64-simgpu-is-aarch64 "$(file -b "$ko")" ;;
esac
vm=$(modinfo -F vermagic "$ko" 2>&1)
case $vm in
"$rel "*aarch64*) ok "arm64-simgpu-vermagic ($vm)" ;;
*) bad arm64-simgpu-vermagic "$vm" ;;
esac
if aarch64-linux-gnu-readelf -S "$ko" | grep -q '\.BTF'; then
	ok arm64-simgpu-has-btf
else
	bad arm64-simgpu-has-btf "no .BTF section (pahole, or the headers' vmlinux, missing?)"
fi
finish
