// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live view: the terminal, the loop and the keys. What is on the screen is drawn by the
 * other tui_*.c files from the model and struct tui; this file decides when and what mode.
 *
 * The terminal is restored (endwin) on every way out: q, -n reached, a stop signal (SIGINT,
 * SIGTERM, SIGHUP set *stop, which the loop checks at least every KEY_POLL_MS), and a sampler
 * error, whose reason is printed only after the terminal is back.
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/commands.h"
#include "drmtop/util/clock.h"
#include "tui.h"

#define KEY_POLL_MS	200	/* how late a stop signal may be noticed */
#define KEY_ESC		27
#define PLOT_H		5	/* title + 4 rows of eighth blocks: 32 levels */
#define MIN_TABLE_H	6	/* table header + 5 clients before the plot may take room */

static void setup_colors(struct tui *t)
{
	if (!t->color || !has_colors()) {
		t->color = false;
		return;
	}
	start_color();
	use_default_colors();
	init_pair(TUI_PAIR_TITLE, COLOR_CYAN, -1);
	init_pair(TUI_PAIR_DEVICE, COLOR_GREEN, -1);
	init_pair(TUI_PAIR_HEADER, COLOR_BLACK, COLOR_GREEN);
	init_pair(TUI_PAIR_LOW, COLOR_GREEN, -1);
	init_pair(TUI_PAIR_MID, COLOR_YELLOW, -1);
	init_pair(TUI_PAIR_HIGH, COLOR_RED, -1);
	init_pair(TUI_PAIR_FLAG, COLOR_RED, -1);
	init_pair(TUI_PAIR_NOTE, COLOR_YELLOW, -1);
	init_pair(TUI_PAIR_SELECT, COLOR_BLACK, COLOR_CYAN);
}

static void status_line(struct tui *t)
{
	char line[512];
	enum tui_role role = TUI_ROLE_HEADER;

	if (t->editing)
		snprintf(line, sizeof(line), " filter: %s_   (Enter keeps it, Esc clears it)",
			 t->filter);
	else if (t->m->nr_notes) {
		/* What the sampler had to say this refresh beats the key reminder. */
		snprintf(line, sizeof(line), " %s", t->m->notes[t->m->nr_notes - 1]);
		role = TUI_ROLE_FLAG;
	} else if (t->detail)
		snprintf(line, sizeof(line), " Esc back  Up/Down scroll  h help  q quit ");
	else
		snprintf(line, sizeof(line),
			 " q quit  h help  / filter  Enter details  s r sort  g plot  +/- every %.2f s ",
			 t->interval_s);
	attrset(tui_attr(t, role));
	mvhline(LINES - 1, 0, ' ', COLS);
	tui_put(LINES - 1, 0, line, COLS);
	attrset(A_NORMAL);
}

static void draw(struct tui *t)
{
	int y, plot_h = 0;

	erase();
	if (t->detail) {
		tui_draw_detail(t);
	} else {
		y = tui_draw_header(t, 0);
		if (t->plot && LINES - 1 - y - PLOT_H >= MIN_TABLE_H)
			plot_h = PLOT_H;
		else if (t->plot && LINES - 1 - y - 3 >= MIN_TABLE_H)
			plot_h = 3;
		if (plot_h)
			y = tui_draw_plot(t, y, plot_h);
		tui_draw_table(t, y, LINES - 1);
	}
	status_line(t);
	if (t->help)
		tui_draw_help(t);
	refresh();
}

/* A new frame: its history, then the rows the filter and order give. */
static int take(struct tui *t)
{
	if (tui_history_add(&t->hist, t->m) || tui_rows_build(t))
		return -ENOMEM;
	return 0;
}

static bool is_enter(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

static bool is_backspace(int ch)
{
	return ch == KEY_BACKSPACE || ch == 127 || ch == 8;
}

/* Typing the filter: every key narrows or widens the table at once. */
static void filter_key(struct tui *t, int ch)
{
	size_t len = strlen(t->filter);

	if (is_enter(ch)) {
		t->editing = false;
	} else if (ch == KEY_ESC) {
		t->filter[0] = '\0';
		t->editing = false;
	} else if (is_backspace(ch)) {
		if (len)
			t->filter[len - 1] = '\0';
	} else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(t->filter)) {
		t->filter[len] = (char)ch;
		t->filter[len + 1] = '\0';
	}
}

static void detail_key(struct tui *t, int ch)
{
	int page = LINES - 2 > 1 ? LINES - 2 : 1, max = t->detail_lines - page;

	if (ch == KEY_ESC || is_enter(ch) || is_backspace(ch) || ch == KEY_LEFT)
		t->detail = false;
	else if (ch == KEY_UP || ch == 'k')
		t->detail_top--;
	else if (ch == KEY_DOWN || ch == 'j')
		t->detail_top++;
	else if (ch == KEY_PPAGE)
		t->detail_top -= page;
	else if (ch == KEY_NPAGE || ch == ' ')
		t->detail_top += page;
	else if (ch == KEY_HOME)
		t->detail_top = 0;
	if (t->detail_top > max)
		t->detail_top = max;
	if (t->detail_top < 0)
		t->detail_top = 0;
}

static void set_sort(struct tui *t, enum drmtop_sort sort)
{
	t->sort = sort;
	t->top = 0;
}

