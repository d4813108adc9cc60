// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "drmtop/reconcile.h"
#include "drmtop/util/strmap.h"
#include "drmtop/util/vec.h"

/*
 * A ring's cumulative figures at the previous reconcile, to turn totals into rates. busy_ns is
 * the effective counter: completed busy time plus the running job's time so far (completed
 * time alone moves only when a job ends), never lower than before.
 */
struct ring_prev {
	__u64 uid;
	__u64 ring;
	__u64 ring_seq;		/* a scheduler made again at the address: another ring */
	__u64 busy_ns;
	__u64 settled_ns;		/* of busy_ns, jobs that had ended (no running estimate) */
	__u64 jobs;
	__u64 start_slack_ns;
};

/* Per-ring figures of one client over the current interval, before grouping into engines. */
struct ring_rate {
	const struct drmtop_bpf_engine *e;
	__u64 busy_delta_ns;
	__u64 jobs_delta;
	__u64 start_slack_delta_ns;
	__u64 inflight_low_ns, inflight_high_ns;	/* see drmtop_engine_view */
	bool has_rate;
};

struct view_rings {
	struct ring_rate *v;
	size_t n;
};

struct drmtop_reconciler {
	struct ring_prev *prev;		/* sorted by (uid, ring) */
	size_t nr_prev;
	__u64 prev_taken_ns;
	__u64 dt_ns;			/* between the previous and the current snapshot */
	struct drmtop_client_view *views;
	struct view_rings *rings;	/* parallel to views */
	size_t nr_views;
	size_t *by_fdinfo;		/* fdinfo index -> view index, SIZE_MAX if none */
	size_t nr_fdinfo;
};

struct drmtop_reconciler *drmtop_reconciler_new()
{
	return calloc(1, sizeof(struct drmtop_reconciler));
}

static void free_engines(struct drmtop_client_view *v);

static void clear_views(struct drmtop_reconciler *r)
{
	size_t i;

	for (i = 0; i < r->nr_views; i++) {
		free_engines(&r->views[i]);
		free(r->rings[i].v);
	}
	free(r->views);
	free(r->rings);
	free(r->by_fdinfo);
	r->views = NULL;
	r->rings = NULL;
	r->by_fdinfo = NULL;
	r->nr_views = 0;
	r->nr_fdinfo = 0;
}

void drmtop_reconciler_free(struct drmtop_reconciler *r)
{
	if (!r)
		return;
	clear_views(r);
	free(r->prev);
	free(r);
}

static int cmp_prev(const void *a, const void *b)
{
	const struct ring_prev *pa = a, *pb = b;

	if (pa->uid != pb->uid)
		return pa->uid < pb->uid ? -1 : 1;
	if (pa->ring != pb->ring)
		return pa->ring < pb->ring ? -1 : 1;
	if (pa->ring_seq != pb->ring_seq)
		return pa->ring_seq < pb->ring_seq ? -1 : 1;
	return 0;
}

static int add_ring(struct drmtop_engine_view *ev, const struct ring_rate *rr, __u64 dt_ns)
{
	size_t b;

	ev->busy_ns += rr->e->busy_ns;
	ev->jobs += rr->e->jobs;
	ev->start_slack_ns += rr->e->start_slack_ns;
	for (b = 0; b < DRMTOP_LAT_BUCKETS && !rr->e->lat_hist[b]; b++)
		;
	if (b < DRMTOP_LAT_BUCKETS && !ev->lat_hist) {
		ev->lat_hist = calloc(DRMTOP_LAT_BUCKETS, sizeof(*ev->lat_hist));
		if (!ev->lat_hist)
			return -ENOMEM;
	}
	for (; b < DRMTOP_LAT_BUCKETS; b++)
		ev->lat_hist[b] += rr->e->lat_hist[b];
	if (rr->has_rate && dt_ns) {
		ev->has_rate = true;
		ev->busy_delta_ns += rr->busy_delta_ns;
		ev->jobs_delta += rr->jobs_delta;
		ev->start_slack_delta_ns += rr->start_slack_delta_ns;
		ev->inflight_low_delta_ns += rr->inflight_low_ns;
		ev->inflight_high_delta_ns += rr->inflight_high_ns;
		ev->bpf_pct = 100.0 * (double)ev->busy_delta_ns / (double)dt_ns;
		ev->start_slack_pct = 100.0 * (double)ev->start_slack_delta_ns / (double)dt_ns;
		ev->inflight_low_pct = 100.0 * (double)ev->inflight_low_delta_ns / (double)dt_ns;
		ev->inflight_high_pct = 100.0 * (double)ev->inflight_high_delta_ns / (double)dt_ns;
	}
	return 0;
}

