// SPDX-License-Identifier: GPL-2.0-only
/*
 * groups.c: a model's clients summed per process or per workload (groups.h), for the live view's
 * grouped rows. Indices, not pointers, into the groups while they grow.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/groups.h"
#include "drmtop/util/vec.h"

const char *drmtop_group_by_name(enum drmtop_group_by by)
{
	static const char *const names[DRMTOP_GROUP_COUNT] = {
		[DRMTOP_GROUP_NONE] = "client",
		[DRMTOP_GROUP_PROCESS] = "process",
		[DRMTOP_GROUP_WORKLOAD] = "workload",
	};

	return by < DRMTOP_GROUP_COUNT ? names[by] : "?";
}

void drmtop_groups_init(struct drmtop_groups *g)
{
	memset(g, 0, sizeof(*g));
	strmap_init(&g->at);
	strmap_init(&g->engine_at);
}

static void clear(struct drmtop_groups *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].key);
		free(g->v[i].engines);
	}
	g->n = 0;
	strmap_fini(&g->at);
	strmap_init(&g->at);
	strmap_fini(&g->engine_at);
	strmap_init(&g->engine_at);
}

void drmtop_groups_fini(struct drmtop_groups *g)
{
	clear(g);
	free(g->v);
	strmap_fini(&g->at);
	strmap_fini(&g->engine_at);
	memset(g, 0, sizeof(*g));
}

static const char *group_key(const struct drmtop_model_client *c, enum drmtop_group_by by,
			     char *buf, size_t len)
{
	if (by == DRMTOP_GROUP_PROCESS) {
		snprintf(buf, len, "%d", (int)c->pid);
		return buf;
	}
	return c->cgroup.workload ? c->cgroup.workload : "?";
}

/* The group of @key (made from client @i if new); SIZE_MAX when memory runs out. */
static size_t group_of(struct drmtop_groups *g, const struct drmtop_model *m, size_t i,
		       const char *key)
{
	const struct drmtop_model_client *c = &m->clients[i];
	void *at = strmap_get(&g->at, key);
	struct drmtop_group *grp;

	if (at)
		return (size_t)(uintptr_t)at - 1;
	if (vec_reserve(g->v, g->cap, g->n + 1))
		return SIZE_MAX;
	grp = &g->v[g->n];
	memset(grp, 0, sizeof(*grp));
	grp->key = strdup(key);
	if (!grp->key || strmap_put(&g->at, key, (void *)(uintptr_t)(g->n + 1))) {
		free(grp->key);
		return SIZE_MAX;
	}
	grp->first = i;
	grp->pid = c->pid;
	grp->workload = c->cgroup.workload;
	grp->name = g->by == DRMTOP_GROUP_WORKLOAD ? grp->key : c->comm;
	return g->n++;
}

static int add_engine(struct drmtop_groups *g, size_t gi, const char *name, double pct,
		      bool over)
{
	struct drmtop_group *grp = &g->v[gi];
	struct drmtop_group_engine *e;
	char k[128];
	void *at;

	snprintf(k, sizeof(k), "%zu/%s", gi, name);
	at = strmap_get(&g->engine_at, k);
	if (at) {
		e = &grp->engines[(size_t)(uintptr_t)at - 1];
	} else {
		/* one at a time: a group has a few engines */
		e = realloc(grp->engines, (grp->nr_engines + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		grp->engines = e;
		if (strmap_put(&g->engine_at, k, (void *)(uintptr_t)(grp->nr_engines + 1)))
			return -ENOMEM;
		e = &grp->engines[grp->nr_engines++];
		*e = (struct drmtop_group_engine){ .name = name };
	}
	e->pct += pct;
	if (over || e->pct > 100.0)
		e->over = true;
	return 0;
}

static int add_client(struct drmtop_groups *g, const struct drmtop_model *m, size_t gi, size_t i)
{
	const struct drmtop_model_client *c = &m->clients[i];
	struct drmtop_group *grp = &g->v[gi];
	double pct;
	bool over;
	size_t k;

	grp->nr_clients++;
	if (c->pid < m->clients[grp->first].pid) {
		grp->first = i;
		if (g->by != DRMTOP_GROUP_PROCESS)
			grp->pid = c->pid;
	}
	if (c->has_mem) {
		grp->has_mem = true;
		grp->mem_total += c->mem_total;
		grp->mem_shared += c->has_shared ? c->mem_shared : 0;
	}
	grp->busy_sum_pct += c->busy_sum_pct;
	grp->in_fdinfo |= c->in_fdinfo;
	grp->traced |= c->bpf || !c->in_fdinfo;
	grp->maybe_short |= c->lower_bound || c->inconclusive;
	grp->diverged |= c->diverged;
	for (k = 0; k < c->nr_engines; k++) {
		if (!drmtop_model_engine_pct(&c->engines[k], &pct))
			continue;
		over = c->engines[k].in_fdinfo && (c->engines[k].fd.flags & DRMTOP_FD_OVER);
		if (add_engine(g, gi, c->engines[k].name, pct, over))
			return -ENOMEM;
	}
	return 0;
}

int drmtop_groups_build(struct drmtop_groups *g, const struct drmtop_model *m,
			enum drmtop_group_by by, drmtop_group_keep_fn keep, const void *arg)
{
	char buf[24];
	size_t i, gi;

	clear(g);
	g->by = by;
	for (i = 0; i < m->nr_clients; i++) {
		if (keep && !keep(&m->clients[i], arg))
			continue;
		gi = group_of(g, m, i, group_key(&m->clients[i], by, buf, sizeof(buf)));
		if (gi == SIZE_MAX || add_client(g, m, gi, i))
			return -ENOMEM;
	}
	return 0;
}

const struct drmtop_group_engine *drmtop_group_engine(const struct drmtop_groups *g,
						      const struct drmtop_group *grp,
						      const char *name)
{
	char k[128];
	void *at;

	snprintf(k, sizeof(k), "%zu/%s", (size_t)(grp - g->v), name);
	at = strmap_get(&g->engine_at, k);
	return at ? &grp->engines[(size_t)(uintptr_t)at - 1] : NULL;
}

int drmtop_group_cmp(const struct drmtop_group *a, const struct drmtop_group *b,
		     enum drmtop_sort sort, bool reverse)
{
	struct drmtop_sort_key ka = { a->busy_sum_pct, a->mem_total, a->name, a->pid };
	struct drmtop_sort_key kb = { b->busy_sum_pct, b->mem_total, b->name, b->pid };
	int r = drmtop_sort_key_cmp(&ka, &kb, sort);

	if (!r)
		r = strcmp(a->key, b->key);
	return reverse ? -r : r;
}
