#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# drmtop serve on the host, on a synthetic proc tree (as tests/cli/cli-test.sh): the exposition
# passes `promtool check metrics` (Debian's prometheus package), OpenMetrics when asked,
# hostile process names stay valid UTF-8, one series per command by default whose counter keeps
# a closed client's work, --per-client and --max-clients folding by comm, series per container,
# pod and service (workload, container_id, pod_uid labels from cgroup files), and the HTTP side:
# 404, 405, HEAD, oversized requests, silent connections that must not block scrapes, the
# connection limit (64: the oldest idle one of the user holding the most gives way, so a scraper
# slow to send its request outlasts another user's flood), 100 hostile connections held and renewed
# while curl and, where installed, a real Prometheus scrape every second (all answered, the
# README's query right), IPv6, SIGTERM. Writes "<passed> <failed>" to $RESULTS/serve.
set -u
DRMTOP=${DRMTOP:-build/drmtop}
STAGE=serve
. "$(dirname "$0")/../stage-lib.sh"
[ "$(id -u)" -eq 0 ] || { bad setup "needs root to create device nodes with mknod"; finish; }
for t in curl promtool python3; do
	command -v $t >/dev/null || { bad setup "$t missing (scripts/install-deps.sh installs it)"; finish; }
done
[ -x "$DRMTOP" ] || { bad setup "$DRMTOP not built"; finish; }
HOSTILE=$(dirname "$0")/hostile-load.sh

T=$(mktemp -d)
pids=
cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/dev/dri" "$T/proc"
mknod "$T/dev/dri/renderD128" c 226 128

