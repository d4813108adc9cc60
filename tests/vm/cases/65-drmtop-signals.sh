#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: exit status, whole output, objects gone; nothing timed
# case-timeout: 900
#
# Signals against drmtop with the tracer attached, in each long-running mode: JSON lines
# (-J -d 1), record, serve and the live view (in tmux), ended by SIGINT (Ctrl-C on the live
# view's terminal), SIGTERM, SIGHUP and SIGKILL while a workload holds a client:
#  - the exit status is 0 for INT/TERM/HUP (docs/drmtop.8, SIGNALS) and 137 for KILL;
#  - what it wrote is whole: every JSON line parses, record prints its summary with the held
#    client in it (none after KILL), serve says it stopped, the live view restores the terminal;
#  - nothing of the tracer stays: every BPF program, map, link and BTF object drmtop held (the
#    ids in its own /proc/<pid>/fdinfo while it ran, which bpftool must list then) is gone from
#    bpftool's lists afterwards, and bpftool lists exactly what it listed before drmtop ran,
#    bpffs and kprobe_events unchanged. After KILL too: the kernel releases them with the fds.
# Then a signal while the tracer is still loading (seconds under TCG): SIGTERM ends -J, record
# (with its summary) and serve with 0; SIGKILL leaves nothing either.
# Eight of the sixteen pairs by default, one batch: every mode's tracer released after a clean
# exit and (but serve) after KILL, and with the host's CLI and serve tests (tests/cli, without
# the tracer: stream by INT, TERM and HUP, the live view by Ctrl-C and TERM, record by INT and
# TERM, serve by TERM) every mode ended by every clean signal once. The signal handling is
# drmtop's own, the release of the tracer's objects the kernel's, and each load of the tracer
# costs seconds under TCG: all sixteen (SIG_SPECS=all) took 7 minutes of 6.12's exact half.
# Knobs: SIG_SPECS ("mode:SIGNAL ..." or all), SIG_LOAD_SPECS, SIG_BATCH (instances at once).
# Runs in the test VM from the repository root (tests/vm/run-suite.sh).
set -u

. tests/workload/vmcheck.sh

DRMTOP=${DRMTOP:-build/drmtop}
SIG_SPECS=${SIG_SPECS:-stream:TERM record:HUP serve:INT serve:HUP tui:HUP \
	stream:KILL record:KILL tui:KILL}
if [ "$SIG_SPECS" = all ]; then
	SIG_SPECS=
	for s in INT TERM HUP KILL; do
		for m in stream record serve tui; do
			SIG_SPECS="$SIG_SPECS $m:$s"
		done
	done
fi
SIG_LOAD_SPECS=${SIG_LOAD_SPECS:-stream:TERM record:TERM serve:TERM stream:KILL}
SIG_BATCH=${SIG_BATCH:-8}
PORT0=9480

wl_require drmtop-signals-setup
for tool in "$DRMTOP" bpftool tmux; do
	command -v "$tool" >/dev/null || { fail drmtop-signals-setup "$tool not found"; exit 1; }
done
if ! loopback_up; then
	fail drmtop-signals-setup "cannot bring the loopback interface up"
	exit 1
fi
tmp=$(mktemp -d)
sock=/tmp/tmux-65.$$	# not in $tmp, which is copied to the results after a failure
PIDS=
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
	wl_stop >/dev/null 2>&1
	wl_keep_on_failure "$tmp" 65-drmtop-signals
	rm -rf "$tmp"
}
trap cleanup EXIT

