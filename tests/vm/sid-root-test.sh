#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# sid-root-test.sh: tests/vm/sid-root.sh's locking, without the network. A fake debootstrap
# (SID_DEBOOTSTRAP) makes a small chroot of static busybox with stand-ins for apt-get,
# apt-cache and dpkg-query, taking FAKE_SECONDS (default 2) and logging every call; so `prepare`
# and `run` go their whole way, in a scratch directory. Prints PASS/FAIL lines, exits 0 only if
# all passed. Root (chroot, unshare). Checks:
#  - two prepares at once, one naming the chroot with a trailing slash and one through a
#    symlink to its parent, make it once (one debootstrap), both print the release, and the
#    maker's directory is never deleted under it;
#  - a chroot without its marker (another run making it in place) is left alone: prepare fails;
#  - what a maker that died left (SID_ROOT.tmp.<pid>) is removed by the next prepare;
#  - `tools` installs its packages in the chroot;
#  - `run` waits while prepare holds the lock, and prepare waits while a `run` is going.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sid=$here/sid-root.sh
fails=0
pass() { echo "PASS sid-root: $1"; }
fail() { echo "FAIL sid-root: $1: $2"; fails=$((fails + 1)); }
[ "$(id -u)" -eq 0 ] || { fail setup "needs root (chroot, unshare)"; exit 1; }
busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || { fail setup "no static busybox at $busybox"; exit 1; }

T=$(mktemp -d /tmp/sid-root-test.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/real" && ln -s real "$T/link"
# The fake debootstrap: --variant=minbase sid TARGET MIRROR. It notes the target's absence if
# anyone deletes it while it works (what the old sid-root.sh did to a concurrent maker).
cat >"$T/bin/fake-debootstrap" <<'EOF'
#!/bin/sh
target=$3
echo "debootstrap $target" >>"$FAKE_LOG"
mkdir -p "$target/bin" "$target/usr/bin" "$target/proc" "$target/etc/apt/apt.conf.d" \
	"$target/var/lib/apt/lists" "$target/usr/src/linux-headers-7.2.13+deb14-amd64"
cp "$BUSYBOX" "$target/bin/busybox"
for t in sh env cat sleep true; do ln -s /bin/busybox "$target/usr/bin/$t"; done
ln -s /bin/busybox "$target/bin/sh"
printf '#!/bin/sh\necho "apt-get $*" >>/fake.log\n' >"$target/usr/bin/apt-get"
printf '#!/bin/sh\necho "linux-headers-7.2.13+deb14-amd64 - headers"\n' >"$target/usr/bin/apt-cache"
printf '#!/bin/sh\nshift 3; for p in "$@"; do case $p in tool-*) echo absent ;; *) echo installed ;; esac; done\n' \
	>"$target/usr/bin/dpkg-query"
chmod +x "$target/usr/bin/apt-get" "$target/usr/bin/apt-cache" "$target/usr/bin/dpkg-query"
sleep "${FAKE_SECONDS:-2}"
[ -d "$target/usr/bin" ] || { echo "LOST $target" >>"$FAKE_LOG"; exit 1; }
EOF
chmod +x "$T/bin/fake-debootstrap"
export FAKE_LOG="$T/debootstrap.log" BUSYBOX="$busybox" SID_DEBOOTSTRAP="$T/bin/fake-debootstrap"
: >"$FAKE_LOG"

# Two prepares at once, the same chroot spelt two ways.
SID_ROOT=$T/real/sid/ "$sid" prepare 7.2 >"$T/a.out" 2>"$T/a.err" &
a=$!
sleep 0.5
SID_ROOT=$T/link/sid "$sid" prepare 7.2 >"$T/b.out" 2>"$T/b.err" &
b=$!
wait $a
ra=$?
wait $b
rb=$?
n=$(grep -c '^debootstrap ' "$FAKE_LOG")
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$(cat "$T/a.out")" = 7.2.13+deb14-amd64 ] &&
	[ "$(cat "$T/b.out")" = 7.2.13+deb14-amd64 ] && [ "$n" -eq 1 ] &&
	! grep -q '^LOST' "$FAKE_LOG" && [ -f "$T/real/sid/.drmtop-complete" ] &&
	[ -z "$(ls -d "$T"/real/sid.tmp.* "$T"/real/sid/.tmp.* 2>/dev/null)" ]; then
	pass "two prepares at once (trailing slash, symlinked parent): made once, both served"
else
	fail "two prepares at once" "rc $ra $rb, $n debootstraps: $(cat "$FAKE_LOG" "$T/a.err" \
		"$T/b.err" | tr '\n' ' ' | head -c 800)"
fi

# A chroot dir without its marker: somebody else's, maybe being made in place.
mkdir -p "$T/other/sid/usr" && echo mine >"$T/other/sid/usr/file"
SID_ROOT=$T/other/sid "$sid" prepare 7.2 >/dev/null 2>"$T/c.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(cat "$T/other/sid/usr/file" 2>/dev/null)" = mine ] &&
	grep -q 'not a complete chroot' "$T/c.err"; then
	pass "an incomplete chroot is reported, never removed"
else
	fail "incomplete chroot" "rc $rc, file: $(cat "$T/other/sid/usr/file" 2>&1) $(cat "$T/c.err")"
fi

# A maker that died (its temporary directory, nobody holding the lock) is cleaned up.
mkdir -p "$T/dead/sid.tmp.999999/usr" && : >"$FAKE_LOG"
SID_ROOT=$T/dead/sid FAKE_SECONDS=0 "$sid" prepare 7.2 >/dev/null 2>"$T/d.err"
rc=$?
if [ $rc -eq 0 ] && [ ! -e "$T/dead/sid.tmp.999999" ] && [ -f "$T/dead/sid/.drmtop-complete" ]; then
	pass "a dead maker's temporary directory is removed, the chroot made"
else
	fail "dead maker" "rc $rc $(ls -d "$T"/dead/* | tr '\n' ' ') $(cat "$T/d.err")"
fi

# tools installs what it is given into the same chroot, and prints nothing.
SID_ROOT=$T/real/sid "$sid" tools tool-a tool-b >"$T/t.out" 2>"$T/t.err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/t.out" ] &&
	grep -q '^apt-get install -y -q tool-a tool-b$' "$T/real/sid/fake.log"; then
	pass "tools installs its packages in the chroot"
else
	fail "tools" "rc $rc, out '$(cat "$T/t.out")', $(cat "$T/real/sid/fake.log" "$T/t.err" 2>&1 |
		tr '\n' ' ' | head -c 600)"
fi

# run waits for prepare's lock; prepare waits for a run.
elapsed() { # COMMAND...: seconds it took (whole seconds)
	s=$(date +%s)
	"$@" >/dev/null 2>&1
	echo $(($(date +%s) - s))
}
flock -x "$T/real/sid.lock" sleep 3 &
l=$!
sleep 0.3
w=$(SID_ROOT=$T/real/sid elapsed "$sid" run -- /usr/bin/true)
wait $l
[ "$w" -ge 2 ] && pass "run waits while prepare holds the lock (${w} s)" ||
	fail "run waits for prepare" "returned after $w s"
SID_ROOT=$T/real/sid "$sid" run -- /usr/bin/sleep 4 &
r=$!
sleep 0.5
w=$(SID_ROOT=$T/real/sid elapsed "$sid" prepare 7.2)
wait $r
[ "$w" -ge 2 ] && pass "prepare waits while a run is going (${w} s)" ||
	fail "prepare waits for run" "returned after $w s"

[ "$fails" -eq 0 ]
