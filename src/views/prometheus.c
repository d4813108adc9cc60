// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metrics exposition: Prometheus text format 0.0.4, or OpenMetrics 1.0.0 when the scraper
 * asks for it. Names carry their unit in base units (seconds, bytes); counters end in _total
 * (in OpenMetrics the family is named without it, as that format wants). Values are exact
 * decimals: nanosecond counters are printed as seconds with nine decimals, not through a double.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drmtop/prometheus.h"
#include "drmtop/util/clock.h"
#include "drmtop/util/utf8.h"

struct out {
	FILE *f;
	enum drmtop_prom_format fmt;
};

/* ---- content negotiation ---- */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* One media range "type/sub; k=v; ...": @om, @text get its q if it names that format. */
static void media_range(const char *p, const char *end, double *om, double *text)
{
	const char *semi = memchr(p, ';', (size_t)(end - p));
	const char *tend = semi ? semi : end;
	bool version_ok = true, is_om = false, is_text = false, any = false;
	double q = 1.0;
	size_t tl;

	p = skip_ws(p, tend);
	while (tend > p && (tend[-1] == ' ' || tend[-1] == '\t'))
		tend--;
	tl = (size_t)(tend - p);
	if (tl == 28 && !strncasecmp(p, "application/openmetrics-text", tl))
		is_om = true;
	else if (tl == 10 && !strncasecmp(p, "text/plain", tl))
		is_text = true;
	else if ((tl == 3 && !strncmp(p, "*/*", 3)) || (tl == 6 && !strncasecmp(p, "text/*", 6)))
		is_text = any = true;
	else
		return;
	p = semi;
	while (p && p < end) {
		const char *k = skip_ws(p + 1, end), *next = memchr(k, ';', (size_t)(end - k));
		const char *pend = next ? next : end, *eq = memchr(k, '=', (size_t)(pend - k));
		char val[32];
		size_t vl;

		p = next;
		if (!eq)
			continue;
		eq = skip_ws(eq + 1, pend);
		vl = (size_t)(pend - eq);
		while (vl && (eq[vl - 1] == ' ' || eq[vl - 1] == '\t'))
			vl--;
		if (vl >= sizeof(val))
			vl = sizeof(val) - 1;
		memcpy(val, eq, vl);
		val[vl] = '\0';
		if (!strncasecmp(k, "q=", 2) || !strncasecmp(k, "q =", 3))
			q = strtod(val, NULL);
		else if (!strncasecmp(k, "version", 7) && !any)
			version_ok = !strcmp(val, is_om ? "1.0.0" : "0.0.4");
	}
	if (!version_ok || !(q > 0))
		return;
	if (is_om && q > *om)
		*om = q;
	if (is_text && q > *text)
		*text = q;
}

enum drmtop_prom_format drmtop_prom_negotiate(const char *accept)
{
	double om = 0, text = 0;
	const char *p = accept, *end;

	if (!accept)
		return DRMTOP_PROM_TEXT;
	end = accept + strlen(accept);
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));

		media_range(p, comma ? comma : end, &om, &text);
		p = comma ? comma + 1 : end;
	}
	/* OpenMetrics when preferred or tied: a scraper that names it can parse it. */
	return om > 0 && om >= text ? DRMTOP_PROM_OPENMETRICS : DRMTOP_PROM_TEXT;
}

const char *drmtop_prom_content_type(enum drmtop_prom_format fmt)
{
	return fmt == DRMTOP_PROM_OPENMETRICS
		       ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		       : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- writing ---- */

void drmtop_prom_label_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = utf8_seq_len(p + i, len - i);

		if (!n) {
			fputs("\xef\xbf\xbd", out);
			i++;
			continue;
		}
		if (p[i] == '\\')
			fputs("\\\\", out);
		else if (p[i] == '"')
			fputs("\\\"", out);
		else if (p[i] == '\n')
			fputs("\\n", out);
		else
			fwrite(p + i, 1, n, out);
		i += n;
	}
}

