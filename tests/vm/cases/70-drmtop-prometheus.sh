#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# drmtop serve scraped by a real Prometheus server (Debian's, the host's binary seen through the
# read-only root) on guest loopback every second while simgpu-workload runs steady streams and
# short-lived clients come and go:
#  - Prometheus ingests every scrape (up == 1; it asks for OpenMetrics first, so that parser
#    is the one that accepts drmtop's output), drmtop's health says the tracer is attached;
#  - the README's PromQL examples, taken from README.md as written, with the tracer running:
#    each program's engine use (sum by (comm) of the rate of the best figure) within
#    TOLERANCE_PCT points of the truth, simgpu's own engine time of those clients (debugfs,
#    sampled every 100 ms by the workload) over the same minute, so not doubled by the two
#    sources; each GPU's engines equal to the sum of its programs'; the memory each program
#    holds equal to simgpu's bytes of its clients; the tracer's figure over the driver's near 1.
#    (Under a loaded TCG host the streams do not keep the engines busy: the shares are whatever
#    simgpu really ran, not the scenario's nominal ones.)
#  - each source's own family (drmtop_fdinfo_*, drmtop_bpf_*) by comm over 35 s, within
#    TOLERANCE_PCT points of the truth too;
#  - after the workload stopped, the last value Prometheus has of every series of a command
#    name adds up to what simgpu's debugfs says that program's clients did: jobs exactly, busy
#    time within 5 % + 1 ms per client (the tracer times jobs from run to fence; with 1-3 ms
#    jobs under TCG each carries some overhead simgpu's nominal figure has not). So every
#    short-lived client's work reached its command's series;
#  - series follow the commands, not the clients (default labels): the short-lived clients of
#    one command make one series per engine, and no series has a pid;
#  - no counter ever went backwards: resets() is 0 over the whole run, per comm and device.
#  - containers: the workload runs in a cgroup named as Docker names a container's scope, its
#    render process moved to one named as containerd names a burstable pod's container; a second
#    exporter (fdinfo only, started once they are there, its families renamed cg_* by
#    Prometheus so the queries above never see them) labels them so that sum by (container_id)
#    of the busy rate of render and infer equals simgpu's truth of each container's clients,
#    with container_id as kube-state-metrics spells it and the pod's UID.
#  - 100 hostile connections of user nobody (half silent, half slowloris, renewed every 8 s)
#    for ATTACK_S of the steady time: every scrape of curl's and Prometheus's, one a second
#    each, answered; then a scraper slow with its request outlasts nobody's flood of 200.
# Runs in the test VM from the repository root (tests/vm/run-suite.sh).
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
PROMETHEUS=${PROMETHEUS:-prometheus}
TOLERANCE_PCT=${TOLERANCE_PCT:-3}
STEADY_S=${STEADY_S:-64}	# workload time before the rates are read: the README's [1m] in it
ATTACK_S=${ATTACK_S:-16}	# of it, under 100 hostile connections
RATE_WINDOW=35s
DPORT=9469
PPORT=9090
CGPORT=9471
# The containers' cgroups, named as containerd (a burstable pod's container) and Docker name them.
CGROOT=/sys/fs/cgroup
POD_UID=0f0e0d0c-1111-2222-3333-444455556666
CID_POD=$(printf pod | sha256sum | cut -c1-64)
CID_DOCKER=$(printf docker | sha256sum | cut -c1-64)
CG_POD=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(printf %s "$POD_UID" |
	tr - _).slice/cri-containerd-$CID_POD.scope
CG_DOCKER=/system.slice/docker-$CID_DOCKER.scope

wl_require prom-setup
for tool in "$DRMTOP" "$PROMETHEUS" curl; do
	command -v "$tool" >/dev/null ||
		{ fail prom-setup "$tool not found (scripts/install-deps.sh installs prometheus, curl)"; exit 1; }
done
if ! loopback_up; then
	fail prom-setup "cannot bring the loopback interface up"
	exit 1
