/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A model's clients summed per holding process or per workload (the cgroup's name): what a live
 * view groups its rows by. Made from the model and a filter, each refresh; it reads the model's
 * own figures (the engine figure each client shows, its memory), so a group is the sum of what
 * its clients' rows would show.
 */
#ifndef DRMTOP_GROUPS_H
#define DRMTOP_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "drmtop/model.h"
#include "drmtop/util/strmap.h"

enum drmtop_group_by {
	DRMTOP_GROUP_NONE,		/* a row per client */
	DRMTOP_GROUP_PROCESS,		/* per primary holder (pid) */
	DRMTOP_GROUP_WORKLOAD,		/* per cgroup workload; "?" when not known */
	DRMTOP_GROUP_COUNT,
};

const char *drmtop_group_by_name(enum drmtop_group_by by);	/* "client", "process", ... */

struct drmtop_group_engine {
	const char *name;		/* the model's string */
	double pct;			/* sum of the members' shown figures */
	bool over;			/* some member's figure, or the sum, over 100 % */
};

struct drmtop_group {
	char *key;			/* "<pid>", or the workload */
	size_t first;			/* index in the model's clients of its lowest-pid member */
	size_t nr_clients;
	pid_t pid;			/* DRMTOP_GROUP_PROCESS: the process; else the first's */
	const char *workload;		/* the first member's, NULL if not known */
	const char *name;		/* what it is called: the workload, or the process's comm */
	struct drmtop_group_engine *engines;	/* in first-seen order */
	size_t nr_engines;
	bool has_mem;			/* some member printed memory */
	uint64_t mem_total, mem_shared;	/* sums: a buffer two members hold counts twice */
	double busy_sum_pct;
	bool in_fdinfo;			/* some member the driver reports */
	bool traced;			/* some member the tracer has (its own or matched) */
	bool maybe_short;		/* a member's tracer figures may be short */
	bool diverged;			/* a member's sources disagree */
};

struct drmtop_groups {
	enum drmtop_group_by by;
	struct drmtop_group *v;
	size_t n, cap;
	struct strmap at;		/* by key, index + 1 */
	struct strmap engine_at;	/* by "<group index>/<engine>", index + 1 */
};

typedef bool (*drmtop_group_keep_fn)(const struct drmtop_model_client *c, const void *arg);

void drmtop_groups_init(struct drmtop_groups *g);
/* @m's clients @keep keeps (NULL: all) by @by, replacing what @g held. 0, or -ENOMEM. */
int drmtop_groups_build(struct drmtop_groups *g, const struct drmtop_model *m,
			enum drmtop_group_by by, drmtop_group_keep_fn keep, const void *arg);
void drmtop_groups_fini(struct drmtop_groups *g);
/* qsort order of groups as drmtop_model_cmp orders clients; ties by pid, then key. */
int drmtop_group_cmp(const struct drmtop_group *a, const struct drmtop_group *b,
		     enum drmtop_sort sort, bool reverse);
const struct drmtop_group_engine *drmtop_group_engine(const struct drmtop_groups *g,
						      const struct drmtop_group *grp,
						      const char *name);

#endif /* DRMTOP_GROUPS_H */
