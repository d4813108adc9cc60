#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# drmtop serve on the host, on a synthetic proc tree (as tests/cli/cli-test.sh): the exposition
# passes `promtool check metrics` (Debian's prometheus package), OpenMetrics when asked,
# hostile process names stay valid UTF-8, a client that closes is exported once more then
# folded away with the device total kept, --max-clients folds by comm, and the HTTP side:
# 404, 405, HEAD, oversized requests, silent connections that must not block scrapes, the
# connection limit, IPv6, SIGTERM. Writes "<passed> <failed>" to $RESULTS/serve.
set -u
DRMTOP=${DRMTOP:-build/drmtop}
RESULTS=${RESULTS:-build/test-results}
mkdir -p "$RESULTS"
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
finish() {
	echo "$pass $fail" >"$RESULTS/serve"
	echo "serve: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
[ "$(id -u)" -eq 0 ] || { bad setup "needs root to create device nodes with mknod"; finish; }
for t in curl promtool python3; do
	command -v $t >/dev/null || { bad setup "$t missing (scripts/install-deps.sh installs it)"; finish; }
done
[ -x "$DRMTOP" ] || { bad setup "$DRMTOP not built"; finish; }

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

mkproc() {	# PID COMM
	mkdir -p "$T/proc/$1/fd" "$T/proc/$1/fdinfo"
	printf '%s\n' "$2" >"$T/proc/$1/comm"
	printf 'prog\0' >"$T/proc/$1/cmdline"
}
client() {	# PID FD CLIENT_ID GFX_NS
	ln -s "$T/dev/dri/renderD128" "$T/proc/$1/fd/$2"
	printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t%d\ndrm-driver:\tsimgpu\n' "$3" \
		>"$T/proc/$1/fdinfo/$2"
	printf 'drm-client-id:\t%d\ndrm-engine-gfx:\t%d ns\ndrm-total-memory:\t4 MiB\n' "$3" "$4" \
		>>"$T/proc/$1/fdinfo/$2"
	printf 'drm-resident-memory:\t2 MiB\ndrm-shared-memory:\t1 MiB\n' >>"$T/proc/$1/fdinfo/$2"
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
v=$(grep '^drmtop_client_engine_busy_seconds_total{.*client_id="9"' "$T/m1" | awk '{print $2}')
[ "$v" = 2.500000000 ] && ok "busy seconds exact ($v)" || bad "busy seconds" "got '$v'"
for fam in drmtop_client_engine_busy_seconds_total drmtop_client_memory_bytes \
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

# Silent connections hold a slot each, never the server: scrapes go on. Past the limit (64),
# new connections are turned away at once, not queued behind the silent ones.
exec {fds[0]}<>"/dev/tcp/127.0.0.1/$PORT"
start=$(date +%s%N)
for _ in 1 2 3; do get -o /dev/null "$URL"; done
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 3000 ] && ok "a silent client blocks no scrape (3 scrapes in $ms ms)" ||
	bad "silent client" "3 scrapes took $ms ms"
for i in $(seq 1 70); do
	exec {fds[$i]}<>"/dev/tcp/127.0.0.1/$PORT" || break
done
sleep 0.3
c503=$(code "$URL")
for fd in "${fds[@]}"; do
	eval "exec $fd>&-"
done
sleep 0.3
[ "$c503" = 503 ] || [ "$c503" = 000 ] && ok "connection limit: turned away at once ($c503)" ||
	bad "connection limit" "got $c503"
rej=$(get "$URL" | awk '/^drmtop_http_rejected_connections_total/ {print $2}')
[ "${rej:-0}" -gt 0 ] && ok "rejections counted ($rej)" || bad "rejections counted" "'$rej'"

# A client closes: its final figures once more (open 0), then gone; the device total stays.
dev1=$(get "$URL" | awk '/^drmtop_device_engine_busy_seconds_total/ {print $2}')
rm -f "$T/proc/300/fd/4"
sleep 0.6
get -o "$T/m3" "$URL"
sleep 0.6
get -o "$T/m4" "$URL"
closed=$(grep '^drmtop_client_open{.*client_id="10"' "$T/m3" | awk '{print $2}')
after=$(grep -c 'client_id="10"' "$T/m4")
dev2=$(awk '/^drmtop_device_engine_busy_seconds_total/ {print $2}' "$T/m4")
[ "$closed" = 0 ] && [ "$after" = 0 ] && [ "$dev1" = "$dev2" ] &&
	ok "closed client exported once more, then folded away; device total kept ($dev2)" ||
	bad "closed client" "open after close '$closed', series after scrape $after, device $dev1 -> $dev2"

stop_serve
rc=$?
[ $rc -eq 0 ] && grep -q stopped "$T/main.err" && ok "SIGTERM: clean exit 0" || bad "SIGTERM" "rc=$rc"

# --max-clients 1: the second and third clients are folded by comm.
start_serve fold --listen 127.0.0.1:0 -d 0.2 --max-clients 1
sleep 0.6
get -o "$T/m5" "http://127.0.0.1:$PORT/metrics"
folded=$(grep -c '^drmtop_client_open{.*client_id="",pid="",comm="compute"} 1$' "$T/m5")
own=$(grep -c '^drmtop_client_open{.*client_id="5",pid="100"' "$T/m5")
nf=$(awk '/^drmtop_clients_open_folded / {print $2}' "$T/m5")
[ "$folded" = 1 ] && [ "$own" = 1 ] && [ "$nf" = 1 ] && promtool check metrics <"$T/m5" >/dev/null 2>&1 &&
	ok "--max-clients folds by comm (pid=\"\" client_id=\"\")" ||
	bad "--max-clients" "folded $folded own $own open_folded $nf: $(grep '^drmtop_client_open{' "$T/m5")"
stop_serve

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
