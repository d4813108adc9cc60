#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The manual page: groff renders it without a single warning (-ww), man(1) too, it has every
# section a reader looks for, documents every long option `drmtop --help` lists and every CSV
# column `drmtop -o csv` prints. Needs no root. Writes "<passed> <failed>" to $RESULTS/man.
set -u
DRMTOP=${DRMTOP:-build/drmtop}
PAGE=${PAGE:-docs/drmtop.8}
STAGE=man
. "$(dirname "$0")/../stage-lib.sh"
command -v groff >/dev/null || { bad setup "groff missing (scripts/install-deps.sh installs it)"; finish; }
[ -x "$DRMTOP" ] || { bad setup "$DRMTOP not built"; finish; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

LC_ALL=C.UTF-8 groff -ww -man -Tutf8 "$PAGE" >"$T/utf8" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && [ -s "$T/utf8" ] && ok "groff -ww -man -Tutf8: no warning" ||
	bad "groff -ww -man -Tutf8" "rc=$rc $(head -n 5 "$T/err")"
if command -v man >/dev/null; then
	MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$PAGE" >"$T/man" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && ok "man -l: no warning" ||
		bad "man -l" "rc=$rc $(head -n 5 "$T/err")"
fi
# Plain ASCII, no bold or underline: what the checks below read.
groff -man -Tascii -P-cbou "$PAGE" >"$T/txt" 2>/dev/null

missing=
for s in NAME SYNOPSIS DESCRIPTION OPTIONS SUBCOMMANDS FIELDS EXAMPLES OVERHEAD SIGNALS \
	'EXIT STATUS' FILES 'SEE ALSO'; do
	grep -q "^$s\$" "$T/txt" || missing="$missing '$s'"
done
[ -z "$missing" ] && ok "every section" || bad "every section" "missing:$missing"

opts=$("$DRMTOP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
missing=
for o in $opts; do
	grep -q -- "$o" "$T/txt" || missing="$missing $o"
done
[ -n "$opts" ] && [ -z "$missing" ] && ok "documents every long option of --help ($(echo $opts | wc -w))" ||
	bad "long options" "not in the page:$missing"
subs=$("$DRMTOP" --help | sed -n 's/^ *\(Usage:\)\? *drmtop \([a-z][a-z]*\) .*/\2/p' | sort -u)
missing=
for s in $subs; do
	grep -Eq "^ +$s( |\$)" "$T/txt" || missing="$missing $s"
done
[ -n "$subs" ] && [ -z "$missing" ] && ok "documents every subcommand ($(echo $subs))" ||
	bad "subcommands" "not under SUBCOMMANDS:$missing"

# The CSV header comes with the first frame, at once when there is no device at all.
mkdir -p "$T/proc"
cols=$("$DRMTOP" --proc-root "$T/proc" --sys-root "" --source fdinfo -o csv -n 1 2>/dev/null |
	head -n 1 | tr ',' ' ')
missing=
for c in $cols; do
	grep -q "$c" "$T/txt" || missing="$missing $c"
done
[ -n "$cols" ] && [ -z "$missing" ] && ok "documents every CSV column ($(echo $cols | wc -w))" ||
	bad "CSV columns" "not in the page:$missing (header: $cols)"
finish
