/* SPDX-License-Identifier: GPL-2.0-only */
/* drmtop's outputs of one frame: JSON lines, text tables, and the lines both text views share. */
#ifndef DRMTOP_OUTPUT_H
#define DRMTOP_OUTPUT_H

#include <stdio.h>

#include "drmtop/frame.h"

/* One JSON object on one line. Returns 0, or -1 when the output could not be written. */
int drmtop_json_frame(FILE *out, const struct drmtop_frame *f);

enum drmtop_sort {
	DRMTOP_SORT_BUSY,	/* highest summed engine busy first */
	DRMTOP_SORT_MEMORY,	/* largest total memory first */
	DRMTOP_SORT_PID,
	DRMTOP_SORT_COUNT,
};

const char *drmtop_sort_name(enum drmtop_sort sort);

/* What a line of the text views is, so the TUI can colour it and batch mode can ignore that. */
enum drmtop_line_kind {
	DRMTOP_LINE_TITLE,
	DRMTOP_LINE_NOTE,	/* source, warnings */
	DRMTOP_LINE_DEVICE,
	DRMTOP_LINE_HEADER,
	DRMTOP_LINE_CLIENT,
	DRMTOP_LINE_FLAG,	/* a client line carrying a figure over 100 % or similar */
	DRMTOP_LINE_BLANK,
};

typedef void (*drmtop_line_fn)(void *ctx, enum drmtop_line_kind kind, const char *text);

/*
 * Renders a frame as text lines (no trailing newline; the TUI clips them to its width).
 * Returns 0.
 */
int drmtop_render_lines(const struct drmtop_frame *f, enum drmtop_sort sort, drmtop_line_fn emit,
			void *ctx);

/* Batch mode: the lines of one frame to @out, then a blank line. */
int drmtop_text_frame(FILE *out, const struct drmtop_frame *f);

/* "1.5 MiB"-style sizes into buf; returns buf. */
const char *drmtop_fmt_bytes(char *buf, size_t len, unsigned long long bytes);

#endif /* DRMTOP_OUTPUT_H */
