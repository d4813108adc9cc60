// SPDX-License-Identifier: GPL-2.0-only
/*
 * The client table: the clients the filter keeps, in the chosen order, one row each (or one per
 * group of them, tui_groups.c), with the columns that fit the width (tui_cols_fit). The
 * selection follows a row's key, not its number, so it stays on the same client or group when
 * the order or the filter changes.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/vec.h"
#include "tui.h"

#define MAX_ENGINE_COLS	16
#define ENGINE_COL_W	6
#define ENGINE_COL_MAX_W 10

struct sort_arg {
	enum drmtop_sort sort;
	bool reverse;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct sort_arg *sa = arg;

	return drmtop_model_cmp(*(const struct drmtop_model_client *const *)a,
				*(const struct drmtop_model_client *const *)b, sa->sort,
				sa->reverse);
}

const char *tui_row_key(const struct tui *t, size_t i)
{
	return t->group_by ? tui_group_row(t, i)->key : t->rows[i]->key;
}

static int client_rows_build(struct tui *t)
{
	struct sort_arg sa = { .sort = t->sort, .reverse = t->reverse };
	const struct drmtop_model *m = t->m;
	size_t i;

	if (vec_reserve(t->rows, t->cap_rows, m->nr_clients))
		return -1;
	t->nr_rows = 0;
	for (i = 0; i < m->nr_clients; i++)
		if (tui_filter_match(&m->clients[i], t->filter))
			t->rows[t->nr_rows++] = &m->clients[i];
	/* rows is NULL until the first client: qsort_r must not get it even with no element */
	if (t->nr_rows > 1)
		qsort_r(t->rows, t->nr_rows, sizeof(*t->rows), cmp_rows, &sa);
	return 0;
}

int tui_rows_build(struct tui *t)
{
	size_t i;

	if (t->group_by ? tui_group_rows_build(t) : client_rows_build(t))
		return -1;
	/* Keep the selected row selected; if it went, stay at the same place. */
	for (i = 0; i < t->nr_rows; i++)
		if (!strcmp(tui_row_key(t, i), t->sel_key))
			break;
	if (i < t->nr_rows)
		t->sel = i;
	else if (t->sel >= t->nr_rows)
		t->sel = t->nr_rows ? t->nr_rows - 1 : 0;
	if (t->nr_rows && !t->detail)
		snprintf(t->sel_key, sizeof(t->sel_key), "%s", tui_row_key(t, t->sel));
	return 0;
}

void tui_select_move(struct tui *t, long delta)
{
	long s = (long)t->sel + delta;

	if (!t->nr_rows)
		return;
	if (s < 0)
		s = 0;
	if (s >= (long)t->nr_rows)
		s = (long)t->nr_rows - 1;
	t->sel = (size_t)s;
	snprintf(t->sel_key, sizeof(t->sel_key), "%s", tui_row_key(t, t->sel));
}

const struct drmtop_model_client *tui_selected(const struct tui *t)
{
	size_t i;

	/* a group: its first client (the plot shows that one's device) */
	if (t->group_by)
		return t->nr_rows && t->sel < t->nr_rows ?
			       &t->m->clients[tui_group_row(t, t->sel)->first] : NULL;
	for (i = 0; i < t->m->nr_clients; i++)
		if (!strcmp(t->m->clients[i].key, t->sel_key))
			return &t->m->clients[i];
	return NULL;
}

/* The model's engine columns, as many as the table holds. */
static size_t engine_names(const struct tui *t, const char **names)
{
	size_t n = t->m->nr_columns < MAX_ENGINE_COLS ? t->m->nr_columns : MAX_ENGINE_COLS;

	memcpy(names, t->m->columns, n * sizeof(*names));
	return n;
}

static size_t layout(struct tui_col *cols, const char *const *engines, size_t nr_engines)
{
	static const struct tui_col fixed[] = {
		{ COL_PID, 7, 0, false, false },
		{ COL_COMM, 15, 1, false, false },
		{ COL_MEM, 5, 2, false, false },
		{ COL_USER, 8, 6, false, false },
		{ COL_SRC, 4, 7, false, false },
		{ COL_ID, 5, 8, false, false },
		{ COL_SHR, 5, 9, false, false },
		{ COL_DEV, 10, 10, false, false },
		{ COL_WORK, 25, 25, false, false },
		{ COL_HIST, 12, 30, true, false },
	};
	size_t n = 0, i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		cols[n++] = fixed[i];
	/* Wide enough for the name ("compute", "video-e"): a cut name is a guess for the reader. */
	for (i = 0; i < nr_engines; i++) {
		int w = (int)strlen(engines[i]) + 1;

		w = w < ENGINE_COL_W ? ENGINE_COL_W : w > ENGINE_COL_MAX_W ? ENGINE_COL_MAX_W : w;
		cols[n++] = (struct tui_col){ COL_ENGINE + (int)i, w,
					      i < 3 ? 3 + (int)i : 11 + (int)i, false, false };
	}
	tui_cols_fit(cols, n, COLS);
	return n;
}

