// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated hardware: each engine has `capacity` lanes; each lane executes its jobs one after
 * another in FIFO order. A job handed over by drm_sched's run_job at time t starts at
 * max(t, end of the lane's previous job) and ends exactly duration_ns later. An hrtimer plays
 * the completion interrupt; it may fire late, but the figures (and the hardware fence's
 * timestamp) use the modelled end, so busy time is exact: the sum of the completed jobs'
 * durations, however many jobs drm_sched keeps in flight on the ring.
 *
 * Checked on 6.1.0-56-amd64, 6.12.117+deb12-amd64 and 7.2.13+deb14-amd64.
 */
#include <linux/dma-fence.h>
#include <linux/slab.h>

#include "simgpu_drv.h"

static const char *simgpu_fence_driver_name(struct dma_fence *fence)
{
	return simgpu_pers->driver_name;
}

static const char *simgpu_fence_timeline_name(struct dma_fence *fence)
{
	struct simgpu_job *job = container_of(fence, struct simgpu_job, hw_fence);

	return simgpu_pers->ring_names[job->engine];
}

static const struct dma_fence_ops simgpu_fence_ops = {
	.get_driver_name = simgpu_fence_driver_name,
	.get_timeline_name = simgpu_fence_timeline_name,
};

/* Time job has executed by @now, in ns: clamp(now - start, 0, duration). */
static u64 simgpu_job_elapsed(const struct simgpu_job *job, ktime_t now)
{
	if (ktime_compare(now, job->start) <= 0)
		return 0;
	if (ktime_compare(now, job->end) >= 0)
		return job->duration_ns;
	return ktime_to_ns(ktime_sub(now, job->start));
}

/*
 * Busy ns of @client on @eng at @now (all clients if NULL): completed jobs plus the part of the
 * jobs on the lanes that has executed so far. Monotonic, and equal to the completed figure once
 * the engine is idle.
 */
u64 simgpu_engine_busy_locked(struct simgpu_hw_engine *eng, struct simgpu_client *client,
			      ktime_t now)
{
	u64 busy = client ? client->eng[eng->id].busy_ns : eng->total.busy_ns;
	unsigned int i;

	lockdep_assert_held(&eng->lock);
	for (i = 0; i < eng->capacity; i++) {
		struct simgpu_job *job;

		list_for_each_entry(job, &eng->lanes[i].jobs, lane_node)
			if (!client || job->client == client)
				busy += simgpu_job_elapsed(job, now);
	}
	return busy;
}

static void simgpu_job_completed_locked(struct simgpu_hw_engine *eng, struct simgpu_job *job,
					ktime_t now)
{
	struct simgpu_client *client = job->client;
	struct simgpu_engine_stats *cs = &client->eng[eng->id];
	u64 lag = ktime_to_ns(ktime_sub(now, job->end));

	list_del_init(&job->lane_node);
	/*
	 * drm_sched's done tracepoint fires inside this call (fence callback); the figures and
	 * WAIT see the completion only afterwards (both read under eng->lock), so a tracer has
	 * always seen a job finish by the time its submitter learns of it. From here on free_job
	 * may run on another CPU: only the lane's own references keep job and client alive.
	 */
	dma_fence_signal_timestamp_locked(&job->hw_fence, job->end);
	cs->completed++;
	cs->busy_ns += job->duration_ns;
	cs->done_seqno = max(cs->done_seqno, job->seqno);
	eng->total.completed++;
	eng->total.busy_ns += job->duration_ns;
	eng->irq_lag_total_ns += lag;
	eng->irq_lag_max_ns = max(eng->irq_lag_max_ns, lag);
	wake_up_all(&client->wq);
	simgpu_client_put(client);	/* the lane's reference */
	dma_fence_put(&job->hw_fence);	/* the lane's reference */
}

static enum hrtimer_restart simgpu_lane_irq(struct hrtimer *timer)
{
	struct simgpu_lane *lane = container_of(timer, struct simgpu_lane, timer);
	struct simgpu_hw_engine *eng = lane->engine;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct simgpu_job *job;
	unsigned long flags;
	ktime_t now;

	spin_lock_irqsave(&eng->lock, flags);
	now = ktime_get();
	while ((job = list_first_entry_or_null(&lane->jobs, struct simgpu_job, lane_node))) {
		if (ktime_compare(job->end, now) > 0) {
			hrtimer_set_expires(timer, job->end);
			ret = HRTIMER_RESTART;
			break;
		}
		simgpu_job_completed_locked(eng, job, now);
	}
	spin_unlock_irqrestore(&eng->lock, flags);
	return ret;
}

/* The lane that can start a new job soonest. */
static struct simgpu_lane *simgpu_pick_lane_locked(struct simgpu_hw_engine *eng)
{
	struct simgpu_lane *best = &eng->lanes[0];
	unsigned int i;

	for (i = 1; i < eng->capacity; i++)
		if (ktime_compare(eng->lanes[i].busy_until, best->busy_until) < 0)
			best = &eng->lanes[i];
	return best;
}

/*
 * Hands @job to the hardware; returns the hardware fence (a reference for drm_sched). A job of a
 * user queue (personality fw) goes to its queue's lane on its queue's fence timeline.
 */
struct dma_fence *simgpu_ring_run(struct simgpu_job *job)
{
	struct simgpu_hw_engine *eng = &job->client->sdev->engines[job->engine];
	struct simgpu_queue *q = job->queue;
	struct simgpu_lane *lane;
	unsigned long flags;
	u64 context, seqno;
	bool idle;
	ktime_t now;

	spin_lock_irqsave(&eng->lock, flags);
	if (q) {
		lane = &eng->lanes[q->lane];
		context = q->fence_context;
		seqno = ++q->fence_seqno;
	} else {
		lane = simgpu_pick_lane_locked(eng);
		context = lane->fence_context;
		seqno = ++lane->fence_seqno;
	}
	now = ktime_get();
	job->lane = lane;
	job->start = ktime_compare(lane->busy_until, now) > 0 ? lane->busy_until : now;
	job->end = ktime_add_ns(job->start, job->duration_ns);
	lane->busy_until = job->end;
	dma_fence_init(&job->hw_fence, &simgpu_fence_ops, &eng->lock, context, seqno);
	job->ran = true;
	idle = list_empty(&lane->jobs);
	list_add_tail(&job->lane_node, &lane->jobs);
	dma_fence_get(&job->hw_fence);	/* the lane's, dropped on completion */
	kref_get(&job->client->ref);	/* the lane's, dropped on completion */
	dma_fence_get(&job->hw_fence);	/* the job's, dropped by free_job */
	if (idle)
		hrtimer_start(&lane->timer, job->end, HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&eng->lock, flags);

	/* The initial reference goes to drm_sched. */
	return &job->hw_fence;
}

/* @name is the ring= of drm_sched's tracepoints; the scheduler keeps the pointer. */
int simgpu_sched_init(struct simgpu_device *sdev, struct drm_gpu_scheduler *sched,
		      const char *name, unsigned int credit_limit)
{
	struct drm_sched_init_args args = {
		.ops = &simgpu_sched_ops,
		.credit_limit = credit_limit,
		.hang_limit = 0,
		/* Jobs end when their timer says so; no job ever "hangs": a timeout only if asked. */
		.timeout = simgpu_job_timeout_ms ? msecs_to_jiffies(simgpu_job_timeout_ms) :
						   MAX_SCHEDULE_TIMEOUT,
		.name = name,
		.dev = sdev->drm.dev,
#if SIMGPU_SCHED_INIT_NUM_RQS
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
#endif
	};

	return drm_sched_init(sched, &args);
}

int simgpu_engines_init(struct simgpu_device *sdev)
{
	enum simgpu_engine e;
	int ret;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_hw_engine *eng = &sdev->engines[e];
		unsigned int i;

		eng->sdev = sdev;
		eng->id = e;
		eng->name = simgpu_engine_names[e];
		eng->queue_depth = simgpu_queue_depth[e];
		eng->capacity = simgpu_engine_capacity[e];
		eng->sched_list[0] = &eng->sched;
		spin_lock_init(&eng->lock);
		for (i = 0; i < eng->capacity; i++) {
			struct simgpu_lane *lane = &eng->lanes[i];

			lane->engine = eng;
			lane->index = i;
			INIT_LIST_HEAD(&lane->jobs);
			lane->fence_context = dma_fence_context_alloc(1);
			simgpu_hrtimer_setup(&lane->timer, simgpu_lane_irq, CLOCK_MONOTONIC,
					     HRTIMER_MODE_ABS);
		}
		ret = simgpu_sched_init(sdev, &eng->sched, simgpu_pers->ring_names[e],
					simgpu_queue_depth[e]);
		if (ret) {
			drm_err(&sdev->drm, "drm_sched_init(%s): %d\n", eng->name, ret);
			simgpu_engines_fini(sdev);
			return ret;
		}
		eng->sched_ready = true;
	}
	return 0;
}

void simgpu_engines_fini(struct simgpu_device *sdev)
{
	enum simgpu_engine e;
	unsigned int i;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_hw_engine *eng = &sdev->engines[e];

		if (eng->sched_ready)
			drm_sched_fini(&eng->sched);
		eng->sched_ready = false;
		for (i = 0; i < eng->capacity; i++)
			if (eng->lanes[i].engine)
				hrtimer_cancel(&eng->lanes[i].timer);
	}
}
