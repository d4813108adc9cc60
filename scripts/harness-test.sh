#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The `harness` stage of make test: the test machinery itself, on the host, in seconds.
#  - scripts/run-stage.py: a dummy stage that leaves a process behind (double fork and setsid,
#    one ignoring SIGTERM) is reported failing, its survivors named and killed, the failure
#    added to its result file; a clean stage keeps its status and counts; a failing stage's
#    FAIL lines come through and are repeated after the totals (scripts/summarise-tests.sh);
#  - every stage of make test runs its recipe under $(STAGE_RUN) (make's own database);
#  - make vm-deps builds every build/tests binary the guest cases run (dry run of make);
#  - a unit test built alone into an empty OUTPUT makes its skeletons first (dry run of make);
#  - bench/judge-test.sh: make bench's target verdicts on canned figures;
#  - tests/vm/mkinitramfs.sh: an initramfs made again for another busybox;
#  - tests/vm/sid-root-test.sh: the sid chroot's locking.
# Writes "<passed> <failed>" to $RESULTS/harness. Root (sid-root-test.sh: chroot, unshare).
set -u
cd "$(dirname "$0")/.." || exit 1
RESULTS=${RESULTS:-build/test-results}
mkdir -p "$RESULTS"
passed=0
failed=0
ok() { echo "PASS harness: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL harness: $1: $2"; failed=$((failed + 1)); }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# A stage that leaks: a daemon (setsid, double fork) and one that ignores SIGTERM. Their
# durations are odd ones: the check looks for them among all processes of the machine (a
# "sleep 300" of someone else's was once killed here, and failed the check).
echo "4 0" >"$T/leaky"
RESULTS=$T STAGE_GRACE=1 scripts/run-stage.py leaky -- sh -c '
	setsid sh -c "sleep 3017 & exit 0" &
	(trap "" TERM; exec sleep 3018) &
	sleep 0.2; exit 0' >"$T/leaky.out" 2>&1
rc=$?
sleep 0.2
left=$(pgrep -f -x 'sleep 301[78]')
if [ $rc -ne 0 ] && [ "$(cat "$T/leaky")" = "4 1" ] && [ -z "$left" ] &&
	grep -q '^FAIL leaky: 2 process(es) it started outlived it' "$T/leaky.out" &&
	grep -q 'sleep 3017' "$T/leaky.out" && grep -q 'sleep 3018' "$T/leaky.out"; then
	ok "a stage that leaves processes behind fails, names and kills them"
else
	bad "leaking stage" "rc=$rc result '$(cat "$T/leaky")' left '$left' $(cat "$T/leaky.out")"
	# shellcheck disable=SC2086
	[ -z "$left" ] || kill -KILL $left
fi
# A stage without a result file gets one that says it failed.
RESULTS=$T STAGE_GRACE=1 scripts/run-stage.py silent -- sh -c 'sleep 3019 & exit 0' >/dev/null
[ "$(cat "$T/silent" 2>/dev/null)" = "0 1" ] && ok "a leaking stage that wrote nothing: 0 1" ||
	bad "leaking stage without results" "'$(cat "$T/silent" 2>&1)'"
# A clean stage: its own status and counts.
RESULTS=$T scripts/run-stage.py clean -- sh -c 'sleep 0.1 & wait; echo "7 0" >"$RESULTS/clean"; exit 3'
rc=$?
[ $rc -eq 3 ] && [ "$(cat "$T/clean")" = "7 0" ] && ok "a clean stage keeps its status and counts" ||
	bad "clean stage" "rc=$rc result '$(cat "$T/clean")'"

# Each stage's time is kept, and its summary line says it, counted from make test's start.
RESULTS=$T scripts/run-stage.py timed -- sh -c 'sleep 1.2; echo "1 0" >"$RESULTS/timed"'
read -r start end <"$T/timed.time"
[ $((end - start)) -ge 1 ] && [ $((end - start)) -le 3 ] &&
	ok "a stage's start and end kept ($((end - start)) s for a 1.2 s stage)" ||
	bad "stage time" "'$(cat "$T/timed.time")'"
