/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Valid UTF-8 out of any bytes: process names are whatever a process set (prctl, exec of a
 * file named in Latin-1, a truncation in the middle of a character), and text formats such as
 * the Prometheus exposition must stay valid UTF-8.
 */
#ifndef DRMTOP_UTIL_UTF8_H
#define DRMTOP_UTIL_UTF8_H

#include <stddef.h>

/*
 * The length of the valid UTF-8 sequence at @s (at most @len bytes: 1-4), or 0 when the bytes
 * there are not one (bad lead or continuation byte, overlong form, surrogate, beyond U+10FFFF,
 * cut short).
 */
size_t utf8_seq_len(const unsigned char *s, size_t len);

/* A malloc'd copy of @s with every invalid byte replaced by U+FFFD; NULL on out of memory. */
char *utf8_sanitize(const char *s);

#endif /* DRMTOP_UTIL_UTF8_H */
