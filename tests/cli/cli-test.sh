#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# End-to-end test of the drmtop binary (fdinfo source) on a synthetic proc tree: real character
# device nodes (mknod, so root), fdinfo files whose counters advance at known rates while drmtop
# samples, dup'd and fork-shared fds, hostile process names. Writes "<passed> <failed>" to
# $RESULTS/cli.
set -u
DRMTOP=${DRMTOP:-build/drmtop}
STAGE=cli
. "$(dirname "$0")/../stage-lib.sh"
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
	[ -n "${sock:-}" ] && { tui_stop 2>/dev/null || tmux -S "$sock" kill-server 2>/dev/null; }
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
# cgroups: 100 a container of a Burstable pod (containerd, systemd driver), 200 a Docker
# container; 101 has none (no cgroup file: drmtop goes on, the client takes its primary's).
CID=3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f
POD=2b8a4f1e-7c3d-4e5f-9a0b-1c2d3e4f5a6b
printf '0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/%s\n' \
	"$(tr - _ <<<"$POD")" "cri-containerd-$CID.scope" >"$T/proc/100/cgroup"
printf '12:pids:/docker/%s\n0::/system.slice/docker-%s.scope\n' "$CID" "$CID" >"$T/proc/200/cgroup"

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
		: >"$T/read-$2"	# the record check waits for this
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

cg=$(jq -r '.clients | sort_by(.client_id)[] | .cgroup |
	[.workload, .runtime, .container, .pod, .qos, .unit] | map(. // "-") | join(" ")' <<<"$last")
want_cg="pod/$POD/${CID:0:12} containerd $CID $POD burstable cri-containerd-$CID.scope
docker/${CID:0:12} docker $CID - - docker-$CID.scope"
[ "$cg" = "$want_cg" ] &&
	ok "cgroup: a pod's container and a Docker container named from their cgroup v2 paths" ||
	bad "cgroup" "$cg"

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
# A stall of 1.2 s (SIGSTOP, as a slow sample or the tracer attaching when gpu_sched loads) is one
# long interval: the ticks it passed are skipped, not caught up in a burst of frames milliseconds
# apart whose rates are noise (seen in VM case 60 on 7.2: 5-28 ms intervals after the attach).
"$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -J -n 6 -d 0.2 >"$T/stall.jsonl" \
	2>"$T/stall.err" &
stall_pid=$!
sleep 0.5
kill -STOP "$stall_pid"
sleep 1.2
kill -CONT "$stall_pid"
wait "$stall_pid"
ivs=$(jq -s -c '[.[].interval_ns / 1000000 | floor]' "$T/stall.jsonl")
jq -e 'length == 6 and (.[1:] | min) >= 100 and max >= 1000' <<<"$ivs" >/dev/null &&
	ok "a stall is one long interval, no burst after it ($ivs ms)" ||
	bad "a stall is one long interval" "intervals $ivs ms: $(cat "$T/stall.err")"

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
	[ "$n" = 8 ] && ok "hostile: every client listed" || bad "hostile: every client listed" "$n"
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
	# cgroup paths carried exactly (ill-formed bytes as U+FFFD), v1-only systemd's, none.
	v=$(jq -c '[.clients[] | select(.pid == 10 or .pid == 14 or .pid == 16) |
		[.pid, .cgroup.path, .cgroup.workload]]' "$T/h1.json")
	[ "$v" = "$(printf '[[10,"/system.slice/evil\\u001b]0;pwned\\u0007\xef\xbf\xbd.service","evil\\u001b]0;pwned\\u0007\xef\xbf\xbd.service"],[14,"/system.slice/legacy.service","legacy.service"],[16,null,null]]')" ] &&
		ok "hostile: cgroup paths exact through JSON, v1's systemd path, none" ||
		bad "hostile: cgroup" "$v"
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
	# CSV goes to terminals and spreadsheets: escaped as text is, and no cell a formula. Each
	# text field is checked, and the rows must still parse with a standard reader.
	timeout 60 "$DRMTOP" "${hp[@]}" -o csv -n 2 -d 0.2 >"$T/h.csv" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && term_safe "$T/h.csv" && grep -qF 'evil\x1b[2J\x1b]0;pwne' "$T/h.csv" &&
		grep -qF 'sim\x1b[31mgpu' "$T/h.csv" && grep -qF '\xff\xfe\x9b\xc0\xaf' "$T/h.csv" &&
		ok "hostile: csv escapes control characters and invalid UTF-8" ||
		bad "hostile: csv" "rc=$rc $(head -c 3000 "$T/h.csv" | cat -v)"
	if python3 - "$T/h.csv" >"$T/csvcheck" 2>&1 <<'PY'
