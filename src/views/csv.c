// SPDX-License-Identifier: GPL-2.0-only
/*
 * -o csv: one header line, then one row per client and engine per refresh ("long" form: the
 * set of engines differs between drivers, so engines are rows, not columns, and the columns
 * stay the same on every machine). A client without any engine still gets one row, its engine
 * fields empty. An empty field is a figure the source did not give (never written as 0).
 * Quoting is RFC 4180's; lines end in LF, as every CSV reader accepts. Text is escaped and
 * formulas neutralised (drmtop_csv_field). The columns are listed
 * once, in csv_columns[], and documented in drmtop(8).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "drmtop/util/printable.h"
#include "drmtop/views.h"

static const char *const csv_columns[] = {
	"time", "iteration", "interval_s", "pid", "uid", "comm", "device", "node", "driver",
	"client_id", "source", "engine", "busy_pct", "busy_ns", "capacity", "bpf_busy_pct",
	"bpf_busy_ns", "bpf_jobs", "bpf_jobs_delta", "diverged", "mem_total_bytes",
	"mem_shared_bytes", "mem_resident_bytes", "bpf_mem_total_bytes", "mem_diverged",
	"inconclusive", "mem_inconclusive", "lower_bound", "bpf_missed", "bpf_missed_interval",
	"workload", "cgroup",
};

/*
 * A cell a spreadsheet would run as a formula (OWASP's "CSV injection"). A leading tab or CR is
 * on that list too, but the escaping below turns those into "\x09"/"\x0d" first.
 */
static bool formula(const char *s)
{
	return s[0] && strchr("=+-@", s[0]);
}

bool drmtop_csv_needs_quotes(const char *s)
{
	return s && (s[strcspn(s, ",\"")] || formula(s));
}

/* Writes an escaped piece with its double quotes doubled (inside a quoted field). */
static int put_quoted(void *ctx, const char *piece, size_t len)
{
	FILE *out = ctx;
	size_t i;

	for (i = 0; i < len; i++) {
		if (piece[i] == '"')
			fputc('"', out);
		fputc(piece[i], out);
	}
	return 0;
}

static int put_plain(void *ctx, const char *piece, size_t len)
{
	fwrite(piece, 1, len, ctx);
	return 0;
}

/*
 * Text fields only (names, keys): the figures are written as numbers, so a pid of -1 stays one.
 * Control bytes and invalid UTF-8 are escaped as the text view escapes them (util/printable.h):
 * `drmtop -o csv` on a terminal must not run a process's escape sequence. CR and LF are among
 * them, so only a comma, a quote or a formula's first character still needs quotes.
 */
void drmtop_csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!drmtop_csv_needs_quotes(s)) {
		drmtop_printable_each(s, put_plain, out);
		return;
	}
	fputc('"', out);
	/* The quote makes the cell text, and shows in it: "'=1+x" is not 1+x's result. */
	if (formula(s))
		fputc('\'', out);
	drmtop_printable_each(s, put_quoted, out);
	fputc('"', out);
}

/* A field after the first: the separator, then the text (NULL: an empty field). */
static void field(FILE *out, const char *s)
{
	fputc(',', out);
	drmtop_csv_field(out, s);
}

static void field_u64(FILE *out, bool have, uint64_t v)
{
	fputc(',', out);
	if (have)
		fprintf(out, "%llu", (unsigned long long)v);
}

static void field_pct(FILE *out, bool have, double v)
{
	fputc(',', out);
	if (have)
		fprintf(out, "%.2f", v);
}

static const char *source_of(const struct drmtop_model_client *c)
{
	if (c->in_fdinfo)
		return c->bpf ? "both" : "fdinfo";
	return "bpf";
}

/* The client's identity and the frame's, up to and including "source". */
static void row_start(FILE *out, const char *when, const struct drmtop_model *m,
		      const struct drmtop_model_client *c)
{
	char buf[32];

	fputs(when, out);
	fprintf(out, ",%lu", m->iteration);
	fputc(',', out);
	if (c->in_fdinfo && c->dt_ns)
		fprintf(out, "%.6f", (double)c->dt_ns / 1e9);
	fprintf(out, ",%d", (int)c->pid);
	field_u64(out, c->has_uid, c->uid);
	field(out, c->comm);
	field(out, c->dev_key);
	field(out, c->node);
	field(out, c->driver);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)c->client_id);
	field(out, c->has_client_id ? buf : NULL);
	field(out, source_of(c));
}

