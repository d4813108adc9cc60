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
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "bpf_snapshot_parts.h"
#include "drmtop/bpf_reader.h"
#include "drmtop/util/clock.h"
#include "drmtop/util/vec.h"
#include "drmtop_drm.skel.h"

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

static int push_client(struct drmtop_bpf_client **arr, size_t *n, size_t *cap,
		       const struct drmtop_client *c)
{
	struct drmtop_bpf_client *cl = vec_push(*arr, *n, *cap);

	if (!cl)
		return -ENOMEM;
	cl->c = *c;
	return 0;
}

static int cmp_client_uid(const void *a, const void *b)
{
	__u64 x = ((const struct drmtop_bpf_client *)a)->c.uid;
	__u64 y = ((const struct drmtop_bpf_client *)b)->c.uid;

	return x < y ? -1 : x > y;
}

/* The live client @uid of @s, whose clients are sorted by uid once read (read_clients). */
static struct drmtop_bpf_client *live_client(struct drmtop_bpf_snapshot *s, __u64 uid)
{
	struct drmtop_bpf_client key = { .c.uid = uid };

	return s->n_clients ? bsearch(&key, s->clients, s->n_clients, sizeof(key),
				      cmp_client_uid) : NULL;
}

/*
 * The reader's lists are indexed by strmaps whose values are index + 1 (never pointers: the
 * lists grow); NO_ENTRY for none.
 */
#define NO_ENTRY	SIZE_MAX

/* The index of @uid in @m, or NO_ENTRY. */
static size_t index_of(const struct strmap *m, __u64 uid)
{
	char k[STRMAP_U64_KEY];
	void *v;

	v = strmap_get(m, strmap_key_u64(k, uid));
	return v ? (size_t)(uintptr_t)v - 1 : NO_ENTRY;
}

/* Sets @uid's index in @m to @i: 0, or -ENOMEM (@m unchanged). */
static int set_index(struct strmap *m, __u64 uid, size_t i)
{
	char k[STRMAP_U64_KEY];

	return strmap_put(m, strmap_key_u64(k, uid), (void *)(uintptr_t)(i + 1)) ? -ENOMEM : 0;
}

/* Removes @uid from @m if its index there is @i. */
static void del_index(struct strmap *m, __u64 uid, size_t i)
{
	char k[STRMAP_U64_KEY];

	if (strmap_get(m, strmap_key_u64(k, uid)) == (void *)(uintptr_t)(i + 1))
		strmap_del(m, k);
}

static const struct drmtop_client *find_retired(const struct drmtop_bpf *b, __u64 uid)
{
	size_t i = index_of(&b->retired_at, uid);

	return i != NO_ENTRY ? &b->retired[i] : NULL;
}

/*
 * Out of memory for its index, a client is not found retired: a late job of it is then settled
 * as an orphan after the grace period (counted orphan_engines), not lost.
 */
static void retire(struct drmtop_bpf *b, const struct drmtop_client *c)
{
	size_t i = b->n_retired++ % DRMTOP_BPF_RETIRED;

	if (b->n_retired > DRMTOP_BPF_RETIRED)
		del_index(&b->retired_at, b->retired[i].uid, i);
	b->retired[i] = *c;
	set_index(&b->retired_at, c->uid, i);
}

static int add_engine(struct drmtop_bpf_client *cl, __u64 ring, __u64 ring_seq,
		      const struct drmtop_engine *e, int rings_fd)
{
	struct drmtop_bpf_engine *p = vec_push(cl->engines, cl->n_engines, cl->cap_engines);
	struct drmtop_ring r;

	if (!p)
		return -ENOMEM;
	p->ring = ring;
	p->ring_seq = ring_seq;
	/* the name the ring had for this client: its scheduler may be gone, its address reused */
	if (e->ring_name[0])
		memcpy(p->name, e->ring_name, sizeof(p->name));
	else if (!bpf_map_lookup_elem(rings_fd, &ring, &r) && (!ring_seq || r.seq == ring_seq))
		memcpy(p->name, r.name, sizeof(p->name));
	p->busy_ns = e->busy_ns;
	p->jobs = e->jobs;
	p->start_slack_ns = e->start_slack_ns;
	memcpy(p->lat_hist, e->lat_hist, sizeof(p->lat_hist));
	return 0;
}

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
	if (!drmtop_bpf_walk(b, MAP_HANDLES, each_stale_handle, &sh)) {
		if (!sh.closing)
			b->handle_release_misses = skips;
		for (i = 0; i < sh.n; i++)
			if (!bpf_map_delete_elem(b->map_fd[MAP_HANDLES], &sh.keys[i]))
				b->handles_pruned++;
	}
	free(sh.keys);
}

int drmtop_bpf_cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
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

	if (made != b->timelines_made && !drmtop_bpf_walk(b, MAP_TIMELINES, count_entry, &n) &&
	    !bpf_map_lookup_elem(b->map_fd[MAP_COUNTERS], &k, &after) && after == made) {
		b->timelines_made = made;
		b->timelines_present = n;
	}
	s->counters[DRMTOP_CNT_TIMELINES_EVICTED] = b->timelines_made > b->timelines_present ?
						   b->timelines_made - b->timelines_present : 0;
}

