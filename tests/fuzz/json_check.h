/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A strict JSON validator for the fuzz targets, written apart from the writer so that it shares
 * none of its mistakes. Stricter than RFC 8259 where drmtop promises more: raw bytes must be
 * well-formed UTF-8 (Unicode table 3-7), \u escapes may not leave a lone surrogate, and names
 * within an object may be required unique (the RFC only says SHOULD; consumers disagree on
 * which of two duplicates wins).
 */
#ifndef DRMTOP_FUZZ_JSON_CHECK_H
#define DRMTOP_FUZZ_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * 0 when @buf[0..@len) is exactly one JSON value, with white space around it allowed, and with
 * @unique_names no object holding a name twice; otherwise -1 and *@why (if non-NULL) says what
 * is wrong and *@at (if non-NULL) where.
 */
int json_check(const char *buf, size_t len, bool unique_names, const char **why, size_t *at);

/*
 * Decode the JSON string literal at @buf[0..@len) (quotes included) into @out, which must hold
 * @len bytes; *@out_len is the decoded length. -1 when it is not one valid string literal.
 */
int json_decode_string(const char *buf, size_t len, char *out, size_t *out_len);

/* Length of the well-formed UTF-8 sequence at @s (at most @n bytes), or 0. */
size_t utf8_wellformed(const unsigned char *s, size_t n);

#endif /* DRMTOP_FUZZ_JSON_CHECK_H */