static void free_engines(struct drmtop_client_view *v)
{
	size_t i;

	for (i = 0; i < v->nr_engines; i++)
		free(v->engines[i].lat_hist);
	free(v->engines);
	v->engines = NULL;
	v->nr_engines = 0;
}

static struct drmtop_engine_view *find_engine(struct drmtop_client_view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nr_engines; i++)
		if (!strcmp(v->engines[i].name, name))
			return &v->engines[i];
	return NULL;
}

/*
 * Groups a view's rings into engines: the fdinfo client's engines first (in its order), then
 * the engines the driver table gives rings the client does not print, then rings no rule maps,
 * under their own names. @c is NULL for an unmatched client.
 */
static int group_engines(struct drmtop_reconciler *r, size_t vi, const struct drm_client *c)
{
	struct drmtop_client_view *v = &r->views[vi];
	const struct view_rings *vr = &r->rings[vi];
	size_t i, j, nr_fd = c ? c->info.nr_engines : 0, max = vr->n + nr_fd;
	char bpf_driver[sizeof(v->c.driver) + 1];
	const char **names;
	const char *driver;

	free_engines(v);
	v->engines = calloc(max ? max : 1, sizeof(*v->engines));
	names = calloc(nr_fd ? nr_fd : 1, sizeof(*names));
	if (!v->engines || !names) {
		free(names);
		return -ENOMEM;
	}
	snprintf(bpf_driver, sizeof(bpf_driver), "%.*s", (int)sizeof(v->c.driver), v->c.driver);
	driver = c && c->info.driver ? c->info.driver : bpf_driver;
	for (i = 0; i < nr_fd; i++) {
		struct drmtop_engine_view *ev = &v->engines[v->nr_engines++];

		snprintf(ev->name, sizeof(ev->name), "%s", c->info.engines[i].name);
		ev->in_fdinfo = true;
		names[i] = c->info.engines[i].name;
	}
	for (j = 0; j < vr->n; j++) {
		const struct ring_rate *rr = &vr->v[j];
		const char *ring = rr->e->name[0] ? rr->e->name : "?";
		enum drmtop_timing timing;
		struct drmtop_engine_view *ev;
		const char *engine;

		engine = drmtop_ring_engine(driver, ring, names, nr_fd, &timing, NULL);
		ev = find_engine(v, engine ? engine : ring);
		if (!ev) {
			ev = &v->engines[v->nr_engines++];
			snprintf(ev->name, sizeof(ev->name), "%s", engine ? engine : ring);
			ev->unmapped = !engine;
		}
		/* One ring that may include time not executed makes the engine's figure so. */
		if (timing == DRMTOP_TIMING_OCCUPANCY)
			ev->timing = DRMTOP_TIMING_OCCUPANCY;
		if (add_ring(ev, rr, r->dt_ns)) {
			free(names);
			return -ENOMEM;
		}
	}
	free(names);
	return 0;
}

static int match(struct drmtop_reconciler *r, size_t vi, const struct drm_client *clients,
		 size_t ci, enum drmtop_match how)
{
	struct drmtop_client_view *v = &r->views[vi];

	v->match = how;
	v->fdinfo_index = ci;
	r->by_fdinfo[ci] = vi;
	return group_engines(r, vi, &clients[ci]);
}

