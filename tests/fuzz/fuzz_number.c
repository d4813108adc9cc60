// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fdinfo number parsers (drm_parse_u64, drm_parse_u64_unit, drm_parse_bytes, drm_parse_hz)
 * against a second, deliberately naive implementation of the grammar in fdinfo.h: blanks,
 * digits, optionally blanks and one unit word, blanks. Both must agree on accept/reject, on the
 * error (-EINVAL or -ERANGE) and on the value.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/fdinfo.h"

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The reference: digits are summed in 128 bits (at most 40 digits matter before the value is
 * known to overflow), the unit is compared as a word, the multiplier applied in 128 bits.
 */
static int ref_parse(const char *s, unsigned int base, const char *const *units,
		     const uint64_t *mults, size_t nr_units, uint64_t *out)
{
	unsigned __int128 v = 0;
	bool overflow = false;
	const char *p = s, *u;
	size_t ulen, i;

	while (blank(*p))
		p++;
	if (!(*p >= '0' && *p < (char)('0' + base)))
		return -EINVAL;
	while (*p >= '0' && *p < (char)('0' + base)) {
		v = v * base + (unsigned int)(*p - '0');
		if (v > UINT64_MAX)
			overflow = true, v = (unsigned __int128)UINT64_MAX + 1;
		p++;
	}
	/* The number must end at a blank or the end: "12a", "089" (octal) are not numbers. */
	if (*p && !blank(*p))
		return -EINVAL;
	while (blank(*p))
		p++;
	u = p;
	while (*p && !blank(*p))
		p++;
	ulen = (size_t)(p - u);
	while (blank(*p))
		p++;
	if (*p)
		return -EINVAL;
	/* Text that is not a number at all is -EINVAL; a number too large, -ERANGE. */
	if (overflow)
		return -ERANGE;
	if (!ulen) {
		*out = (uint64_t)v;
		return 0;
	}
	for (i = 0; i < nr_units; i++) {
		if (strlen(units[i]) == ulen && !memcmp(units[i], u, ulen)) {
			v *= mults[i];
			if (v > UINT64_MAX)
				return -ERANGE;
			*out = (uint64_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

static void compare(const char *what, const char *s, int got, uint64_t gv, int want, uint64_t wv)
{
	if (got != want || (!got && gv != wv)) {
		fprintf(stderr, "%s(\"%s\"): got %d/%llu, reference %d/%llu\n", what, s, got,
			(unsigned long long)gv, want, (unsigned long long)wv);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const bytes[] = { "KiB", "MiB" };
	static const uint64_t bytes_m[] = { 1024, 1024 * 1024 };
	static const char *const hz[] = { "Hz", "KHz", "kHz", "MHz" };
	static const uint64_t hz_m[] = { 1, 1000, 1000, 1000 * 1000 };
	static const char *const ns[] = { "ns" };
	static const uint64_t one[] = { 1 };
	uint64_t gv = 0, wv = 0;
	char *s;
	int got, want;

	/* The parsers take C strings: everything up to the first NUL. */
	s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';

	got = drm_parse_u64(s, 10, &gv);
	want = ref_parse(s, 10, NULL, NULL, 0, &wv);
	compare("drm_parse_u64/10", s, got, gv, want, wv);
	got = drm_parse_u64(s, 8, &gv);
	want = ref_parse(s, 8, NULL, NULL, 0, &wv);
	compare("drm_parse_u64/8", s, got, gv, want, wv);
	got = drm_parse_u64_unit(s, "ns", &gv);
	want = ref_parse(s, 10, ns, one, 1, &wv);
	compare("drm_parse_u64_unit", s, got, gv, want, wv);
	got = drm_parse_bytes(s, &gv);
	want = ref_parse(s, 10, bytes, bytes_m, 2, &wv);
	compare("drm_parse_bytes", s, got, gv, want, wv);
	got = drm_parse_hz(s, &gv);
	want = ref_parse(s, 10, hz, hz_m, 4, &wv);
	compare("drm_parse_hz", s, got, gv, want, wv);
	/* Any other base is refused, whatever the text. */
	if (drm_parse_u64(s, 16, &gv) != -EINVAL || drm_parse_u64(s, 0, &gv) != -EINVAL)
		abort();
	free(s);
	return 0;
}
