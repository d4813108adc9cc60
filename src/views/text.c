// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text views: one section per device with its totals, then its clients, one column per
 * engine the device's clients print, then per engine only the tracer times (a driver that prints
 * no engine time: lima, nouveau, ...). Batch mode prints these lines; the TUI draws the same
 * lines.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drmtop/util/printable.h"
#include "drmtop/util/strbuf.h"
#include "drmtop/views.h"

#define ENGINE_COL_WIDTH	9
#define MAX_ENGINE_COLS		16

struct sink {
	drmtop_line_fn emit;
	void *ctx;
	struct strbuf sb;
};

/*
 * Lines carry process names, command names and what drivers print, all arbitrary bytes: each
 * goes out terminal-safe (util/printable.h), for batch output and the TUI alike.
 */
static void flush(struct sink *s, enum drmtop_line_kind kind)
{
	char safe[DRMTOP_PRINTABLE_SIZE(STRBUF_LEN)];

	s->emit(s->ctx, kind, drmtop_printable(safe, sizeof(safe), s->sb.s));
	sb_reset(&s->sb);
}

/* "  52.1%", "  104.0%!" when over, "      -" without the engine, "    ..." without a figure yet. */
static void engine_cell(struct strbuf *sb, const struct drmtop_model_client *c, const char *name)
{
	const struct drmtop_model_engine *e = drmtop_model_engine(c, name);
	double pct;

	if (!e || (!e->in_fdinfo && !e->in_bpf))
		sb_printf(sb, " %*s ", ENGINE_COL_WIDTH - 1, "-");
	else if (drmtop_model_engine_pct(e, &pct))
		sb_printf(sb, " %*.1f%%%s", ENGINE_COL_WIDTH - 2, pct,
			  e->in_fdinfo && (e->fd.flags & DRMTOP_FD_OVER) ? "!" : " ");
	else
		sb_printf(sb, " %*s ", ENGINE_COL_WIDTH - 1, "...");
}

/* A device's engine columns (the model's), as many as a line holds. */
static size_t nr_cols(const struct drmtop_model_device *d)
{
	return d->nr_columns < MAX_ENGINE_COLS ? d->nr_columns : MAX_ENGINE_COLS;
}

/* " name pct% N jobs" for each engine the tracer has figures of, then its memory. */
static void bpf_figures(struct strbuf *sb, const struct drmtop_model_client *c)
{
	char tot[32], shr[32];
	size_t i, shown = 0;

	for (i = 0; i < c->nr_engines; i++) {
		const struct drmtop_model_engine *e = &c->engines[i];

		/* An engine the client never ran a job on says nothing (JSON keeps it). */
		if (!e->in_bpf ||
		    (!e->bpf.jobs && !e->bpf.busy_ns && !e->bpf.busy_delta_ns && !e->diverged))
			continue;
		shown++;
		if (e->bpf.has_rate)
			sb_printf(sb, " %s %.1f%%%s %llu jobs%s", e->name, e->bpf.pct,
				  e->occupancy ? " occupancy" : "",
				  (unsigned long long)e->bpf.jobs_delta,
				  e->diverged ? " [DIVERGES]" : "");
		else
			sb_printf(sb, " %s ... %llu jobs", e->name, (unsigned long long)e->bpf.jobs);
		if (e->unmapped)
			sb_printf(sb, " (unmapped ring)");
		if (e->diverged)
			sb_printf(sb, " (fdinfo %.1f%%)", e->fd.pct);
		else if (e->inconclusive)
			sb_printf(sb, " [INCONCLUSIVE: fdinfo %.1f%%, the tracer missed events]",
				  e->fd.pct);
	}
	if (!shown)
		sb_printf(sb, " no jobs");
	sb_printf(sb, " | mem %s shared %s%s",
		  drmtop_fmt_bytes(tot, sizeof(tot), c->bpf->mem_total),
		  drmtop_fmt_bytes(shr, sizeof(shr), c->bpf->mem_shared),
		  c->bpf->mem_diverged ? " [DIVERGES from fdinfo]" :
		  c->bpf->mem_inconclusive ? " [INCONCLUSIVE: the tracer missed memory events]" : "");
	if (c->has_gpu_mem)
		sb_printf(sb, " gpu_mem_total %s",
			  drmtop_fmt_bytes(tot, sizeof(tot), c->gpu_mem_bytes));
	if (c->lower_bound)
		sb_printf(sb, " [lower bound: the tracer missed events]");
}

