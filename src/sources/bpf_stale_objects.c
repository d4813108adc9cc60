// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_stale_objects.c: GEM object entries whose end no hook saw, taken out of the objects map
 * and of their device's totals (drmtop_bpf_prune_objects).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_snapshot_parts.h"
#include "drmtop/util/vec.h"
#include "drmtop_drm.skel.h"

struct stale_objects {
	struct drmtop_bpf *b;
	const __u64 *open;		/* uids of the snapshot's clients not closing, sorted */
	size_t n_open;
	__u64 *held;			/* objects an open client's handle entry names, sorted */
	size_t n_held, cap_held;
	__u64 now;
	size_t waiting;			/* alike, but their client lives: not yet candidates */
	struct drmtop_object_candidate *keep, *del;	/* still waiting; to delete now */
	size_t n_keep, cap_keep, n_del, cap_del;
};

static int each_stale_object(const void *key, const void *value, void *ctx)
{
	const struct drmtop_object *o = value;
	struct stale_objects *so = ctx;
	struct drmtop_object_candidate *prev, *p;
	__u64 first;

	if (!o->uid || (o->flags & (DRMTOP_OBJ_DMABUF | DRMTOP_OBJ_FOREIGN)) ||
	    bsearch(key, so->held, so->n_held, sizeof(*so->held), drmtop_bpf_cmp_u64))
		return 0;
	if (bsearch(&o->uid, so->open, so->n_open, sizeof(*so->open), drmtop_bpf_cmp_u64)) {
		so->waiting++;
		return 0;
	}
	/* candidates are sorted by their key, the first member */
	prev = bsearch(key, so->b->obj_cand, so->b->n_obj_cand, sizeof(*prev),
		       drmtop_bpf_cmp_u64);
	first = prev && prev->o.uid == o->uid ? prev->first_ns : so->now;
	if (so->now - first >= (so->b->object_grace_ns ? so->b->object_grace_ns :
				 DRMTOP_BPF_OBJECT_GRACE_NS))
		p = vec_push(so->del, so->n_del, so->cap_del);
	else
		p = vec_push(so->keep, so->n_keep, so->cap_keep);
	if (!p)
		return -ENOMEM;
	p->key = *(const __u64 *)key;
	p->o = *o;
	p->first_ns = first;
	return 0;
}

static int each_held_object(const void *key, const void *value, void *ctx)
{
	const struct drmtop_handle *h = value;
	struct stale_objects *so = ctx;
	__u64 *p;

	(void)key;
	/* a closing client's entries are on their way out, or left by a skipped release */
	if (!bsearch(&h->uid, so->open, so->n_open, sizeof(*so->open), drmtop_bpf_cmp_u64))
		return 0;
	p = vec_push(so->held, so->n_held, so->cap_held);
	if (!p)
		return -ENOMEM;
	*p = h->obj;
	return 0;
}

/* Pruned object @o of its device: read_devices takes it out of the device's totals. */
static int note_pruned(struct drmtop_bpf *b, const struct drmtop_object *o)
{
	struct drmtop_gem_pruned *g;
	size_t i;

	if (!(o->flags & DRMTOP_OBJ_SEEN_INIT))
		return 0;
	/* a handful of devices: the list is as short as the devices map */
	for (i = 0; i < b->n_gem_pruned && b->gem_pruned[i].drm_dev != o->drm_dev; i++)
		;
	g = i < b->n_gem_pruned ? &b->gem_pruned[i] : vec_push(b->gem_pruned, b->n_gem_pruned,
							       b->cap_gem_pruned);
	if (!g)
		return -ENOMEM;
	g->drm_dev = o->drm_dev;
	g->objects++;
	g->bytes += o->size;
	return 0;
}

/*
 * Object entries whose end no hook saw (both end hooks skipped on 7.x, or dropped by a test:
 * bpfdump --drop-object) stay in the map, and in their device's totals, until their address
 * is reused (drmtop_gem_init), which may be never. Such an entry is one whose first handle's
 * client is gone or closing, that no handle entry of an open client names (its handle_count
 * is no guide: the releases in a close may have been skipped too), that is not shared through
 * a dma-buf, and that stays so for a grace period (jobs of a closed client hold their objects
 * until they end): deleted
 * atomically, taken out of the device's totals here, counted objects_stale. Looked for (a walk
 * of the handles and objects maps) only after the end hooks were skipped or dropped, and until
 * no candidate is left; an entry the
 * BPF side replaced meanwhile (its address reused) is put back. A driver object still alive
 * with none of those (held by the driver alone after its client left) would be taken for one:
 * counted in the same loss counter, so never silently.
 */