mkproc() {	# PID COMM [CGROUP]: without CGROUP, no cgroup file (its workload not known)
	mkdir -p "$T/proc/$1/fd" "$T/proc/$1/fdinfo"
	printf '%s\n' "$2" >"$T/proc/$1/comm"
	printf 'prog\0' >"$T/proc/$1/cmdline"
	[ $# -lt 3 ] || printf '0::%s\n' "$3" >"$T/proc/$1/cgroup"
}
fdinfo() {	# PID FD CLIENT_ID GFX_NS: written whole, then renamed (drmtop may be reading it)
	{
		printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t%d\n' "$3"
		printf 'drm-driver:\tsimgpu\ndrm-client-id:\t%d\ndrm-engine-gfx:\t%d ns\n' "$3" "$4"
		printf 'drm-total-memory:\t4 MiB\ndrm-resident-memory:\t2 MiB\n'
		printf 'drm-shared-memory:\t1 MiB\n'
	} >"$T/proc/$1/fdinfo/.$2"
	mv "$T/proc/$1/fdinfo/.$2" "$T/proc/$1/fdinfo/$2"
}
client() {	# PID FD CLIENT_ID GFX_NS
	ln -s "$T/dev/dri/renderD128" "$T/proc/$1/fd/$2"
	fdinfo "$@"
}
# A name with a quote, a backslash and bytes that are not UTF-8 (comm is whatever was set).
mkproc 100 $'we"ird\\\xff\xfe'
client 100 3 5 1500000000
mkproc 200 'compute'
client 200 4 9 2500000000
mkproc 300 'compute'
client 300 4 10 500000000

# start_serve NAME ARGS...: drmtop serve on a free port; sets PORT and SPID.
start_serve() {
	local name=$1
	shift
	"$DRMTOP" serve --proc-root "$T/proc" --sys-root "" --source fdinfo "$@" 2>"$T/$name.err" &
	SPID=$!
	pids="$pids $SPID"
	PORT=
	for _ in $(seq 100); do
		PORT=$(sed -n 's|.*:\([0-9]*\)/metrics.*|\1|p' "$T/$name.err")
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	return 1
}
stop_serve() {	# -> exit status
	kill -TERM "$SPID"
	wait "$SPID"
}
get() { curl -s --max-time 10 "$@"; }

if ! start_serve main --listen 127.0.0.1:0 -d 0.2; then
	bad serve-starts "$(cat "$T/main.err")"
	finish
fi
ok "serve-starts (port $PORT)"
URL=http://127.0.0.1:$PORT/metrics
sleep 0.5

get -D "$T/h1" -o "$T/m1" "$URL"
if grep -qi '^content-type: text/plain; version=0.0.4' "$T/h1" &&
	promtool check metrics <"$T/m1" >"$T/lint" 2>&1; then
	ok "text format passes promtool check metrics ($(grep -c '^drmtop' "$T/m1") samples)"
else
	bad "promtool check metrics" "$(head -c 600 "$T/lint") $(head -n 3 "$T/h1")"
fi
if python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' <"$T/m1" &&
	grep -q 'comm="we\\"ird\\\\'$'\xef\xbf\xbd\xef\xbf\xbd''"' "$T/m1"; then
	ok "hostile comm escaped, invalid UTF-8 replaced"
else
	bad "hostile comm" "$(grep -a 'client_open{' "$T/m1" | head -n 3)"
fi
# By default one series per command: compute's two clients (2.5 s and 0.5 s) in one, no pid.
v=$(grep '^drmtop_client_engine_busy_seconds_total{.*comm="compute",workload="",container_id="",pod_uid="",engine="gfx"}' "$T/m1" |
	awk '{print $2}')
[ "$v" = 3.000000000 ] && ok "busy seconds by comm exact ($v)" || bad "busy seconds" "got '$v'"
n=$(grep -c '^drmtop_client_[a-z_]*{.*pid=' "$T/m1")
[ "$n" = 0 ] && ok "no pid or client_id label by default" || bad "default labels" "$n with pid"
for fam in drmtop_client_engine_busy_seconds_total drmtop_client_memory_bytes \
	drmtop_fdinfo_client_engine_busy_seconds_total drmtop_fdinfo_device_engine_busy_seconds_total \
	drmtop_device_engine_busy_seconds_total drmtop_build_info drmtop_bpf_tracer_active \
	drmtop_scrape_duration_seconds drmtop_refresh_errors_total drmtop_bpf_hooks_attached; do
	grep -q "^# TYPE $fam " "$T/m1" || missing="${missing:-} $fam"
done
[ -z "${missing:-}" ] && ok "families with HELP and TYPE" || bad "families" "missing:$missing"

get -D "$T/h2" -o "$T/m2" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$URL"
if grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$T/h2" &&
	[ "$(tail -n 1 "$T/m2")" = "# EOF" ] &&
	grep -q '^# TYPE drmtop_client_engine_busy_seconds counter' "$T/m2"; then
	ok "OpenMetrics when asked (# EOF, counter family without _total)"
else
	bad "OpenMetrics" "$(head -n 3 "$T/h2") last: $(tail -n 1 "$T/m2")"
fi

code() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }
c404=$(code "http://127.0.0.1:$PORT/")$(code "http://127.0.0.1:$PORT/metricsx")
c405=$(code -X POST -d x "$URL")
allow=$(curl -s --max-time 10 -X DELETE -D - -o /dev/null "$URL" | grep -i '^allow:' | tr -d '\r')
chead=$(curl -s --max-time 10 -I "$URL" -o "$T/head" -w '%{http_code} %{size_download}')
[ "$c404" = 404404 ] && ok "404 for other paths" || bad "404" "$c404"
[ "$c405" = 405 ] && [ "$allow" = "Allow: GET, HEAD" ] && ok "405 for other methods, with Allow" ||
	bad "405" "$c405 '$allow'"
[ "$chead" = "200 0" ] && ok "HEAD: 200, no body" || bad "HEAD" "$chead"
big=$(head -c 10000 /dev/zero | tr '\0' a)
c431=$(code -H "X-Big: $big" "$URL")
[ "$c431" = 431 ] && ok "oversized request: 431" || bad "oversized request" "$c431"
# Garbage instead of HTTP.
bad400=$(exec 3<>"/dev/tcp/127.0.0.1/$PORT" && printf 'hello\r\n\r\n' >&3 && timeout 5 head -n 1 <&3 | tr -d '\r')
[ "$bad400" = "HTTP/1.1 400 Bad Request" ] && ok "not HTTP: 400" || bad "not HTTP" "'$bad400'"

# A silent client holds a slot, never the server: scrapes go on.
exec {fds[0]}<>"/dev/tcp/127.0.0.1/$PORT"
start=$(date +%s%N)
for _ in 1 2 3; do get -o /dev/null "$URL"; done
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 3000 ] && ok "a silent client blocks no scrape (3 scrapes in $ms ms)" ||
	bad "silent client" "3 scrapes took $ms ms"