static void device_header(struct sink *s, const struct drmtop_model_device *d)
{
	char tot[32];
	size_t i;

	sb_printf(&s->sb, "%s %s%s%s  %zu client%s", d->driver ? d->driver : "(no driver name)",
		  d->node ? d->node : "?", d->pdev ? "  " : "", d->pdev ? d->pdev : "",
		  d->nr_clients, d->nr_clients == 1 ? "" : "s");
	for (i = 0; i < d->nr_engines; i++) {
		const struct drmtop_model_device_engine *e = &d->engines[i];

		if (e->valid)
			sb_printf(&s->sb, "  %s %.1f%%%s", e->name, e->pct, e->over ? "!" : "");
		else
			sb_printf(&s->sb, "  %s ...", e->name);
	}
	/* no client printed a memory key (lima, nouveau, ...): not 0 B; the tracer's line has it */
	sb_printf(&s->sb, "  mem %s",
		  d->nr_regions ? drmtop_fmt_bytes(tot, sizeof(tot), d->mem_total) : "-");
	flush(s, DRMTOP_LINE_DEVICE);

	sb_printf(&s->sb, "%8s %-16s %10s", "PID", "COMMAND", "CLIENT");
	for (i = 0; i < nr_cols(d); i++)
		sb_printf(&s->sb, " %*.*s", ENGINE_COL_WIDTH, ENGINE_COL_WIDTH - 1, d->columns[i]);
	sb_printf(&s->sb, " %10s %10s %10s  HOLDERS", "TOTAL", "RESIDENT", "SHARED");
	flush(s, DRMTOP_LINE_HEADER);
}

/* A memory figure, or "-" when the driver printed none (absent is not zero). */
static const char *mem_cell(char *buf, size_t len, bool has, uint64_t bytes)
{
	return has ? drmtop_fmt_bytes(buf, len, bytes) : "-";
}

static void client_row(struct sink *s, const struct drmtop_model_device *d,
		       const struct drmtop_model_client *c)
{
	char id[24] = "-", tot[32], res[32], shr[32];
	size_t j;

	if (c->has_client_id)
		snprintf(id, sizeof(id), "%llu", (unsigned long long)c->client_id);
	sb_printf(&s->sb, "%8d %-16.16s %10s", (int)c->pid, c->comm && c->comm[0] ? c->comm : "?",
		  id);
	for (j = 0; j < nr_cols(d); j++)
		engine_cell(&s->sb, c, d->columns[j]);
	sb_printf(&s->sb, " %10s %10s %10s  ", mem_cell(tot, sizeof(tot), c->has_mem, c->mem_total),
		  mem_cell(res, sizeof(res), c->has_resident, c->mem_resident),
		  mem_cell(shr, sizeof(shr), c->has_shared, c->mem_shared));
	for (j = 0; j < c->nr_holders; j++)
		sb_printf(&s->sb, "%s%d/%d", j ? "," : "", (int)c->holders[j].pid,
			  c->holders[j].fd);
	if (c->unsupported_format)
		sb_printf(&s->sb, "  [unsupported pre-5.19 format]");
	flush(s, c->over ? DRMTOP_LINE_FLAG : DRMTOP_LINE_CLIENT);
}

struct sort_arg {
	enum drmtop_sort sort;
	bool reverse;
};

static int cmp_clients(const void *a, const void *b, void *arg)
{
	const struct sort_arg *sa = arg;

	return drmtop_model_cmp(*(const struct drmtop_model_client *const *)a,
				*(const struct drmtop_model_client *const *)b, sa->sort,
				sa->reverse);
}

static void render_device(struct sink *s, const struct drmtop_model *m,
			  const struct drmtop_model_device *d, struct sort_arg *sa)
{
	const struct drmtop_model_client **list;
	size_t i, n = 0;

	device_header(s, d);
	list = calloc(m->nr_fdinfo_clients ? m->nr_fdinfo_clients : 1, sizeof(*list));
	if (!list)
		return;
	for (i = 0; i < m->nr_fdinfo_clients; i++)
		if (m->clients[i].device == d)
			list[n++] = &m->clients[i];
	qsort_r(list, n, sizeof(*list), cmp_clients, sa);
	for (i = 0; i < n; i++) {
		const struct drmtop_model_client *c = list[i];

		client_row(s, d, c);
		if (!m->bpf_active)
			continue;
		sb_printf(&s->sb, "%36s bpf:", "");
		if (!c->bpf) {
			sb_printf(&s->sb, " no matching drm_file");
			flush(s, DRMTOP_LINE_NOTE);
			continue;
		}
		bpf_figures(&s->sb, c);
		flush(s, c->diverged ? DRMTOP_LINE_FLAG : DRMTOP_LINE_NOTE);
	}
	free(list);
}

