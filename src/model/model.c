// SPDX-License-Identifier: GPL-2.0-only
/*
 * Builds the model from the sources' outputs. Everything is copied into the model's pool, so
 * the model outlives the sources' buffers until the next build.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "drmtop/cgroup_name.h"
#include "drmtop/drivers.h"
#include "drmtop/model_build.h"
#include "drmtop/usage.h"
#include "drmtop/util/pool.h"
#include "drmtop/util/strmap.h"

struct build {
	struct drmtop_model *m;
	const struct drmtop_model_input *in;
	struct drmtop_model_pool *pool;
	struct strmap shared_strs;	/* a string many clients name once: its copy in the pool */
	bool oom;
};

/*
 * @s copied into the model once however many clients name it: drivers, devices, engine and
 * region names, a process's command line. At 5,000 clients such copies were 6 MB of the model
 * (each at least 16 bytes in the pool). NULL stays NULL.
 */
static const char *shared_str(struct build *b, const char *s)
{
	const char *d;

	if (!s)
		return NULL;
	d = strmap_get(&b->shared_strs, s);
	if (d)
		return d;
	d = pool_strdup(b->pool, s);
	if (!d || strmap_put(&b->shared_strs, s, (void *)d))
		b->oom = true;
	return d;
}

/* The same for a fixed-size, maybe unterminated char array of the tracer's records. */
static const char *shared_arr(struct build *b, const char *s, size_t max)
{
	char buf[256];
	size_t n = strnlen(s, max);

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return shared_str(b, buf);
}

static const char *copy_str(struct build *b, const char *s)
{
	const char *d = pool_strdup(b->pool, s);

	if (s && !d)
		b->oom = true;
	return d;
}

/* Fixed-size, maybe unterminated char arrays of the tracer's records. */
static const char *copy_arr(struct build *b, const char *s, size_t max)
{
	const char *d = pool_strndup(b->pool, s, max);

	if (!d)
		b->oom = true;
	return d;
}

static void *alloc_array(struct build *b, size_t n, size_t size)
{
	void *p = pool_array(b->pool, n ? n : 1, size);

	if (!p)
		b->oom = true;
	return p;
}

static bool wants_pid(const struct drmtop_model_input *in, pid_t pid)
{
	size_t i;

	if (!in->nr_pids)
		return true;
	for (i = 0; i < in->nr_pids; i++)
		if (in->pids[i] == pid)
			return true;
	return false;
}

static bool shows_fdinfo_client(const struct drmtop_model_input *in, const struct drm_client *c)
{
	size_t i;

	if (!in->nr_pids)
		return true;
	for (i = 0; i < c->nr_holders; i++)
		if (wants_pid(in, c->holders[i].pid))
			return true;
	return false;
}

/* Kernel clients belong to no process: a -p filter leaves them out. */
static bool shows_bpf_client(const struct drmtop_model_input *in, const struct drmtop_client *c)
{
	if (!in->nr_pids)
		return true;
	return !(c->flags & DRMTOP_CLIENT_KERNEL) && wants_pid(in, (pid_t)c->tgid);
}

bool drmtop_rates_diverge(double fd_pct, uint64_t fd_start, uint64_t fd_end, double bpf_pct,
			  uint64_t bpf_start, uint64_t bpf_end, double threshold_pct)
{
	uint64_t off_start = fd_start > bpf_start ? fd_start - bpf_start : bpf_start - fd_start;
	uint64_t off_end = fd_end > bpf_end ? fd_end - bpf_end : bpf_end - fd_end;
	uint64_t span = fd_end - fd_start < bpf_end - bpf_start ? fd_end - fd_start
								 : bpf_end - bpf_start;
	double slack;

	if (!span || fd_end < fd_start || bpf_end < bpf_start)
		return false;
	slack = 100.0 * (double)(off_start + off_end) / (double)span;
	return fabs(fd_pct - bpf_pct) > threshold_pct + slack;
}

/*
 * The point of the tracer's bracket nearest @fd_pct: [pct - start_slack_pct, pct], widened by
 * what running estimates leave uncertain ([- inflight_low_pct, + inflight_high_pct]).
 */
static double bracket_nearest(const struct drmtop_bpf_figures *bf, double fd_pct)
{
	double low = bf->pct - bf->start_slack_pct - bf->inflight_low_pct;
	double high = bf->pct + bf->inflight_high_pct;

	if (fd_pct >= high)
		return high;
	return fd_pct > low ? fd_pct : low;
}

static const char *node_name(struct build *b, dev_t rdev)
{
	char node[64];

	return shared_str(b, drm_node_name(rdev, node, sizeof(node)));
}

/*
 * The device of a client only the tracer saw, named from its node as the scan names the
 * fdinfo clients' (drm_scan_node_key, looked up once a sample): a device's clients are one
 * device whichever source saw them first. NULL where sysfs cannot tell.
 */
static const char *node_dev_key(struct build *b, __u32 major_nr, __u32 minor_nr)
{
	if (!b->in->node_key || (!major_nr && !minor_nr))
		return NULL;
	return shared_str(b, b->in->node_key(b->in->node_key_ctx, makedev(major_nr, minor_nr)));
}

/*
 * The process's owner, for the views' USER column: the uid of <proc root>/<pid>, which is the
 * process's effective uid (the scan does not keep it). A process gone by now has none.
 */
static void fill_uid(struct build *b, struct drmtop_model_client *mc)
{
	char path[4096];
	struct stat st;

	if (!b->in->proc_root || mc->pid <= 0)
		return;
	snprintf(path, sizeof(path), "%s/%d", b->in->proc_root, (int)mc->pid);
	if (stat(path, &st))
		return;
	mc->has_uid = true;
	mc->uid = st.st_uid;
}

static void fill_fd_engine(struct drmtop_fd_engine *fe, const struct drm_fdinfo_engine *e,
			   const struct drm_engine_usage *u, const struct drm_engine_track *t)
{
	bool over = false;

	fe->busy_ns = e->busy_ns;
	fe->capacity = e->capacity;
	fe->cycles = e->cycles;
	fe->total_cycles = e->total_cycles;
	fe->maxfreq_hz = e->maxfreq_hz;
	fe->busy_effective_ns = t ? t->busy_ns : e->busy_ns;
	if (e->present & DRM_ENGINE_HAS_BUSY)
		fe->flags |= DRMTOP_FD_BUSY;
	if (e->present & DRM_ENGINE_HAS_CYCLES)
		fe->flags |= DRMTOP_FD_CYCLES;
	if (e->present & DRM_ENGINE_HAS_TOTAL_CYCLES)
		fe->flags |= DRMTOP_FD_TOTAL_CYCLES;
	if (e->present & DRM_ENGINE_HAS_MAXFREQ)
		fe->flags |= DRMTOP_FD_MAXFREQ;
	if (!u)
		return;
	if (u->flags & DRM_USAGE_BUSY_VALID) {
		fe->flags |= DRMTOP_FD_BUSY_RATE;
		fe->busy_delta_ns = u->busy_delta_ns;
	}
	if (u->flags & DRM_USAGE_CYCLES_VALID) {
		fe->flags |= DRMTOP_FD_CYCLES_RATE;
		fe->cycles_pct = u->cycles_pct;
	}
	if (u->flags & DRM_USAGE_BACKWARDS)
		fe->flags |= DRMTOP_FD_BACKWARDS;
	if (drm_engine_usage_pct(u, &fe->pct, &over)) {
		fe->flags |= DRMTOP_FD_RATE;
		if (over)
			fe->flags |= DRMTOP_FD_OVER;
		if (u->flags & (DRM_USAGE_BUSY_VALID | DRM_USAGE_BY_TOTAL))
			fe->flags |= DRMTOP_FD_TIME_RATE;
	}
}

