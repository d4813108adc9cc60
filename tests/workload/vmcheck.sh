# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers the guest cases (tests/vm/cases/2x-*, 3x-*) source to compare what simgpu-workload
# recorded with simgpu's ground truth (debugfs), its fdinfo and drmtop. POSIX sh + jq.
# Every compare_* function prints one line per mismatch and nothing when all agree, so a case
# can count them; none of them decides PASS or FAIL itself.

WL=${WL:-build/tests/simgpu-workload}
SIMGPU_DEBUGFS=${SIMGPU_DEBUGFS:-/sys/kernel/debug/simgpu}
WL_READY_TIMEOUT=${WL_READY_TIMEOUT:-120}
WL_PID=

. tests/vm/case-lib.sh

# wl_keep_on_failure DIR NAME: after a failed check, copies DIR (records, samples, mismatch
# lists) to the run's results ($VM_RESULTS/NAME, build/vm/run/<release>/NAME on the host).
wl_keep_on_failure() {
	[ $case_fails -gt 0 ] && [ -n "${VM_RESULTS:-}" ] && rm -rf "${VM_RESULTS:?}/$2" &&
		cp -r "$1" "$VM_RESULTS/$2" && echo "# kept $1 in \$VM_RESULTS/$2"
	return 0
}

# wl_require: FAIL (and exit) when the guest lacks what every case here needs.
wl_require() {
	if [ ! -x "$WL" ]; then
		fail "$1" "$WL not built (make workload)"
		exit 1
	fi
	if ! grep -q '^simgpu ' /proc/modules || [ ! -r "$SIMGPU_DEBUGFS/clients" ]; then
		fail "$1" "simgpu not loaded or $SIMGPU_DEBUGFS/clients missing"
		exit 1
	fi
	if ! command -v jq >/dev/null; then
		fail "$1" "jq not found"
		exit 1
	fi
}

# debugfs "client k=v ..." lines as one JSON array; numbers stay numbers.
wl_debugfs_clients() {
	awk '$1 == "client" {
		printf "%s{", (n++ ? "," : "")
		for (i = 2; i <= NF; i++) {
			k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v)
			if (v !~ /^-?[0-9]+$/) v = "\"" v "\""
			printf "%s\"%s\":%s", (i > 2 ? "," : ""), k, v
		}
		printf "}"
	} BEGIN { printf "[" } END { print "]" }' "$SIMGPU_DEBUGFS/clients"
}

# wl_fdinfo_all DEVICE: every descriptor of every process open on DEVICE, found from /proc
# alone (whatever the workload claims), one JSON line each: pid, fd and its fdinfo drm-* keys
# (driver, client_id, engines in ns, total/shared/resident/active memory in bytes).
# One find and one awk: under QEMU TCG every exec from the 9p root costs a large fraction of a
# second, so nothing here runs a process per fd.
wl_fdinfo_all() {
	find /proc/[0-9]*/fd -lname "$1" 2>/dev/null | sed 's|/fd/|/fdinfo/|' |
		xargs -r awk -F'\t' '
	function bytes(v, n, u) {
		n = v; sub(/ .*/, "", n); u = v; sub(/^[0-9]+ ?/, "", u)
		return n * (u == "KiB" ? 1024 : u == "MiB" ? 1048576 : 1)
	}
	function flush() {
		if (file == "")
			return
		split(file, parts, "/")
		printf "{\"pid\":%d,\"fd\":%d,\"driver\":\"%s\",\"client_id\":%s,\"engines\":{%s}%s}\n",
			parts[3], parts[5], drv, (id == "" ? "null" : id), eng, mem
	}
	FNR == 1 { flush(); file = FILENAME; drv = ""; id = ""; eng = ""; mem = "" }
	{ k = $1; sub(/:$/, "", k); v = $2 }
	k == "drm-driver" { drv = v }
	k == "drm-client-id" { id = v }
	k ~ /^drm-engine-/ && k !~ /^drm-engine-capacity-/ {
		e = k; sub(/^drm-engine-/, "", e); n = v; sub(/ ns$/, "", n)
		eng = eng (eng == "" ? "" : ",") "\"" e "\":" n
	}
	k ~ /^drm-(total|shared|resident|active)-memory$/ {
		m = k; sub(/^drm-/, "", m); sub(/-memory$/, "", m)
		mem = mem ",\"" m "\":" sprintf("%.0f", bytes(v))
	}
	END { flush() }'
}

