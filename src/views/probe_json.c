// SPDX-License-Identifier: GPL-2.0-only
/*
 * `drmtop probe -J`: the probe as one JSON object on one line. A fact the probe could not
 * establish is null, never a guess; the driver table is printed in full so a consumer can map
 * rings to engines without drmtop.
 */
#include <stdio.h>

#include "drmtop/drivers.h"
#include "drmtop/json_writer.h"
#include "drmtop/probe.h"

static void kv_tristate(struct json_writer *w, const char *key, enum drmtop_tristate v)
{
	jw_key(w, key);
	if (v == DRMTOP_UNKNOWN)
		jw_null(w);
	else
		jw_bool(w, v == DRMTOP_YES);
}

static void kv_string_or_null(struct json_writer *w, const char *key, const char *s)
{
	jw_key(w, key);
	if (s && *s)
		jw_string(w, s);
	else
		jw_null(w);
}

static void kernel(struct json_writer *w, const struct drmtop_probe *p)
{
	jw_key(w, "kernel");
	jw_object_begin(w);
	jw_kv_string(w, "release", p->kernel.release);
	jw_kv_string(w, "machine", p->kernel.machine);
	jw_key(w, "btf");
	jw_object_begin(w);
	jw_kv_bool(w, "vmlinux", p->kernel.btf_vmlinux);
	kv_string_or_null(w, "why", p->kernel.btf_vmlinux ? NULL : p->kernel.btf_why);
	jw_kv_string(w, "drm", drmtop_probe_mod_name(p->kernel.drm));
	jw_kv_string(w, "gpu_sched", drmtop_probe_mod_name(p->kernel.gpu_sched));
	jw_object_end(w);
	jw_object_end(w);
}

static void tracepoints(struct json_writer *w, const struct drmtop_probe *p)
{
	size_t i;

	jw_key(w, "tracepoints");
	jw_object_begin(w);
	kv_string_or_null(w, "generation", drmtop_tp_gen_name(p->tracepoints.generation));
	jw_kv_string(w, "source", p->tracepoints.why);
	jw_key(w, "scheduler");
	jw_object_begin(w);
	for (i = 0; i < DRMTOP_PROBE_TP_NAMES; i++) {
		if (!p->tracepoints.names[i])
			continue;
		jw_key(w, p->tracepoints.names[i]);
		if (p->tracepoints.generation == DRMTOP_TP_GEN_UNKNOWN)
			jw_null(w);
		else
			jw_bool(w, p->tracepoints.present[i]);
	}
	jw_object_end(w);
	kv_tristate(w, "fence_drm_client_id", p->tracepoints.fence_client_id);
	jw_key(w, "gpu_mem_total");
	jw_object_begin(w);
	kv_tristate(w, "present", p->tracepoints.gpu_mem_total);
	jw_kv_string(w, "where", p->tracepoints.gpu_mem_where);
	jw_object_end(w);
	jw_object_end(w);
}

static void privileges(struct json_writer *w, const struct drmtop_probe *p)
{
	jw_key(w, "privileges");
	jw_object_begin(w);
	jw_kv_u64(w, "euid", p->privileges.euid);
	jw_kv_bool(w, "root", p->privileges.euid == 0);
	kv_tristate(w, "cap_bpf", !p->privileges.caps_known ? DRMTOP_UNKNOWN :
				  p->privileges.cap_bpf ? DRMTOP_YES : DRMTOP_NO);
	kv_tristate(w, "cap_perfmon", !p->privileges.caps_known ? DRMTOP_UNKNOWN :
				      p->privileges.cap_perfmon ? DRMTOP_YES : DRMTOP_NO);
	kv_tristate(w, "cap_sys_admin", !p->privileges.caps_known ? DRMTOP_UNKNOWN :
					p->privileges.cap_sys_admin ? DRMTOP_YES : DRMTOP_NO);
	jw_object_end(w);
}