static const struct drm_engine_track *track_of(const struct drm_client *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_tracks; i++)
		if (c->tracks[i].name && !strcmp(c->tracks[i].name, name))
			return &c->tracks[i];
	return NULL;
}

static void fill_bpf_figures(struct build *b, struct drmtop_model_engine *me,
			     const struct drmtop_engine_view *ev)
{
	struct drmtop_bpf_figures *bf = &me->bpf;
	uint64_t *hist;
	size_t i;

	bf->busy_ns = ev->busy_ns;
	bf->jobs = ev->jobs;
	bf->start_slack_ns = ev->start_slack_ns;
	bf->has_rate = ev->has_rate;
	bf->busy_delta_ns = ev->busy_delta_ns;
	bf->jobs_delta = ev->jobs_delta;
	bf->pct = ev->bpf_pct;
	bf->start_slack_pct = ev->start_slack_pct;
	bf->inflight_low_pct = ev->inflight_low_pct;
	bf->inflight_high_pct = ev->inflight_high_pct;
	for (i = 0; ev->lat_hist && i < DRMTOP_LAT_BUCKETS && !ev->lat_hist[i]; i++)
		;
	if (ev->lat_hist && i < DRMTOP_LAT_BUCKETS) {
		hist = alloc_array(b, DRMTOP_MODEL_LAT_BUCKETS, sizeof(*hist));
		for (i = 0; hist && i < DRMTOP_MODEL_LAT_BUCKETS && i < DRMTOP_LAT_BUCKETS; i++)
			hist[i] = ev->lat_hist[i];
		bf->lat_hist = hist;
	}
	me->in_bpf = true;
	me->occupancy = ev->timing == DRMTOP_TIMING_OCCUPANCY;
	me->unmapped = ev->unmapped;
}

static void fill_bpf_identity(struct build *b, struct drmtop_model_bpf *mb,
			      const struct drmtop_client *c)
{
	mb->uid = c->uid;
	mb->kernel = c->flags & DRMTOP_CLIENT_KERNEL;
	mb->opened_before_trace = c->flags & DRMTOP_CLIENT_LATE;
	mb->tgid = c->tgid;
	mb->comm = shared_arr(b, c->comm, sizeof(c->comm));
	mb->driver = shared_arr(b, c->driver, sizeof(c->driver));
	mb->has_client_id = c->client_id != 0;
	mb->client_id = c->client_id;
	mb->minor = c->minor_index;
	mb->mem_total = c->mem_total;
	mb->mem_imported = c->mem_imported;
	mb->handles = c->handles;
	mb->missed = c->missed;
}

static enum drmtop_model_match match_of(enum drmtop_match m)
{
	switch (m) {
	case DRMTOP_MATCH_CLIENT_ID:
		return DRMTOP_MODEL_MATCH_CLIENT_ID;
	case DRMTOP_MATCH_FD:
		return DRMTOP_MODEL_MATCH_FD;
	case DRMTOP_MATCH_NONE:
		break;
	}
	return DRMTOP_MODEL_MATCH_NONE;
}

/* The tracer's side of a client; for a matched one also the memory cross-check. */
static struct drmtop_model_bpf *bpf_side(struct build *b, const struct drmtop_client_view *v,
					 const struct drm_fdinfo *fi)
{
	struct drmtop_model_bpf *mb = pool_alloc(b->pool, sizeof(*mb));
	uint64_t fd_total, big, diff;
	bool any = false;

	if (!mb) {
		b->oom = true;
		return NULL;
	}
	fill_bpf_identity(b, mb, &v->c);
	mb->mem_shared = v->mem_shared;
	mb->match = match_of(v->match);
	if (!fi)
		return mb;
	fd_total = drm_fdinfo_total_bytes(fi, &any);
	mb->fdinfo_total_bytes = fd_total;
	/* A client opened before attach has buffers the tracer may have missed. */
	mb->mem_compared = any && !mb->opened_before_trace;
	if (mb->mem_compared) {
		big = fd_total > mb->mem_total ? fd_total : mb->mem_total;
		diff = fd_total > mb->mem_total ? fd_total - mb->mem_total
						: mb->mem_total - fd_total;
		mb->mem_diverged = (double)diff > b->in->diverge_pct / 100.0 * (double)big;
	}
	return mb;
}

/* Saturating: a sum that no longer fits is pinned at the maximum instead of wrapping. */
static void add_sat(uint64_t *sum, uint64_t v)
{
	*sum = v > UINT64_MAX - *sum ? UINT64_MAX : *sum + v;
}

static void fill_regions(struct build *b, struct drmtop_model_client *mc,
			 const struct drm_fdinfo *fi)
{
	size_t i;

	mc->regions = alloc_array(b, fi->nr_regions, sizeof(*mc->regions));
	if (!mc->regions)
		return;
	mc->nr_regions = fi->nr_regions;
	for (i = 0; i < fi->nr_regions; i++) {
		const struct drm_fdinfo_region *r = &fi->regions[i];
		struct drmtop_model_region *mr = &mc->regions[i];

		mr->name = shared_str(b, r->name);
		mr->present = (r->present & DRM_REGION_HAS_TOTAL ? DRMTOP_MEM_TOTAL : 0) |
			      (r->present & DRM_REGION_HAS_SHARED ? DRMTOP_MEM_SHARED : 0) |
			      (r->present & DRM_REGION_HAS_RESIDENT ? DRMTOP_MEM_RESIDENT : 0) |
			      (r->present & DRM_REGION_HAS_PURGEABLE ? DRMTOP_MEM_PURGEABLE : 0) |
			      (r->present & DRM_REGION_HAS_ACTIVE ? DRMTOP_MEM_ACTIVE : 0);
		mr->total = r->total;
		mr->shared = r->shared;
		mr->resident = r->resident;
		mr->purgeable = r->purgeable;
		mr->active = r->active;
		if (mr->present & DRMTOP_MEM_RESIDENT) {
			mc->has_resident = true;
			add_sat(&mc->mem_resident, r->resident);
		}
		if (mr->present & DRMTOP_MEM_SHARED) {
			mc->has_shared = true;
			add_sat(&mc->mem_shared, r->shared);
		}
	}
	mc->mem_total = drm_fdinfo_total_bytes(fi, &mc->has_mem);
}

/* The index of the engine of @fi that is the tracer's engine @ev, or fi->nr_engines: none. */
static size_t fd_engine_of(const struct drm_fdinfo *fi, const struct drmtop_engine_view *ev)
{
	size_t i;

	for (i = 0; i < fi->nr_engines && ev->in_fdinfo; i++)
		if (!strcmp(fi->engines[i].name, ev->name))
			return i;
	return fi->nr_engines;
}