int drmtop_bpf_walk(struct drmtop_bpf *b, enum drmtop_bpf_map map,
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

static int each_parked(const struct drmtop_client *c, void *ctx)
{
	return each_client(NULL, c, ctx);
}

/*
 * Sorted by uid: engine, handle and job entries find their live client by bsearch. The parked
 * clients first, then the map's: one moved into the map between the two reads is in both (its
 * map entry kept, which is newer), never in neither.
 */
static int read_clients(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	size_t parked, i, n;
	int err = 0;

	if (b->parked)
		err = drmtop_bpf_parked_each(b->parked, DRMTOP_PARKED_SLOTS, each_parked, s);
	parked = s->n_clients;
	if (!err)
		err = drmtop_bpf_walk(b, MAP_CLIENTS, each_client, s);
	if (err || !s->n_clients)
		return err;
	qsort(s->clients + parked, s->n_clients - parked, sizeof(*s->clients), cmp_client_uid);
	for (i = 0, n = 0; i < parked; i++)
		if (!bsearch(&s->clients[i], s->clients + parked, s->n_clients - parked,
			     sizeof(*s->clients), cmp_client_uid))
			s->clients[n++] = s->clients[i];
	memmove(s->clients + n, s->clients + parked, (s->n_clients - parked) * sizeof(*s->clients));
	s->n_clients -= parked - n;
	qsort(s->clients, s->n_clients, sizeof(*s->clients), cmp_client_uid);
	return 0;
}

/*
 * Walks map @map of @b in batch reads (bpf_walk.c): for the handles and objects maps, which
 * hold one entry per GEM handle and object and are read at every refresh, so that a refresh
 * costs a bpf() call per 256 entries instead of ~3 per handle (125 ms with the default
 * handles map full). The key walk where the kernel refuses them, or a test asks for it.
 */
static int walk_batched(struct drmtop_bpf *b, enum drmtop_bpf_map map,
			int (*each)(const void *key, const void *value, void *ctx), void *ctx)
{
	struct drmtop_walk w = {
		.fd = b->map_fd[map], .each = each, .ctx = ctx,
		.hook = b->walk_test.hook, .hook_ctx = b->walk_test.ctx,
		.batch = b->walk_test.batch, .no_batch = b->walk_test.no_batch,
	};

	return drmtop_bpf_map_walk(&w);
}

/* GEM objects counted shared by drm_show_memory_stats, sorted for bsearch. */
struct shared_objects {
	__u64 *obj;
	size_t n, cap;
};

static int each_object(const void *key, const void *value, void *ctx)
{
	const struct drmtop_object *o = value;
	struct shared_objects *so = ctx;
	__u64 *p;

	if (o->handle_count <= 1 && !(o->flags & DRMTOP_OBJ_DMABUF))
		return 0;
	p = vec_push(so->obj, so->n, so->cap);
	if (!p)
		return -ENOMEM;
	*p = *(const __u64 *)key;
	return 0;
}

struct shared_walk {
	struct drmtop_bpf_snapshot *s;
	const struct shared_objects *so;
};

/* Live shared bytes, counted the way drm_show_memory_stats counts them, per handle. */
static int each_handle(const void *key, const void *value, void *ctx)
{
	const struct drmtop_handle *h = value;
	struct shared_walk *sw = ctx;
	struct drmtop_bpf_client *cl;

	(void)key;
	if (!bsearch(&h->obj, sw->so->obj, sw->so->n, sizeof(h->obj), drmtop_bpf_cmp_u64))
		return 0;
	cl = live_client(sw->s, h->uid);
	if (cl)
		cl->c.mem_shared += h->size;
	return 0;
}

/*
 * What moves whenever a client's shared bytes may have changed: the tracer's count of handle
 * events of shared objects (drmtop_drm.bpf.c, object_shared), and the entries it or the
 * reader replaced or pruned behind the hooks' back. A failed read gives a value never kept.
 */
static bool shared_events(struct drmtop_bpf *b, __u64 *sum)
{
	static const __u32 keys[] = {
		DRMTOP_CNT_SHARED_EVENTS, DRMTOP_CNT_HANDLES_PRUNED, DRMTOP_CNT_OBJECTS_STALE,
	};
	__u64 v;
	size_t i;

	*sum = b->handles_pruned + b->objects_pruned;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (bpf_map_lookup_elem(b->map_fd[MAP_COUNTERS], &keys[i], &v))
			return false;
		*sum += v;
	}
	return true;
}

/* Shared bytes as last counted, to clients and the cache both sorted by uid. */
static void reuse_shared(const struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	size_t i, j = 0;

	for (i = 0; i < s->n_clients && j < b->n_shared; i++) {
		while (j < b->n_shared && b->shared[j].uid < s->clients[i].c.uid)
			j++;
		if (j < b->n_shared && b->shared[j].uid == s->clients[i].c.uid)
			s->clients[i].c.mem_shared = b->shared[j].bytes;
	}
}