int drmtop_bpf_prune_objects(struct drmtop_bpf *b, const struct drmtop_bpf_snapshot *s)
{
	static const char *const ends[] = { "drmtop_gem_object_release", "drmtop_gem_resv_fini" };
	struct stale_objects so = { .b = b };
	struct drmtop_object got;
	struct bpf_prog_info info;
	struct bpf_program *p;
	struct timespec ts;
	__u64 skips, grace, *open;
	size_t i;
	__u32 len;
	int err, fd;

	if (!b->drm)
		return 0;
	skips = b->drm->bss ? b->drm->bss->drmtop_test_drm_dropped[3] : 0;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		p = bpf_object__find_program_by_name(b->drm->obj, ends[i]);
		fd = p ? bpf_program__fd(p) : -1;
		len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			skips += info.recursion_misses;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	so.now = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (skips == b->object_end_misses && !b->n_obj_cand &&
	    (!skips || so.now < b->object_next_ns))
		return 0;
	grace = b->object_grace_ns ? b->object_grace_ns : DRMTOP_BPF_OBJECT_GRACE_NS;
	if (skips != b->object_end_misses || b->object_wait_ns < grace)
		b->object_wait_ns = grace;
	open = malloc((s->n_clients + 1) * sizeof(*open));
	if (!open)
		return -ENOMEM;
	for (i = 0; i < s->n_clients; i++)
		if (!(s->clients[i].c.flags & DRMTOP_CLIENT_CLOSING))
			open[so.n_open++] = s->clients[i].c.uid;
	qsort(open, so.n_open, sizeof(*open), drmtop_bpf_cmp_u64);
	so.open = open;
	err = drmtop_bpf_walk(b, MAP_HANDLES, each_held_object, &so);
	if (!err) {
		qsort(so.held, so.n_held, sizeof(*so.held), drmtop_bpf_cmp_u64);
		err = drmtop_bpf_walk(b, MAP_OBJECTS, each_stale_object, &so);
	}
	for (i = 0; !err && i < so.n_del; i++) {
		if (bpf_map_lookup_and_delete_elem(b->map_fd[MAP_OBJECTS], &so.del[i].key, &got))
			continue;
		if (got.uid != so.del[i].o.uid) {
			bpf_map_update_elem(b->map_fd[MAP_OBJECTS], &so.del[i].key, &got,
					    BPF_NOEXIST);
			continue;
		}
		err = note_pruned(b, &got);
		b->objects_pruned++;
	}
	free(open);
	free(so.held);
	free(so.del);
	if (err) {
		free(so.keep);
		return err;
	}
	qsort(so.keep, so.n_keep, sizeof(*so.keep), drmtop_bpf_cmp_u64);
	free(b->obj_cand);
	b->obj_cand = so.keep;
	b->n_obj_cand = so.n_keep;
	b->cap_obj_cand = so.cap_keep;
	b->object_end_misses = skips;
	/*
	 * An object of a live client that no handle holds may be one (its client may leave
	 * later), or held by the driver for as long as the client lives: looked at again, ever
	 * less often (up to DRMTOP_BPF_OBJECT_WAIT_MAX_NS apart) until the end hooks miss again.
	 */
	b->object_next_ns = so.waiting ? so.now + b->object_wait_ns : UINT64_MAX;
	if (so.waiting && b->object_wait_ns < DRMTOP_BPF_OBJECT_WAIT_MAX_NS)
		b->object_wait_ns *= 2;
	return 0;
}

/*
 * A device gone (drm_dev_unregister deletes its entry) takes what was pruned of it along: kept,
 * the list grew with every unbind, and a new device at its address lost those figures too.
 */
void drmtop_bpf_take_out_pruned(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s)
{
	struct drmtop_device *d;
	size_t i, j, kept = 0;

	for (i = 0; i < b->n_gem_pruned; i++) {
		for (j = 0; j < s->n_devices; j++)
			if (s->devices[j].drm_dev == b->gem_pruned[i].drm_dev)
				break;
		if (j == s->n_devices)
			continue;
		d = &s->devices[j].d;
		d->gem_objects -= d->gem_objects < b->gem_pruned[i].objects ?
				  d->gem_objects : b->gem_pruned[i].objects;
		d->gem_bytes -= d->gem_bytes < b->gem_pruned[i].bytes ?
				d->gem_bytes : b->gem_pruned[i].bytes;
		b->gem_pruned[kept++] = b->gem_pruned[i];
	}
	b->n_gem_pruned = kept;
}
