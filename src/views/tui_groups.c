// SPDX-License-Identifier: GPL-2.0-only
/*
 * Grouped rows (G): the clients the filter keeps, summed per holding process or per workload by
 * the model (groups.h), one row each in the table's columns. The selection follows a group's key
 * across refreshes as it follows a client's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/vec.h"
#include "tui.h"

struct group_sort {
	const struct tui *t;
};

static int cmp_groups(const void *a, const void *b, void *arg)
{
	const struct tui *t = ((const struct group_sort *)arg)->t;

	return drmtop_group_cmp(&t->groups.v[*(const size_t *)a], &t->groups.v[*(const size_t *)b],
				t->sort, t->reverse);
}

static bool keep(const struct drmtop_model_client *c, const void *filter)
{
	return tui_filter_match(c, filter);
}

int tui_group_rows_build(struct tui *t)
{
	struct group_sort gs = { t };
	size_t i;

	if (drmtop_groups_build(&t->groups, t->m, t->group_by, keep, t->filter) ||
	    vec_reserve(t->group_rows, t->cap_group_rows, t->groups.n))
		return -1;
	for (i = 0; i < t->groups.n; i++)
		t->group_rows[i] = i;
	t->nr_rows = t->groups.n;
	if (t->nr_rows > 1)
		qsort_r(t->group_rows, t->nr_rows, sizeof(*t->group_rows), cmp_groups, &gs);
	return 0;
}

const struct drmtop_group *tui_group_row(const struct tui *t, size_t i)
{
	return &t->groups.v[t->group_rows[i]];
}

/* As a client's engine cell; '+': some member's tracer figure may be short. */
static void engine_cell(char *buf, size_t len, int w, const struct tui *t,
			const struct drmtop_group *g, const char *name)
{
	const struct drmtop_group_engine *e = drmtop_group_engine(&t->groups, g, name);

	if (!e)
		snprintf(buf, len, "%*s ", w - 1, "-");
	else
		snprintf(buf, len, "%*.1f%s", w - 1, e->pct,
			 e->over ? "!" : g->maybe_short ? "+" : " ");
}

/* As a client's: F, B, F+B for the sources its members have, "!" or "?" as theirs. */
static const char *source_mark(const struct drmtop_group *g)
{
	static const char *const marks[2][2][3] = {
		{ { "-", "-", "-" }, { "B", "B!", "B?" } },
		{ { "F", "F!", "F?" }, { "F+B", "F+B!", "F+B?" } },
	};

	return marks[g->in_fdinfo][g->traced][g->diverged ? 1 : g->maybe_short ? 2 : 0];
}

void tui_group_cell(struct tui *t, const struct drmtop_group *g, const struct tui_col *col,
		    const char *const *engines, char *buf, size_t len)
{
	const struct drmtop_model_client *first = &t->m->clients[g->first];
	char tmp[64], work[64];

	switch (col->id) {
	case COL_PID:
		if (t->group_by == DRMTOP_GROUP_PROCESS)
			snprintf(buf, len, "%*d", col->width, (int)g->pid);
		else
			snprintf(buf, len, "%*s", col->width, "-");
		break;
	case COL_USER:
		snprintf(buf, len, "%-*.*s", col->width, col->width, tui_user(t, first));
		break;
	case COL_COMM:
		snprintf(buf, len, "%-*.*s", col->width, col->width,
			 tui_sanitize(tmp, sizeof(tmp), g->name && g->name[0] ? g->name : "?"));
		break;
	case COL_DEV:
		snprintf(buf, len, "%-*.*s", col->width, col->width,
			 tui_sanitize(tmp, sizeof(tmp), tui_dev_label(first)));
		break;
	case COL_ID:	/* how many clients */
		snprintf(buf, len, "%*zu", col->width, g->nr_clients);
		break;
	case COL_MEM:
		snprintf(buf, len, "%*s", col->width,
			 g->has_mem ? tui_fmt_bytes(tmp, sizeof(tmp), g->mem_total) : "-");
		break;
	case COL_SHR:
		snprintf(buf, len, "%*s", col->width,
			 g->has_mem ? tui_fmt_bytes(tmp, sizeof(tmp), g->mem_shared) : "-");
		break;
	case COL_SRC:
		snprintf(buf, len, "%-*s", col->width, source_mark(g));
		break;
	case COL_WORK:
		snprintf(buf, len, "%-*.*s", col->width, col->width,
			 tui_sanitize(tmp, sizeof(tmp),
				      tui_workload_label(first, work, sizeof(work))));
		break;
	case COL_HIST:
		snprintf(buf, len, "%*s", col->width, "");
		break;
	default:
		engine_cell(buf, len, col->width, t, g, engines[col->id - COL_ENGINE]);
		break;
	}
}
