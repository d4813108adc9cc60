// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text views: one section per device with its totals, then its clients, one column per
 * engine the device's clients print. Batch mode prints these lines; the TUI draws the same lines.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drmtop/output.h"

#define ENGINE_COL_WIDTH	9
#define LINE_MAX_LEN		4096

struct line_sink {
	drmtop_line_fn emit;
	void *ctx;
};

static void sink_printf(struct line_sink *s, enum drmtop_line_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void sink_printf(struct line_sink *s, enum drmtop_line_kind kind, const char *fmt, ...)
{
	char line[LINE_MAX_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->emit(s->ctx, kind, line);
}

const char *drmtop_fmt_bytes(char *buf, size_t len, unsigned long long bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

const char *drmtop_sort_name(enum drmtop_sort sort)
{
	switch (sort) {
	case DRMTOP_SORT_BUSY:
		return "busy";
	case DRMTOP_SORT_MEMORY:
		return "memory";
	case DRMTOP_SORT_PID:
		return "pid";
	case DRMTOP_SORT_COUNT:
		break;
	}
	return "?";
}

/* Summed memory of a client over its regions (total: see drm_fdinfo_total_bytes). */
static void client_memory(const struct drm_client *c, uint64_t *total, uint64_t *resident,
			  uint64_t *shared)
{
	size_t i;

	*total = drm_fdinfo_total_bytes(&c->info, NULL);
	*resident = *shared = 0;
	for (i = 0; i < c->info.nr_regions; i++) {
		const struct drm_fdinfo_region *r = &c->info.regions[i];

		if (r->present & DRM_REGION_HAS_RESIDENT)
			*resident += r->resident;
		if (r->present & DRM_REGION_HAS_SHARED)
			*shared += r->shared;
	}
}

static double client_busy_sum(const struct drm_client *c)
{
	double sum = 0, pct;
	bool over;
	size_t i;

	if (!c->usage)
		return 0;
	for (i = 0; i < c->info.nr_engines; i++)
		if (drm_engine_usage_pct(&c->usage[i], &pct, &over))
			sum += pct;
	return sum;
}

static int cmp_clients(const void *a, const void *b, void *arg)
{
	const struct drm_client *ca = *(const struct drm_client *const *)a;
	const struct drm_client *cb = *(const struct drm_client *const *)b;
	enum drmtop_sort sort = *(const enum drmtop_sort *)arg;
	uint64_t ta, tb, r, s;

	switch (sort) {
	case DRMTOP_SORT_BUSY: {
		double ba = client_busy_sum(ca), bb = client_busy_sum(cb);

		if (ba != bb)
			return ba < bb ? 1 : -1;
		break;
	}
	case DRMTOP_SORT_MEMORY:
		client_memory(ca, &ta, &r, &s);
		client_memory(cb, &tb, &r, &s);
		if (ta != tb)
			return ta < tb ? 1 : -1;
		break;
	default:
		break;
	}
	if (ca->pid != cb->pid)
		return ca->pid < cb->pid ? -1 : 1;
	return ca->fd < cb->fd ? -1 : ca->fd > cb->fd;
}

/* "  52.1%", "  104.0%!" when over, "      -" without the engine, "    ..." without a figure yet. */
static void fmt_engine_cell(char *buf, size_t len, const struct drm_client *c, const char *engine,
			    bool *over_any)
{
	double pct;
	bool over = false;
	size_t i;

	for (i = 0; i < c->info.nr_engines; i++) {
		if (strcmp(c->info.engines[i].name, engine))
			continue;
		if (c->usage && drm_engine_usage_pct(&c->usage[i], &pct, &over)) {
			snprintf(buf, len, "%*.1f%%%s", ENGINE_COL_WIDTH - 2, pct, over ? "!" : " ");
			*over_any |= over;
		} else {
			snprintf(buf, len, "%*s ", ENGINE_COL_WIDTH - 1, "...");
		}
		return;
	}
	snprintf(buf, len, "%*s ", ENGINE_COL_WIDTH - 1, "-");
}

/* Appends "name pct% N jobs" for each engine of a BPF view, and its memory. */
static size_t fmt_bpf_figures(char *line, size_t len, size_t off,
			      const struct drmtop_client_view *v)
{
	char tot[32], shr[32];
	size_t i, shown = 0;

	for (i = 0; i < v->nr_engines && off < len; i++) {
		const struct drmtop_engine_view *e = &v->engines[i];

		/* An engine the client never ran a job on says nothing (JSON keeps it). */
		if (!e->jobs && !e->busy_ns && !e->busy_delta_ns && !e->diverged)
			continue;
		shown++;
		if (e->has_rate)
			off += (size_t)snprintf(line + off, len - off, " %s %.1f%% %llu jobs%s",
						e->name, e->bpf_pct,
						(unsigned long long)e->jobs_delta,
						e->diverged ? " [DIVERGES]" : "");
		else
			off += (size_t)snprintf(line + off, len - off, " %s ... %llu jobs", e->name,
						(unsigned long long)e->jobs);
		if (e->diverged && off < len)
			off += (size_t)snprintf(line + off, len - off, " (fdinfo %.1f%%)",
						e->fdinfo_pct);
	}
	if (!shown && off < len)
		off += (size_t)snprintf(line + off, len - off, " no jobs");
	if (off < len)
		off += (size_t)snprintf(line + off, len - off, " | mem %s shared %s%s",
					drmtop_fmt_bytes(tot, sizeof(tot), v->c.mem_total),
					drmtop_fmt_bytes(shr, sizeof(shr), v->mem_shared),
					v->mem_diverged ? " [DIVERGES from fdinfo]" : "");
	return off;
}

/* The tracer's line under a client's fdinfo line. */
static void render_bpf_subline(struct line_sink *s, const struct drmtop_frame *f, size_t index)
{
	const struct drmtop_client_view *v = drmtop_reconciled_for(f->rec, index);
	char line[LINE_MAX_LEN];
	size_t off;

	if (!v) {
		sink_printf(s, DRMTOP_LINE_NOTE, "%36s bpf: no matching drm_file", "");
		return;
	}
	off = (size_t)snprintf(line, sizeof(line), "%36s bpf:", "");
	fmt_bpf_figures(line, sizeof(line), off, v);
	sink_printf(s, v->diverged ? DRMTOP_LINE_FLAG : DRMTOP_LINE_NOTE, "%s", line);
}

static void render_device(struct line_sink *s, const struct drmtop_frame *f,
			  const struct drm_device *d, enum drmtop_sort sort)
{
	char line[LINE_MAX_LEN], node[64], tot[32], res[32], shr[32];
	const struct drm_client **list;
	uint64_t mt = 0, mr = 0, ms = 0;
	size_t i, j, n = 0, off;
	bool over;

	for (i = 0; i < d->nr_regions; i++) {
		const struct drm_device_region *r = &d->regions[i];

		mt += (r->present & DRM_REGION_HAS_TOTAL) ? r->total : r->resident;
		mr += r->resident;
		ms += r->shared;
	}
	off = (size_t)snprintf(line, sizeof(line), "%s %s%s%s  %zu client%s",
			       d->driver ? d->driver : "(no driver name)",
			       drm_node_name(d->rdev, node, sizeof(node)) ?: "?",
			       d->pdev ? "  " : "", d->pdev ? d->pdev : "", d->nr_clients,
			       d->nr_clients == 1 ? "" : "s");
	for (i = 0; i < d->nr_engines && off < sizeof(line); i++) {
		const struct drm_device_engine *e = &d->engines[i];

		if (e->valid)
			off += (size_t)snprintf(line + off, sizeof(line) - off, "  %s %.1f%%%s",
						e->name, e->pct, e->over ? "!" : "");
		else
			off += (size_t)snprintf(line + off, sizeof(line) - off, "  %s ...",
						e->name);
	}
	if (off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, "  mem %s", drmtop_fmt_bytes(tot, 32, mt));
	sink_printf(s, DRMTOP_LINE_DEVICE, "%s", line);

	off = (size_t)snprintf(line, sizeof(line), "%8s %-16s %10s", "PID", "COMMAND", "CLIENT");
	for (i = 0; i < d->nr_engines && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %*.*s",
					ENGINE_COL_WIDTH, ENGINE_COL_WIDTH - 1, d->engines[i].name);
	if (off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, " %10s %10s %10s  HOLDERS", "TOTAL",
			 "RESIDENT", "SHARED");
	sink_printf(s, DRMTOP_LINE_HEADER, "%s", line);

	list = calloc(f->nr_clients ? f->nr_clients : 1, sizeof(*list));
	if (!list)
		return;
	for (i = 0; i < f->nr_clients; i++)
		if (!strcmp(f->clients[i].dev_key, d->key) && drmtop_frame_shows(f, &f->clients[i]))
			list[n++] = &f->clients[i];
	qsort_r(list, n, sizeof(*list), cmp_clients, &sort);

	for (i = 0; i < n; i++) {
		const struct drm_client *c = list[i];
		char id[24], cell[32];

		if (c->info.present & DRM_FDINFO_HAS_CLIENT_ID)
			snprintf(id, sizeof(id), "%llu", (unsigned long long)c->info.client_id);
		else
			snprintf(id, sizeof(id), "-");
		over = false;
		off = (size_t)snprintf(line, sizeof(line), "%8d %-16.16s %10s", (int)c->pid,
				       c->comm[0] ? c->comm : "?", id);
		for (j = 0; j < d->nr_engines && off < sizeof(line); j++) {
			fmt_engine_cell(cell, sizeof(cell), c, d->engines[j].name, &over);
			off += (size_t)snprintf(line + off, sizeof(line) - off, " %s", cell);
		}
		client_memory(c, &mt, &mr, &ms);
		if (off < sizeof(line))
			off += (size_t)snprintf(line + off, sizeof(line) - off,
						" %10s %10s %10s  ", drmtop_fmt_bytes(tot, 32, mt),
						drmtop_fmt_bytes(res, 32, mr),
						drmtop_fmt_bytes(shr, 32, ms));
		for (j = 0; j < c->nr_holders && off < sizeof(line); j++)
			off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%d/%d",
						j ? "," : "", (int)c->holders[j].pid,
						c->holders[j].fd);
		if (c->info.format == DRM_FDINFO_FMT_AMDGPU_LEGACY && off < sizeof(line))
			snprintf(line + off, sizeof(line) - off, "  [unsupported pre-5.19 format]");
		sink_printf(s, over ? DRMTOP_LINE_FLAG : DRMTOP_LINE_CLIENT, "%s", line);
		if (f->rec)
			render_bpf_subline(s, f, (size_t)(c - f->clients));
	}
	free(list);
}

/* A client that closed since the previous refresh, with what it did and held at close. */
static void render_closed(struct line_sink *s, const struct drmtop_bpf_client *bc)
{
	char line[LINE_MAX_LEN], mem[32];
	size_t j, off;

	off = (size_t)snprintf(line, sizeof(line), "closed (bpf): %u %.16s client %llu held %s:",
			       bc->c.tgid, bc->c.comm, (unsigned long long)bc->c.client_id,
			       drmtop_fmt_bytes(mem, sizeof(mem), bc->c.mem_total));
	for (j = 0; j < bc->n_engines && off < sizeof(line); j++) {
		const struct drmtop_bpf_engine *e = &bc->engines[j];

		off += (size_t)snprintf(line + off, sizeof(line) - off, " %s %.3f s %llu jobs",
					e->name, (double)e->busy_ns / 1e9,
					(unsigned long long)e->jobs);
	}
	sink_printf(s, DRMTOP_LINE_NOTE, "%s", line);
}

/*
 * Counters the tracer keeps: what it lost or could not match (@losses), or what it only
 * reports (clients opened before it attached, adopted handles). Totals are left to JSON.
 */
static void render_counters(struct line_sink *s, const struct drmtop_bpf_snapshot *snap,
			    bool losses)
{
	char line[LINE_MAX_LEN];
	size_t i, off = 0;

	line[0] = '\0';
	for (i = 0; i < DRMTOP_CNT_JOBS_QUEUED && off < sizeof(line); i++) {
		bool info = i == DRMTOP_CNT_CLIENT_LATE || i == DRMTOP_CNT_ADOPTED;

		if (snap->counters[i] && info != losses)
			off += (size_t)snprintf(line + off, sizeof(line) - off, " %s %llu",
						drmtop_bpf_counter_name(i),
						(unsigned long long)snap->counters[i]);
	}
	if (off)
		sink_printf(s, DRMTOP_LINE_NOTE, "bpf %s:%s",
			    losses ? "dropped or unmatched" : "noted", line);
}

/* What only the tracer sees: kernel clients, closed clients, and what it dropped. */
static void render_bpf_sections(struct line_sink *s, const struct drmtop_frame *f)
{
	const struct drmtop_client_view *views;
	char line[LINE_MAX_LEN];
	size_t i, n, off;
	bool header = false;

	views = drmtop_reconciled(f->rec, &n);
	for (i = 0; i < n; i++) {
		const struct drmtop_client_view *v = &views[i];

		if (v->match != DRMTOP_MATCH_NONE)
			continue;
		if (!header) {
			sink_printf(s, DRMTOP_LINE_BLANK, "%s", "");
			sink_printf(s, DRMTOP_LINE_DEVICE,
				    "BPF only (driver jobs, clients fdinfo does not show)");
			header = true;
		}
		off = (size_t)snprintf(line, sizeof(line), "%8u %-16.16s %-10.10s",
				       v->c.tgid, v->c.flags & DRMTOP_CLIENT_KERNEL ? "[kernel]" : v->c.comm,
				       v->c.driver);
		fmt_bpf_figures(line, sizeof(line), off, v);
		sink_printf(s, DRMTOP_LINE_CLIENT, "%s", line);
	}
	for (i = 0; f->bpf && i < f->bpf->n_closed; i++)
		render_closed(s, &f->bpf->closed[i]);
	if (!f->bpf)
		return;
	render_counters(s, f->bpf, true);
	render_counters(s, f->bpf, false);
}

static void render_scan_notes(struct line_sink *s, const struct drmtop_frame *f)
{
	const struct drm_scan_stats *st = f->stats;
	size_t i;

	if (!st)
		return;
	if (st->vanished || st->denied || st->errors || st->malformed_lines || st->unsupported ||
	    st->kcmp_failed)
		sink_printf(s, DRMTOP_LINE_NOTE,
			    "skipped: %u vanished, %u denied, %u errors; %u malformed fdinfo lines, "
			    "%u unsupported-format fds, %u fd comparisons failed",
			    st->vanished, st->denied, st->errors, st->malformed_lines,
			    st->unsupported, st->kcmp_failed);
	for (i = 0; i < f->nr_gone; i++) {
		const struct drm_client *c = &f->gone[i];

		if (drmtop_frame_shows(f, c))
			sink_printf(s, DRMTOP_LINE_NOTE, "closed: pid %d %s client %s", (int)c->pid,
				    c->comm[0] ? c->comm : "?", c->key);
	}
}

int drmtop_render_lines(const struct drmtop_frame *f, enum drmtop_sort sort, drmtop_line_fn emit,
			void *ctx)
{
	struct line_sink s = { .emit = emit, .ctx = ctx };
	char when[32] = "?";
	time_t t = (time_t)(f->realtime_ns / 1000000000ull);
	struct tm tm;
	size_t i;

	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	sink_printf(&s, DRMTOP_LINE_TITLE,
		    "drmtop - %s  interval %.2f s  %zu client%s on %zu device%s  sort: %s", when,
		    (double)f->interval_ns / 1e9, f->nr_clients, f->nr_clients == 1 ? "" : "s",
		    f->nr_devices, f->nr_devices == 1 ? "" : "s", drmtop_sort_name(sort));
	if (f->bpf_active)
		sink_printf(&s, DRMTOP_LINE_NOTE, "source: fdinfo + BPF (%s)", f->bpf_reason);
	else
		sink_printf(&s, DRMTOP_LINE_NOTE, "source: fdinfo only (BPF off: %s)",
			    f->bpf_reason ? f->bpf_reason : "not requested");
	if (f->status != DRMTOP_STATUS_OK)
		sink_printf(&s, DRMTOP_LINE_NOTE, "%s", drmtop_status_message(f->status));
	for (i = 0; i < f->nr_devices; i++) {
		sink_printf(&s, DRMTOP_LINE_BLANK, "%s", "");
		render_device(&s, f, &f->devices[i], sort);
	}
	if (f->rec)
		render_bpf_sections(&s, f);
	render_scan_notes(&s, f);
	return 0;
}

static void print_line(void *ctx, enum drmtop_line_kind kind, const char *text)
{
	(void)kind;
	fprintf(ctx, "%s\n", text);
}

int drmtop_text_frame(FILE *out, const struct drmtop_frame *f)
{
	drmtop_render_lines(f, DRMTOP_SORT_BUSY, print_line, out);
	fputc('\n', out);
	return fflush(out) || ferror(out) ? -1 : 0;
}