static bool same_node(const struct drmtop_client *bc, const struct drm_client *c)
{
	if (!bc->dev_major && !bc->dev_minor)
		return true;	/* the tracer could not tell the node; the id alone decides */
	return bc->dev_major == major(c->rdev) && bc->dev_minor == minor(c->rdev);
}

/*
 * How far the true busy time of the interval may lie from busy_delta_ns because of running
 * estimates. A job counted as running may have ended already (its completion interrupt late:
 * 120 ms seen on simgpu), so of this snapshot's figure up to running_ns may not be busy time;
 * and what the previous snapshot estimated beyond its settled time may have been too much,
 * handed back now. Neither is a driver's misreport: the divergence check widens by both.
 */
static void inflight_bracket(struct ring_rate *rr, const struct drmtop_bpf_engine *e,
			     const struct ring_prev *p)
{
	__u64 before = p ? p->busy_ns : 0, settled_before = p ? p->settled_ns : 0;
	__u64 low = e->busy_ns > before ? e->busy_ns - before : 0;	/* all estimates wrong */
	__u64 now = e->busy_ns + e->running_ns;
	__u64 high = now > settled_before ? now - settled_before : 0;	/* all estimates right */

	rr->inflight_low_ns = rr->busy_delta_ns - low;
	rr->inflight_high_ns = high > rr->busy_delta_ns ? high - rr->busy_delta_ns : 0;
}

static int compute_rates(struct drmtop_reconciler *r, const struct drmtop_bpf_snapshot *snap)
{
	struct ring_prev *next = NULL;
	size_t nr_next = 0, cap = 0, i, j;

	for (i = 0; i < r->nr_views; i++) {
		const struct drmtop_bpf_client *bc = &snap->clients[i];
		struct view_rings *vr = &r->rings[i];

		vr->v = calloc(bc->n_engines ? bc->n_engines : 1, sizeof(*vr->v));
		if (!vr->v)
			goto oom;
		vr->n = bc->n_engines;
		for (j = 0; j < bc->n_engines; j++) {
			const struct drmtop_bpf_engine *e = &bc->engines[j];
			struct ring_prev key = { .uid = bc->c.uid, .ring = e->ring,
						 .ring_seq = e->ring_seq }, *p, *slot;
			__u64 busy = e->busy_ns + e->running_ns, before, slack_before;

			vr->v[j].e = e;
			p = r->nr_prev ? bsearch(&key, r->prev, r->nr_prev, sizeof(key), cmp_prev)
				       : NULL;
			/* uids are never reused: a ring absent before started in the interval. */
			before = p ? p->busy_ns : 0;
			vr->v[j].has_rate = r->prev_taken_ns != 0;
			vr->v[j].busy_delta_ns = busy > before ? busy - before : 0;
			vr->v[j].jobs_delta = e->jobs - (p && p->jobs <= e->jobs ? p->jobs : 0);
			slack_before = 0;
			if (p && p->start_slack_ns <= e->start_slack_ns)
				slack_before = p->start_slack_ns;
			vr->v[j].start_slack_delta_ns = e->start_slack_ns - slack_before;
			inflight_bracket(&vr->v[j], e, p);
			if (busy < before)
				busy = before;	/* the running job ended earlier than it seemed */
			slot = vec_push(next, nr_next, cap);
			if (!slot)
				goto oom;
			key.busy_ns = busy;
			key.settled_ns = e->busy_ns;
			key.jobs = e->jobs;
			key.start_slack_ns = e->start_slack_ns;
			*slot = key;
		}
	}
	if (nr_next)
		qsort(next, nr_next, sizeof(*next), cmp_prev);
	free(r->prev);
	r->prev = next;
	r->nr_prev = nr_next;
	return 0;
oom:
	free(next);
	return -ENOMEM;
}

/* "<id>@<major>:<minor>": a client id is unique on its node (per device with drm-pdev ids). */
static void id_key(char *key, size_t len, __u64 id, unsigned int major_nr, unsigned int minor_nr)
{
	snprintf(key, len, "%llu@%u:%u", (unsigned long long)id, major_nr, minor_nr);
}

