/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text safe to put on a terminal. Process names, command lines and everything a driver prints
 * in fdinfo are arbitrary bytes: an escape sequence in a comm could move the cursor, retitle the
 * window or worse when shown raw. Every view that writes text for a person passes its lines
 * through here.
 */
#ifndef DRMTOP_UTIL_PRINTABLE_H
#define DRMTOP_UTIL_PRINTABLE_H

#include <stddef.h>

/*
 * Copy @src into @dst (@size > 0 bytes, always NUL-terminated) with every byte that is a C0
 * control (newline and tab included), DEL, part of a C1 control (U+0080..U+009F) or not part
 * of well-formed UTF-8 written as "\xNN", and a backslash as "\\"; printable UTF-8 is kept.
 * Output that does not fit is cut before the escape or character that would not fit whole.
 * Returns @dst.
 */
char *drmtop_printable(char *dst, size_t size, const char *src);

/*
 * The same escaping as a stream: @emit gets the output piece by piece (a character kept whole or
 * one escape), for text of any length; a nonzero return stops it.
 */
typedef int (*drmtop_piece_fn)(void *ctx, const char *piece, size_t len);
void drmtop_printable_each(const char *src, drmtop_piece_fn emit, void *ctx);

/* Bytes @dst needs so that drmtop_printable() never cuts @len bytes of input. */
#define DRMTOP_PRINTABLE_SIZE(len) (4 * (len) + 1)

#endif /* DRMTOP_UTIL_PRINTABLE_H */