/* Engines of a client fdinfo reports: its own, then the tracer's engines it does not print. */
static void fill_engines(struct build *b, struct drmtop_model_client *mc,
			 const struct drm_client *c, const struct drmtop_client_view *v,
			 uint64_t bpf_start, uint64_t bpf_end)
{
	const struct drm_fdinfo *fi = &c->info;
	size_t i, j, max = fi->nr_engines;

	/* the tracer's view holds fdinfo's engines too: room for the others only (3 MB) */
	for (j = 0; v && j < v->nr_engines; j++)
		max += fd_engine_of(fi, &v->engines[j]) == fi->nr_engines;

	mc->engines = alloc_array(b, max, sizeof(*mc->engines));
	if (!mc->engines)
		return;
	for (i = 0; i < fi->nr_engines; i++) {
		struct drmtop_model_engine *me = &mc->engines[mc->nr_engines++];
		const struct drm_fdinfo_engine *e = &fi->engines[i];

		me->name = shared_str(b, e->name);
		me->in_fdinfo = true;
		fill_fd_engine(&me->fd, e, c->usage ? &c->usage[i] : NULL, track_of(c, e->name));
		if (me->fd.flags & DRMTOP_FD_RATE) {
			mc->busy_sum_pct += me->fd.pct;
			mc->over |= me->fd.flags & DRMTOP_FD_OVER;
		}
	}
	for (j = 0; v && j < v->nr_engines; j++) {
		const struct drmtop_engine_view *ev = &v->engines[j];
		struct drmtop_model_engine *me = NULL;

		i = fd_engine_of(fi, ev);
		if (i < fi->nr_engines) {
			me = &mc->engines[i];
		} else {
			me = &mc->engines[mc->nr_engines++];
			me->name = shared_arr(b, ev->name, sizeof(ev->name));
		}
		fill_bpf_figures(b, me, ev);
		/*
		 * The tracer sums an engine's busy time over its execution units, as
		 * drm-engine-<e> does: its rate is divided by the same capacity as fdinfo's.
		 */
		if (me->in_fdinfo && (me->fd.flags & DRMTOP_FD_RATE) && me->fd.capacity > 1) {
			me->bpf.pct /= (double)me->fd.capacity;
			me->bpf.start_slack_pct /= (double)me->fd.capacity;
			me->bpf.inflight_low_pct /= (double)me->fd.capacity;
			me->bpf.inflight_high_pct /= (double)me->fd.capacity;
		}
		/*
		 * The driver's share of time (DRMTOP_FD_TIME_RATE) against the tracer's, each over
		 * its own window. Occupancy above execution is expected; only a tracer figure below
		 * fdinfo's is a finding. The tracer's figure is known only to within its start
		 * bracket (a scheduler thread preempted between the run event and run_job):
		 * compared at the end of the bracket nearest fdinfo's.
		 */
		if (me->in_fdinfo && (me->fd.flags & DRMTOP_FD_TIME_RATE) && me->bpf.has_rate &&
		    (!me->occupancy || me->bpf.pct < me->fd.pct))
			me->diverged = drmtop_rates_diverge(me->fd.pct, c->sample_ns - c->dt_ns,
							    c->sample_ns,
							    bracket_nearest(&me->bpf, me->fd.pct),
							    bpf_start, bpf_end, b->in->diverge_pct);
		if (me->diverged && b->m->missed.interval) {
			me->diverged = false;
			me->inconclusive = true;
		}
		mc->diverged |= me->diverged;
		mc->inconclusive |= me->inconclusive;
	}
}

static void fill_cgroup(struct build *b, struct drmtop_model_cgroup *g, const char *path)
{
	struct drmtop_cgroup_name n;
	char buf[DRMTOP_UNIT_NAME_MAX + 64];

	if (!path)
		return;
	drmtop_cgroup_name_parse(path, &n);
	g->path = shared_str(b, path);
	g->workload = shared_str(b, drmtop_cgroup_workload(&n, path, buf, sizeof(buf)));
	g->unit = n.unit[0] ? shared_str(b, n.unit) : NULL;
	g->slice = n.slice[0] ? shared_str(b, n.slice) : NULL;
	g->runtime = drmtop_runtime_name(n.runtime);
	g->container = n.container[0] ? shared_str(b, n.container) : NULL;
	g->pod = n.pod[0] ? shared_str(b, n.pod) : NULL;
	g->qos = drmtop_pod_qos_name(n.qos);
}

/*
 * Where the process's /proc said no cgroup (a client only the tracer saw, one closed), the one
 * its opener was in, if the tracer's id for it names a cgroup that existed when first looked up.
 */
static void fill_cgroup_id(struct build *b, struct drmtop_model_cgroup *g, uint64_t id)
{
	char path[PATH_MAX];

	if (!g->path && b->in->cgroup_ids &&
	    !drmtop_cgroup_ids_path(b->in->cgroup_ids, id, path, sizeof(path)))
		fill_cgroup(b, g, path);
}

static void fill_fdinfo_client(struct build *b, struct drmtop_model_client *mc,
			       const struct drm_client *c, size_t index)
{
	const struct drm_fdinfo *fi = &c->info;
	const struct drmtop_client_view *v = NULL;
	__u64 bpf_start = 0, bpf_end = 0;
	size_t i;

	mc->key = copy_str(b, c->key);
	mc->dev_key = shared_str(b, c->dev_key);
	mc->driver = shared_str(b, fi->driver);
	mc->pdev = shared_str(b, fi->pdev);
	mc->node = node_name(b, c->rdev);
	mc->rdev = c->rdev;
	mc->accel = c->accel;
	mc->pid = c->pid;
	mc->fd = c->fd;
	fill_uid(b, mc);
	mc->comm = shared_str(b, c->comm);
	mc->cmdline = shared_str(b, c->cmdline);
	fill_cgroup(b, &mc->cgroup, c->cgroup);
	mc->has_client_id = fi->present & DRM_FDINFO_HAS_CLIENT_ID;
	mc->client_id = fi->client_id;
	mc->client_name = copy_str(b, fi->client_name);
	mc->holders = alloc_array(b, c->nr_holders, sizeof(*mc->holders));
	if (mc->holders) {
		for (i = 0; i < c->nr_holders; i++) {
			mc->holders[i].pid = c->holders[i].pid;
			mc->holders[i].fd = c->holders[i].fd;
		}
		mc->nr_holders = c->nr_holders;
	}
	mc->in_fdinfo = true;
	mc->fdinfo_format = drm_fdinfo_format_name(fi->format);
	mc->unsupported_format = fi->format == DRM_FDINFO_FMT_AMDGPU_LEGACY;
	mc->is_new = c->is_new;
	mc->dt_ns = c->dt_ns;
	mc->dt_slack_ns = c->dt_slack_ns;
	mc->sample_ns = c->sample_ns;
	mc->malformed_lines = fi->nr_malformed;
	mc->extras = alloc_array(b, fi->nr_extras, sizeof(*mc->extras));
	if (mc->extras) {
		for (i = 0; i < fi->nr_extras; i++) {
			mc->extras[i].key = shared_str(b, fi->extras[i].key);
			mc->extras[i].value = copy_str(b, fi->extras[i].value);
		}
		mc->nr_extras = fi->nr_extras;
	}
	if (b->in->rec) {
		v = drmtop_reconciled_for(b->in->rec, index);
		drmtop_reconcile_window(b->in->rec, &bpf_start, &bpf_end);
		b->m->bpf_window_start_ns = bpf_start;
		b->m->bpf_window_end_ns = bpf_end;
	}
	fill_regions(b, mc, fi);
	fill_engines(b, mc, c, v, bpf_start, bpf_end);
	if (v) {
		fill_cgroup_id(b, &mc->cgroup, v->c.cgroup_id);
		mc->bpf = bpf_side(b, v, fi);
		/* memory is a level: a buffer the tracer missed stays missing */
		if (mc->bpf && mc->bpf->mem_diverged &&
		    (b->m->missed.interval || b->m->missed.memory_since_start ||
		     mc->bpf->missed)) {
			mc->bpf->mem_diverged = false;
			mc->bpf->mem_inconclusive = true;
			mc->inconclusive = true;
		}
		if (mc->bpf)
			mc->diverged |= mc->bpf->mem_diverged;
		/*
		 * Drivers without fdinfo (virtio-gpu and vgem on 6.1) print no drm-driver; the
		 * tracer reads the same dev->driver->name the DRM core would print.
		 */
		if (!mc->driver && mc->bpf)
			mc->driver = mc->bpf->driver;
		mc->lower_bound = mc->bpf && (b->m->missed.interval || mc->bpf->missed);
	}
}