/* The display order, whatever the priorities were. */
static const int order[] = { COL_PID, COL_USER, COL_COMM, COL_DEV, COL_ID, COL_ENGINE, COL_MEM,
			     COL_SHR, COL_SRC, COL_WORK, COL_HIST };

/* "!": the sources disagree; "?": the tracer's figures may be short (it missed events). */
static const char *source_mark(const struct drmtop_model_client *c)
{
	bool maybe_short = c->lower_bound || c->inconclusive;

	if (!c->in_fdinfo)
		return c->diverged ? "B!" : maybe_short ? "B?" : "B";
	if (!c->bpf)
		return "F";
	return c->diverged ? "F+B!" : maybe_short ? "F+B?" : "F+B";
}

/*
 * "  50.0", " 104.0!", "     -" (no such engine), "   ..." (no figure yet), "  12.0+" (the
 * tracer's figure of a client whose tracer figures may be short: at least that).
 */
static void engine_cell(char *buf, size_t len, int w, const struct drmtop_model_client *c,
			const char *name)
{
	const struct drmtop_model_engine *e = drmtop_model_engine(c, name);
	double pct;

	if (!e)
		snprintf(buf, len, "%*s ", w - 1, "-");
	else if (!drmtop_model_engine_pct(e, &pct))
		snprintf(buf, len, "%*s ", w - 1, "...");
	else
		snprintf(buf, len, "%*.1f%s", w - 1, pct,
			 e->in_fdinfo && (e->fd.flags & DRMTOP_FD_OVER) ? "!" :
			 e->diverged ? "~" : !e->in_fdinfo && c->lower_bound ? "+" : " ");
}

static void cell(struct tui *t, const struct drmtop_model_client *c, const struct tui_col *col,
		 const char *const *engines, char *buf, size_t len)
{
	char tmp[64], work[64];

	switch (col->id) {
	case COL_PID:
		snprintf(buf, len, "%*d", col->width, (int)c->pid);
		break;
	case COL_USER:
		snprintf(buf, len, "%-*.*s", col->width, col->width, tui_user(t, c));
		break;
	case COL_COMM:
		snprintf(buf, len, "%-*.*s", col->width, col->width,
			 tui_sanitize(tmp, sizeof(tmp), c->comm && c->comm[0] ? c->comm : "?"));
		break;
	case COL_DEV:
		snprintf(buf, len, "%-*.*s", col->width, col->width,
			 tui_sanitize(tmp, sizeof(tmp), tui_dev_label(c)));
		break;
	case COL_ID:
		if (c->has_client_id)
			snprintf(buf, len, "%*llu", col->width, (unsigned long long)c->client_id);
		else
			snprintf(buf, len, "%*s", col->width, "-");
		break;
	case COL_MEM:
		snprintf(buf, len, "%*s", col->width,
			 c->has_mem ? tui_fmt_bytes(tmp, sizeof(tmp), c->mem_total) : "-");
		break;
	case COL_SHR:
		snprintf(buf, len, "%*s", col->width,
			 c->has_mem ? tui_fmt_bytes(tmp, sizeof(tmp), c->mem_shared) : "-");
		break;
	case COL_SRC:
		snprintf(buf, len, "%-*s", col->width, source_mark(c));
		break;
	case COL_WORK:
		snprintf(buf, len, "%-*.*s", col->width, col->width,
			 tui_sanitize(tmp, sizeof(tmp), tui_workload_label(c, work, sizeof(work))));
		break;
	case COL_HIST:
		buf[0] = '\0';	/* drawn as a sparkline */
		break;
	default:
		engine_cell(buf, len, col->width, c, engines[col->id - COL_ENGINE]);
		break;
	}
}

