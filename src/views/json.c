// SPDX-License-Identifier: GPL-2.0-only
/*
 * The -J record. Keys are snake_case with the unit in the name (busy_ns, total_bytes, busy_pct).
 * A memory figure the driver did not print is null, never 0; an engine counter it did not print
 * is left out; a rate that cannot be known yet (new client, zero interval) is null.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "drmtop/json_writer.h"
#include "drmtop/views.h"

static void json_fd_engine(struct json_writer *w, const struct drmtop_model_engine *e)
{
	const struct drmtop_fd_engine *f = &e->fd;

	jw_object_begin(w);
	jw_kv_string(w, "name", e->name);
	if (f->flags & DRMTOP_FD_BUSY)
		jw_kv_u64(w, "busy_ns", f->busy_ns);
	jw_kv_u64(w, "capacity", f->capacity);
	if (f->flags & DRMTOP_FD_CYCLES)
		jw_kv_u64(w, "cycles", f->cycles);
	if (f->flags & DRMTOP_FD_TOTAL_CYCLES)
		jw_kv_u64(w, "total_cycles", f->total_cycles);
	if (f->flags & DRMTOP_FD_MAXFREQ)
		jw_kv_u64(w, "maxfreq_hz", f->maxfreq_hz);
	jw_kv_double_or_null(w, "busy_pct", f->flags & DRMTOP_FD_RATE, f->pct, 2);
	if (f->flags & DRMTOP_FD_BUSY_RATE)
		jw_kv_u64(w, "busy_delta_ns", f->busy_delta_ns);
	if (f->flags & DRMTOP_FD_CYCLES_RATE)
		jw_kv_double(w, "cycles_pct", f->cycles_pct, 2);
	jw_kv_bool(w, "over_100", f->flags & DRMTOP_FD_OVER);
	jw_kv_bool(w, "went_backwards", f->flags & DRMTOP_FD_BACKWARDS);
	jw_object_end(w);
}

/* A key the driver did not print is null: not reported, which is not 0. */
static void json_u64_if(struct json_writer *w, unsigned int present, unsigned int bit,
			const char *key, uint64_t v)
{
	jw_kv_u64_or_null(w, key, present & bit, v);
}

static void json_region(struct json_writer *w, const struct drmtop_model_region *r)
{
	jw_object_begin(w);
	jw_kv_string(w, "region", r->name);
	json_u64_if(w, r->present, DRMTOP_MEM_TOTAL, "total_bytes", r->total);
	json_u64_if(w, r->present, DRMTOP_MEM_SHARED, "shared_bytes", r->shared);
	json_u64_if(w, r->present, DRMTOP_MEM_RESIDENT, "resident_bytes", r->resident);
	json_u64_if(w, r->present, DRMTOP_MEM_PURGEABLE, "purgeable_bytes", r->purgeable);
	json_u64_if(w, r->present, DRMTOP_MEM_ACTIVE, "active_bytes", r->active);
	jw_object_end(w);
}

static void json_node(struct json_writer *w, const char *node, dev_t rdev)
{
	jw_kv_string(w, "node", node);
	jw_key(w, "rdev");
	jw_object_begin(w);
	jw_kv_u64(w, "major", major(rdev));
	jw_kv_u64(w, "minor", minor(rdev));
	jw_object_end(w);
}

static void json_client_identity(struct json_writer *w, const struct drmtop_model_client *c)
{
	jw_kv_string(w, "key", c->key);
	jw_kv_i64(w, "pid", c->pid);
	jw_kv_i64(w, "fd", c->fd);
	if (c->has_uid)
		jw_kv_u64(w, "uid", c->uid);
	jw_kv_string(w, "comm", c->comm);
	jw_kv_string(w, "device", c->dev_key);
	json_node(w, c->node, c->rdev);
	jw_kv_string(w, "driver", c->driver);
	if (c->pdev)
		jw_kv_string(w, "pdev", c->pdev);
	jw_kv_u64_or_null(w, "client_id", c->has_client_id, c->client_id);
	if (c->client_name)
		jw_kv_string(w, "client_name", c->client_name);
}

static void json_lat_hist(struct json_writer *w, const uint64_t *hist)
{
	size_t b;

	/* Only the buckets that hold jobs: [{"ge_ns": 2^b, "jobs": n}, ...]. */
	jw_array_begin(w);
	for (b = 0; hist && b < DRMTOP_MODEL_LAT_BUCKETS; b++) {
		if (!hist[b])
			continue;
		jw_object_begin(w);
		jw_kv_u64(w, "ge_ns", 1ull << b);
		jw_kv_u64(w, "jobs", hist[b]);
		jw_object_end(w);
	}
	jw_array_end(w);
}