eval "exec ${fds[0]}>&-"
# The real limit: 64 silent connections take every slot (within the 2 s a connection may stay
# silent); the scrape after them gets in, the oldest silent one giving way, never 503 or 000.
metric() { awk -v m="$1" '$1 == m {print $2}' "$2"; }
ev0=$(get "$URL" | awk '$1 == "drmtop_http_evicted_connections_total" {print $2}')
sleep 0.2	# that scrape's connection closed on both sides: 64 free slots
start=$(date +%s%N)
for i in $(seq 0 63); do
	exec {fds[$i]}<>"/dev/tcp/127.0.0.1/$PORT" || break
done
c=$(curl -s --max-time 5 -o "$T/m64" -w '%{http_code}' "$URL")
ms=$((($(date +%s%N) - start) / 1000000))
held=$(metric drmtop_http_connections "$T/m64")
ev=$(metric drmtop_http_evicted_connections_total "$T/m64")
# The oldest silent connection was closed by the server (EOF at once), the newest is held.
oldest=$(timeout 1 cat <&"${fds[0]}" >/dev/null 2>&1 && echo closed || echo open)
newest=$(timeout 0.5 cat <&"${fds[63]}" >/dev/null 2>&1 && echo closed || echo open)
for fd in "${fds[@]}"; do
	eval "exec $fd>&-"
done
if [ "$ms" -ge 1800 ]; then
	bad "connection limit" "64 connections and a scrape took $ms ms (over the 2 s idle limit)"
elif [ "$c" = 200 ] && [ "$held" = 64 ] && [ "$((ev - ev0))" = 1 ] && [ "$oldest" = closed ] &&
	[ "$newest" = open ]; then
	ok "connection limit 64: a scrape past 64 silent ones answered, the oldest evicted"
else
	bad "connection limit" "scrape $c, held $held, evicted $ev0 -> $ev, oldest $oldest, newest $newest"
fi
# Past the limit: 100 more silent ones, never more than 64 held.
for i in $(seq 0 99); do
	exec {fds[$i]}<>"/dev/tcp/127.0.0.1/$PORT" || break
done
c=$(curl -s --max-time 5 -o "$T/m100" -w '%{http_code}' "$URL")
held=$(metric drmtop_http_connections "$T/m100")
for fd in "${fds[@]}"; do
	eval "exec $fd>&-"
done
[ "$c" = 200 ] && [ "${held:-99}" -le 64 ] && ok "100 silent connections: 200, $held held" ||
	bad "past the limit" "scrape '$c', held '$held'"
# A scraper slow to send its request (a loaded machine) while another local user renews
# connections as fast as it can: that user's connections give way to each other, not to it.
r=$(python3 "$(dirname "$0")/slow-scraper.py" 127.0.0.1 "$PORT" 2>&1)
case $r in
"answered HTTP/1.1 200 OK"*) ok "a slow scraper outlasts another user's flood of connections ($r)" ;;
*) bad "slow scraper" "$r" ;;
esac
# A connection that sends nothing is closed after 2 s (it held a slot for 10 s before).
exec {fds[0]}<>"/dev/tcp/127.0.0.1/$PORT"
start=$(date +%s%N)
timeout 5 cat <&"${fds[0]}" >/dev/null 2>&1
ms=$((($(date +%s%N) - start) / 1000000))
eval "exec ${fds[0]}>&-"
[ "$ms" -ge 1500 ] && [ "$ms" -lt 4000 ] && ok "an idle connection is closed after 2 s ($ms ms)" ||
	bad "idle timeout" "closed after $ms ms"

# A client closes: its command's series keeps its work (monotonic), one client fewer open; the
# device total stays.
dev1=$(get "$URL" | awk '/^drmtop_device_engine_busy_seconds_total/ {print $2}')
rm -f "$T/proc/300/fd/4"
sleep 0.6
get -o "$T/m3" "$URL"
busy=$(grep '^drmtop_client_engine_busy_seconds_total{.*comm="compute"' "$T/m3" | awk '{print $2}')
open=$(grep '^drmtop_client_open{.*comm="compute"' "$T/m3" | awk '{print $2}')
dev2=$(awk '/^drmtop_device_engine_busy_seconds_total/ {print $2}' "$T/m3")
[ "$busy" = 3.000000000 ] && [ "$open" = 1 ] && [ "$dev1" = "$dev2" ] &&
	ok "closed client's work kept in its command's series ($busy), 1 open; device total kept" ||
	bad "closed client" "compute $busy, open $open, device $dev1 -> $dev2"

