/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live view's state and the parts that draw it. tui.c runs the loop and the keys; each
 * tui_*.c draws one thing (header, table, plot, detail, help) from the model and this state.
 */
#ifndef DRMTOP_VIEWS_TUI_H
#define DRMTOP_VIEWS_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "drmtop/groups.h"
#include "drmtop/model.h"
#include "tui_format.h"

enum tui_pair {
	TUI_PAIR_TITLE = 1,
	TUI_PAIR_DEVICE,
	TUI_PAIR_HEADER,
	TUI_PAIR_LOW,
	TUI_PAIR_MID,
	TUI_PAIR_HIGH,
	TUI_PAIR_FLAG,
	TUI_PAIR_NOTE,
	TUI_PAIR_SELECT,
};

/* What a piece of the screen is; tui_attr() maps it to colour or, without colour, to bold. */
enum tui_role {
	TUI_ROLE_NORMAL,
	TUI_ROLE_TITLE,
	TUI_ROLE_DEVICE,
	TUI_ROLE_HEADER,
	TUI_ROLE_LOW,
	TUI_ROLE_MID,
	TUI_ROLE_HIGH,
	TUI_ROLE_FLAG,
	TUI_ROLE_NOTE,
	TUI_ROLE_SELECT,
	TUI_ROLE_DIM,
};

/* The table's columns (tui_table.c); grouped rows fill the same ones (tui_groups.c). */
enum tui_col_id {
	COL_PID, COL_USER, COL_COMM, COL_DEV, COL_ID, COL_MEM, COL_SHR, COL_SRC, COL_WORK, COL_HIST,
	COL_ENGINE,	/* + engine index */
};

struct tui_user {
	uid_t uid;
	char name[32];
};

struct tui {
	const struct drmtop_model *m;
	struct tui_history hist;
	double interval_s;
	bool color, utf8;

	enum drmtop_sort sort;
	bool reverse;
	bool plot;			/* the device utilisation plot is shown */
	bool help;			/* the help overlay is up */
	bool detail;			/* the detail view of sel_key */
	bool editing;			/* typing the filter */
	char filter[64];

	/* The table: visible clients in order, the selected one by key across refreshes. */
	const struct drmtop_model_client **rows;
	size_t nr_rows, cap_rows;
	/* Grouped (G): a row per process or workload, the sums of its clients; rows unused. */
	enum drmtop_group_by group_by;
	struct drmtop_groups groups;
	size_t *group_rows;		/* indices into groups.v, in order; nr_rows of them */
	size_t cap_group_rows;
	char sel_key[256];		/* the selected client's key, or group's when grouped */
	size_t sel, top;
	int page;			/* table rows on screen at the last draw */
	int detail_top;			/* first line of the detail view shown */
	int detail_lines;		/* lines it had at the last draw */

	struct tui_user *users;
	size_t nr_users, cap_users;
};

/* tui_draw.c: primitives */
int tui_attr(const struct tui *t, enum tui_role role);
/* Text at (y, x) clipped to the screen; returns the column after it. */
int tui_put(int y, int x, const char *s, int max_w);
/* A busy bar "[|||||     50.0%]" of @w cells, coloured by level. */
void tui_bar(const struct tui *t, int y, int x, int w, bool have, double pct, bool over);
/* The newest @w samples of @s, newest rightmost, one glyph each. */
void tui_sparkline(const struct tui *t, int y, int x, int w, const struct tui_series *s);
/* One eighth-block glyph (0..8), or its ASCII stand-in. */
const char *tui_block(const struct tui *t, unsigned int eighths);
/* "root", or the uid in digits when the passwd database has no name, "-" unknown. */
const char *tui_user(struct tui *t, const struct drmtop_model_client *c);
/* "renderD128" from "dri/renderD128"; the driver for a client without a node. */
const char *tui_dev_label(const struct drmtop_model_client *c);

/* tui_header.c: title, source, one block per device. Returns the next free row. */
int tui_draw_header(struct tui *t, int y);
/* tui_plot.c: the busiest engine of the selected client's device over time. */
int tui_draw_plot(struct tui *t, int y, int height);
/* tui_table.c */
int tui_rows_build(struct tui *t);
void tui_select_move(struct tui *t, long delta);
const struct drmtop_model_client *tui_selected(const struct tui *t);
void tui_draw_table(struct tui *t, int y, int bottom);
/* tui_groups.c: the rows when grouped, and their cells. */
int tui_group_rows_build(struct tui *t);
const struct drmtop_group *tui_group_row(const struct tui *t, size_t i);
void tui_group_cell(struct tui *t, const struct drmtop_group *g, const struct tui_col *col,
		    const char *const *engines, char *buf, size_t len);
/* The key of row @i (a client's or a group's). */
const char *tui_row_key(const struct tui *t, size_t i);
/* tui_detail.c: one client, everything the model has of it. */
void tui_draw_detail(struct tui *t);
/* tui_help.c */
void tui_draw_help(struct tui *t);

#endif /* DRMTOP_VIEWS_TUI_H */