import csv, sys
csv.field_size_limit(sys.maxsize)  # the 1 MiB engine name
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
problems = []
text = ("comm", "device", "node", "driver", "client_id", "source", "engine", "workload", "cgroup")
for r in rows:
    for k in text:
        if r[k][:1] in ("=", "+", "-", "@", "\t", "\r"):
            problems.append("pid %s %s %r starts a formula" % (r["pid"], k, r[k]))
    for k, v in r.items():
        if k not in text and k != "time" and v != "":
            float(v)  # figures stay numbers
f = [(r["comm"], r["driver"], r["engine"], r["busy_ns"]) for r in rows if r["pid"] == "17"]
if not f or f[0] != ("'=1+cmd|x", "'+sim", "'-gfx", "5"):
    problems.append("pid 17: %r" % f)
g = {(r["pid"], r["workload"], r["cgroup"]) for r in rows if r["pid"] in ("10", "16", "17")}
if g != {("10", "evil\\x1b]0;pwned\\x07\\xff.service",
          "/system.slice/evil\\x1b]0;pwned\\x07\\xff.service"), ("16", "", ""),
         ("17", "'=HYPERLINK(\"x\").scope", "/=HYPERLINK(\"x\").scope")}:
    problems.append("cgroups %r" % sorted(g))
if len({r["pid"] for r in rows}) != 8:
    problems.append("clients %s" % sorted({r["pid"] for r in rows}))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
	then ok "hostile: csv neutralises formulas, figures stay numbers, every client there"
	else bad "hostile: csv formulas" "$(head -n 5 "$T/csvcheck")"; fi
	timeout 60 "$DRMTOP" record "${hp[@]}" -t 0.4 >"$T/h.rec" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && term_safe "$T/h.rec" && grep -qF 'evil\x1b[2J' "$T/h.rec" &&
		ok "hostile: record text escaped" || bad "hostile: record text" "rc=$rc $(cat -v "$T/h.rec")"
	timeout 60 "$DRMTOP" record "${hp[@]}" -t 0.4 -J 2>"$T/err" | jq -e . >/dev/null &&
		ok "hostile: record JSON valid" || bad "hostile: record JSON" "$(cat "$T/err")"
else
	bad "hostile proc tree" "$(cat "$T/err")"
