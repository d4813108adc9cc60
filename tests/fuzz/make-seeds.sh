#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Seed corpora for the fuzz targets, made at build time: the fdinfo samples of FIXTURE_DIR (one
# seed per sample, commentary lines dropped, as tests/unit/fixture.h reads them) and hostile
# inputs (u64 limits, NUL bytes, control characters, invalid UTF-8). Inputs too large to mutate
# usefully (a 1 MiB line) go to OUT/replay/<target>, which is only run once per input.
# Usage: make-seeds.sh FIXTURE_DIR OUT
set -eu
fixtures=$1
out=$2
rm -rf "$out/seeds" "$out/replay"
for t in fdinfo number json_writer views; do
	mkdir -p "$out/seeds/$t" "$out/replay/$t"
done
s=$out/seeds

# The samples: a block starts at each "# ---" line; every '#' line is commentary.
nr=0
for f in "$fixtures"/*.txt; do
	base=$(basename "$f" .txt)
	awk -v dir="$s/fdinfo" -v base="$base" '
		/^# ---/ { n++; next }
		/^#/ { next }
		{ print > (dir "/" base "-" n) }' "$f"
	nr=$((nr + 1))
done
[ "$nr" -gt 0 ] || { echo "make-seeds: no samples in $fixtures" >&2; exit 1; }

# Hostile fdinfo: limits, overflow after the unit, NULs, CRs, blanks, duplicates, junk keys.
h=$s/fdinfo
printf 'drm-driver:\tx\ndrm-client-id:\t18446744073709551615\ndrm-engine-gfx:\t18446744073709551615 ns\ndrm-total-vram:\t18446744073709551615\ndrm-total-gtt:\t18446744073709551615\ndrm-resident-gtt:\t1 MiB\n' >"$h/u64-max"
printf 'drm-engine-gfx:\t18446744073709551616 ns\ndrm-total-vram:\t18014398509481984 KiB\ndrm-maxfreq-gfx:\t18446744073709552 KHz\ndrm-cycles-gfx:\t99999999999999999999999\n' >"$h/overflow"
printf 'drm-driver:\tsim\0gpu\ndrm-engine-gfx:\t1\0 ns\n\0\0\0\ndrm-client-id:\t3\n' >"$h/nul-bytes"
printf 'drm-driver:\tsim\r\ndrm-engine-\033[2Jgfx:\t5 ns\r\ndrm-client-name:\t\033]0;pwned\007\ndrm-pdev:\t\x9b31m\xff\xfe\npasid:\t1\npasid:\t2\n' >"$h/control-chars"
printf 'drm-engine-capacity-gfx:\t0\ndrm-engine-:\t1\n:\t1\nno colon\n   \t\ndrm-memory-vram:\t1 kB\ndrm-memory-vram:\t2 KiB\ndrm-resident-vram:\t3\n' >"$h/malformed"
printf 'drm-driver:\tx\ndrm-engine-gfx:\t12' >"$h/truncated"

# Numbers as drivers print them, and their edges.
n=$s/number
i=0
for v in '0' '107322799 ns' '2068 KiB' '4 MiB' '1200 MHz' '800 KHz' '5 kHz' '1 Hz' '02100002' \
	'18446744073709551615' '18446744073709551616' '18014398509481983 KiB' '17592186044415 MiB' \
	'18446744073709551 KHz' ' 	12 	ns 	' '12ns' '-1' '+1' '1 2' '0x10' '089' '1 GiB'; do
	printf '%s' "$v" >"$n/$i"
	i=$((i + 1))
done

# JSON writer programs (see fuzz_json_writer.c: op byte % 16, strings are <len><bytes>):
# {"k":"v"}, ["<control chars>","<invalid UTF-8>"], {"a":{"b":[1,null]}}.
j=$s/json_writer
printf '\000\004\001k\005\001v\001' >"$j/object"
printf '\002\005\006a\033[2Jb\006\006\xff\xfe\xc3(\x00\xe2\003' >"$j/strings"
printf '\000\004\001a\000\004\001b\002\007\000\000\000\000\000\000\000\001\013\003\001\001' >"$j/nested"
printf '\000\014\005\033\x9b\xc2\x85\001\001' >"$j/kv-control"

# Views: "<flags><interval>note\f<comm>\n<cmdline>\n<fdinfo>" per client (fuzz_views.c).
v=$s/views
for f in "$s"/fdinfo/*; do
	name=$(basename "$f")
	{ printf '\001\144note\f'; printf 'glxgears\nglxgears -fullscreen\n'; cat "$f"; } \
		>"$v/$name"
done
{
	printf '\003\144bpf \033[31mreason\f'
	printf 'evil\033[2J\x9b\xff\ncmd\tline\001\n'
	printf 'drm-driver:\tsim\033gpu\ndrm-client-id:\t5\ndrm-client-name:\tname\a\x80\n'
	printf 'drm-engine-g\033fx:\t100000000 ns\ndrm-total-vr\x9bam:\t18446744073709551615\n'
	printf 'drm-total-gtt:\t18446744073709551615\n\f'
	printf '\xc2\x9b2J\xf4\x90\x80\x80\n\n'
	printf 'drm-driver:\tsim\ndrm-client-id:\t6\ndrm-pdev:\t0000:\033:00.0\n'
	printf 'drm-engine-gfx:\t18446744073709551615 ns\ndrm-cycles-gfx:\t10\ndrm-maxfreq-gfx:\t1 MHz\n'
} >"$v/hostile"

# Replay only: a 1 MiB line (as key, as value) and one with a NUL half way.
r=$out/replay
big=$(head -c 1048576 /dev/zero | tr '\0' 'a')
printf 'drm-driver:\tx\ndrm-engine-%s:\t1 ns\n' "$big" >"$r/fdinfo/mib-key"
printf 'drm-driver:\t%s\npasid:\t%s\n' "$big" "$big" >"$r/fdinfo/mib-value"
printf '\001\144n\f%s\n%s\ndrm-client-id:\t1\ndrm-engine-%s:\t1 ns\ndrm-client-name:\t%s\n' \
	"$big" "$big" "$big" "$big" >"$r/views/mib-lines"
head -c 1048576 /dev/zero | tr '\0' '1' >"$r/number/mib-digits"
echo "make-seeds: $(find "$s" -type f | wc -l) seeds, $(find "$r" -type f | wc -l) replay inputs"