fi
tmp=$(mktemp -d)
SERVE_PID=
PROM_PID=
CG_PID=
cleanup() {
	wl_stop >/dev/null 2>&1
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	[ -n "$CG_PID" ] && kill "$CG_PID" 2>/dev/null && wait "$CG_PID" 2>/dev/null
	wl_keep_on_failure "$tmp" 70-drmtop-prometheus
	rm -rf "$tmp"
}
trap cleanup EXIT

# wait_for SECONDS CMD...: polls CMD every 0.5 s; its status.
wait_for() {
	_n=$(($1 * 2))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_n=$((_n - 1))
		[ $_n -gt 0 ] || return 1
		sleep 0.5
	done
}

# promq QUERY: the result vector of an instant query, as JSON.
promq() {
	curl -sf --max-time 30 "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
		jq -c '.data.result'
}

# The README's PromQL examples, one a line (continuation lines joined), comments left out.
awk '/^```promql$/ { on = 1; next } on && /^```$/ { on = 0 } on && !/^#/ {
	if (/^[ \t]/) { sub(/^[ \t]+/, " "); q = q $0 } else { if (q != "") print q; q = $0 } }
	END { if (q != "") print q }' README.md >"$tmp/readme.promql"
# readme_query PATTERN: the one README query that matches PATTERN (grep -E).
readme_query() {
	_q=$(grep -E -- "$1" "$tmp/readme.promql")
	[ "$(printf '%s\n' "$_q" | grep -c .)" = 1 ] && printf '%s\n' "$_q"
}
Q_COMM=$(readme_query '^sum by \(comm\) \(rate\(drmtop_client_engine_busy_seconds_total\[')
Q_DEV=$(readme_query '^sum by \(device, engine\) \(rate\(drmtop_device_engine_busy_seconds_total\[')
Q_MEM=$(readme_query '^sum by \(device, comm\) \(drmtop_client_memory_bytes')
Q_RATIO=$(readme_query 'drmtop_bpf_device_engine_busy_seconds_total.*/.*drmtop_fdinfo_device')
if [ -n "$Q_COMM" ] && [ -n "$Q_DEV" ] && [ -n "$Q_MEM" ] && [ -n "$Q_RATIO" ] &&
	[ "$(grep -c . "$tmp/readme.promql")" = 6 ]; then
	pass prom-readme-queries
else
	fail prom-readme-queries "README.md's promql block changed: $(tr '\n' ';' <"$tmp/readme.promql")"
fi

# --- drmtop serve, then Prometheus scraping it every second. ----------------------------------
# Default labels: a series per command, whatever the churn.
"$DRMTOP" serve --listen "127.0.0.1:$DPORT" -d 0.5 2>"$tmp/serve.err" &
SERVE_PID=$!
if wait_for 60 curl -sf --max-time 10 -o /dev/null "http://127.0.0.1:$DPORT/metrics"; then
	pass prom-serve-answers
else
	fail prom-serve-answers "$(head -c 300 "$tmp/serve.err")"
	exit 1
fi
om=$(curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' \
	-o "$tmp/om.txt" -w '%{content_type}' "http://127.0.0.1:$DPORT/metrics")
if [ "${om%%;*}" = application/openmetrics-text ] && [ "$(tail -n 1 "$tmp/om.txt")" = "# EOF" ]; then
	pass prom-serve-openmetrics
else
	fail prom-serve-openmetrics "content type '$om', last line $(tail -n 1 "$tmp/om.txt")"
fi

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: drmtop
    static_configs:
      - targets: ['127.0.0.1:$DPORT']
  - job_name: drmtop-cg
    static_configs:
      - targets: ['127.0.0.1:$CGPORT']
    metric_relabel_configs:
      - source_labels: [__name__]
        regex: '(drmtop_.*)'
        target_label: __name__
        replacement: 'cg_\$1'
EOF
"$PROMETHEUS" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$tmp/prometheus.log" 2>&1 &
PROM_PID=$!
up_once() { [ "$(promq 'up{job="drmtop"}' | jq -r '.[0].value[1]')" = 1 ]; }
if wait_for 120 curl -sf --max-time 10 "http://127.0.0.1:$PPORT/-/ready" &&
	wait_for 30 up_once; then
	pass prom-prometheus-scrapes
else
	fail prom-prometheus-scrapes "not ready or target down: $(tail -n 5 "$tmp/prometheus.log" |
		tr '\n' ';' | head -c 400)"
	exit 1