fi
# -o text is -b; -o csv parses with Python's csv module and carries the JSON view's figures.
otext=$(timeout 60 "$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -o text -n 1 -d 0.5)
# The same lines but for the figures that move between two runs.
shape() { sed -E 's/^drmtop - [0-9:]*  interval [0-9.]* s/T/; s/[0-9.]+%/P/g; /^ /d'; }
[ "$(printf '%s\n' "$otext" | shape)" = "$(printf '%s\n' "$text" | shape)" ] &&
	ok "-o text is -b" || bad "-o text" "$otext"
if command -v python3 >/dev/null; then
	timeout 60 "$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -o csv -n 2 -d 1 \
		>"$T/out.csv" 2>"$T/err"
	rc=$?
	timeout 60 "$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -J -n 1 -d 1 \
		>"$T/out.json" 2>>"$T/err"
	[ "$rc" -eq 0 ] && [ "$(head -n 1 "$T/out.csv" | cut -c1-15)" = "time,iteration," ] &&
		[ "$(grep -c '^time,' "$T/out.csv")" -eq 1 ] && ok "csv: exit 0, one header line" ||
		bad "csv: runs" "rc=$rc $(cat "$T/err") $(head -n 3 "$T/out.csv")"
	# Every row parsed by a standard reader; per (client, engine) the identity and memory
	# exactly as JSON has them, busy % both in the expected band (the two runs are not one frame).
	if python3 - "$T/out.csv" "$T/out.json" >"$T/csvcheck" 2>&1 <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
frame = json.loads(open(sys.argv[2]).readline())
# CSV escapes control characters as the text view does (a tab is "\\x09").
esc = lambda s: "".join("\\x%02x" % ord(ch) if ord(ch) < 32 or ord(ch) == 127 else
                        "\\\\" if ch == "\\" else ch for ch in s)
# Wider than the JSON check above: two runs, each band must hold on a loaded machine.
want = {5: (40, 60), 9: (65, 85)}
problems = []
if sorted({r["iteration"] for r in rows}) != ["1", "2"]:
    problems.append("iterations %s" % sorted({r["iteration"] for r in rows}))
if len(rows) != 4:
    problems.append("%d rows, want 2 frames x 2 clients x 1 engine" % len(rows))
for r in rows:
    c = [c for c in frame["clients"] if c["client_id"] == int(r["client_id"])][0]
    e = c["engines"][0]
    m = c["memory"][0] if c["memory"] else {}
    same = {
        "pid": c["pid"], "uid": c.get("uid"), "comm": esc(c["comm"]), "device": c["device"],
        "node": c["node"], "driver": c["driver"], "source": "fdinfo", "engine": e["name"],
        "capacity": e["capacity"], "mem_total_bytes": m.get("total_bytes"),
        "mem_shared_bytes": m.get("shared_bytes", 0),
        "mem_resident_bytes": m.get("resident_bytes", 0), "bpf_busy_pct": "",
        "diverged": "",
    }
    for k, v in same.items():
        if r[k] != ("" if v is None else str(v)):
            problems.append("client %s %s: csv %r, json %r" % (r["client_id"], k, r[k], v))
    lo, hi = want[int(r["client_id"])]
    for who, pct in (("csv", r["busy_pct"]), ("json", e["busy_pct"])):
        if not lo <= float(pct) <= hi:
            problems.append("client %s busy %s %s not in [%d, %d]" % (r["client_id"], who, pct, lo, hi))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
	then ok "csv: python csv parses it; same identity, memory and busy band as JSON"
	else bad "csv vs json" "$(head -n 5 "$T/csvcheck")"; fi
	grep -qF '"ren""der\x09x"' "$T/out.csv" && ok "csv: a quote in a field is quoted and doubled" ||
		bad "csv: quoting" "$(grep ren "$T/out.csv" | head -n 1)"
	# A frame carries the same counters in CSV and JSON: fdinfo that does not move gives both the
	# same busy_ns and 0.00 %, exactly.
	mkdir -p "$T/ps/42/fd" "$T/ps/42/fdinfo"
	echo static > "$T/ps/42/comm"
	ln -s "$T/dev/dri/renderD128" "$T/ps/42/fd/3"
	printf 'drm-driver:\tsimgpu\ndrm-client-id:\t42\ndrm-engine-gfx:\t123456789 ns\n' \
		>"$T/ps/42/fdinfo/3"
	printf 'drm-total-memory:\t8 MiB\n' >>"$T/ps/42/fdinfo/3"
	a=$("$DRMTOP" --proc-root "$T/ps" --sys-root "" --source fdinfo -o csv -n 1 -d 0.2 |
		python3 -c 'import csv, sys; r = list(csv.DictReader(sys.stdin))[0]
print(r["pid"], r["client_id"], r["engine"], r["busy_ns"], r["busy_pct"], r["mem_total_bytes"])')
	b=$("$DRMTOP" --proc-root "$T/ps" --sys-root "" --source fdinfo -J -n 1 -d 0.2 |
		jq -r '.clients[0] | [.pid, .client_id, .engines[0].name, .engines[0].busy_ns,
			(.engines[0].busy_pct * 100 | round / 100 | tostring | if . == "0" then "0.00" else . end),
			.memory[0].total_bytes] | join(" ")')
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "42 42 gfx 123456789 0.00 8388608" ] &&
		ok "csv: same counters as JSON, exactly ($a)" || bad "csv: exact" "csv '$a' json '$b'"
	"$DRMTOP" record -t 1 -o csv >/dev/null 2>"$T/err"
	[ $? -eq 2 ] && grep -q "record has no csv output" "$T/err" && ok "csv: record says it has none" ||
		bad "csv: record" "$(cat "$T/err")"
else
	bad "csv" "python3 missing (scripts/install-deps.sh installs it)"
fi
v=$("$DRMTOP" --version)
[ "$(printf '%s\n' "$v" | head -n 1)" = "drmtop 0.2.0" ] && grep -q '^libbpf: [0-9]' <<<"$v" &&
	grep -q 'ncurses' <<<"$v" && ok "--version: version and build information" || bad "--version" "$v"

# The live view, as a person sees it: tmux runs it on a terminal, keys go in, the screen is read.
# Process 200 belongs to nobody, so USER shows a name other than root.
if command -v tmux >/dev/null; then
	chown 65534 "$T/proc/200"
	sock="$T/tmux0"
	nsock=0
	# tui_start W H ENV OPTIONS...: drmtop in a fresh tmux session; the pane then says how it
	# ended and whether the terminal's settings are the ones it started with. The pane's shell
	# ignores SIGINT so that Ctrl-C reaches drmtop alone (drmtop sets its own handler).
	tui_start() {
		local w=$1 h=$2 env=$3
		shift 3
		# A server of its own each time: a new session on the socket of a server still
		# shutting down can go down with it.
		tui_stop
		nsock=$((nsock + 1))
		sock="$T/tmux$nsock"
		tmux -S "$sock" new-session -d -x "$w" -y "$h" \
			"trap '' INT; S0=\$(stty -g); env LANG=C.UTF-8 $env $DRMTOP $*; echo EXITED \$?;
			 [ \"\$(stty -g)\" = \"\$S0\" ] && echo STTY-SAME || echo STTY-CHANGED; sleep 60"
	}
	screen() { tmux -S "$sock" capture-pane -p 2>/dev/null; }
	keys() { tmux -S "$sock" send-keys "$@"; }
	alt_screen() { tmux -S "$sock" display -p '#{alternate_on}'; }
	drmtop_pid() { pgrep -P "$(tmux -S "$sock" display -p '#{pane_pid}' 2>/dev/null)" -x drmtop; }
	until_true() {	# COMMAND...: up to 10 s
		for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done
		return 1
	}
	gone() { ! kill -0 "$1" 2>/dev/null; }
	# tui_stop: the session's drmtop, if it still runs, ended by q (else SIGTERM, else SIGKILL)
	# and gone before its tmux server goes. Killing the server first hangs up the pane: the
	# shell's exit sends SIGHUP and SIGCONT to drmtop's process group, and a SIGCONT that comes
	# while LeakSanitizer's exit-time check attaches to the process discards the SIGSTOP of
	# that PTRACE_ATTACH: the check's tracer then waits for ever and the sanitized drmtop spins
	# in sched_yield (make sanitize once left one so, at 86 % of a CPU).
	tui_stop() {
		local pid
		pid=$(drmtop_pid)
		if [ -n "$pid" ]; then
			keys q
			until_true gone "$pid" || { kill -TERM "$pid"; until_true gone "$pid"; } ||
				{ kill -KILL "$pid"; until_true gone "$pid"; }
		fi
		tmux -S "$sock" kill-server 2>/dev/null
	}
	on_screen() { screen | grep -q -- "$1"; }
	# The pids of the table's rows, top to bottom (a row starts with its pid).
	order() { screen | awk '$1 == 100 || $1 == 200 { printf "%s ", $1 }'; }
	order_is() { [ "$(order)" = "$1" ]; }
	row() { screen | awk -v p="$1" '$1 == p'; }
	fake="--proc-root $T/proc --sys-root '' --source fdinfo"

	tui_start 160 30 "" "$fake -d 0.5"
	# Columns at 160: PID USER COMMAND DEV ID gfx ce MEM SHR SRC WORKLOAD HISTORY
	tui_rows_right() {
		row 100 | awk -v w="pod:${POD:0:8}/${CID:0:12}" '{ exit !($2 == "root" &&
			$3 == "ren\"der?x" && $4 == "renderD128" && $5 == 5 && $6 >= 47 && $6 <= 53 &&
			$7 == "-" && $8 == "4.0M" && $9 == "1.0M" && $10 == "F" && $11 == w) }' &&
		row 200 | awk -v w="docker/${CID:0:12}" '{ exit !($2 == "nobody" &&
			$3 == "compute" && $4 == "renderD129" && $5 == 9 && $6 == "-" && $7 >= 72 &&
			$7 <= 78 && $8 == "123B" && $9 == "0B" && $10 == "F" && $11 == w) }'
	}
	until_true tui_rows_right &&
		ok "tui: each client's row with user, engines, memory, source, workload" ||
		bad "tui: client rows" "$(screen)"
	bars_right() {
		screen | grep -A1 '^simgpu dri/renderD128  1 client  mem 4.0M' |
			grep -Eq '^ gfx .*\[.* (4[7-9]|5[0-3])\.[0-9]%\]' &&
		screen | grep -A1 '^simgpu dri/renderD129  1 client  mem 123B' |
			grep -Eq '^ ce .*\[.* 7[2-8]\.[0-9]%\]'
	}
	until_true bars_right && ok "tui: a busy bar per device engine" || bad "tui: device bars" "$(screen)"
	on_screen 'busiest engine, last' && on_screen 'HISTORY' && on_screen ' q quit' &&
		ok "tui: plot, history column and key reminder" || bad "tui: plot and status" "$(screen)"
	[ "$(alt_screen)" = 1 ] && ok "tui: runs on the alternate screen" || bad "tui: alternate screen" "off"

	until_true order_is "200 100 " && on_screen 'sort: busy' && ok "tui: busiest first" ||
		bad "tui: sort busy" "$(order)"
	keys P
	until_true order_is "100 200 " && on_screen 'sort: pid$' && ok "tui: P sorts by pid" ||
		bad "tui: P" "$(order) $(screen | head -n 1)"
	keys r
	until_true order_is "200 100 " && on_screen 'sort: pid (reversed)' && ok "tui: r reverses" ||
		bad "tui: r" "$(order)"
	keys r M
	until_true order_is "100 200 " && on_screen 'sort: memory' && ok "tui: M sorts by memory" ||
		bad "tui: M" "$(order)"
	keys N
	until_true order_is "200 100 " && on_screen 'sort: name' && ok "tui: N sorts by name" ||
		bad "tui: N" "$(order)"
	keys s
	until_true on_screen 'sort: busy' && ok "tui: s cycles back to busy" || bad "tui: s" "$(screen | head -n 1)"

	keys / c o m p
	until_true order_is "200 " && on_screen 'filter: comp (1 shown)' &&
		on_screen 'filter: comp_' && ok "tui: / filters by command as it is typed" ||
		bad "tui: filter comp" "$(order)"
	keys BSpace BSpace BSpace BSpace 1 0 1
	until_true order_is "100 " && ok "tui: filter by a holder's pid (101 holds client 5)" ||
		bad "tui: filter 101" "$(order)"
	keys Enter
	until_true on_screen 'filter: 101 (1 shown)' && ! on_screen 'filter: 101_' &&
		ok "tui: Enter keeps the filter" || bad "tui: Enter keeps filter" "$(screen | tail -n 1)"
	keys Escape
	until_true order_is "200 100 " && ! on_screen 'filter:' && ok "tui: Esc clears the filter" ||
		bad "tui: Esc" "$(order)"
	keys / r e n d e r D 1 2 9 Enter
	until_true order_is "200 " && ok "tui: filter by device node" || bad "tui: filter node" "$(order)"
	keys Escape
	keys / d o c k e r Enter
	until_true order_is "200 " && ok "tui: filter by workload" || bad "tui: filter workload" "$(order)"
	keys Escape

	# Grouped rows (G): a row per process, then per workload, each the sum of its clients
	# (CLI counts them); Enter on a group shows its clients, filtered by the group's key.
	# Columns at 160: PID USER COMMAND|GROUP DEV CLI gfx ce MEM SHR SRC WORKLOAD HISTORY
	keys G
	per_process() {
		on_screen 'rows: per process$' &&
		row 100 | awk '{ exit !($2 == "root" && $3 == "ren\"der?x" && $5 == 1 && $6 >= 47 &&
			$6 <= 53 && $7 == "-" && $8 == "4.0M" && $9 == "1.0M" && $10 == "F") }' &&
		row 200 | awk '{ exit !($3 == "compute" && $5 == 1 && $6 == "-" && $7 >= 72 &&
			$7 <= 78 && $8 == "123B") }'
	}
	until_true per_process && ok "tui: G groups rows per process" || bad "tui: G process" "$(screen)"
	keys G
	per_workload() {
		on_screen 'rows: per workload$' && on_screen ' GROUP ' &&
		screen | awk -v w="pod:${POD:0:8}/${CID:0:12}" '$1 == "-" && $3 == "pod/2b8a4f1e-7c" &&
			$5 == 1 && $6 >= 47 && $6 <= 53 && $8 == "4.0M" && $11 == w { f = 1 }
			END { exit !f }' &&
		screen | awk -v w="docker/${CID:0:12}" '$1 == "-" && $2 == "nobody" && $5 == 1 &&
			$7 >= 72 && $7 <= 78 && $11 == w { f = 1 } END { exit !f }'
	}
	until_true per_workload && ok "tui: G again groups rows per workload" ||
		bad "tui: G workload" "$(screen)"
	keys Home Enter
	until_true order_is "200 " && on_screen "filter: docker/${CID:0:12} (1 shown)" &&
		! on_screen 'rows: per' && ok "tui: Enter on a group shows its clients" ||
		bad "tui: Enter group" "$(screen)"
	keys Escape

	# Detail of client 5: select it (pid order, first row), Enter.
	keys P Home Enter
	detail_right() {
		on_screen '^client simgpu@226:128#5' && on_screen '^pid 100  user root  command ren"der?x' &&
		on_screen '^holders (pid/fd): 100/3 100/7 101/3' &&
		on_screen "^workload pod/$POD/${CID:0:12}  cgroup /kubepods.slice/" &&
		screen | grep -Eq '^gfx +(4[7-9]|5[0-3])\.[0-9] +[0-9]+ +1 +- +- +- +-' &&
		screen | grep -Eq '^memory +4\.0M +1\.0M +4\.0M +- +-' &&
		on_screen 'needs the BPF tracer'
	}
	until_true detail_right && ok "tui: Enter shows the client's holders, workload, engines, memory, latency" ||
		bad "tui: detail" "$(screen)"
	keys Escape
	until_true order_is "100 200 " && ok "tui: Esc goes back to the table" || bad "tui: back" "$(screen)"
	keys h
	until_true on_screen 'drmtop keys' && on_screen 'filter as you type' &&
		ok "tui: h shows the help" || bad "tui: help" "$(screen)"
	keys x
	until_true eval '! on_screen "drmtop keys"' && ok "tui: any key closes the help" ||
		bad "tui: help closes" "$(screen)"

	# Down to 80x24: every line fits, nothing drawn twice, the figures still there.
	tmux -S "$sock" resize-window -x 80 -y 24
	small_right() {
		[ "$(screen | wc -l)" -eq 24 ] && [ "$(screen | LC_ALL=C.UTF-8 wc -L)" -le 80 ] &&
		[ "$(screen | grep -c '^drmtop ')" -eq 1 ] && [ "$(screen | grep -c 'PID USER')" -eq 1 ] &&
		[ "$(screen | grep -c '^simgpu dri/renderD128  ')" -eq 1 ] &&
		[ "$(screen | tail -n 1 | grep -c '^ q quit')" -eq 1 ] && order_is "100 200 " &&
		row 100 | awk '{ exit !($6 >= 47 && $6 <= 53 && $8 == "4.0M") }' &&
		! on_screen HISTORY
	}
	until_true small_right && ok "tui: resized to 80x24 cleanly (history column dropped)" ||
		bad "tui: 80x24" "$(screen)"
	# Narrower than the source line: it wraps (it used to be cut at the edge, its end lost).
	tmux -S "$sock" resize-window -x 40 -y 24
	narrow_right() {
		[ "$(screen | LC_ALL=C.UTF-8 wc -L)" -le 40 ] &&
		[ "$(screen | grep -A1 '^source: ' | head -n 1 | wc -L)" -le 40 ] &&
		[ "$(screen | grep -A1 '^source: ' | sed -n 2p | cut -c1-3)" = "  f" ] &&
		[ "$(screen | grep -A1 '^source: ' | tr -s ' \n' ' ')" = \
			"source: fdinfo only (BPF off: --source fdinfo) " ]
	}
	until_true narrow_right && ok "tui: at 40 columns the source line wraps, nothing cut" ||
		bad "tui: 40 columns" "$(screen)"
	tmux -S "$sock" resize-window -x 160 -y 30
	until_true eval 'on_screen HISTORY && [ "$(screen | grep -c "PID USER")" -eq 1 ]' &&
		ok "tui: and back to 160x30" || bad "tui: 160x30 again" "$(screen)"

	keys q
	# The pane says "EXITED", then how the terminal was left: wait for the last of the two.
	until_true on_screen 'STTY-' && on_screen 'EXITED 0' && ok "tui: q quits with status 0" ||
		bad "tui: q" "$(screen)"
	on_screen STTY-SAME && [ "$(alt_screen)" = 0 ] && ! on_screen '^drmtop ' &&
		ok "tui: q restores the terminal (modes, main screen)" || bad "tui: q restores" "$(screen)"

	for how in SIGTERM Ctrl-C; do
		tui_start 100 30 "" "$fake -d 0.5"
		until_true on_screen 'PID USER'
		if [ "$how" = SIGTERM ]; then kill -TERM "$(drmtop_pid)"; else keys C-c; fi
		until_true on_screen 'STTY-' && on_screen 'EXITED 0' && on_screen STTY-SAME &&
			[ "$(alt_screen)" = 0 ] && ok "tui: $how ends it and restores the terminal" ||
			bad "tui: $how" "$(screen)"
	done

	# An error while running: the proc root goes away. The reason is printed on the restored
	# terminal (after endwin), not lost on the alternate screen.
	mkdir -p "$T/p2/1/fd" "$T/p2/1/fdinfo"
	echo static > "$T/p2/1/comm"
	tui_start 100 30 "" "--proc-root $T/p2 --sys-root '' --source fdinfo -d 0.3"
	until_true on_screen 'no client'
	mv "$T/p2" "$T/p2.gone"
	until_true on_screen 'STTY-' && on_screen 'EXITED 1' && on_screen "drmtop: cannot read $T/p2" &&
		on_screen STTY-SAME && [ "$(alt_screen)" = 0 ] &&
		ok "tui: an error restores the terminal, then says why" || bad "tui: error exit" "$(screen)"

	# No colour with -C or NO_COLOR (only attributes and resets to the default colour remain);
	# colours without them, or the check would prove nothing.
	colours() {
		tmux -S "$sock" capture-pane -p -e |
			grep -oE $'\e\\[[0-9;]*m' | sed 's/^.\[//; s/m$//' | tr ';' '\n' |
			grep -cE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$'
	}
	tui_start 100 30 "" "$fake -d 0.5"
	until_true on_screen 'PID USER'
	n=$(colours)
	[ "$n" -gt 0 ] && ok "tui: colours by default ($n colour codes)" || bad "tui: colours" "none"
	for how in -C NO_COLOR; do
		if [ "$how" = -C ]; then tui_start 100 30 "" "$fake -d 0.5 -C"
		else tui_start 100 30 "NO_COLOR=1" "$fake -d 0.5"; fi
		until_true on_screen 'PID USER'
		n=$(colours)
		[ "$n" -eq 0 ] && ok "tui: no colour with $how" || bad "tui: $how" "$n colour codes"
	done
	tui_stop
	chown 0 "$T/proc/200"
	# The hostile tree's names reach the screen escaped (as \xNN or ?), and the screen is still
	# drmtop's.
	if [ -d "$H/proc" ]; then
		tui_start 160 30 "" "--proc-root $H/proc --sys-root '' --source fdinfo -d 0.5"
		until_true on_screen 'evil\(\\x1b\|?\)\[2J' && on_screen 'PID USER' &&
			ok "tui: hostile names shown escaped" || bad "tui: hostile names" "$(screen)"
		tui_stop
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