static void json_bpf_identity(struct json_writer *w, const struct drmtop_model_bpf *b)
{
	jw_kv_u64(w, "uid", b->uid);
	jw_kv_bool(w, "kernel", b->kernel);
	jw_kv_bool(w, "opened_before_trace", b->opened_before_trace);
	jw_kv_u64(w, "tgid", b->tgid);
	jw_kv_string(w, "comm", b->comm);
	jw_kv_string(w, "driver", b->driver);
	jw_kv_u64_or_null(w, "client_id", b->has_client_id, b->client_id);
	jw_kv_u64_or_null(w, "minor", b->minor >= 0, (uint64_t)b->minor);
}

static void json_bpf_memory(struct json_writer *w, const struct drmtop_model_bpf *b)
{
	jw_kv_u64(w, "total_bytes", b->mem_total);
	jw_kv_u64(w, "shared_bytes", b->mem_shared);
	jw_kv_u64(w, "imported_bytes", b->mem_imported);
	jw_kv_u64(w, "handles", b->handles);
}

static const char *match_name(enum drmtop_model_match m)
{
	switch (m) {
	case DRMTOP_MODEL_MATCH_CLIENT_ID:
		return "client_id";
	case DRMTOP_MODEL_MATCH_FD:
		return "fd";
	case DRMTOP_MODEL_MATCH_NONE:
		break;
	}
	return "none";
}

/* The tracer's figures of one client, beside fdinfo's when the driver reports the client. */
static void json_bpf_view(struct json_writer *w, const struct drmtop_model_client *c)
{
	const struct drmtop_model_bpf *b = c->bpf;
	size_t i;

	jw_object_begin(w);
	json_bpf_identity(w, b);
	jw_kv_string(w, "match", match_name(b->match));
	jw_key(w, "memory");
	jw_object_begin(w);
	json_bpf_memory(w, b);
	/* the driver's own figure for the process (gpu_mem_total), where the kernel has it */
	if (c->has_gpu_mem)
		jw_kv_u64(w, "gpu_mem_total_bytes", c->gpu_mem_bytes);
	if (c->in_fdinfo) {
		jw_kv_u64(w, "fdinfo_total_bytes", b->fdinfo_total_bytes);
		jw_kv_bool(w, "compared", b->mem_compared);
		jw_kv_bool(w, "diverged", b->mem_diverged);
		jw_kv_bool(w, "inconclusive", b->mem_inconclusive);
	}
	jw_object_end(w);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < c->nr_engines; i++) {
		const struct drmtop_model_engine *e = &c->engines[i];

		if (!e->in_bpf)
			continue;
		jw_object_begin(w);
		jw_kv_string(w, "name", e->name);
		jw_kv_u64(w, "busy_ns", e->bpf.busy_ns);
		jw_kv_u64(w, "jobs", e->bpf.jobs);
		jw_kv_u64(w, "start_slack_ns", e->bpf.start_slack_ns);
		jw_kv_double_or_null(w, "busy_pct", e->bpf.has_rate, e->bpf.pct, 2);
		/* occupancy: run -> done includes time the job did not execute (drivers.h) */
		jw_kv_string(w, "timing", e->occupancy ? "occupancy" : "execution");
		jw_kv_bool(w, "unmapped", e->unmapped);
		if (e->bpf.has_rate) {
			jw_kv_u64(w, "busy_delta_ns", e->bpf.busy_delta_ns);
			jw_kv_u64(w, "jobs_delta", e->bpf.jobs_delta);
			jw_kv_double(w, "start_slack_pct", e->bpf.start_slack_pct, 2);
		}
		if (c->in_fdinfo) {
			jw_kv_bool(w, "in_fdinfo", e->in_fdinfo);
			jw_kv_double_or_null(w, "fdinfo_busy_pct",
					     e->in_fdinfo && (e->fd.flags & DRMTOP_FD_TIME_RATE),
					     e->fd.pct, 2);
			jw_kv_bool(w, "diverged", e->diverged);
			jw_kv_bool(w, "inconclusive", e->inconclusive);
		}
		jw_key(w, "queue_to_run_latency");
		json_lat_hist(w, e->bpf.lat_hist);
		jw_object_end(w);
	}
	jw_array_end(w);
	if (c->in_fdinfo) {
		jw_kv_bool(w, "diverged", c->diverged);
		jw_kv_bool(w, "inconclusive", c->inconclusive);
	}
	/* The tracer missed events in the interval, or this client's: figures may be short. */
	jw_kv_bool(w, "lower_bound", c->lower_bound);
	jw_kv_u64(w, "missed", b->missed);
	jw_object_end(w);
}

