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
#include "drmtop/kernel_hz.h"

/* A job ended (made from its done event, or held) is counted at its cleanup: ms; 10 s is never. */
#define ENDED_GRACE_NS	10000000000ull

/* Deletes a job that lost its done and cleanup, counted. */
static bool age(struct drmtop_bpf *b, __u64 fence)
{
	if (!bpf_map_delete_elem(b->map_fd[MAP_JOBS], &fence))
		b->jobs_aged_out++;
	return true;
}

/*
 * Ended, and its cleanup a second late: that run may have been skipped (7.x), and the job is then
 * counted nowhere until it ages out. Its client's figures are marked short meanwhile.
 */
#define ENDED_OVERDUE_NS	1000000000ull

/* Ended (counted at its cleanup) more than @late_ns before @now, its cleanup not come. */
static bool ended_waiting(const struct drmtop_job *job, __u64 now, __u64 late_ns)
{
	return (job->uid & DRMTOP_JOB_ENDED) && now > job->end_ns + late_ns;
}

bool drmtop_bpf_ended_unfreed(const struct drmtop_job *job, __u64 now)
{
	/* ended, waiting for its cleanup to be counted: its cleanup run was lost */
	return ended_waiting(job, now, ENDED_GRACE_NS);
}

bool drmtop_bpf_ended_overdue(const struct drmtop_job *job, __u64 now)
{
	return ended_waiting(job, now, ENDED_OVERDUE_NS);
}

void drmtop_bpf_age_ended(struct drmtop_bpf *b, const __u64 *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		age(b, keys[i]);
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
 * drm_sched arms a ring's timeout at its oldest pending job's run and again at each job freed, so
 * a job not done @r->timeout after max(its run, the ring's previous end) went to the driver's
 * timeout handler (a reset, a resubmission). Twice that, and a second for the timer re-armed at
 * the previous job's free rather than its end, and a job the tracer still counts running lost
 * its done and cleanup, whatever the ring's units. A driver may say a job is not hung
 * (DRM_GPU_SCHED_STAT_NO_HANG, 6.17+) and let it run on: aged out too, counted, and its time
 * comes back made from its done event where fences carry drm_client_id.
 */
#define TIMEOUT_MARGIN_NS	1000000000ull
/* a timeout this long (MAX_SCHEDULE_TIMEOUT, or more than a day at 1000 Hz) is none */
#define TIMEOUT_NONE_JIFFIES	(86400ull * 1000)

static bool past_timeout(const struct drmtop_bpf *b, const struct drmtop_bpf_oldest *o,
			 const struct drmtop_ring *r, __u64 now)
{
	__u64 start = o->run_ns > r->last_done_ns ? o->run_ns : r->last_done_ns;

	if (!r->timeout || r->timeout > TIMEOUT_NONE_JIFFIES)
		return false;
	return now > start && now - start > 2 * drmtop_jiffies_ns(r->timeout, b->hz.hz) +
					     TIMEOUT_MARGIN_NS;
}

/*
 * Whether @o, the oldest job on its ring as of @now, lost its done and its cleanup (a GPU reset
 * on 7.x). Past its scheduler's timeout (past_timeout), on any ring. Before that, on a ring of
 * one unit, where jobs finish in the order they ran: a job that ran after it and finished
 * (@r->done_run_ns) means it ended unseen; aged out when the snapshot before found it so too
 * (its done event, still running on another CPU then, is long over). A ring of several units
 * (engine capacity) finishes out of order: there only the timeout tells, and a scheduler without
 * one (MAX_SCHEDULE_TIMEOUT) keeps a leaked job, and its client running, until drmtop restarts.
 *
 * The one-unit rule is not applied per unit because an unfinished job's unit is not known: a
 * unit is its hardware fence's context, and that fence is made by the driver's run_job, after
 * the run event (drm_sched sets s_fence->parent then: drm_sched_fence_set_parent in 6.1,
 * drm_sched_fence_scheduled since); the tracer sees the job again only at its done and its
 * cleanup, both of which a leaked job lost. Knowing it would take a new hook on that kernel
 * function (6.1 to 7.2).
 */
bool drmtop_bpf_aged_out(struct drmtop_bpf *b, const struct drmtop_bpf_oldest *o,
			 const struct drmtop_ring *r, __u64 now, struct drmtop_aging *next,
			 size_t *n_next)
{
	char k[40];

	if (past_timeout(b, o, r, now))
		return age(b, o->fence);
	if (r->lanes > 1 || r->done_run_ns <= o->run_ns)
		return false;
	aging_key(k, sizeof(k), o->fence, o->run_ns);
	if (!strmap_get(&b->aging_at, k)) {
		next[(*n_next)++] = (struct drmtop_aging){ o->fence, o->run_ns };
		return false;
	}
	return age(b, o->fence);
}