# make install honours PREFIX and DESTDIR, what it installs runs, and the manual page is there.
if ${MAKE:-make} -s --no-print-directory install PREFIX=/opt/drmtop-test DESTDIR="$T/inst" \
	OUTPUT="$(dirname "$DRMTOP")" >"$T/err" 2>&1 &&
	"$T/inst/opt/drmtop-test/sbin/drmtop" --version | grep -q '^drmtop ' &&
	cmp -s docs/drmtop.8 "$T/inst/opt/drmtop-test/share/man/man8/drmtop.8"; then
	ok "make install PREFIX DESTDIR"
else
	bad "make install PREFIX DESTDIR" "$(cat "$T/err"; ls -R "$T/inst" 2>&1 | head -5)"
fi

# Signals end drmtop at the end of what it is writing, never in the middle: a reader that is slow
# to read (a full pipe) must get whole lines and exit status 0, not half a frame and
# "Interrupted system call". A static tree of 300 clients makes a frame and the record's summary
# larger than a pipe holds (64 KiB), so each write blocks until the reader reads.
S=$T/sig
for i in $(seq 1000 1299); do
	mkdir -p "$S/proc/$i/fd" "$S/proc/$i/fdinfo"
	echo "sig$i" >"$S/proc/$i/comm"
	printf 'sig\0' >"$S/proc/$i/cmdline"
	ln -s "$T/dev/dri/renderD128" "$S/proc/$i/fd/3"
	printf 'pos:\t0\nflags:\t02100002\ndrm-driver:\tsimgpu\ndrm-client-id:\t%d\n' "$i" \
		>"$S/proc/$i/fdinfo/3"
	printf 'drm-engine-gfx:\t%d ns\ndrm-total-memory:\t4 MiB\n' "$i" >>"$S/proc/$i/fdinfo/3"