static void json_cgroup(struct json_writer *w, const struct drmtop_model_cgroup *g);

/*
 * A client that closed, as the tracer saw it at close (engine figures added up per uid), in the
 * cgroup its opener was in.
 */
static void json_bpf_closed(struct json_writer *w, const struct drmtop_model_closed *c)
{
	size_t i;

	jw_object_begin(w);
	json_bpf_identity(w, &c->bpf);
	if (c->cgroup.path)
		json_cgroup(w, &c->cgroup);
	jw_kv_bool(w, "orphan", c->orphan);
	jw_kv_u64(w, "open_ns", c->open_ns);
	jw_kv_u64(w, "close_ns", c->close_ns);
	jw_key(w, "memory_at_close");
	jw_object_begin(w);
	json_bpf_memory(w, &c->bpf);
	jw_object_end(w);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < c->nr_engines; i++) {
		jw_object_begin(w);
		jw_kv_string(w, "name", c->engines[i].name);
		jw_kv_u64(w, "busy_ns", c->engines[i].busy_ns);
		jw_kv_u64(w, "jobs", c->engines[i].jobs);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}

/* Clients of one process that closed with no job and nothing held, as a count. */
static void json_idle_closed(struct json_writer *w, const struct drmtop_model_idle_closed *c)
{
	jw_object_begin(w);
	jw_kv_u64(w, "tgid", (uint64_t)c->pid);
	jw_kv_string(w, "comm", c->comm);
	jw_kv_string(w, "driver", c->driver);
	jw_kv_u64_or_null(w, "minor", c->minor >= 0, (uint64_t)c->minor);
	if (c->cgroup.path)
		json_cgroup(w, &c->cgroup);
	jw_kv_u64(w, "clients", c->clients);
	jw_kv_u64(w, "first_open_ns", c->first_open_ns);
	jw_kv_u64(w, "last_close_ns", c->last_close_ns);
	jw_object_end(w);
}

static void json_bpf_summary(struct json_writer *w, const struct drmtop_model *m)
{
	size_t i;

	jw_key(w, "bpf");
	jw_object_begin(w);
	jw_kv_bool(w, "active", m->bpf_active);
	jw_key(w, m->bpf_active ? "detail" : "reason");
	jw_string(w, m->bpf_reason);
	if (m->bpf_active) {
		jw_key(w, "missed");
		jw_object_begin(w);
		jw_kv_u64(w, "since_start", m->missed.since_start);
		jw_kv_u64(w, "interval", m->missed.interval);
		jw_kv_u64(w, "skipped_runs", m->missed.skipped_runs);
		jw_kv_u64(w, "skipped_runs_interval", m->missed.skipped_runs_interval);
		jw_kv_u64(w, "skipped_runs_covered", m->missed.skipped_runs_covered);
		jw_kv_u64(w, "memory_since_start", m->missed.memory_since_start);
		jw_object_end(w);
		/* beside each client's sample_ns and interval_ns: how far the two windows differ */
		jw_key(w, "window_ns");
		jw_object_begin(w);
		jw_kv_u64(w, "start", m->bpf_window_start_ns);
		jw_kv_u64(w, "end", m->bpf_window_end_ns);
		jw_object_end(w);
		jw_kv_u64(w, "snapshot_ns", m->bpf_snapshot_ns);
		jw_key(w, "counters");
		jw_object_begin(w);
		for (i = 0; i < m->nr_counters; i++) {
			jw_key(w, m->counters[i].name);
			jw_u64(w, m->counters[i].value);
		}
		jw_object_end(w);
		jw_key(w, "counters_interval");
		jw_object_begin(w);
		for (i = 0; i < m->nr_counters; i++) {
			jw_key(w, m->counters[i].name);
			jw_u64(w, m->counters[i].delta);
		}
		jw_object_end(w);
		jw_key(w, "loss_counters");
		jw_array_begin(w);
		for (i = 0; i < m->nr_counters; i++)
			if (m->counters[i].kind == DRMTOP_COUNTER_LOSS)
				jw_string(w, m->counters[i].name);
		jw_array_end(w);
		jw_key(w, "programs");
		jw_array_begin(w);
		for (i = 0; i < m->nr_progs; i++) {
			const struct drmtop_model_prog *p = &m->progs[i];

			jw_object_begin(w);
			jw_kv_string(w, "name", p->name);
			jw_kv_u64(w, "recursion_misses", p->recursion_misses);
			jw_kv_u64(w, "recursion_misses_interval", p->misses_delta);
			jw_kv_u64(w, "run_cnt", p->run_cnt);
			jw_kv_u64(w, "run_time_ns", p->run_time_ns);
			jw_kv_u64(w, "verified_insns", p->verified_insns);
			jw_object_end(w);
		}
		jw_array_end(w);
		jw_key(w, "devices");
		jw_array_begin(w);
		for (i = 0; i < m->nr_bpf_devices; i++) {
			const struct drmtop_model_bpf_device *d = &m->bpf_devices[i];

			jw_object_begin(w);
			jw_kv_string(w, "driver", d->driver);
			jw_kv_i64(w, "minor", d->minor);
			jw_kv_u64(w, "gem_objects", d->gem_objects);
			jw_kv_u64(w, "gem_bytes", d->gem_bytes);
			jw_object_end(w);
		}
		jw_array_end(w);
		jw_key(w, "gpu_mem");
		jw_object_begin(w);
		jw_kv_bool(w, "traced", m->gpu_mem_traced);
		jw_key(w, "totals");
		jw_array_begin(w);
		for (i = 0; i < m->nr_gpu_mem; i++) {
			jw_object_begin(w);
			jw_kv_u64(w, "gpu_id", m->gpu_mem[i].gpu_id);
			jw_kv_i64(w, "pid", m->gpu_mem[i].pid);
			jw_kv_u64(w, "bytes", m->gpu_mem[i].bytes);
			jw_object_end(w);
		}
		jw_array_end(w);
		jw_object_end(w);
		/* Clients fdinfo does not show: kernel clients, processes out of sight. */
		jw_key(w, "unmatched_clients");
		jw_array_begin(w);
		for (i = m->nr_fdinfo_clients; i < m->nr_clients; i++)
			json_bpf_view(w, &m->clients[i]);
		jw_array_end(w);
		jw_key(w, "closed_clients");
		jw_array_begin(w);
		for (i = 0; i < m->nr_closed; i++)
			if (m->closed[i].from_bpf && !m->closed[i].idle)
				json_bpf_closed(w, &m->closed[i]);
		jw_array_end(w);
		jw_key(w, "idle_closed");
		jw_array_begin(w);
		for (i = 0; i < m->nr_idle_closed; i++)
			json_idle_closed(w, &m->idle_closed[i]);
		jw_array_end(w);
	}
	jw_object_end(w);
}