static void bpf(struct json_writer *w, const struct drmtop_probe *p)
{
	size_t i;

	jw_key(w, "bpf");
	jw_object_begin(w);
	jw_kv_bool(w, "tried", p->bpf.tried);
	jw_kv_bool(w, "opened", p->bpf.opened);
	kv_string_or_null(w, "why", p->bpf.opened ? NULL : p->bpf.why);
	kv_string_or_null(w, "reason", p->bpf.opened ? p->bpf.reason : NULL);
	jw_key(w, "maps");
	jw_object_begin(w);
	for (i = 0; i < DRMTOP_LIMIT_COUNT; i++)
		jw_kv_u64(w, drmtop_bpf_limit_names[i], p->bpf.map_limits[i]);
	jw_kv_u64(w, "kernel_bytes", p->bpf.map_bytes);
	jw_object_end(w);
	jw_object_end(w);

	jw_key(w, "hooks");
	jw_array_begin(w);
	for (i = 0; i < p->bpf.nr_hooks; i++) {
		const struct drmtop_probe_hook *h = &p->bpf.hooks[i];

		jw_object_begin(w);
		jw_kv_string(w, "part", h->part);
		jw_kv_string(w, "prog", h->prog);
		jw_kv_string(w, "target", h->target);
		jw_kv_bool(w, "attached", h->attached);
		kv_string_or_null(w, "why", h->attached ? NULL : h->why);
		jw_object_end(w);
	}
	jw_array_end(w);
}

static void devices(struct json_writer *w, const struct drmtop_probe *p)
{
	size_t i;

	jw_key(w, "devices");
	jw_array_begin(w);
	for (i = 0; i < p->nr_devices; i++) {
		const struct drmtop_probe_device *d = &p->devices[i];

		jw_object_begin(w);
		jw_kv_string(w, "node", d->node);
		jw_kv_u64(w, "major", d->major);
		jw_kv_u64(w, "minor", d->minor);
		jw_kv_bool(w, "in_dev", d->in_dev);
		kv_string_or_null(w, "driver", d->driver);
		kv_string_or_null(w, "parent", d->parent);
		jw_kv_bool(w, "in_driver_table", d->in_table);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_kv_bool(w, "devices_truncated", p->devices_truncated);
}

static void drivers(struct json_writer *w)
{
	const struct drmtop_driver_info *const *all;
	size_t n = drmtop_drivers(&all), i, j;

	jw_key(w, "drivers");
	jw_array_begin(w);
	for (i = 0; i < n; i++) {
		const struct drmtop_driver_info *d = all[i];

		jw_object_begin(w);
		jw_kv_string(w, "driver", d->driver);
		jw_key(w, "aliases");
		jw_array_begin(w);
		for (j = 0; j < d->nr_aliases; j++)
			jw_string(w, d->aliases[j]);
		jw_array_end(w);
		jw_kv_string(w, "timing", drmtop_timing_name(d->timing));
		jw_kv_string(w, "since", d->since);
		jw_key(w, "rings");
		jw_array_begin(w);
		for (j = 0; j < d->nr_rings; j++) {
			const struct drmtop_ring_rule *r = &d->rings[j];

			jw_object_begin(w);
			jw_kv_string(w, "pattern", r->pattern);
			kv_string_or_null(w, "engine", r->engine);
			/* the name drmtop shows the ring under where it feeds no fdinfo engine */
			if (!r->engine)
				kv_string_or_null(w, "label", r->label);
			jw_kv_string(w, "timing", drmtop_timing_name(drmtop_rule_timing(d, r)));
			jw_object_end(w);
		}
		jw_array_end(w);
		jw_key(w, "kernel_client_ids");
		jw_array_begin(w);
		for (j = 0; j < d->nr_kernel_ids; j++) {
			jw_object_begin(w);
			jw_kv_u64(w, "first", d->kernel_ids[j].first);
			jw_kv_u64(w, "last", d->kernel_ids[j].last);
			jw_object_end(w);
		}
		jw_array_end(w);
		jw_kv_string(w, "notes", d->notes);
		jw_object_end(w);
	}
	jw_array_end(w);
}

int drmtop_probe_print_json(FILE *out, const struct drmtop_probe *p)
{
	struct json_writer w;

	jw_init(&w, out);
	jw_object_begin(&w);
	kernel(&w, p);
	tracepoints(&w, p);
	privileges(&w, p);
	bpf(&w, p);
	devices(&w, p);
	drivers(&w);
	jw_object_end(&w);
	return jw_finish_line(&w);
}
