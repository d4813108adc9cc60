// SPDX-License-Identifier: GPL-2.0-only
/*
 * The -J record. Keys are snake_case with the unit in the name (busy_ns, total_bytes, busy_pct).
 * A figure the driver did not print is left out, not written as 0; a rate that cannot be known
 * yet (new client, zero interval) is null.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "drmtop/json_writer.h"
#include "drmtop/output.h"

static void json_engine(struct json_writer *w, const struct drm_fdinfo_engine *e,
			const struct drm_engine_usage *u)
{
	double pct = 0;
	bool over = false, has_pct;

	jw_object_begin(w);
	jw_kv_string(w, "name", e->name);
	if (e->present & DRM_ENGINE_HAS_BUSY)
		jw_kv_u64(w, "busy_ns", e->busy_ns);
	jw_kv_u64(w, "capacity", e->capacity);
	if (e->present & DRM_ENGINE_HAS_CYCLES)
		jw_kv_u64(w, "cycles", e->cycles);
	if (e->present & DRM_ENGINE_HAS_TOTAL_CYCLES)
		jw_kv_u64(w, "total_cycles", e->total_cycles);
	if (e->present & DRM_ENGINE_HAS_MAXFREQ)
		jw_kv_u64(w, "maxfreq_hz", e->maxfreq_hz);
	/* Not in the call's arguments: their order of evaluation is unspecified. */
	has_pct = u && drm_engine_usage_pct(u, &pct, &over);
	jw_kv_double_or_null(w, "busy_pct", has_pct, pct, 2);
	if (u && (u->flags & DRM_USAGE_BUSY_VALID))
		jw_kv_u64(w, "busy_delta_ns", u->busy_delta_ns);
	if (u && (u->flags & DRM_USAGE_CYCLES_VALID))
		jw_kv_double(w, "cycles_pct", u->cycles_pct, 2);
	jw_kv_bool(w, "over_100", over);
	jw_kv_bool(w, "went_backwards", u && (u->flags & DRM_USAGE_BACKWARDS));
	jw_object_end(w);
}

static void json_u64_if(struct json_writer *w, unsigned int present, unsigned int bit,
			const char *key, uint64_t v)
{
	if (!(present & bit))
		return;
	jw_key(w, key);
	jw_u64(w, v);
}

static void json_region(struct json_writer *w, const char *name, unsigned int present,
			uint64_t total, uint64_t shared, uint64_t resident, uint64_t purgeable,
			uint64_t active)
{
	jw_object_begin(w);
	jw_kv_string(w, "region", name);
	json_u64_if(w, present, DRM_REGION_HAS_TOTAL, "total_bytes", total);
	json_u64_if(w, present, DRM_REGION_HAS_SHARED, "shared_bytes", shared);
	json_u64_if(w, present, DRM_REGION_HAS_RESIDENT, "resident_bytes", resident);
	json_u64_if(w, present, DRM_REGION_HAS_PURGEABLE, "purgeable_bytes", purgeable);
	json_u64_if(w, present, DRM_REGION_HAS_ACTIVE, "active_bytes", active);
	jw_object_end(w);
}

static void json_node(struct json_writer *w, dev_t rdev)
{
	char node[64];

	jw_kv_string(w, "node", drm_node_name(rdev, node, sizeof(node)));
	jw_key(w, "rdev");
	jw_object_begin(w);
	jw_kv_u64(w, "major", major(rdev));
	jw_kv_u64(w, "minor", minor(rdev));
	jw_object_end(w);
}

static void json_client_identity(struct json_writer *w, const struct drm_client *c)
{
	const struct drm_fdinfo *fi = &c->info;

	jw_kv_string(w, "key", c->key);
	jw_kv_i64(w, "pid", c->pid);
	jw_kv_i64(w, "fd", c->fd);
	jw_kv_string(w, "comm", c->comm);
	jw_kv_string(w, "device", c->dev_key);
	json_node(w, c->rdev);
	jw_kv_string(w, "driver", fi->driver);
	if (fi->pdev)
		jw_kv_string(w, "pdev", fi->pdev);
	jw_kv_u64_or_null(w, "client_id", fi->present & DRM_FDINFO_HAS_CLIENT_ID, fi->client_id);
	if (fi->client_name)
		jw_kv_string(w, "client_name", fi->client_name);
}