/* Only what the cgroup's name says: a member absent is not known, never "". */
static void json_cgroup(struct json_writer *w, const struct drmtop_model_cgroup *g)
{
	const struct {
		const char *key, *value;
	} f[] = {
		{ "path", g->path }, { "workload", g->workload }, { "unit", g->unit },
		{ "slice", g->slice }, { "runtime", g->runtime }, { "container", g->container },
		{ "pod", g->pod }, { "qos", g->qos },
	};
	size_t i;

	jw_key(w, "cgroup");
	jw_object_begin(w);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].value)
			jw_kv_string(w, f[i].key, f[i].value);
	jw_object_end(w);
}

static void json_client(struct json_writer *w, const struct drmtop_model *m,
			const struct drmtop_model_client *c)
{
	size_t i;

	jw_object_begin(w);
	json_client_identity(w, c);
	if (c->cmdline)
		jw_kv_string(w, "cmdline", c->cmdline);
	if (c->cgroup.path)
		json_cgroup(w, &c->cgroup);
	jw_kv_bool(w, "accel", c->accel);
	jw_key(w, "holders");
	jw_array_begin(w);
	for (i = 0; i < c->nr_holders; i++) {
		jw_object_begin(w);
		jw_kv_i64(w, "pid", c->holders[i].pid);
		jw_kv_i64(w, "fd", c->holders[i].fd);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_kv_bool(w, "new", c->is_new);
	jw_kv_u64(w, "interval_ns", c->dt_ns);
	/* CLOCK_MONOTONIC right after this client's fdinfo was read: the end of its interval. */
	jw_kv_u64(w, "sample_ns", c->sample_ns);
	jw_kv_string(w, "fdinfo_format", c->fdinfo_format);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < c->nr_engines; i++)
		if (c->engines[i].in_fdinfo)
			json_fd_engine(w, &c->engines[i]);
	jw_array_end(w);
	jw_key(w, "memory");
	jw_array_begin(w);
	for (i = 0; i < c->nr_regions; i++)
		json_region(w, &c->regions[i]);
	jw_array_end(w);
	jw_key(w, "extras");
	jw_object_begin(w);
	for (i = 0; i < c->nr_extras; i++) {
		jw_key(w, c->extras[i].key);
		jw_string(w, c->extras[i].value);
	}
	jw_object_end(w);
	jw_kv_u64(w, "malformed_lines", c->malformed_lines);
	if (m->bpf_active) {
		jw_key(w, "bpf");
		if (c->bpf)
			json_bpf_view(w, c);
		else
			jw_null(w);
	}
	jw_object_end(w);
}

