// SPDX-License-Identifier: GPL-2.0-only
/*
 * Jobs: the drm_sched backend and the SUBMIT / WAIT ioctls. Every job, the driver's own clears
 * included, goes drm_sched_job_init -> drm_sched_job_arm -> drm_sched_entity_push_job, so the
 * scheduler's queue / run / done tracepoints fire for each one as on a real drm_sched driver.
 *
 * Checked on 6.1.0-56-amd64 and 6.12.117+deb12-amd64.
 */
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "simgpu_drv.h"

static struct dma_fence *simgpu_sched_run_job(struct drm_sched_job *sched_job)
{
	struct simgpu_job *job = to_simgpu_job(sched_job);

	/* A failed dependency (or a killed entity) means the job never reaches the hardware. */
	if (unlikely(sched_job->s_fence->finished.error))
		return NULL;
	return simgpu_ring_run(job);
}

static void simgpu_job_put_bos(struct simgpu_job *job)
{
	u32 i;

	for (i = 0; i < job->nr_bos; i++)
		if (job->bos[i])
			drm_gem_object_put(job->bos[i]);
	kvfree(job->bos);
	job->bos = NULL;
	job->nr_bos = 0;
}

static void simgpu_job_free(struct simgpu_job *job)
{
	struct simgpu_client *client = job->client;
	struct simgpu_hw_engine *eng = &client->sdev->engines[job->engine];
	unsigned long flags;

	drm_sched_job_cleanup(&job->base);
	simgpu_job_put_bos(job);
	if (!job->ran) {
		spin_lock_irqsave(&eng->lock, flags);
		client->eng[job->engine].cancelled++;
		client->eng[job->engine].done_seqno =
			max(client->eng[job->engine].done_seqno, job->seqno);
		eng->total.cancelled++;
		spin_unlock_irqrestore(&eng->lock, flags);
		wake_up_all(&client->wq);
		atomic_dec(&client->sdev->jobs_alive);
		simgpu_client_put(client);
		kfree(job);
		return;
	}
	atomic_dec(&client->sdev->jobs_alive);
	simgpu_client_put(client);
	dma_fence_put(&job->hw_fence);	/* the job's reference; the last one frees the job */
}

/*
 * free_delay_ms: the device's jobs freed that long after drm_sched hands them back, in the order
 * it did (its own, the order they ran), without holding up the scheduler's run_job the way a
 * sleep in free_job would. Only jobs of the engines' schedulers, which outlive every job: a
 * queue's scheduler goes at its file's close.
 */
void simgpu_free_work(struct work_struct *work)
{
	struct simgpu_device *sdev = container_of(to_delayed_work(work), struct simgpu_device,
						  free_work);
	struct simgpu_job *job;
	unsigned long flags, wait = 0;

	for (;;) {
		spin_lock_irqsave(&sdev->free_lock, flags);
		job = list_first_entry_or_null(&sdev->free_list, struct simgpu_job, free_node);
		if (job && time_before(jiffies, job->free_at)) {
			wait = job->free_at - jiffies;
			job = NULL;
		} else if (job) {
			list_del_init(&job->free_node);
		}
		spin_unlock_irqrestore(&sdev->free_lock, flags);
		if (!job)
			break;
		simgpu_job_free(job);
	}
	if (wait)
		queue_delayed_work(system_wq, &sdev->free_work, wait);
}

static void simgpu_sched_free_job(struct drm_sched_job *sched_job)
{
	struct simgpu_job *job = to_simgpu_job(sched_job);
	struct simgpu_device *sdev = job->client->sdev;
	unsigned int delay = READ_ONCE(simgpu_free_delay_ms);
	unsigned long flags;

	if (!delay || sched_job->sched != &sdev->engines[job->engine].sched) {
		simgpu_job_free(job);
		return;
	}
	job->free_at = jiffies + msecs_to_jiffies(delay);
	spin_lock_irqsave(&sdev->free_lock, flags);
	list_add_tail(&job->free_node, &sdev->free_list);
	spin_unlock_irqrestore(&sdev->free_lock, flags);
	queue_delayed_work(system_wq, &sdev->free_work, msecs_to_jiffies(delay));
}

