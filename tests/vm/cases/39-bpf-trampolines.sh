#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: exact checks only (which hooks attach, and why not)
#
# fentry and fexit need the kernel's BPF trampolines, which ride on ftrace's direct calls:
# x86-64 has them on every kernel here, arm64 since 6.4 (Debian's arm64 6.1 has none). drmtop
# must learn that from the kernel, not from the architecture: every fentry/fexit hook attached
# where the kernel has direct calls, and where it has not, each one named as missing for that
# reason while the tracepoint hooks attach and drmtop still runs. The truth: whether kallsyms
# has register_ftrace_direct, which exists exactly with CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS.
# Needs no simgpu: the arm64 stage runs it on a 6.1 boot without one.
set -u

. tests/vm/case-lib.sh

DRMTOP=${DRMTOP:-build/drmtop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

direct=false
grep -q ' register_ftrace_direct$' /proc/kallsyms && direct=true
echo "register_ftrace_direct in kallsyms: $direct"
if ! "$DRMTOP" probe -J >"$tmp/probe.json" 2>"$tmp/probe.err"; then
	fail tramp-probe-runs "$(head -c 400 "$tmp/probe.err")"
	exit 1
fi
pass tramp-probe-runs
jq -c '[.hooks[] | select(.target | test("^(fentry|fexit)/"))] | length' "$tmp/probe.json" \
	>"$tmp/n"
if [ "$(cat "$tmp/n")" -gt 0 ]; then
	pass "tramp-fentry-hooks-listed ($(cat "$tmp/n"))"
else
	fail tramp-fentry-hooks-listed "$(jq -c '.hooks' "$tmp/probe.json" | head -c 600)"
fi
if $direct; then
	want='all(.attached)'
else
	want='all(.attached | not) and all(.why | test("cannot attach fentry/fexit"))'
fi
if jq -e "[.hooks[] | select(.target | test(\"^(fentry|fexit)/\"))] | $want" \
	"$tmp/probe.json" >/dev/null; then
	pass "tramp-fentry-as-the-kernel-allows (direct calls: $direct)"
else
	fail tramp-fentry-as-the-kernel-allows "$(jq -c '[.hooks[] |
		select(.target | test("^(fentry|fexit)/")) | {target, attached, why}]' \
		"$tmp/probe.json" | head -c 800)"
fi
# The scheduler's tracepoints need no trampoline: attached either way.
if jq -e '[.hooks[] | select(.target | test("^tp_btf/"))] | length > 0 and all(.attached)' \
	"$tmp/probe.json" >/dev/null; then
	pass tramp-tracepoints-attached
else
	fail tramp-tracepoints-attached "$(jq -c '[.hooks[] | select(.target |
		test("^(tp_btf|raw_tp)/")) | {target, attached, why}]' "$tmp/probe.json")"
fi
# drmtop runs with what attached, and says which hooks are missing.
if "$DRMTOP" -J -n 1 >"$tmp/top.json" 2>"$tmp/top.err" &&
	jq -e '.bpf.active == true' "$tmp/top.json" >/dev/null; then
	pass tramp-drmtop-runs
else
	fail tramp-drmtop-runs "$(head -c 300 "$tmp/top.err") $(jq -c '.bpf | {active, detail}' \
		"$tmp/top.json" 2>&1 | head -c 400)"
fi
[ "$case_fails" -eq 0 ]
