// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_job_aging.c: jobs that lost their done and their cleanup (a GPU reset on 7.x, a skipped
 * cleanup run) leave the jobs map, counted jobs_aged_out, rather than stay in it for ever and
 * count as running (bpf_reader.c, add_running).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>

#include "bpf_snapshot_parts.h"

/* A job made from its done event is counted at its cleanup, a few ms later; 10 s is never. */
#define ENDED_GRACE_NS	10000000000ull

bool drmtop_bpf_ended_unfreed(const struct drmtop_job *job, __u64 now)
{
	/* ended, waiting for its cleanup to be counted: its cleanup run was lost */
	return (job->uid & DRMTOP_JOB_ENDED) && now > job->run_ns + ENDED_GRACE_NS;
}

void drmtop_bpf_age_ended(struct drmtop_bpf *b, const __u64 *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!bpf_map_delete_elem(b->map_fd[MAP_JOBS], &keys[i]))
			b->jobs_aged_out++;
}

/* A job by its jobs map key and its run time (a fence address reused is another job). */
static void aging_key(char *buf, size_t len, __u64 fence, __u64 run_ns)
{
	snprintf(buf, len, "%llx:%llx", (unsigned long long)fence, (unsigned long long)run_ns);
}

/*
 * Out of memory for the index, a job not in it is found overtaken once more, and ages out a
 * snapshot later.
 */
void drmtop_bpf_aging_replace(struct drmtop_bpf *b, struct drmtop_aging *aging, size_t n,
			      size_t cap)
{
	char k[40];
	size_t i;

	free(b->aging);
	b->aging = aging;
	b->n_aging = n;
	b->cap_aging = cap;
	strmap_fini(&b->aging_at);
	strmap_init(&b->aging_at);
	for (i = 0; i < n; i++) {
		aging_key(k, sizeof(k), aging[i].fence, aging[i].run_ns);
		if (strmap_put(&b->aging_at, k, (void *)(uintptr_t)(i + 1)))
			break;
	}
}

/*
 * Whether @o, the oldest job on its ring, lost its done and its cleanup (a GPU reset on 7.x):
 * on a ring of one unit jobs finish in the order they ran, so a job that ran after it and
 * finished (@r->done_run_ns) means it ended unseen. Aged out (deleted, jobs_aged_out) when the
 * snapshot before found it so too: its done event, still running on another CPU then, is long
 * over. Otherwise it would stay the oldest for ever and count as running. A ring of several
 * units (engine capacity) finishes out of order: not judged, so a job leaked there stays (and
 * its client runs there) until drmtop restarts.
 *
 * The same rule per unit is not applied because an unfinished job's unit is not known: a unit
 * is its hardware fence's context, and that fence is made by the driver's run_job, after the
 * run event (drm_sched sets s_fence->parent then: drm_sched_fence_set_parent in 6.1,
 * drm_sched_fence_scheduled since); the tracer sees the job again only at its done and its
 * cleanup, both of which a leaked job lost. The jobs map has no unit, and the ring's lanes
 * count how many units fed it, not which. Knowing it would take a new hook on that kernel
 * function (6.1 to 7.2).
 */
bool drmtop_bpf_aged_out(struct drmtop_bpf *b, const struct drmtop_bpf_oldest *o,
			 const struct drmtop_ring *r, struct drmtop_aging *next, size_t *n_next)
{
	char k[40];

	if (r->lanes > 1 || r->done_run_ns <= o->run_ns)
		return false;
	aging_key(k, sizeof(k), o->fence, o->run_ns);
	if (!strmap_get(&b->aging_at, k)) {
		next[(*n_next)++] = (struct drmtop_aging){ o->fence, o->run_ns };
		return false;
	}
	if (!bpf_map_delete_elem(b->map_fd[MAP_JOBS], &o->fence))
		b->jobs_aged_out++;
	return true;
}