static enum drm_gpu_sched_stat simgpu_sched_timedout_job(struct drm_sched_job *sched_job)
{
	/* Jobs cannot hang: a timeout (job_timeout_ms) was set shorter than a job's wait. */
	WARN_ONCE(1, "simgpu: job timed out although jobs cannot hang (job_timeout_ms %u)\n",
		  simgpu_job_timeout_ms);
	return SIMGPU_SCHED_STAT_HANDLED;
}

const struct drm_sched_backend_ops simgpu_sched_ops = {
	.run_job = simgpu_sched_run_job,
	.timedout_job = simgpu_sched_timedout_job,
	.free_job = simgpu_sched_free_job,
};

struct simgpu_job *simgpu_job_alloc(struct simgpu_client *client, enum simgpu_engine engine,
				    u64 duration_ns)
{
	struct simgpu_job *job = kzalloc(sizeof(*job), GFP_KERNEL);

	if (!job)
		return NULL;
	kref_get(&client->ref);
	atomic_inc(&client->sdev->jobs_alive);
	job->client = client;
	job->engine = engine;
	job->duration_ns = duration_ns;
	INIT_LIST_HEAD(&job->lane_node);
	return job;
}

/* For a job that never reached drm_sched_job_init(). */
void simgpu_job_free_unpushed(struct simgpu_job *job)
{
	simgpu_job_put_bos(job);
	atomic_dec(&job->client->sdev->jobs_alive);
	simgpu_client_put(job->client);
	kfree(job);
}

/*
 * Initialises, arms and pushes @job on @entity. On success the job belongs to drm_sched (it may
 * already be freed on return), *seqno is its seqno and *finished (if asked for) holds a
 * reference to its finished fence.
 *
 * User jobs do what implicit sync does on real drivers, with all their BOs' reservations locked:
 * they depend on the BOs' KERNEL and WRITE fences (pending clears; user jobs add none) and add
 * their finished fence as a READ fence, so BOs count as drm-active-memory while jobs use them
 * without serialising user jobs that share a BO. Kernel jobs come first on a fresh BO whose
 * reservation the caller holds.
 */
int simgpu_job_push(struct simgpu_job *job, struct drm_sched_entity *entity,
		    struct mutex *submit_lock, u64 *seqno, struct dma_fence **finished)
{
	struct simgpu_client *client = job->client;
	struct simgpu_hw_engine *eng = &client->sdev->engines[job->engine];
	bool sync = !client->kernel && job->nr_bos;
	struct ww_acquire_ctx ctx;
	unsigned long flags;
	u32 i;
	int ret;

	/* The driver's own jobs carry the id its personality reserves (0 for simgpu). */
	ret = simgpu_sched_job_init(&job->base, entity, client,
				    client->kernel ? simgpu_pers->kernel_job_id : client->id);
	if (ret) {
		simgpu_job_free_unpushed(job);
		return ret;
	}
	if (sync) {
		ret = drm_gem_lock_reservations(job->bos, job->nr_bos, &ctx);
		if (ret)
			goto err_cleanup;
		for (i = 0; i < job->nr_bos; i++) {
			struct drm_gem_object *obj = job->bos[i];

			ret = dma_resv_reserve_fences(obj->resv, 1);
			if (!ret)
				ret = drm_sched_job_add_implicit_dependencies(&job->base, obj,
									      false);
			if (ret) {
				drm_gem_unlock_reservations(job->bos, job->nr_bos, &ctx);
				goto err_cleanup;
			}
		}
	}

	mutex_lock(submit_lock);
	drm_sched_job_arm(&job->base);
	spin_lock_irqsave(&eng->lock, flags);
	job->seqno = ++client->eng[job->engine].submitted;
	*seqno = job->seqno;
	eng->total.submitted++;
	if (client->kernel)
		eng->total_submitted_kernel++;
	spin_unlock_irqrestore(&eng->lock, flags);
	if (finished)
		*finished = dma_fence_get(&job->base.s_fence->finished);
	if (sync) {
		/* Before the push: afterwards the job, and its BO array, may be gone. */
		for (i = 0; i < job->nr_bos; i++)
			dma_resv_add_fence(job->bos[i]->resv, &job->base.s_fence->finished,
					   DMA_RESV_USAGE_READ);
		drm_gem_unlock_reservations(job->bos, job->nr_bos, &ctx);
	}
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(submit_lock);
	return 0;

err_cleanup:
	drm_sched_job_cleanup(&job->base);
	simgpu_job_free_unpushed(job);
	return ret;
}