/* A client only the tracer sees: driver jobs, or a process out of fdinfo's sight. */
static void fill_bpf_client(struct build *b, struct drmtop_model_client *mc,
			    const struct drmtop_client_view *v)
{
	const struct drmtop_client *c = &v->c;
	char key[32];
	size_t i;

	snprintf(key, sizeof(key), "bpf:%llu", (unsigned long long)c->uid);
	mc->key = copy_str(b, key);
	mc->driver = shared_arr(b, c->driver, sizeof(c->driver));
	mc->comm = c->flags & DRMTOP_CLIENT_KERNEL ? shared_str(b, "[kernel]")
						   : shared_arr(b, c->comm, sizeof(c->comm));
	if (c->dev_major || c->dev_minor) {
		mc->rdev = makedev(c->dev_major, c->dev_minor);
		mc->node = node_name(b, mc->rdev);
		mc->dev_key = node_dev_key(b, c->dev_major, c->dev_minor);
	}
	mc->pid = (pid_t)c->tgid;
	mc->fd = -1;
	if (!(c->flags & DRMTOP_CLIENT_KERNEL))
		fill_uid(b, mc);
	fill_cgroup_id(b, &mc->cgroup, c->cgroup_id);
	mc->has_client_id = c->client_id != 0;
	mc->client_id = c->client_id;
	mc->fdinfo_format = "none";
	mc->engines = alloc_array(b, v->nr_engines, sizeof(*mc->engines));
	if (mc->engines) {
		for (i = 0; i < v->nr_engines; i++) {
			struct drmtop_model_engine *me = &mc->engines[i];

			me->name = shared_arr(b, v->engines[i].name, sizeof(v->engines[i].name));
			fill_bpf_figures(b, me, &v->engines[i]);
			if (me->bpf.has_rate)
				mc->busy_sum_pct += me->bpf.pct;
		}
		mc->nr_engines = v->nr_engines;
	}
	mc->bpf = bpf_side(b, v, NULL);
	mc->lower_bound = b->m->missed.interval != 0 || (mc->bpf && mc->bpf->missed);
	if (mc->bpf) {
		mc->has_mem = mc->has_shared = true;
		mc->mem_total = mc->bpf->mem_total;
		mc->mem_shared = mc->bpf->mem_shared;
	}
}

static struct drmtop_model_device_engine *dev_engine(struct build *b,
						     struct drmtop_model_device *d,
						     const char *name, size_t max)
{
	size_t i;

	for (i = 0; i < d->nr_engines; i++)
		if (!strcmp(d->engines[i].name, name))
			return &d->engines[i];
	if (d->nr_engines == max)
		return NULL;
	d->engines[d->nr_engines].name = shared_str(b, name);
	return &d->engines[d->nr_engines++];
}

static struct drmtop_model_region *dev_region(struct build *b, struct drmtop_model_device *d,
					      const char *name, size_t max)
{
	size_t i;

	for (i = 0; i < d->nr_regions; i++)
		if (!strcmp(d->regions[i].name, name))
			return &d->regions[i];
	if (d->nr_regions == max)
		return NULL;
	d->regions[d->nr_regions].name = shared_str(b, name);
	return &d->regions[d->nr_regions++];
}

/*
 * The span a client's interval can cover: from the start of its previous read (the driver
 * printed somewhere in it) to the end of its last one.
 */
static void add_to_window(struct drmtop_model_device_engine *de,
			  const struct drmtop_model_client *c, const struct drmtop_fd_engine *f)
{
	uint64_t start, back = c->dt_ns + c->dt_slack_ns;

	if (!(f->flags & DRMTOP_FD_BUSY_RATE) || !c->dt_ns) {
		de->untimed = true;
		return;
	}
	start = c->sample_ns > back ? c->sample_ns - back : 0;
	de->busy_ns += (double)f->busy_delta_ns / (double)(f->capacity ? f->capacity : 1);
	if (!de->window_end_ns || start < de->window_start_ns)
		de->window_start_ns = start;
	if (c->sample_ns > de->window_end_ns)
		de->window_end_ns = c->sample_ns;
}

/*
 * Clients read one after another cover slightly different intervals, and each may be as long
 * as its slack allows: their summed figures can pass 100 % with nobody over-reporting. Busy time
 * beyond the whole span they cover is an over-report.
 */
static void device_engine_over(struct drmtop_model_device_engine *de)
{
	if (!de->valid)
		return;
	if (de->untimed)
		de->over |= de->pct > 100.0;
	else
		de->over |= de->busy_ns > (double)(de->window_end_ns - de->window_start_ns);
}

/* Keys @key_of gives the clients, each counted once: what a device's arrays need room for. */
static size_t count_distinct(struct build *b,
			     const char *key_of(const struct drmtop_model_client *c, size_t i),
			     size_t n_of(const struct drmtop_model_client *c))
{
	const struct drmtop_model *m = b->m;
	struct strmap seen;
	size_t i, k, n = 0;
	const char *key;

	strmap_init(&seen);
	for (i = 0; i < m->nr_fdinfo_clients && !b->oom; i++) {
		for (k = 0; k < n_of(&m->clients[i]); k++) {
			key = key_of(&m->clients[i], k);
			if (!key || strmap_get(&seen, key))
				continue;
			if (strmap_put(&seen, key, (void *)key))
				b->oom = true;
			n++;
		}
	}
	strmap_fini(&seen);
	return n;
}

static size_t one(const struct drmtop_model_client *c)
{
	(void)c;
	return 1;
}

static size_t n_engines(const struct drmtop_model_client *c)
{
	return c->nr_engines;
}

static size_t n_regions(const struct drmtop_model_client *c)
{
	return c->nr_regions;
}