/*
 * The client's memory, the same on each of its rows, then what the tracer missed: whether this
 * client's tracer figures may be short, and the frame's loss counts (every row carries them, so
 * a row read alone still says whether its figures can be trusted); last its workload and cgroup.
 */
static void row_end(FILE *out, const struct drmtop_model *m, const struct drmtop_model_client *c,
		    const struct drmtop_model_engine *e)
{
	const struct drmtop_model_bpf *b = c->bpf;

	field_u64(out, c->in_fdinfo && c->has_mem, c->mem_total);
	field_u64(out, c->in_fdinfo && c->has_shared, c->mem_shared);
	field_u64(out, c->in_fdinfo && c->has_resident, c->mem_resident);
	field_u64(out, b, b ? b->mem_total : 0);
	field_u64(out, b && b->mem_compared, b && b->mem_diverged);
	field_u64(out, e && e->in_fdinfo && e->in_bpf, e && e->inconclusive);
	field_u64(out, b && b->mem_compared, b && b->mem_inconclusive);
	field_u64(out, b, c->lower_bound);
	field_u64(out, m->bpf_active, m->missed.since_start);
	field_u64(out, m->bpf_active, m->missed.interval);
	field(out, c->cgroup.workload);
	field(out, c->cgroup.path);
	fputc('\n', out);
}

static void engine_fields(FILE *out, const struct drmtop_model_engine *e)
{
	const struct drmtop_fd_engine *f = &e->fd;
	bool fd = e->in_fdinfo;

	field(out, e->name);
	field_pct(out, fd && (f->flags & DRMTOP_FD_RATE), f->pct);
	field_u64(out, fd && (f->flags & DRMTOP_FD_BUSY), f->busy_ns);
	field_u64(out, fd, f->capacity);
	field_pct(out, e->in_bpf && e->bpf.has_rate, e->bpf.pct);
	field_u64(out, e->in_bpf, e->bpf.busy_ns);
	field_u64(out, e->in_bpf, e->bpf.jobs);
	field_u64(out, e->in_bpf && e->bpf.has_rate, e->bpf.jobs_delta);
	field_u64(out, e->in_fdinfo && e->in_bpf, e->diverged);
}

static void client_rows(FILE *out, const char *when, const struct drmtop_model *m,
			const struct drmtop_model_client *c)
{
	size_t i;

	if (!c->nr_engines) {
		row_start(out, when, m, c);
		fputs(",,,,,,,,,", out);	/* engine .. diverged */
		row_end(out, m, c, NULL);
		return;
	}
	for (i = 0; i < c->nr_engines; i++) {
		row_start(out, when, m, c);
		engine_fields(out, &c->engines[i]);
		row_end(out, m, c, &c->engines[i]);
	}
}

/* RFC 3339 in UTC with milliseconds: sorts as text, and every tool parses it. */
static void format_time(char *buf, size_t len, uint64_t realtime_ns)
{
	time_t t = (time_t)(realtime_ns / 1000000000ull);
	struct tm tm;
	char date[24];

	if (!gmtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "%llu", (unsigned long long)realtime_ns);
		return;
	}
	snprintf(buf, len, "%s.%03lluZ", date,
		 (unsigned long long)(realtime_ns % 1000000000ull / 1000000ull));
}

int drmtop_csv_frame(FILE *out, const struct drmtop_model *m)
{
	char when[48];
	size_t i;

	/* The stream's frames are numbered from 1: the first carries the header. */
	if (m->iteration <= 1) {
		for (i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]); i++)
			fprintf(out, "%s%s", i ? "," : "", csv_columns[i]);
		fputc('\n', out);
	}
	format_time(when, sizeof(when), m->realtime_ns);
	for (i = 0; i < m->nr_clients; i++)
		client_rows(out, when, m, &m->clients[i]);
	return fflush(out) || ferror(out) ? -1 : 0;
}
