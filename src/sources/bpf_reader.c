// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_reader.c: turns the tracer's maps into snapshots (include/drmtop/bpf_reader.h).
 *
 * Order matters for never losing a closed client: the closed-client ring buffer is drained
 * first, then the live clients are read, then the engine figures are walked. An engine entry
 * whose uid is neither live nor closed-and-drained belongs to a client that closed in between:
 * it stays in the map for the next snapshot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "drmtop/bpf_reader.h"
#include "drmtop/util/vec.h"
#include "drmtop_drm.skel.h"

int drmtop_bpf_on_closed(void *ctx, void *data, size_t len);

/* Indexed by the enum itself: a name cannot land at another counter's index. */
static const char *const counter_names[] = {
#define DRMTOP_COUNTER_NAME(id, name, kind) [DRMTOP_CNT_##id] = #name,
	DRMTOP_COUNTERS(DRMTOP_COUNTER_NAME)
#undef DRMTOP_COUNTER_NAME
};
_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) == DRMTOP_CNT_MAX,
	       "every counter has a name");

const char *drmtop_bpf_counter_name(unsigned int counter)
{
	return counter < DRMTOP_CNT_MAX ? counter_names[counter] : NULL;
}

/* Ring buffer callback: queue a closed client's record for the next snapshot. */
int drmtop_bpf_on_closed(void *ctx, void *data, size_t len)
{
	struct drmtop_bpf *b = ctx;
	struct drmtop_client *p;

	if (len < sizeof(struct drmtop_client))
		return 0;
	p = vec_push(b->pending, b->n_pending, b->cap_pending);
	if (!p)
		return -ENOMEM;
	memcpy(p, data, sizeof(*p));
	return 0;
}

static int push_client(struct drmtop_bpf_client **arr, size_t *n, size_t *cap,
		       const struct drmtop_client *c)
{
	struct drmtop_bpf_client *cl = vec_push(*arr, *n, *cap);

	if (!cl)
		return -ENOMEM;
	cl->c = *c;
	return 0;
}

static struct drmtop_bpf_client *find_uid(struct drmtop_bpf_client *arr, size_t n, __u64 uid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (arr[i].c.uid == uid)
			return &arr[i];
	return NULL;
}

static const struct drmtop_client *find_retired(const struct drmtop_bpf *b, __u64 uid)
{
	size_t i, n = b->n_retired < DRMTOP_BPF_RETIRED ? b->n_retired : DRMTOP_BPF_RETIRED;

	for (i = 0; i < n; i++)
		if (b->retired[i].uid == uid)
			return &b->retired[i];
	return NULL;
}

static void retire(struct drmtop_bpf *b, const struct drmtop_client *c)
{
	b->retired[b->n_retired++ % DRMTOP_BPF_RETIRED] = *c;
}

static int add_engine(struct drmtop_bpf_client *cl, __u64 ring, const struct drmtop_engine *e,
		      int rings_fd)
{
	struct drmtop_bpf_engine *p = vec_push(cl->engines, cl->n_engines, cl->cap_engines);
	struct drmtop_ring r;

	if (!p)
		return -ENOMEM;
	p->ring = ring;
	/* the name the ring had for this client: its scheduler may be gone, its address reused */
	if (e->ring_name[0])
		memcpy(p->name, e->ring_name, sizeof(p->name));
	else if (!bpf_map_lookup_elem(rings_fd, &ring, &r))
		memcpy(p->name, r.name, sizeof(p->name));
	p->busy_ns = e->busy_ns;
	p->jobs = e->jobs;
	p->start_slack_ns = e->start_slack_ns;
	memcpy(p->lat_hist, e->lat_hist, sizeof(p->lat_hist));
	return 0;
}

/* Walks map @map of @b, with the test hook if one is set. */
static int walk(struct drmtop_bpf *b, enum drmtop_bpf_map map,
		int (*each)(const void *key, const void *value, void *ctx), void *ctx);

struct stale_handles {
	int clients_fd;
	struct drmtop_handle_key *keys;
	size_t n, cap;
	size_t closing;		/* entries of a client still closing: look again later */
};