/* A client without a device key (a test's) shares the device of key "". */
static const char *dev_key_at(const struct drmtop_model_client *c, size_t i)
{
	(void)i;
	return c->dev_key ? c->dev_key : "";
}

static const char *engine_at(const struct drmtop_model_client *c, size_t i)
{
	return c->engines[i].in_fdinfo ? c->engines[i].name : NULL;
}

static const char *region_at(const struct drmtop_model_client *c, size_t i)
{
	return c->regions[i].name;
}

/*
 * Per-device totals over the clients shown, devices in order of first appearance. Arrays sized
 * by distinct names, not by the clients' sum (15,000 engine slots a device at 5,000 clients).
 */
static void build_devices(struct build *b)
{
	struct drmtop_model *m = b->m;
	size_t i, k, max_dev, max_eng, max_reg;
	struct strmap at;

	max_dev = count_distinct(b, dev_key_at, one);
	max_eng = count_distinct(b, engine_at, n_engines);
	max_reg = count_distinct(b, region_at, n_regions);
	m->devices = alloc_array(b, max_dev, sizeof(*m->devices));
	if (!m->devices)
		return;
	strmap_init(&at);
	for (i = 0; i < m->nr_fdinfo_clients && !b->oom; i++) {
		struct drmtop_model_client *c = &m->clients[i];
		size_t idx = (size_t)strmap_get(&at, dev_key_at(c, 0));
		struct drmtop_model_device *d = idx ? &m->devices[idx - 1] : NULL;

		if (!d) {
			if (m->nr_devices >= max_dev ||
			    strmap_put(&at, dev_key_at(c, 0), (void *)(m->nr_devices + 1))) {
				b->oom = true;
				break;
			}
			d = &m->devices[m->nr_devices++];
			d->key = c->dev_key;
			d->node = c->node;
			d->rdev = c->rdev;
			d->engines = alloc_array(b, max_eng, sizeof(*d->engines));
			d->regions = alloc_array(b, max_reg, sizeof(*d->regions));
			if (!d->engines || !d->regions)
				break;
		}
		c->device = d;
		if (!d->driver)
			d->driver = c->driver;
		if (!d->pdev)
			d->pdev = c->pdev;
		d->nr_clients++;
		for (k = 0; k < c->nr_engines; k++) {
			const struct drmtop_model_engine *e = &c->engines[k];
			struct drmtop_model_device_engine *de;

			if (!e->in_fdinfo)
				continue;
			de = dev_engine(b, d, e->name, max_eng);
			if (!de || !(e->fd.flags & DRMTOP_FD_RATE))
				continue;
			de->pct += e->fd.pct;
			de->valid = true;
			de->over |= e->fd.flags & DRMTOP_FD_OVER;
			de->nr_clients++;
			add_to_window(de, c, &e->fd);
		}
		for (k = 0; k < c->nr_regions; k++) {
			const struct drmtop_model_region *cr = &c->regions[k];
			struct drmtop_model_region *r = dev_region(b, d, cr->name, max_reg);

			if (!r)
				continue;
			r->present |= cr->present;
			add_sat(&r->total, cr->total);
			add_sat(&r->shared, cr->shared);
			add_sat(&r->resident, cr->resident);
			add_sat(&r->purgeable, cr->purgeable);
			add_sat(&r->active, cr->active);
		}
	}
	strmap_fini(&at);
	for (i = 0; i < m->nr_devices && !b->oom; i++) {
		struct drmtop_model_device *d = &m->devices[i];

		for (k = 0; k < d->nr_engines; k++)
			device_engine_over(&d->engines[k]);
		for (k = 0; k < d->nr_regions; k++)
			add_sat(&d->mem_total, (d->regions[k].present & DRMTOP_MEM_TOTAL)
						       ? d->regions[k].total
						       : d->regions[k].resident);
	}
}

/* A ring only the tracer times, with a job: it has a column of its own. */
static bool tracer_only_column(const struct drmtop_model_engine *e)
{
	return !e->in_fdinfo && e->in_bpf && e->bpf.jobs;
}

static void add_column(struct build *b, struct strmap *seen, const char **cols, size_t *n,
		       const char *name)
{
	if (strmap_get(seen, name))
		return;
	if (strmap_put(seen, name, (void *)name)) {
		b->oom = true;
		return;
	}
	cols[(*n)++] = name;
}

/* The tracer-only rings of clients [from, to) on device @d (NULL: any), into @cols. */
static size_t add_client_columns(struct build *b, struct strmap *seen, const char **cols,
				 size_t n, const struct drmtop_model_device *d, size_t from,
				 size_t to)
{
	const struct drmtop_model *m = b->m;
	size_t i, k;

	for (i = from; i < to && !b->oom; i++) {
		const struct drmtop_model_client *c = &m->clients[i];

		for (k = 0; (!d || c->device == d) && k < c->nr_engines; k++)
			if (tracer_only_column(&c->engines[k]))
				add_column(b, seen, cols, &n, c->engines[k].name);
	}
	return n;
}

/* Clients [from, to) on @d (NULL: any): their tracer-only rings, repeats counted. */
static size_t count_client_columns(const struct drmtop_model *m,
				   const struct drmtop_model_device *d, size_t from, size_t to)
{
	size_t i, k, n = 0;

	for (i = from; i < to; i++)
		for (k = 0; (!d || m->clients[i].device == d) && k < m->clients[i].nr_engines; k++)
			n += tracer_only_column(&m->clients[i].engines[k]);
	return n;
}

/*
 * Engine columns, once for every view (the text view a table per device, the live view one
 * table). A device has a few engines and a client a few: a pass over the clients per device.
 */
static void build_columns(struct build *b)
{
	struct drmtop_model *m = b->m;
	size_t i, k, total = 0;
	struct strmap seen;

	for (i = 0; i < m->nr_devices && !b->oom; i++) {
		struct drmtop_model_device *d = &m->devices[i];

		d->columns = alloc_array(b, d->nr_engines + count_client_columns(m, d, 0,
						m->nr_fdinfo_clients), sizeof(*d->columns));
		if (!d->columns)
			return;
		strmap_init(&seen);
		for (k = 0; k < d->nr_engines; k++)
			add_column(b, &seen, d->columns, &d->nr_columns, d->engines[k].name);
		d->nr_columns = add_client_columns(b, &seen, d->columns, d->nr_columns, d, 0,
						   m->nr_fdinfo_clients);
		strmap_fini(&seen);
		total += d->nr_columns;
	}
	total += count_client_columns(m, NULL, m->nr_fdinfo_clients, m->nr_clients);
	m->columns = alloc_array(b, total, sizeof(*m->columns));
	if (!m->columns)
		return;
	strmap_init(&seen);
	for (i = 0; i < m->nr_devices && !b->oom; i++)
		for (k = 0; k < m->devices[i].nr_columns; k++)
			add_column(b, &seen, m->columns, &m->nr_columns, m->devices[i].columns[k]);
	m->nr_columns = add_client_columns(b, &seen, m->columns, m->nr_columns, NULL,
					   m->nr_fdinfo_clients, m->nr_clients);
	strmap_fini(&seen);
}