static int keep_shared(struct drmtop_bpf *b, const struct drmtop_bpf_snapshot *s, __u64 events)
{
	struct drmtop_shared_bytes *p;
	size_t i;

	b->n_shared = 0;
	b->shared_counted = false;
	for (i = 0; i < s->n_clients; i++) {
		if (!s->clients[i].c.mem_shared)
			continue;
		p = vec_push(b->shared, b->n_shared, b->cap_shared);
		if (!p)
			return -ENOMEM;
		p->uid = s->clients[i].c.uid;
		p->bytes = s->clients[i].c.mem_shared;
	}
	b->shared_events = events;
	b->shared_counted = true;
	return 0;
}

/*
 * The objects map first, then the handles map, each read whole in batches: no bpf() call per
 * entry. An object's sharing is as the objects walk saw it, as it was when the handles walk
 * looked it up before (a handle made or released in between moves it either way alike). With
 * no shared object at all the handles are not read. Counted again only after what the count
 * depends on moved (@events, shared_events() read by the caller before it read the clients
 * map: a change after that is counted by the tracer after the maps show it, so it makes the
 * next snapshot count again); until then a client keeps the bytes it had, one new since has
 * none. @known false: @events could not be read, count every time.
 */
static int compute_shared(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s, bool known,
			  __u64 events)
{
	struct shared_objects so = {};
	struct shared_walk sw = { .s = s, .so = &so };
	int err;

	if (known && b->shared_counted && events == b->shared_events) {
		reuse_shared(b, s);
		return 0;
	}
	b->shared_walks++;
	err = walk_batched(b, MAP_OBJECTS, each_object, &so);
	if (!err && so.n) {
		qsort(so.obj, so.n, sizeof(*so.obj), drmtop_bpf_cmp_u64);
		err = walk_batched(b, MAP_HANDLES, each_handle, &sw);
	}
	free(so.obj);
	if (!err && known)
		err = keep_shared(b, s, events);
	return err;
}

#define KEY_LEN		64	/* "uid:ring:seq", each up to 16 hex digits */

static void key_at(char *buf, size_t len, const struct drmtop_engine_key *key)
{
	snprintf(buf, len, "%llx:%llx:%llx", (unsigned long long)key->uid,
		 (unsigned long long)key->ring, (unsigned long long)key->ring_seq);
}

/* Index of @key's entry in b->reported, NO_ENTRY if none. */
static size_t find_reported(const struct drmtop_bpf *b, const struct drmtop_engine_key *key)
{
	char k[KEY_LEN];
	void *v;

	key_at(k, sizeof(k), key);
	v = strmap_get(&b->reported_at, k);
	return v ? (size_t)(uintptr_t)v - 1 : NO_ENTRY;
}

/*
 * Puts b->reported[@i] into both indices, and into its uid's list, after the list's head (the
 * entry reported_uid names, so that stays); -ENOMEM (nothing changed for it) if it fails.
 */
static int index_reported(struct drmtop_bpf *b, size_t i)
{
	struct drmtop_reported *r = &b->reported[i];
	size_t head = index_of(&b->reported_uid, r->key.uid);
	char k[KEY_LEN];

	key_at(k, sizeof(k), &r->key);
	if (strmap_put(&b->reported_at, k, (void *)(uintptr_t)(i + 1)))
		return -ENOMEM;
	if (head == NO_ENTRY && set_index(&b->reported_uid, r->key.uid, i)) {
		strmap_del(&b->reported_at, k);
		return -ENOMEM;
	}
	r->prev_uid = head;
	r->next_uid = NO_ENTRY;
	if (head != NO_ENTRY) {
		r->next_uid = b->reported[head].next_uid;
		if (r->next_uid != NO_ENTRY)
			b->reported[r->next_uid].prev_uid = i;
		b->reported[head].next_uid = i;
	}
	return 0;
}

/* Both indices again from b->reported (after it was restored from a copy). */
static int reindex_reported(struct drmtop_bpf *b)
{
	size_t i;

	strmap_fini(&b->reported_at);
	strmap_fini(&b->reported_uid);
	strmap_init(&b->reported_at);
	strmap_init(&b->reported_uid);
	for (i = 0; i < b->n_reported; i++)
		if (index_reported(b, i))
			return -ENOMEM;
	return 0;
}

/*
 * Removes b->reported[@i]; the last entry takes its place. Its uid's list says which entry of
 * the uid takes over in reported_uid if it was the head (a scan of all entries for one made
 * every delete of a closed client's entries cost as much as all of them). Every put here
 * replaces a key present: it needs no memory.
 */