static int each_stale_handle(const void *key, const void *value, void *ctx)
{
	const struct drmtop_handle_key *k = key;
	const struct drmtop_handle *h = value;
	struct stale_handles *sh = ctx;
	struct drmtop_client c;
	struct drmtop_handle_key *p;

	if (!bpf_map_lookup_elem(sh->clients_fd, &k->file, &c) && c.uid == h->uid) {
		sh->closing += !!(c.flags & DRMTOP_CLIENT_CLOSING);
		return 0;
	}
	p = vec_push(sh->keys, sh->n, sh->cap);
	if (!p)
		return -ENOMEM;
	*p = *k;
	return 0;
}

/*
 * Handle entries that a skipped drmtop_handle_release (7.x) left behind. A client leaves the
 * clients map only at the end of its close, after every handle of its file was released, so a
 * handle entry whose file is no client, or another client (its address handed out again), is
 * such a leftover; deleted, counted handles_pruned (as is one the handle create hook overwrote).
 * Looked for only after the kernel skipped that program (its recursion_misses grew), or a test
 * made it skip runs (bpfdump --drop-release): a walk of the handles map is not for every
 * refresh. Again at the next refresh while a client that holds entries is closing: a release
 * skipped in its close leaves one, and the client leaves the map only when its file is freed,
 * after the driver's postclose (simgpu's waits for the jobs still queued: up to a second).
 */
static void prune_handles(struct drmtop_bpf *b)
{
	struct stale_handles sh = { .clients_fd = b->map_fd[MAP_CLIENTS] };
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	__u64 skips;
	size_t i;
	int fd;

	fd = b->drm ? bpf_program__fd(b->drm->progs.drmtop_handle_release) : -1;
	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	skips = info.recursion_misses + (b->drm->bss ? b->drm->bss->drmtop_test_drm_dropped[2] : 0);
	if (skips == b->handle_release_misses)
		return;
	if (!walk(b, MAP_HANDLES, each_stale_handle, &sh)) {
		if (!sh.closing)
			b->handle_release_misses = skips;
		for (i = 0; i < sh.n; i++)
			if (!bpf_map_delete_elem(b->map_fd[MAP_HANDLES], &sh.keys[i]))
				b->handles_pruned++;
	}
	free(sh.keys);
}

static int count_entry(const void *key, const void *value, void *ctx)
{
	(void)key;
	(void)value;
	++*(size_t *)ctx;
	return 0;
}

/*
 * Timelines the LRU map dropped to make room: all that were made minus those present, as
 * nothing else deletes one. Only an insert evicts, so the map is counted again only after the
 * timelines counter moved, and the count is kept only if no insert came while it was taken.
 */
static void count_evicted_timelines(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	__u32 k = DRMTOP_CNT_TIMELINES;
	__u64 made = s->counters[k], after = 0;
	size_t n = 0;

	if (made != b->timelines_made && !walk(b, MAP_TIMELINES, count_entry, &n) &&
	    !bpf_map_lookup_elem(b->map_fd[MAP_COUNTERS], &k, &after) && after == made) {
		b->timelines_made = made;
		b->timelines_present = n;
	}
	s->counters[DRMTOP_CNT_TIMELINES_EVICTED] = b->timelines_made > b->timelines_present ?
						   b->timelines_made - b->timelines_present : 0;
}

/* Walks map @map of @b, with the test hook if one is set. */
static int walk(struct drmtop_bpf *b, enum drmtop_bpf_map map,
		int (*each)(const void *key, const void *value, void *ctx), void *ctx)
{
	struct drmtop_walk w = {
		.fd = b->map_fd[map], .each = each, .ctx = ctx,
		.hook = b->walk_test.hook, .hook_ctx = b->walk_test.ctx,
		/* batch reads only when a test asks for them: see src/sources/bpf_walk.c */
		.batch = b->walk_test.batch,
		.no_batch = !b->walk_test.batch || b->walk_test.no_batch,
	};

	return drmtop_bpf_map_walk(&w);
}

static int each_client(const void *key, const void *value, void *ctx)
{
	struct drmtop_bpf_snapshot *s = ctx;
	struct drmtop_client c = *(const struct drmtop_client *)value;

	(void)key;
	c.mem_shared = 0;
	return push_client(&s->clients, &s->n_clients, &s->cap_clients, &c);
}

static int read_clients(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	return walk(b, MAP_CLIENTS, each_client, s);
}

