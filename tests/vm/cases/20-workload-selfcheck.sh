#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: record, debugfs and fdinfo compared exactly; no wall-clock bands
#
# simgpu self-check: what simgpu-workload recorded, simgpu's debugfs ground truth and its fdinfo
# agree exactly (engine ns, jobs, handles, bytes) for the basic, shared and short-lived
# scenarios, while the clients are held and after they closed. Then the check must catch a
# driver that misreports: with fdinfo_scale_pct=150 fdinfo lies by half while debugfs stays
# exact, and a record altered by one nanosecond no longer matches debugfs.
# Runs in the test VM from the repository root (tests/vm/run-suite.sh).
set -u

. tests/workload/vmcheck.sh

wl_require selfcheck-setup
tmp=$(mktemp -d)
scale=/sys/module/simgpu/parameters/fdinfo_scale_pct
old_scale=$(cat "$scale" 2>/dev/null || echo 100)
trap 'echo "$old_scale" >"$scale" 2>/dev/null; rm -rf "$tmp"' EXIT

# report NAME FILE: PASS if FILE (mismatch lines) is empty, else FAIL with the first ones.
report() {
	if [ -s "$2" ]; then
		fail "$1" "$(wc -l <"$2") mismatch(es): $(head -n 3 "$2" | tr '\n' ';')"
	else
		pass "$1"
	fi
}

# held_check NAME SCENARIO: run SCENARIO holding its clients; compare debugfs and fdinfo while
# held, and debugfs again once every client closed.
held_check() {
	d=$tmp/$1
	mkdir -p "$d"
	if ! wl_start "$d" --hold "$2"; then
		fail "selfcheck-$1-run" "$WL_WHY"
		return
	fi
	wl_sample_held "$d"
	if wl_stop; then
		pass "selfcheck-$1-run"
	else
		fail "selfcheck-$1-run" "workload failed: $(tail -n 3 "$d/stderr" | tr '\n' ';')"
		return
	fi
	compare_debugfs "$d/record.json" "$d/debugfs-hold.json" hold >"$d/mm-hold" 2>&1
	report "selfcheck-$1-debugfs-held" "$d/mm-hold"
	compare_fdinfo "$d/record.json" "$d/fdinfo.jsonl" "$d/ready.json" >"$d/mm-fdinfo" 2>&1
	report "selfcheck-$1-fdinfo-held" "$d/mm-fdinfo"
	if ! wl_settle; then
		fail "selfcheck-$1-debugfs-closed" "simgpu still runs jobs of the record 30 s later"
		return
	fi
	wl_debugfs_clients >"$d/debugfs-after.json"
	compare_debugfs "$d/record.json" "$d/debugfs-after.json" after >"$d/mm-after" 2>&1
	report "selfcheck-$1-debugfs-closed" "$d/mm-after"
}

held_check basic basic
held_check shared shared

# A client counted once however it is shared: the shared scenario's busiest client is held
# through dup, fork and SCM_RIGHTS by three processes.
d=$tmp/shared
if [ -f "$d/record.json" ]; then
	n=$(jq '[.clients[]
		| select((.holders | map(.how) | unique) == ["dup", "fork", "open", "scm_rights"]
			 and (.pids | length) == 3)] | length' "$d/record.json")
	if [ "$n" = 1 ]; then
		pass selfcheck-shared-one-client-three-processes
	else
		fail selfcheck-shared-one-client-three-processes \
			"expected one client held via open+dup+fork+SCM_RIGHTS by 3 pids, found $n"
	fi
fi

# Short-lived clients are gone before anyone could sample them: debugfs keeps closed clients.
d=$tmp/short
mkdir -p "$d"
if "$WL" -o "$d/record.json" short-lived 2>"$d/stderr"; then
	pass selfcheck-short-lived-run
	life=$(jq '[.clients[] | select(.probe | not) | .closed_ns - .opened_ns] | max / 1000000 | floor' \
		"$d/record.json")
	if wl_settle; then
		wl_debugfs_clients >"$d/debugfs-after.json"
		compare_debugfs "$d/record.json" "$d/debugfs-after.json" after >"$d/mm-after" 2>&1
		report selfcheck-short-lived-debugfs-closed "$d/mm-after"
	else
		fail selfcheck-short-lived-debugfs-closed "simgpu still runs jobs of the record 30 s later"
	fi
	# Short means shorter than any sampling interval, even under QEMU TCG.
	if [ "$life" -lt 500 ]; then
		pass selfcheck-short-lived-lifetime
	else
		fail selfcheck-short-lived-lifetime "a client lived ${life} ms"
	fi