fi

# --- The workload: steady streams, and a client coming and going every few hundred ms. --------
cat >"$tmp/scenario" <<'EOF'
proc render
  open a
  open b
  dup b b2
  bo a fb size=8M
  bo b2 buf size=512K
  stream a:3ms,b2:1ms engine=gfx until=stop
proc infer
  open c
  open e
  bo c weights size=4M count=2
  bo e frames size=1M
  fork infer-kid
  stream c:2ms engine=copy until=stop
proc infer-kid child
  bo e kidbuf size=512K
  stream c:1ms,e:1ms engine=compute until=stop
proc idle
  open i
  bo i cache size=3M
  hold
proc churn count=3 every=100ms respawn=300ms start=3s transient
  open q
  bo q tmp size=64K
  submit q engine=gfx dur=2ms count=5
  sleep 400ms
  exit
EOF
# The render node given (-D): the workload then opens no probe client of its own, which could
# take a per-client slot at the sample that sees the steady clients open.
node=
for n in /sys/class/drm/renderD*; do
	[ "$(basename "$(readlink -f "$n/device/driver")")" = simgpu ] && node=/dev/dri/${n##*/}
done
# The workload starts in the Docker container's cgroup (its processes are born there; this shell
# goes back where it was), then render moves to the pod's container.
cg_self=$(sed -n 's/^0:://p' /proc/$$/cgroup)
cg_ok=
if [ -f "$CGROOT/cgroup.controllers" ] && mkdir -p "$CGROOT$CG_POD" "$CGROOT$CG_DOCKER" &&
	echo $$ >"$CGROOT$CG_DOCKER/cgroup.procs"; then
	cg_ok=1
else
	fail prom-containers-setup "cannot make and enter cgroups under $CGROOT"
fi
if ! wl_start "$tmp" --sample-truth 100ms ${node:+-D "$node"} -f "$tmp/scenario"; then
	fail prom-workload "$WL_WHY"
	exit 1
fi
[ -z "$cg_ok" ] || echo $$ >"$CGROOT$cg_self/cgroup.procs"
if [ -n "$cg_ok" ]; then
	pids=$(jq -r '.open[] | select(.comm == "render") | .pid' "$tmp/ready.json" | sort -u)
	[ -n "$pids" ] || cg_ok=
	for p in $pids; do
		echo "$p" >"$CGROOT$CG_POD/cgroup.procs" || cg_ok=
	done
	[ -n "$cg_ok" ] || fail prom-containers-setup "cannot move render ('$pids') to $CG_POD"
fi
# A local user starving the scraper, inside the steady time (no time added): 100 hostile
# connections (tests/serve/hostile-load.sh, as serve-test on the host) while curl and Prometheus
# scrape every second; every scrape answered, up never 0.
t0=$(date +%s)
tests/serve/hostile-load.sh 127.0.0.1 "$DPORT" "$ATTACK_S" "http://127.0.0.1:$PPORT" \
	>"$tmp/hostile" 2>&1
while read -r verdict text; do
	case $verdict in
	PASS) pass "prom-hostile ($text)" ;;
	FAIL) fail "prom-hostile-${text%%: *}" "${text#*: }" ;;
	*) fail prom-hostile "$verdict $text" ;;
	esac
done <"$tmp/hostile"
[ -s "$tmp/hostile" ] || fail prom-hostile "tests/serve/hostile-load.sh said nothing"
# A scraper slow with its request while user nobody renews connections as fast as it can: this
# kernel's socket table tells the two users apart (tests/serve/slow-scraper.py).
r=$(python3 tests/serve/slow-scraper.py 127.0.0.1 "$DPORT" 2>&1)
case $r in
"answered HTTP/1.1 200 OK"*) pass "prom-slow-scraper ($r)" ;;
*) fail prom-slow-scraper "$r" ;;
esac
# The containers' exporter, started once every process is where it stays (a client's labels are
# fixed at its first sight) and after the timed checks above, whose one vCPU it would share; its
# rates need the whole window scraped.
if [ -n "$cg_ok" ]; then
	"$DRMTOP" serve --listen "127.0.0.1:$CGPORT" --source fdinfo -d 1 2>"$tmp/serve-cg.err" &
	CG_PID=$!
	cg_t0=$(date +%s)