static void json_lat_hist(struct json_writer *w, const __u64 *hist)
{
	size_t b;

	/* Only the buckets that hold jobs: [{"ge_ns": 2^b, "jobs": n}, ...]. */
	jw_array_begin(w);
	for (b = 0; b < DRMTOP_LAT_BUCKETS; b++) {
		if (!hist[b])
			continue;
		jw_object_begin(w);
		jw_kv_u64(w, "ge_ns", 1ull << b);
		jw_kv_u64(w, "jobs", hist[b]);
		jw_object_end(w);
	}
	jw_array_end(w);
}

static void json_bpf_identity(struct json_writer *w, const struct drmtop_client *c)
{
	jw_kv_u64(w, "uid", c->uid);
	jw_kv_bool(w, "kernel", c->flags & DRMTOP_CLIENT_KERNEL);
	jw_kv_bool(w, "opened_before_trace", c->flags & DRMTOP_CLIENT_LATE);
	jw_kv_u64(w, "tgid", c->tgid);
	jw_key(w, "comm");
	jw_string_len(w, c->comm, strnlen(c->comm, sizeof(c->comm)));
	jw_key(w, "driver");
	jw_string_len(w, c->driver, strnlen(c->driver, sizeof(c->driver)));
	jw_kv_u64_or_null(w, "client_id", c->client_id, c->client_id);
	jw_key(w, "minor");
	if (c->minor_index >= 0)
		jw_i64(w, c->minor_index);
	else
		jw_null(w);
}

static void json_bpf_memory(struct json_writer *w, const struct drmtop_client *c, __u64 shared)
{
	jw_kv_u64(w, "total_bytes", c->mem_total);
	jw_kv_u64(w, "shared_bytes", shared);
	jw_kv_u64(w, "imported_bytes", c->mem_imported);
	jw_kv_u64(w, "handles", c->handles);
}

static const char *match_name(enum drmtop_match m)
{
	switch (m) {
	case DRMTOP_MATCH_CLIENT_ID:
		return "client_id";
	case DRMTOP_MATCH_FD:
		return "fd";
	case DRMTOP_MATCH_NONE:
		break;
	}
	return "none";
}

/* The tracer's figures of one client, beside fdinfo's when @with_fdinfo. */
static void json_bpf_view(struct json_writer *w, const struct drmtop_client_view *v,
			  bool with_fdinfo)
{
	size_t i;

	jw_object_begin(w);
	json_bpf_identity(w, &v->c);
	jw_kv_string(w, "match", match_name(v->match));
	jw_key(w, "memory");
	jw_object_begin(w);
	json_bpf_memory(w, &v->c, v->mem_shared);
	if (with_fdinfo) {
		jw_kv_u64(w, "fdinfo_total_bytes", v->fdinfo_total_bytes);
		jw_kv_bool(w, "compared", v->mem_compared);
		jw_kv_bool(w, "diverged", v->mem_diverged);
	}
	jw_object_end(w);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < v->nr_engines; i++) {
		const struct drmtop_engine_view *e = &v->engines[i];

		jw_object_begin(w);
		jw_kv_string(w, "name", e->name);
		jw_kv_u64(w, "busy_ns", e->busy_ns);
		jw_kv_u64(w, "jobs", e->jobs);
		jw_kv_double_or_null(w, "busy_pct", e->has_rate, e->bpf_pct, 2);
		if (e->has_rate) {
			jw_kv_u64(w, "busy_delta_ns", e->busy_delta_ns);
			jw_kv_u64(w, "jobs_delta", e->jobs_delta);
		}
		if (with_fdinfo) {
			jw_kv_bool(w, "in_fdinfo", e->in_fdinfo);
			jw_kv_double_or_null(w, "fdinfo_busy_pct", e->fdinfo_has_rate, e->fdinfo_pct, 2);
			jw_kv_bool(w, "diverged", e->diverged);
		}
		jw_key(w, "queue_to_run_latency");
		json_lat_hist(w, e->lat_hist);
		jw_object_end(w);
	}
	jw_array_end(w);
	if (with_fdinfo)
		jw_kv_bool(w, "diverged", v->diverged);
	jw_object_end(w);
}

