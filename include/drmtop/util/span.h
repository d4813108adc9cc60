/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tests on a span of text: @len bytes at @s, not necessarily NUL-terminated (a readlink(2)
 * result, one component of a path).
 */
#ifndef DRMTOP_UTIL_SPAN_H
#define DRMTOP_UTIL_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool span_has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

static inline bool span_has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

#endif /* DRMTOP_UTIL_SPAN_H */