# until_true SECONDS CMD...: polls CMD every 0.1 s (by the clock: under TCG a poll can take
# longer than its sleep).
until_true() {
	_end=$(echo "$(now) $1" | awk '{ print $1 + $2 }')
	shift
	while :; do
		"$@" && return 0
		awk -v e="$_end" -v n="$(now)" 'BEGIN { exit !(n > e) }' && return 1
		sleep 0.1
	done
}
# Every BPF object the kernel has, one "kind:id" per line: what bpftool lists (one bpftool for
# the four lists: under TCG every exec counts). A list that fails is asked again: "btf show"
# gives up when a program it looks at goes away meanwhile (another drmtop loading), and batch
# mode stops there.
all_objs() {
	for _try in 1 2 3 4 5 6 7 8 9 10; do
		printf 'prog show\nmap show\nlink show\nbtf show\n' |
			bpftool -j batch file - >"$tmp/bpftool.json" 2>/dev/null &&
			jq -e 'length == 4' "$tmp/bpftool.json" >/dev/null 2>&1 && break
		sleep 0.2
	done
	jq -r '.[] | .command[0] as $k | .output[] | "\($k):\(.id)"' "$tmp/bpftool.json" | sort
}
# The BPF objects process $1 holds a descriptor of (a link's fdinfo names its program too),
# but the kernel's own (vmlinux and module BTF, which drmtop reads while it loads).
fd_objs() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '
		$1 == "prog_id:" { print "prog:" $2 } $1 == "map_id:" { print "map:" $2 }
		$1 == "link_id:" { print "link:" $2 } $1 == "btf_id:" { print "btf:" $2 }' |
		sort -u | comm -23 - "$tmp/base.objs"
}
# What else could outlive a process: pinned objects, legacy (tracefs) kprobes and uprobes.
other_state() {
	find /sys/fs/bpf 2>/dev/null | sort
	cat /sys/kernel/tracing/kprobe_events /sys/kernel/tracing/uprobe_events 2>/dev/null
}
screen() { tmux -S "$sock" capture-pane -p -t "$1" 2>/dev/null; }

if ! wl_start "$tmp" -H -s 'proc held; open a; bo a buf size=64K; submit a engine=gfx dur=1ms count=4 wait=end' \
	>/dev/null; then
	fail drmtop-signals-workload "$WL_WHY"
	exit 1
fi
held=$(jq '[.open[] | select(.comm == "held") | .client_id][0]' "$tmp/ready.json")
all_objs >"$tmp/base.objs"
other_state >"$tmp/base.other"
echo "# before drmtop: $(wc -l <"$tmp/base.objs") BPF objects (the kernel's BTF)"