echo "$((start - 30))" >"$T/test.start"
echo "$start $((start + 7))" >"$T/timed.time"
scripts/summarise-tests.sh "$T" timed >"$T/summary" 2>&1
grep -qx 'stage timed: 1 passed, 0 failed (7 s, from 30 s)' "$T/summary" &&
	grep -q '^make test: [0-9]* s$' "$T/summary" && ok "the summary says each stage's time and start" ||
	bad "summary times" "$(cat "$T/summary")"
rm -f "$T/test.start"

# A failing stage's FAIL lines are kept and repeated after the totals (CI shows only the tail).
RESULTS=$T scripts/run-stage.py failing -- sh -c 'echo "PASS a"; echo "FAIL b: why b"
	echo "not FAIL c"; echo "FAIL d: why d"; echo "1 2" >"$RESULTS/failing"' >"$T/failing.out"
scripts/summarise-tests.sh "$T" clean failing >"$T/summary" 2>&1
if grep -q '^FAIL b: why b$' "$T/failing.out" && [ "$(tail -n 3 "$T/summary")" = "8 passed, 2 failed
failing: FAIL b: why b
failing: FAIL d: why d" ]; then
	ok "a failing stage's FAIL lines passed through, and repeated after the totals"
else
	bad "FAIL lines" "$(cat "$T/failing.out" "$T/summary")"
fi

# A stage failing without a FAIL line is still named after the totals, not left to be found.
RESULTS=$T scripts/run-stage.py mute -- sh -c 'echo "oops"; echo "4 1" >"$RESULTS/mute"' >/dev/null
scripts/summarise-tests.sh "$T" clean mute >"$T/summary" 2>&1
[ "$(tail -n 1 "$T/summary")" = "mute: failed without a FAIL line; its own output, above, says why" ] &&
	ok "a failing stage without FAIL lines named after the totals" ||
	bad "stage without FAIL lines" "$(cat "$T/summary")"

# Every stage's recipe goes through the wrapper: the recipes as make holds them.
stages=$(make -s --no-print-directory -pRrq : 2>/dev/null | sed -n 's/^TEST_TARGETS := //p')
unwrapped=
for s in unit-test $stages; do
	make -s --no-print-directory -pRrq : 2>/dev/null | awk -v t="$s" '
		$0 ~ "^" t ":" { inside = 1; next }
		inside && /^\t/ { if ($0 ~ /STAGE_RUN|vm_test_recipe/) found = 1; next }
		inside && /^$/ { inside = 0 }
		END { exit !found }' || unwrapped="$unwrapped $s"
done
[ -n "$stages" ] && [ -z "$unwrapped" ] && ok "every stage of make test runs under \$(STAGE_RUN)" ||
	bad "stages without the wrapper" "${unwrapped:-no stages found}"

# make vm-deps builds whatever a guest case runs out of build/tests.
make -s --no-print-directory -n -B vm-deps OUTPUT="$T/out" VM_SIMGPU_DEP= >"$T/deps" 2>&1
need=$(grep -ho 'build/tests/[A-Za-z0-9_.-]*' tests/vm/cases/*.sh tests/bpf/guest-lib.sh \
	tests/workload/vmcheck.sh tests/vm/case-lib.sh 2>/dev/null | sort -u)
missing=
for f in $need; do
	grep -q -- "-o $T/out/${f#build/}\( \|$\)" "$T/deps" || missing="$missing $f"
done
[ -n "$need" ] && [ -z "$missing" ] && ok "make vm-deps builds $(echo $need | wc -w) guest binaries" ||
	bad "make vm-deps" "does not build:${missing:- (found none in the cases)}"

# A unit test built alone into an empty OUTPUT has the skeletons it includes, through any header
# (scripts/unit-skeletons.sh), made before it is compiled.
late= checked=
scripts/unit-skeletons.sh >"$T/unit-skels" 2>"$T/unit-skels.err" ||
	late=" $(cat "$T/unit-skels.err")"
while read -r t skels; do
	make -s --no-print-directory -n -B OUTPUT="$T/u" "$T/u/tests/$t" >"$T/unit-build" 2>&1
	at=$(grep -n -- "tests/unit/$t.c" "$T/unit-build" | head -n 1 | cut -d: -f1)
	for s in $skels; do
		made=$(grep -n -- "gen skeleton .*> $T/u/$s.tmp" "$T/unit-build" | head -n 1 | cut -d: -f1)
		[ -n "$at" ] && [ -n "$made" ] && [ "$made" -lt "$at" ] || late="$late $t:$s"
	done
	checked="$checked $t"
done <"$T/unit-skels"
[ -n "$checked" ] && [ -z "$late" ] &&
	ok "unit tests built alone make their skeletons first (${checked# })" ||
	bad "unit tests compiled before their skeletons" "${late:-no unit test includes one}"

# make bench's verdicts on canned figures: met, not met, a loaded host, too few rounds.
if bench/judge-test.sh >"$T/judge.out" 2>&1; then
	ok "make bench's target verdicts ($(sed -n 's/^judge-test: \([0-9]*\) passed.*/\1/p' "$T/judge.out") checks)"
else
	bad "make bench's target verdicts" "$(grep -v '^PASS' "$T/judge.out" | head -c 1500)"
fi

# mkinitramfs.sh makes an initramfs again when another busybox is given, even one older than
# the initramfs (an arm64 kernel's made with the host's busybox once stayed: dates only), and
# not when nothing changed. A kernel tree of empty modules and a modprobe that lists them.
k=$T/vm/kernels/9.9.9-test
mkdir -p "$k/mods" "$T/bin"
for m in virtio_pci 9pnet_virtio 9p; do : >"$k/mods/$m.ko"; done
touch "$k/.complete"
printf '#!/bin/sh\nfor m in virtio_pci 9pnet_virtio 9p; do echo "insmod %s/$m.ko"; done\n' \
	"$k/mods" >"$T/bin/modprobe"
chmod +x "$T/bin/modprobe"
cp /bin/busybox "$T/bb-other" && printf 'x' >>"$T/bb-other" && touch -d 2001-01-01 "$T/bb-other"
mkinit() { VM_BUILD_DIR=$T/vm PATH=$T/bin:$PATH BUSYBOX=$1 tests/vm/mkinitramfs.sh 9.9.9-test 2>&1; }
# busybox of INITRAMFS: the /bin/busybox it holds
initramfs_busybox() {
	rm -rf "$T/x" && mkdir "$T/x" &&
		(cd "$T/x" && gzip -dc "$T/vm/initramfs/9.9.9-test.cpio.gz" | cpio -id --quiet bin/busybox)
}
first=$(mkinit /bin/busybox)
again=$(mkinit /bin/busybox)
other=$(mkinit "$T/bb-other")
if [ -n "$first" ] && [ -z "$again" ] && [ -n "$other" ] && initramfs_busybox &&
	cmp -s "$T/x/bin/busybox" "$T/bb-other"; then
	ok "mkinitramfs.sh makes the initramfs again for another busybox, only then"
else
	bad "mkinitramfs.sh busybox" "first '$first' again '$again' other '$other'"
fi

if tests/vm/sid-root-test.sh >"$T/sid.out" 2>&1; then
	ok "sid-root.sh locking ($(grep -c '^PASS' "$T/sid.out") checks)"
else
	bad "sid-root.sh locking" "$(grep -v '^PASS' "$T/sid.out" | head -c 1500)"
fi

echo "$passed $failed" >"$RESULTS/harness"
echo "harness: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