static void drop_reported(struct drmtop_bpf *b, size_t i)
{
	struct drmtop_reported *r = &b->reported[i];
	size_t last = b->n_reported - 1;
	char k[KEY_LEN];

	key_at(k, sizeof(k), &r->key);
	strmap_del(&b->reported_at, k);
	if (r->prev_uid != NO_ENTRY)
		b->reported[r->prev_uid].next_uid = r->next_uid;
	else if (r->next_uid != NO_ENTRY)
		set_index(&b->reported_uid, r->key.uid, r->next_uid);
	else
		del_index(&b->reported_uid, r->key.uid, i);
	if (r->next_uid != NO_ENTRY)
		b->reported[r->next_uid].prev_uid = r->prev_uid;
	if (i != last) {
		*r = b->reported[last];
		key_at(k, sizeof(k), &r->key);
		strmap_put(&b->reported_at, k, (void *)(uintptr_t)(i + 1));
		if (r->prev_uid != NO_ENTRY)
			b->reported[r->prev_uid].next_uid = i;
		else
			set_index(&b->reported_uid, r->key.uid, i);
		if (r->next_uid != NO_ENTRY)
			b->reported[r->next_uid].prev_uid = i;
	}
	b->n_reported--;
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

struct engines_walk {
	struct drmtop_bpf *b;
	struct drmtop_bpf_snapshot *s;
	__u64 now;
	struct drmtop_engine_key *del;	/* entries to delete once the walk is over */
	size_t n_del, cap_del;
	/* by uid, the first entry of s->closed and of s->orphans (index + 1): they grow */
	struct strmap closed_at, orphans_at;
};

/* Indexes @s's closed entries, the records drained for it, into @ew->closed_at. */
static int index_closed(struct engines_walk *ew)
{
	size_t i;

	for (i = 0; i < ew->s->n_closed; i++)
		if (index_of(&ew->closed_at, ew->s->closed[i].c.uid) == NO_ENTRY &&
		    set_index(&ew->closed_at, ew->s->closed[i].c.uid, i))
			return -ENOMEM;
	return 0;
}

/*
 * The entry of closed (or orphan) client @owner in the snapshot that engine figures go to: the
 * record drained in this snapshot, else a residue entry made from @owner (figures only, memory
 * 0). A pointer into the snapshot's list: good until the next call.
 */
static struct drmtop_bpf_client *owner_entry(struct engines_walk *ew,
					     const struct drmtop_client *owner, int *err)
{
	bool orphan = owner->flags & DRMTOP_CLIENT_ORPHAN;
	struct drmtop_bpf_snapshot *s = ew->s;
	struct drmtop_bpf_client **arr = orphan ? &s->orphans : &s->closed;
	struct strmap *at = orphan ? &ew->orphans_at : &ew->closed_at;
	size_t *n = orphan ? &s->n_orphans : &s->n_closed;
	size_t i = index_of(at, owner->uid);
	struct drmtop_client residue;

	*err = 0;
	if (i != NO_ENTRY)
		return &(*arr)[i];
	residue = *owner;
	residue.mem_total = residue.mem_shared = residue.mem_imported = 0;
	residue.handles = 0;
	*err = push_client(arr, n, orphan ? &s->cap_orphans : &s->cap_closed, &residue);
	if (!*err && set_index(at, owner->uid, *n - 1)) {
		free((*arr)[--*n].engines);
		*err = -ENOMEM;
	}
	return *err ? NULL : &(*arr)[*n - 1];
}

/*
 * The closed or settled orphan client @uid into *@out; false if none is known. A copy, not a
 * pointer: what it is found in (this snapshot's closed list, b->reported) grows while the
 * engines walk goes on, and a pointer into it would then read freed memory.
 */
static bool find_owner(const struct engines_walk *ew, __u64 uid, struct drmtop_client *out)
{
	const struct drmtop_bpf *b = ew->b;
	size_t i = index_of(&ew->closed_at, uid);
	const struct drmtop_client *c;

	if (i != NO_ENTRY) {
		*out = ew->s->closed[i].c;
		return true;
	}
	c = find_retired(b, uid);
	if (c) {
		*out = *c;
		return true;
	}
	/* reported before and since pushed out of the retired ring by later closes */
	i = index_of(&b->reported_uid, uid);
	if (i == NO_ENTRY)
		return false;
	*out = b->reported[i].owner;
	return true;
}

/* Remembers what was reported of a closed client's engine entry; false if out of memory. */
static bool remember_reported(struct drmtop_bpf *b, const struct drmtop_engine_key *key,
			      const struct drmtop_engine *e, const struct drmtop_client *owner)
{
	size_t i = find_reported(b, key);

	if (i == NO_ENTRY) {
		if (!vec_push(b->reported, b->n_reported, b->cap_reported))
			return false;
		i = b->n_reported - 1;
		b->reported[i].key = *key;
		b->reported[i].owner = *owner;
		if (index_reported(b, i)) {
			b->n_reported--;
			return false;
		}
	}
	b->reported[i].e = *e;
	b->reported[i].quiet = false;
	return true;
}

static struct drmtop_orphan *find_orphan(struct drmtop_bpf *b, __u64 uid)
{
	size_t i = index_of(&b->orphan_at, uid);

	return i != NO_ENTRY ? &b->orphans[i] : NULL;
}

/* b->orphan_at again from b->orphans (after they were restored from a copy). */
static int reindex_orphans(struct drmtop_bpf *b)
{
	size_t i;

	strmap_fini(&b->orphan_at);
	strmap_init(&b->orphan_at);
	for (i = 0; i < b->n_orphans; i++)
		if (set_index(&b->orphan_at, b->orphans[i].uid, i))
			return -ENOMEM;
	return 0;
}

/* The client @uid the previous snapshot saw live, whose clients were sorted by uid; or NULL. */
static const struct drmtop_client *prev_live(const struct drmtop_bpf *b, __u64 uid)
{
	size_t lo = 0, hi = b->n_prev_live, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->prev_live[mid].uid == uid)
			return &b->prev_live[mid];
		if (b->prev_live[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * @uid has no live or known closed client in this snapshot. Copies the orphan client to settle
 * its entries with into *@out once the grace period is over and returns true; false until then
 * (or on ENOMEM, *err).
 */
static bool unknown_uid(struct drmtop_bpf *b, __u64 uid, __u64 now, struct drmtop_client *out,
			int *err)
{
	__u64 grace_ns = b->orphan_grace_ns ? b->orphan_grace_ns : DRMTOP_BPF_ORPHAN_GRACE_NS;
	unsigned int grace = b->orphan_grace_snaps ? b->orphan_grace_snaps :
			     DRMTOP_BPF_ORPHAN_GRACE_SNAPS;
	struct drmtop_orphan *o = find_orphan(b, uid);
	const struct drmtop_client *live;

	*err = 0;
	if (!o) {
		o = vec_push(b->orphans, b->n_orphans, b->cap_orphans);
		if (!o || set_index(&b->orphan_at, uid, b->n_orphans - 1)) {
			b->n_orphans -= !!o;
			*err = -ENOMEM;
			return false;
		}
		o->uid = uid;
		o->first_seq = b->seq;
		o->first_ns = now;
		o->c.uid = uid;
		o->c.minor_index = -1;
		live = prev_live(b, uid);
		if (live)
			o->c = *live;
	}
	o->last_seq = b->seq;
	if (!(o->c.flags & DRMTOP_CLIENT_ORPHAN) &&
	    (b->seq - o->first_seq < grace || now - o->first_ns < grace_ns))
		return false;
	/*
	 * settled: from now on a known client, as a closed one whose record was drained (retired
	 * when the snapshot is returned: settle_orphans)
	 */
	o->c.flags |= DRMTOP_CLIENT_CLOSED | DRMTOP_CLIENT_ORPHAN;
	o->c.close_ns = 0;
	*out = o->c;
	return true;
}

/* Orphans settled in this snapshot join the retired ring; unknown uids not met again go. */
static void settle_orphans(struct drmtop_bpf *b)
{
	size_t i, j;

	for (i = 0, j = 0; i < b->n_orphans; i++) {
		if (b->orphans[i].c.flags & DRMTOP_CLIENT_ORPHAN)
			retire(b, &b->orphans[i].c);
		else if (b->orphans[i].last_seq == b->seq) {
			/* replaces its index: no memory needed */
			if (i != j)
				set_index(&b->orphan_at, b->orphans[i].uid, j);
			b->orphans[j++] = b->orphans[i];
			continue;
		}
		del_index(&b->orphan_at, b->orphans[i].uid, i);
	}
	b->n_orphans = j;
}

/*
 * An entry the tracer is making: it names it right after the insert and adds figures only after
 * that (drmtop_engine_get), so one read in between holds nothing. Shown, it was a ring named "?"
 * once its scheduler was gone (a queue freed at close: case 80's fw churn); the next snapshot has
 * it named.
 */
static bool unnamed_empty(const struct drmtop_engine *e)
{
	static const struct drmtop_engine zero;

	return !e->ring_name[0] && !memcmp(e, &zero, offsetof(struct drmtop_engine, ring_name));
}

static int each_engine(const void *kp, const void *value, void *ctx)
{
	static const struct drmtop_engine zero;
	const struct drmtop_engine_key *key = kp;
	const struct drmtop_engine *e = value;
	struct engines_walk *ew = ctx;
	struct drmtop_client owner;
	struct drmtop_bpf *b = ew->b;
	struct drmtop_engine_key *del;
	struct drmtop_bpf_client *cl;
	struct drmtop_engine d;
	size_t rep;
	bool grew;
	int err;

	cl = live_client(ew->s, key->uid);
	if (cl && unnamed_empty(e))
		return 0;
	if (cl)
		return add_engine(cl, key->ring, key->ring_seq, e, b->map_fd[MAP_RINGS]);
	if (!find_owner(ew, key->uid, &owner) &&
	    !unknown_uid(b, key->uid, ew->now, &owner, &err))
		return err;	/* within the grace period: its record may still come */
	rep = find_reported(b, key);
	grew = engine_growth(e, rep != NO_ENTRY ? &b->reported[rep].e : &zero, &d);
	if (rep == NO_ENTRY && (owner.flags & DRMTOP_CLIENT_ORPHAN))
		b->orphan_engines++;
	if (!grew) {
		/* kept until a snapshot finds it unchanged, then deleted in the next one */
		if (rep == NO_ENTRY)
			return remember_reported(b, key, e, &owner) ? 0 : -ENOMEM;
		if (!b->reported[rep].quiet) {
			b->reported[rep].quiet = true;
			return 0;
		}
		del = vec_push(ew->del, ew->n_del, ew->cap_del);
		if (!del)
			return -ENOMEM;
		*del = *key;
		return 0;
	}
	cl = owner_entry(ew, &owner, &err);
	if (!err)
		err = add_engine(cl, key->ring, key->ring_seq, &d, b->map_fd[MAP_RINGS]);
	if (!err && !remember_reported(b, key, e, &owner))
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
static int read_engines(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s,
			struct engines_walk *ew)
{
	*ew = (struct engines_walk){ .b = b, .s = s };
	ew->now = drmtop_mono_ns();
	strmap_init(&ew->closed_at);
	strmap_init(&ew->orphans_at);
	if (index_closed(ew))
		return -ENOMEM;
	return drmtop_bpf_walk(b, MAP_ENGINES, each_engine, ew);
}

/*
 * Deletes the closed clients' entries read_engines found unchanged twice, once the snapshot
 * can no longer fail otherwise: what a job that ended since the walk added is reported here.
 */
static int delete_quiet(struct drmtop_bpf *b, struct engines_walk *ew)
{
	int fd = b->map_fd[MAP_ENGINES], err = 0;
	struct drmtop_bpf_client *cl;
	struct drmtop_engine e, d;
	size_t i, rep;

	for (i = 0; !err && i < ew->n_del; i++) {
		rep = find_reported(b, &ew->del[i]);
		if (rep == NO_ENTRY)
			continue;
		if (!bpf_map_lookup_and_delete_elem(fd, &ew->del[i], &e) &&
		    engine_growth(&e, &b->reported[rep].e, &d)) {
			cl = owner_entry(ew, &b->reported[rep].owner, &err);
			if (!err)
				err = add_engine(cl, ew->del[i].ring, ew->del[i].ring_seq, &d,
						 b->map_fd[MAP_RINGS]);
		}
		drop_reported(b, rep);
	}
	return err;
}

/*
 * What a snapshot changes in the reader's memory of closed and unknown clients, kept aside so
 * that a snapshot that fails leaves it as it was: the next one reports the same figures again.
 */
struct reader_saved {
	struct drmtop_reported *reported;
	size_t n_reported;
	struct drmtop_orphan *orphans;
	size_t n_orphans;
	__u64 orphan_engines;
};

static int save_state(const struct drmtop_bpf *b, struct reader_saved *sv)
{
	sv->n_reported = b->n_reported;
	sv->n_orphans = b->n_orphans;
	sv->orphan_engines = b->orphan_engines;
	sv->reported = malloc((b->n_reported ? b->n_reported : 1) * sizeof(*sv->reported));
	sv->orphans = malloc((b->n_orphans ? b->n_orphans : 1) * sizeof(*sv->orphans));
	if (!sv->reported || !sv->orphans) {
		free(sv->reported);
		free(sv->orphans);
		return -ENOMEM;
	}
	if (b->n_reported)
		memcpy(sv->reported, b->reported, b->n_reported * sizeof(*sv->reported));
	if (b->n_orphans)
		memcpy(sv->orphans, b->orphans, b->n_orphans * sizeof(*sv->orphans));
	return 0;
}

/*
 * Back to @sv (the arrays only grew since: what was saved fits). Out of memory for the indices,
 * the reported entries are forgotten: their owners stay known by the retired ring, and their
 * figures in the map are reported once more as new (counted twice rather than lost).
 */
static void restore_state(struct drmtop_bpf *b, const struct reader_saved *sv)
{
	if (sv->n_reported)
		memcpy(b->reported, sv->reported, sv->n_reported * sizeof(*sv->reported));
	b->n_reported = sv->n_reported;
	if (sv->n_orphans)
		memcpy(b->orphans, sv->orphans, sv->n_orphans * sizeof(*sv->orphans));
	b->n_orphans = sv->n_orphans;
	b->orphan_engines = sv->orphan_engines;
	if (reindex_reported(b)) {
		b->n_reported = 0;
		reindex_reported(b);
	}
	/* out of memory, the unknown uids start their grace period again: later, not lost */
	if (reindex_orphans(b)) {
		b->n_orphans = 0;
		reindex_orphans(b);
	}
}

struct running_walk {
	struct drmtop_bpf_oldest *old;
	size_t n, cap;
	struct strmap old_at;	/* by ring, its entry in old (index + 1) */
	__u64 now;
	__u64 *stale;		/* ended jobs never freed: keys to delete */
	size_t n_stale, cap_stale;
	struct drmtop_bpf_snapshot *s;	/* its live clients, sorted: those of late cleanups */
};

static int each_job(const void *key, const void *value, void *ctx)
{
	const struct drmtop_job *job = value;
	struct running_walk *rw = ctx;
	struct drmtop_bpf_client *cl;
	struct drmtop_bpf_oldest *p;
	__u64 uid;
	__u64 *k;
	size_t i;

	if (job->uid & DRMTOP_JOB_ENDED) {
		if (drmtop_bpf_ended_unfreed(job, rw->now)) {
			k = vec_push(rw->stale, rw->n_stale, rw->cap_stale);
			if (!k)
				return -ENOMEM;
			*k = *(const __u64 *)key;
		} else if (drmtop_bpf_ended_overdue(job, rw->now)) {
			/* short by a job only its cleanup counts (this copy, not the map) */
			uid = job->uid & ~(DRMTOP_JOB_ENDED | DRMTOP_JOB_HELD);
			cl = live_client(rw->s, uid);
			if (cl)
				cl->c.missed++;
		}
		return 0;
	}
	if (!job->run_ns)
		return 0;
	i = index_of(&rw->old_at, job->ring);
	if (i == NO_ENTRY) {
		p = vec_push(rw->old, rw->n, rw->cap);
		if (!p || set_index(&rw->old_at, job->ring, rw->n - 1)) {
			rw->n -= !!p;
			return -ENOMEM;
		}
		*p = (struct drmtop_bpf_oldest){ job->ring, job->uid, job->run_ns,
						   *(const __u64 *)key };
	} else if (job->run_ns < rw->old[i].run_ns) {
		rw->old[i] = (struct drmtop_bpf_oldest){ job->ring, job->uid, job->run_ns,
							 *(const __u64 *)key };
	}
	return 0;
}

/*
 * The running part: per ring, the oldest job handed to the hardware and not done has run
 * from max(its run time, the ring's previous job end) until s->taken_ns (union rule, as in the
 * BPF accounting); the younger ones on a deep ring start when it ends, so they add nothing yet.
 * A job that started after taken_ns adds nothing either. On a ring with several execution units
 * (drm-engine-capacity > 1) the jobs running beside it on other units are not known to be
 * running until they end (which unit a job went to is only known from its hardware fence):
 * the running part is then a lower bound, and busy_ns exact again once they end. Jobs that
 * lost their done and cleanup are aged out here (bpf_job_aging.c).
 */
static int add_running(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct running_walk rw = { .now = s->taken_ns, .s = s };
	struct drmtop_aging *next = NULL;
	__u64 now = s->taken_ns;
	size_t i, j, n_next = 0;
	int err;

	drmtop_kernel_hz_sample(&b->hz, "/proc", now);
	err = drmtop_bpf_walk(b, MAP_JOBS, each_job, &rw);
	if (!err)
		drmtop_bpf_age_ended(b, rw.stale, rw.n_stale);
	if (!err && rw.n) {
		next = calloc(rw.n, sizeof(*next));
		if (!next)
			err = -ENOMEM;
	}
	for (i = 0; !err && i < rw.n; i++) {
		struct drmtop_bpf_client *cl;
		struct drmtop_engine zero = {};
		struct drmtop_ring r = {};
		bool ring_known;
		__u64 start;

		ring_known = !bpf_map_lookup_elem(b->map_fd[MAP_RINGS], &rw.old[i].ring, &r);
		if (drmtop_bpf_aged_out(b, &rw.old[i], &r, now, next, &n_next))
			continue;
		cl = live_client(s, rw.old[i].uid);
		if (!cl)
			continue;
		start = rw.old[i].run_ns > r.last_done_ns ? rw.old[i].run_ns : r.last_done_ns;
		if (now <= start)
			continue;
		/* the scheduler now at that address: its figures, not an earlier one's there */
		for (j = 0; j < cl->n_engines && (cl->engines[j].ring != rw.old[i].ring ||
						  cl->engines[j].ring_seq != r.seq); j++)
			;
		if (j == cl->n_engines) {
			/*
			 * No row for a scheduler gone (its queue freed at close, the job's end
			 * not yet read): it would have no name, only this instant's time.
			 */
			if (!ring_known)
				continue;
			err = add_engine(cl, rw.old[i].ring, r.seq, &zero, b->map_fd[MAP_RINGS]);
			if (err)
				break;
		}
		cl->engines[j].running_ns = now - start;
	}
	if (!err) {
		drmtop_bpf_aging_replace(b, next, n_next, rw.n);
		next = NULL;
	}
	free(next);
	free(rw.old);
	strmap_fini(&rw.old_at);
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

/* Device totals, less the objects drmtop_bpf_prune_objects found ended unseen. */
static int read_devices(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	int err = drmtop_bpf_walk(b, MAP_DEVICES, each_device, s);

	if (!err)
		drmtop_bpf_take_out_pruned(b, s);
	return err;
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
	s->gpu_mem_foreign_pids = b->pidns_ino != 0;
	return s->gpu_mem_traced ? drmtop_bpf_map_walk(&w) : 0;
}

/*
 * The sched part makes a device's kernel client from a job's scheduler, which knows the parent
 * device (drm_gpu_scheduler.dev) but not the DRM driver nor a minor: both come from the device
 * the drm part recorded for the same parent, so the driver table maps the kernel client's rings
 * too (amdgpu's clears on "sdma0" are its "dma" engine, not a ring of their own) and the kernel
 * clients of two GPUs of one driver stay on their own devices.
 */
static void name_kernel_clients(struct drmtop_bpf_snapshot *s)
{
	size_t i, j;

	for (i = 0; i < s->n_clients; i++) {
		struct drmtop_client *c = &s->clients[i].c;

		if (!(c->flags & DRMTOP_CLIENT_KERNEL) || (c->driver[0] && c->minor_index >= 0))
			continue;
		for (j = 0; j < s->n_devices; j++) {
			const struct drmtop_device *d = &s->devices[j].d;

			if (d->parent_dev != c->parent_dev)
				continue;
			if (!c->driver[0] && d->driver[0])
				memcpy(c->driver, d->driver, sizeof(c->driver));
			if (c->minor_index < 0)
				c->minor_index = d->primary_index;
			break;
		}
	}
}

/*
 * A snapshot that fails returns nothing and leaves the reader as it was: close records stay
 * pending, engine figures of closed clients unreported (save_state), entries in the map. Only
 * delete_quiet, last, changes the maps; if it runs out of memory, what a job of a closed client
 * added in the moment between the walk and the delete of its entry is lost.
 */
int drmtop_bpf_snapshot(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct engines_walk ew = {};
	struct reader_saved sv = {};
	size_t n_taken;
	bool saved = false, known, unsettled;
	__u64 dropped, events;
	__u32 k;
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	if (!b->rb || b->map_fd[0] < 0)
		return -ENOENT;
	b->seq++;
	s->read_ns = drmtop_mono_ns();

	/* what the drain thread queued, and what came since it last woke */
	pthread_mutex_lock(&b->drain_lock);
	err = ring_buffer__consume(b->rb);
	for (i = 0; err >= 0 && i < b->n_pending; i++)
		err = push_client(&s->closed, &s->n_closed, &s->cap_closed, &b->pending[i]);
	n_taken = b->n_pending;
	dropped = b->pending_dropped;
	pthread_mutex_unlock(&b->drain_lock);
	if (err < 0)
		goto fail;

	err = drmtop_bpf_idle_take(&b->idle, s, &unsettled);
	if (err < 0)
		goto fail;
	b->idle_unsettled += unsettled;

	known = shared_events(b, &events);
	err = read_clients(b, s);
	if (!err)
		err = compute_shared(b, s, known, events);
	if (!err)
		err = save_state(b, &sv);
	if (err)
		goto fail;
	saved = true;
	err = read_engines(b, s, &ew);
	if (err)
		goto fail;
	/*
	 * The snapshot's one instant, after the engine totals and before the running jobs: totals
	 * hold only jobs that ended before it (a job's end is a past hardware timestamp), running
	 * parts run up to it, so no interval is counted twice or past it (no rate above 100 %).
	 */
	s->taken_ns = drmtop_mono_ns();
	err = add_running(b, s);
	/* objects settled before the device totals are read, so this snapshot's are right */
	if (!err)
		err = drmtop_bpf_prune_objects(b, s);
	if (!err)
		err = read_devices(b, s);
	if (!err)
		err = read_gpu_mem(b, s);
	/* who was live, for naming a client whose close record turns out lost */
	if (!err)
		err = vec_reserve(b->prev_live, b->cap_prev_live, s->n_clients);
	if (!err)
		err = delete_quiet(b, &ew);
	if (err)
		goto fail;
	for (i = 0; i < s->n_clients; i++)
		b->prev_live[i] = s->clients[i].c;
	b->n_prev_live = s->n_clients;
	name_kernel_clients(s);
	for (k = 0; k < DRMTOP_CNT_MAX; k++)
		bpf_map_lookup_elem(b->map_fd[MAP_COUNTERS], &k, &s->counters[k]);
	s->counters[DRMTOP_CNT_ORPHAN_ENGINES] += b->orphan_engines;
	s->counters[DRMTOP_CNT_IDLE_UNSETTLED] += b->idle_unsettled;
	for (i = 0; i < s->n_idle; i++)
		b->idle_counted += s->idle[i].clients;
	s->counters[DRMTOP_CNT_IDLE_COUNTED] += b->idle_counted;
	s->counters[DRMTOP_CNT_JOBS_AGED_OUT] += b->jobs_aged_out;
	/* a record the drain's queue had no room for is lost as one the ring buffer had not */
	s->counters[DRMTOP_CNT_RINGBUF_FULL] += dropped;
	count_evicted_timelines(b, s);
	prune_handles(b);
	s->counters[DRMTOP_CNT_HANDLES_PRUNED] += b->handles_pruned;
	s->counters[DRMTOP_CNT_OBJECTS_STALE] += b->objects_pruned;
	settle_orphans(b);
	drmtop_bpf_idle_forget(&b->idle);
	/*
	 * The close records stayed queued until a snapshot holding them is returned; the drain
	 * thread may have queued more since, which wait for the next one.
	 */
	pthread_mutex_lock(&b->drain_lock);
	for (i = 0; i < n_taken; i++)
		retire(b, &b->pending[i]);
	if (n_taken) {
		memmove(b->pending, b->pending + n_taken,
			(b->n_pending - n_taken) * sizeof(*b->pending));
		b->n_pending -= n_taken;
	}
	pthread_mutex_unlock(&b->drain_lock);
	free(ew.del);
	strmap_fini(&ew.closed_at);
	strmap_fini(&ew.orphans_at);
	free(sv.reported);
	free(sv.orphans);
	s->read_ns = drmtop_mono_ns() - s->read_ns;
	return 0;
fail:
	if (saved)
		restore_state(b, &sv);
	free(ew.del);
	strmap_fini(&ew.closed_at);
	strmap_fini(&ew.orphans_at);
	free(sv.reported);
	free(sv.orphans);
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
	free(s->idle);
	memset(s, 0, sizeof(*s));
}