# start NAME MODE: one drmtop in MODE (stream, record, serve, tui), its files in $tmp/NAME.
n_started=0
start() {
	_d=$tmp/$1
	mkdir -p "$_d"
	n_started=$((n_started + 1))
	case $2 in
	stream) "$DRMTOP" -J -d 1 >"$_d/out" 2>"$_d/err" & echo $! >"$_d/pid" ;;
	record) "$DRMTOP" record -t 3600 -J >"$_d/out" 2>"$_d/err" & echo $! >"$_d/pid" ;;
	serve)
		"$DRMTOP" serve --listen "127.0.0.1:$((PORT0 + n_started))" -d 1 >"$_d/out" 2>"$_d/err" &
		echo $! >"$_d/pid" ;;
	tui)
		# The pane's shell ignores SIGINT, so that Ctrl-C reaches drmtop alone; sh -c writes
		# its pid and becomes drmtop. The exit status and whether the terminal settings are
		# the ones it started with go to files: after a SIGKILL the screen is still drmtop's.
		tmux -S "$sock" new-session -d -s "$1" -x 160 -y 40 \
			"trap '' INT; S0=\$(stty -g); sh -c 'echo \$\$ >$_d/pid; exec $DRMTOP -d 1';
			 echo \$? >$_d/rc.pane; [ \"\$(stty -g)\" = \"\$S0\" ] && echo same >$_d/stty;
			 sleep 3600"
		until_true 30 test -s "$_d/pid" ;;
	esac
	[ "$2" = tui ] || PIDS="$PIDS $(cat "$_d/pid")"
}
# ready NAME MODE: the tracer is attached and the mode running.
ready() {
	case $2 in
	stream) [ -s "$tmp/$1/out" ] ;;
	record) grep -q recording "$tmp/$1/err" ;;
	serve) grep -q listening "$tmp/$1/err" ;;
	tui) screen "$1" | grep -q 'hooks attached' ;;
	esac
}
# attached NAME: the instance holds programs, maps and links, and bpftool lists every one of them
# (else their absence later would prove nothing). Objects it holds for a moment only (the
# task_file iterator's link, made per refresh) are those not in both snapshots around bpftool.
attached() {
	_p=$(cat "$tmp/$1/pid")
	fd_objs "$_p" >"$tmp/$1/objs.a"
	all_objs >"$tmp/now.objs"
	fd_objs "$_p" | comm -12 - "$tmp/$1/objs.a" >"$tmp/$1/objs"
	_missing=$(comm -23 "$tmp/$1/objs" "$tmp/now.objs" | tr '\n' ' ')
	for _k in prog map link; do
		grep -q "^$_k:" "$tmp/$1/objs" || _missing="$_missing no-$_k"
	done
	[ -z "$_missing" ] || { fail "$1-attached" "not listed by bpftool: $_missing"; return 1; }
}
# has_bpf_fd PID: the process holds some BPF object (the tracer is loading or loaded).
has_bpf_fd() { ls -l /proc/"$1"/fd 2>/dev/null | grep -q 'anon_inode:bpf'; }
# send NAME MODE SIG
send() {
	if [ "$2" = tui ] && [ "$3" = INT ]; then
		tmux -S "$sock" send-keys -t "$1" C-c
	else
		kill -"$3" "$(cat "$tmp/$1/pid")"
	fi
}
# exited PID: the process is gone or a zombie.
exited() { [ ! -e /proc/"$1"/stat ] || [ "$(cut -d' ' -f3 /proc/"$1"/stat)" = Z ]; }
# ended NAME MODE: waits (60 s at most: one that ignored the signal is a failure, not a hung
# case) for the instance; its exit status in $tmp/NAME/rc.
ended() {
	_p=$(cat "$tmp/$1/pid")
	if [ "$2" = tui ]; then
		until_true 60 test -s "$tmp/$1/rc.pane" ||
			{ echo "# $1 still running 60 s after the signal: killed"; kill -KILL "$_p"; }
		until_true 10 test -s "$tmp/$1/rc.pane"
		cat "$tmp/$1/rc.pane" >"$tmp/$1/rc" 2>/dev/null
	else
		until_true 60 exited "$_p" ||
			{ echo "# $1 still running 60 s after the signal: killed"; kill -KILL "$_p"; }
		wait "$_p"
		echo $? >"$tmp/$1/rc"
		PIDS=$(echo " $PIDS " | sed "s/ $_p / /")
	fi
}
# released NAME...: waits until no BPF object any of them held is listed by bpftool, up to 30 s
# (programs and maps are freed after an RCU grace period); what is left of each in NAME/left.
released() {
	_t0=$(now)
	for _n in "$@"; do cat "$tmp/$_n/objs"; done | sort -u >"$tmp/held.objs"
	while :; do
		all_objs >"$tmp/now.objs"
		_el=$(since "$_t0")
		[ -z "$(comm -12 "$tmp/held.objs" "$tmp/now.objs")" ] && break
		awk -v t="$_el" 'BEGIN { exit !(t > 30) }' && break
		sleep 0.5
	done
	for _n in "$@"; do
		comm -12 "$tmp/$_n/objs" "$tmp/now.objs" | tr '\n' ' ' >"$tmp/$_n/left"
		echo "$_el" >"$tmp/$_n/gone_s"
	done
}
# check NAME MODE SIG: what the instance wrote, how it ended, what it left.
check() {
	_d=$tmp/$1
	_rc=$(cat "$_d/rc" 2>/dev/null)
	_want=0
	[ "$3" = KILL ] && _want=137
	[ "$_rc" = "$_want" ] && pass "$1-exit-$_want" ||
		fail "$1-exit-$_want" "exit '$_rc': $(tail -n 3 "$_d/err" 2>/dev/null)"
	case $2:$3 in
	stream:KILL | serve:KILL | tui:KILL) ;;	# cut wherever it was: nothing to check
	stream:*)
		# Stopped while loading, it ends before its first frame (with a client held, the
		# first comes one interval after the start).
		if { [ -s "$_d/out" ] || [ "${1#load-}" != "$1" ]; } && [ ! -s "$_d/err" ] &&
			jq -e -s 'all(.bpf.active)' "$_d/out" >/dev/null 2>&1; then
			pass "$1-frames-whole ($(grep -c . "$_d/out") frames, tracer active)"
		else
			fail "$1-frames-whole" "$(tail -c 200 "$_d/out"); stderr: $(head -c 200 "$_d/err")"
		fi ;;
	record:KILL)
		[ ! -s "$_d/out" ] && pass "$1-no-summary" || fail "$1-no-summary" "$(head -c 200 "$_d/out")" ;;
	record:*)
		if jq -e --argjson id "$held" '.record.bpf.active and .record.duration_ns < 3600e9 and
			any(.clients[]; .client_id == $id and .bpf != null)' "$_d/out" >/dev/null 2>&1; then
			pass "$1-summary (the held client $held in it, with tracer figures)"
		else
			fail "$1-summary" "$(head -c 300 "$_d/out"); stderr: $(tail -c 200 "$_d/err")"
		fi ;;
	serve:*)
		grep -q 'serve: stopped' "$_d/err" && pass "$1-stopped" ||
			fail "$1-stopped" "$(tail -c 200 "$_d/err")" ;;
	tui:*)
		[ -s "$_d/stty" ] && [ "$(tmux -S "$sock" display -p -t "$1" '#{alternate_on}')" = 0 ] &&
			pass "$1-terminal-restored" ||
			fail "$1-terminal-restored" "$(screen "$1" | tail -n 4 | tr '\n' ';')" ;;
	esac
	[ ! -s "$_d/left" ] &&
		pass "$1-bpf-released ($(wc -l <"$_d/objs") objects, all gone $(cat "$_d/gone_s") s after the exit)" ||
		fail "$1-bpf-released" "still listed 30 s after the exit: $(cat "$_d/left")"
}
# after_all LABEL: bpftool lists what it listed before drmtop, nothing pinned or left in tracefs.
after_all() {
	all_objs >"$tmp/now.objs"
	other_state >"$tmp/now.other"
	if cmp -s "$tmp/base.objs" "$tmp/now.objs" && cmp -s "$tmp/base.other" "$tmp/now.other"; then
		pass "drmtop-signals-$1-nothing-left"
	else
		fail "drmtop-signals-$1-nothing-left" "$(diff "$tmp/base.objs" "$tmp/now.objs" | tr '\n' ' ')
			$(diff "$tmp/base.other" "$tmp/now.other" | tr '\n' ' ')"
	fi
}
# finish LABEL NAME...: waits for each, for their objects' release, and checks them.
finish() {
	_label=$1
	shift
	_s0=$(now)
	for _n in "$@"; do ended "$_n" "$(cat "$tmp/$_n/mode")"; done
	echo "# $_label: all ended $(since "$_s0") s after the signals"
	released "$@"
	for _n in "$@"; do check "$_n" "$(cat "$tmp/$_n/mode")" "$(cat "$tmp/$_n/sig")"; done
	after_all "$_label"
	tmux -S "$sock" kill-server 2>/dev/null
}