done
sp=(--proc-root "$S/proc" --sys-root "" --source fdinfo)
# in_pipe_write PID: true once PID sleeps in a write to a full pipe (up to 10 s).
in_pipe_write() {
	local i
	for i in $(seq 100); do
		grep -q pipe_write "/proc/$1/wchan" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
sig_until() {	# COMMAND...: up to 20 s
	for _ in $(seq 200); do "$@" && return 0; sleep 0.1; done
	return 1
}
# whole_json FILE: every line a JSON value of its own
whole_json() { [ -s "$1" ] && jq -e -c . "$1" >/dev/null 2>&1 && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]; }
mkfifo "$T/sig.pipe"
"$DRMTOP" "${sp[@]}" -J -d 0.01 >"$T/sig.pipe" 2>"$T/sig.err" &
dpid=$!
exec 4<"$T/sig.pipe"
if in_pipe_write $dpid; then
	kill -TERM $dpid
	sleep 0.5	# without SA_RESTART the write fails here, before anyone reads
	cat <&4 >"$T/sig.out"
	wait $dpid
	rc=$?
	[ "$rc" -eq 0 ] && whole_json "$T/sig.out" && [ ! -s "$T/sig.err" ] &&
		ok "SIGTERM while a frame waits for a slow reader: the frame whole, exit 0" ||
		bad "SIGTERM in a pipe write" "rc=$rc $(cat "$T/sig.err"); last line: $(tail -n 1 \
			"$T/sig.out" | tail -c 80)"
