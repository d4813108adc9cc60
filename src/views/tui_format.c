// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drmtop/util/vec.h"
#include "tui_format.h"

const char *tui_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1000.0 && u + 1 < sizeof(units) - 1) {
		v /= 1024.0;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	else if (v < 9.95)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
	return buf;
}

const char *tui_fmt_bucket(char *buf, size_t len, unsigned int b)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	unsigned int lo_u = b / 10 < 3 ? b / 10 : 3, hi_u = (b + 1) / 10 < 3 ? (b + 1) / 10 : 3;
	unsigned long long lo = (1ull << b) >> (10 * lo_u), hi = (2ull << b) >> (10 * hi_u);

	/* The tracer counts every longer wait in the last bucket: it has no upper bound. */
	if (b + 1 >= DRMTOP_MODEL_LAT_BUCKETS) {
		snprintf(buf, len, ">=%llu%s", lo, unit[lo_u]);
		return buf;
	}
	/* Powers of two in 1024 steps: 2^10 ns is shown as 1us (2.4 % short). */
	if (lo_u == hi_u)
		snprintf(buf, len, "%llu-%llu%s", lo, hi, unit[hi_u]);
	else
		snprintf(buf, len, "%llu%s-%llu%s", lo, unit[lo_u], hi, unit[hi_u]);
	return buf;
}

