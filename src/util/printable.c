// SPDX-License-Identifier: GPL-2.0-only
/* Terminal-safe copies of untrusted text; see include/drmtop/util/printable.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "drmtop/util/printable.h"
#include "drmtop/util/utf8.h"

void drmtop_printable_each(const char *src, drmtop_piece_fn emit, void *ctx)
{
	const unsigned char *s = (const unsigned char *)src;
	const unsigned char *end = s + strlen(src);
	char esc[5];
	size_t len;

	while (*s) {
		len = utf8_seq_len(s, (size_t)(end - s));
		/* C0, DEL and C1 controls are escaped even when well-formed. */
		if (len == 1 && (*s < 0x20 || *s == 0x7f))
			len = 0;
		if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
			len = 0;
		if (len == 1 && *s == '\\') {
			if (emit(ctx, "\\\\", 2))
				return;
		} else if (len) {
			if (emit(ctx, (const char *)s, len))
				return;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", *s);
			if (emit(ctx, esc, 4))
				return;
			len = 1;
		}
		s += len;
	}
}

struct into_buf {
	char *dst;
	size_t size, o;
};

/* Appends a piece whole or stops: a cut escape would be a lie about the byte. */
static int append(void *ctx, const char *piece, size_t len)
{
	struct into_buf *b = ctx;

	if (b->o + len >= b->size)
		return 1;
	memcpy(b->dst + b->o, piece, len);
	b->o += len;
	return 0;
}

char *drmtop_printable(char *dst, size_t size, const char *src)
{
	struct into_buf b = { .dst = dst, .size = size };

	drmtop_printable_each(src, append, &b);
	dst[b.o] = '\0';
	return dst;
}
