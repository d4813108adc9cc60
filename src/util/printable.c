// SPDX-License-Identifier: GPL-2.0-only
/* Terminal-safe copies of untrusted text; see include/drmtop/util/printable.h. */
#include <stdio.h>
#include <string.h>

#include "drmtop/util/printable.h"
#include "drmtop/util/utf8.h"

char *drmtop_printable(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	const unsigned char *end = s + strlen(src);
	size_t o = 0, len;

	while (*s) {
		len = utf8_seq_len(s, (size_t)(end - s));
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
