/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A string builder for the text views: appends never overflow (the text is cut at the buffer's
 * end, still NUL-terminated), so a long line is shortened, never a crash.
 */
#ifndef DRMTOP_UTIL_STRBUF_H
#define DRMTOP_UTIL_STRBUF_H

#include <stddef.h>

#define STRBUF_LEN 4096

struct strbuf {
	char s[STRBUF_LEN];
	size_t len;
};

void sb_reset(struct strbuf *sb);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "1.5 MiB"-style sizes into buf; returns buf. */
const char *drmtop_fmt_bytes(char *buf, size_t len, unsigned long long bytes);

#endif /* DRMTOP_UTIL_STRBUF_H */
