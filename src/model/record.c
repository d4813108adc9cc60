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

/* A zeroed record at the end of the session's array, not counted until filled in. */
static struct record_client *new_slot(struct record_session *rs)
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
	return rc;
}

static struct record_client *add_client(struct record_session *rs, const struct drm_client *c,
					bool at_start, uint64_t offset_ns)
{
	struct record_client *rc;

	rc = new_slot(rs);
	if (!rc)
		return NULL;
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
	rc->has_fdinfo = true;
	rs->nr_clients++;
	return rc;
}

static struct record_client *find_uid(struct record_session *rs, __u64 uid)
{
	size_t i;

	for (i = 0; i < rs->nr_clients; i++)
		if (rs->clients[i].has_bpf && rs->clients[i].bpf.uid == uid)
			return &rs->clients[i];
	return NULL;
}

static void free_client(struct record_client *rc)
{
	size_t j;

	for (j = 0; j < rc->nr_engines; j++)
		free(rc->engines[j].name);
	free(rc->engines);
	free(rc->rings);
	free(rc->key);
	free(rc->dev_key);
	free(rc->driver);
}

/* A client only the tracer has seen so far: keyed "bpf:<uid>". */
static struct record_client *add_bpf_client(struct record_session *rs,
					    const struct drmtop_client *bc, uint64_t offset_ns)
{
	struct record_client *rc;
	char key[32], dev[64];

	rc = new_slot(rs);
	if (!rc)
		return NULL;
	snprintf(key, sizeof(key), "bpf:%llu", (unsigned long long)bc->uid);
	rc->key = strdup(key);
	/* fdinfo never showed it: name the device by driver and node as the tracer saw them. */
	if (bc->dev_major || bc->dev_minor)
		snprintf(dev, sizeof(dev), "%.*s@%u:%u", (int)sizeof(bc->driver), bc->driver,
			 bc->dev_major, bc->dev_minor);
	else
		snprintf(dev, sizeof(dev), "%.*s", (int)sizeof(bc->driver), bc->driver);
	rc->dev_key = strdup(dev);
	rc->driver = strndup(bc->driver, sizeof(bc->driver));
	if (!rc->key || !rc->dev_key || !rc->driver) {
		free_client(rc);
		return NULL;
	}
	rc->pid = (int)bc->tgid;
	memcpy(rc->comm, bc->comm, sizeof(bc->comm));
	rc->comm[sizeof(rc->comm) - 1] = '\0';
	rc->has_client_id = bc->client_id != 0;
	rc->client_id = bc->client_id;
	rc->first_seen_ns = rc->last_seen_ns = offset_ns;
	rc->has_bpf = true;
	rc->bpf = *bc;
	rs->nr_clients++;
	return rc;
}

static struct record_ring *find_ring(struct record_client *rc, const char *name)
{
	struct record_ring *grown;
	size_t i;

