// SPDX-License-Identifier: GPL-2.0-only
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/commands.h"
#include "drmtop/util/clock.h"
#include "drmtop/views.h"

struct tui_line {
	enum drmtop_line_kind kind;
	char *text;
};

struct tui_lines {
	struct tui_line *v;
	size_t n, cap;
	bool oom;
};

static void collect_line(void *ctx, enum drmtop_line_kind kind, const char *text)
{
	struct tui_lines *l = ctx;
	struct tui_line *grown;

	if (l->oom)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		grown = realloc(l->v, cap * sizeof(*grown));
		if (!grown) {
			l->oom = true;
			return;
		}
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n].kind = kind;
	l->v[l->n].text = strdup(text);
	if (!l->v[l->n].text) {
		l->oom = true;
		return;
	}
	l->n++;
}

static void lines_clear(struct tui_lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].text);
	l->n = 0;
	l->oom = false;
}

enum { PAIR_TITLE = 1, PAIR_DEVICE, PAIR_HEADER, PAIR_FLAG, PAIR_NOTE };

static attr_t line_attr(enum drmtop_line_kind kind)
{
	switch (kind) {
	case DRMTOP_LINE_TITLE:
		return A_BOLD | COLOR_PAIR(PAIR_TITLE);
	case DRMTOP_LINE_DEVICE:
		return A_BOLD | COLOR_PAIR(PAIR_DEVICE);
	case DRMTOP_LINE_HEADER:
		return A_REVERSE | COLOR_PAIR(PAIR_HEADER);
	case DRMTOP_LINE_FLAG:
		return A_BOLD | COLOR_PAIR(PAIR_FLAG);
	case DRMTOP_LINE_NOTE:
		return COLOR_PAIR(PAIR_NOTE);
	default:
		return A_NORMAL;
	}
}

/*
 * The title and notes stay put; the device sections scroll below them. The last line is the
 * status line: what the sampler had to say, else the keys.
 */
static void draw(const struct tui_lines *l, size_t *scroll, double interval_s, const char *status)
{
	int rows = LINES, cols = COLS, y = 0;
	size_t fixed = 0, i, body;

	erase();
	while (fixed < l->n && (l->v[fixed].kind == DRMTOP_LINE_TITLE ||
				l->v[fixed].kind == DRMTOP_LINE_NOTE))
		fixed++;
	body = l->n - fixed;
	if (*scroll > body)
		*scroll = body;
	for (i = 0; i < fixed && y < rows - 1; i++, y++) {
		attrset(line_attr(l->v[i].kind));
		mvaddnstr(y, 0, l->v[i].text, cols);
	}
	for (i = fixed + *scroll; i < l->n && y < rows - 1; i++, y++) {
		attrset(line_attr(l->v[i].kind));
		mvaddnstr(y, 0, l->v[i].text, cols);
		if (l->v[i].kind == DRMTOP_LINE_HEADER)
			chgat(-1, line_attr(DRMTOP_LINE_HEADER), PAIR_HEADER, NULL);
	}
	attrset(A_REVERSE);
	if (status)
		mvprintw(rows - 1, 0, " %.*s ", cols > 2 ? cols - 2 : 0, status);
	else
		mvprintw(rows - 1, 0,
			 " q quit  space refresh  s sort  r reverse  +/- interval (%.2f s)  arrows scroll ",
			 interval_s);
	attrset(A_NORMAL);
	refresh();
}

static int render(const struct drmtop_model *m, enum drmtop_sort sort, bool reverse,
		  struct tui_lines *l)
{
	lines_clear(l);
	drmtop_render_lines(m, sort, reverse, collect_line, l);
	return l->oom ? -ENOMEM : 0;
}

static const char *status_of(const struct drmtop_model *m)
{
	return m->nr_notes ? m->notes[m->nr_notes - 1] : NULL;
}

int drmtop_tui_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop)
{
	const struct drmtop_options *opts = drmtop_sampler_opts(s);
	struct tui_lines lines = { 0 };
	enum drmtop_sort sort = DRMTOP_SORT_BUSY;
	double interval_s = opts->interval_s;
	struct drmtop_model frame = { 0 };
	bool reverse = false;
	uint64_t next;
	size_t scroll = 0;
	unsigned long shown = 0;
	int err;

	err = drmtop_sampler_next(s, &frame);
	if (err) {
		fprintf(stderr, "drmtop: %s\n", drmtop_sampler_error(s));
		return err;
	}
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "drmtop: cannot start the terminal view (try -b)\n");
		drmtop_model_fini(&frame);
		return -EIO;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_TITLE, COLOR_CYAN, -1);
		init_pair(PAIR_DEVICE, COLOR_GREEN, -1);
		init_pair(PAIR_HEADER, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_FLAG, COLOR_RED, -1);
		init_pair(PAIR_NOTE, COLOR_YELLOW, -1);
	}

	err = render(&frame, sort, reverse, &lines);
	draw(&lines, &scroll, interval_s, status_of(&frame));
	next = drmtop_mono_ns() + (uint64_t)(interval_s * 1e9);
	while (!err && !*stop) {
		uint64_t now = drmtop_mono_ns();
		int ch, wait_ms = now >= next ? 0 : (int)((next - now) / 1000000) + 1;
		bool resample = false, redraw = false;

		timeout(wait_ms);
		ch = getch();
		switch (ch) {
		case 'q':
		case 'Q':
			goto out;
		case ' ':
			resample = true;
			break;
		case 's':
			sort = (sort + 1) % DRMTOP_SORT_COUNT;
			err = render(&frame, sort, reverse, &lines);
			redraw = true;
			break;
		case 'r':
			reverse = !reverse;
			err = render(&frame, sort, reverse, &lines);
			redraw = true;
			break;
		case '+':
			interval_s = fmin(interval_s * 2, DRMTOP_MAX_INTERVAL_S);
			redraw = true;
			break;
		case '-':
			interval_s = fmax(interval_s / 2, DRMTOP_MIN_INTERVAL_S);
			redraw = true;
			break;
		case KEY_UP:
			scroll = scroll ? scroll - 1 : 0;
			redraw = true;
			break;
		case KEY_DOWN:
			scroll++;
			redraw = true;
			break;
		case KEY_RESIZE:
			redraw = true;
			break;
		case ERR:
			resample = drmtop_mono_ns() >= next;
			break;
		default:
			break;
		}
		if (resample) {
			err = drmtop_sampler_next(s, &frame);
			if (err)
				break;
			err = render(&frame, sort, reverse, &lines);
			redraw = true;
			next = drmtop_mono_ns() + (uint64_t)(interval_s * 1e9);
			if (opts->iterations && ++shown >= opts->iterations) {
				draw(&lines, &scroll, interval_s, status_of(&frame));
				break;
			}
		}
		if (redraw)
			draw(&lines, &scroll, interval_s, status_of(&frame));
	}
out:
	endwin();
	/* Only now, on the restored terminal, can the reason be read. */
	if (err == -ENOMEM)
		fprintf(stderr, "drmtop: out of memory\n");
	else if (err)
		fprintf(stderr, "drmtop: %s\n", drmtop_sampler_error(s));
	lines_clear(&lines);
	free(lines.v);
	drmtop_model_fini(&frame);
	return err;
}
