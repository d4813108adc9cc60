// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "drmtop/util/strbuf.h"

void sb_reset(struct strbuf *sb)
{
	sb->s[0] = '\0';
	sb->len = 0;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	size_t room = sizeof(sb->s) - sb->len;
	va_list ap;
	int n;

	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->s + sb->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->len += (size_t)n < room ? (size_t)n : room - 1;
}

const char *drmtop_fmt_bytes(char *buf, size_t len, unsigned long long bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}
