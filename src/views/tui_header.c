// SPDX-License-Identifier: GPL-2.0-only
/*
 * The top of the live view: what is shown and from where, what the tracer missed, then a busy
 * bar per device engine.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui.h"

#define ENGINE_CELL_W	40	/* a bar cell: name, bar, figure */
#define ENGINE_NAME_W	9
#define WRAP_MAX	8	/* lines a header text may take on a tall screen */

/*
 * @text wrapped to the screen's width (tui_wrap) from row @y, on at most a sixth of the screen
 * (at least two lines): the table below matters more. Returns the next free row.
 */
static int wrapped(int y, const char *text)
{
	struct tui_span lines[WRAP_MAX];
	size_t max = (size_t)(LINES / 6 > 2 ? LINES / 6 : 2), n, i;
	char safe[1024];
	bool cut;

	tui_sanitize(safe, sizeof(safe), text);
	n = tui_wrap(safe, COLS, lines, max < WRAP_MAX ? max : WRAP_MAX, &cut);
	for (i = 0; i < n && y < LINES - 1; i++, y++) {
		int x = i ? TUI_WRAP_INDENT : 0;

		x = tui_put(y, x, safe + lines[i].off, (int)lines[i].len);
		if (cut && i + 1 == n)
			tui_put(y, x, "...", 3);
	}
	return y;
}

static int title(struct tui *t, int y)
{
	const struct drmtop_model *m = t->m;
	time_t now = (time_t)(m->realtime_ns / 1000000000ull);
	char line[1024], when[16] = "?", shown[32] = "";
	struct tm tm;
	bool lost_now;

	if (t->filter[0])
		snprintf(shown, sizeof(shown), " (%zu%s shown)", t->nr_rows,
			 t->group_by ? " groups" : "");
	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	snprintf(line, sizeof(line),
		 "drmtop %s  every %.2f s  %zu client%s on %zu device%s  sort: %s%s%s%s%s%s%s", when,
		 t->interval_s, m->nr_clients, m->nr_clients == 1 ? "" : "s", m->nr_devices,
		 m->nr_devices == 1 ? "" : "s", drmtop_sort_name(t->sort),
		 t->reverse ? " (reversed)" : "", t->filter[0] ? "  filter: " : "", t->filter, shown,
		 t->group_by ? "  rows: per " : "",
		 t->group_by ? drmtop_group_by_name(t->group_by) : "");
	attrset(tui_attr(t, TUI_ROLE_TITLE));
	tui_put(y++, 0, line, COLS);
	attrset(tui_attr(t, TUI_ROLE_NOTE));
	if (m->bpf_active)
		snprintf(line, sizeof(line), "source: fdinfo + BPF (%s)", m->bpf_reason);
	else
		snprintf(line, sizeof(line), "source: fdinfo only (BPF off: %s)",
			 m->bpf_reason ? m->bpf_reason : "not requested");
	y = wrapped(y, line);
	/* What the tracer missed, in every frame since it missed anything: figures may be short */
	if (tui_loss_text(line, sizeof(line), m, &lost_now)) {
		attrset(tui_attr(t, lost_now ? TUI_ROLE_FLAG : TUI_ROLE_NOTE));
		y = wrapped(y, line);
		attrset(tui_attr(t, TUI_ROLE_NOTE));
	}
	if (m->status != DRMTOP_STATUS_OK)
		tui_put(y++, 0, drmtop_status_message(m->status), COLS);
	attrset(A_NORMAL);
	return y;
}

/* Bars per line: as many as fit, and no more than the device has (they share the width). */
static int cells_per_line(const struct drmtop_model_device *d)
{
	int k = COLS / ENGINE_CELL_W > 0 ? COLS / ENGINE_CELL_W : 1;

	return d->nr_engines && (size_t)k > d->nr_engines ? (int)d->nr_engines : k;
}

static int device_lines(const struct drmtop_model_device *d, bool compact)
{
	int k = cells_per_line(d);

	if (compact)
		return 1;
	return 1 + ((int)d->nr_engines + k - 1) / k;
}

static void device_line(struct tui *t, int y, const struct drmtop_model_device *d, bool compact)
{
	char line[1024], mem[16];
	size_t i, off;

	off = (size_t)snprintf(line, sizeof(line), "%s %s%s%s  %zu client%s  mem %s",
			       d->driver ? d->driver : "(no driver name)", d->node ? d->node : "?",
			       d->pdev ? "  " : "", d->pdev ? d->pdev : "", d->nr_clients,
			       d->nr_clients == 1 ? "" : "s",
			       tui_fmt_bytes(mem, sizeof(mem), d->mem_total));
	/* Too many devices for bars: their engines as figures on the device's own line. */
	for (i = 0; compact && i < d->nr_engines && off < sizeof(line); i++) {
		const struct drmtop_model_device_engine *e = &d->engines[i];

		if (e->valid)
			off += (size_t)snprintf(line + off, sizeof(line) - off, "  %s %.1f%%%s",
						e->name, e->pct, e->over ? "!" : "");
		else
			off += (size_t)snprintf(line + off, sizeof(line) - off, "  %s ...",
						e->name);
	}
	attrset(tui_attr(t, TUI_ROLE_DEVICE));
	tui_put(y, 0, line, COLS);
	attrset(A_NORMAL);
}

static int engine_bars(struct tui *t, int y, const struct drmtop_model_device *d)
{
	int k = cells_per_line(d), w = COLS / k;
	char name[ENGINE_NAME_W + 1];
	size_t i;

	for (i = 0; i < d->nr_engines; i++) {
		const struct drmtop_model_device_engine *e = &d->engines[i];
		int x = (int)(i % (size_t)k) * w;

		snprintf(name, sizeof(name), "%-*.*s", ENGINE_NAME_W - 1, ENGINE_NAME_W - 1,
			 e->name);
		tui_put(y, x + 1, name, ENGINE_NAME_W);
		tui_bar(t, y, x + 1 + ENGINE_NAME_W, w - ENGINE_NAME_W - 2, e->valid, e->pct,
			e->over);
		if (i % (size_t)k == (size_t)k - 1 || i + 1 == d->nr_engines)
			y++;
	}
	return y;
}

int tui_draw_header(struct tui *t, int y)
{
	const struct drmtop_model *m = t->m;
	int need = 0;
	bool compact;
	size_t i;

	y = title(t, y);
	for (i = 0; i < m->nr_devices; i++)
		need += device_lines(&m->devices[i], false);
	/* The table matters most: bars may take at most a third of the screen. */
	compact = need > LINES / 3;
	for (i = 0; i < m->nr_devices && y < LINES - 1; i++) {
		device_line(t, y++, &m->devices[i], compact);
		if (!compact)
			y = engine_bars(t, y, &m->devices[i]);
	}
	return y;
}