else
	kill -KILL $dpid
	wait $dpid
	bad "SIGTERM in a pipe write" "drmtop never blocked in a pipe write (wchan $(cat /proc/$dpid/wchan 2>&1))"
fi
exec 4<&-
# record: the first signal ends the session; a second one while the summary waits for the reader
# (an impatient user, a supervisor repeating SIGTERM) must not cut the summary.
"$DRMTOP" record "${sp[@]}" -t 600 -J >"$T/sig.pipe" 2>"$T/sig.err" &
dpid=$!
exec 4<"$T/sig.pipe"
sig_until grep -q recording "$T/sig.err"
kill -INT $dpid
if in_pipe_write $dpid; then
	kill -TERM $dpid
	sleep 0.5
	cat <&4 >"$T/sig.out"
	wait $dpid
	rc=$?
	n=$(jq '[.clients[] | select(.comm | startswith("sig"))] | length' "$T/sig.out" 2>/dev/null)
	[ "$rc" -eq 0 ] && whole_json "$T/sig.out" && [ "$n" = 300 ] &&
		ok "record: a second signal while the summary is written leaves it whole, exit 0" ||
		bad "record: second signal in the summary" "rc=$rc clients=$n $(grep -v recording \
			"$T/sig.err"); ends: $(tail -c 80 "$T/sig.out")"
