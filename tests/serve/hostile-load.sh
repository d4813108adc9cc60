#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# hostile-load.sh HOST PORT SECONDS [PROMETHEUS_URL]: a local user starving drmtop serve's
# scrapers. 100 hostile connections of user nobody (hostile-conns.py: half silent, half slowloris, renewed every
# 8 s and at once when closed) against HOST:PORT for SECONDS while curl scrapes /metrics every
# second: every scrape must get 200. With PROMETHEUS_URL, a Prometheus server scraping HOST:PORT
# every second as job "drmtop" must have scraped it through the attack, every scrape answered
# (up never 0). Prints "PASS text" or "FAIL name: text" per check; exit status 1 if one failed.
# The one load for the host (tests/serve/serve-test.sh) and the guest (VM case 70).
set -u
[ $# -ge 3 ] || { echo "usage: $0 HOST PORT SECONDS [PROMETHEUS_URL]" >&2; exit 2; }
host=$1
port=$2
attack=$3
prom=${4:-}
url=http://$host:$port/metrics
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# The hostile user is not root (nor the scrapers' user): as root, run it as nobody, which drmtop
# serve tells apart from the scrapers. The script comes on stdin: nobody may not read this tree.
other=
[ "$(id -u)" = 0 ] && other="setpriv --reuid=65534 --regid=65534 --clear-groups"
$other /usr/bin/python3 - "$host" "$port" 100 "$attack" 8 <"$(dirname "$0")/hostile-conns.py" \
	>"$out" 2>&1 &
hpid=$!
sleep 1
answered=0
tries=0
codes=
slowest=0
while kill -0 "$hpid" 2>/dev/null && [ "$tries" -lt $((attack - 2)) ]; do
	r=$(curl -s --max-time 2 -o /dev/null -w '%{http_code} %{time_total}' "$url")
	c=${r%% *}
	tries=$((tries + 1))
	[ "$c" = 200 ] && answered=$((answered + 1)) || codes="$codes $c"
	# the slowest answer, and the rest of the second (few processes: each is slow in a guest)
	set -- $(awk -v a="$slowest" -v b="${r#* }" 'BEGIN {print (b > a ? b : a), (b < 1 ? 1 - b : 0)}')
	slowest=$1
	sleep "$2"
done
wait "$hpid"
ev=$(curl -s --max-time 10 "$url" | awk '$1 == "drmtop_http_evicted_connections_total" {print $2}')
# at least a quarter of the seconds: in a QEMU TCG guest starting a process takes most of one
if [ "$tries" -ge $((attack / 4)) ] && [ "$tries" -ge 3 ] && [ "$answered" = "$tries" ]; then
	echo "PASS 100 hostile connections: $answered of $tries scrapes answered, slowest ${slowest}s ($(cat "$out"), evicted $ev)"
else
	echo "FAIL connections: $answered of $tries answered (failed:$codes) $(cat "$out")"
	failed=1
fi

[ -n "$prom" ] || exit $failed
# promq QUERY: the values of an instant query's result, space-separated ("none" if empty).
promq() {
	curl -s --max-time 10 "$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(" ".join(x["value"][1] for x in r) or "none")' 2>/dev/null || echo none
}
n=$(promq "count_over_time(up{job=\"drmtop\"}[${attack}s])")
up=$(promq "min_over_time(up{job=\"drmtop\"}[${attack}s])")
slow=$(promq "max_over_time(scrape_duration_seconds{job=\"drmtop\"}[${attack}s])")
if [ "${n%.*}" -ge $((attack * 3 / 4)) ] 2>/dev/null && [ "$up" = 1 ]; then
	echo "PASS real Prometheus scraping every second during the attack: $n scrapes, all up (slowest ${slow}s)"
else
	echo "FAIL prometheus: $n scrapes in ${attack}s, min up '$up', slowest ${slow}s"
	failed=1
fi
exit $failed