static void title_cell(const struct tui *t, const struct tui_col *col, const char *const *engines,
		       char *buf, size_t len)
{
	static const char *const titles[] = {
		[COL_PID] = "PID", [COL_USER] = "USER", [COL_COMM] = "COMMAND", [COL_DEV] = "DEV",
		[COL_ID] = "ID", [COL_MEM] = "MEM", [COL_SHR] = "SHR", [COL_SRC] = "SRC",
		[COL_WORK] = "WORKLOAD", [COL_HIST] = "HISTORY",
	};
	bool right = col->id == COL_PID || col->id == COL_ID || col->id == COL_MEM ||
		     col->id == COL_SHR || col->id >= COL_ENGINE;
	const char *title = col->id >= COL_ENGINE ? engines[col->id - COL_ENGINE] : titles[col->id];

	/* grouped: ID counts the group's clients, COMMAND names a workload group */
	if (t->group_by && col->id == COL_ID)
		title = "CLI";
	else if (t->group_by == DRMTOP_GROUP_WORKLOAD && col->id == COL_COMM)
		title = "GROUP";

	if (right)
		snprintf(buf, len, "%*.*s", col->id >= COL_ENGINE ? col->width - 1 : col->width,
			 col->id >= COL_ENGINE ? col->width - 1 : col->width, title);
	else
		snprintf(buf, len, "%-*.*s", col->width, col->width, title);
}

/* Draws the shown columns of one line in display order; fills @hist_x with the history's x. */
static void draw_line(struct tui *t, int y, const struct drmtop_model_client *c,
		      const struct drmtop_group *g, const struct tui_col *cols, size_t n,
		      const char *const *engines, int *hist_x, int *hist_w)
{
	char buf[256];
	size_t o, i;
	int x = 0;

	*hist_x = -1;
	for (o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		for (i = 0; i < n; i++) {
			const struct tui_col *col = &cols[i];

			if (!col->shown || (col->id < COL_ENGINE ? col->id != order[o]
								 : order[o] != COL_ENGINE))
				continue;
			if (x)
				x = tui_put(y, x, " ", 1);
			if (col->id == COL_HIST) {
				*hist_x = x;
				*hist_w = col->width;
			}
			if (g)
				tui_group_cell(t, g, col, engines, buf, sizeof(buf));
			else if (c)
				cell(t, c, col, engines, buf, sizeof(buf));
			else
				title_cell(t, col, engines, buf, sizeof(buf));
			if (col->id == COL_HIST && c)
				snprintf(buf, sizeof(buf), "%*s", col->width, "");
			x = tui_put(y, x, buf, col->width);
		}
	}
	if (x < COLS)
		mvhline(y, x, ' ', COLS - x);
}

void tui_draw_table(struct tui *t, int y, int bottom)
{
	struct tui_col cols[COL_ENGINE + MAX_ENGINE_COLS];
	const char *engines[MAX_ENGINE_COLS];
	size_t nr_engines = engine_names(t, engines), n, i;
	int hist_x, hist_w = 0;

	if (y >= bottom)
		return;
	n = layout(cols, engines, nr_engines);
	attrset(tui_attr(t, TUI_ROLE_HEADER));
	draw_line(t, y++, NULL, NULL, cols, n, engines, &hist_x, &hist_w);
	attrset(A_NORMAL);
	t->page = bottom - y > 0 ? bottom - y : 1;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)t->page)
		t->top = t->sel - (size_t)t->page + 1;
	if (!t->nr_rows) {
		attrset(tui_attr(t, TUI_ROLE_NOTE));
		tui_put(y, 1, t->filter[0] ? "no client matches the filter (Esc clears it)"
					   : "no client", COLS);
		attrset(A_NORMAL);
		return;
	}
	for (i = t->top; i < t->nr_rows && y < bottom; i++, y++) {
		const struct drmtop_group *g = t->group_by ? tui_group_row(t, i) : NULL;
		const struct drmtop_model_client *c = g ? NULL : t->rows[i];
		enum tui_role role = TUI_ROLE_NORMAL;

		if (i == t->sel)
			role = TUI_ROLE_SELECT;
		else if (g ? g->diverged : c->over || c->diverged)
			role = TUI_ROLE_FLAG;
		else if (c && c->is_new)
			role = TUI_ROLE_DIM;
		attrset(tui_attr(t, role));
		draw_line(t, y, c, g, cols, n, engines, &hist_x, &hist_w);
		attrset(A_NORMAL);
		if (c && hist_x >= 0)
			tui_sparkline(t, y, hist_x, hist_w, tui_history_get(&t->hist, "c:", c->key));
	}
}