static void fill_closed_bpf(struct build *b, struct drmtop_model_closed *mc,
			    const struct drmtop_bpf_client *bc)
{
	size_t i;

	mc->from_bpf = true;
	fill_bpf_identity(b, &mc->bpf, &bc->c);
	mc->dev_key = node_dev_key(b, bc->c.dev_major, bc->c.dev_minor);
	mc->bpf.mem_shared = bc->c.mem_shared;
	mc->pid = (pid_t)bc->c.tgid;
	mc->comm = mc->bpf.comm;
	mc->driver = mc->bpf.driver;
	mc->has_client_id = mc->bpf.has_client_id;
	mc->client_id = mc->bpf.client_id;
	mc->open_ns = bc->c.open_ns;
	mc->close_ns = bc->c.close_ns;
	fill_cgroup_id(b, &mc->cgroup, bc->c.cgroup_id);
	mc->engines = alloc_array(b, bc->n_engines, sizeof(*mc->engines));
	if (!mc->engines)
		return;
	for (i = 0; i < bc->n_engines; i++) {
		const char *ring = copy_arr(b, bc->engines[i].name, sizeof(bc->engines[i].name));
		const char *engine = drmtop_ring_engine(mc->driver, ring, NULL, 0, NULL, NULL);

		mc->engines[i].name = ring;
		mc->engines[i].engine = engine ? engine : ring;
		mc->engines[i].busy_ns = bc->engines[i].busy_ns;
		mc->engines[i].jobs = bc->engines[i].jobs;
	}
	mc->nr_engines = bc->n_engines;
}

/* A close record of an idle client (drmtop_client_idle) that has no engine figures either. */
static bool closed_idle(const struct drmtop_bpf_client *bc)
{
	size_t i;

	if (!drmtop_client_idle(&bc->c))
		return false;
	for (i = 0; i < bc->n_engines; i++)
		if (bc->engines[i].jobs || bc->engines[i].busy_ns)
			return false;
	return true;
}

#define IDLE_KEY_LEN (3 * STRMAP_U64_KEY + DRMTOP_COMM_LEN)

/* Which entry of idle_closed a client counts in: its process, cgroup, node and command. */
static const char *idle_key(char key[IDLE_KEY_LEN], const struct drmtop_client *c)
{
	const __u64 parts[] = { c->tgid, c->cgroup_id, (__u64)c->dev_major << 32 | c->dev_minor };
	char num[STRMAP_U64_KEY];
	size_t i, len;

	key[0] = '\0';
	for (i = 0; i < 3; i++) {
		strcat(key, strmap_key_u64(num, parts[i]));
		strcat(key, "/");
	}
	len = strlen(key);
	i = strnlen(c->comm, DRMTOP_COMM_LEN - 1);
	memcpy(key + len, c->comm, i);
	key[len + i] = '\0';
	return key;
}

/*
 * @n idle closed clients like @c (one close record, or the tracer's count of a process's:
 * open_ns the earliest open, close_ns the latest close) counted in their process's entry.
 */
static void count_idle(struct build *b, struct strmap *at, const struct drmtop_client *c,
		       __u64 n)
{
	struct drmtop_model *m = b->m;
	struct drmtop_model_idle_closed *ic;
	char key[IDLE_KEY_LEN];
	size_t idx;

	idle_key(key, c);
	idx = (size_t)strmap_get(at, key);
	if (idx) {
		ic = &m->idle_closed[idx - 1];
	} else {
		if (strmap_put(at, key, (void *)(m->nr_idle_closed + 1))) {
			b->oom = true;
			return;
		}
		ic = &m->idle_closed[m->nr_idle_closed++];
		ic->pid = (pid_t)c->tgid;
		ic->comm = shared_arr(b, c->comm, sizeof(c->comm));
		ic->driver = shared_arr(b, c->driver, sizeof(c->driver));
		ic->dev_key = node_dev_key(b, c->dev_major, c->dev_minor);
		ic->minor = c->minor_index;
		fill_cgroup_id(b, &ic->cgroup, c->cgroup_id);
		ic->first_open_ns = c->open_ns;
	}
	ic->clients += n;
	if (c->open_ns < ic->first_open_ns)
		ic->first_open_ns = c->open_ns;
	if (c->close_ns > ic->last_close_ns)
		ic->last_close_ns = c->close_ns;
}

static void build_closed(struct build *b)
{
	const struct drmtop_model_input *in = b->in;
	const struct drmtop_bpf_snapshot *s = in->snap;
	size_t i, max = in->nr_gone + (s ? s->n_closed + s->n_orphans : 0);
	struct drmtop_model *m = b->m;
	struct drmtop_model_closed *mc;
	struct strmap idle;

	m->closed = alloc_array(b, max, sizeof(*m->closed));
	m->idle_closed = alloc_array(b, s ? s->n_closed + s->n_idle : 0, sizeof(*m->idle_closed));
	if (!m->closed || !m->idle_closed)
		return;
	for (i = 0; i < in->nr_gone; i++) {
		const struct drm_client *c = &in->gone[i];

		if (!shows_fdinfo_client(in, c))
			continue;
		mc = &m->closed[m->nr_closed++];
		mc->key = copy_str(b, c->key);
		mc->dev_key = copy_str(b, c->dev_key);
		mc->pid = c->pid;
		mc->comm = copy_str(b, c->comm);
		mc->driver = copy_str(b, c->info.driver);
		mc->has_client_id = c->info.present & DRM_FDINFO_HAS_CLIENT_ID;
		mc->client_id = c->info.client_id;
		fill_cgroup(b, &mc->cgroup, c->cgroup);
	}
	/* an idle client is only counted, unless the consumer follows each client (record) */
	strmap_init(&idle);
	for (i = 0; s && i < s->n_closed && !b->oom; i++) {
		bool is_idle;

		if (!shows_bpf_client(in, &s->closed[i].c))
			continue;
		is_idle = closed_idle(&s->closed[i]);
		if (is_idle)
			count_idle(b, &idle, &s->closed[i].c, 1);
		if (is_idle && !in->each_closed)
			continue;
		mc = &m->closed[m->nr_closed++];
		fill_closed_bpf(b, mc, &s->closed[i]);
		mc->idle = is_idle;
	}
	for (i = 0; s && i < s->n_idle && !b->oom; i++)
		if (shows_bpf_client(in, &s->idle[i].c))
			count_idle(b, &idle, &s->idle[i].c, s->idle[i].clients);
	strmap_fini(&idle);
	/* Clients whose close record was lost: what they did is still theirs. */
	for (i = 0; s && i < s->n_orphans; i++) {
		if (!shows_bpf_client(in, &s->orphans[i].c))
			continue;
		fill_closed_bpf(b, &m->closed[m->nr_closed], &s->orphans[i]);
		m->closed[m->nr_closed++].orphan = true;
	}
}

/* The kind of each counter, from the one table in drmtop_bpf.h. */
static enum drmtop_counter_kind counter_kind(unsigned int i)
{
	static const enum drmtop_counter_kind kinds[] = {
#define DRMTOP_COUNTER_KIND(id, name, kind) [DRMTOP_CNT_##id] = DRMTOP_COUNTER_##kind,
		DRMTOP_COUNTERS(DRMTOP_COUNTER_KIND)
#undef DRMTOP_COUNTER_KIND
	};

	return i < DRMTOP_CNT_MAX ? kinds[i] : DRMTOP_COUNTER_LOSS;
}

