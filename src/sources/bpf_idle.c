// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_idle.c: the idle closes the programs counted per process (bpf/drmtop_drm.bpf.c,
 * count_idle), taken into a snapshot. The programs add to the entries of the current epoch;
 * the reader moves the epoch on, waits until no program adds to the old one (drmtop_idle_sync,
 * bpf/drmtop_account.bpf.h), and reads the old epoch's entries, which nothing changes any
 * more, then deletes them once the snapshot that holds them is returned. No count is taken
 * twice, and none is lost between a read and a delete.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "bpf_snapshot_parts.h"
#include "drmtop/util/clock.h"
#include "drmtop/util/vec.h"

struct idle_walk {
	struct drmtop_idle_take *t;
	struct drmtop_bpf_snapshot *s;
	__u32 current;		/* the epoch the programs add to now: not taken */
};

static int each_idle(const void *key, const void *value, void *ctx)
{
	const struct drmtop_idle_key *k = key;
	const struct drmtop_idle *v = value;
	struct idle_walk *w = ctx;
	struct drmtop_bpf_idle *e;
	struct drmtop_idle_key *kept;

	if (k->epoch == w->current)
		return 0;
	kept = vec_push(w->t->keys, w->t->n_keys, w->t->cap_keys);
	e = kept ? vec_push(w->s->idle, w->s->n_idle, w->s->cap_idle) : NULL;
	if (!e) {
		w->t->n_keys -= !!kept;
		return -ENOMEM;
	}
	*kept = *k;
	memset(e, 0, sizeof(*e));
	e->c.tgid = k->tgid;
	e->c.cgroup_id = k->cgroup_id;
	e->c.dev_major = k->dev_major;
	e->c.dev_minor = k->dev_minor;
	memcpy(e->c.comm, k->comm, sizeof(e->c.comm));
	e->c.minor_index = v->minor_index;
	memcpy(e->c.driver, v->driver, sizeof(e->c.driver));
	e->c.open_ns = v->first_open_ns;
	e->c.close_ns = v->last_close_ns;
	e->c.flags = DRMTOP_CLIENT_CLOSED;
	e->clients = v->clients;
	return 0;
}

/* Waits until no program adds to @epoch's entries; false if one still did after @wait_ns. */
static bool settle(const struct drmtop_idle_sync *y, __u64 epoch, __u64 wait_ns)
{
	const struct timespec nap = { .tv_nsec = 100000 };
	__u64 until = drmtop_mono_ns() + wait_ns;

	while (__atomic_load_n(&y->inflight[epoch & 1], __ATOMIC_SEQ_CST)) {
		if (drmtop_mono_ns() > until)
			return false;
		nanosleep(&nap, NULL);
	}
	return true;
}

int drmtop_bpf_idle_take(struct drmtop_idle_take *t, struct drmtop_bpf_snapshot *s,
			 bool *unsettled)
{
	struct drmtop_walk w = { .fd = t->fd, .each = each_idle };
	struct idle_walk iw = { .t = t, .s = s };
	__u64 epoch;

	*unsettled = false;
	t->n_keys = 0;
	if (t->fd < 0 || !t->sync)
		return 0;
	/* sequentially consistent, so ordered before the load of the count (the programs' pair) */
	epoch = __atomic_fetch_add(&t->sync->epoch, 1, __ATOMIC_SEQ_CST);
	iw.current = (__u32)(epoch + 1);
	*unsettled = !settle(t->sync, epoch, t->wait_ns ? t->wait_ns : DRMTOP_BPF_IDLE_WAIT_NS);
	w.ctx = &iw;
	return drmtop_bpf_map_walk(&w);
}

void drmtop_bpf_idle_forget(struct drmtop_idle_take *t)
{
	size_t i;

	for (i = 0; i < t->n_keys; i++)
		bpf_map_delete_elem(t->fd, &t->keys[i]);
	t->n_keys = 0;
}
