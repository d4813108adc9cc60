// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-queue schedulers (personalities fw, nouveau, powervr, panthor). xe gives every exec queue
 * a drm_gpu_scheduler of its own (xe_guc_submit.c guc_exec_queue_init), named by
 * xe_exec_queue_assign_name() after the engine class and the queue's GuC id ("rcs%d", "ccs%d",
 * "bcs%d", ...); panthor, powervr and nouveau do the same per queue or channel, under names of
 * their own (simgpu_queue_name). drm_sched then only feeds the firmware, which time-slices the
 * queues on the engine. simgpu makes one queue per engine per file at open, numbered device-wide
 * from 1 (0 names the schedulers of the driver's own jobs), each pinned to one lane so that its
 * hardware fences signal in order, as one context's must.
 *
 * Checked on 6.1.0-56-amd64, 6.12.117+deb12-amd64 and 7.2.13+deb14-amd64.
 */
#include <linux/delay.h>
#include <linux/dma-fence.h>

#include "simgpu_drv.h"

/*
 * nouveau names every channel's scheduler (and each client's VM_BIND one) "nouveau_sched"
 * (nouveau_sched.c), powervr every queue's "pvr-queue" (pvr_queue.c), panthor 6.12 every
 * queue's "panthor-queue" and 7.2 "panthor-queue-<client id>-<group>-<queue>" (panthor_sched.c
 * group_create_queue): simgpu's one group per file is group 1.
 */
static void simgpu_queue_name(struct simgpu_queue *q, enum simgpu_engine e, unsigned int id,
			      struct drm_file *file)
{
	const char *base = simgpu_pers->queue_names[e];

	switch (simgpu_pers->queue_naming) {
	case SIMGPU_QUEUE_NAME_ID:
		snprintf(q->name, sizeof(q->name), "%s%u", base, id);
		break;
	case SIMGPU_QUEUE_NAME_CLIENT:
#if SIMGPU_HAVE_DRM_SHOW_FDINFO
		snprintf(q->name, sizeof(q->name), "%s-%llu-1-%u", base, file->client_id, e);
		break;
#endif
	case SIMGPU_QUEUE_NAME_PLAIN:
		snprintf(q->name, sizeof(q->name), "%s", base);
		break;
	}
}

int simgpu_queues_init(struct simgpu_device *sdev, struct simgpu_file *sfile,
		       struct drm_file *file)
{
	enum simgpu_engine e;
	int ret;

	if (simgpu_pers->bind_name) {
		snprintf(sfile->bind.name, sizeof(sfile->bind.name), "%s", simgpu_pers->bind_name);
		ret = simgpu_sched_init(sdev, &sfile->bind.sched, sfile->bind.name, 1);
		if (ret)
			return ret;
		sfile->bind.ready = true;
	}
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_queue *q = &sfile->queue[e];
		unsigned int id = atomic_inc_return(&sdev->next_queue_id);

		simgpu_queue_name(q, e, id, file);
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
	if (sfile->bind.ready)
		drm_sched_fini(&sfile->bind.sched);
	sfile->bind.ready = false;
}