const char *tui_sanitize(char *buf, size_t len, const char *s)
{
	size_t i;

	if (!len)
		return buf;
	for (i = 0; s && s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/* Where a line of at most @avail cells starting at @s should end; @s is longer than that. */
static size_t break_at(const char *s, size_t avail)
{
	size_t i, space = 0;

	for (i = avail; i > 0; i--) {
		/* after "; " (the semicolon kept on this line) when that fills half of it */
		if (s[i] == ' ' && s[i - 1] == ';' && i >= avail / 2)
			return i;
		if (s[i] == ' ' && !space)
			space = i;
	}
	return space ? space : avail;
}

size_t tui_wrap(const char *s, int width, struct tui_span *lines, size_t max, bool *cut)
{
	size_t n = 0, pos = 0, total = strlen(s);

	*cut = false;
	while (pos < total && n < max) {
		int w = width - (n ? TUI_WRAP_INDENT : 0);
		size_t avail = w > 0 ? (size_t)w : 1, len = total - pos;

		if (len > avail && n + 1 == max) {
			/* the last line allowed, and more to come: room for "..." */
			avail = avail > 3 ? avail - 3 : 1;
			*cut = true;
		}
		if (len > avail)
			len = break_at(s + pos, avail);
		lines[n].off = pos;
		lines[n++].len = len;
		pos += len;
		while (s[pos] == ' ')
			pos++;
	}
	return n;
}

bool tui_loss_text(char *buf, size_t len, const struct drmtop_model *m, bool *now)
{
	const struct drmtop_model_missed *x = &m->missed;
	size_t i, shown = 0, off;

	buf[0] = '\0';
	*now = x->interval != 0;
	if (!m->bpf_active || !x->since_start)
		return false;
	off = (size_t)snprintf(buf, len, "bpf missed %llu events since start, %llu in the last interval",
			       (unsigned long long)x->since_start,
			       (unsigned long long)x->interval);
	for (i = 0; i < m->nr_counters && off < len; i++)
		if (m->counters[i].kind == DRMTOP_COUNTER_LOSS && m->counters[i].value)
			off += (size_t)snprintf(buf + off, len - off, "; %s %llu (%llu)",
						m->counters[i].name,
						(unsigned long long)m->counters[i].value,
						(unsigned long long)m->counters[i].delta);
	if (x->skipped_runs && off < len)
		off += (size_t)snprintf(buf + off, len - off, "; skipped program runs %llu (%llu)",
					(unsigned long long)x->skipped_runs,
					(unsigned long long)x->skipped_runs_interval);
	if (x->skipped_runs_covered && off < len)
		off += (size_t)snprintf(buf + off, len - off, ", %llu of them made up for",
					(unsigned long long)x->skipped_runs_covered);
	for (i = 0; i < m->nr_clients; i++)
		shown += m->clients[i].lower_bound || m->clients[i].inconclusive;
	if (off < len)
		snprintf(buf + off, len - off, "; %zu client%s figures may be short (SRC ?, +)",
			 shown, shown == 1 ? "'s" : "s'");
	return true;
}

static bool contains(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle);
}

bool tui_filter_match(const struct drmtop_model_client *c, const char *filter)
{
	char pid[16];
	size_t i;

	if (!filter || !filter[0])
		return true;
	if (!filter[strspn(filter, "0123456789")]) {
		for (i = 0; i < c->nr_holders; i++) {
			snprintf(pid, sizeof(pid), "%d", (int)c->holders[i].pid);
			if (!strncmp(pid, filter, strlen(filter)))
				return true;
		}
		snprintf(pid, sizeof(pid), "%d", (int)c->pid);
		if (!strncmp(pid, filter, strlen(filter)))
			return true;
		return contains(c->comm, filter);
	}
	return contains(c->comm, filter) || contains(c->driver, filter) ||
	       contains(c->node, filter) || contains(c->dev_key, filter) ||
	       contains(c->cgroup.workload, filter) || contains(c->cgroup.path, filter);
}

const char *tui_workload_label(const struct drmtop_model_client *c, char *buf, size_t len)
{
	const struct drmtop_model_cgroup *g = &c->cgroup;

	/* A pod's UID in full would fill the column: its first 8 digits, as kubectl users cut it */
	if (g->pod)
		snprintf(buf, len, "pod:%.8s%s%.12s", g->pod, g->container ? "/" : "",
			 g->container ? g->container : "");
	else
		snprintf(buf, len, "%s", g->workload ? g->workload : "-");
	return buf;
}

bool tui_client_peak(const struct drmtop_model_client *c, double *pct)
{
	bool any = false;
	double v;
	size_t i;

	*pct = 0;
	for (i = 0; i < c->nr_engines; i++) {
		if (!drmtop_model_engine_pct(&c->engines[i], &v))
			continue;
		if (!any || v > *pct)
			*pct = v;
		any = true;
	}
	return any;
}

int tui_cols_fit(struct tui_col *cols, size_t n, int width)
{
	int used = 0, prio = -1, next;
	size_t i, flex = n;

	for (i = 0; i < n; i++)
		cols[i].shown = false;
	/* Priorities in increasing order; a column that does not fit leaves room for others. */
	for (;;) {
		next = -1;
		for (i = 0; i < n; i++)
			if (cols[i].prio > prio && (next < 0 || cols[i].prio < next))
				next = cols[i].prio;
		if (next < 0)
			break;
		for (i = 0; i < n; i++) {
			int w = cols[i].width + (used ? 1 : 0);

			if (cols[i].prio != next || used + w > width)
				continue;
			cols[i].shown = true;
			used += w;
			if (cols[i].flex && flex == n)
				flex = i;
		}
		prio = next;
	}
	if (flex < n && used < width) {
		cols[flex].width += width - used;
		used = width;
	}
	return used;
}

/* "<prefix><key>" in @buf when it fits, else in memory the caller frees (*@own). */
static char *series_key(char *buf, size_t len, const char *prefix, const char *key, char **own)
{
	size_t need = strlen(prefix) + strlen(key) + 1;

	*own = NULL;
	if (need > len) {
		buf = *own = malloc(need);
		if (!buf)
			return NULL;
		len = need;
	}
	snprintf(buf, len, "%s%s", prefix, key);
	return buf;
}

static struct tui_series *series(struct tui_history *h, const char *prefix, const char *key)
{
	char buf[256], *own, *k = series_key(buf, sizeof(buf), prefix, key, &own);
	struct tui_series *s, **slot;

	if (!k)
		return NULL;
	s = strmap_get(&h->at, k);
	if (s) {
		free(own);
		return s;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(own);
		return NULL;
	}
	s->key = own ? own : strdup(k);
	slot = s->key ? vec_push(h->s, h->n, h->cap) : NULL;
	if (!slot || strmap_put(&h->at, s->key, s)) {
		if (slot)
			h->n--;
		free(s->key);
		free(s);
		return NULL;
	}
	*slot = s;
	return s;
}

static int push(struct tui_history *h, const char *prefix, const char *key, bool have,
		double pct)
{
	struct tui_series *s = series(h, prefix, key);
	size_t cap;
	void *v;

	if (!s)
		return -1;
	/* held samples are in order from slot 0 until the ring is as long as it gets */
	if (s->n == s->cap && s->cap < TUI_HIST_LEN) {
		cap = s->cap ? s->cap * 2 : 16;
		cap = cap < TUI_HIST_LEN ? cap : TUI_HIST_LEN;
		v = realloc(s->v, cap);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
		s->head = s->n;
	}
	pct = pct < 0 ? 0 : pct > 127 ? 127 : pct;
	s->v[s->head] = have && !isnan(pct) ? (unsigned char)lround(pct * 2) : TUI_SAMPLE_NONE;
	s->head = (s->head + 1) % s->cap;
	if (s->n < s->cap)
		s->n++;
	s->seen = h->frame;
	return 0;
}

int tui_history_add(struct tui_history *h, const struct drmtop_model *m)
{
	size_t i, j, kept = 0;
	double pct;
	int err = 0;

	h->frame++;
	h->t_ns[h->frame % TUI_HIST_LEN] = m->mono_ns;
	for (i = 0; i < m->nr_clients; i++) {
		const struct drmtop_model_client *c = &m->clients[i];
		bool have = tui_client_peak(c, &pct);

		err |= push(h, "c:", c->key, have, pct);
	}
	for (i = 0; i < m->nr_devices; i++) {
		const struct drmtop_model_device *d = &m->devices[i];
		bool have = false;

		pct = 0;
		for (j = 0; j < d->nr_engines; j++) {
			if (d->engines[j].valid && (!have || d->engines[j].pct > pct))
				pct = d->engines[j].pct;
			have |= d->engines[j].valid;
		}
		err |= push(h, "d:", d->key, have, pct);
	}
	/* What this frame no longer has (closed clients, removed devices) goes. */
	for (i = 0; i < h->n; i++) {
		if (h->s[i]->seen == h->frame) {
			h->s[kept++] = h->s[i];
			continue;
		}
		strmap_del(&h->at, h->s[i]->key);
		free(h->s[i]->key);
		free(h->s[i]->v);
		free(h->s[i]);
	}
	h->n = kept;
	return err ? -1 : 0;
}

const struct tui_series *tui_history_get(const struct tui_history *h, const char *prefix,
					 const char *key)
{
	char buf[256], *own, *k;
	const struct tui_series *s;

	if (!key)
		return NULL;
	k = series_key(buf, sizeof(buf), prefix, key, &own);
	s = k ? strmap_get(&h->at, k) : NULL;
	free(own);
	return s;
}

double tui_series_at(const struct tui_series *s, size_t i)
{
	unsigned char v;

	if (!s || i >= s->n)
		return NAN;
	v = s->v[(s->head + s->cap - 1 - i) % s->cap];
	return v == TUI_SAMPLE_NONE ? NAN : v / 2.0;
}

uint64_t tui_history_time(const struct tui_history *h, size_t i)
{
	return i < TUI_HIST_LEN && i < h->frame ? h->t_ns[(h->frame - i) % TUI_HIST_LEN] : 0;
}

void tui_history_free(struct tui_history *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->s[i]->key);
		free(h->s[i]->v);
		free(h->s[i]);
	}
	free(h->s);
	strmap_fini(&h->at);
	memset(h, 0, sizeof(*h));
}

unsigned int tui_level(double pct, unsigned int rows, unsigned int row)
{
	double eighths;

	if (isnan(pct) || pct <= 0 || !rows)
		return 0;
	if (pct > 100)
		pct = 100;
	eighths = pct / 100.0 * rows * 8 - row * 8.0;
	if (eighths <= 0)
		return 0;
	if (eighths >= 8)
		return 8;
	/* A figure above zero always shows: at least one eighth in the bottom row. */
	return eighths < 1 && row == 0 ? 1 : (unsigned int)lround(eighths);
}