# run_batch LABEL SPEC...: starts them all; once each has attached, signals them all.
run_batch() {
	_label=$1
	shift
	_b0=$(now)
	_names=
	for _spec in "$@"; do
		_n=${_spec%%:*}-${_spec#*:}
		start "$_n" "${_spec%%:*}"
		echo "${_spec%%:*}" >"$tmp/$_n/mode"
		echo "${_spec#*:}" >"$tmp/$_n/sig"
	done
	for _spec in "$@"; do
		_n=${_spec%%:*}-${_spec#*:}
		if until_true 300 ready "$_n" "${_spec%%:*}" && attached "$_n"; then
			echo "# $_n attached $(since "$_b0") s after the start"
			_names="$_names $_n"
		elif [ ! -s "$tmp/$_n/objs" ]; then
			fail "$_n-ready" "not running after 300 s: $(tail -c 300 "$tmp/$_n/err" 2>/dev/null)$(screen "$_n" | tail -n 3)"
		fi
	done
	# Let the JSON modes write a frame or two with the tracer's figures first.
	sleep 2
	# Every one, checked or not: one left running would hold its objects past after_all.
	for _spec in "$@"; do
		_n=${_spec%%:*}-${_spec#*:}
		send "$_n" "$(cat "$tmp/$_n/mode")" "$(cat "$tmp/$_n/sig")"
	done
	for _spec in "$@"; do
		_n=${_spec%%:*}-${_spec#*:}
		case " $_names " in *" $_n "*) ;; *) ended "$_n" "${_spec%%:*}" ;; esac
	done
	# shellcheck disable=SC2086
	finish "$_label" $_names
}

# --- Every mode and signal (SIG_SPECS), once attached, SIG_BATCH at a time. -------------------
nb=0
batch=
k=0
for spec in $SIG_SPECS; do
	batch="$batch $spec"
	k=$((k + 1))
	if [ $k -ge "$SIG_BATCH" ]; then
		nb=$((nb + 1))
		# shellcheck disable=SC2086
		run_batch "batch$nb" $batch
		batch=
		k=0
	fi
done
# shellcheck disable=SC2086
[ -z "$batch" ] || run_batch "batch$((nb + 1))" $batch

# --- A signal while the tracer loads (SIG_LOAD_SPECS). ----------------------------------------
# A watcher per instance sends the signal as soon as the instance holds a BPF descriptor (one
# loop polling all of them could be seconds late under TCG) and says whether it was too late.
names=
for spec in $SIG_LOAD_SPECS; do
	n=load-${spec%%:*}-${spec#*:}
	start "$n" "${spec%%:*}"
	echo "${spec%%:*}" >"$tmp/$n/mode"
	echo "${spec#*:}" >"$tmp/$n/sig"
	(
		p=$(cat "$tmp/$n/pid")
		t0=$(now)
		until has_bpf_fd "$p"; do
			awk -v t="$(since "$t0")" 'BEGIN { exit !(t > 300) }' && { echo none >"$tmp/$n/when"; exit; }
			sleep 0.05
		done
		fd_objs "$p" >"$tmp/$n/objs"
		if ready "$n" "${spec%%:*}"; then
			echo late >"$tmp/$n/when"
		else
			kill -"${spec#*:}" "$p"
			echo load >"$tmp/$n/when"
		fi
	) &
	echo $! >"$tmp/$n/watcher"
	names="$names $n"
done
for n in $names; do
	wait "$(cat "$tmp/$n/watcher")"
	case $(cat "$tmp/$n/when" 2>/dev/null) in
	load) pass "$n-in-load (signalled holding $(wc -l <"$tmp/$n/objs") BPF objects)" ;;
	late) fail "$n-in-load" "the tracer had loaded before the signal could be sent"
		kill -"$(cat "$tmp/$n/sig")" "$(cat "$tmp/$n/pid")" ;;
	*) fail "$n-in-load" "no BPF descriptor in 300 s"
		kill -KILL "$(cat "$tmp/$n/pid")" ;;
	esac
done
# The objects each held when the signal came; those it made after count in nothing-left.
# shellcheck disable=SC2086
[ -z "$names" ] || finish load $names

wl_stop >/dev/null || fail drmtop-signals-workload "workload failed: $(tail -n 3 "$tmp/stderr")"
[ "$case_fails" -eq 0 ]
