// SPDX-License-Identifier: GPL-2.0-only
/* The live view's drawing primitives: attributes, clipped text, bars, sparklines, names. */
#include <curses.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/vec.h"
#include "tui.h"

int tui_attr(const struct tui *t, enum tui_role role)
{
	static const struct {
		int pair;
		int color_attr;
		int mono_attr;		/* without colour: what still tells the roles apart */
	} map[] = {
		[TUI_ROLE_NORMAL] = { 0, A_NORMAL, A_NORMAL },
		[TUI_ROLE_TITLE] = { TUI_PAIR_TITLE, A_BOLD, A_BOLD },
		[TUI_ROLE_DEVICE] = { TUI_PAIR_DEVICE, A_BOLD, A_BOLD },
		[TUI_ROLE_HEADER] = { TUI_PAIR_HEADER, A_NORMAL, A_REVERSE },
		[TUI_ROLE_LOW] = { TUI_PAIR_LOW, A_NORMAL, A_NORMAL },
		[TUI_ROLE_MID] = { TUI_PAIR_MID, A_NORMAL, A_NORMAL },
		[TUI_ROLE_HIGH] = { TUI_PAIR_HIGH, A_BOLD, A_BOLD },
		[TUI_ROLE_FLAG] = { TUI_PAIR_FLAG, A_BOLD, A_BOLD },
		[TUI_ROLE_NOTE] = { TUI_PAIR_NOTE, A_NORMAL, A_NORMAL },
		[TUI_ROLE_SELECT] = { TUI_PAIR_SELECT, A_NORMAL, A_REVERSE },
		[TUI_ROLE_DIM] = { 0, A_DIM, A_DIM },
	};

	if (!t->color)
		return map[role].mono_attr;
	return map[role].color_attr | (map[role].pair ? COLOR_PAIR(map[role].pair) : 0);
}

int tui_put(int y, int x, const char *s, int max_w)
{
	int room = COLS - x, n;

	if (y < 0 || y >= LINES || room <= 0 || max_w <= 0)
		return x;
	n = (int)strlen(s);
	if (n > max_w)
		n = max_w;
	if (n > room)
		n = room;
	mvaddnstr(y, x, s, n);
	return x + n;
}

const char *tui_block(const struct tui *t, unsigned int eighths)
{
	static const char *const utf8[] = {
		" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█",
	};
	static const char *const ascii[] = { " ", "_", "_", ".", ".", "-", "-", "=", "#" };

	if (eighths > 8)
		eighths = 8;
	return t->utf8 ? utf8[eighths] : ascii[eighths];
}

static enum tui_role level_role(double pct, bool over)
{
	if (over || pct >= 90)
		return TUI_ROLE_HIGH;
	return pct >= 50 ? TUI_ROLE_MID : TUI_ROLE_LOW;
}

void tui_bar(const struct tui *t, int y, int x, int w, bool have, double pct, bool over)
{
	static const char *const part[] = {
		"", "▏", "▎", "▍", "▌", "▋", "▊", "▉",
	};
	char label[16];
	int inner = w - 2, label_w, i, fill8;

	if (inner < 1 || y >= LINES)
		return;
	if (have)
		snprintf(label, sizeof(label), "%.1f%%%s", pct, over ? "!" : "");
	else
		snprintf(label, sizeof(label), "...");
	label_w = (int)strlen(label);
	fill8 = have ? (int)lround((pct > 100 ? 100 : pct < 0 ? 0 : pct) / 100.0 * inner * 8) : 0;
	mvaddstr(y, x, "[");
	attron(tui_attr(t, level_role(pct, over)));
	/* The figure sits at the bar's right end, over it (as in htop): the bar stays one line. */
	for (i = 0; i < inner && x + 1 + i < COLS; i++) {
		int label_at = i - (inner - label_w);

		if (label_at >= 0) {
			attroff(tui_attr(t, level_role(pct, over)));
			attron(A_BOLD);
			mvaddch(y, x + 1 + i, label[label_at]);
			attroff(A_BOLD);
			attron(tui_attr(t, level_role(pct, over)));
		} else if (fill8 >= (i + 1) * 8) {
			mvaddstr(y, x + 1 + i, t->utf8 ? "█" : "|");
		} else if (fill8 > i * 8 && t->utf8) {
			mvaddstr(y, x + 1 + i, part[fill8 - i * 8]);
		} else {
			mvaddstr(y, x + 1 + i, " ");
		}
	}
	attroff(tui_attr(t, level_role(pct, over)));
	if (x + w - 1 < COLS)
		mvaddstr(y, x + w - 1, "]");
}

void tui_sparkline(const struct tui *t, int y, int x, int w, const struct tui_series *s)
{
	int i;

	if (y >= LINES)
		return;
	for (i = 0; i < w && x + i < COLS; i++) {
		double v = tui_series_at(s, (size_t)(w - 1 - i));

		if (isnan(v)) {
			mvaddstr(y, x + i, " ");
			continue;
		}
		attron(tui_attr(t, level_role(v, v > 100)));
		mvaddstr(y, x + i, tui_block(t, tui_level(v, 1, 0)));
		attroff(tui_attr(t, level_role(v, v > 100)));
	}
}

const char *tui_user(struct tui *t, const struct drmtop_model_client *c)
{
	struct tui_user *u;
	struct passwd *pw;
	size_t i;

	if (!c->has_uid)
		return "-";
	for (i = 0; i < t->nr_users; i++)
		if (t->users[i].uid == c->uid)
			return t->users[i].name;
	/* Each uid is looked up once: NSS (LDAP, ...) can be slow, and the table redraws often. */
	u = vec_push(t->users, t->nr_users, t->cap_users);
	if (!u)
		return "?";
	u->uid = c->uid;
	pw = getpwuid(c->uid);
	if (pw && pw->pw_name)
		tui_sanitize(u->name, sizeof(u->name), pw->pw_name);
	else
		snprintf(u->name, sizeof(u->name), "%u", (unsigned int)c->uid);
	return u->name;
}

const char *tui_dev_label(const struct drmtop_model_client *c)
{
	const char *slash;

	if (!c->node)
		return c->driver ? c->driver : "?";
	slash = strrchr(c->node, '/');
	return slash ? slash + 1 : c->node;
}