# 100 hostile connections (silent and slowloris, renewed every 8 s and at once when closed)
# while curl and a real Prometheus scrape every second: every scrape answered. compute's
# remaining client works half of each second meanwhile: the README's query says 0.5.
attack=20
grow() {	# half the wall time since it started, however late the loop runs
	local t0 end=$(($(date +%s) + attack + 12))
	t0=$(date +%s%N)
	while [ "$(date +%s)" -lt "$end" ]; do
		fdinfo 200 4 9 $((2500000000 + ($(date +%s%N) - t0) / 2))
		sleep 0.2
	done
}
grow &
gpid=$!
pids="$pids $gpid"
prom=
if command -v prometheus >/dev/null; then
	PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$T/prom.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: drmtop
    static_configs: [{targets: ['127.0.0.1:$PORT']}]
EOF
	timeout $((attack + 60)) prometheus --config.file="$T/prom.yml" \
		--storage.tsdb.path="$T/tsdb" --web.listen-address="127.0.0.1:$PPORT" \
		>"$T/prom.log" 2>&1 &
	prom=$!
	pids="$pids $prom"
	for _ in $(seq 100); do
		curl -sf --max-time 1 "http://127.0.0.1:$PPORT/-/ready" >/dev/null && break
		sleep 0.2
	done
	sleep 2
else
	echo "# prometheus not installed: curl alone scrapes during the attack"
fi
"$HOSTILE" 127.0.0.1 "$PORT" "$attack" ${prom:+"http://127.0.0.1:$PPORT"} >"$T/hostile"
while read -r verdict text; do
	case $verdict in
	PASS) ok "$text" ;;
	FAIL) bad "hostile ${text%%: *}" "${text#*: }" ;;
	esac
done <"$T/hostile"
if [ -n "$prom" ]; then
	q() {
		curl -s --max-time 5 "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
			python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(" ".join(x["value"][1] for x in r) or "none")'
	}
	r=$(q 'sum by (comm) (rate(drmtop_client_engine_busy_seconds_total{comm="compute"}[15s]))')
	awk -v r="$r" 'BEGIN {exit !(r > 0.4 && r < 0.6)}' &&
		ok "README's query in Prometheus: compute busy $r s/s (0.5 written)" ||
		bad "README's query" "compute rate '$r', want 0.5"
	kill "$prom" 2>/dev/null
	wait "$prom" 2>/dev/null
fi
kill "$gpid" 2>/dev/null
wait "$gpid" 2>/dev/null

stop_serve
rc=$?
[ $rc -eq 0 ] && grep -q stopped "$T/main.err" && ok "SIGTERM: clean exit 0" || bad "SIGTERM" "rc=$rc"

# --per-client --max-clients 1: the second and third clients are folded by comm.
fdinfo 200 4 9 2500000000
start_serve fold --listen 127.0.0.1:0 -d 0.2 --per-client --max-clients 1
sleep 0.6
get -o "$T/m5" "http://127.0.0.1:$PORT/metrics"
folded=$(grep -c '^drmtop_client_open{.*client_id="",pid="",comm="compute",workload=""[^}]*} 1$' "$T/m5")
own=$(grep -c '^drmtop_client_open{.*client_id="5",pid="100"' "$T/m5")
nf=$(awk '/^drmtop_clients_open_folded / {print $2}' "$T/m5")
[ "$folded" = 1 ] && [ "$own" = 1 ] && [ "$nf" = 1 ] && promtool check metrics <"$T/m5" >/dev/null 2>&1 &&
	ok "--per-client, --max-clients folds by comm (pid=\"\" client_id=\"\")" ||
	bad "--max-clients" "folded $folded own $own open_folded $nf: $(grep '^drmtop_client_open{' "$T/m5")"
stop_serve

