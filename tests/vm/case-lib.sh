# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# What every guest case shares (sourced by POSIX sh cases, tests/vm/README.md): one line per
# check, "PASS <check>" or "FAIL <check>: <reason>", and the number of failures in case_fails,
# so a case ends with: [ "$case_fails" -eq 0 ]

case_fails=0

pass() {
	echo "PASS $1"
}

fail() {
	echo "FAIL $1: $2"
	case_fails=$((case_fails + 1))
}

# jq_check NAME JQ-FILTER FILE [GIST]: PASS when the filter is true on FILE, else FAIL with what
# the jq filter GIST (default: the whole file) makes of FILE, cut to 700 bytes.
jq_check() {
	if jq -e "$2" "$3" >/dev/null 2>&1; then
		pass "$1"
	else
		fail "$1" "$(jq -c "${4:-.}" "$3" 2>&1 | head -c 700)"
	fi
}

# unload_wait MODULE: rmmod once nobody holds the module any more (exiting processes may still
# hold its files for a moment; 30 s at most).
unload_wait() {
	_t=0
	while [ "$(awk -v m="$1" '$1 == m { print $3 }' /proc/modules)" != 0 ] && [ $_t -lt 300 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	rmmod "$1"
}

# drmtop_bg OUT ERR ARGS...: $DRMTOP (build/drmtop) ARGS in the background, stdout to OUT,
# stderr to ERR, its pid in TOP_PID; returns once OUT is not empty (60 s at most): a live view
# prints its first frame at once, so its sources (the tracer) are up by then.
drmtop_bg() {
	_out=$1
	_err=$2
	shift 2
	"${DRMTOP:-build/drmtop}" "$@" >"$_out" 2>"$_err" &
	TOP_PID=$!
	_t=0
	until [ -s "$_out" ] || [ $_t -ge 600 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
}

# drmtop_record_bg OUT ERR ARGS...: `drmtop record ARGS` in the background, stdout to OUT, stderr
# to ERR, its pid in TOP_PID; returns once it says it is recording (its sources are up; 60 s at
# most), so what the case runs next is inside the session.
drmtop_record_bg() {
	_out=$1
	_err=$2
	shift 2
	"${DRMTOP:-build/drmtop}" record "$@" >"$_out" 2>"$_err" &
	TOP_PID=$!
	_t=0
	until grep -q recording "$_err" 2>/dev/null || [ $_t -ge 600 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
}

# drmtop_bg_last ALL LAST: waits for the drmtop drmtop_bg started (TOP_PID, then cleared) and
# keeps the last line it wrote to ALL (its last frame) in LAST.
drmtop_bg_last() {
	wait "$TOP_PID"
	TOP_PID=
	tail -n 1 "$1" >"$2"
}

# loopback_up: the guest's loopback interface starts down; brings it up (iproute2 from the host
# root, else busybox's) for cases that serve or scrape on 127.0.0.1.
loopback_up() {
	ip link set lo up 2>/dev/null || busybox ip link set lo up 2>/dev/null
}

# now: seconds since boot (/proc/uptime); since T: seconds from T to now, one decimal.
now() { cut -d' ' -f1 /proc/uptime; }
since() { echo "$1 $(now)" | awk '{ printf "%.1f", $2 - $1 }'; }