fi
rest=$((STEADY_S - ($(date +%s) - t0)))
if [ -n "$CG_PID" ]; then
	cg_rest=$((cg_t0 + ${RATE_WINDOW%s} + 5 - $(date +%s)))
	[ "$cg_rest" -le "$rest" ] || rest=$cg_rest
fi
[ "$rest" -le 0 ] || sleep "$rest"

# Rates by command name while the streams run: the README's query (the best figure, the
# tracer running), then each source's own family; compared once the record with simgpu's
# truth samples is written.
# at_time NAME QUERY: the query's result at one instant, kept with that instant.
at_time() {
	date +%s.%N >"$tmp/$1.time"
	curl -sf --max-time 30 "http://127.0.0.1:$PPORT/api/v1/query" \
		--data-urlencode "time=$(cat "$tmp/$1.time")" --data-urlencode "query=$2" |
		jq -c '.data.result' >"$tmp/$1.json"
}
at_time rate-readme "$Q_COMM"
cp "$tmp/rate-readme.time" "$tmp/dev-readme.time"
curl -sf --max-time 30 "http://127.0.0.1:$PPORT/api/v1/query" \
	--data-urlencode "time=$(cat "$tmp/dev-readme.time")" --data-urlencode "query=$Q_DEV" |
	jq -c '.data.result' >"$tmp/dev-readme.json"