/*
 * HELP and TYPE (and UNIT in OpenMetrics) of a family. @base is the name without _total;
 * @unit is the unit suffix of the name, or NULL.
 */
static void family(struct out *o, const char *base, const char *type, const char *unit,
		   const char *help)
{
	bool counter = !strcmp(type, "counter");
	const char *suffix = counter && o->fmt == DRMTOP_PROM_TEXT ? "_total" : "";

	fprintf(o->f, "# HELP %s%s ", base, suffix);
	/* Text 0.0.4 escapes \\ and newline in HELP; OpenMetrics also the double quote. */
	for (; *help; help++) {
		if (*help == '\\' || *help == '\n' ||
		    (*help == '"' && o->fmt == DRMTOP_PROM_OPENMETRICS))
			fputc('\\', o->f);
		fputc(*help == '\n' ? 'n' : *help, o->f);
	}
	fputc('\n', o->f);
	fprintf(o->f, "# TYPE %s%s %s\n", base, suffix, type);
	if (o->fmt == DRMTOP_PROM_OPENMETRICS && unit)
		fprintf(o->f, "# UNIT %s %s\n", base, unit);
}

static void label(struct out *o, bool *first, const char *name, const char *value)
{
	fprintf(o->f, "%s%s=\"", *first ? "{" : ",", name);
	drmtop_prom_label_value(o->f, value ? value : "");
	fputc('"', o->f);
	*first = false;
}

/* The client labels the series were asked for (series.h's one table), in its order. */
static void client_labels(struct out *o, const struct drmtop_series *s,
			  const struct drmtop_series_client *c, bool *first)
{
	char buf[24];
	size_t l;

	for (l = 0; l < DRMTOP_LABEL_MAX; l++)
		if (s->labels & DRMTOP_LABEL_BIT(l))
			label(o, first, drmtop_series_label_name((enum drmtop_series_label)l),
			      drmtop_series_label_value(&c->id, (enum drmtop_series_label)l, buf));
}

static void end_labels(struct out *o, bool first)
{
	fputs(first ? " " : "} ", o->f);
}

static void value_u64(struct out *o, uint64_t v)
{
	fprintf(o->f, "%" PRIu64 "\n", v);
}