else
	kill -KILL $dpid
	wait $dpid
	bad "record: second signal in the summary" "the summary never blocked in a pipe write"
fi
exec 4<&-
# SIGHUP ends drmtop (a closed terminal), unless it was started with SIGHUP ignored (nohup(1)):
# then it runs on. SIGINT, SIGTERM and SIGHUP end it with status 0 after a whole frame. The other
# cases start it with every signal at its default, whatever this script inherited (run under
# nohup, SIGHUP arrives ignored, and bash cannot undo that with trap).
for how in INT TERM HUP nohup; do
	# The previous run's output would satisfy the wait below at once: SIGHUP could then reach
	# the nohup case's subshell before its trap '' HUP (seen: the case failing, $T gone).
	rm -f "$T/sig.out"
	if [ "$how" = nohup ]; then
		(trap '' HUP; exec "$DRMTOP" "${sp[@]}" -J -d 0.2 >"$T/sig.out" 2>"$T/sig.err") &
	else
		env --default-signal "$DRMTOP" "${sp[@]}" -J -d 0.2 >"$T/sig.out" 2>"$T/sig.err" &
	fi
	dpid=$!
	sig_until test -s "$T/sig.out"
	if [ "$how" = nohup ]; then
		kill -HUP $dpid
		n=$(grep -c . "$T/sig.out")
		sleep 1
		kill -0 $dpid 2>/dev/null && [ "$(grep -c . "$T/sig.out")" -gt "$n" ] &&
			ok "SIGHUP ignored at start (nohup) stays ignored" ||
			bad "nohup" "drmtop ended or stopped printing on SIGHUP"
		kill -TERM $dpid
	else
		kill -$how $dpid
	fi
	wait $dpid
	rc=$?
	[ "$how" = nohup ] || { [ "$rc" -eq 0 ] && whole_json "$T/sig.out" &&
		ok "SIG$how: exit 0, output whole" || bad "SIG$how" "rc=$rc $(cat "$T/sig.err")"; }