static void json_device(struct json_writer *w, const struct drmtop_model_device *d)
{
	size_t i;

	jw_object_begin(w);
	jw_kv_string(w, "device", d->key);
	jw_kv_string(w, "driver", d->driver);
	if (d->pdev)
		jw_kv_string(w, "pdev", d->pdev);
	json_node(w, d->node, d->rdev);
	jw_kv_u64(w, "clients", d->nr_clients);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < d->nr_engines; i++) {
		const struct drmtop_model_device_engine *e = &d->engines[i];

		jw_object_begin(w);
		jw_kv_string(w, "name", e->name);
		jw_kv_double_or_null(w, "busy_pct", e->valid, e->pct, 2);
		jw_kv_bool(w, "over_100", e->over);
		jw_kv_u64(w, "clients_with_figure", e->nr_clients);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_key(w, "memory");
	jw_array_begin(w);
	for (i = 0; i < d->nr_regions; i++)
		json_region(w, &d->regions[i]);
	jw_array_end(w);
	jw_object_end(w);
}

static void json_scan(struct json_writer *w, const struct drmtop_model_scan *s)
{
	const struct {
		const char *key;
		unsigned int v;
	} fields[] = {
		{ "processes", s->processes },
		{ "fds", s->fds },
		{ "drm_fds", s->drm_fds },
		{ "vanished", s->vanished },
		{ "denied", s->denied },
		{ "errors", s->errors },
		{ "malformed_lines", s->malformed_lines },
		{ "unsupported_format", s->unsupported_format },
		{ "no_client_id", s->no_client_id },
		{ "kcmp_failed", s->kcmp_failed },
		{ "new_clients", s->new_clients },
		{ "gone_clients", s->gone_clients },
		{ "cmdline_blocked", s->cmdline_blocked },
	};
	size_t i;

	jw_object_begin(w);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		jw_key(w, fields[i].key);
		jw_u64(w, fields[i].v);
	}
	jw_key(w, "from_tracer");
	jw_bool(w, s->from_tracer);
	jw_object_end(w);
}

int drmtop_json_frame(FILE *out, const struct drmtop_model *m)
{
	struct json_writer w;
	size_t i;

	jw_init(&w, out);
	jw_object_begin(&w);
	jw_kv_u64(&w, "iteration", m->iteration);
	jw_kv_u64(&w, "time_ns", m->realtime_ns);
	jw_kv_u64(&w, "interval_ns", m->interval_ns);
	jw_kv_string(&w, "status", drmtop_status_name(m->status));
	jw_kv_string(&w, "message", drmtop_status_message(m->status));
	jw_kv_u64(&w, "device_nodes", m->device_nodes);
	jw_kv_string(&w, "source", m->bpf_active ? "fdinfo+bpf" : "fdinfo");
	jw_kv_bool(&w, "filtered", m->filtered);
	jw_key(&w, "notes");
	jw_array_begin(&w);
	for (i = 0; i < m->nr_notes; i++)
		jw_string(&w, m->notes[i]);
	jw_array_end(&w);
	json_bpf_summary(&w, m);

	jw_key(&w, "devices");
	jw_array_begin(&w);
	for (i = 0; i < m->nr_devices; i++)
		json_device(&w, &m->devices[i]);
	jw_array_end(&w);

	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < m->nr_fdinfo_clients; i++)
		json_client(&w, m, &m->clients[i]);
	jw_array_end(&w);

	jw_key(&w, "gone_clients");
	jw_array_begin(&w);
	for (i = 0; i < m->nr_closed; i++) {
		const struct drmtop_model_closed *c = &m->closed[i];

		if (c->from_bpf)
			continue;
		jw_object_begin(&w);
		jw_kv_string(&w, "key", c->key);
		jw_kv_i64(&w, "pid", c->pid);
		jw_kv_string(&w, "comm", c->comm);
		jw_kv_string(&w, "driver", c->driver);
		jw_kv_u64_or_null(&w, "client_id", c->has_client_id, c->client_id);
		jw_object_end(&w);
	}
	jw_array_end(&w);

	if (m->has_scan) {
		jw_key(&w, "scan");
		json_scan(&w, &m->scan);
	}
	jw_object_end(&w);
	return jw_finish_line(&w);
}
