/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_snapshot_parts.h: the steps of a snapshot (bpf_reader.c) kept in files of their own:
 * GEM object entries whose end went unseen (bpf_stale_objects.c), jobs that lost their done and
 * cleanup (bpf_job_aging.c), idle closes counted per process (bpf_idle.c), and what bpf_reader.c
 * lends them.
 */
#ifndef DRMTOP_BPF_SNAPSHOT_PARTS_H
#define DRMTOP_BPF_SNAPSHOT_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf_internal.h"
#include "drmtop/bpf_reader.h"

/* bpf_reader.c: walks map @map of @b, with the test hook if one is set */
int drmtop_bpf_walk(struct drmtop_bpf *b, enum drmtop_bpf_map map,
		    int (*each)(const void *key, const void *value, void *ctx), void *ctx);
/* qsort/bsearch order of __u64 */
int drmtop_bpf_cmp_u64(const void *a, const void *b);

/* bpf_stale_objects.c */
int drmtop_bpf_prune_objects(struct drmtop_bpf *b, const struct drmtop_bpf_snapshot *s);
/*
 * Takes what drmtop_bpf_prune_objects took out of the map out of @s's device totals (all the
 * devices the map holds), and forgets it for devices gone.
 */
void drmtop_bpf_take_out_pruned(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s);

/* bpf_job_aging.c */

/* The oldest job handed to the hardware and not done on a ring: the jobs map's key is @fence. */
struct drmtop_bpf_oldest {
	__u64 ring, uid, run_ns, fence;
};

/* Whether @job, made from its done event, was never counted at its cleanup (as of @now). */
bool drmtop_bpf_ended_unfreed(const struct drmtop_job *job, __u64 now);
/* Whether such a job's cleanup is a second late: its client's figures are then short. */
bool drmtop_bpf_ended_overdue(const struct drmtop_job *job, __u64 now);
/* Deletes such jobs (the jobs map's keys @keys), counting them jobs_aged_out. */
void drmtop_bpf_age_ended(struct drmtop_bpf *b, const __u64 *keys, size_t n);
/* @aging (malloc'ed, @n of @cap) becomes the jobs found overtaken, indexed. */
void drmtop_bpf_aging_replace(struct drmtop_bpf *b, struct drmtop_aging *aging, size_t n,
			      size_t cap);
/* Whether @o, the oldest job of ring @r, was deleted as one that lost its done and cleanup. */
bool drmtop_bpf_aged_out(struct drmtop_bpf *b, const struct drmtop_bpf_oldest *o,
			 const struct drmtop_ring *r, __u64 now, struct drmtop_aging *next,
			 size_t *n_next);

/* bpf_idle.c */

/*
 * Moves the idle_closed epoch on and, once no program adds to the old one, adds its entries
 * (and any older ones a failed snapshot left) to @s->idle; their keys wait in @t for
 * drmtop_bpf_idle_forget(). *@unsettled: a program still added to them after t->wait_ns.
 * Nothing where @t->fd < 0. 0 or a negative errno.
 */
int drmtop_bpf_idle_take(struct drmtop_idle_take *t, struct drmtop_bpf_snapshot *s,
			 bool *unsettled);
/* Deletes the entries the latest take returned, once a snapshot holds them. */
void drmtop_bpf_idle_forget(struct drmtop_idle_take *t);

#endif /* DRMTOP_BPF_SNAPSHOT_PARTS_H */