/*
 * Losses that may leave a client's memory figure (a running sum) wrong until it closes; a
 * compare-and-swap that gave up may have left a GEM object's shared flags wrong.
 */
static bool memory_counter(unsigned int i)
{
	return i == DRMTOP_CNT_CLIENTS_FULL || i == DRMTOP_CNT_HANDLES_FULL ||
	       i == DRMTOP_CNT_OBJECTS_FULL || i == DRMTOP_CNT_ADOPT_TRUNCATED ||
	       i == DRMTOP_CNT_MEM_UNDERFLOW || i == DRMTOP_CNT_CAS_GAVE_UP;
}

static const struct drmtop_bpf_prog_stat *prev_prog(const struct drmtop_model_input *in,
						    const char *name)
{
	size_t i;

	for (i = 0; i < in->nr_prev_progs; i++)
		if (!strcmp(in->prev_progs[i].name, name))
			return &in->prev_progs[i];
	return NULL;
}

/* A counter's growth since the previous refresh; all of it at the first. */
static uint64_t growth(uint64_t now, const __u64 *before)
{
	if (!before)
		return now;
	return now > *before ? now - *before : 0;
}

/*
 * Of a program's skipped runs (since start and in the interval), those that may have cost the
 * figures an event, as the tracer says (enum drmtop_bpf_skip_cost): none where the program
 * feeds nothing the figures use on this kernel; where the tracer makes up for a lost event
 * (a job made from its run or done event, a start from the scheduled fence, ...), those beyond
 * what the counters of such make-ups grew by. Those also count jobs queued before attach, so
 * at worst a real loss right after attach is taken for made up.
 */
static void skipped_lost(const struct drmtop_model *m, const struct drmtop_bpf_prog_stat *ps,
			 const struct drmtop_model_prog *mp, uint64_t *lost, uint64_t *lost_delta)
{
	const struct drmtop_model_counter *c;
	uint64_t value, delta;

	*lost = mp->recursion_misses;
	*lost_delta = mp->misses_delta;
	if (ps->skip_cost == DRMTOP_SKIP_HARMLESS) {
		*lost = *lost_delta = 0;
	} else if (ps->skip_cost == DRMTOP_SKIP_MADE_UP && m->counters &&
		   ps->made_up_by < m->nr_counters) {
		c = &m->counters[ps->made_up_by];
		value = c->value;
		delta = c->delta;
		if (ps->made_up_also < m->nr_counters) {
			c = &m->counters[ps->made_up_also];
			value += c->value;
			delta += c->delta;
		}
		*lost = *lost > value ? *lost - value : 0;
		*lost_delta = *lost_delta > delta ? *lost_delta - delta : 0;
		if (*lost_delta > *lost)
			*lost_delta = *lost;
	}
}

static void build_bpf_summary(struct build *b)
{
	const struct drmtop_bpf_snapshot *s = b->in->snap;
	struct drmtop_model *m = b->m;
	size_t i;

	if (!s)
		return;
	m->counters = alloc_array(b, DRMTOP_CNT_MAX, sizeof(*m->counters));
	if (m->counters) {
		for (i = 0; i < DRMTOP_CNT_MAX; i++) {
			struct drmtop_model_counter *c = &m->counters[i];

			c->name = drmtop_bpf_counter_name(i);
			c->kind = counter_kind(i);
			c->value = s->counters[i];
			c->delta = growth(c->value,
					  b->in->prev_counters ? &b->in->prev_counters[i] : NULL);
			if (c->kind != DRMTOP_COUNTER_LOSS)
				continue;
			m->missed.since_start += c->value;
			m->missed.interval += c->delta;
			if (memory_counter(i))
				m->missed.memory_since_start += c->value;
		}
		m->nr_counters = DRMTOP_CNT_MAX;
	}
	m->bpf_snapshot_ns = s->read_ns;
	m->progs = alloc_array(b, b->in->nr_progs, sizeof(*m->progs));
	for (i = 0; m->progs && i < b->in->nr_progs; i++) {
		const struct drmtop_bpf_prog_stat *ps = &b->in->progs[i], *before;
		struct drmtop_model_prog *mp = &m->progs[m->nr_progs++];
		uint64_t lost, lost_delta;

		before = b->in->prev_counters ? prev_prog(b->in, ps->name) : NULL;
		mp->name = copy_arr(b, ps->name, sizeof(ps->name));
		mp->recursion_misses = ps->recursion_misses;
		mp->misses_delta = growth(ps->recursion_misses,
					  before ? &before->recursion_misses : NULL);
		mp->run_cnt = ps->run_cnt;
		mp->run_time_ns = ps->run_time_ns;
		mp->verified_insns = ps->verified_insns;
		m->missed.skipped_runs += mp->recursion_misses;
		m->missed.skipped_runs_interval += mp->misses_delta;
		skipped_lost(m, ps, mp, &lost, &lost_delta);
		m->missed.since_start += lost;
		m->missed.interval += lost_delta;
		if (ps->memory)
			m->missed.memory_since_start += lost;
		m->missed.skipped_runs_covered += mp->recursion_misses - lost;
	}
	m->bpf_devices = alloc_array(b, s->n_devices, sizeof(*m->bpf_devices));
	if (!m->bpf_devices)
		return;
	for (i = 0; i < s->n_devices; i++) {
		const struct drmtop_device *d = &s->devices[i].d;

		m->bpf_devices[i].driver = copy_arr(b, d->driver, sizeof(d->driver));
		m->bpf_devices[i].minor = d->primary_index;
		m->bpf_devices[i].gem_objects = d->gem_objects;
		m->bpf_devices[i].gem_bytes = d->gem_bytes;
	}
	m->nr_bpf_devices = s->n_devices;
}

/*
 * gpu_mem_total reports, and each client's process figure from them. A GPU's global total
 * (pid 0) belongs to no process: -p leaves it out, as it does kernel clients.
 */
static void build_gpu_mem(struct build *b)
{
	const struct drmtop_bpf_snapshot *s = b->in->snap;
	struct drmtop_model *m = b->m;
	size_t i, j;

	if (!s || !s->gpu_mem_traced)
		return;
	m->gpu_mem_traced = true;
	m->gpu_mem = alloc_array(b, s->n_gpu_mem, sizeof(*m->gpu_mem));
	for (i = 0; m->gpu_mem && i < s->n_gpu_mem; i++) {
		const struct drmtop_bpf_gpu_mem *g = &s->gpu_mem[i];

		if (b->in->nr_pids && (!g->pid || !wants_pid(b->in, (pid_t)g->pid)))
			continue;
		/* In a container a report's pid may be the number of another process here. */
		if (g->pid && s->gpu_mem_foreign_pids)
			continue;
		m->gpu_mem[m->nr_gpu_mem++] = (struct drmtop_model_gpu_mem){
			.gpu_id = g->gpu_id, .pid = (pid_t)g->pid, .bytes = g->bytes,
		};
	}
	for (i = 0; i < m->nr_clients; i++) {
		struct drmtop_model_client *c = &m->clients[i];

		for (j = 0; j < m->nr_gpu_mem; j++) {
			if (!m->gpu_mem[j].pid || m->gpu_mem[j].pid != c->pid)
				continue;
			c->has_gpu_mem = true;
			c->gpu_mem_bytes += m->gpu_mem[j].bytes;
		}
	}
}

