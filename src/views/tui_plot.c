// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device utilisation plot: the busiest engine of one device (the selected client's, else
 * the first) per refresh, newest at the right, as far back as the width and the history go.
 * The busiest engine, not an average: a GPU whose video engine is saturated is saturated for
 * the video work however idle its other engines are.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui.h"

#define AXIS_W	6	/* "100% " + the axis line */

static const struct drmtop_model_device *plotted(const struct tui *t)
{
	const struct drmtop_model_client *c = tui_selected(t);

	if (c && c->device)
		return c->device;
	return t->m->nr_devices ? &t->m->devices[0] : NULL;
}

static void span_text(char *buf, size_t len, const struct tui_history *h,
		      const struct tui_series *s, size_t w)
{
	size_t n = s && s->n < w ? s->n : w;
	uint64_t newest, oldest, secs;

	if (!s || n < 2) {
		snprintf(buf, len, "collecting");
		return;
	}
	newest = tui_history_time(h, 0);
	oldest = tui_history_time(h, n - 1);
	secs = (newest - oldest + 500000000ull) / 1000000000ull;
	if (secs >= 60)
		snprintf(buf, len, "last %llum%02llus", (unsigned long long)(secs / 60),
			 (unsigned long long)(secs % 60));
	else
		snprintf(buf, len, "last %llus", (unsigned long long)secs);
}

int tui_draw_plot(struct tui *t, int y, int height)
{
	const struct drmtop_model_device *d = plotted(t);
	const struct tui_series *s;
	char line[256], span[32];
	int w = COLS - AXIS_W, row, i;

	if (!d || height < 2 || w < 10)
		return y;
	s = tui_history_get(&t->hist, "d:", d->key);
	span_text(span, sizeof(span), &t->hist, s, (size_t)w);
	snprintf(line, sizeof(line), "%s %s: busiest engine, %s", d->driver ? d->driver : "?",
		 d->node ? d->node : "?", span);
	attrset(tui_attr(t, TUI_ROLE_DEVICE));
	tui_put(y++, 0, line, COLS);
	attrset(A_NORMAL);
	for (row = height - 2; row >= 0; row--, y++) {
		const char *label = row == height - 2 ? "100%" : row == 0 ? "  0%" : "";

		mvprintw(y, 0, "%4s ", label);
		mvaddstr(y, AXIS_W - 1, t->utf8 ? "│" : "|");
		for (i = 0; i < w; i++) {
			double v = tui_series_at(s, (size_t)(w - 1 - i));
			unsigned int l = tui_level(v, (unsigned int)height - 1, (unsigned int)row);
			enum tui_role role = v >= 90 ? TUI_ROLE_HIGH : v >= 50 ? TUI_ROLE_MID
									    : TUI_ROLE_LOW;

			if (isnan(v) || !l)
				continue;
			attron(tui_attr(t, role));
			mvaddstr(y, AXIS_W + i, tui_block(t, l));
			attroff(tui_attr(t, role));
		}
	}
	return y;
}