else
	fail selfcheck-short-lived-run "workload failed: $(tail -n 3 "$d/stderr" | tr '\n' ';')"
fi

# The check must fail when the driver misreports. fdinfo_scale_pct=150 makes fdinfo say 1.5x
# the engine time; debugfs stays exact.
d=$tmp/lie
mkdir -p "$d"
if echo 150 >"$scale" && [ "$(cat "$scale")" = 150 ]; then
	if wl_start "$d" --hold basic; then
		wl_sample_held "$d"
		wl_stop
		echo "$old_scale" >"$scale"
		compare_fdinfo "$d/record.json" "$d/fdinfo.jsonl" "$d/ready.json" >"$d/mm-fdinfo" 2>&1
		caught=$(grep -c 'drm-engine-.*fdinfo' "$d/mm-fdinfo")
		# Exactly the busy engines of every sampled fd must be flagged, nothing else.
		want=$(jq -s --slurpfile rec "$d/record.json" '
			[.[] | .client_id as $i | $rec[0].clients[] | select(.client_id == $i)
			 | .engines[] | select(.busy_ns > 0)] | length' "$d/fdinfo.jsonl")
		if [ "$want" -gt 0 ] && [ "$caught" -eq "$want" ] &&
			[ "$(wc -l <"$d/mm-fdinfo")" -eq "$caught" ]; then
			pass selfcheck-catches-fdinfo-misreport
		else
			fail selfcheck-catches-fdinfo-misreport "fdinfo_scale_pct=150: $caught engine\
 mismatches flagged, expected $want: $(head -n 2 "$d/mm-fdinfo" | tr '\n' ';')"
		fi
		compare_debugfs "$d/record.json" "$d/debugfs-hold.json" hold >"$d/mm-hold" 2>&1
		report selfcheck-debugfs-exact-while-fdinfo-lies "$d/mm-hold"
	else
		fail selfcheck-catches-fdinfo-misreport "$WL_WHY"
	fi
else
	fail selfcheck-catches-fdinfo-misreport "cannot set $scale to 150"
fi
echo "$old_scale" >"$scale"

# ... and when the record and the driver disagree by a single nanosecond or byte.
d=$tmp/basic
if [ -f "$d/record.json" ]; then
	jq '(.clients[] | select(.busy_ns > 0) | .engines.gfx.busy_ns) |= . + 1' "$d/record.json" \
		>"$d/record-ns.json"
	jq '(.clients[] | select(.memory.held_bytes > 0) | .memory.held_bytes) |= . + 1' \
		"$d/record.json" >"$d/record-bytes.json"
	n1=$(compare_debugfs "$d/record-ns.json" "$d/debugfs-hold.json" hold | grep -c 'gfx busy_ns')
	n2=$(compare_debugfs "$d/record-bytes.json" "$d/debugfs-hold.json" hold | grep -c 'bo_bytes')
	w1=$(jq '[.clients[] | select(.busy_ns > 0)] | length' "$d/record.json")
	w2=$(jq '[.clients[] | select(.memory.held_bytes > 0)] | length' "$d/record.json")
	if [ "$w1" -gt 0 ] && [ "$n1" -eq "$w1" ] && [ "$w2" -gt 0 ] && [ "$n2" -eq "$w2" ]; then
		pass selfcheck-catches-one-off-record
	else
		fail selfcheck-catches-one-off-record "flagged $n1/$w1 busy_ns and $n2/$w2 bo_bytes changes"
	fi
fi

wl_keep_on_failure "$tmp" 20-workload-selfcheck
[ "$case_fails" -eq 0 ]
