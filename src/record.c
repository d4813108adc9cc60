// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drmtop/json_writer.h"
#include "drmtop/output.h"
#include "drmtop/record.h"

static struct record_client *find_client(struct record_session *rs, const char *key)
{
	size_t i;

	for (i = 0; i < rs->nr_clients; i++)
		if (!strcmp(rs->clients[i].key, key))
			return &rs->clients[i];
	return NULL;
}

static struct record_client *add_client(struct record_session *rs, const struct drm_client *c,
					bool at_start, uint64_t offset_ns)
{
	struct record_client *rc;

	if (rs->nr_clients == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 16;
		struct record_client *grown = realloc(rs->clients, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		rs->clients = grown;
		rs->cap = cap;
	}
	rc = &rs->clients[rs->nr_clients];
	memset(rc, 0, sizeof(*rc));
	rc->key = strdup(c->key);
	rc->dev_key = strdup(c->dev_key);
	rc->driver = c->info.driver ? strdup(c->info.driver) : NULL;
	if (!rc->key || !rc->dev_key || (c->info.driver && !rc->driver)) {
		free(rc->key);
		free(rc->dev_key);
		free(rc->driver);
		return NULL;
	}
	rc->pid = c->pid;
	memcpy(rc->comm, c->comm, sizeof(rc->comm));
	rc->has_client_id = c->info.present & DRM_FDINFO_HAS_CLIENT_ID;
	rc->client_id = c->info.client_id;
	rc->at_start = at_start;
	rc->first_seen_ns = offset_ns;
	rs->nr_clients++;
	return rc;
}

static int update_engine(struct record_client *rc, const struct drm_fdinfo_engine *e)
{
	struct record_engine *re = NULL, *grown;
	size_t i;

	if (!(e->present & DRM_ENGINE_HAS_BUSY))
		return 0;
	for (i = 0; i < rc->nr_engines; i++)
		if (!strcmp(rc->engines[i].name, e->name))
			re = &rc->engines[i];
	if (!re) {
		grown = realloc(rc->engines, (rc->nr_engines + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		rc->engines = grown;
		re = &rc->engines[rc->nr_engines];
		re->name = strdup(e->name);
		if (!re->name)
			return -ENOMEM;
		rc->nr_engines++;
		re->first_ns = re->last_ns = e->busy_ns;
		return 0;
	}
	/* The spec's rule: a reading that went backwards does not lower the counter. */
	if (e->busy_ns > re->last_ns)
		re->last_ns = e->busy_ns;
	return 0;
}

int record_session_add(struct record_session *rs, const struct drmtop_frame *f, uint64_t now_ns)
{
	uint64_t offset = now_ns - rs->start_ns;
	bool first = rs->samples == 0;
	size_t i, j;

	rs->samples++;
	rs->end_ns = now_ns;
	for (i = 0; i < f->nr_clients; i++) {
		const struct drm_client *c = &f->clients[i];
		struct record_client *rc;
		uint64_t total = 0;

		if (!drmtop_frame_shows(f, c))
			continue;
		rc = find_client(rs, c->key);
		if (!rc) {
			rc = add_client(rs, c, first, offset);
			if (!rc)
				return -ENOMEM;
		}
		rc->last_seen_ns = offset;
		rc->closed = false;
		for (j = 0; j < c->info.nr_engines; j++)
			if (update_engine(rc, &c->info.engines[j]))
				return -ENOMEM;
		for (j = 0; j < c->info.nr_regions; j++) {
			const struct drm_fdinfo_region *r = &c->info.regions[j];

			total += (r->present & DRM_REGION_HAS_TOTAL) ? r->total : r->resident;
		}
		rc->last_total_bytes = total;
		if (total > rc->peak_total_bytes)
			rc->peak_total_bytes = total;
	}
	for (i = 0; i < f->nr_gone; i++) {
		struct record_client *rc = find_client(rs, f->gone[i].key);

		if (rc)
			rc->closed = true;
	}
	return 0;
}

uint64_t record_engine_busy(const struct record_client *c, const struct record_engine *e)
{
	return c->at_start ? e->last_ns - e->first_ns : e->last_ns;
}

static double busy_pct(uint64_t busy, uint64_t span)
{
	return span ? 100.0 * (double)busy / (double)span : 0.0;
}

int record_session_print_json(const struct record_session *rs, const struct drmtop_frame *last,
			      FILE *out)
{
	uint64_t span = rs->end_ns - rs->start_ns;
	struct json_writer w;
	size_t i, j;

	jw_init(&w, out);
	jw_object_begin(&w);
	jw_key(&w, "record");
	jw_object_begin(&w);
	jw_key(&w, "duration_ns");
	jw_u64(&w, span);
	jw_key(&w, "samples");
	jw_u64(&w, rs->samples);
	jw_key(&w, "source");
	jw_string(&w, last->bpf_active ? "fdinfo+bpf" : "fdinfo");
	jw_key(&w, "bpf");
	jw_object_begin(&w);
	jw_key(&w, "active");
	jw_bool(&w, last->bpf_active);
	if (!last->bpf_active) {
		jw_key(&w, "reason");
		jw_string(&w, last->bpf_reason);
	}
	jw_object_end(&w);
	jw_key(&w, "status");
	jw_string(&w, drmtop_status_name(rs->nr_clients ? DRMTOP_STATUS_OK : last->status));
	jw_object_end(&w);
	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < rs->nr_clients; i++) {
		const struct record_client *c = &rs->clients[i];

		jw_object_begin(&w);
		jw_key(&w, "key");
		jw_string(&w, c->key);
		jw_key(&w, "pid");
		jw_i64(&w, c->pid);
		jw_key(&w, "comm");
		jw_string(&w, c->comm);
		jw_key(&w, "device");
		jw_string(&w, c->dev_key);
		jw_key(&w, "driver");
		jw_string(&w, c->driver);
		jw_key(&w, "client_id");
		if (c->has_client_id)
			jw_u64(&w, c->client_id);
		else
			jw_null(&w);
		jw_key(&w, "open_at_start");
		jw_bool(&w, c->at_start);
		jw_key(&w, "closed");
		jw_bool(&w, c->closed);
		jw_key(&w, "first_seen_ns");
		jw_u64(&w, c->first_seen_ns);
		jw_key(&w, "last_seen_ns");
		jw_u64(&w, c->last_seen_ns);
		jw_key(&w, "engines");
		jw_array_begin(&w);
		for (j = 0; j < c->nr_engines; j++) {
			uint64_t busy = record_engine_busy(c, &c->engines[j]);

			jw_object_begin(&w);
			jw_key(&w, "name");
			jw_string(&w, c->engines[j].name);
			jw_key(&w, "busy_ns");
			jw_u64(&w, busy);
			jw_key(&w, "busy_pct");
			jw_double(&w, busy_pct(busy, span), 2);
			jw_object_end(&w);
		}
		jw_array_end(&w);
		jw_key(&w, "peak_total_bytes");
		jw_u64(&w, c->peak_total_bytes);
		jw_key(&w, "last_total_bytes");
		jw_u64(&w, c->last_total_bytes);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_object_end(&w);
	return jw_finish_line(&w);
}

int record_session_print_text(const struct record_session *rs, const struct drmtop_frame *last,
			      FILE *out)
{
	uint64_t span = rs->end_ns - rs->start_ns;
	char peak[32], now[32];
	size_t i, j;

	fprintf(out, "drmtop record: %.2f s, %lu samples, %zu client%s, source: %s%s%s\n",
		(double)span / 1e9, rs->samples, rs->nr_clients, rs->nr_clients == 1 ? "" : "s",
		last->bpf_active ? "fdinfo + BPF" : "fdinfo only",
		last->bpf_active ? "" : " (BPF off: ", last->bpf_active ? "" : last->bpf_reason);
	if (!last->bpf_active)
		fputs(")\n", out);
	if (!rs->nr_clients) {
		fprintf(out, "%s\n", drmtop_status_message(last->status));
		return fflush(out) ? -1 : 0;
	}
	fprintf(out, "%8s %-16s %-22s %10s %-8s %10s %10s  %s\n", "PID", "COMMAND", "DEVICE",
		"CLIENT", "STATE", "PEAK MEM", "END MEM", "ENGINES (busy in session)");
	for (i = 0; i < rs->nr_clients; i++) {
		const struct record_client *c = &rs->clients[i];
		char id[24] = "-";

		if (c->has_client_id)
			snprintf(id, sizeof(id), "%llu", (unsigned long long)c->client_id);
		fprintf(out, "%8d %-16.16s %-22.22s %10s %-8s %10s %10s ", c->pid,
			c->comm[0] ? c->comm : "?", c->dev_key, id,
			c->closed ? "closed" : (c->at_start ? "open" : "new"),
			drmtop_fmt_bytes(peak, sizeof(peak), c->peak_total_bytes),
			drmtop_fmt_bytes(now, sizeof(now), c->closed ? 0 : c->last_total_bytes));
		for (j = 0; j < c->nr_engines; j++) {
			uint64_t busy = record_engine_busy(c, &c->engines[j]);

			fprintf(out, " %s %.3f s (%.1f%%)", c->engines[j].name, (double)busy / 1e9,
				busy_pct(busy, span));
		}
		fputc('\n', out);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

void record_session_free(struct record_session *rs)
{
	size_t i, j;

	for (i = 0; i < rs->nr_clients; i++) {
		for (j = 0; j < rs->clients[i].nr_engines; j++)
			free(rs->clients[i].engines[j].name);
		free(rs->clients[i].engines);
		free(rs->clients[i].key);
		free(rs->clients[i].dev_key);
		free(rs->clients[i].driver);
	}
	free(rs->clients);
	memset(rs, 0, sizeof(*rs));
}

/* fdinfo sampling can only see clients alive at a sample, so record samples often. */
#define RECORD_MAX_STEP_S 0.25

int drmtop_record_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop)
{
	const struct drmtop_options *opts = s->opts;
	double step_s = opts->interval_s < RECORD_MAX_STEP_S ? opts->interval_s : RECORD_MAX_STEP_S;
	struct record_session rs = { 0 };
	struct drmtop_frame f;
	uint64_t end, now;
	int rc = 0;

	rs.start_ns = drmtop_mono_ns();
	end = rs.start_ns + (uint64_t)(opts->duration_s * 1e9);
	if (opts->output != DRMTOP_OUT_JSON)
		fprintf(stderr, "drmtop: recording for %.1f s (Ctrl-C ends early)...\n",
			opts->duration_s);
	for (;;) {
		if (drmtop_sampler_next(s, &f)) {
			rc = 1;
			goto out;
		}
		now = drmtop_mono_ns();
		if (record_session_add(&rs, &f, now)) {
			fprintf(stderr, "drmtop: out of memory\n");
			rc = 1;
			goto out;
		}
		if (now >= end || *stop)
			break;
		{
			uint64_t next = now + (uint64_t)(step_s * 1e9);
			struct timespec ts;

			if (next > end)
				next = end;
			ts.tv_sec = (time_t)(next / 1000000000ull);
			ts.tv_nsec = (long)(next % 1000000000ull);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	if (opts->output == DRMTOP_OUT_JSON)
		rc = record_session_print_json(&rs, &f, stdout) ? 1 : 0;
	else
		rc = record_session_print_text(&rs, &f, stdout) ? 1 : 0;
out:
	record_session_free(&rs);
	return rc;
}
