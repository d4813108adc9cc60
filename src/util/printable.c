// SPDX-License-Identifier: GPL-2.0-only
/* Terminal-safe copies of untrusted text; see include/drmtop/util/printable.h. */
#include <stdio.h>
#include <string.h>

#include "drmtop/util/printable.h"

/* Length of the well-formed UTF-8 sequence at @s (Unicode table 3-7), or 0. @s is NUL-ended. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	/* A NUL is never a continuation byte, so this stops at the end of the string. */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

char *drmtop_printable(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0, len;

	while (*s) {
		len = utf8_len(s);
		/* C0, DEL and C1 controls are escaped even when well-formed. */
		if (len == 1 && (*s < 0x20 || *s == 0x7f))
			len = 0;
		if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
			len = 0;
		if (len == 1 && *s == '\\') {
			if (o + 2 >= size)
				break;
			dst[o++] = '\\';
			dst[o++] = '\\';
		} else if (len) {
			if (o + len >= size)
				break;
			memcpy(dst + o, s, len);
			o += len;
		} else {
			if (o + 4 >= size)
				break;
			snprintf(dst + o, 5, "\\x%02x", *s);
			o += 4;
			len = 1;
		}
		s += len;
	}
	dst[o] = '\0';
	return dst;
}
