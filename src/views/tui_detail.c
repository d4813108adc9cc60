// SPDX-License-Identifier: GPL-2.0-only
/*
 * The detail view of one client (Enter): who holds it, every engine from both sources side by
 * side, jobs, the queue-to-run latency histogram as bars, memory per region and the tracer's
 * memory. Longer than the screen, it scrolls (arrows, PgUp/PgDn).
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui.h"

struct page {
	struct tui *t;
	int line;		/* lines laid out so far */
	int top;		/* first line shown */
	int y0, bottom;		/* screen rows for the page */
};

/* The screen row of the next line, or -1 when it is scrolled out of view. */
static int row(struct page *p)
{
	int y = p->y0 + p->line - p->top;

	p->line++;
	return p->line - 1 >= p->top && y < p->bottom ? y : -1;
}

static void text(struct page *p, enum tui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void text(struct page *p, enum tui_role role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int y = row(p);

	if (y < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attrset(tui_attr(p->t, role));
	tui_put(y, 0, buf, COLS);
	attrset(A_NORMAL);
}

static void u64_or_dash(char *buf, size_t len, bool have, uint64_t v)
{
	if (have)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "-");
}

static void pct_or_dash(char *buf, size_t len, bool have, double v)
{
	if (have)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "-");
}

static void identity(struct page *p, const struct drmtop_model_client *c)
{
	char comm[64], cmd[512], id[24];
	size_t i, off = 0;

	u64_or_dash(id, sizeof(id), c->has_client_id, c->client_id);
	text(p, TUI_ROLE_DEVICE, "pid %d  user %s  command %s", (int)c->pid, tui_user(p->t, c),
	     tui_sanitize(comm, sizeof(comm), c->comm ? c->comm : "?"));
	if (c->cmdline)
		text(p, TUI_ROLE_NORMAL, "cmdline %s", tui_sanitize(cmd, sizeof(cmd), c->cmdline));
	if (c->cgroup.path)
		text(p, TUI_ROLE_NORMAL, "workload %s  cgroup %s",
		     tui_sanitize(comm, sizeof(comm), c->cgroup.workload),
		     tui_sanitize(cmd, sizeof(cmd), c->cgroup.path));
	text(p, TUI_ROLE_NORMAL, "device %s  driver %s  node %s%s%s", c->dev_key ? c->dev_key : "-",
	     c->driver ? c->driver : "-", c->node ? c->node : "-", c->pdev ? "  pdev " : "",
	     c->pdev ? c->pdev : "");
	text(p, TUI_ROLE_NORMAL, "client id %s%s%s  fdinfo format %s  %s", id,
	     c->client_name ? "  name " : "", c->client_name ? c->client_name : "",
	     c->fdinfo_format ? c->fdinfo_format : "-",
	     c->is_new ? "new: rates from the next refresh" : "");
	if (c->in_fdinfo)
		text(p, TUI_ROLE_NORMAL, "interval %.3f s (between this client's two fdinfo reads)",
		     (double)c->dt_ns / 1e9);
	cmd[0] = '\0';
	for (i = 0; i < c->nr_holders && off < sizeof(cmd); i++)
		off += (size_t)snprintf(cmd + off, sizeof(cmd) - off, "%s%d/%d", i ? " " : "",
					(int)c->holders[i].pid, c->holders[i].fd);
	text(p, TUI_ROLE_NORMAL, "holders (pid/fd): %s", c->nr_holders ? cmd : "-");
	if (c->bpf)
		text(p, TUI_ROLE_NORMAL, "bpf: drm_file %llu  tgid %u  %s%s%s",
		     (unsigned long long)c->bpf->uid, c->bpf->tgid,
		     c->bpf->match == DRMTOP_MODEL_MATCH_CLIENT_ID ? "matched by client id" :
		     c->bpf->match == DRMTOP_MODEL_MATCH_FD ? "matched by (pid, fd)" :
							      "seen by the tracer alone",
		     c->bpf->kernel ? "  driver's own jobs" : "",
		     c->bpf->opened_before_trace ? "  opened before the tracer" : "");
	else if (p->t->m->bpf_active)
		text(p, TUI_ROLE_NOTE, "bpf: no matching drm_file");
}