/* A tracer client to the fdinfo client with its id on its node: one lookup each. */
static int match_by_id(struct drmtop_reconciler *r, const struct drm_client *clients,
		       size_t nr_clients)
{
	struct strmap by_id;
	char key[64];
	size_t i, ci;
	int err = 0;

	strmap_init(&by_id);
	for (ci = 0; ci < nr_clients && !err; ci++) {
		if (!(clients[ci].info.present & DRM_FDINFO_HAS_CLIENT_ID))
			continue;
		id_key(key, sizeof(key), clients[ci].info.client_id, major(clients[ci].rdev),
		       minor(clients[ci].rdev));
		if (!strmap_get(&by_id, key) && strmap_put(&by_id, key, (void *)(ci + 1)))
			err = -ENOMEM;
	}
	for (i = 0; i < r->nr_views && !err; i++) {
		const struct drmtop_client *bc = &r->views[i].c;

		if ((bc->flags & DRMTOP_CLIENT_KERNEL) || !bc->client_id)
			continue;
		if (!bc->dev_major && !bc->dev_minor) {
			/* the tracer could not tell the node; the id alone decides */
			for (ci = 0; ci < nr_clients; ci++)
				if (r->by_fdinfo[ci] == SIZE_MAX &&
				    (clients[ci].info.present & DRM_FDINFO_HAS_CLIENT_ID) &&
				    clients[ci].info.client_id == bc->client_id)
					break;
		} else {
			id_key(key, sizeof(key), bc->client_id, bc->dev_major, bc->dev_minor);
			ci = (size_t)strmap_get(&by_id, key);
			ci = ci ? ci - 1 : nr_clients;
		}
		if (ci < nr_clients && r->by_fdinfo[ci] == SIZE_MAX)
			err = match(r, i, clients, ci, DRMTOP_MATCH_CLIENT_ID);
	}
	strmap_fini(&by_id);
	return err;
}

int drmtop_reconcile(struct drmtop_reconciler *r, const struct drmtop_bpf_snapshot *snap,
		     const struct drm_client *clients, size_t nr_clients)
{
	size_t i, ci;
	int err;

	clear_views(r);
	r->dt_ns = r->prev_taken_ns && snap->taken_ns > r->prev_taken_ns
			   ? snap->taken_ns - r->prev_taken_ns : 0;
	r->views = calloc(snap->n_clients ? snap->n_clients : 1, sizeof(*r->views));
	r->rings = calloc(snap->n_clients ? snap->n_clients : 1, sizeof(*r->rings));
	r->by_fdinfo = malloc((nr_clients ? nr_clients : 1) * sizeof(*r->by_fdinfo));
	if (!r->views || !r->rings || !r->by_fdinfo)
		goto oom;
	r->nr_views = snap->n_clients;
	r->nr_fdinfo = nr_clients;
	for (ci = 0; ci < nr_clients; ci++)
		r->by_fdinfo[ci] = SIZE_MAX;
	for (i = 0; i < r->nr_views; i++) {
		r->views[i].c = snap->clients[i].c;
		r->views[i].mem_shared = snap->clients[i].c.mem_shared;
	}
	err = compute_rates(r, snap);
	if (err)
		goto fail;
	r->prev_taken_ns = snap->taken_ns;

	err = match_by_id(r, clients, nr_clients);
	if (err)
		goto fail;
	for (i = 0; i < r->nr_views; i++)
		if (r->views[i].match == DRMTOP_MATCH_NONE && group_engines(r, i, NULL))
			goto oom;
	return 0;
oom:
	err = -ENOMEM;
fail:
	clear_views(r);
	return err;
}

/*
 * The iterator's fd and the scan's are one file only on one node: the fd number may have gone
 * to another device's file between the two reads (a program probing /dev/dri node by node).
 */
static bool fd_same_file(const struct drmtop_fd_rec *f, const struct drm_client *c)
{
	return f->rdev_major == major(c->rdev) && f->rdev_minor == minor(c->rdev);
}