	for (i = 0; i < rc->nr_rings; i++)
		if (!strncmp(rc->rings[i].name, name, sizeof(rc->rings[i].name)))
			return &rc->rings[i];
	grown = realloc(rc->rings, (rc->nr_rings + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	rc->rings = grown;
	memset(&rc->rings[rc->nr_rings], 0, sizeof(*grown));
	snprintf(rc->rings[rc->nr_rings].name, sizeof(grown->name), "%.*s",
		 (int)sizeof(grown->name) - 1, name[0] ? name : "?");
	return &rc->rings[rc->nr_rings++];
}

/* Folds a live BPF client's totals (per ring, summed by ring name) into its record. */
static int bpf_live(struct record_client *rc, const struct drmtop_bpf_client *bc, bool first)
{
	size_t i;

	if (!rc->has_bpf) {
		rc->has_bpf = true;
		rc->bpf_at_start = first;
	}
	rc->bpf = bc->c;
	if (bc->c.mem_total > rc->bpf_peak_bytes)
		rc->bpf_peak_bytes = bc->c.mem_total;
	for (i = 0; i < rc->nr_rings; i++) {
		rc->rings[i].busy_last_ns = 0;
		rc->rings[i].jobs_last = 0;
	}
	for (i = 0; i < bc->n_engines; i++) {
		struct record_ring *r = find_ring(rc, bc->engines[i].name);

		if (!r)
			return -ENOMEM;
		/* Also the running job's time so far: first and last readings both include it. */
		r->busy_last_ns += bc->engines[i].busy_ns + bc->engines[i].running_ns;
		r->jobs_last += bc->engines[i].jobs;
	}
	for (i = 0; first && i < rc->nr_rings; i++) {
		rc->rings[i].busy_first_ns = rc->rings[i].busy_last_ns;
		rc->rings[i].jobs_first = rc->rings[i].jobs_last;
	}
	return 0;
}

/* A close record: its figures are the client's totals (or a later residue): they add up. */
static int bpf_closed(struct record_client *rc, const struct drmtop_bpf_client *bc)
{
	size_t i;

	if (!rc->bpf_closed) {
		/* The first close record carries identity and the memory held at close. */
		rc->bpf = bc->c;
		if (bc->c.mem_total > rc->bpf_peak_bytes)
			rc->bpf_peak_bytes = bc->c.mem_total;
	}
	rc->bpf_closed = true;
	rc->closed = true;
	for (i = 0; i < bc->n_engines; i++) {
		struct record_ring *r = find_ring(rc, bc->engines[i].name);

		if (!r)
			return -ENOMEM;
		r->busy_closed_ns += bc->engines[i].busy_ns;
		r->jobs_closed += bc->engines[i].jobs;
	}
	return 0;
}

/* Moves the tracer's side of @from (a "bpf:<uid>" record) into @to and drops @from. */
static struct record_client *merge_into(struct record_session *rs, struct record_client *to,
					struct record_client *from)
{
	char *key = to->key;
	size_t from_i = (size_t)(from - rs->clients);

	to->has_bpf = true;
	to->bpf = from->bpf;
	to->bpf_at_start = from->bpf_at_start;
	to->bpf_closed = from->bpf_closed;
	to->bpf_peak_bytes = from->bpf_peak_bytes;
	free(to->rings);
	to->rings = from->rings;
	to->nr_rings = from->nr_rings;
	from->rings = NULL;
	from->nr_rings = 0;
	if (from->first_seen_ns < to->first_seen_ns)
		to->first_seen_ns = from->first_seen_ns;
	free_client(from);
	rs->clients[from_i] = rs->clients[--rs->nr_clients];
	/* The swap may have moved @to; its key string stayed where it was. */
	return find_client(rs, key);
}

static int record_bpf(struct record_session *rs, const struct drmtop_frame *f, bool first,
		      uint64_t offset)
{
	const struct drmtop_bpf_snapshot *snap = f->bpf;
	size_t i;
	int err;

	for (i = 0; i < snap->n_clients; i++) {
		const struct drmtop_bpf_client *bc = &snap->clients[i];
		struct record_client *rc = find_uid(rs, bc->c.uid), *fd_rc = NULL;
		size_t ci;

		for (ci = 0; ci < f->nr_clients && f->rec; ci++) {
			const struct drmtop_client_view *v = drmtop_reconciled_for(f->rec, ci);

			if (v && v->c.uid == bc->c.uid) {
				fd_rc = find_client(rs, f->clients[ci].key);
				break;
			}
		}
		if (fd_rc && rc && rc != fd_rc)
			rc = merge_into(rs, fd_rc, rc);
		else if (fd_rc)
			rc = fd_rc;
		if (!rc) {
			rc = add_bpf_client(rs, &bc->c, offset);
			if (!rc)
				return -ENOMEM;
			rc->bpf_at_start = first;
		}
		rc->last_seen_ns = offset;
		err = bpf_live(rc, bc, first);
		if (err)
			return err;
	}
	for (i = 0; i < snap->n_closed; i++) {
		const struct drmtop_bpf_client *bc = &snap->closed[i];
		struct record_client *rc = find_uid(rs, bc->c.uid);

		if (!rc) {
			rc = add_bpf_client(rs, &bc->c, offset);
			if (!rc)
				return -ENOMEM;
		}
		err = bpf_closed(rc, bc);
		if (err)
			return err;
	}
	return 0;
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
		uint64_t total = drm_fdinfo_total_bytes(&c->info, NULL);

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
		rc->last_total_bytes = total;
		if (total > rc->peak_total_bytes)
			rc->peak_total_bytes = total;
	}
	for (i = 0; i < f->nr_gone; i++) {
		struct record_client *rc = find_client(rs, f->gone[i].key);

		if (rc)
			rc->closed = true;
	}
	if (f->bpf)
		return record_bpf(rs, f, first, offset);
	return 0;
}

uint64_t record_engine_busy(const struct record_client *c, const struct record_engine *e)
{
	return c->at_start ? e->last_ns - e->first_ns : e->last_ns;
}

/* Live value, or the close records' sum once the client closed (it includes the live value). */
static uint64_t ring_final(const struct record_client *c, uint64_t live, uint64_t closed)
{
	return c->bpf_closed ? closed : live;
}

uint64_t record_ring_busy(const struct record_client *c, const struct record_ring *r)
{
	uint64_t last = ring_final(c, r->busy_last_ns, r->busy_closed_ns);

	return c->bpf_at_start && last >= r->busy_first_ns ? last - r->busy_first_ns : last;
}

uint64_t record_ring_jobs(const struct record_client *c, const struct record_ring *r)
{
	uint64_t last = ring_final(c, r->jobs_last, r->jobs_closed);

	return c->bpf_at_start && last >= r->jobs_first ? last - r->jobs_first : last;
}

static double busy_pct(uint64_t busy, uint64_t span)
{
	return span ? 100.0 * (double)busy / (double)span : 0.0;
}

static void json_record_bpf(struct json_writer *w, const struct record_client *c, uint64_t span)
{
	size_t i;

	jw_object_begin(w);
	jw_kv_u64(w, "uid", c->bpf.uid);
	jw_kv_bool(w, "kernel", c->bpf.flags & DRMTOP_CLIENT_KERNEL);
	jw_kv_u64(w, "tgid", c->bpf.tgid);
	jw_key(w, "comm");
	jw_string_len(w, c->bpf.comm, strnlen(c->bpf.comm, sizeof(c->bpf.comm)));
	jw_kv_u64_or_null(w, "client_id", c->bpf.client_id, c->bpf.client_id);
	jw_kv_bool(w, "open_at_start", c->bpf_at_start);
	jw_kv_bool(w, "opened_before_trace", c->bpf.flags & DRMTOP_CLIENT_LATE);
	jw_kv_bool(w, "closed", c->bpf_closed);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < c->nr_rings; i++) {
		uint64_t busy = record_ring_busy(c, &c->rings[i]);

		jw_object_begin(w);
		jw_kv_string(w, "name", c->rings[i].name);
		jw_kv_u64(w, "busy_ns", busy);
		jw_kv_double(w, "busy_pct", busy_pct(busy, span), 2);
		jw_kv_u64(w, "jobs", record_ring_jobs(c, &c->rings[i]));
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_kv_u64(w, "peak_total_bytes", c->bpf_peak_bytes);
	jw_key(w, c->bpf_closed ? "total_bytes_at_close" : "last_total_bytes");
	jw_u64(w, c->bpf.mem_total);
	jw_kv_u64(w, "imported_bytes", c->bpf.mem_imported);
	jw_object_end(w);
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
	jw_kv_u64(&w, "duration_ns", span);
	jw_kv_u64(&w, "samples", rs->samples);
	jw_kv_string(&w, "source", last->bpf_active ? "fdinfo+bpf" : "fdinfo");
	jw_key(&w, "bpf");
	jw_object_begin(&w);
	jw_kv_bool(&w, "active", last->bpf_active);
	if (!last->bpf_active)
		jw_kv_string(&w, "reason", last->bpf_reason);
	jw_object_end(&w);
	jw_kv_string(&w, "status", drmtop_status_name(rs->nr_clients ? DRMTOP_STATUS_OK : last->status));
	jw_object_end(&w);
	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < rs->nr_clients; i++) {
		const struct record_client *c = &rs->clients[i];

		jw_object_begin(&w);
		jw_kv_string(&w, "key", c->key);
		jw_kv_i64(&w, "pid", c->pid);
		jw_kv_string(&w, "comm", c->comm);
		jw_kv_string(&w, "device", c->dev_key);
		jw_kv_string(&w, "driver", c->driver);
		jw_kv_u64_or_null(&w, "client_id", c->has_client_id, c->client_id);
		jw_kv_bool(&w, "open_at_start", c->at_start);
		jw_kv_bool(&w, "closed", c->closed);
		jw_kv_u64(&w, "first_seen_ns", c->first_seen_ns);
		jw_kv_u64(&w, "last_seen_ns", c->last_seen_ns);
		jw_key(&w, "engines");
		jw_array_begin(&w);
		for (j = 0; j < c->nr_engines; j++) {
			uint64_t busy = record_engine_busy(c, &c->engines[j]);

			jw_object_begin(&w);
			jw_kv_string(&w, "name", c->engines[j].name);
			jw_kv_u64(&w, "busy_ns", busy);
			jw_kv_double(&w, "busy_pct", busy_pct(busy, span), 2);
			jw_object_end(&w);
		}
		jw_array_end(&w);
		jw_kv_u64(&w, "peak_total_bytes", c->peak_total_bytes);
		jw_kv_u64(&w, "last_total_bytes", c->last_total_bytes);
		jw_kv_bool(&w, "seen_by_fdinfo", c->has_fdinfo);
		if (last->bpf_active || c->has_bpf) {
			jw_key(&w, "bpf");
			if (c->has_bpf)
				json_record_bpf(&w, c, span);
			else
				jw_null(&w);
		}
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

			if (busy)	/* an idle engine says nothing here; JSON keeps it */
				fprintf(out, " %s %.3f s (%.1f%%)", c->engines[j].name,
					(double)busy / 1e9, busy_pct(busy, span));
		}
		if (c->has_bpf) {
			fprintf(out, "%s bpf%s:%s", c->nr_engines ? " |" : "",
				c->bpf.flags & DRMTOP_CLIENT_KERNEL ? " [kernel]" : "",
				c->nr_rings ? "" : " no jobs");
			for (j = 0; j < c->nr_rings; j++) {
				uint64_t busy = record_ring_busy(c, &c->rings[j]);

				fprintf(out, " %s %.3f s %llu jobs", c->rings[j].name,
					(double)busy / 1e9,
					(unsigned long long)record_ring_jobs(c, &c->rings[j]));
			}
		}
		fputc('\n', out);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

void record_session_free(struct record_session *rs)
{
	size_t i;

	for (i = 0; i < rs->nr_clients; i++)
		free_client(&rs->clients[i]);
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
	/* On stderr even with -J: scripts wait for this line, the tracer is attached by then. */
	fprintf(stderr, "drmtop: recording for %.1f s (Ctrl-C ends early)...\n", opts->duration_s);
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