struct shared_walk {
	struct drmtop_bpf_snapshot *s;
	int objects_fd;
};

/* Live shared bytes, counted the way drm_show_memory_stats counts them, per handle. */
static int each_handle(const void *key, const void *value, void *ctx)
{
	const struct drmtop_handle *h = value;
	struct shared_walk *sw = ctx;
	struct drmtop_bpf_client *cl;
	struct drmtop_object o;

	(void)key;
	if (bpf_map_lookup_elem(sw->objects_fd, &h->obj, &o))
		return 0;
	if (o.handle_count <= 1 && !(o.flags & DRMTOP_OBJ_DMABUF))
		return 0;
	cl = find_uid(sw->s->clients, sw->s->n_clients, h->uid);
	if (cl)
		cl->c.mem_shared += h->size;
	return 0;
}

static int compute_shared(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct shared_walk sw = { .s = s, .objects_fd = b->map_fd[MAP_OBJECTS] };

	return walk(b, MAP_HANDLES, each_handle, &sw);
}

static struct drmtop_reported *find_reported(struct drmtop_bpf *b,
					     const struct drmtop_engine_key *key)
{
	size_t i;

	for (i = 0; i < b->n_reported; i++)
		if (b->reported[i].key.uid == key->uid && b->reported[i].key.ring == key->ring)
			return &b->reported[i];
	return NULL;
}

/* @now - @before into @d; false when nothing grew. */
static bool engine_growth(const struct drmtop_engine *now, const struct drmtop_engine *before,
			  struct drmtop_engine *d)
{
	bool grew = false;
	size_t i;

	d->busy_ns = now->busy_ns > before->busy_ns ? now->busy_ns - before->busy_ns : 0;
	d->jobs = now->jobs > before->jobs ? now->jobs - before->jobs : 0;
	d->start_slack_ns = now->start_slack_ns > before->start_slack_ns ?
			    now->start_slack_ns - before->start_slack_ns : 0;
	grew = d->busy_ns || d->jobs;
	memcpy(d->ring_name, now->ring_name, sizeof(d->ring_name));
	for (i = 0; i < DRMTOP_LAT_BUCKETS; i++) {
		d->lat_hist[i] = now->lat_hist[i] > before->lat_hist[i] ?
				 now->lat_hist[i] - before->lat_hist[i] : 0;
		grew |= d->lat_hist[i] != 0;
	}
	return grew;
}

/*
 * The entry of closed (or orphan) client @owner in @s that engine figures go to: the record
 * drained in this snapshot, else a residue entry made from @owner (figures only, memory 0).
 */
static struct drmtop_bpf_client *owner_entry(struct drmtop_bpf_snapshot *s,
					     const struct drmtop_client *owner, int *err)
{
	bool orphan = owner->flags & DRMTOP_CLIENT_ORPHAN;
	struct drmtop_bpf_client **arr = orphan ? &s->orphans : &s->closed;
	size_t *n = orphan ? &s->n_orphans : &s->n_closed;
	struct drmtop_bpf_client *cl = find_uid(*arr, *n, owner->uid);
	struct drmtop_client residue;

	*err = 0;
	if (cl)
		return cl;
	residue = *owner;
	residue.mem_total = residue.mem_shared = residue.mem_imported = 0;
	residue.handles = 0;
	*err = push_client(arr, n, orphan ? &s->cap_orphans : &s->cap_closed, &residue);
	return *err ? NULL : &(*arr)[*n - 1];
}

/* The closed or settled orphan client @uid, NULL if none is known. */
static const struct drmtop_client *find_owner(struct drmtop_bpf *b,
					      const struct drmtop_bpf_snapshot *s, __u64 uid)
{
	const struct drmtop_client *c;
	size_t i;

	for (i = 0; i < s->n_closed; i++)
		if (s->closed[i].c.uid == uid)
			return &s->closed[i].c;
	c = find_retired(b, uid);
	if (c)
		return c;
	/* reported before and since pushed out of the retired ring by later closes */
	for (i = 0; i < b->n_reported; i++)
		if (b->reported[i].key.uid == uid)
			return &b->reported[i].owner;
	return NULL;
}