if [ -n "$CG_PID" ]; then
	at_time rate-cg "sum by (container_id, pod_uid) (rate(
		cg_drmtop_client_engine_busy_seconds_total{comm=~\"render|infer\"}[$RATE_WINDOW]))"
	kill "$CG_PID"
	wait "$CG_PID"
	CG_PID=
	cg_done=1
fi
for src in fdinfo bpf; do
	at_time "rate-$src" "sum by (comm, engine) (rate(drmtop_${src}_client_engine_busy_seconds_total{
		comm=~\"render|infer\"}[$RATE_WINDOW]))"
done
# Memory each program holds, against simgpu's bytes of its clients at the same moment.
wl_debugfs_clients >"$tmp/debugfs-mem.json"
promq "$Q_MEM" >"$tmp/mem-readme.json"
promq "$Q_RATIO" >"$tmp/ratio-readme.json"

# One series per (command, workload, engine) however many clients came and went (simgpu's
# fdinfo lists its three engines for every client), and no pid label. churn's processes share
# one cgroup, which a client that opened and closed between two samples has too (its opener's,
# named from the tracer's cgroup id); one whose cgroup is not known has workload="": at most
# two workloads.
churn=$(promq 'count(last_over_time(drmtop_client_engine_busy_seconds_total{comm="churn"}[15m]))' |
	jq -r '.[0].value[1] // 0')
churn_wl=$(promq 'count(count by (workload) (last_over_time(drmtop_client_engine_busy_seconds_total{comm="churn"}[15m])))' |
	jq -r '.[0].value[1] // 0')
engines=$(promq 'count(last_over_time(drmtop_device_engine_busy_seconds_total[15m]))' |
	jq -r '.[0].value[1] // 0')
withpid=$(promq 'count(last_over_time({__name__=~"drmtop_client_.*", pid!=""}[15m]))' |
	jq -r '.[0].value[1] // 0')
if [ "$engines" -gt 0 ] && [ "$churn_wl" -ge 1 ] && [ "$churn_wl" -le 2 ] &&
	[ "$churn" = $((engines * churn_wl)) ] && [ "$withpid" = 0 ]; then
	pass "prom-series-by-comm (churn: $churn series, one per engine and workload, $churn_wl workloads)"
else
	fail prom-series-by-comm "churn's busy series $churn in $churn_wl workloads (want one per engine: $engines, per workload), series with a pid $withpid"
fi

# --- Stop: every client closes; its final figures must reach Prometheus. ---------------------
if wl_stop; then
	pass prom-workload
else
	fail prom-workload "workload failed: $(tail -n 3 "$tmp/stderr" | tr '\n' ';')"
fi
wl_settle
# A few samples and scrapes after the last close record.
sleep 3

# simgpu busy ns of engine column $k at monotonic time $x, linear between the samples around it
# (rows [t, id, gfx, compute, copy] of one client, sorted); null outside.
JQ_AT='
	def at($rows; $k; $x):
		($rows | map(.[0]) | bsearch($x)) as $i
		| if $i >= 0 then $rows[$i][$k]
		  else (-1 - $i) as $j
		  | if $j == 0 or $j >= ($rows | length) then null
		    else $rows[$j - 1] as $a | $rows[$j] as $b
		    | $a[$k] + ($b[$k] - $a[$k]) * ($x - $a[0]) / ($b[0] - $a[0]) end
		  end;'
for src in readme fdinfo bpf; do
	# The README's query: its own window ([1m]), its engines summed (so twice the tolerance).
	win=${RATE_WINDOW%s}
	tol=$TOLERANCE_PCT
	if [ $src = readme ]; then
		win=$(($(printf '%s\n' "$Q_COMM" | sed -n 's/.*\[\([0-9]*\)m\].*/\1/p') * 60))
		tol=$((2 * TOLERANCE_PCT))
	fi
	jq -n -r --slurpfile rec "$tmp/record.json" --slurpfile r "$tmp/rate-$src.json" \
		--argjson T "$(cat "$tmp/rate-$src.time")" --argjson tol "$tol" \
		--argjson win "$win" --argjson by_engine "$([ $src = readme ] && echo false || echo true)" \
		"$JQ_AT"'
	$rec[0] as $w
	| ($T * 1e9 - $w.realtime_minus_monotonic_ns) as $t | ($t - $win * 1e9) as $s
	| ($w.truth_samples.samples | group_by(.[1])
	   | map({key: (.[0][1] | tostring), value: sort_by(.[0])}) | from_entries) as $truth
	# the README query sums the engines: its truth is the sum over them
	| ["render", "infer"][] as $comm
	| (if $by_engine then range(3) | [.] else [0, 1, 2] end) as $eis
	| (if $by_engine then ["gfx", "compute", "copy"][$eis[0]] else "all engines" end) as $e
	| ([$w.clients[] | select(.comm == $comm and (.probe | not)) | .client_id
	    | $truth[tostring] // [] | . as $rows | $eis[] as $ei
	    | [at($rows; $ei + 2; $t), at($rows; $ei + 2; $s)]
	    | if .[0] == null or .[1] == null then null else .[0] - .[1] end]) as $d
	| ([$r[0][] | select(.metric.comm == $comm and
	    (($by_engine | not) or .metric.engine == $e)) | .value[1]
	    | tonumber * 100] | add // 0) as $got
	| if any($d[]; . == null) then "window: \($comm) \($e): no truth samples around it"
	  else ($d | add * 100 / ($win * 1e9)) as $want
	  | if ($got - $want | fabs) > $tol
	    then "busy: \($comm) \($e): prometheus \($got | . * 100 | round / 100) %, truth \($want |
		. * 100 | round / 100) %"
	    elif $want > 1
	    then "info: \($comm) \($e): prometheus \($got | . * 100 | round / 100) %, truth \($want |
		. * 100 | round / 100) %"
	    else empty end
	  end' >"$tmp/rate-$src.mismatch" 2>&1
	sed -n "s/^info: /# $src: /p" "$tmp/rate-$src.mismatch"
	if grep -qv '^info: ' "$tmp/rate-$src.mismatch" || ! grep -q '^info: ' "$tmp/rate-$src.mismatch"
	then
		fail "prom-rate-by-comm-$src" "$(grep -v '^info: ' "$tmp/rate-$src.mismatch" | head -n 4 |
			tr '\n' ';')"
	else
		pass "prom-rate-by-comm-$src"
	fi