/* A client that closed, as the tracer saw it at close (engine figures added up per uid). */
static void json_bpf_closed(struct json_writer *w, const struct drmtop_bpf_client *bc)
{
	size_t i;

	jw_object_begin(w);
	json_bpf_identity(w, &bc->c);
	jw_kv_u64(w, "open_ns", bc->c.open_ns);
	jw_kv_u64(w, "close_ns", bc->c.close_ns);
	jw_key(w, "memory_at_close");
	jw_object_begin(w);
	json_bpf_memory(w, &bc->c, bc->c.mem_shared);
	jw_object_end(w);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < bc->n_engines; i++) {
		jw_object_begin(w);
		jw_key(w, "name");
		jw_string_len(w, bc->engines[i].name,
			      strnlen(bc->engines[i].name, sizeof(bc->engines[i].name)));
		jw_kv_u64(w, "busy_ns", bc->engines[i].busy_ns);
		jw_kv_u64(w, "jobs", bc->engines[i].jobs);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}

static void json_bpf_summary(struct json_writer *w, const struct drmtop_frame *f)
{
	const struct drmtop_bpf_snapshot *s = f->bpf;
	size_t i, n;
	const struct drmtop_client_view *views;

	jw_key(w, "bpf");
	jw_object_begin(w);
	jw_kv_bool(w, "active", f->bpf_active);
	jw_key(w, f->bpf_active ? "detail" : "reason");
	jw_string(w, f->bpf_reason);
	if (s) {
		jw_key(w, "counters");
		jw_object_begin(w);
		for (i = 0; i < DRMTOP_CNT_MAX; i++) {
			jw_key(w, drmtop_bpf_counter_name(i));
			jw_u64(w, s->counters[i]);
		}
		jw_object_end(w);
		jw_key(w, "devices");
		jw_array_begin(w);
		for (i = 0; i < s->n_devices; i++) {
			const struct drmtop_device *d = &s->devices[i].d;

			jw_object_begin(w);
			jw_key(w, "driver");
			jw_string_len(w, d->driver, strnlen(d->driver, sizeof(d->driver)));
			jw_kv_i64(w, "minor", d->primary_index);
			jw_kv_u64(w, "gem_objects", d->gem_objects);
			jw_kv_u64(w, "gem_bytes", d->gem_bytes);
			jw_object_end(w);
		}
		jw_array_end(w);
	}
	if (f->rec) {
		/* Clients fdinfo does not show: kernel clients, processes out of sight. */
		jw_key(w, "unmatched_clients");
		jw_array_begin(w);
		views = drmtop_reconciled(f->rec, &n);
		for (i = 0; i < n; i++)
			if (views[i].match == DRMTOP_MATCH_NONE)
				json_bpf_view(w, &views[i], false);
		jw_array_end(w);
	}
	if (s) {
		jw_key(w, "closed_clients");
		jw_array_begin(w);
		for (i = 0; i < s->n_closed; i++)
			json_bpf_closed(w, &s->closed[i]);
		jw_array_end(w);
	}
	jw_object_end(w);
}

static void json_client(struct json_writer *w, const struct drmtop_frame *f, size_t index)
{
	const struct drm_client *c = &f->clients[index];
	const struct drm_fdinfo *fi = &c->info;
	size_t i;

	jw_object_begin(w);
	json_client_identity(w, c);
	if (c->cmdline)
		jw_kv_string(w, "cmdline", c->cmdline);
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
	jw_kv_string(w, "fdinfo_format", drm_fdinfo_format_name(fi->format));
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < fi->nr_engines; i++)
		json_engine(w, &fi->engines[i], c->usage ? &c->usage[i] : NULL);
	jw_array_end(w);
	jw_key(w, "memory");
	jw_array_begin(w);
	for (i = 0; i < fi->nr_regions; i++) {
		const struct drm_fdinfo_region *r = &fi->regions[i];

		json_region(w, r->name, r->present, r->total, r->shared, r->resident, r->purgeable,
			    r->active);
	}
	jw_array_end(w);
	jw_key(w, "extras");
	jw_object_begin(w);
	for (i = 0; i < fi->nr_extras; i++) {
		jw_key(w, fi->extras[i].key);
		jw_string(w, fi->extras[i].value);
	}
	jw_object_end(w);
	jw_kv_u64(w, "malformed_lines", fi->nr_malformed);
	if (f->rec) {
		const struct drmtop_client_view *v = drmtop_reconciled_for(f->rec, index);

		jw_key(w, "bpf");
		if (v)
			json_bpf_view(w, v, true);
		else
			jw_null(w);
	}
	jw_object_end(w);
}

