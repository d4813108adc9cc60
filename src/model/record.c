// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop record: the session accumulated from each refresh of the model. A client is keyed by
 * its fdinfo key; one only the tracer saw so far is keyed "bpf:<uid>" and joins its fdinfo
 * record once the two are matched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/record.h"
#include "drmtop/util/vec.h"

static struct record_client *find_client(struct record_session *rs, const char *key)
{
	return strmap_get(&rs->by_key, key);
}

static void uid_key(char *buf, size_t len, uint64_t uid)
{
	snprintf(buf, len, "%llu", (unsigned long long)uid);
}

/* A record that took another uid since (an fdinfo key the tracer saw reopened) is no match. */
static struct record_client *find_uid(struct record_session *rs, uint64_t uid)
{
	struct record_client *rc;
	char k[24];

	uid_key(k, sizeof(k), uid);
	rc = strmap_get(&rs->by_uid, k);
	return rc && rc->has_bpf && rc->bpf_uid == uid ? rc : NULL;
}

static void free_client(struct record_client *rc)
{
	size_t j;

	for (j = 0; j < rc->nr_engines; j++)
		free(rc->engines[j].name);
	for (j = 0; j < rc->nr_rings; j++)
		free(rc->rings[j].name);
	free(rc->engines);
	free(rc->rings);
	free(rc->key);
	free(rc->dev_key);
	free(rc->driver);
	free(rc->cgroup);
	free(rc->workload);
	free(rc);
}

/* A new record keyed @key; the caller fills in the rest. */
static struct record_client *add_client(struct record_session *rs, const char *key,
					const char *dev_key, const char *driver, uint64_t offset)
{
	struct record_client **slot, *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return NULL;
	rc->key = strdup(key);
	rc->dev_key = strdup(dev_key ? dev_key : "");
	rc->driver = driver ? strdup(driver) : NULL;
	if (!rc->key || !rc->dev_key || (driver && !rc->driver) ||
	    !(slot = vec_push(rs->clients, rs->nr_clients, rs->cap))) {
		free_client(rc);
		return NULL;
	}
	if (strmap_put(&rs->by_key, key, rc)) {
		rs->nr_clients--;
		free_client(rc);
		return NULL;
	}
	*slot = rc;
	rc->slot = rs->nr_clients - 1;
	rc->first_seen_ns = rc->last_seen_ns = offset;
	return rc;
}