/* Keys of the table. Returns true when the frame should be resampled now. */
static bool table_key(struct tui *t, int ch)
{
	switch (ch) {
	case '/':
		t->editing = true;
		break;
	case KEY_ESC:
		t->filter[0] = '\0';
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
		if (t->nr_rows && t->group_by) {
			/* into the group: its clients, the filter set to its key */
			snprintf(t->filter, sizeof(t->filter), "%s", tui_row_key(t, t->sel));
			t->group_by = DRMTOP_GROUP_NONE;
			t->top = 0;
		} else if (t->nr_rows) {
			t->detail = true;
			t->detail_top = 0;
		}
		break;
	case 'G':
		t->group_by = (t->group_by + 1) % DRMTOP_GROUP_COUNT;
		t->top = 0;
		t->sel = 0;
		break;
	case 's':
		set_sort(t, (t->sort + 1) % DRMTOP_SORT_COUNT);
		break;
	case 'B':
		set_sort(t, DRMTOP_SORT_BUSY);
		break;
	case 'M':
		set_sort(t, DRMTOP_SORT_MEMORY);
		break;
	case 'P':
		set_sort(t, DRMTOP_SORT_PID);
		break;
	case 'N':
		set_sort(t, DRMTOP_SORT_NAME);
		break;
	case 'r':
		t->reverse = !t->reverse;
		break;
	case 'g':
		t->plot = !t->plot;
		break;
	case ' ':
		return true;
	case '+':
		t->interval_s = fmin(t->interval_s * 2, DRMTOP_MAX_INTERVAL_S);
		break;
	case '-':
		t->interval_s = fmax(t->interval_s / 2, DRMTOP_MIN_INTERVAL_S);
		break;
	case KEY_UP:
	case 'k':
		tui_select_move(t, -1);
		break;
	case KEY_DOWN:
	case 'j':
		tui_select_move(t, 1);
		break;
	case KEY_PPAGE:
		tui_select_move(t, -t->page);
		break;
	case KEY_NPAGE:
		tui_select_move(t, t->page);
		break;
	case KEY_HOME:
		tui_select_move(t, -(long)t->nr_rows);
		break;
	case KEY_END:
		tui_select_move(t, (long)t->nr_rows);
		break;
	default:
		break;
	}
	return false;
}

static void tui_free(struct tui *t)
{
	tui_history_free(&t->hist);
	free(t->rows);
	drmtop_groups_fini(&t->groups);
	free(t->group_rows);
	free(t->users);
}

int drmtop_tui_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop)
{
	const struct drmtop_options *opts = drmtop_sampler_opts(s);
	struct drmtop_model frame = { 0 };
	struct tui t = {
		.m = &frame,
		.interval_s = opts->interval_s,
		.color = !opts->no_color,
		.plot = true,
		.sort = DRMTOP_SORT_BUSY,
	};
	unsigned long shown = 0;
	SCREEN *screen;
	uint64_t next;
	int err;

	drmtop_groups_init(&t.groups);
	err = drmtop_sampler_next(s, &frame);
	if (err) {
		fprintf(stderr, "drmtop: %s\n", drmtop_sampler_error(s));
		drmtop_groups_fini(&t.groups);
		return err;
	}
	/* Only the character type: numbers keep their '.' whatever LC_NUMERIC says. */
	setlocale(LC_CTYPE, "");
	t.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		fprintf(stderr, "drmtop: cannot start the terminal view (TERM=%s; try -b)\n",
			getenv("TERM") ? getenv("TERM") : "");
		drmtop_model_fini(&frame);
		return -EIO;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);	/* Esc is a key here, not only the start of a sequence */
	curs_set(0);
	setup_colors(&t);

	err = take(&t);
	if (!err)
		draw(&t);
	next = drmtop_mono_ns() + (uint64_t)(t.interval_s * 1e9);
	while (!err && !*stop) {
		uint64_t now = drmtop_mono_ns();
		int ch, wait_ms = now >= next ? 0 : (int)((next - now) / 1000000) + 1;
		bool resample = false;

		timeout(wait_ms < KEY_POLL_MS ? wait_ms : KEY_POLL_MS);
		ch = getch();
		if (ch == ERR) {
			if (drmtop_mono_ns() < next)
				continue;
			resample = true;
		} else if (ch == KEY_RESIZE) {
			/* Nothing to do but draw again at the new size. */
		} else if (t.help) {
			t.help = false;
		} else if (t.editing) {
			filter_key(&t, ch);
		} else if (ch == 'q' || ch == 'Q') {
			break;
		} else if (ch == 'h' || ch == '?' || ch == KEY_F(1)) {
			t.help = true;
		} else if (t.detail) {
			detail_key(&t, ch);
		} else {
			resample = table_key(&t, ch);
		}
		if (resample) {
			err = drmtop_sampler_next(s, &frame);
			if (err)
				break;
			next = drmtop_mono_ns() + (uint64_t)(t.interval_s * 1e9);
			shown++;
		}
		/* Order, filter or frame may have changed: rebuild the rows, then draw. */
		err = resample ? take(&t) : tui_rows_build(&t) ? -ENOMEM : 0;
		if (!err)
			draw(&t);
		if (opts->iterations && shown >= opts->iterations)
			break;
	}
	endwin();
	delscreen(screen);
	/* Only now, on the restored terminal, can the reason be read. */
	if (err == -ENOMEM)
		fprintf(stderr, "drmtop: out of memory\n");
	else if (err)
		fprintf(stderr, "drmtop: %s\n", drmtop_sampler_error(s));
	tui_free(&t);
	drmtop_model_fini(&frame);
	return err;
}
