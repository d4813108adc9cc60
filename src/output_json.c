// SPDX-License-Identifier: GPL-2.0-only
/*
 * The -J record. Keys are snake_case with the unit in the name (busy_ns, total_bytes, busy_pct).
 * A figure the driver did not print is left out, not written as 0; a rate that cannot be known
 * yet (new client, zero interval) is null.
 */
#include <stdio.h>
#include <sys/sysmacros.h>

#include "drmtop/json_writer.h"
#include "drmtop/output.h"

static void json_engine(struct json_writer *w, const struct drm_fdinfo_engine *e,
			const struct drm_engine_usage *u)
{
	double pct;
	bool over = false;

	jw_object_begin(w);
	jw_key(w, "name");
	jw_string(w, e->name);
	if (e->present & DRM_ENGINE_HAS_BUSY) {
		jw_key(w, "busy_ns");
		jw_u64(w, e->busy_ns);
	}
	jw_key(w, "capacity");
	jw_u64(w, e->capacity);
	if (e->present & DRM_ENGINE_HAS_CYCLES) {
		jw_key(w, "cycles");
		jw_u64(w, e->cycles);
	}
	if (e->present & DRM_ENGINE_HAS_TOTAL_CYCLES) {
		jw_key(w, "total_cycles");
		jw_u64(w, e->total_cycles);
	}
	if (e->present & DRM_ENGINE_HAS_MAXFREQ) {
		jw_key(w, "maxfreq_hz");
		jw_u64(w, e->maxfreq_hz);
	}
	jw_key(w, "busy_pct");
	if (u && drm_engine_usage_pct(u, &pct, &over))
		jw_double(w, pct, 2);
	else
		jw_null(w);
	if (u && (u->flags & DRM_USAGE_BUSY_VALID)) {
		jw_key(w, "busy_delta_ns");
		jw_u64(w, u->busy_delta_ns);
	}
	if (u && (u->flags & DRM_USAGE_CYCLES_VALID)) {
		jw_key(w, "cycles_pct");
		jw_double(w, u->cycles_pct, 2);
	}
	jw_key(w, "over_100");
	jw_bool(w, over);
	jw_key(w, "went_backwards");
	jw_bool(w, u && (u->flags & DRM_USAGE_BACKWARDS));
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
	jw_key(w, "region");
	jw_string(w, name);
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

	jw_key(w, "node");
	jw_string(w, drm_node_name(rdev, node, sizeof(node)));
	jw_key(w, "rdev");
	jw_object_begin(w);
	jw_key(w, "major");
	jw_u64(w, major(rdev));
	jw_key(w, "minor");
	jw_u64(w, minor(rdev));
	jw_object_end(w);
}

static void json_client_identity(struct json_writer *w, const struct drm_client *c)
{
	const struct drm_fdinfo *fi = &c->info;

	jw_key(w, "key");
	jw_string(w, c->key);
	jw_key(w, "pid");
	jw_i64(w, c->pid);
	jw_key(w, "fd");
	jw_i64(w, c->fd);
	jw_key(w, "comm");
	jw_string(w, c->comm);
	jw_key(w, "device");
	jw_string(w, c->dev_key);
	json_node(w, c->rdev);
	jw_key(w, "driver");
	jw_string(w, fi->driver);
	if (fi->pdev) {
		jw_key(w, "pdev");
		jw_string(w, fi->pdev);
	}
	jw_key(w, "client_id");
	if (fi->present & DRM_FDINFO_HAS_CLIENT_ID)
		jw_u64(w, fi->client_id);
	else
		jw_null(w);
	if (fi->client_name) {
		jw_key(w, "client_name");
		jw_string(w, fi->client_name);
	}
}

static void json_client(struct json_writer *w, const struct drm_client *c)
{
	const struct drm_fdinfo *fi = &c->info;
	size_t i;

	jw_object_begin(w);
	json_client_identity(w, c);
	if (c->cmdline) {
		jw_key(w, "cmdline");
		jw_string(w, c->cmdline);
	}
	jw_key(w, "accel");
	jw_bool(w, c->accel);
	jw_key(w, "holders");
	jw_array_begin(w);
	for (i = 0; i < c->nr_holders; i++) {
		jw_object_begin(w);
		jw_key(w, "pid");
		jw_i64(w, c->holders[i].pid);
		jw_key(w, "fd");
		jw_i64(w, c->holders[i].fd);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_key(w, "new");
	jw_bool(w, c->is_new);
	jw_key(w, "interval_ns");
	jw_u64(w, c->dt_ns);
	jw_key(w, "fdinfo_format");
	jw_string(w, drm_fdinfo_format_name(fi->format));
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
	jw_key(w, "malformed_lines");
	jw_u64(w, fi->nr_malformed);
	jw_object_end(w);
}

static void json_device(struct json_writer *w, const struct drm_device *d)
{
	size_t i;

	jw_object_begin(w);
	jw_key(w, "device");
	jw_string(w, d->key);
	jw_key(w, "driver");
	jw_string(w, d->driver);
	if (d->pdev) {
		jw_key(w, "pdev");
		jw_string(w, d->pdev);
	}
	json_node(w, d->rdev);
	jw_key(w, "clients");
	jw_u64(w, d->nr_clients);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < d->nr_engines; i++) {
		const struct drm_device_engine *e = &d->engines[i];

		jw_object_begin(w);
		jw_key(w, "name");
		jw_string(w, e->name);
		jw_key(w, "busy_pct");
		if (e->valid)
			jw_double(w, e->pct, 2);
		else
			jw_null(w);
		jw_key(w, "over_100");
		jw_bool(w, e->over);
		jw_key(w, "clients_with_figure");
		jw_u64(w, e->nr_clients);
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
	jw_key(&w, "iteration");
	jw_u64(&w, f->iteration);
	jw_key(&w, "time_ns");
	jw_u64(&w, f->realtime_ns);
	jw_key(&w, "interval_ns");
	jw_u64(&w, f->interval_ns);
	jw_key(&w, "status");
	jw_string(&w, drmtop_status_name(f->status));
	jw_key(&w, "message");
	jw_string(&w, drmtop_status_message(f->status));
	jw_key(&w, "device_nodes");
	jw_u64(&w, f->device_nodes);
	jw_key(&w, "source");
	jw_string(&w, f->bpf_active ? "fdinfo+bpf" : "fdinfo");
	jw_key(&w, "bpf");
	jw_object_begin(&w);
	jw_key(&w, "active");
	jw_bool(&w, f->bpf_active);
	if (!f->bpf_active) {
		jw_key(&w, "reason");
		jw_string(&w, f->bpf_reason);
	}
	jw_object_end(&w);

	jw_key(&w, "devices");
	jw_array_begin(&w);
	for (i = 0; i < f->nr_devices; i++)
		json_device(&w, &f->devices[i]);
	jw_array_end(&w);

	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < f->nr_clients; i++)
		if (drmtop_frame_shows(f, &f->clients[i]))
			json_client(&w, &f->clients[i]);
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