static void set_comm(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static void copy_bpf_identity(struct record_client *rc, const struct drmtop_model_bpf *b)
{
	rc->has_bpf = true;
	rc->bpf_uid = b->uid;
	rc->bpf_kernel = b->kernel;
	rc->bpf_late = b->opened_before_trace;
	rc->bpf_tgid = b->tgid;
	set_comm(rc->bpf_comm, sizeof(rc->bpf_comm), b->comm);
	rc->bpf_has_client_id = b->has_client_id;
	rc->bpf_client_id = b->client_id;
	rc->bpf_mem_total = b->mem_total;
	rc->bpf_mem_imported = b->mem_imported;
	if (b->mem_total > rc->bpf_peak_bytes)
		rc->bpf_peak_bytes = b->mem_total;
}

/* The tracer's identity of @b into @rc, which its uid then finds. 0 or -ENOMEM. */
static int take_bpf_identity(struct record_session *rs, struct record_client *rc,
			     const struct drmtop_model_bpf *b)
{
	char k[24];

	if (rc->has_bpf && rc->bpf_uid == b->uid) {
		copy_bpf_identity(rc, b);
		return 0;
	}
	uid_key(k, sizeof(k), b->uid);
	if (strmap_put(&rs->by_uid, k, rc))
		return -ENOMEM;
	copy_bpf_identity(rc, b);
	return 0;
}

/* A client only the tracer has seen so far: its device named by driver and node. */
static struct record_client *add_bpf_client(struct record_session *rs,
					    const struct drmtop_model_bpf *b, const char *node,
					    uint64_t offset)
{
	char key[32], dev[96];
	struct record_client *rc;

	snprintf(key, sizeof(key), "bpf:%llu", (unsigned long long)b->uid);
	if (node)
		snprintf(dev, sizeof(dev), "%s@%s", b->driver, node);
	else
		snprintf(dev, sizeof(dev), "%s", b->driver);
	rc = add_client(rs, key, dev, b->driver, offset);
	if (!rc)
		return NULL;
	rc->pid = (int)b->tgid;
	set_comm(rc->comm, sizeof(rc->comm), b->kernel ? "[kernel]" : b->comm);
	rc->has_client_id = b->has_client_id;
	rc->client_id = b->client_id;
	if (take_bpf_identity(rs, rc, b)) {
		/* Unfindable by its uid: dropped, or the next try would add a twin. */
		strmap_del(&rs->by_key, rc->key);
		rs->nr_clients--;
		free_client(rc);
		return NULL;
	}
	return rc;
}

static struct record_ring *find_ring(struct record_client *rc, const char *name)
{
	struct record_ring *r;
	size_t i;

	for (i = 0; i < rc->nr_rings; i++)
		if (!strcmp(rc->rings[i].name, name))
			return &rc->rings[i];
	r = vec_push(rc->rings, rc->nr_rings, rc->rings_cap);
	if (!r)
		return NULL;
	r->name = strdup(name[0] ? name : "?");
	if (!r->name) {
		rc->nr_rings--;
		return NULL;
	}
	return r;
}

/*
 * Folds a live client's tracer figures (cumulative, the running job's time included) into its
 * record. At the session's first sample they are the baseline; an engine that appears later
 * started in the session, so its baseline is 0.
 */
static int bpf_live(struct record_session *rs, struct record_client *rc,
		    const struct drmtop_model_client *c, bool first)
{
	size_t i;

	if (!rc->has_bpf)
		rc->bpf_at_start = first;
	if (take_bpf_identity(rs, rc, c->bpf))
		return -ENOMEM;
	for (i = 0; i < rc->nr_rings; i++) {
		rc->rings[i].busy_last_ns = 0;
		rc->rings[i].jobs_last = 0;
	}
	for (i = 0; i < c->nr_engines; i++) {
		const struct drmtop_model_engine *e = &c->engines[i];
		struct record_ring *r;

		if (!e->in_bpf)
			continue;
		r = find_ring(rc, e->name);
		if (!r)
			return -ENOMEM;
		r->busy_last_ns += e->bpf.busy_ns;
		r->jobs_last += e->bpf.jobs;
	}
	for (i = 0; first && i < rc->nr_rings; i++) {
		rc->rings[i].busy_first_ns = rc->rings[i].busy_last_ns;
		rc->rings[i].jobs_first = rc->rings[i].jobs_last;
	}
	return 0;
}

/*
 * A close record: its figures are the client's totals (or a later residue): they add up. Under
 * the engine the driver table names the ring, as the live figures are (bpf_live), so that the
 * session's share is the total less the start, whatever the ring was called.
 */
static int bpf_closed(struct record_session *rs, struct record_client *rc,
		      const struct drmtop_model_closed *c)
{
	size_t i;

	if (!rc->bpf_closed) {
		/* the first carries the memory held at close */
		if (take_bpf_identity(rs, rc, &c->bpf))
			return -ENOMEM;
		rc->bpf_orphan = c->orphan;
	}
	rc->bpf_closed = true;
	rc->closed = true;
	for (i = 0; i < c->nr_engines; i++) {
		struct record_ring *r = find_ring(rc, c->engines[i].engine);

		if (!r)
			return -ENOMEM;
		r->busy_closed_ns += c->engines[i].busy_ns;
		r->jobs_closed += c->engines[i].jobs;
	}
	return 0;
}

/* Moves the tracer's side of @from (a "bpf:<uid>" record) into @to and drops @from. */
static int merge_into(struct record_session *rs, struct record_client *to,
		      struct record_client *from)
{
	size_t j, from_i = from->slot;
	char k[24];

	uid_key(k, sizeof(k), from->bpf_uid);
	if (strmap_put(&rs->by_uid, k, to))
		return -ENOMEM;
	strmap_del(&rs->by_key, from->key);
	for (j = 0; j < to->nr_rings; j++)
		free(to->rings[j].name);
	free(to->rings);
	to->rings = from->rings;
	to->nr_rings = from->nr_rings;
	to->rings_cap = from->rings_cap;
	to->has_bpf = true;
	to->bpf_uid = from->bpf_uid;
	to->bpf_kernel = from->bpf_kernel;
	to->bpf_late = from->bpf_late;
	to->bpf_tgid = from->bpf_tgid;
	memcpy(to->bpf_comm, from->bpf_comm, sizeof(to->bpf_comm));
	to->bpf_has_client_id = from->bpf_has_client_id;
	to->bpf_client_id = from->bpf_client_id;
	to->bpf_mem_total = from->bpf_mem_total;
	to->bpf_mem_imported = from->bpf_mem_imported;
	to->bpf_at_start = from->bpf_at_start;
	to->bpf_closed = from->bpf_closed;
	to->bpf_orphan = from->bpf_orphan;
	to->bpf_peak_bytes = from->bpf_peak_bytes;
	if (!to->cgroup) {
		to->cgroup = from->cgroup;
		to->workload = from->workload;
		from->cgroup = from->workload = NULL;
	}
	if (from->first_seen_ns < to->first_seen_ns)
		to->first_seen_ns = from->first_seen_ns;
	from->rings = NULL;
	from->nr_rings = 0;
	free_client(from);
	rs->clients[from_i] = rs->clients[--rs->nr_clients];
	rs->clients[from_i]->slot = from_i;
	return 0;
}

static int update_engine(struct record_client *rc, const struct drmtop_model_engine *e,
			 bool baseline)
{
	struct record_engine *re = NULL;
	size_t i;

	if (!e->in_fdinfo || !(e->fd.flags & DRMTOP_FD_BUSY))
		return 0;
	for (i = 0; i < rc->nr_engines && !re; i++)
		if (!strcmp(rc->engines[i].name, e->name))
			re = &rc->engines[i];
	if (!re) {
		re = vec_push(rc->engines, rc->nr_engines, rc->engines_cap);
		if (!re)
			return -ENOMEM;
		re->name = strdup(e->name);
		if (!re->name) {
			rc->nr_engines--;
			return -ENOMEM;
		}
		re->first_ns = baseline ? e->fd.busy_effective_ns : 0;
	}
	/* The spec's rule: a reading that went backwards does not lower the counter. */
	if (e->fd.busy_effective_ns > re->last_ns)
		re->last_ns = e->fd.busy_effective_ns;
	return 0;
}

/*
 * Keeps @g as @rc's cgroup: a live client's as its process is now (it may be moved), a closed
 * client's (@if_none) only if no live sample named one.
 */
static int set_cgroup(struct record_client *rc, const struct drmtop_model_cgroup *g, bool if_none)
{
	if (!g->path || (rc->cgroup && (if_none || !strcmp(rc->cgroup, g->path))))
		return 0;
	free(rc->cgroup);
	free(rc->workload);
	rc->cgroup = strdup(g->path);
	rc->workload = strdup(g->workload);
	return rc->cgroup && rc->workload ? 0 : -ENOMEM;
}

static int record_fdinfo_client(struct record_session *rs, const struct drmtop_model_client *c,
				bool first, uint64_t offset)
{
	struct record_client *rc = find_client(rs, c->key);
	bool baseline;
	size_t j;

	if (!rc) {
		rc = add_client(rs, c->key, c->dev_key, c->driver, offset);
		if (!rc)
			return -ENOMEM;
		rc->pid = c->pid;
		set_comm(rc->comm, sizeof(rc->comm), c->comm);
		rc->has_client_id = c->has_client_id;
		rc->client_id = c->client_id;
		rc->at_start = first;
		rc->has_fdinfo = true;
		rc->window_start_ns = first ? c->sample_ns : rs->start_ns;
	}
	/* A driver without fdinfo keys is named once the tracer has matched its client. */
	if (!rc->driver && c->driver) {
		rc->driver = strdup(c->driver);
		if (!rc->driver)
			return -ENOMEM;
	}
	if (set_cgroup(rc, &c->cgroup, false))
		return -ENOMEM;
	rc->window_end_ns = c->sample_ns;
	/* Only what a client open at the start had already done is left out of the session. */
	baseline = rc->at_start && rc->first_seen_ns == offset;
	rc->last_seen_ns = offset;
	rc->closed = false;
	for (j = 0; j < c->nr_engines; j++)
		if (update_engine(rc, &c->engines[j], baseline))
			return -ENOMEM;
	rc->last_total_bytes = c->mem_total;
	if (c->mem_total > rc->peak_total_bytes)
		rc->peak_total_bytes = c->mem_total;
	return 0;
}

static int record_bpf_client(struct record_session *rs, const struct drmtop_model_client *c,
			     bool first, uint64_t offset)
{
	struct record_client *rc = find_uid(rs, c->bpf->uid), *fd_rc = NULL;

	if (c->in_fdinfo)
		fd_rc = find_client(rs, c->key);
	if (fd_rc && rc && rc != fd_rc && merge_into(rs, fd_rc, rc))
		return -ENOMEM;
	if (fd_rc)
		rc = fd_rc;
	if (!rc) {
		rc = add_bpf_client(rs, c->bpf, c->node, offset);
		if (!rc)
			return -ENOMEM;
		rc->bpf_at_start = first;
	}
	rc->last_seen_ns = offset;
	if (set_cgroup(rc, &c->cgroup, false))
		return -ENOMEM;
	return bpf_live(rs, rc, c, first);
}

int record_session_add(struct record_session *rs, const struct drmtop_model *m, uint64_t now_ns)
{
	bool first = rs->samples == 0;
	uint64_t offset;

	/*
	 * The session runs from its first sample: that is where the busy time of clients already
	 * open is counted from, so a slow first scan must not lengthen the span it is divided by.
	 */
	if (first)
		rs->start_ns = now_ns;
	offset = now_ns - rs->start_ns;
	size_t i;
	int err;

	rs->samples++;
	rs->end_ns = now_ns;
	if (m->bpf_active) {
		/* The first refresh's interval runs from attach, just before the session. */
		rs->bpf_seen = true;
		rs->missed += m->missed.interval;
		rs->skipped_runs += m->missed.skipped_runs_interval;
	}
	for (i = 0; i < m->nr_fdinfo_clients; i++) {
		err = record_fdinfo_client(rs, &m->clients[i], first, offset);
		if (err)
			return err;
	}
	for (i = 0; i < m->nr_clients; i++) {
		if (!m->clients[i].bpf)
			continue;
		err = record_bpf_client(rs, &m->clients[i], first, offset);
		if (err)
			return err;
	}
	for (i = 0; i < m->nr_closed; i++) {
		const struct drmtop_model_closed *c = &m->closed[i];
		struct record_client *rc;

		if (!c->from_bpf) {
			rc = find_client(rs, c->key);
			if (rc)
				rc->closed = true;
			continue;
		}
		rc = find_uid(rs, c->bpf.uid);
		if (!rc) {
			rc = add_bpf_client(rs, &c->bpf, NULL, offset);
			if (!rc)
				return -ENOMEM;
		}
		err = bpf_closed(rs, rc, c);
		if (!err)
			err = set_cgroup(rc, &c->cgroup, true);
		if (err)
			return err;
	}
	return 0;
}

uint64_t record_client_window(const struct record_client *c, uint64_t span)
{
	return c->window_end_ns > c->window_start_ns ? c->window_end_ns - c->window_start_ns
						     : span;
}

uint64_t record_engine_busy(const struct record_client *c, const struct record_engine *e)
{
	(void)c;
	return e->last_ns - e->first_ns;
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

void record_session_free(struct record_session *rs)
{
	size_t i;

	for (i = 0; i < rs->nr_clients; i++)
		free_client(rs->clients[i]);
	free(rs->clients);
	strmap_fini(&rs->by_key);
	strmap_fini(&rs->by_uid);
	memset(rs, 0, sizeof(*rs));
}