# Clients in containers, pods and a systemd service, their cgroups named as containerd (a
# burstable pod's container, two clients), Docker, Podman and systemd name them: a series per
# command and workload, labelled so that sum by (container_id) and by (pod_uid) are exact and
# container_id is spelled as kube-state-metrics' kube_pod_container_info{container_id}.
ida=$(printf '%064d' 0 | tr 0 a)
idb=$(printf '%064d' 0 | tr 0 b)
idc=$(printf '%064d' 0 | tr 0 c)
uid=0f0e0d0c-1111-2222-3333-444455556666
pod=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice
mkproc 400 infer "$pod/cri-containerd-$ida.scope"
client 400 3 40 1000000000
mkproc 401 infer "$pod/cri-containerd-$ida.scope"
client 401 3 41 250000000
mkproc 500 infer "/system.slice/docker-$idb.scope"
client 500 3 50 2000000000
mkproc 600 infer "/machine.slice/libpod-$idc.scope"
client 600 3 60 125000000
mkproc 700 infer /system.slice/ollama.service
client 700 3 70 500000000
start_serve workload --listen 127.0.0.1:0 -d 0.2
sleep 0.6
get -o "$T/m6" "http://127.0.0.1:$PORT/metrics"
stop_serve
promtool check metrics <"$T/m6" >"$T/lint6" 2>&1 &&
	ok "with workload labels: promtool check metrics clean" ||
	bad "promtool check metrics (workloads)" "$(head -c 600 "$T/lint6")"
busy() {	# LABELS: the busy-time sample of infer with these workload labels
	awk -v want="drmtop_client_engine_busy_seconds_total{driver=\"simgpu\",device=\"$2\",comm=\"infer\",$1,engine=\"gfx\"}" \
		'$1 == want {print $2}' "$T/m6"
}
dev=$(sed -n 's/^drmtop_client_open{driver="simgpu",device="\([^"]*\)",comm="infer".*/\1/p' "$T/m6" | head -n 1)
got="$(busy "workload=\"pod/$uid/aaaaaaaaaaaa\",container_id=\"containerd://$ida\",pod_uid=\"$uid\"" "$dev")"
got="$got $(busy "workload=\"docker/bbbbbbbbbbbb\",container_id=\"docker://$idb\",pod_uid=\"\"" "$dev")"
got="$got $(busy "workload=\"podman/cccccccccccc\",container_id=\"podman://$idc\",pod_uid=\"\"" "$dev")"
got="$got $(busy 'workload="ollama.service",container_id="",pod_uid=""' "$dev")"
[ "$got" = "1.250000000 2.000000000 0.125000000 0.500000000" ] &&
	[ "$(grep -c '^drmtop_client_engine_busy_seconds_total{.*comm="infer"' "$T/m6")" = 4 ] &&
	ok "a series per container and service, labelled workload, container_id, pod_uid ($got)" ||
	bad "workload labels" "got '$got': $(grep '^drmtop_client_open{.*infer' "$T/m6")"
# sum by (pod_uid), as Prometheus would: the pod's two clients, and the rest outside pods.
sums=$(awk -F'pod_uid="' '/^drmtop_client_engine_busy_seconds_total\{/ {
	split($2, a, "\""); n = split($0, w, " "); v[a[1]] += w[n] } END { printf "%.9f %.9f", v["'"$uid"'"], v[""] }' "$T/m6")
[ "$sums" = "1.250000000 6.625000000" ] && ok "sum by (pod_uid) exact ($sums)" ||
	bad "sum by (pod_uid)" "got $sums"

if [ -s /proc/net/if_inet6 ] && start_serve v6 --listen '[::1]:0' -d 0.5; then
	c=$(code "http://[::1]:$PORT/metrics")
	[ "$c" = 200 ] && ok "IPv6 [::1]" || bad "IPv6" "got $c"
	stop_serve
else
	echo "# no IPv6 loopback here: [::1] not tried"
fi
"$DRMTOP" serve --listen 'nonsense' --proc-root "$T/proc" 2>"$T/err" >/dev/null
rc=$?
[ $rc -ne 0 ] && grep -q 'invalid --listen' "$T/err" && ok "bad --listen: error" || bad "bad --listen" "rc=$rc"
"$DRMTOP" serve -J 2>"$T/err" >/dev/null
[ $? -eq 2 ] && ok "serve rejects -J" || bad "serve -J" "$(cat "$T/err")"
finish