/* Remembers what was reported of a closed client's engine entry; NULL if out of memory. */
static struct drmtop_reported *remember_reported(struct drmtop_bpf *b,
						 const struct drmtop_engine_key *key,
						 const struct drmtop_engine *e,
						 const struct drmtop_client *owner)
{
	struct drmtop_reported *r = find_reported(b, key);

	if (!r) {
		r = vec_push(b->reported, b->n_reported, b->cap_reported);
		if (!r)
			return NULL;
		r->key = *key;
		r->owner = *owner;
	}
	r->e = *e;
	r->quiet = false;
	return r;
}

static struct drmtop_orphan *find_orphan(struct drmtop_bpf *b, __u64 uid)
{
	size_t i;

	for (i = 0; i < b->n_orphans; i++)
		if (b->orphans[i].uid == uid)
			return &b->orphans[i];
	return NULL;
}

/*
 * @uid has no live or known closed client in this snapshot. Returns the orphan client to
 * settle its entries with once the grace period is over, NULL until then (or on ENOMEM, *err).
 */
static const struct drmtop_client *unknown_uid(struct drmtop_bpf *b, __u64 uid, __u64 now,
					       int *err)
{
	__u64 grace_ns = b->orphan_grace_ns ? b->orphan_grace_ns : DRMTOP_BPF_ORPHAN_GRACE_NS;
	unsigned int grace = b->orphan_grace_snaps ? b->orphan_grace_snaps :
			     DRMTOP_BPF_ORPHAN_GRACE_SNAPS;
	struct drmtop_orphan *o = find_orphan(b, uid);
	size_t i;

	*err = 0;
	if (!o) {
		o = vec_push(b->orphans, b->n_orphans, b->cap_orphans);
		if (!o) {
			*err = -ENOMEM;
			return NULL;
		}
		o->uid = uid;
		o->first_seq = b->seq;
		o->first_ns = now;
		o->c.uid = uid;
		o->c.minor_index = -1;
		for (i = 0; i < b->n_prev_live; i++)
			if (b->prev_live[i].uid == uid)
				o->c = b->prev_live[i];
	}
	o->last_seq = b->seq;
	if (b->seq - o->first_seq < grace || now - o->first_ns < grace_ns)
		return NULL;
	/* settled: from now on a known client, as a closed one whose record was drained */
	o->c.flags |= DRMTOP_CLIENT_CLOSED | DRMTOP_CLIENT_ORPHAN;
	o->c.close_ns = 0;
	retire(b, &o->c);
	return find_retired(b, uid);
}

struct engines_walk {
	struct drmtop_bpf *b;
	struct drmtop_bpf_snapshot *s;
	__u64 now;
	struct drmtop_engine_key *del;	/* entries to delete once the walk is over */
	size_t n_del, cap_del;
};

static int each_engine(const void *kp, const void *value, void *ctx)
{
	static const struct drmtop_engine zero;
	const struct drmtop_engine_key *key = kp;
	const struct drmtop_engine *e = value;
	const struct drmtop_client *owner;
	struct engines_walk *ew = ctx;
	struct drmtop_bpf *b = ew->b;
	struct drmtop_engine_key *del;
	struct drmtop_bpf_client *cl;
	struct drmtop_reported *rep;
	struct drmtop_engine d;
	bool grew;
	int err;

	cl = find_uid(ew->s->clients, ew->s->n_clients, key->uid);
	if (cl)
		return add_engine(cl, key->ring, e, b->map_fd[MAP_RINGS]);
	owner = find_owner(b, ew->s, key->uid);
	if (!owner) {
		owner = unknown_uid(b, key->uid, ew->now, &err);
		if (!owner)
			return err;	/* within the grace period: its record may still come */
	}
	rep = find_reported(b, key);
	grew = engine_growth(e, rep ? &rep->e : &zero, &d);
	if (!rep && (owner->flags & DRMTOP_CLIENT_ORPHAN))
		b->orphan_engines++;
	if (!grew) {
		/* kept until a snapshot finds it unchanged, then deleted in the next one */
		if (!rep)
			return remember_reported(b, key, e, owner) ? 0 : -ENOMEM;
		if (!rep->quiet) {
			rep->quiet = true;
			return 0;
		}
		del = vec_push(ew->del, ew->n_del, ew->cap_del);
		if (!del)
			return -ENOMEM;
		*del = *key;
		return 0;
	}
	cl = owner_entry(ew->s, owner, &err);
	if (!err)
		err = add_engine(cl, key->ring, &d, b->map_fd[MAP_RINGS]);
	if (!err && !remember_reported(b, key, e, owner))
		err = -ENOMEM;
	return err;
}

