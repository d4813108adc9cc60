/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drmtop's views of one refresh: each reads only the model (model.h). A frame format is one
 * function of this shape, listed in the command line's format table (src/cli/formats.c).
 */
#ifndef DRMTOP_VIEWS_H
#define DRMTOP_VIEWS_H

#include <stdbool.h>
#include <stdio.h>

#include "drmtop/model.h"

/* Writes one refresh. Returns 0, or -1 when the output could not be written (errno set). */
typedef int (*drmtop_frame_fn)(FILE *out, const struct drmtop_model *m);

/* JSON lines: one object per refresh. */
int drmtop_json_frame(FILE *out, const struct drmtop_model *m);
/* Plain text tables, then a blank line. */
int drmtop_text_frame(FILE *out, const struct drmtop_model *m);
/* CSV: a header with the first frame (iteration 1), then a row per client and engine. */
int drmtop_csv_frame(FILE *out, const struct drmtop_model *m);
/*
 * One RFC 4180 text field, NULL empty: control characters and invalid UTF-8 escaped as "\xNN"
 * (a backslash as "\\"), a field a spreadsheet would run as a formula (= + - @ first) given a
 * leading single quote; quoted when it holds a comma or a quote, or is such a formula.
 */
void drmtop_csv_field(FILE *out, const char *s);
bool drmtop_csv_needs_quotes(const char *s);

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

/* Renders a refresh as text lines (no trailing newline). */
void drmtop_render_lines(const struct drmtop_model *m, enum drmtop_sort sort, bool reverse,
			 drmtop_line_fn emit, void *ctx);

#endif /* DRMTOP_VIEWS_H */