static void build_scan(struct build *b)
{
	const struct drm_scan_stats *st = b->in->stats;
	struct drmtop_model_scan *ms = &b->m->scan;

	if (!st)
		return;
	b->m->has_scan = true;
	ms->from_tracer = st->listed;
	ms->processes = st->pids;
	ms->fds = st->fds;
	ms->drm_fds = st->drm_fds;
	ms->vanished = st->vanished;
	ms->denied = st->denied;
	ms->errors = st->errors;
	ms->malformed_lines = st->malformed_lines;
	ms->unsupported_format = st->unsupported;
	ms->no_client_id = st->no_client_id;
	ms->kcmp_failed = st->kcmp_failed;
	ms->cmdline_blocked = st->cmdline_blocked;
	ms->new_clients = st->new_clients;
	ms->gone_clients = st->gone_clients;
}

static void build_clients(struct build *b)
{
	const struct drmtop_model_input *in = b->in;
	const struct drmtop_client_view *views = NULL;
	struct drmtop_model *m = b->m;
	size_t i, nr_views = 0, tracer_only = 0;

	if (in->rec)
		views = drmtop_reconciled(in->rec, &nr_views);
	/* room for what is shown, not for every tracer client besides (3.6 MB at 5,000 clients) */
	for (i = 0; i < nr_views; i++)
		tracer_only += views[i].match == DRMTOP_MATCH_NONE;
	m->clients = alloc_array(b, in->nr_clients + tracer_only, sizeof(*m->clients));
	if (!m->clients)
		return;
	for (i = 0; i < in->nr_clients && !b->oom; i++)
		if (shows_fdinfo_client(in, &in->clients[i]))
			fill_fdinfo_client(b, &m->clients[m->nr_clients++], &in->clients[i], i);
	m->nr_fdinfo_clients = m->nr_clients;
	for (i = 0; i < nr_views && !b->oom; i++)
		if (views[i].match == DRMTOP_MATCH_NONE && shows_bpf_client(in, &views[i].c))
			fill_bpf_client(b, &m->clients[m->nr_clients++], &views[i]);
}

int drmtop_model_build(struct drmtop_model *m, const struct drmtop_model_input *in)
{
	struct build b = { .m = m, .in = in };
	size_t i;

	drmtop_model_fini(m);
	b.pool = pool_new();
	if (!b.pool)
		return -ENOMEM;
	strmap_init(&b.shared_strs);
	m->pool = b.pool;
	m->realtime_ns = in->realtime_ns;
	m->mono_ns = in->mono_ns;
	m->interval_ns = in->interval_ns;
	m->device_nodes = in->device_nodes;
	m->filtered = in->nr_pids != 0;
	m->bpf_active = in->bpf_active;
	m->bpf_reason = copy_str(&b, in->bpf_reason);
	m->bpf_hooks_attached = in->bpf_hooks_attached;
	m->bpf_hooks = in->bpf_hooks;

	/* The tracer's losses first: they decide how its figures of each client read. */
	build_bpf_summary(&b);
	build_clients(&b);
	build_gpu_mem(&b);
	build_devices(&b);
	build_columns(&b);
	build_closed(&b);
	build_scan(&b);
	m->notes = alloc_array(&b, in->nr_notes, sizeof(*m->notes));
	for (i = 0; m->notes && i < in->nr_notes; i++)
		m->notes[m->nr_notes++] = copy_str(&b, in->notes[i]);

	/* Status speaks of the machine, not of the filter. */
	if (in->nr_clients)
		m->status = DRMTOP_STATUS_OK;
	else if (in->device_nodes)
		m->status = DRMTOP_STATUS_NO_CLIENT;
	else
		m->status = DRMTOP_STATUS_NO_DEVICE;
	strmap_fini(&b.shared_strs);
	if (b.oom) {
		drmtop_model_fini(m);
		return -ENOMEM;
	}
	return 0;
}

void drmtop_model_fini(struct drmtop_model *m)
{
	pool_free(m->pool);
	memset(m, 0, sizeof(*m));
}

const struct drmtop_model_engine *drmtop_model_engine(const struct drmtop_model_client *c,
						      const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_engines; i++)
		if (!strcmp(c->engines[i].name, name))
			return &c->engines[i];
	return NULL;
}

bool drmtop_model_engine_pct(const struct drmtop_model_engine *e, double *pct)
{
	if (e->in_fdinfo && (e->fd.flags & DRMTOP_FD_RATE)) {
		*pct = e->fd.pct;
		return true;
	}
	/*
	 * An engine fdinfo does not print (driver jobs, BPF-only clients), or prints with no time
	 * in it (panthor 7.x while its profiling is off: frequencies only): the tracer's figure.
	 */
	if ((!e->in_fdinfo || !(e->fd.flags & (DRMTOP_FD_BUSY | DRMTOP_FD_CYCLES))) && e->in_bpf &&
	    e->bpf.has_rate) {
		*pct = e->bpf.pct;
		return true;
	}
	return false;
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
	case DRMTOP_SORT_NAME:
		return "name";
	case DRMTOP_SORT_COUNT:
		break;
	}
	return "?";
}

int drmtop_sort_key_cmp(const struct drmtop_sort_key *a, const struct drmtop_sort_key *b,
			enum drmtop_sort sort)
{
	switch (sort) {
	case DRMTOP_SORT_BUSY:
		if (a->busy_pct != b->busy_pct)
			return a->busy_pct < b->busy_pct ? 1 : -1;
		break;
	case DRMTOP_SORT_MEMORY:
		if (a->mem != b->mem)
			return a->mem < b->mem ? 1 : -1;
		break;
	case DRMTOP_SORT_NAME:
		return strcmp(a->name ? a->name : "", b->name ? b->name : "");
	default:
		break;
	}
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return 0;
}

int drmtop_model_cmp(const struct drmtop_model_client *a, const struct drmtop_model_client *b,
		     enum drmtop_sort sort, bool reverse)
{
	struct drmtop_sort_key ka = { a->busy_sum_pct, a->mem_total, a->comm, a->pid };
	struct drmtop_sort_key kb = { b->busy_sum_pct, b->mem_total, b->comm, b->pid };
	int r = drmtop_sort_key_cmp(&ka, &kb, sort);

	if (!r && a->fd != b->fd)
		r = a->fd < b->fd ? -1 : 1;
	return reverse ? -r : r;
}

const char *drmtop_status_message(enum drmtop_status status)
{
	switch (status) {
	case DRMTOP_STATUS_OK:
		return "ok";
	case DRMTOP_STATUS_NO_CLIENT:
		return "no process has a DRM or accelerator device open";
	case DRMTOP_STATUS_NO_DEVICE:
		return "no DRM or accelerator device found";
	}
	return "?";
}

const char *drmtop_status_name(enum drmtop_status status)
{
	switch (status) {
	case DRMTOP_STATUS_OK:
		return "ok";
	case DRMTOP_STATUS_NO_CLIENT:
		return "no_client";
	case DRMTOP_STATUS_NO_DEVICE:
		return "no_device";
	}
	return "?";
}