/*
 * Engine figures: onto live clients; onto clients closed since the previous snapshot; and what a
 * closed client's jobs still add after its close (jobs running at close end later) becomes a
 * further closed entry of the same uid. A closed client's entry leaves the map only after a
 * snapshot found it unchanged, and then atomically with what it held at that moment: a job that
 * ended between the read and the delete is still reported, never lost. An entry of a uid no
 * client is known for waits for the grace period (its close record may still be on its way),
 * then goes the same way as an orphan's: nothing in the map outlives its client for long.
 */
static int read_engines(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct engines_walk ew = { .b = b, .s = s };
	int fd = b->map_fd[MAP_ENGINES], err;
	struct drmtop_bpf_client *cl;
	struct drmtop_reported *rep;
	struct drmtop_engine e, d;
	struct timespec ts;
	size_t i, j;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ew.now = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	err = walk(b, MAP_ENGINES, each_engine, &ew);
	for (i = 0; !err && i < ew.n_del; i++) {
		rep = find_reported(b, &ew.del[i]);
		if (!rep)
			continue;
		if (!bpf_map_lookup_and_delete_elem(fd, &ew.del[i], &e) &&
		    engine_growth(&e, &rep->e, &d)) {
			cl = owner_entry(s, &rep->owner, &err);
			if (!err)
				err = add_engine(cl, ew.del[i].ring, &d, b->map_fd[MAP_RINGS]);
		}
		*rep = b->reported[--b->n_reported];
	}
	free(ew.del);
	/* unknown uids this snapshot did not meet again are known now, or their entries gone */
	for (i = 0, j = 0; i < b->n_orphans; i++)
		if (b->orphans[i].last_seq == b->seq && !(b->orphans[i].c.flags &
							   DRMTOP_CLIENT_ORPHAN))
			b->orphans[j++] = b->orphans[i];
	b->n_orphans = j;
	return err;
}

struct oldest {
	__u64 ring, uid, run_ns, fence;
};

struct running_walk {
	struct oldest *old;
	size_t n, cap;
	__u64 now;
	__u64 *stale;		/* ended jobs never freed: keys to delete */
	size_t n_stale, cap_stale;
};

/* A job made from its done event is counted at its cleanup, a few ms later; 10 s is never. */
#define ENDED_GRACE_NS	10000000000ull

static int each_job(const void *key, const void *value, void *ctx)
{
	const struct drmtop_job *job = value;
	struct running_walk *rw = ctx;
	struct oldest *p;
	__u64 *k;
	size_t i;

	if (job->uid & DRMTOP_JOB_ENDED) {
		/* ended, waiting for its cleanup to be counted: its cleanup run was lost */
		if (rw->now <= job->run_ns + ENDED_GRACE_NS)
			return 0;
		k = vec_push(rw->stale, rw->n_stale, rw->cap_stale);
		if (!k)
			return -ENOMEM;
		*k = *(const __u64 *)key;
		return 0;
	}
	if (!job->run_ns)
		return 0;
	for (i = 0; i < rw->n && rw->old[i].ring != job->ring; i++)
		;
	if (i == rw->n) {
		p = vec_push(rw->old, rw->n, rw->cap);
		if (!p)
			return -ENOMEM;
		*p = (struct oldest){ job->ring, job->uid, job->run_ns, *(const __u64 *)key };
	} else if (job->run_ns < rw->old[i].run_ns) {
		rw->old[i] = (struct oldest){ job->ring, job->uid, job->run_ns,
					      *(const __u64 *)key };
	}
	return 0;
}

/*
 * Whether @o, the oldest job on its ring, lost its done and its cleanup (a GPU reset on 7.x):
 * on a ring of one unit jobs finish in the order they ran, so a job that ran after it and
 * finished (@r->done_run_ns) means it ended unseen. Aged out (deleted, jobs_aged_out) when the
 * snapshot before found it so too: its done event, still running on another CPU then, is long
 * over. Otherwise it would stay the oldest for ever and count as running. A ring of several
 * units (engine capacity) finishes out of order: not judged.
 */
