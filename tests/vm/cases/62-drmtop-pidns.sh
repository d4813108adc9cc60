#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# case-timeout: 180
# parallel-safe: pids, matches and -p selection compared exactly; no busy figure checked
#
# drmtop inside a pid namespace of its own (a container's: unshare --pid --fork --mount-proc),
# both sources on, simgpu clients inside and outside it. The tracer sees every process; /proc
# only the namespace's. Inside, each inside client is listed once, with the pid the namespace
# gives its process, and matched to its tracer figures; `-p` with that pid selects exactly its
# clients; a client outside the namespace (seen by the tracer when it opens) has pid 0, never
# the number of some process inside. The host's drmtop lists the same inside clients once,
# with their host pids. Paths the tracer takes a process id from: drm_file_alloc (inside and
# outside clients open while the first drmtop runs), the attach-time task_file iterator (inside
# clients, for the `-p` drmtop; it walks drmtop's namespace only).
# And a fleet agent's layout (a privileged container without hostPID): drmtop in a pid and
# mount namespace of its own with its own /proc, the host's proc bind-mounted elsewhere and
# given by --proc-root, started before the workloads (the outside one runs in a Docker
# container's cgroup). It must show the same simgpu clients as the host's drmtop, with the
# host's pids and the same workloads, its tracer's clients with the host's pids as tgids (it
# translates into the namespace of the proc it is given, not its own, where they have none).
# (Clients opened before such an agent attached stay unknown to its tracer: its attach-time walk
# covers its own namespace's tasks only, and a process cannot join an ancestor's pid namespace
# to walk more (setns(2)); hostPID agents have them.)
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
wl_require drmtop-pidns-setup
[ -x "$DRMTOP" ] || { fail drmtop-pidns-setup "$DRMTOP not built"; exit 1; }
command -v unshare >/dev/null || { fail drmtop-pidns-setup "unshare not found"; exit 1; }
tmp=$(mktemp -d)
OUT_PID=
AGENT_PID=
keep() {
	[ -n "$OUT_PID" ] && kill -TERM "$OUT_PID" 2>/dev/null && wait "$OUT_PID"
	[ -n "$AGENT_PID" ] && : >"$tmp/agent.stop" && wait "$AGENT_PID"
	[ "$case_fails" -gt 0 ] && [ -n "${VM_RESULTS:-}" ] && mkdir -p "$VM_RESULTS/62" &&
		cp -r "$tmp"/* "$VM_RESULTS/62/" 2>/dev/null
	rm -rf "$tmp"
	rmdir "${CG:-/nonexistent}" 2>/dev/null
}
trap keep EXIT

export DRMTOP WL tmp
# The agent first, attached before any workload opens.
mkdir -p "$tmp/hostproc"
# (unshare --fork ignores SIGTERM: the agent's shell ends it when told by a file)
unshare --pid --fork --mount sh -c 'mount --bind /proc "$tmp/hostproc" &&
	mount -t proc proc /proc || exit 1
	"$DRMTOP" --proc-root "$tmp/hostproc" -J -d 1 >"$tmp/agent.all" 2>"$tmp/agent.err" &
	until [ -e "$tmp/agent.stop" ]; do sleep 0.1; done
	kill -TERM $!
	wait $!' >"$tmp/agent.out" 2>&1 &
AGENT_PID=$!
_t=0
until [ -s "$tmp/agent.all" ] || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done

# Inside, one shell as the namespace's init: drmtop first (8 frames), then two clients of one
# process; once drmtop is done, a second drmtop `-p` that process's pid (3 frames).
unshare --pid --fork --mount-proc sh -c '
	"$DRMTOP" -J -n 8 -d 1 >"$tmp/ns.all" 2>"$tmp/ns.err" &
	top=$!
	_t=0
	until [ -s "$tmp/ns.all" ] || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done
	echo attached >"$tmp/ns.attached"
	"$WL" -r "$tmp/in.ready" -s "proc inner; open a count=2;
		duty a engine=gfx dur=2ms period=20ms until=stop" </dev/null >/dev/null \
		2>"$tmp/in.err" &
	wl=$!
	_t=0
	until [ -s "$tmp/in.ready" ] || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done
	# The host drmtop samples while both workloads run (it waits for this file).
	echo go >"$tmp/in.go"
	wait "$top"
	pid=$(jq "[.open[] | select(.comm == \"inner\") | .pid] | first" "$tmp/in.ready")
	echo "$pid" >"$tmp/in.pid"
	"$DRMTOP" -J -n 3 -d 1 -p "$pid" >"$tmp/nsp.all" 2>"$tmp/nsp.err"
	while [ ! -s "$tmp/host.all" ] && [ $_t -lt 1200 ]; do sleep 0.1; _t=$((_t + 1)); done
	kill -TERM "$wl"
	wait "$wl"
' >"$tmp/ns.out" 2>&1 &
NS_PID=$!
# Outside, once the inside drmtop is attached (its tracer sees the opens): two clients
# submitting a short job every 20 ms until stopped.
_t=0
until [ -s "$tmp/ns.attached" ] || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done
CID=3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f
CG=/sys/fs/cgroup/system.slice/docker-$CID.scope
mkdir -p "$CG" || fail drmtop-pidns-setup "cannot make $CG"
export CG
sh -c 'echo $$ >"$CG/cgroup.procs" &&
	exec "$WL" -r "$tmp/out.ready" -s "proc outer; open a count=2;
		duty a engine=gfx dur=2ms period=20ms until=stop"' </dev/null >/dev/null 2>"$tmp/out.err" &
OUT_PID=$!
_t=0
until [ -s "$tmp/out.ready" ] || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done
[ -s "$tmp/out.ready" ] || fail drmtop-pidns-setup "outside workload not ready"
_t=0
until [ -s "$tmp/in.go" ] || [ $_t -ge 900 ]; do sleep 0.1; _t=$((_t + 1)); done
# The inside process's host pid: the one whose comm is "inner". Before host.all exists: the
# inside shell stops that process once it sees the file.
host_pid=$(for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = inner ] && echo "${p#/proc/}"; done | head -n 1)
"$DRMTOP" -J -n 3 -d 1 >"$tmp/host.all.tmp" 2>"$tmp/host.err"
sleep 1	# a frame of the agent's after the host's last
: >"$tmp/agent.stop"
wait "$AGENT_PID"
AGENT_PID=
mv "$tmp/host.all.tmp" "$tmp/host.all"
wait "$NS_PID"
kill -TERM "$OUT_PID" 2>/dev/null
wait "$OUT_PID"
OUT_PID=

for f in ns nsp host agent; do
	if [ -s "$tmp/$f.all" ]; then
		tail -n 1 "$tmp/$f.all" >"$tmp/$f.json"
	else
		fail "drmtop-pidns-$f-ran" "no frame: $(tail -n 3 "$tmp/$f.err" "$tmp/ns.out" \
			"$tmp/agent.out" 2>/dev/null)"
		echo '{}' >"$tmp/$f.json"
	fi
done
ns_pid=$(cat "$tmp/in.pid" 2>/dev/null || echo 0)
# The inside clients (the probe open of the main process has another comm).
n_in=$(jq '[.open[] | select(.comm == "inner") | .client_id] | unique | length' "$tmp/in.ready")
echo "info: inside process pid $ns_pid in its namespace, $host_pid on the host; $n_in clients"
SIM='[.clients[] | select(.driver == "simgpu")]'
GIST="$SIM | map({comm, pid, client_id, in_fdinfo: .fdinfo_format, bpf: (.bpf | if . then
	{match, tgid} else null end)})"
jq_check drmtop-pidns-bpf-active '.bpf.active == true' "$tmp/ns.json" '.bpf'
# Both drmtops read only the fds the tracer's iterator listed (each /proc is its own
# namespace's): the checks below hold on that path.
for f in ns nsp host; do
	jq_check "drmtop-pidns-$f-scan-from-tracer" '.scan.from_tracer == true' "$tmp/$f.json" \
		'.scan'
done
# Once: neither a second time among the tracer's unmatched clients (its tgid not this /proc's).
jq_check drmtop-pidns-inside-once "($SIM | map(select(.comm == \"inner\"))) as \$c |
	$n_in >= 2 and (\$c | length) == $n_in and ([\$c[].client_id] | unique | length) == $n_in and
	([.bpf.unmatched_clients[]? | select(.comm == \"inner\")] | length) == 0" \
	"$tmp/ns.json" "{unmatched: [.bpf.unmatched_clients[]? | {comm, tgid}], clients: $GIST}"
jq_check drmtop-pidns-inside-pid-and-matched "$SIM | map(select(.comm == \"inner\")) |
	length > 0 and all(.pid == $ns_pid and .bpf != null and .bpf.match != \"none\" and
	.bpf.tgid == $ns_pid)" "$tmp/ns.json" "$GIST"
# Outside clients are known to the tracer only (their process is not in this /proc): listed
# among its unmatched clients with tgid 0, and never as a client of some process in here.
jq_check drmtop-pidns-outside-not-misattributed "([.bpf.unmatched_clients[]? |
	select(.comm == \"outer\")] | length >= 2 and all(.tgid == 0)) and
	($SIM | map(select(.comm == \"outer\")) | all(.pid == 0))" "$tmp/ns.json" \
	"{unmatched: [.bpf.unmatched_clients[]? | {comm, tgid, client_id}], clients: $GIST}"
jq_check drmtop-pidns-p-selects-inside "$SIM | length == $n_in and
	all(.comm == \"inner\" and .pid == $ns_pid)" "$tmp/nsp.json" "$GIST"
jq_check drmtop-pidns-host-view "($SIM | map(select(.comm == \"inner\"))) as \$c |
	(\$c | length) == $n_in and all(\$c[]; .pid == ${host_pid:-0} and .bpf.tgid == .pid) and
	($SIM | map(select(.comm == \"outer\")) | length >= 2 and all(.pid > 0))" \
	"$tmp/host.json" "$GIST"
# The agent: the host's clients, pids and workloads (the last frames of both, a second apart:
# the same long-lived clients), matched to the tracer with the host's tgids.
AGENT="$SIM | map({client_id, pid, comm, workload: .cgroup.workload}) | sort_by(.client_id)"
jq -n --slurpfile a "$tmp/agent.json" --slurpfile h "$tmp/host.json" \
	"{active: \$a[0].bpf.active, agent: (\$a[0] | $AGENT), host: (\$h[0] | $AGENT),
	  hostpid: ([\$h[0] | $SIM | .[] | {(.comm): .pid}] | add),
	  tgids: ([\$a[0] | $SIM | .[] | select(.bpf) | {comm, tgid: .bpf.tgid}] +
		[\$a[0].bpf.unmatched_clients[]? | select(.comm == \"inner\" or
			.comm == \"outer\") | {comm, tgid}])}" \
	>"$tmp/agent-host.json"
jq_check drmtop-pidns-agent-same-as-host ".active == true and .agent == .host and
	(.agent | length) >= $n_in + 2 and all(.agent[]; .pid > 0) and
	(.agent | map(select(.comm == \"outer\")) | length >= 2 and
		all(.workload == \"docker/3f4e1c2b9a8d\"))" "$tmp/agent-host.json"
# Matched to fdinfo's clients by client id; on 6.1, whose drm_file has none, by (pid, fd) from
# the iterator, which does not see the host's tasks: there the tracer's clients stand apart,
# unmatched, with their tgids.
jq_check drmtop-pidns-agent-tracer-host-pids ".hostpid as \$p | .tgids | length >= $n_in + 2 and
	all(.tgid == \$p[.comm])" "$tmp/agent-host.json" "{hostpid, tgids}"
[ "$case_fails" -eq 0 ]
