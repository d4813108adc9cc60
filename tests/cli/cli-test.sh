#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# End-to-end test of the drmtop binary (fdinfo source) on a synthetic proc tree: real character
# device nodes (mknod, so root), fdinfo files whose counters advance at known rates while drmtop
# samples, dup'd and fork-shared fds, hostile process names. Writes "<passed> <failed>" to
# $RESULTS/cli.
set -u
DRMTOP=${DRMTOP:-build/drmtop}
RESULTS=${RESULTS:-build/test-results}
mkdir -p "$RESULTS"
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
finish() {
	echo "$pass $fail" > "$RESULTS/cli"
	echo "cli: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
if [ "$(id -u)" -ne 0 ]; then
	bad setup "needs root to create device nodes with mknod"
	finish
fi
command -v jq >/dev/null || { bad setup "jq missing (scripts/install-deps.sh installs it)"; finish; }
[ -x "$DRMTOP" ] || { bad setup "$DRMTOP not built"; finish; }

T=$(mktemp -d)
updater=
cleanup() {
	# shellcheck disable=SC2086
	[ -n "$updater" ] && kill $updater 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/dev/dri" "$T/proc"
mknod "$T/dev/dri/renderD128" c 226 128
mknod "$T/dev/dri/renderD129" c 226 129
mknod "$T/dev/null0" c 1 3

# mkproc PID COMM: an empty process directory
mkproc() {
	mkdir -p "$T/proc/$1/fd" "$T/proc/$1/fdinfo"
	printf '%s\n' "$2" > "$T/proc/$1/comm"
	printf 'prog\0--flag\0' > "$T/proc/$1/cmdline"
}
mkproc 100 'ren"der	x'
mkproc 101 'render-child'
mkproc 200 'compute'
mkproc 300 'no-gpu'
ln -s "$T/dev/dri/renderD128" "$T/proc/100/fd/3"
ln -s "$T/dev/dri/renderD128" "$T/proc/100/fd/7"	# dup of fd 3
ln -s "$T/dev/dri/renderD128" "$T/proc/101/fd/3"	# inherited over fork
ln -s "$T/dev/dri/renderD129" "$T/proc/200/fd/4"
ln -s "$T/dev/null0" "$T/proc/300/fd/0"
echo "pos: 0" > "$T/proc/300/fdinfo/0"

# Client 5 (pid 100 fd 3 and 7, pid 101 fd 3): gfx busy 50 % of wall time, 3 MiB + 1 MiB shared.
# Client 9 (pid 200): engine "ce" with capacity 2 busy 1.5 cores = 75 %.
# fdinfo_text CLIENT NS_SINCE_START
fdinfo_text() {
	if [ "$1" = 5 ]; then
		printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1001\ndrm-driver:\tsimgpu\n'
		printf 'drm-client-id:\t5\ndrm-engine-gfx:\t%d ns\ndrm-total-memory:\t4 MiB\n' $(($2 / 2))
		printf 'drm-shared-memory:\t1024 KiB\ndrm-resident-memory:\t4194304\n'
	else
		printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1002\ndrm-driver:\tsimgpu\n'
		printf 'drm-client-id:\t9\ndrm-engine-ce:\t%d ns\ndrm-engine-capacity-ce:\t2\n' \
			$(($2 * 3 / 2))
		printf 'drm-total-memory:\t123\n'
	fi
}
# Each fdinfo is a FIFO whose writer computes the counters only once drmtop has opened it, so the
# figures are those of the moment of the read however loaded the machine is. (bash expands a
# command's words before its redirection opens, hence the explicit exec.)
now_ns() { local t=${EPOCHREALTIME/[.,]/}; echo "${t}000"; }
t0=$(now_ns)
writers=
serve() {
	while :; do
		exec 3>"$1" 2>/dev/null || return	# the record check deletes process 200
		fdinfo_text "$2" $(($(now_ns) - t0)) >&3
		exec 3>&-
		# drmtop reads each fdinfo once per sample (>= 0.2 s apart) up to EOF; reopening at
		# once could hand the same read a second copy before it saw EOF.
		sleep 0.1
	done
}
for p in 100/fdinfo/3:5 100/fdinfo/7:5 101/fdinfo/3:5 200/fdinfo/4:9; do
	mkfifo "$T/proc/${p%:*}"
	serve "$T/proc/${p%:*}" "${p#*:}" &
	writers="$writers $!"
done
updater=$writers

out=$(timeout 60 "$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -J -n 2 -d 2 2>"$T/err")
rc=$?
[ "$rc" -eq 0 ] && ok "json run exits 0" || bad "json run exits 0" "rc=$rc $(cat "$T/err")"
its=$(printf '%s\n' "$out" | jq -c '.iteration' | tr '\n' ' ')
[ "$its" = "1 2 " ] && ok "frames numbered from 1" || bad "frames numbered from 1" "$its"
lines=$(printf '%s\n' "$out" | grep -c .)
[ "$lines" -eq 2 ] && ok "one object per interval" || bad "one object per interval" "$lines lines"
last=$(printf '%s\n' "$out" | tail -n 1)
if printf '%s\n' "$out" | jq -e . >/dev/null 2>&1; then ok "valid JSON"; else bad "valid JSON" "$out"; fi

n=$(jq '.clients | length' <<<"$last")
[ "$n" = 2 ] && ok "dup and fork-shared fds are one client" || bad "dup and fork-shared fds are one client" "$n clients"
holders=$(jq -c '[.clients[] | select(.client_id == 5) | .holders[] | [.pid, .fd]]' <<<"$last")
[ "$holders" = '[[100,3],[100,7],[101,3]]' ] && ok "every holder listed" || bad "every holder listed" "$holders"
comm=$(jq -r '.clients[] | select(.client_id == 5) | .comm' <<<"$last")
[ "$comm" = $'ren"der\tx' ] && ok "comm with quote and tab survives JSON" || bad "comm escaping" "$comm"

in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "null" && v >= lo && v <= hi) }'; }
gfx=$(jq '.clients[] | select(.client_id == 5) | .engines[] | select(.name == "gfx") | .busy_pct' <<<"$last")
in_range "$gfx" 47 53 && ok "busy % from measured interval ($gfx)" || bad "busy % 50" "got $gfx"
ce=$(jq '.clients[] | select(.client_id == 9) | .engines[] | select(.name == "ce") | .busy_pct' <<<"$last")
in_range "$ce" 72 78 && ok "capacity 2 halves the figure ($ce)" || bad "capacity 2 busy % 75" "got $ce"
dev=$(jq '.devices[] | select(.node == "dri/renderD128") | .engines[0].busy_pct' <<<"$last")
in_range "$dev" 47 53 && ok "device total counts the shared client once ($dev)" || bad "device total" "got $dev"
mem=$(jq -c '.clients[] | select(.client_id == 5) | .memory[0] | [.total_bytes, .shared_bytes, .resident_bytes]' <<<"$last")
[ "$mem" = '[4194304,1048576,4194304]' ] && ok "memory units converted exactly" || bad "memory" "$mem"
first_new=$(printf '%s\n' "$out" | head -n 1 | jq '[.clients[].new] | all | not')
[ "$first_new" = true ] && ok "first printed frame already has rates" || bad "first frame rates" "$first_new"
# Each client's interval ends at its own read: the two sample_ns of one client are interval_ns apart.
dts=$(printf '%s\n' "$out" | jq -s '[.[].clients[] | select(.client_id == 5)] |
	(.[1].sample_ns - .[0].sample_ns) - .[1].interval_ns')
[ "$dts" = 0 ] && ok "sample_ns per client" || bad "sample_ns per client" "$dts"
iv=$(jq '.interval_ns' <<<"$last")
in_range "$iv" 1900000000 2300000000 && ok "interval measured ($iv ns)" || bad "interval measured" "$iv"

pidf=$(timeout 60 "$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -J -n 1 -d 0.2 -p 101 | jq -c '[.clients[].client_id]')
[ "$pidf" = '[5]' ] && ok "-p matches any holder" || bad "-p filter" "$pidf"

text=$(timeout 60 "$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -b -n 1 -d 0.5)
grep -q '^simgpu dri/renderD128' <<<"$text" && ok "text: device section" || bad "text: device section" "$text"
grep -Eq '^ +100 .* 5 +[0-9.]+% .*100/3,100/7,101/3' <<<"$text" && ok "text: client row with holders" ||
	bad "text: client row" "$text"
grep -q 'source: fdinfo only (BPF off: --source fdinfo)' <<<"$text" && ok "text: says fdinfo only and why" ||
	bad "text: source note" "$text"

# Hostile input (tests/cli/hostile-proc.sh): terminal escapes, C1 controls and invalid UTF-8 in
# comm, cmdline and fdinfo names; fdinfo truncated, malformed, all NULs, empty, at u64 max, with
# a 1 MiB line and 3000 engines. Never fatal; JSON valid and exact; text terminal-safe.
# term_safe FILE: no control character but newline, no C1 control, well-formed UTF-8
term_safe() {
	! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1" &&
		! LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$1" && iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}
H=$T/hostile
if tests/cli/hostile-proc.sh "$H" 2>"$T/err"; then
	hp=(--proc-root "$H/proc" --sys-root "" --source fdinfo)
	timeout 60 "$DRMTOP" "${hp[@]}" -J -n 2 -d 0.2 >"$T/h.json" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ "$(grep -c . "$T/h.json")" -eq 2 ] && jq -e . "$T/h.json" >/dev/null &&
		ok "hostile: JSON run exits 0, two valid lines" ||
		bad "hostile: JSON run" "rc=$rc $(head -c 2000 "$T/err")"
	tail -n 1 "$T/h.json" >"$T/h1.json"
	n=$(jq '.clients | length' "$T/h1.json")
	[ "$n" = 7 ] && ok "hostile: every client listed" || bad "hostile: every client listed" "$n"
	# A name is carried exactly: escapes decoded back to the same bytes, ill-formed bytes U+FFFD.
	[ "$(jq -r '.clients[] | select(.pid == 10) | .comm' "$T/h1.json")" = \
		"$(printf 'evil\033[2J\033]0;pwne')" ] && ok "hostile: comm exact through JSON" ||
		bad "hostile: comm exact through JSON" "$(jq -c '.clients[0].comm' "$T/h1.json")"
	[ "$(jq -r '.clients[] | select(.pid == 10) | .client_name' "$T/h1.json")" = \
		"$(printf 'name\033]0;pwned\007\xef\xbf\xbd\xef\xbf\xbd\xc2\x9b')" ] &&
		ok "hostile: drm-client-name exact, invalid bytes as U+FFFD" ||
		bad "hostile: drm-client-name" "$(jq -c '.clients[0].client_name' "$T/h1.json")"
	[ "$(jq -r '.clients[] | select(.pid == 11) | .comm' "$T/h1.json")" = \
		"$(printf '\xef\xbf\xbd%.0s' 1 2 3 4 5)" ] && ok "hostile: invalid UTF-8 comm" ||
		bad "hostile: invalid UTF-8 comm" "$(jq -c '.clients[1].comm' "$T/h1.json")"
	grep -q '"total_bytes":18446744073709551615' "$T/h1.json" &&
		grep -q '"busy_ns":18446744073709551615' "$T/h1.json" &&
		ok "hostile: u64 max printed exactly" || bad "hostile: u64 max" "$(head -c 600 "$T/h1.json")"
	v=$(jq -c '[(.clients[] | select(.pid == 11) | [.malformed_lines, .engines[0].busy_ns]),
		(.clients[] | select(.pid == 15) | .engines | length),
		(.clients[] | select(.pid == 10) | .extras.pasid), .scan.malformed_lines]' "$T/h1.json")
	[ "$v" = '[[3,12],3001,"1",7]' ] &&
		ok "hostile: truncated line, 1 MiB key, key twice, malformed lines counted" ||
		bad "hostile: parse results" "$v"
	timeout 60 "$DRMTOP" "${hp[@]}" -b -n 1 -d 0.2 >"$T/h.txt" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && term_safe "$T/h.txt" && grep -qF 'evil\x1b[2J\x1b]0;pwne' "$T/h.txt" &&
		grep -qF 'sim\x1b[31mgpu' "$T/h.txt" && grep -qF '\xff\xfe\x9b\xc0\xaf' "$T/h.txt" &&
		ok "hostile: text escapes control characters and invalid UTF-8" ||
		bad "hostile: text" "rc=$rc $(head -c 3000 "$T/h.txt" | cat -v)"
	timeout 60 "$DRMTOP" record "${hp[@]}" -t 0.4 >"$T/h.rec" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && term_safe "$T/h.rec" && grep -qF 'evil\x1b[2J' "$T/h.rec" &&
		ok "hostile: record text escaped" || bad "hostile: record text" "rc=$rc $(cat -v "$T/h.rec")"
	timeout 60 "$DRMTOP" record "${hp[@]}" -t 0.4 -J 2>"$T/err" | jq -e . >/dev/null &&
		ok "hostile: record JSON valid" || bad "hostile: record JSON" "$(cat "$T/err")"
else
	bad "hostile proc tree" "$(cat "$T/err")"
fi

# The live view, as a person sees it: tmux runs it on a terminal, keys go in, the screen is read.
if command -v tmux >/dev/null; then
	sock="$T/tmux"
	tmux -S "$sock" new-session -d -x 160 -y 30 \
		"$DRMTOP --proc-root $T/proc --sys-root '' --source fdinfo -d 0.5; echo EXITED \$?; sleep 30"
	screen() { tmux -S "$sock" capture-pane -p; }
	wait_screen() {	# PATTERN: up to 10 s
		for _ in $(seq 100); do screen | grep -q -- "$1" && return 0; sleep 0.1; done
		return 1
	}
	wait_screen '100/3,100/7,101/3' && screen | grep -q 'sort: busy' &&
		screen | grep -q ' q quit' && ok "tui: shows clients, sort and key help" ||
		bad "tui: first screen" "$(screen)"
	wait_screen '5 \+[0-9.]\+%' && ok "tui: rates appear after an interval" ||
		bad "tui: rates" "$(screen)"
	tmux -S "$sock" send-keys s
	wait_screen 'sort: memory' && ok "tui: s cycles the sort" || bad "tui: s" "$(screen)"
	tmux -S "$sock" send-keys q
	wait_screen 'EXITED 0' && ok "tui: q quits with status 0" || bad "tui: q" "$(screen)"
	tmux -S "$sock" kill-server 2>/dev/null
	# The hostile tree's names reach the screen escaped (as \xNN or ?), and the screen is still
	# drmtop's.
	if [ -d "$H/proc" ]; then
		tmux -S "$sock" new-session -d -x 160 -y 30 \
			"$DRMTOP --proc-root $H/proc --sys-root '' --source fdinfo -d 0.5; sleep 30"
		wait_screen 'evil\(\\x1b\|?\)\[2J' && screen | grep -q 'sort: busy' &&
			ok "tui: hostile names shown escaped" || bad "tui: hostile names" "$(screen)"
		tmux -S "$sock" send-keys q
		tmux -S "$sock" kill-server 2>/dev/null
	fi
else
	bad "tui" "tmux missing (scripts/install-deps.sh installs it)"
fi

"$DRMTOP" -d 0 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "invalid interval '0'" "$T/err" && ok "bad option: exit 2 with reason" ||
	bad "bad option" "rc=$rc $(cat "$T/err")"
"$DRMTOP" --proc-root "$T/nonexistent" -J -n 1 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "cannot" "$T/err" && ok "unreadable proc root: clear error" ||
	bad "unreadable proc root" "rc=$rc $(cat "$T/err")"
"$DRMTOP" --help | grep -q '^Examples:' && ok "--help has examples" || bad "--help" "no examples"

# This machine itself, through the real /proc: exit 0, one valid object, and where there is no
# DRM device (CI machines have none) it says so, and says why BPF is off.
real=$(timeout 60 "$DRMTOP" -J -n 1 -d 0.5 2>"$T/err")
rc=$?
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$real" | grep -c .)" -eq 1 ] && jq -e . <<<"$real" >/dev/null &&
	ok "host: one valid JSON object, exit 0" || bad "host run" "rc=$rc $real $(cat "$T/err")"
if [ ! -e /dev/dri ] && [ ! -e /dev/accel ]; then
	st=$(jq -r '[.status, .message, .bpf.active, (.bpf.reason | length > 0)] | join("|")' <<<"$real")
	[ "$st" = "no_device|no DRM or accelerator device found|false|true" ] &&
		ok "host without DRM: says no device, and why BPF is off" || bad "host no device" "$st"
fi

# make install honours PREFIX and DESTDIR, and what it installs runs.
if ${MAKE:-make} -s --no-print-directory install PREFIX=/opt/drmtop-test DESTDIR="$T/inst" \
	OUTPUT="$(dirname "$DRMTOP")" >"$T/err" 2>&1 &&
	"$T/inst/opt/drmtop-test/sbin/drmtop" --version | grep -q '^drmtop '; then
	ok "make install PREFIX DESTDIR"
else
	bad "make install PREFIX DESTDIR" "$(cat "$T/err"; ls -R "$T/inst" 2>&1 | head -5)"
fi

# Record: the client that closes during the session is still in the summary.
# The fd goes first, as when a process closes it: drmtop stops opening its fdinfo FIFO before the
# FIFO's writer goes with the directory (a reader left waiting on it would never return).
( sleep 0.6; rm -f "$T/proc/200/fd/4"; sleep 1; rm -rf "$T/proc/200" ) &
rec=$(timeout 60 "$DRMTOP" record --proc-root "$T/proc" --sys-root "" --source fdinfo -t 1.5 -J 2>/dev/null)
closed=$(jq -c '[.clients[] | select(.client_id == 9) | .closed]' <<<"$rec")
[ "$closed" = '[true]' ] && ok "record keeps a client that closed" || bad "record closed client" "$rec"
rb=$(jq '.clients[] | select(.client_id == 5) | .engines[0].busy_pct' <<<"$rec")
in_range "$rb" 45 55 && ok "record: busy in session ($rb)" || bad "record busy" "$rb"
finish