/* A client that closed since the previous refresh, with what it did and held at close. */
static void render_closed(struct sink *s, const struct drmtop_model_closed *c)
{
	char mem[32];
	size_t j;

	if (!c->from_bpf) {
		sb_printf(&s->sb, "closed: pid %d %s client %s", (int)c->pid,
			  c->comm && c->comm[0] ? c->comm : "?", c->key);
		flush(s, DRMTOP_LINE_NOTE);
		return;
	}
	sb_printf(&s->sb, "closed (bpf%s): %d %.16s client %llu held %s:",
		  c->orphan ? ", close record lost" : "", (int)c->pid, c->comm,
		  (unsigned long long)c->client_id,
		  drmtop_fmt_bytes(mem, sizeof(mem), c->bpf.mem_total));
	for (j = 0; j < c->nr_engines; j++)
		sb_printf(&s->sb, " %s %.3f s %llu jobs", c->engines[j].name,
			  (double)c->engines[j].busy_ns / 1e9,
			  (unsigned long long)c->engines[j].jobs);
	flush(s, DRMTOP_LINE_NOTE);
}

static void render_idle_closed(struct sink *s, const struct drmtop_model_idle_closed *c)
{
	sb_printf(&s->sb, "closed (bpf), no job and nothing held: %d %.16s %llu client%s",
		  (int)c->pid, c->comm, (unsigned long long)c->clients, c->clients == 1 ? "" : "s");
	flush(s, DRMTOP_LINE_NOTE);
}

/*
 * What the tracer missed, always shown (zero as zero: a quiet tracer and a blind one must not
 * look alike), then which kinds, since start (and in the last interval).
 */
static void render_missed(struct sink *s, const struct drmtop_model *m)
{
	const struct drmtop_model_missed *x = &m->missed;
	size_t i;

	sb_printf(&s->sb, "bpf missed: %llu events since start, %llu in the last interval",
		  (unsigned long long)x->since_start, (unsigned long long)x->interval);
	for (i = 0; i < m->nr_counters; i++)
		if (m->counters[i].kind == DRMTOP_COUNTER_LOSS && m->counters[i].value)
			sb_printf(&s->sb, "; %s %llu (%llu)", m->counters[i].name,
				  (unsigned long long)m->counters[i].value,
				  (unsigned long long)m->counters[i].delta);
	if (x->skipped_runs)
		sb_printf(&s->sb, "; skipped program runs %llu (%llu)",
			  (unsigned long long)x->skipped_runs,
			  (unsigned long long)x->skipped_runs_interval);
	if (x->skipped_runs_covered)
		sb_printf(&s->sb, ", %llu of them made up for or costing nothing",
			  (unsigned long long)x->skipped_runs_covered);
	flush(s, x->interval ? DRMTOP_LINE_FLAG : DRMTOP_LINE_NOTE);
	for (i = 0; i < m->nr_progs; i++)
		if (m->progs[i].recursion_misses) {
			sb_printf(&s->sb, "  skipped runs of %s: %llu (%llu)", m->progs[i].name,
				  (unsigned long long)m->progs[i].recursion_misses,
				  (unsigned long long)m->progs[i].misses_delta);
			flush(s, DRMTOP_LINE_NOTE);
		}
}

static void render_notes(struct sink *s, const struct drmtop_model *m)
{
	size_t i, off;

	sb_printf(&s->sb, "bpf noted:");
	off = s->sb.len;
	for (i = 0; i < m->nr_counters; i++)
		if (m->counters[i].kind == DRMTOP_COUNTER_NOTE && m->counters[i].value)
			sb_printf(&s->sb, " %s %llu", m->counters[i].name,
				  (unsigned long long)m->counters[i].value);
	if (s->sb.len == off)
		sb_printf(&s->sb, " nothing");
	flush(s, DRMTOP_LINE_NOTE);
}

