// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-queue schedulers (personality fw). xe gives every exec queue a drm_gpu_scheduler of its
 * own (xe_guc_submit.c guc_exec_queue_init), named by xe_exec_queue_assign_name() after the
 * engine class and the queue's GuC id ("rcs%d", "ccs%d", "bcs%d", ...); panthor does the same per
 * group queue. drm_sched then only feeds the firmware, which time-slices the queues on the
 * engine. simgpu makes one queue per engine per file at open, numbered device-wide from 1 (0
 * names the schedulers of the driver's own jobs), each pinned to one lane so that its hardware
 * fences signal in order, as one context's must.
 *
 * Checked on 6.1.0-56-amd64, 6.12.117+deb12-amd64 and 7.2.13+deb14-amd64.
 */
#include <linux/delay.h>
#include <linux/dma-fence.h>

#include "simgpu_drv.h"

int simgpu_queues_init(struct simgpu_device *sdev, struct simgpu_file *sfile)
{
	enum simgpu_engine e;
	int ret;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_queue *q = &sfile->queue[e];
		unsigned int id = atomic_inc_return(&sdev->next_queue_id);

		snprintf(q->name, sizeof(q->name), "%s%u", simgpu_pers->queue_names[e], id);
		q->lane = id % sdev->engines[e].capacity;
		q->fence_context = dma_fence_context_alloc(1);
		q->sched_list[0] = &q->sched;
		ret = simgpu_sched_init(sdev, &q->sched, q->name, sdev->engines[e].queue_depth);
		if (ret) {
			simgpu_queues_fini(sdev, sfile);
			return ret;
		}
		q->ready = true;
	}
	return 0;
}

/*
 * After the file's entities are destroyed. The queue's jobs on the lanes still end on their own,
 * and their done callbacks and free_job use the scheduler: it goes once none is pending and no
 * completion interrupt of the engine is still inside a done callback (they run under its lock).
 */
void simgpu_queues_fini(struct simgpu_device *sdev, struct simgpu_file *sfile)
{
	enum simgpu_engine e;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_hw_engine *eng = &sdev->engines[e];
		struct simgpu_queue *q = &sfile->queue[e];
		unsigned long flags;
		bool idle;

		if (!q->ready)
			continue;
		for (;;) {
			spin_lock(&q->sched.job_list_lock);
			idle = list_empty(&q->sched.pending_list);
			spin_unlock(&q->sched.job_list_lock);
			if (idle)
				break;
			usleep_range(500, 1000);
		}
		spin_lock_irqsave(&eng->lock, flags);
		spin_unlock_irqrestore(&eng->lock, flags);
		drm_sched_fini(&q->sched);
		q->ready = false;
	}
}