# wl_start OUTDIR ARGS...: runs the workload in the background with --record OUTDIR/record.json
# and --ready OUTDIR/ready.json, and waits for the ready file. Returns non-zero (the reason in
# WL_WHY and on stdout) if it exited or never got ready. Never in $(...): the background workload
# would hold the pipe open, and WL_PID, which wl_stop needs, would be lost with the subshell.
wl_start() {
	_d=$1
	shift
	rm -f "$_d/record.json" "$_d/ready.json"
	"$WL" -o "$_d/record.json" -r "$_d/ready.json" "$@" </dev/null >"$_d/stdout" 2>"$_d/stderr" &
	WL_PID=$!
	WL_WHY=
	_t=0
	while [ ! -f "$_d/ready.json" ]; do
		if ! kill -0 "$WL_PID" 2>/dev/null; then
			wait "$WL_PID"
			WL_WHY="workload exited ($?) before it was ready: $(tail -n 3 "$_d/stderr")"
			WL_PID=
			echo "$WL_WHY"
			return 1
		fi
		if [ $_t -ge $((WL_READY_TIMEOUT * 10)) ]; then
			WL_WHY="workload not ready after ${WL_READY_TIMEOUT}s"
			wl_stop >/dev/null
			echo "$WL_WHY"
			return 1
		fi
		sleep 0.1
		_t=$((_t + 1))
	done
	return 0
}

# wl_stop: SIGTERM to a workload started by wl_start; returns its exit status.
wl_stop() {
	[ -n "$WL_PID" ] || return 1
	kill -TERM "$WL_PID" 2>/dev/null
	wait "$WL_PID"
	_rc=$?
	WL_PID=
	return $_rc
}

# wl_settle: waits (up to 30 s) until simgpu has no job left anywhere: jobs submitted without
# waiting may outlive their process, and closed clients' figures are final only then.
wl_settle() {
	_t=0
	while [ $_t -lt 300 ]; do
		awk '$1 == "engine" {
			for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
			if (f["completed"] + f["cancelled"] != f["submitted"] || f["on_hardware"] != 0) busy = 1
		} END { exit busy }' "$SIMGPU_DEBUGFS/engines" && return 0
		sleep 0.1
		_t=$((_t + 1))
	done
	return 1
}

# compare_debugfs RECORD DEBUGFS_JSON WHEN: simgpu's per-client truth against the record.
# WHEN is "hold" (a snapshot while the workload held its clients: clients closed before the
# ready point must be closed, the others open with exactly the memory the record says they
# held) or "after" (the workload is gone: every client closed with its final figures).
# Also flags user clients inside the record's id range that the record does not know.
compare_debugfs() {
	jq -r -n --slurpfile rec "$1" --slurpfile dbg "$2" --arg when "$3" '
	def engines: ["gfx", "compute", "copy"];
	$rec[0] as $r | $dbg[0] as $d0
	| ([$r.clients[].client_id]) as $ids
	| (
	    $r.clients[] as $c
	    | ($d0 | map(select(.id == $c.client_id))) as $m
	    | "client \($c.client_id) (\($c.comm))" as $who
	    | if ($m | length) != 1 then "\($who): \($m | length) entries in debugfs"
	      else $m[0] as $d
	      | (if $when == "after" or ($c.closed_ns != null and $c.closed_ns <= $r.ready_ns)
		 then "closed" else "open" end) as $state
	      | (if $d.state != $state then "\($who): debugfs state \($d.state), expected \($state)"
		 else empty end),
		(if $d.comm != $c.comm or $d.tgid != $c.opener_pid
		 then "\($who): debugfs opener \($d.comm)/\($d.tgid), record \($c.comm)/\($c.opener_pid)"
		 else empty end),
		(engines[] as $e
		 | [["busy_ns", $d["\($e)_busy_ns"], $c.engines[$e].busy_ns],
		    ["submitted", $d["\($e)_submitted"], $c.engines[$e].jobs],
		    ["completed", $d["\($e)_completed"], $c.engines[$e].jobs],
		    ["cancelled", $d["\($e)_cancelled"], 0]][]
		 | select(.[1] != .[2])
		 | "\($who) \($e) \(.[0]): simgpu \(.[1]), record \(.[2])"),
		(if $state == "open" then
		   [["bo_count", $d.bo_count, $c.memory.held_count],
		    ["bo_bytes", $d.bo_bytes, $c.memory.held_bytes],
		    ["shared_bytes", $d.shared_bytes, $c.memory.shared_held_bytes],
		    ["resident_bytes", $d.resident_bytes, $c.memory.resident_held_bytes],
		    ["active_bytes", $d.active_bytes, 0]][]
		   | select(.[1] != .[2])
		   | "\($who) \(.[0]): simgpu \(.[1]), record \(.[2])"
		 else empty end)
	      end
	  ),
	  (
	    ($ids | min) as $lo | ($ids | max) as $hi
	    | $d0[] | select(.kind == "user" and .id >= $lo and .id <= $hi)
	    | select(.id as $i | $ids | any(. == $i) | not)
	    | "debugfs client \(.id) (\(.comm)) is not in the record"
	  )'
}

