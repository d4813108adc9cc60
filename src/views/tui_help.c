// SPDX-License-Identifier: GPL-2.0-only
/* The help overlay (h or ?): the keys and what the marks in the table mean. Any key closes it. */
#include <curses.h>
#include <string.h>

#include "tui.h"

static const char *const help[] = {
	"drmtop keys",
	"",
	"  q            quit (Ctrl-C too)",
	"  h ?          this help; any key closes it",
	"  Up Down      select a client; PgUp PgDn Home End",
	"  Enter        details of the selected client; Esc or Enter back",
	"  /            filter as you type: pid, command, driver, device, workload;",
	"               Enter keeps it, Esc clears it",
	"  s            next sort: busy, memory, pid, name",
	"  B M P N      sort by busy, memory, pid, name",
	"  r            reverse the order",
	"  g            device utilisation plot on or off",
	"  G            rows per client, per process, per workload (cgroup):",
	"               sums of their clients; Enter shows a group's clients",
	"  space        refresh now;  + -  double or halve the interval",
	"",
	"Table: engine columns are busy % over the last interval (fdinfo;",
	"the tracer's where fdinfo has no figure). '!' over 100 %, '~' the",
	"tracer disagrees, '...' no figure yet (new client), '-' no such engine.",
	"MEM and SHR: fdinfo total and shared memory, K/M/G = KiB/MiB/GiB.",
	"SRC: F fdinfo, B BPF tracer only, F+B both; '!' they disagree.",
	"Grouped: CLI clients summed; MEM counts a buffer two of them hold twice.",
	"HISTORY and the plot: the busiest engine at each refresh.",
};

void tui_draw_help(struct tui *t)
{
	int n = (int)(sizeof(help) / sizeof(help[0])), w = 0, h, x, y, i;

	for (i = 0; i < n; i++)
		w = (int)strlen(help[i]) > w ? (int)strlen(help[i]) : w;
	w += 4;
	h = n + 2;
	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	x = (COLS - w) / 2;
	y = (LINES - h) / 2;
	attrset(tui_attr(t, TUI_ROLE_NORMAL));
	for (i = 0; i < h; i++)
		mvhline(y + i, x, ' ', w);
	attrset(tui_attr(t, TUI_ROLE_TITLE));
	mvhline(y, x, '-', w);
	mvhline(y + h - 1, x, '-', w);
	mvvline(y, x, '|', h);
	mvvline(y, x + w - 1, '|', h);
	for (i = 0; i < n && i + 1 < h - 1; i++) {
		attrset(tui_attr(t, i ? TUI_ROLE_NORMAL : TUI_ROLE_TITLE));
		tui_put(y + 1 + i, x + 2, help[i], w - 4);
	}
	attrset(A_NORMAL);
}