static void value_ns(struct out *o, uint64_t ns)
{
	fprintf(o->f, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

/*
 * Engine families: busy time per source (the best figure in the plain family, each source's
 * own in drmtop_fdinfo_* and drmtop_bpf_*, so no natural sum counts the same work twice), and
 * the tracer's job counts.
 */
struct engine_family {
	const char *base;		/* without _total */
	enum drmtop_series_source source;
	bool jobs;
	const char *help;
};

static const struct engine_family client_engine_families[] = {
	{ "drmtop_client_engine_busy_seconds", DRMTOP_SERIES_BEST, false,
	  "Engine busy time of DRM clients, one figure per engine: the driver's fdinfo time "
	  "(drm-engine-<engine>) when it prints one for the client, else the tracer's. Closed "
	  "clients' time stays in their series. A series per command and workload: workload is "
	  "the client's cgroup (pod, container, systemd unit or slice), container_id its "
	  "container as kube_pod_container_info's (runtime://id), pod_uid its pod's UID, \"\" "
	  "outside containers and pods." },
	{ "drmtop_client_jobs", DRMTOP_SERIES_BPF, true,
	  "GPU scheduler jobs of DRM clients that ran on an engine (the tracer's count)." },
	{ "drmtop_fdinfo_client_engine_busy_seconds", DRMTOP_SERIES_FDINFO, false,
	  "Engine busy time of DRM clients as their fdinfo says (drm-engine-<engine>, never "
	  "going back), for cross-checking." },
	{ "drmtop_bpf_client_engine_busy_seconds", DRMTOP_SERIES_BPF, false,
	  "Engine busy time of DRM clients as the tracer counts it (the GPU scheduler's jobs on "
	  "the engine's rings), for cross-checking." },
};

static const struct engine_family device_engine_families[] = {
	{ "drmtop_device_engine_busy_seconds", DRMTOP_SERIES_BEST, false,
	  "Engine busy time of all DRM clients of a device, closed ones included: the sum of "
	  "drmtop_client_engine_busy_seconds." },
	{ "drmtop_device_jobs", DRMTOP_SERIES_BPF, true,
	  "GPU scheduler jobs of all DRM clients of a device, closed ones included (the "
	  "tracer's count)." },
	{ "drmtop_fdinfo_device_engine_busy_seconds", DRMTOP_SERIES_FDINFO, false,
	  "Engine busy time of all DRM clients of a device as fdinfo says, closed ones "
	  "included." },
	{ "drmtop_bpf_device_engine_busy_seconds", DRMTOP_SERIES_BPF, false,
	  "Engine busy time of all DRM clients of a device as the tracer counts it, closed ones "
	  "included." },
};

static bool engine_sample(const struct engine_family *f, const struct drmtop_series_engine *e)
{
	return e->source == f->source && (!f->jobs || e->has_jobs);
}

static void engine_value(struct out *o, const struct engine_family *f,
			 const struct drmtop_series_engine *e)
{
	if (f->jobs)
		value_u64(o, e->jobs);
	else
		value_ns(o, e->busy_ns);
}

static void client_engines(struct out *o, const struct drmtop_series *s,
			   const struct engine_family *f)
{
	size_t i, k;

	family(o, f->base, "counter", f->jobs ? NULL : "seconds", f->help);
	for (i = 0; i < s->nr_clients; i++) {
		const struct drmtop_series_client *c = s->clients[i];

		for (k = 0; c->visible && k < c->nr_engines; k++) {
			bool first = true;

			if (!engine_sample(f, &c->engines[k]))
				continue;
			fprintf(o->f, "%s_total", f->base);
			client_labels(o, s, c, &first);
			label(o, &first, "engine", c->engines[k].name);
			end_labels(o, first);
			engine_value(o, f, &c->engines[k]);
		}
	}
}

enum mem_value { MEM_HELD, MEM_RESIDENT, MEM_SHARED, MEM_PURGEABLE, MEM_ACTIVE, MEM_IMPORTED };

/* The figure of @m to show as @what, false when the source did not print it. */
static bool mem_figure(const struct drmtop_series_mem *m, enum mem_value what, uint64_t *v)
{
	switch (what) {
	case MEM_HELD:
		/* "total, else resident", as every view counts a client's memory */
		*v = m->present & DRMTOP_MEM_TOTAL ? m->total : m->resident;
		return m->present & (DRMTOP_MEM_TOTAL | DRMTOP_MEM_RESIDENT);
	case MEM_RESIDENT:
		*v = m->resident;
		return m->present & DRMTOP_MEM_RESIDENT;
	case MEM_SHARED:
		*v = m->shared;
		return m->present & DRMTOP_MEM_SHARED;
	case MEM_PURGEABLE:
		*v = m->purgeable;
		return m->present & DRMTOP_MEM_PURGEABLE;
	case MEM_ACTIVE:
		*v = m->active;
		return m->present & DRMTOP_MEM_ACTIVE;
	case MEM_IMPORTED:
		*v = m->imported;
		return m->present & DRMTOP_SERIES_MEM_IMPORTED;
	}
	return false;
}

/* Memory families: which figure, from which source (best: one per client and region). */
struct mem_family {
	const char *name;
	enum mem_value what;
	enum drmtop_series_source source;
	const char *help;
};

static const struct mem_family client_mem_families[] = {
	{ "drmtop_client_memory_bytes", MEM_HELD, DRMTOP_SERIES_BEST,
	  "Memory DRM clients hold per region: the driver's fdinfo regions (drm-total, else "
	  "drm-resident) when it prints any for the client, else the tracer's GEM bytes (region "
	  "gem). Per command and workload (container_id, pod_uid) as the busy time." },
	{ "drmtop_client_memory_shared_bytes", MEM_SHARED, DRMTOP_SERIES_BEST,
	  "Memory DRM clients share with others per region, from the same source as "
	  "drmtop_client_memory_bytes (drm-shared; the tracer: GEM objects with more than one "
	  "handle or a dma-buf)." },
	{ "drmtop_client_memory_resident_bytes", MEM_RESIDENT, DRMTOP_SERIES_FDINFO,
	  "Resident memory of DRM clients per region (drm-resident)." },
	{ "drmtop_client_memory_purgeable_bytes", MEM_PURGEABLE, DRMTOP_SERIES_FDINFO,
	  "Purgeable memory of DRM clients per region (drm-purgeable)." },
	{ "drmtop_client_memory_active_bytes", MEM_ACTIVE, DRMTOP_SERIES_FDINFO,
	  "Memory of DRM clients in use by the GPU per region (drm-active)." },
	{ "drmtop_client_memory_imported_bytes", MEM_IMPORTED, DRMTOP_SERIES_BPF,
	  "Bytes of GEM objects DRM clients imported through PRIME (the tracer)." },
	{ "drmtop_fdinfo_client_memory_bytes", MEM_HELD, DRMTOP_SERIES_FDINFO,
	  "Memory DRM clients hold per region as fdinfo says (drm-total, else drm-resident), for "
	  "cross-checking." },
	{ "drmtop_bpf_client_memory_bytes", MEM_HELD, DRMTOP_SERIES_BPF,
	  "Bytes of the GEM objects DRM clients have handles to, as the tracer counts them "
	  "(region gem), for cross-checking." },
};

static bool client_mem_sample(const struct drmtop_series_client *c, const struct mem_family *f,
			      size_t k, uint64_t *v)
{
	return c->visible && c->mems[k].source == f->source && mem_figure(&c->mems[k], f->what, v);
}

static void client_mem(struct out *o, const struct drmtop_series *s, const struct mem_family *f)
{
	bool any = false;
	size_t i, k;
	uint64_t v;

	/* A family with no sample is left out whole: HELP without samples is noise. */
	for (i = 0; i < s->nr_clients && !any; i++)
		for (k = 0; k < s->clients[i]->nr_mems && !any; k++)
			any = client_mem_sample(s->clients[i], f, k, &v);
	if (!any)
		return;
	family(o, f->name, "gauge", "bytes", f->help);
	for (i = 0; i < s->nr_clients; i++) {
		const struct drmtop_series_client *c = s->clients[i];

		for (k = 0; k < c->nr_mems; k++) {
			bool first = true;

			if (!client_mem_sample(c, f, k, &v))
				continue;
			fputs(f->name, o->f);
			client_labels(o, s, c, &first);
			label(o, &first, "region", c->mems[k].region);
			end_labels(o, first);
			value_u64(o, v);
		}
	}
}

static void clients(struct out *o, const struct drmtop_series *s)
{
	size_t i;

	for (i = 0; i < sizeof(client_engine_families) / sizeof(client_engine_families[0]); i++)
		client_engines(o, s, &client_engine_families[i]);
	for (i = 0; i < sizeof(client_mem_families) / sizeof(client_mem_families[0]); i++)
		client_mem(o, s, &client_mem_families[i]);
	family(o, "drmtop_client_open", "gauge", NULL,
	       "Open DRM clients behind a series: by default the clients of a command in a "
	       "workload (0 once all closed, kept a while); with per-client labels 1, 0 once "
	       "closed (its final counters stay until scraped), or the clients folded past "
	       "--max-clients.");
	for (i = 0; i < s->nr_clients; i++) {
		const struct drmtop_series_client *c = s->clients[i];
		bool first = true;

		if (!c->visible)
			continue;
		fputs("drmtop_client_open", o->f);
		client_labels(o, s, c, &first);
		end_labels(o, first);
		value_u64(o, c->live);
	}
}

static void device_labels(struct out *o, const struct drmtop_series_device *d, bool *first)
{
	label(o, first, "driver", d->driver);
	label(o, first, "device", d->device);
}

static void device_engines(struct out *o, const struct drmtop_series *s,
			   const struct engine_family *f)
{
	size_t i, k;

	family(o, f->base, "counter", f->jobs ? NULL : "seconds", f->help);
	for (i = 0; i < s->nr_devices; i++) {
		const struct drmtop_series_device *d = s->devices[i];

		for (k = 0; k < d->nr_engines; k++) {
			bool first = true;

			if (!engine_sample(f, &d->engines[k]))
				continue;
			fprintf(o->f, "%s_total", f->base);
			device_labels(o, d, &first);
			label(o, &first, "engine", d->engines[k].name);
			end_labels(o, first);
			engine_value(o, f, &d->engines[k]);
		}
	}
}

static void device_mem(struct out *o, const struct drmtop_series *s, const char *name,
		       enum drmtop_series_source src, const char *help)
{
	size_t i, k;
	uint64_t v;

	family(o, name, "gauge", "bytes", help);
	for (i = 0; i < s->nr_devices; i++) {
		const struct drmtop_series_device *d = s->devices[i];

		for (k = 0; k < d->nr_mems; k++) {
			bool first = true;

			if (d->mems[k].source != src || !mem_figure(&d->mems[k], MEM_HELD, &v))
				continue;
			fputs(name, o->f);
			device_labels(o, d, &first);
			label(o, &first, "region", d->mems[k].region);
			end_labels(o, first);
			value_u64(o, v);
		}
	}
}

static void devices(struct out *o, const struct drmtop_series *s)
{
	size_t i;

	for (i = 0; i < sizeof(device_engine_families) / sizeof(device_engine_families[0]); i++)
		device_engines(o, s, &device_engine_families[i]);
	device_mem(o, s, "drmtop_device_memory_bytes", DRMTOP_SERIES_BEST,
		   "Memory the open DRM clients of a device hold per region: the sum of "
		   "drmtop_client_memory_bytes (a buffer shared by several clients counts for "
		   "each).");
	device_mem(o, s, "drmtop_fdinfo_device_memory_bytes", DRMTOP_SERIES_FDINFO,
		   "Memory the open DRM clients of a device hold per region as fdinfo says "
		   "(total, else resident), for cross-checking.");
	family(o, "drmtop_device_clients", "gauge", NULL, "Open DRM clients of a device (fdinfo).");
	for (i = 0; i < s->nr_devices; i++) {
		bool first = true;

		if (!s->devices[i]->present)
			continue;
		fputs("drmtop_device_clients", o->f);
		device_labels(o, s->devices[i], &first);
		end_labels(o, first);
		value_u64(o, s->devices[i]->clients);
	}
	family(o, "drmtop_device_clients_diverged", "gauge", NULL,
	       "Open DRM clients of a device whose driver's figures (fdinfo) and the tracer's "
	       "disagree in the last sample, past --diverge-threshold and the two sources' "
	       "timing slack (not counted while the tracer misses events: the finding is then "
	       "inconclusive).");
	for (i = 0; i < s->nr_devices; i++) {
		bool first = true;

		if (!s->devices[i]->present && !s->devices[i]->diverged)
			continue;
		fputs("drmtop_device_clients_diverged", o->f);
		device_labels(o, s->devices[i], &first);
		end_labels(o, first);
		value_u64(o, s->devices[i]->diverged);
	}
	family(o, "drmtop_device_gem_bytes", "gauge", "bytes",
	       "Bytes of all live GEM objects of a device, the tracer's count (bpf).");
	for (i = 0; i < s->nr_devices; i++) {
		bool first = true;

		if (!s->devices[i]->has_gem)
			continue;
		fputs("drmtop_device_gem_bytes", o->f);
		device_labels(o, s->devices[i], &first);
		end_labels(o, first);
		value_u64(o, s->devices[i]->gem_bytes);
	}
	family(o, "drmtop_device_gem_objects", "gauge", NULL,
	       "Live GEM objects of a device, the tracer's count (bpf).");
	for (i = 0; i < s->nr_devices; i++) {
		bool first = true;

		if (!s->devices[i]->has_gem)
			continue;
		fputs("drmtop_device_gem_objects", o->f);
		device_labels(o, s->devices[i], &first);
		end_labels(o, first);
		value_u64(o, s->devices[i]->gem_objects);
	}
}

/* A family of one unlabelled sample. */
static void single(struct out *o, const char *base, const char *type, const char *unit,
		   const char *help, uint64_t v, bool ns)
{
	family(o, base, type, unit, help);
	fprintf(o->f, "%s%s ", base, !strcmp(type, "counter") ? "_total" : "");
	if (ns)
		value_ns(o, v);
	else
		value_u64(o, v);
}

static const char *kind_name(enum drmtop_counter_kind k)
{
	switch (k) {
	case DRMTOP_COUNTER_LOSS:
		return "loss";
	case DRMTOP_COUNTER_NOTE:
		return "note";
	case DRMTOP_COUNTER_TOTAL:
		return "total";
	}
	return "?";
}

static void health(struct out *o, const struct drmtop_series *s,
		   const struct drmtop_prom_info *info)
{
	static const enum drmtop_status statuses[] = {
		DRMTOP_STATUS_OK, DRMTOP_STATUS_NO_CLIENT, DRMTOP_STATUS_NO_DEVICE,
	};
	uint64_t now = drmtop_mono_ns();
	size_t i;

	if (o->fmt == DRMTOP_PROM_OPENMETRICS) {
		family(o, "drmtop_build", "info", NULL, "drmtop's version.");
	} else {
		family(o, "drmtop_build_info", "gauge", NULL, "drmtop's version (always 1).");
	}
	fputs("drmtop_build_info{version=\"", o->f);
	drmtop_prom_label_value(o->f, info->version ? info->version : "");
	fputs("\"} 1\n", o->f);
	single(o, "drmtop_scrape_duration_seconds", "gauge", "seconds",
	       "Time this scrape took to render the metrics above it.",
	       now > info->start_ns ? now - info->start_ns : 0, true);
	single(o, "drmtop_sample_duration_seconds", "gauge", "seconds",
	       "Time the last sample of the sources (fdinfo scan, tracer maps) took.",
	       s->last_sample_ns, true);
	single(o, "drmtop_last_sample_timestamp_seconds", "gauge", "seconds",
	       "Wall-clock time of the last sample (0 before the first).", s->last_realtime_ns,
	       true);
	single(o, "drmtop_samples", "counter", NULL, "Samples taken of the sources.", s->samples,
	       false);
	single(o, "drmtop_refresh_errors", "counter", NULL,
	       "Samples that failed (the proc tree unreadable, out of memory); the previous "
	       "figures stay.", s->refresh_errors, false);
	family(o, "drmtop_status", "gauge", NULL,
	       "What the last sample found: 1 for the current status (ok: clients; no_client: "
	       "devices but no client; no_device: no DRM or accel device).");
	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		fprintf(o->f, "drmtop_status{status=\"%s\"} %d\n", drmtop_status_name(statuses[i]),
			s->samples && s->status == statuses[i]);
	single(o, "drmtop_bpf_tracer_active", "gauge", NULL,
	       "1 when the BPF tracer is attached and its figures are in the last sample.",
	       s->bpf_active, false);
	single(o, "drmtop_bpf_hooks_attached", "gauge", NULL,
	       "The tracer's programs attached to kernel hooks.", s->bpf_hooks_attached, false);
	single(o, "drmtop_bpf_hooks", "gauge", NULL,
	       "The tracer's programs of the parts loaded or tried (attached or not).",
	       s->bpf_hooks, false);
	family(o, "drmtop_bpf_events", "counter", NULL,
	       "The tracer's own counters: kind loss (dropped or unattributed), note, total.");
	for (i = 0; i < s->nr_counters; i++) {
		bool first = true;

		fputs("drmtop_bpf_events_total", o->f);
		label(o, &first, "counter", s->counters[i].name);
		label(o, &first, "kind", kind_name(s->counters[i].kind));
		end_labels(o, first);
		value_u64(o, s->counters[i].value);
	}
	single(o, "drmtop_bpf_missed_events", "counter", NULL,
	       "Events the tracer missed: its loss counters plus program runs the kernel skipped. "
	       "While it grows, the tracer's figures are lower bounds.", s->missed, false);
	family(o, "drmtop_bpf_prog_recursion_misses", "counter", NULL,
	       "Runs of a tracer program the kernel skipped (recursion): events it never saw.");
	for (i = 0; i < s->nr_progs; i++) {
		bool first = true;

		fputs("drmtop_bpf_prog_recursion_misses_total", o->f);
		label(o, &first, "prog", s->progs[i].name);
		end_labels(o, first);
		value_u64(o, s->progs[i].value);
	}
	family(o, "drmtop_scan_items", "gauge", NULL,
	       "What the last fdinfo scan went through and skipped (vanished, denied, errors, "
	       "malformed lines, unsupported formats, ...).");
	if (s->has_scan) {
		const struct drmtop_model_scan *sc = &s->scan;
		const struct {
			const char *name;
			unsigned int v;
		} items[] = {
			{ "processes", sc->processes }, { "fds", sc->fds },
			{ "drm_fds", sc->drm_fds }, { "vanished", sc->vanished },
			{ "denied", sc->denied }, { "errors", sc->errors },
			{ "malformed_lines", sc->malformed_lines },
			{ "unsupported_format", sc->unsupported_format },
			{ "no_client_id", sc->no_client_id }, { "kcmp_failed", sc->kcmp_failed },
			{ "cmdline_blocked", sc->cmdline_blocked },
		};

		for (i = 0; i < sizeof(items) / sizeof(items[0]); i++)
			fprintf(o->f, "drmtop_scan_items{item=\"%s\"} %u\n", items[i].name,
				items[i].v);
	}
	single(o, "drmtop_max_clients", "gauge", NULL,
	       "Per-client series allowed with per-client labels (--max-clients); later clients "
	       "are folded by comm and workload.",
	       s->max_clients, false);
	single(o, "drmtop_clients_open", "gauge", NULL, "Open DRM clients tracked.",
	       s->live_clients, false);
	single(o, "drmtop_clients_open_folded", "gauge", NULL,
	       "Of the open clients, those in series per comm and workload (all by default; with "
	       "per-client labels, those past --max-clients, pid=\"\" client_id=\"\").",
	       s->folded_live, false);
	single(o, "drmtop_clients_folded", "counter", NULL,
	       "Clients folded into series per comm and workload since start because of "
	       "--max-clients.",
	       s->folded_total, false);
	single(o, "drmtop_clients_closed", "counter", NULL, "Clients seen to close since start.",
	       s->closed_total, false);
	single(o, "drmtop_series_forgotten", "counter", NULL,
	       "Hidden series (no open client) dropped to bound memory (their label sets would start "
	       "again from 0 if they came back).", s->forgotten_total, false);
	single(o, "drmtop_scrapes", "counter", NULL, "Scrapes of /metrics answered.",
	       info->scrapes, false);
	single(o, "drmtop_http_connections", "gauge", NULL, "HTTP connections open.",
	       info->connections, false);
	single(o, "drmtop_http_rejected_connections", "counter", NULL,
	       "Connections turned away at the connection limit, every connection sending a "
	       "response.", info->rejected, false);
	single(o, "drmtop_http_evicted_connections", "counter", NULL,
	       "Idle or slow connections closed at the connection limit to let a new one in "
	       "(the oldest of the local user or address holding the most).", info->evicted,
	       false);
	single(o, "drmtop_http_timeouts", "counter", NULL,
	       "Connections closed for sending or reading too slowly.", info->timeouts, false);
	single(o, "drmtop_http_bad_requests", "counter", NULL,
	       "Malformed or oversized HTTP requests.", info->bad_requests, false);
}

int drmtop_prom_write(FILE *out, const struct drmtop_series *s, enum drmtop_prom_format fmt,
		      const struct drmtop_prom_info *info)
{
	struct out o = { .f = out, .fmt = fmt };

	clients(&o, s);
	devices(&o, s);
	health(&o, s, info);
	if (fmt == DRMTOP_PROM_OPENMETRICS)
		fputs("# EOF\n", out);
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