/*
 * The client behind the fd when it was iterated, not a later one the allocator gave the same
 * drm_file address after it closed.
 */
static bool fd_same_client(const struct drmtop_fd_rec *f, const struct drmtop_client *bc)
{
	if (bc->file != f->file || (f->uid && f->uid != bc->uid))
		return false;
	return !f->client_id || !bc->client_id || f->client_id == bc->client_id;
}

int drmtop_reconcile_fds(struct drmtop_reconciler *r, const struct drm_client *clients,
			 size_t nr_clients, const struct drmtop_fd_rec *fds, size_t nr_fds)
{
	struct strmap by_fd, by_file;
	size_t ci, h, k, vi;
	char key[48];
	int err = 0;

	strmap_init(&by_fd);
	strmap_init(&by_file);
	/* a table's threads list its fds alike: any one of them will do */
	for (k = 0; k < nr_fds && !err; k++) {
		snprintf(key, sizeof(key), "%u/%u", fds[k].tgid, fds[k].fd);
		err = strmap_put(&by_fd, key, (void *)(k + 1)) ? -ENOMEM : 0;
	}
	for (vi = 0; vi < r->nr_views && !err; vi++) {
		if (r->views[vi].match != DRMTOP_MATCH_NONE ||
		    (r->views[vi].c.flags & DRMTOP_CLIENT_KERNEL))
			continue;
		strmap_key_u64(key, r->views[vi].c.file);
		err = strmap_put(&by_file, key, (void *)(vi + 1)) ? -ENOMEM : 0;
	}
	for (ci = 0; ci < nr_clients && ci < r->nr_fdinfo && !err; ci++) {
		const struct drm_client *c = &clients[ci];

		for (h = 0; h < c->nr_holders && r->by_fdinfo[ci] == SIZE_MAX && !err; h++) {
			const struct drmtop_fd_rec *f;
			struct drmtop_client_view *v;

			snprintf(key, sizeof(key), "%u/%u", (__u32)c->holders[h].pid,
				 (__u32)c->holders[h].fd);
			k = (size_t)strmap_get(&by_fd, key);
			if (!k || !fd_same_file(&fds[k - 1], c))
				continue;
			f = &fds[k - 1];
			vi = (size_t)strmap_get(&by_file, strmap_key_u64(key, f->file));
			v = vi ? &r->views[vi - 1] : NULL;
			if (!v || v->match != DRMTOP_MATCH_NONE || !fd_same_client(f, &v->c) ||
			    !same_node(&v->c, c))
				continue;
			err = match(r, vi - 1, clients, ci, DRMTOP_MATCH_FD);
		}
	}
	strmap_fini(&by_fd);
	strmap_fini(&by_file);
	return err;
}

const struct drmtop_client_view *drmtop_reconciled(const struct drmtop_reconciler *r, size_t *nr)
{
	*nr = r->nr_views;
	return r->views;
}

const struct drmtop_client_view *drmtop_reconciled_for(const struct drmtop_reconciler *r,
						       size_t fdinfo_index)
{
	if (fdinfo_index >= r->nr_fdinfo || r->by_fdinfo[fdinfo_index] == SIZE_MAX)
		return NULL;
	return &r->views[r->by_fdinfo[fdinfo_index]];
}

void drmtop_reconcile_window(const struct drmtop_reconciler *r, __u64 *start, __u64 *end)
{
	*end = r->prev_taken_ns;
	*start = r->prev_taken_ns - r->dt_ns;
}

bool drmtop_reconcile_wants_fds(const struct drmtop_reconciler *r)
{
	bool fdinfo_left = false, bpf_left = false;
	size_t i;

	for (i = 0; i < r->nr_fdinfo; i++)
		fdinfo_left |= r->by_fdinfo[i] == SIZE_MAX;
	for (i = 0; i < r->nr_views; i++)
		bpf_left |= r->views[i].match == DRMTOP_MATCH_NONE &&
			    !(r->views[i].c.flags & DRMTOP_CLIENT_KERNEL);
	return fdinfo_left && bpf_left;
}
