// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unsigned numbers with optional units as printed in DRM fdinfo. strtoull is avoided on purpose:
 * it accepts signs and leading blanks mid-value and saturates instead of telling overflow apart
 * from a real UINT64_MAX reading.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drmtop/fdinfo.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Parse "<blanks><digits>[<blanks><unit>]<blanks>". On success *@unit points at the unit (or at
 * the terminating NUL) and *@unit_len is its length.
 */
static int split_number(const char *s, unsigned int base, uint64_t *out, const char **unit,
			size_t *unit_len)
{
	bool overflow = false;
	uint64_t v = 0;
	const char *p = s;
	const char *u;

	while (is_blank(*p))
		p++;
	if (*p < '0' || *p >= (char)('0' + base))
		return -EINVAL;
	/* Overflow is told only once the text is known to be a number: junk is -EINVAL. */
	for (; *p >= '0' && *p < (char)('0' + base); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	/* a digit of a larger base right after the number: "12a", "089" in octal */
	if (*p && !is_blank(*p))
		return -EINVAL;
	while (is_blank(*p))
		p++;
	u = p;
	while (*p && !is_blank(*p))
		p++;
	*unit = u;
	*unit_len = (size_t)(p - u);
	while (is_blank(*p))
		p++;
	if (*p)
		return -EINVAL;	/* a second word after the unit */
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

static int unit_is(const char *unit, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(unit, want, len);
}

static int scale(uint64_t v, uint64_t mult, uint64_t *out)
{
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int drm_parse_u64(const char *s, unsigned int base, uint64_t *out)
{
	const char *unit;
	size_t len;
	uint64_t v;
	int err;

	if (base != 8 && base != 10)
		return -EINVAL;
	err = split_number(s, base, &v, &unit, &len);
	if (err)
		return err;
	if (len)
		return -EINVAL;
	*out = v;
	return 0;
}

int drm_parse_u64_unit(const char *s, const char *want, uint64_t *out)
{
	const char *unit;
	size_t len;
	uint64_t v;
	int err;

	err = split_number(s, 10, &v, &unit, &len);
	if (err)
		return err;
	if (len && !unit_is(unit, len, want))
		return -EINVAL;
	*out = v;
	return 0;
}

int drm_parse_bytes(const char *s, uint64_t *out)
{
	const char *unit;
	size_t len;
	uint64_t v;
	int err;

	err = split_number(s, 10, &v, &unit, &len);
	if (err)
		return err;
	if (!len)
		return scale(v, 1, out);
	if (unit_is(unit, len, "KiB"))
		return scale(v, 1024, out);
	if (unit_is(unit, len, "MiB"))
		return scale(v, 1024 * 1024, out);
	return -EINVAL;
}

int drm_parse_hz(const char *s, uint64_t *out)
{
	const char *unit;
	size_t len;
	uint64_t v;
	int err;

	err = split_number(s, 10, &v, &unit, &len);
	if (err)
		return err;
	if (!len || unit_is(unit, len, "Hz"))
		return scale(v, 1, out);
	/* the spec spells it KHz; accept the SI spelling too */
	if (unit_is(unit, len, "KHz") || unit_is(unit, len, "kHz"))
		return scale(v, 1000, out);
	if (unit_is(unit, len, "MHz"))
		return scale(v, 1000 * 1000, out);
	return -EINVAL;
}