done
# Busy time by container (all engines: twice the tolerance, as the README's query): render's
# clients in the pod's container, infer's in the Docker container.
if [ -n "${cg_done:-}" ] && [ -n "$cg_ok" ]; then
	jq -n -r --slurpfile rec "$tmp/record.json" --slurpfile r "$tmp/rate-cg.json" \
		--argjson T "$(cat "$tmp/rate-cg.time")" --argjson win "${RATE_WINDOW%s}" \
		--argjson tol $((2 * TOLERANCE_PCT)) --arg pod "containerd://$CID_POD" \
		--arg docker "docker://$CID_DOCKER" --arg uid "$POD_UID" "$JQ_AT"'
	$rec[0] as $w
	| ($T * 1e9 - $w.realtime_minus_monotonic_ns) as $t | ($t - $win * 1e9) as $s
	| ($w.truth_samples.samples | group_by(.[1])
	   | map({key: (.[0][1] | tostring), value: sort_by(.[0])}) | from_entries) as $truth
	| ([$r[0][] | .metric.container_id // ""] | sort) as $ids
	| if $ids != ([$pod, $docker] | sort)
	  then "labels: container_id \($ids), want \($pod) and \($docker)"
	  else [["render", $pod, $uid], ["infer", $docker, ""]][] as [$comm, $cid, $puid]
	  | ([$w.clients[] | select(.comm == $comm and (.probe | not)) | .client_id
	      | $truth[tostring] // [] | . as $rows | (0, 1, 2) as $ei
	      | [at($rows; $ei + 2; $t), at($rows; $ei + 2; $s)]
	      | if .[0] == null or .[1] == null then null else .[0] - .[1] end]) as $d
	  | ([$r[0][] | select(.metric.container_id == $cid)][0]) as $row
	  | ($row.value[1] | tonumber * 100) as $got
	  | if ($row.metric.pod_uid // "") != $puid
	    then "labels: \($cid): pod_uid \($row.metric.pod_uid // "")"
	    elif any($d[]; . == null) then "window: \($comm): no truth samples around it"
	    else ($d | add * 100 / ($win * 1e9)) as $want
	    | if ($got - $want | fabs) > $tol
	      then "busy: \($cid) (\($comm)): prometheus \($got | . * 100 | round / 100) %, truth \($want |
		. * 100 | round / 100) %"
	      elif $want > 1
	      then "info: \($cid[0:20]) (\($comm)): prometheus \($got | . * 100 | round / 100) %, truth \($want |
		. * 100 | round / 100) %"
	      else "busy: \($cid) (\($comm)): truth \($want) %, too little ran to compare" end
	    end
	  end' >"$tmp/cg-mismatch" 2>&1
	sed -n 's/^info: /# by container: /p' "$tmp/cg-mismatch"
	if grep -qv '^info: ' "$tmp/cg-mismatch" || ! grep -q '^info: ' "$tmp/cg-mismatch"; then
		fail prom-rate-by-container "$(grep -v '^info: ' "$tmp/cg-mismatch" | head -n 4 |
			tr '\n' ';') $(head -c 200 "$tmp/serve-cg.err")"
	else
		pass prom-rate-by-container
	fi
fi
# The README's per-GPU query: the sum of its programs' (every client, closed ones included, is
# in both), same instant, and the tracer's figure over the driver's near 1 on busy engines.
jq -n -r --slurpfile c "$tmp/rate-readme.json" --slurpfile d "$tmp/dev-readme.json" '
	([$c[0][] | .value[1] | tonumber] | add) as $clients
	| ([$d[0][] | .value[1] | tonumber] | add) as $devices
	| if ($d[0] | length) == 0 or ($d[0] | any(.metric.device == null or .metric.engine == null))
	  then "devices: no (device, engine) rows: \($d[0])"
	  elif ($clients - $devices | fabs) > 0.01 + 0.01 * $devices
	  then "devices: sum of devices \($devices) s/s, of programs \($clients) s/s"
	  else "info: \($devices) s/s over \($d[0] | length) device engines, programs \($clients)" end
	' >"$tmp/dev-mismatch"
# (engines busy over 5 % only: on idle ones the ratio of two small rates says little)
jq -r --slurpfile r "$tmp/ratio-readme.json" --slurpfile d "$tmp/dev-readme.json" -n '
	$r[0][] | select(.value[1] | test("^[0-9.eE+-]+$")) | (.value[1] | tonumber) as $v
	| .metric as $k
	| select([$d[0][] | select(.metric.device == $k.device and .metric.engine == $k.engine)
		| .value[1] | tonumber | select(. > 0.05)] | length > 0)
	| if $v < 0.9 or $v > 1.2 then "ratio: \($k.device) \($k.engine): \($v)"
	  else "info: ratio \($k.engine) \($v * 1000 | round / 1000)" end' >>"$tmp/dev-mismatch"