static bool aged_out(struct drmtop_bpf *b, const struct oldest *o, const struct drmtop_ring *r,
		     struct drmtop_aging *next, size_t *n_next)
{
	size_t i;

	if (r->lanes > 1 || r->done_run_ns <= o->run_ns)
		return false;
	for (i = 0; i < b->n_aging; i++)
		if (b->aging[i].fence == o->fence && b->aging[i].run_ns == o->run_ns)
			break;
	if (i == b->n_aging) {
		next[(*n_next)++] = (struct drmtop_aging){ o->fence, o->run_ns };
		return false;
	}
	if (!bpf_map_delete_elem(b->map_fd[MAP_JOBS], &o->fence))
		b->jobs_aged_out++;
	return true;
}

/*
 * The running part: per ring, the oldest job handed to the hardware and not done has run
 * from max(its run time, the ring's previous job end) until s->taken_ns (union rule, as in the
 * BPF accounting); the younger ones on a deep ring start when it ends, so they add nothing yet.
 * A job that started after taken_ns adds nothing either. On a ring with several execution units
 * (drm-engine-capacity > 1) the jobs running beside it on other units are not known to be
 * running until they end (which unit a job went to is only known from its hardware fence):
 * the running part is then a lower bound, and busy_ns exact again once they end. Jobs that
 * lost their done and cleanup are aged out here (aged_out, and ended ones never freed).
 */
static int add_running(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct running_walk rw = { .now = s->taken_ns };
	struct drmtop_aging *next = NULL;
	__u64 now = s->taken_ns;
	size_t i, j, n_next = 0;
	int err;

	err = walk(b, MAP_JOBS, each_job, &rw);
	for (i = 0; !err && i < rw.n_stale; i++)
		if (!bpf_map_delete_elem(b->map_fd[MAP_JOBS], &rw.stale[i]))
			b->jobs_aged_out++;
	if (!err && rw.n) {
		next = calloc(rw.n, sizeof(*next));
		if (!next)
			err = -ENOMEM;
	}
	for (i = 0; !err && i < rw.n; i++) {
		struct drmtop_bpf_client *cl;
		struct drmtop_engine zero = {};
		struct drmtop_ring r = {};
		__u64 start;

		bpf_map_lookup_elem(b->map_fd[MAP_RINGS], &rw.old[i].ring, &r);
		if (aged_out(b, &rw.old[i], &r, next, &n_next))
			continue;
		cl = find_uid(s->clients, s->n_clients, rw.old[i].uid);
		if (!cl)
			continue;
		start = rw.old[i].run_ns > r.last_done_ns ? rw.old[i].run_ns : r.last_done_ns;
		if (now <= start)
			continue;
		for (j = 0; j < cl->n_engines && cl->engines[j].ring != rw.old[i].ring; j++)
			;
		if (j == cl->n_engines) {
			err = add_engine(cl, rw.old[i].ring, &zero, b->map_fd[MAP_RINGS]);
			if (err)
				break;
		}
		cl->engines[j].running_ns = now - start;
	}
	if (!err) {
		free(b->aging);
		b->aging = next;
		b->n_aging = n_next;
		b->cap_aging = rw.n;
		next = NULL;
	}
	free(next);
	free(rw.old);
	free(rw.stale);
	return err;
}

static int each_device(const void *key, const void *value, void *ctx)
{
	struct drmtop_bpf_snapshot *s = ctx;
	struct drmtop_bpf_device *p;

	p = vec_push(s->devices, s->n_devices, s->cap_devices);
	if (!p)
		return -ENOMEM;
	p->drm_dev = *(const __u64 *)key;
	p->d = *(const struct drmtop_device *)value;
	return 0;
}

static int read_devices(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	return walk(b, MAP_DEVICES, each_device, s);
}

static int each_gpu_mem(const void *key, const void *value, void *ctx)
{
	const struct drmtop_gpu_mem_key *k = key;
	struct drmtop_bpf_snapshot *s = ctx;
	struct drmtop_bpf_gpu_mem *g;

	g = vec_push(s->gpu_mem, s->n_gpu_mem, s->cap_gpu_mem);
	if (!g)
		return -ENOMEM;
	g->gpu_id = k->gpu_id;
	g->pid = k->pid;
	g->bytes = *(const __u64 *)value;
	return 0;
}