static void engines(struct page *p, const struct drmtop_model_client *c)
{
	char fpct[16], fbusy[24], cap[24], cyc[24], bpct[16], bbusy[24], jobs[24], jd[24];
	bool cycles = false;
	size_t i;

	/* Cycles only for the drivers that print them: the table then still fits 80 columns. */
	for (i = 0; i < c->nr_engines; i++)
		cycles |= c->engines[i].in_fdinfo && (c->engines[i].fd.flags & DRMTOP_FD_CYCLES);
	text(p, TUI_ROLE_NORMAL, "%s", "");
	text(p, TUI_ROLE_HEADER, "%-10s %7s %14s %3s%s%.*s %6s %14s %7s %6s", "ENGINE", "FDINFO%",
	     "FDINFO BUSY NS", "CAP", cycles ? " " : "", cycles ? 12 : 0, "      CYCLES", "BPF%",
	     "BPF BUSY NS", "JOBS", "JOBS/I");
	if (!c->nr_engines)
		text(p, TUI_ROLE_NOTE, "no engine figures");
	for (i = 0; i < c->nr_engines; i++) {
		const struct drmtop_model_engine *e = &c->engines[i];
		const struct drmtop_fd_engine *f = &e->fd;
		bool fd = e->in_fdinfo, bpf = e->in_bpf;

		pct_or_dash(fpct, sizeof(fpct), fd && (f->flags & DRMTOP_FD_RATE), f->pct);
		u64_or_dash(fbusy, sizeof(fbusy), fd && (f->flags & DRMTOP_FD_BUSY), f->busy_ns);
		u64_or_dash(cap, sizeof(cap), fd, f->capacity);
		snprintf(cyc, sizeof(cyc), " %12s", "-");
		if (fd && (f->flags & DRMTOP_FD_CYCLES))
			snprintf(cyc, sizeof(cyc), " %12llu", (unsigned long long)f->cycles);
		pct_or_dash(bpct, sizeof(bpct), bpf && e->bpf.has_rate, e->bpf.pct);
		u64_or_dash(bbusy, sizeof(bbusy), bpf, e->bpf.busy_ns);
		u64_or_dash(jobs, sizeof(jobs), bpf, e->bpf.jobs);
		u64_or_dash(jd, sizeof(jd), bpf && e->bpf.has_rate, e->bpf.jobs_delta);
		text(p, e->diverged || (f->flags & DRMTOP_FD_OVER) ? TUI_ROLE_FLAG
								     : TUI_ROLE_NORMAL,
		     "%-10.10s %7s %14s %3s%s %6s %14s %7s %6s %s%s%s", e->name, fpct, fbusy, cap,
		     cycles ? cyc : "", bpct, bbusy, jobs, jd, e->diverged ? "DIVERGES " : "",
		     (f->flags & DRMTOP_FD_OVER) ? "over 100% " : "",
		     (f->flags & DRMTOP_FD_BACKWARDS) ? "went backwards" : "");
	}
}

static void memory(struct page *p, const struct drmtop_model_client *c)
{
	char v[5][16];
	size_t i, k;

	text(p, TUI_ROLE_NORMAL, "%s", "");
	text(p, TUI_ROLE_HEADER, "%-12s %10s %10s %10s %10s %10s", "REGION", "TOTAL", "SHARED",
	     "RESIDENT", "PURGEABLE", "ACTIVE");
	if (!c->nr_regions)
		text(p, TUI_ROLE_NOTE, "fdinfo prints no memory for this client");
	for (i = 0; i < c->nr_regions; i++) {
		const struct drmtop_model_region *r = &c->regions[i];
		const uint64_t val[] = {
			r->total, r->shared, r->resident, r->purgeable, r->active,
		};

		for (k = 0; k < 5; k++)
			if (r->present & (1u << k))
				tui_fmt_bytes(v[k], sizeof(v[k]), val[k]);
			else
				snprintf(v[k], sizeof(v[k]), "-");
		text(p, TUI_ROLE_NORMAL, "%-12.12s %10s %10s %10s %10s %10s", r->name, v[0], v[1], v[2],
		     v[3], v[4]);
	}
	if (c->bpf) {
		tui_fmt_bytes(v[0], sizeof(v[0]), c->bpf->mem_total);
		tui_fmt_bytes(v[1], sizeof(v[1]), c->bpf->mem_shared);
		tui_fmt_bytes(v[2], sizeof(v[2]), c->bpf->mem_imported);
		text(p, c->bpf->mem_diverged ? TUI_ROLE_FLAG : TUI_ROLE_NORMAL,
		     "%-12s %10s %10s  imported %s  %llu GEM handles%s", "bpf (GEM)", v[0], v[1], v[2],
		     (unsigned long long)c->bpf->handles,
		     c->bpf->mem_diverged ? "  DIVERGES from fdinfo" :
		     c->bpf->mem_inconclusive ? "  INCONCLUSIVE: memory events missed" : "");
	}
	if (c->has_gpu_mem) {
		tui_fmt_bytes(v[0], sizeof(v[0]), c->gpu_mem_bytes);
		text(p, TUI_ROLE_NORMAL, "%-12s %10s  the driver's gpu_mem_total for pid %d",
		     "gpu_mem", v[0], (int)c->pid);
	}
}