int simgpu_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_simgpu_submit *args = data;
	struct simgpu_file *sfile = file->driver_priv;
	struct simgpu_job *job;
	u32 i;
	int ret;

	if (args->engine >= SIMGPU_ENGINE_COUNT) {
		drm_dbg(drm, "submit: bad engine %u\n", args->engine);
		return -EINVAL;
	}
	if (args->nr_bos > SIMGPU_MAX_BOS_PER_JOB || args->duration_ns > SIMGPU_MAX_DURATION_NS) {
		drm_dbg(drm, "submit: nr_bos %u or duration %llu ns out of range\n",
			args->nr_bos, args->duration_ns);
		return -EINVAL;
	}
	if (args->nr_bos && !args->bo_handles)
		return -EFAULT;

	job = simgpu_job_alloc(sfile->client, args->engine, args->duration_ns);
	if (!job)
		return -ENOMEM;
	if (sfile->queue[args->engine].ready)
		job->queue = &sfile->queue[args->engine];
	if (args->nr_bos) {
		ret = drm_gem_objects_lookup(file, u64_to_user_ptr(args->bo_handles), args->nr_bos,
					     &job->bos);
		/* On failure the array holds references up to the bad handle, NULL after it. */
		if (job->bos)
			job->nr_bos = args->nr_bos;
		if (ret) {
			simgpu_job_free_unpushed(job);
			return ret;
		}
	}
	/* Reservations are locked all at once: a BO may appear only once. */
	for (i = 0; i < job->nr_bos; i++) {
		u32 j;

		for (j = 0; j < i; j++)
			if (job->bos[i] == job->bos[j]) {
				drm_dbg(drm, "submit: BO listed twice\n");
				simgpu_job_free_unpushed(job);
				return -EINVAL;
			}
	}
	/* The "GPU" touches the BOs: back them with pages, as drivers do at submit time. */
	for (i = 0; i < job->nr_bos; i++) {
		ret = simgpu_bo_make_resident(job->bos[i]);
		if (ret) {
			simgpu_job_free_unpushed(job);
			return ret;
		}
	}
	return simgpu_job_push(job, &sfile->entity[args->engine], &sfile->submit_lock[args->engine],
			       &args->seqno, NULL);
}

static bool simgpu_wait_done(struct simgpu_client *client, enum simgpu_engine e, u64 seqno)
{
	struct simgpu_hw_engine *eng = &client->sdev->engines[e];
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&eng->lock, flags);
	done = client->eng[e].done_seqno >= seqno;
	spin_unlock_irqrestore(&eng->lock, flags);
	return done;
}

int simgpu_ioctl_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_simgpu_wait *args = data;
	struct simgpu_client *client = ((struct simgpu_file *)file->driver_priv)->client;
	struct simgpu_hw_engine *eng;
	unsigned long flags;
	u64 submitted;
	long timeout;
	long ret;

	if (args->engine >= SIMGPU_ENGINE_COUNT || args->pad)
		return -EINVAL;
	eng = &client->sdev->engines[args->engine];
	spin_lock_irqsave(&eng->lock, flags);
	submitted = client->eng[args->engine].submitted;
	spin_unlock_irqrestore(&eng->lock, flags);
	if (args->seqno == 0 || args->seqno > submitted) {
		drm_dbg(drm, "wait: seqno %llu not submitted on %s (last %llu)\n", args->seqno,
			eng->name, submitted);
		return -EINVAL;
	}
	if (args->timeout_ns < 0)
		timeout = MAX_SCHEDULE_TIMEOUT;
	else
		timeout = nsecs_to_jiffies(args->timeout_ns);

	if (timeout == 0)
		return simgpu_wait_done(client, args->engine, args->seqno) ? 0 : -ETIME;
	ret = wait_event_interruptible_timeout(client->wq,
					       simgpu_wait_done(client, args->engine, args->seqno),
					       timeout);
	if (ret < 0)
		return ret;
	return ret == 0 ? -ETIME : 0;
}