static int read_gpu_mem(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct drmtop_walk w = { .fd = b->gpu_mem_fd, .each = each_gpu_mem, .ctx = s };

	s->gpu_mem_traced = b->gpu_mem_fd >= 0;
	return s->gpu_mem_traced ? drmtop_bpf_map_walk(&w) : 0;
}

/*
 * The sched part makes a device's kernel client from a job's scheduler, which knows the parent
 * device (drm_gpu_scheduler.dev) but not the DRM driver: its name comes from the device the drm
 * part recorded for the same parent, so the driver table maps the kernel client's rings too
 * (amdgpu's clears on "sdma0" are its "dma" engine, not a ring of their own).
 */
static void name_kernel_clients(struct drmtop_bpf_snapshot *s)
{
	size_t i, j;

	for (i = 0; i < s->n_clients; i++) {
		struct drmtop_client *c = &s->clients[i].c;

		if (!(c->flags & DRMTOP_CLIENT_KERNEL) || c->driver[0])
			continue;
		for (j = 0; j < s->n_devices; j++) {
			const struct drmtop_device *d = &s->devices[j].d;

			if (d->parent_dev == c->parent_dev && d->driver[0]) {
				memcpy(c->driver, d->driver, sizeof(c->driver));
				break;
			}
		}
	}
}

int drmtop_bpf_snapshot(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct timespec ts;
	__u32 k;
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	if (!b->rb || b->map_fd[0] < 0)
		return -ENOENT;
	b->seq++;

	err = ring_buffer__consume(b->rb);
	if (err < 0)
		goto fail;
	for (i = 0; i < b->n_pending; i++) {
		err = push_client(&s->closed, &s->n_closed, &s->cap_closed, &b->pending[i]);
		if (err)
			goto fail;
		retire(b, &b->pending[i]);
	}
	b->n_pending = 0;

	err = read_clients(b, s);
	if (err)
		goto fail;
	err = compute_shared(b, s);
	if (err)
		goto fail;
	err = read_engines(b, s);
	if (err)
		goto fail;
	/*
	 * The snapshot's one instant, after the engine totals and before the running jobs: totals
	 * hold only jobs that ended before it (a job's end is a past hardware timestamp), running
	 * parts run up to it, so no interval is counted twice or past it (no rate above 100 %).
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->taken_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	err = add_running(b, s);
	if (err)
		goto fail;
	err = read_devices(b, s);
	if (err)
		goto fail;
	err = read_gpu_mem(b, s);
	if (err)
		goto fail;
	name_kernel_clients(s);
	for (k = 0; k < DRMTOP_CNT_MAX; k++)
		bpf_map_lookup_elem(b->map_fd[MAP_COUNTERS], &k, &s->counters[k]);
	s->counters[DRMTOP_CNT_ORPHAN_ENGINES] += b->orphan_engines;
	s->counters[DRMTOP_CNT_JOBS_AGED_OUT] += b->jobs_aged_out;
	count_evicted_timelines(b, s);
	prune_handles(b);
	s->counters[DRMTOP_CNT_HANDLES_PRUNED] += b->handles_pruned;
	/* who was live, for naming a client whose close record turns out lost */
	err = vec_reserve(b->prev_live, b->cap_prev_live, s->n_clients);
	if (err)
		goto fail;
	for (i = 0; i < s->n_clients; i++)
		b->prev_live[i] = s->clients[i].c;
	b->n_prev_live = s->n_clients;
	return 0;
fail:
	drmtop_bpf_snapshot_free(s);
	return err;
}

void drmtop_bpf_snapshot_free(struct drmtop_bpf_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->n_clients; i++)
		free(s->clients[i].engines);
	for (i = 0; i < s->n_closed; i++)
		free(s->closed[i].engines);
	for (i = 0; i < s->n_orphans; i++)
		free(s->orphans[i].engines);
	free(s->clients);
	free(s->closed);
	free(s->orphans);
	free(s->devices);
	free(s->gpu_mem);
	memset(s, 0, sizeof(*s));
}