done

# A process whose command line cannot be read: /proc/<pid>/cmdline takes its mmap_lock, held for
# ever by a fault on a hung NFS or FUSE mapping. Here a FIFO nobody writes blocks the same way.
# drmtop goes on: every frame on time, the client listed without a command line, the blocked
# read counted (scan.cmdline_blocked). Its worker stays blocked; drmtop exits all the same.
G=$T/hung
mkdir -p "$G/proc/400/fd" "$G/proc/400/fdinfo"
echo hung >"$G/proc/400/comm"
mkfifo "$G/proc/400/cmdline"
ln -s "$T/dev/dri/renderD128" "$G/proc/400/fd/3"
printf 'pos:\t0\nflags:\t02100002\ndrm-driver:\tsimgpu\ndrm-client-id:\t40\ndrm-engine-gfx:\t0 ns\n' \
	>"$G/proc/400/fdinfo/3"
hung=$(timeout -k 5 20 "$DRMTOP" --proc-root "$G/proc" --sys-root "" --source fdinfo -J -n 3 -d 0.3 \
	2>"$T/hung.err")
rc=$?
got=$(jq -sc '[.[] | [.clients[0].comm, .clients[0].cmdline, .scan.cmdline_blocked]]' <<<"$hung")
[ "$rc" -eq 0 ] && [ "$got" = '[["hung",null,1],["hung",null,1],["hung",null,1]]' ] &&
	ok "a command line that blocks stops no frame" ||
	bad "a command line that blocks stops no frame" "rc=$rc $got $(head -c 300 "$T/hung.err")"
htext=$(timeout -k 5 20 "$DRMTOP" --proc-root "$G/proc" --sys-root "" --source fdinfo -b -n 1 \
	2>/dev/null)
grep -q 'command lines not read: 1, their read blocked' <<<"$htext" &&
	ok "text: says a command line was not read" || bad "text: blocked command line note" "$htext"

# Record: the client that closes during the session is still in the summary. Its fd goes once
# record has read it (its FIFO's writer marks each read), however late a loaded machine lets
# record start, as when a process closes it; the directory after record ended (drmtop stops
# opening the FIFO first: a reader left waiting on it would never return).
rm -f "$T/read-9"
timeout 60 "$DRMTOP" record --proc-root "$T/proc" --sys-root "" --source fdinfo -t 1.5 -J \
	>"$T/rec.json" 2>/dev/null &
recpid=$!
for _ in $(seq 200); do [ -e "$T/read-9" ] && break; sleep 0.05; done
rm -f "$T/proc/200/fd/4"
wait $recpid
rm -rf "$T/proc/200"
rec=$(cat "$T/rec.json")
closed=$(jq -c '[.clients[] | select(.client_id == 9) | .closed]' <<<"$rec")
[ "$closed" = '[true]' ] && ok "record keeps a client that closed" || bad "record closed client" "$rec"
wl=$(jq -r '.clients[] | select(.client_id == 9) | .cgroup.workload' <<<"$rec")
[ "$wl" = "docker/${CID:0:12}" ] && ok "record keeps the closed client's workload ($wl)" ||
	bad "record workload" "$wl"
rb=$(jq '.clients[] | select(.client_id == 5) | .engines[0].busy_pct' <<<"$rec")
in_range "$rb" 45 55 && ok "record: busy in session ($rb)" || bad "record busy" "$rb"

# Every drmtop this test started has ended (each ran on a tree under $T).
left=$(pgrep -f -- "--proc-root $T/")
# shellcheck disable=SC2086
[ -z "$left" ] && ok "no drmtop of this test left running" ||
	{ bad "drmtop left running" "$(ps -o pid,stat,pcpu,args -p "$(echo $left | tr ' ' ,)")"
	  kill -KILL $left; }
finish
