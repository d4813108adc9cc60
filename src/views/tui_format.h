/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live view's pure helpers: no terminal, so the unit tests can call them. What a figure
 * looks like in a cell, which clients a filter keeps, which columns fit a width, and the
 * history the sparklines and the plot are drawn from.
 */
#ifndef DRMTOP_VIEWS_TUI_FORMAT_H
#define DRMTOP_VIEWS_TUI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drmtop/model.h"
#include "drmtop/util/strmap.h"

/* "4.0M", "123K", "512B", "1.5G": at most 5 characters; K/M/G/T are powers of 1024. */
const char *tui_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/* "1-2us", "256-512ms": the bounds of log2 latency bucket @b ([2^b, 2^(b+1)) ns); ">=2s" last. */
const char *tui_fmt_bucket(char *buf, size_t len, unsigned int b);

/* Copies @s into @buf with control and non-ASCII bytes as '?' (a tab would break a column). */
const char *tui_sanitize(char *buf, size_t len, const char *s);

/*
 * Whether the live filter keeps @c. Empty: every client. Digits only: a holder's pid that
 * starts with them, or a command that contains them. Otherwise a case-insensitive part of the
 * command, driver, device node, device key, workload or cgroup path.
 */
bool tui_filter_match(const struct drmtop_model_client *c, const char *filter);

/* The WORKLOAD column's text: "pod:<8 of the UID>/<12 of the container>", else the workload. */
const char *tui_workload_label(const struct drmtop_model_client *c, char *buf, size_t len);

/* The busiest engine of a client (0..), false when no engine has a figure yet. */
bool tui_client_peak(const struct drmtop_model_client *c, double *pct);

/*
 * Long header lines (the source, the tracer's losses) wrapped to the screen instead of cut at
 * its edge: a line of @width cells, then lines indented by TUI_WRAP_INDENT, broken after "; "
 * (the lines list items so) where that keeps at least half the line, else at a space, else
 * mid-word. At most @max lines: when the text needs more, *@cut is set and the last line is
 * shortened to leave room for "..." after it. Returns the number of lines. The text is
 * ASCII (tui_sanitize), one cell a byte.
 */
#define TUI_WRAP_INDENT	2
struct tui_span {
	size_t off, len;	/* of the text */
};
size_t tui_wrap(const char *s, int width, struct tui_span *lines, size_t max, bool *cut);

/*
 * The line saying what the tracer missed, for every frame where it missed something since it
 * attached (false, and @buf empty, otherwise): events since start and in the last interval, of
 * which kinds, and how many clients' figures may be short (marked in the table). Flagged with
 * *@now when it missed events in the last interval.
 */
bool tui_loss_text(char *buf, size_t len, const struct drmtop_model *m, bool *now);

/* Table columns: which fit in a width, by priority, shown in their own order. */
struct tui_col {
	int id;			/* the caller's */
	int width;		/* cells, without the space that separates columns */
	int prio;		/* lower is kept first */
	bool flex;		/* takes what is left over, at least width */
	bool shown;		/* set by tui_cols_fit */
};

/* Marks the columns that fit in @width; a flex column gets the rest. Returns the width used. */
int tui_cols_fit(struct tui_col *cols, size_t n, int width);

/*
 * A ring of samples, one a frame: each client's busiest engine, each device's. A sample is a
 * byte (half percent steps up to 127 %, TUI_SAMPLE_NONE where there was no figure) and the
 * ring grows as samples come, up to TUI_HIST_LEN: 600 bytes for a client seen ten minutes,
 * where float samples with their own times took 7.2 KB from its first frame (36 MB at 5,000
 * clients). Every series was sampled in the latest frame (one missed goes), so sample i back
 * from the newest is frame i back, whose time the history keeps once.
 */
#define TUI_HIST_LEN 600
#define TUI_SAMPLE_NONE 255

struct tui_series {
	char *key;		/* "<prefix><key>" */
	unsigned char *v;	/* cap samples, a ring once cap is TUI_HIST_LEN */
	size_t cap, head, n;	/* next slot, samples held */
	unsigned long seen;	/* the frame that last updated it */
};

struct tui_history {
	struct tui_series **s;
	size_t n, cap;
	struct strmap at;	/* "<prefix><key>" -> its series; all zero is empty */
	unsigned long frame;
	uint64_t t_ns[TUI_HIST_LEN];	/* of frame f at f % TUI_HIST_LEN */
};

/* Adds @m's figures: each client's busiest engine ("c:<key>") and each device's ("d:<key>"). */
int tui_history_add(struct tui_history *h, const struct drmtop_model *m);
const struct tui_series *tui_history_get(const struct tui_history *h, const char *prefix,
					 const char *key);
/* Sample @i back from the newest (0 = newest); NAN when there is none. */
double tui_series_at(const struct tui_series *s, size_t i);
/* When sample @i back from the newest of any series of @h was taken (CLOCK_MONOTONIC ns). */
uint64_t tui_history_time(const struct tui_history *h, size_t i);
void tui_history_free(struct tui_history *h);

/* Eighths of a cell (0..8) that @pct of 100 fills in a column @rows cells tall, row @row up. */
unsigned int tui_level(double pct, unsigned int rows, unsigned int row);

#endif /* DRMTOP_VIEWS_TUI_FORMAT_H */