# wl_resident_rule RECORD FDINFO_JSONL: what this kernel's drm_show_memory_stats does with
# drm-resident-memory for a client holding objects none of which is resident, learnt from the
# fdinfo samples (wl_fdinfo_all) of such clients in the record: "printed" (at 0: 6.x, where a
# status callback makes it supported), "left-out" (later kernels print only statuses some object
# reports, checked on 7.2.13: absent is "not reported", not 0), "unknown" (no such client was
# sampled) or "mixed" (both: wrong under either rule). A client without objects gets no resident
# key from either rule.
wl_resident_rule() {
	jq -r -n --slurpfile rec "$1" --slurpfile fds "$2" '
	[$fds[] as $f | $rec[0].clients[] | select(.client_id == $f.client_id and
		.memory.held_count > 0 and .memory.resident_held_bytes == 0) | $f | has("resident")]
	| unique | if . == [true] then "printed" elif . == [false] then "left-out"
		   elif . == [] then "unknown" else "mixed" end'
}

# compare_fdinfo RECORD FDINFO_JSONL READY: each sampled fd's fdinfo against the record, and
# the fds found in /proc against the ones the workload says were open at the ready point.
# drm-resident-memory may be absent only where the record has nothing resident and the kernel
# leaves the key out (wl_resident_rule).
compare_fdinfo() {
	jq -r -n --slurpfile rec "$1" --slurpfile fds "$2" --slurpfile ready "$3" \
		--arg rule "$(wl_resident_rule "$1" "$2")" '
	def engines: ["gfx", "compute", "copy"];
	$rec[0] as $r
	| (if $rule == "mixed" then "drm-resident-memory: fdinfo prints it at 0 for some clients"
		+ " without resident objects and leaves it out for others" else empty end),
	  (
	    $fds[] as $f
	    | "pid \($f.pid) fd \($f.fd) (client \($f.client_id))" as $who
	    | ($r.clients | map(select(.client_id == $f.client_id))) as $m
	    | if ($m | length) != 1 then "\($who): not in the record"
	      else $m[0] as $c
	      | (if $f.driver != "simgpu" then "\($who): drm-driver \($f.driver)" else empty end),
		(engines[] as $e
		 | select($f.engines[$e] != $c.engines[$e].busy_ns)
		 | "\($who) drm-engine-\($e): fdinfo \($f.engines[$e]) ns, record \($c.engines[$e].busy_ns) ns"),
		([["total", $f.total, $c.memory.held_bytes],
		  ["shared", $f.shared, $c.memory.shared_held_bytes]][]
		 | select(.[1] != .[2])
		 | "\($who) drm-\(.[0])-memory: fdinfo \(.[1]), record \(.[2])"),
		(if $f | has("resident") then
		   (if $f.resident != $c.memory.resident_held_bytes then
		      "\($who) drm-resident-memory: fdinfo \($f.resident), record \($c.memory.resident_held_bytes)"
		    else empty end)
		 elif $c.memory.resident_held_bytes != 0 then
		   "\($who) drm-resident-memory: fdinfo has none, record \($c.memory.resident_held_bytes)"
		 else empty end)
	      end
	  ),
	  (
	    ([$fds[] | {pid, fd, client_id}] | sort) as $seen
	    | ([$ready[0].open[] | {pid, fd, client_id}] | sort) as $said
	    | def fds: map("\(.pid)/\(.fd)=\(.client_id)") | join(" ");
	      if $seen != $said then
		"open fds in /proc \($seen | fds) differ from the record \($said | fds)"
	      else empty end
	  )'
}

# wl_sample_held DIR: while a workload started by wl_start holds its clients, snapshots
# simgpu's debugfs (DIR/debugfs-hold.json) and the fdinfo of every fd open on the device
# (DIR/fdinfo.jsonl).
wl_sample_held() {
	wl_debugfs_clients >"$1/debugfs-hold.json"
	wl_fdinfo_all "$(sed -n 's/^  "device": "\(.*\)",$/\1/p' "$1/ready.json")" >"$1/fdinfo.jsonl"
}