/* The queue-to-run latency of every engine's jobs since attach, one bar per bucket. */
static void latency(struct page *p, const struct drmtop_model_client *c)
{
	uint64_t hist[DRMTOP_MODEL_LAT_BUCKETS] = { 0 }, max = 0, total = 0;
	unsigned int b, first = DRMTOP_MODEL_LAT_BUCKETS, last = 0;
	char label[32];
	size_t i;
	int y, w, j, fill;

	text(p, TUI_ROLE_NORMAL, "%s", "");
	for (i = 0; i < c->nr_engines; i++)
		for (b = 0; c->engines[i].bpf.lat_hist && b < DRMTOP_MODEL_LAT_BUCKETS; b++)
			hist[b] += c->engines[i].bpf.lat_hist[b];
	for (b = 0; b < DRMTOP_MODEL_LAT_BUCKETS; b++) {
		if (!hist[b])
			continue;
		first = b < first ? b : first;
		last = b;
		max = hist[b] > max ? hist[b] : max;
		total += hist[b];
	}
	if (!c->bpf || !total) {
		text(p, TUI_ROLE_HEADER, "QUEUE-TO-RUN LATENCY");
		text(p, TUI_ROLE_NOTE, "%s", !p->t->m->bpf_active ? "needs the BPF tracer (root)"
					: "no job seen since the tracer attached");
		return;
	}
	text(p, TUI_ROLE_HEADER, "QUEUE-TO-RUN LATENCY (all engines, %llu jobs since attach)",
	     (unsigned long long)total);
	w = COLS - 34;
	for (b = first; b <= last; b++) {
		y = row(p);
		if (y < 0)
			continue;
		mvprintw(y, 0, "%18s %10llu ", tui_fmt_bucket(label, sizeof(label), b),
			 (unsigned long long)hist[b]);
		/* Whole cells, rounded up: a bucket with one job still shows. */
		fill = w > 0 ? (int)((hist[b] * (uint64_t)w + max - 1) / max) : 0;
		attron(tui_attr(p->t, TUI_ROLE_LOW));
		for (j = 0; j < fill; j++)
			mvaddstr(y, 30 + j, tui_block(p->t, 8));
		attroff(tui_attr(p->t, TUI_ROLE_LOW));
	}
}

static void history(struct page *p, const struct drmtop_model_client *c)
{
	const struct tui_series *s = tui_history_get(&p->t->hist, "c:", c->key);
	int y;

	text(p, TUI_ROLE_NORMAL, "%s", "");
	text(p, TUI_ROLE_HEADER, "HISTORY (busiest engine, newest right, one refresh per cell)");
	y = row(p);
	if (y >= 0)
		tui_sparkline(p->t, y, 0, COLS, s);
}

void tui_draw_detail(struct tui *t)
{
	const struct drmtop_model_client *c = tui_selected(t);
	struct page p = { .t = t, .top = t->detail_top, .y0 = 1, .bottom = LINES - 1 };
	char key[300];

	attrset(tui_attr(t, TUI_ROLE_TITLE));
	snprintf(key, sizeof(key), "client %s", t->sel_key);
	tui_put(0, 0, key, COLS);
	attrset(A_NORMAL);
	if (!c) {
		text(&p, TUI_ROLE_NOTE, "this client has closed (Esc: back to the table)");
		t->detail_lines = p.line;
		return;
	}
	identity(&p, c);
	engines(&p, c);
	memory(&p, c);
	latency(&p, c);
	history(&p, c);
	t->detail_lines = p.line;
}
