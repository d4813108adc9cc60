#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# case-timeout: 240
# parallel-safe: sums of exact fdinfo figures against simgpu's debugfs once every job is done
#
# Clients in five cgroups named as systemd, Docker, Podman and the kubelet name theirs: a
# burstable pod's container (containerd, systemd driver), a besteffort pod's (cgroupfs driver),
# a Docker scope, a Podman container, a system service; a buffer of the pod's container shared
# with the Docker container (dma-buf); short-lived clients in the Docker container that open and
# close between two refreshes. With both sources on, once every job is done:
#  - each client's JSON cgroup names its workload;
#  - per workload, the sum of its clients' engine busy ns and memory equals simgpu's
#    debugfs truth of those clients (busy ns; bytes of the objects they hold handles to, the
#    shared buffer in both containers);
#    in JSON, in CSV (the last frame's rows) and in the exporter's series (summed by their
#    workload label); the live view's groups are made in the model from the same figures
#    (test_groups, cli-test's G);
#  - record keeps every short-lived client, closed, with the Docker container's workload.
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
wl_require drmtop-cgroups-setup
[ -x "$DRMTOP" ] || { fail drmtop-cgroups-setup "$DRMTOP not built"; exit 1; }
tmp=$(mktemp -d)
CGR=/sys/fs/cgroup
POD=0f0e0d0c-1111-2222-3333-444455556666
POD2=9a8b7c6d-aaaa-bbbb-cccc-ddddeeeeffff
IDA=aaaaaaaaaaaa0000000000000000000000000000000000000000000000000001
IDB=bbbbbbbbbbbb0000000000000000000000000000000000000000000000000002
IDC=cccccccccccc0000000000000000000000000000000000000000000000000003
IDD=dddddddddddd0000000000000000000000000000000000000000000000000004
POD_=$(echo "$POD" | tr - _)
CG_POD=$CGR/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$POD_.slice/cri-containerd-$IDA.scope
CG_BE=$CGR/kubepods/besteffort/pod$POD2/$IDC
CG_DOCK=$CGR/system.slice/docker-$IDB.scope
CG_PODMAN=$CGR/machine.slice/libpod-$IDD.scope
CG_SVC=$CGR/system.slice/ollama.service
TOP_PID=
SRV_PID=
keep() {
	[ -n "$TOP_PID" ] && kill -TERM "$TOP_PID" 2>/dev/null && wait "$TOP_PID"
	[ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID"
	wl_stop >/dev/null 2>&1
	[ "$case_fails" -gt 0 ] && [ -n "${VM_RESULTS:-}" ] && mkdir -p "$VM_RESULTS/63" &&
		cp -r "$tmp"/* "$VM_RESULTS/63/" 2>/dev/null
	rm -rf "$tmp"
	for d in "$CG_POD" "$CG_BE" "$CG_DOCK" "$CG_PODMAN" "$CG_SVC"; do
		rmdir "$d" 2>/dev/null
	done
	rmdir "${CG_POD%/*}" "${CG_POD%/*/*}" "${CG_POD%/*/*/*}" "${CG_BE%/*}" "${CG_BE%/*/*}" \
		"${CG_BE%/*/*/*}" "${CG_PODMAN%/*}" 2>/dev/null
}
trap keep EXIT
for d in "$CG_POD" "$CG_BE" "$CG_DOCK" "$CG_PODMAN" "$CG_SVC"; do
	mkdir -p "$d" || { fail drmtop-cgroups-setup "cannot make $d"; exit 1; }
done

# The record session first: it sees every client, the short-lived ones included; SIGINT ends
# it once the figures are read.
drmtop_record_bg "$tmp/drec.json" "$tmp/drec.err" -t 300 -J -d 1
grep -q recording "$tmp/drec.err" ||
	{ fail drmtop-cgroups-setup "record did not start: $(tail -n 2 "$tmp/drec.err")"; exit 1; }
if ! wl_start "$tmp" -H -s "
proc podb cgroup=$CG_POD
  open a
  bo a buf size=2M
  bo a own size=64K
  export a buf to=dock
  submit a engine=gfx dur=15ms count=6
proc podbe cgroup=$CG_BE
  open a
  bo a x size=64K
  submit a engine=compute dur=10ms count=5
proc dock cgroup=$CG_DOCK
  open a
  import a buf
  submit a engine=gfx dur=10ms count=4
proc podm cgroup=$CG_PODMAN
  open a count=2
  bo a y size=64K
  submit a engine=copy dur=5ms count=3
proc svc cgroup=$CG_SVC
  open a
  bo a z size=4096
  submit a engine=gfx dur=5ms count=2
proc brief cgroup=$CG_DOCK count=3 start=100ms every=300ms transient
  open a
  bo a t size=4096
  submit a engine=compute dur=5ms count=2
  exit
"; then
	fail drmtop-cgroups-workload "$WL_WHY"
	exit 1
fi
# The short-lived ones done too and every job ended: the figures are final.
sleep 2
wl_settle || fail drmtop-cgroups-settle "simgpu still busy after 30 s"
wl_debugfs_clients >"$tmp/debugfs.json"
"$DRMTOP" -J -n 2 -d 1 >"$tmp/live.all" 2>"$tmp/live.err"
tail -n 1 "$tmp/live.all" >"$tmp/live.json"
"$DRMTOP" -o csv -n 2 -d 1 >"$tmp/live.csv" 2>"$tmp/csv.err"
# The exporter, scraped once its first sample has the workload's clients.
loopback_up
"$DRMTOP" serve --listen 127.0.0.1:9469 -d 1 >/dev/null 2>"$tmp/serve.err" &
SRV_PID=$!
_t=0
until curl -sf --max-time 10 -o "$tmp/metrics.txt" http://127.0.0.1:9469/metrics &&
	grep -q '^drmtop_client_engine_busy_seconds_total{.*comm="svc"' "$tmp/metrics.txt" ||
	[ $_t -ge 60 ]; do
	sleep 0.5
	_t=$((_t + 1))
done
kill -TERM "$SRV_PID"
wait "$SRV_PID"
SRV_PID=
kill -INT "$TOP_PID"
wait "$TOP_PID"
TOP_PID=
wl_stop >/dev/null

# The workload each process's cgroup names, by the process (comm) that opened the clients.
WANT='{"podb": "pod/'$POD'/aaaaaaaaaaaa", "podbe": "pod/'$POD2'/cccccccccccc",
	"dock": "docker/bbbbbbbbbbbb", "podm": "podman/dddddddddddd", "svc": "ollama.service",
	"brief": "docker/bbbbbbbbbbbb"}'
if ! jq -n --slurpfile live "$tmp/live.json" --slurpfile dbg "$tmp/debugfs.json" \
	--slurpfile wl "$tmp/record.json" --slurpfile rec "$tmp/drec.json" --argjson want "$WANT" '
	def busy: [.engines[]? | .busy_ns // 0] | add // 0;
	def mem: [.memory[]? | .total_bytes // 0] | add // 0;
	($wl[0].clients | map({key: (.client_id | tostring), value: .}) | from_entries) as $wc |
	($dbg[0] | map({key: (.id | tostring), value: .}) | from_entries) as $d |
	[$live[0].clients[] | select(.driver == "simgpu" and .client_id != null and
		$wc[.client_id | tostring] != null)] as $c |
	{
	  want: $want,
	  named: [$c[] | {comm: $wc[.client_id | tostring].comm, workload: .cgroup.workload}],
	  sums: ([$c[] | ($d[.client_id | tostring]) as $t | {w: .cgroup.workload, busy: busy,
		mem: mem, tbusy: ($t.gfx_busy_ns + $t.compute_busy_ns + $t.copy_busy_ns),
		tmem: $t.bo_bytes}] |
		group_by(.w) | map({w: .[0].w, n: length, busy: (map(.busy) | add),
			tbusy: (map(.tbusy) | add), mem: (map(.mem) | add),
			tmem: (map(.tmem) | add)})),
	  brief: [$rec[0].clients[] | select(.comm == "brief") | {pid, closed: .bpf.closed,
		seen: .seen_by_fdinfo, workload: .cgroup.workload}]
	}' >"$tmp/sums.json" 2>"$tmp/sums.err"; then
	fail drmtop-cgroups-sums "jq: $(head -c 300 "$tmp/sums.err")"
	exit 1
fi
jq_check drmtop-cgroups-named '.want as $w | (.named | length) >= 6 and
	([.named[].comm] | unique) == (["dock", "podb", "podbe", "podm", "svc"]) and
	all(.named[]; .workload == $w[.comm])' "$tmp/sums.json" .named
jq_check drmtop-cgroups-five-workloads '(.sums | length) == 5 and
	all(.sums[]; .busy > 0 and .mem > 0)' "$tmp/sums.json" .sums
jq_check drmtop-cgroups-busy-per-workload 'all(.sums[]; .busy == .tbusy)' "$tmp/sums.json" .sums
jq_check drmtop-cgroups-memory-per-workload 'all(.sums[]; .mem == .tmem)' "$tmp/sums.json" .sums
# The same sums from the CSV (the last frame's rows, a row per client and engine) and from the
# exporter's series (busy seconds with nine decimals, memory per region), per workload.
python3 - "$tmp/live.csv" "$tmp/metrics.txt" >"$tmp/views.json" 2>"$tmp/views.err" <<'PY' ||
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = max(int(r["iteration"]) for r in rows)
busy, mem, seen = {}, {}, set()
for r in rows:
    if int(r["iteration"]) != last or r["driver"] != "simgpu":
        continue
    w = r["workload"]
    busy[w] = busy.get(w, 0) + int(r["busy_ns"] or 0)
    if r["client_id"] not in seen:
        seen.add(r["client_id"])
        mem[w] = mem.get(w, 0) + int(r["mem_total_bytes"] or 0)
pbusy, pmem = {}, {}
for line in open(sys.argv[2]):
    m = re.match(r'(drmtop_client_engine_busy_seconds_total|drmtop_client_memory_bytes)\{(.*)\} (\S+)$', line)
    if not m or 'driver="simgpu"' not in m.group(2):
        continue
    w = re.search(r'workload="([^"]*)"', m.group(2)).group(1)
    if m.group(1) == "drmtop_client_memory_bytes":
        pmem[w] = pmem.get(w, 0) + int(m.group(3))
    else:
        s, _, f = m.group(3).partition(".")
        pbusy[w] = pbusy.get(w, 0) + int(s) * 10**9 + int((f + "000000000")[:9])
print(json.dumps({"csv": {"busy": busy, "mem": mem}, "prom": {"busy": pbusy, "mem": pmem}}))
PY
	fail drmtop-cgroups-views "python3: $(tail -n 3 "$tmp/views.err")"
jq -s '.[0] + {views: .[1]}' "$tmp/sums.json" "$tmp/views.json" >"$tmp/all.json" 2>/dev/null ||
	cp "$tmp/sums.json" "$tmp/all.json"
jq_check drmtop-cgroups-csv-per-workload '.views.csv as $v | all(.sums[];
	$v.busy[.w] == .tbusy and $v.mem[.w] == .tmem)' "$tmp/all.json" '{sums, csv: .views.csv}'
jq_check drmtop-cgroups-exporter-per-workload '.views.prom as $v | all(.sums[];
	$v.busy[.w] == .tbusy and $v.mem[.w] == .tmem)' "$tmp/all.json" '{sums, prom: .views.prom}'
jq_check drmtop-cgroups-record-short-lived '.want as $w | (.brief | length) == 3 and
	all(.brief[]; .closed == true and .workload == $w.brief)' "$tmp/sums.json" .brief
[ "$case_fails" -eq 0 ]