grep -q '^info: ratio' "$tmp/dev-mismatch" || echo "ratio: no engine with both figures" >>"$tmp/dev-mismatch"
sed -n 's/^info: /# README queries: /p' "$tmp/dev-mismatch"
if grep -qv '^info: ' "$tmp/dev-mismatch"; then
	fail prom-readme-devices "$(grep -v '^info: ' "$tmp/dev-mismatch" | head -n 3 | tr '\n' ';')"
else
	pass prom-readme-devices
fi
# The README's memory query against simgpu's bytes of each program's clients.
jq -n -r --slurpfile m "$tmp/mem-readme.json" --slurpfile dbg "$tmp/debugfs-mem.json" '
	["render", "infer", "idle"][] as $comm
	| ([$dbg[0][] | select(.comm == $comm and .state == "open") | .bo_bytes] | add // 0) as $want
	| ([$m[0][] | select(.metric.comm == $comm) | .value[1] | tonumber] | add // 0) as $got
	| if $got != $want or $want == 0 then "mem: \($comm): prometheus \($got), simgpu \($want)"
	  else "info: \($comm) \($got) bytes" end' >"$tmp/mem-mismatch"
sed -n 's/^info: /# README memory query: /p' "$tmp/mem-mismatch"
if grep -qv '^info: ' "$tmp/mem-mismatch"; then
	fail prom-readme-memory "$(grep -v '^info: ' "$tmp/mem-mismatch" | head -n 3 | tr '\n' ';')"
else
	pass prom-readme-memory
fi

wl_debugfs_clients >"$tmp/debugfs-after.json"
promq 'sum by (comm, engine) (last_over_time(drmtop_bpf_client_engine_busy_seconds_total[15m]))' \
	>"$tmp/final-busy.json"
promq 'sum by (comm, engine) (last_over_time(drmtop_client_jobs_total[15m]))' \
	>"$tmp/final-jobs.json"
promq 'sum by (comm, engine) (last_over_time(drmtop_client_engine_busy_seconds_total[15m]))' \
	>"$tmp/final-best.json"
# What the tracer says it lost (a job whose done event it never saw, ...): its job counts may be
# short by that much, no more, and the exporter must show that too.
lost=$(promq 'sum(last_over_time(drmtop_bpf_events_total{kind="loss"}[15m]))' |
	jq -r '.[0].value[1] // 0')
echo "# the tracer's losses: $lost"
jq -n -r --slurpfile rec "$tmp/record.json" --slurpfile dbg "$tmp/debugfs-after.json" \
	--slurpfile busy "$tmp/final-busy.json" --slurpfile jobs "$tmp/final-jobs.json" \
	--slurpfile best "$tmp/final-best.json" --argjson lost "$lost" '
	def got($v; $comm; $e): [$v[0][] | select(.metric.comm == $comm and .metric.engine == $e)
		| .value[1] | tonumber] | add // 0;
	[$rec[0].clients[] | select(.probe | not) | .client_id] as $ids
	| [$dbg[0][] | select(.id as $i | $ids | index($i))] | group_by(.comm)[]
	| .[0].comm as $comm | length as $n | . as $cl
	| ["gfx", "compute", "copy"][] as $e
	| ([$cl[]["\($e)_completed"]] | add) as $wj
	| ([$cl[]["\($e)_busy_ns"]] | add / 1e9) as $wb
	| got($jobs; $comm; $e) as $gj | got($busy; $comm; $e) as $gb | got($best; $comm; $e) as $gt
	| if $gj > $wj or $gj < $wj - $lost
	  then "jobs: \($comm) \($e): prometheus \($gj), simgpu \($wj) (\($n) clients, \($lost) lost)"
	  elif ($gb - $wb | fabs) > 0.05 * $wb + 0.001 * $n
	  then "busy: \($comm) \($e): prometheus \($gb) s, simgpu \($wb) s (\($n) clients)"
	  elif ($gt - $wb | fabs) > 0.05 * $wb + 0.001 * $n
	  then "best: \($comm) \($e): prometheus \($gt) s, simgpu \($wb) s (\($n) clients)"
	  elif $wj > 0 then "info: \($comm) \($e): \($gj) jobs, \($gb) s of \($wb) s (\($n) clients)"
	  else empty end' >"$tmp/final-mismatch" 2>&1
sed -n 's/^info: /# /p' "$tmp/final-mismatch"
nchurn=$(jq '[.clients[] | select(.comm == "churn")] | length' "$tmp/record.json")
if grep -qv '^info: ' "$tmp/final-mismatch"; then
	fail prom-final-figures "$(grep -v '^info: ' "$tmp/final-mismatch" | head -n 4 | tr '\n' ';')"
elif [ "$nchurn" -lt 10 ]; then
	fail prom-final-figures "only $nchurn short-lived clients came and went"
else
	pass "prom-final-figures ($nchurn short-lived clients)"
fi

# resets() per family: without the metric name the families' label sets would collide.
resets=0
for fam in client_engine_busy_seconds client_jobs device_engine_busy_seconds device_jobs \
	fdinfo_client_engine_busy_seconds bpf_client_engine_busy_seconds \
	fdinfo_device_engine_busy_seconds bpf_device_engine_busy_seconds; do
	r=$(promq "sum(resets(drmtop_${fam}_total[15m]))" | jq -r '.[0].value[1] // "none"')
	resets=$(awk -v a="$resets" -v b="$r" 'BEGIN { print (b == "none" || a == "none") ? "none" : a + b }')
done
nseries=$(promq 'count(last_over_time({__name__=~"drmtop_.*(client|device)_(engine_busy_seconds|jobs)_total"}[15m]))' |
	jq -r '.[0].value[1] // 0')
promq 'count by (__name__, comm) (last_over_time({__name__=~"drmtop_client_(engine_busy_seconds|jobs)_total"}[15m]))' |
	jq -r '"# series: " + (map("\(.metric.__name__ | sub("drmtop_client_"; ""))/\(.metric.comm // "")=\(.value[1])") | join(" "))'
if [ "$resets" = 0 ] && [ "$nseries" -gt 10 ]; then
	pass "prom-no-counter-reset ($nseries series)"
else
	fail prom-no-counter-reset "resets $resets over $nseries series"
fi

health=$(promq 'drmtop_bpf_tracer_active == 1 and on() drmtop_refresh_errors_total == 0' | jq length)
if [ "$health" = 1 ]; then
	pass prom-health
else
	fail prom-health "$(curl -s "http://127.0.0.1:$DPORT/metrics" | grep -E '^drmtop_(bpf|refresh)' |
		head -n 5 | tr '\n' ';')"
fi

# IPv6 loopback: a second exporter (fdinfo only, slow sampling) on [::1].
"$DRMTOP" serve --listen '[::1]:9470' --source fdinfo -d 5 2>"$tmp/serve6.err" &
v6=$!
if wait_for 60 curl -sf --max-time 10 -o /dev/null 'http://[::1]:9470/metrics'; then
	pass prom-serve-ipv6
else
	fail prom-serve-ipv6 "$(head -c 300 "$tmp/serve6.err")"
fi
kill "$v6" 2>/dev/null
wait "$v6" 2>/dev/null

kill "$SERVE_PID"
wait "$SERVE_PID"
rc=$?
SERVE_PID=
if [ $rc -eq 0 ] && grep -q 'stopped' "$tmp/serve.err"; then
	pass prom-serve-sigterm
else
	fail prom-serve-sigterm "exit $rc: $(tail -n 2 "$tmp/serve.err" | tr '\n' ';')"
fi
# The processes are gone: their cgroups can go too (innermost first).
for d in "$CG_POD" "$CG_DOCKER"; do
	while [ -n "$d" ] && [ "$d" != / ] && rmdir "$CGROOT$d" 2>/dev/null; do
		d=${d%/*}
	done
done
[ "$case_fails" -eq 0 ]