static void json_device(struct json_writer *w, const struct drm_device *d)
{
	size_t i;

	jw_object_begin(w);
	jw_kv_string(w, "device", d->key);
	jw_kv_string(w, "driver", d->driver);
	if (d->pdev)
		jw_kv_string(w, "pdev", d->pdev);
	json_node(w, d->rdev);
	jw_kv_u64(w, "clients", d->nr_clients);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < d->nr_engines; i++) {
		const struct drm_device_engine *e = &d->engines[i];

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
	for (i = 0; i < d->nr_regions; i++) {
		const struct drm_device_region *r = &d->regions[i];

		json_region(w, r->name, r->present, r->total, r->shared, r->resident, r->purgeable,
			    r->active);
	}
	jw_array_end(w);
	jw_object_end(w);
}

static void json_stats(struct json_writer *w, const struct drm_scan_stats *s)
{
	const struct {
		const char *key;
		unsigned int v;
	} fields[] = {
		{ "processes", s->pids },
		{ "fds", s->fds },
		{ "drm_fds", s->drm_fds },
		{ "vanished", s->vanished },
		{ "denied", s->denied },
		{ "errors", s->errors },
		{ "malformed_lines", s->malformed_lines },
		{ "unsupported_format", s->unsupported },
		{ "no_client_id", s->no_client_id },
		{ "kcmp_failed", s->kcmp_failed },
		{ "new_clients", s->new_clients },
		{ "gone_clients", s->gone_clients },
	};
	size_t i;

	jw_object_begin(w);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		jw_key(w, fields[i].key);
		jw_u64(w, fields[i].v);
	}
	jw_object_end(w);
}

int drmtop_json_frame(FILE *out, const struct drmtop_frame *f)
{
	struct json_writer w;
	size_t i;

	jw_init(&w, out);
	jw_object_begin(&w);
	jw_kv_u64(&w, "iteration", f->iteration);
	jw_kv_u64(&w, "time_ns", f->realtime_ns);
	jw_kv_u64(&w, "interval_ns", f->interval_ns);
	jw_kv_string(&w, "status", drmtop_status_name(f->status));
	jw_kv_string(&w, "message", drmtop_status_message(f->status));
	jw_kv_u64(&w, "device_nodes", f->device_nodes);
	jw_kv_string(&w, "source", f->bpf_active ? "fdinfo+bpf" : "fdinfo");
	json_bpf_summary(&w, f);

	jw_key(&w, "devices");
	jw_array_begin(&w);
	for (i = 0; i < f->nr_devices; i++)
		json_device(&w, &f->devices[i]);
	jw_array_end(&w);

	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < f->nr_clients; i++)
		if (drmtop_frame_shows(f, &f->clients[i]))
			json_client(&w, f, i);
	jw_array_end(&w);

	jw_key(&w, "gone_clients");
	jw_array_begin(&w);
	for (i = 0; i < f->nr_gone; i++) {
		if (!drmtop_frame_shows(f, &f->gone[i]))
			continue;
		jw_object_begin(&w);
		json_client_identity(&w, &f->gone[i]);
		jw_object_end(&w);
	}
	jw_array_end(&w);

	if (f->stats) {
		jw_key(&w, "scan");
		json_stats(&w, f->stats);
	}
	jw_object_end(&w);
	return jw_finish_line(&w);
}