/* What only the tracer sees: kernel clients, closed clients, and what it dropped. */
static void render_bpf_sections(struct sink *s, const struct drmtop_model *m)
{
	size_t i;

	for (i = m->nr_fdinfo_clients; i < m->nr_clients; i++) {
		const struct drmtop_model_client *c = &m->clients[i];

		if (i == m->nr_fdinfo_clients) {
			flush(s, DRMTOP_LINE_BLANK);
			sb_printf(&s->sb, "BPF only (driver jobs, clients fdinfo does not show)");
			flush(s, DRMTOP_LINE_DEVICE);
		}
		sb_printf(&s->sb, "%8d %-16.16s %-10.10s", (int)c->pid, c->comm, c->driver);
		bpf_figures(&s->sb, c);
		flush(s, DRMTOP_LINE_CLIENT);
	}
	for (i = 0; i < m->nr_closed; i++)
		if (m->closed[i].from_bpf && !m->closed[i].idle)
			render_closed(s, &m->closed[i]);
	for (i = 0; i < m->nr_idle_closed; i++)
		render_idle_closed(s, &m->idle_closed[i]);
	render_missed(s, m);
	render_notes(s, m);
}

static void render_scan_notes(struct sink *s, const struct drmtop_model *m)
{
	const struct drmtop_model_scan *st = &m->scan;
	size_t i;

	if (m->has_scan && (st->vanished || st->denied || st->errors || st->malformed_lines ||
			    st->unsupported_format || st->kcmp_failed)) {
		sb_printf(&s->sb,
			  "skipped: %u vanished, %u denied, %u errors; %u malformed fdinfo lines, "
			  "%u unsupported-format fds, %u fd comparisons failed",
			  st->vanished, st->denied, st->errors, st->malformed_lines,
			  st->unsupported_format, st->kcmp_failed);
		flush(s, DRMTOP_LINE_NOTE);
	}
	if (m->has_scan && st->cmdline_blocked) {
		sb_printf(&s->sb, "command lines not read: %u, their read blocked (a hung process?)",
			  st->cmdline_blocked);
		flush(s, DRMTOP_LINE_NOTE);
	}
	for (i = 0; i < m->nr_closed; i++)
		if (!m->closed[i].from_bpf)
			render_closed(s, &m->closed[i]);
}

void drmtop_render_lines(const struct drmtop_model *m, enum drmtop_sort sort, bool reverse,
			 drmtop_line_fn emit, void *ctx)
{
	struct sink s = { .emit = emit, .ctx = ctx };
	struct sort_arg sa = { .sort = sort, .reverse = reverse };
	time_t t = (time_t)(m->realtime_ns / 1000000000ull);
	char when[32] = "?";
	struct tm tm;
	size_t i;

	sb_reset(&s.sb);
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	sb_printf(&s.sb, "drmtop - %s  interval %.2f s  %zu client%s on %zu device%s  sort: %s%s",
		  when, (double)m->interval_ns / 1e9, m->nr_fdinfo_clients,
		  m->nr_fdinfo_clients == 1 ? "" : "s", m->nr_devices,
		  m->nr_devices == 1 ? "" : "s", drmtop_sort_name(sort), reverse ? " (reversed)" : "");
	flush(&s, DRMTOP_LINE_TITLE);
	if (m->bpf_active)
		sb_printf(&s.sb, "source: fdinfo + BPF (%s)", m->bpf_reason);
	else
		sb_printf(&s.sb, "source: fdinfo only (BPF off: %s)",
			  m->bpf_reason ? m->bpf_reason : "not requested");
	flush(&s, DRMTOP_LINE_NOTE);
	if (m->status != DRMTOP_STATUS_OK) {
		sb_printf(&s.sb, "%s", drmtop_status_message(m->status));
		flush(&s, DRMTOP_LINE_NOTE);
	}
	for (i = 0; i < m->nr_notes; i++) {
		sb_printf(&s.sb, "note: %s", m->notes[i]);
		flush(&s, DRMTOP_LINE_NOTE);
	}
	for (i = 0; i < m->nr_devices; i++) {
		flush(&s, DRMTOP_LINE_BLANK);
		render_device(&s, m, &m->devices[i], &sa);
	}
	if (m->bpf_active)
		render_bpf_sections(&s, m);
	render_scan_notes(&s, m);
}

static void print_line(void *ctx, enum drmtop_line_kind kind, const char *text)
{
	(void)kind;
	fprintf(ctx, "%s\n", text);
}

int drmtop_text_frame(FILE *out, const struct drmtop_model *m)
{
	drmtop_render_lines(m, DRMTOP_SORT_BUSY, false, print_line, out);
	fputc('\n', out);
	return fflush(out) || ferror(out) ? -1 : 0;
}
