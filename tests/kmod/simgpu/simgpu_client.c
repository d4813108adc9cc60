// SPDX-License-Identifier: GPL-2.0-only
/*
 * Clients: one per drm_file (with one drm_sched entity per engine) plus the driver's kernel
 * client. A client's figures outlive its file: on close it moves to the closed list that debugfs
 * prints, so tests can check clients that lived shorter than a sampling interval.
 *
 * Checked on 6.1.0-56-amd64 and 6.12.117+deb12-amd64.
 */
#include <linux/dma-resv.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "simgpu_drv.h"

struct simgpu_client *simgpu_client_create(struct simgpu_device *sdev, struct drm_file *file)
{
	struct simgpu_client *client = kzalloc(sizeof(*client), GFP_KERNEL);

	if (!client)
		return NULL;
	kref_init(&client->ref);
	client->sdev = sdev;
	client->kernel = !file;
	client->file = file;
	if (file) {
		client->id = simgpu_file_client_id(file, &sdev->next_client_id);
		client->pid = task_pid_nr(current);
		client->tgid = task_tgid_nr(current);
		get_task_comm(client->comm, current);
	} else {
		client->id = SIMGPU_KERNEL_CLIENT_ID;
		strscpy(client->comm, "kernel", sizeof(client->comm));
	}
	atomic64_set(&client->bo_count, 0);
	atomic64_set(&client->bo_bytes, 0);
	init_waitqueue_head(&client->wq);
	INIT_LIST_HEAD(&client->node);
	if (file) {
		mutex_lock(&sdev->clients_lock);
		list_add_tail(&client->node, &sdev->clients);
		mutex_unlock(&sdev->clients_lock);
	}
	return client;
}

/* May run in the completion hrtimer: a client is off every list before its last put. */
static void simgpu_client_release(struct kref *ref)
{
	kfree(container_of(ref, struct simgpu_client, ref));
}

void simgpu_client_put(struct simgpu_client *client)
{
	kref_put(&client->ref, simgpu_client_release);
}

/* Moves @client to the closed list, which takes over the file's reference. */
void simgpu_client_close(struct simgpu_client *client)
{
	struct simgpu_device *sdev = client->sdev;
	struct simgpu_client *old;

	mutex_lock(&sdev->clients_lock);
	client->closed = true;
	client->file = NULL;	/* simgpu_release() did so already; open failures did not */
	list_move_tail(&client->node, &sdev->closed_clients);
	sdev->nr_closed++;
	while (sdev->nr_closed > simgpu_keep_closed) {
		old = list_first_entry(&sdev->closed_clients, struct simgpu_client, node);
		list_del_init(&old->node);
		sdev->nr_closed--;
		sdev->closed_dropped++;
		simgpu_client_put(old);
	}
	mutex_unlock(&sdev->clients_lock);
}

int simgpu_open(struct drm_device *drm, struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu(drm);
	struct simgpu_file *sfile;
	enum simgpu_engine e;
	int ret;

	sfile = kzalloc(sizeof(*sfile), GFP_KERNEL);
	if (!sfile)
		return -ENOMEM;
	if (simgpu_pers->queue_names[0]) {
		ret = simgpu_queues_init(sdev, sfile, file);
		if (ret) {
			kfree(sfile);
			return ret;
		}
	}
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct drm_gpu_scheduler **list = sfile->queue[e].ready ?
			sfile->queue[e].sched_list : sdev->engines[e].sched_list;

		mutex_init(&sfile->submit_lock[e]);
		ret = drm_sched_entity_init(&sfile->entity[e], DRM_SCHED_PRIORITY_NORMAL, list, 1,
					    NULL);
		if (ret)
			goto err_entities;
	}
	sfile->client = simgpu_client_create(sdev, file);
	if (!sfile->client) {
		ret = -ENOMEM;
		goto err_entities;
	}
	file->driver_priv = sfile;
	return 0;

err_entities:
	while (e-- > 0)
		drm_sched_entity_destroy(&sfile->entity[e]);
	simgpu_queues_fini(sdev, sfile);
	kfree(sfile);
	return ret;
}

void simgpu_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct simgpu_file *sfile = file->driver_priv;
	enum simgpu_engine e;

	/*
	 * Waits until drm_sched has handed the entities' queued jobs to the hardware (or kills
	 * them if the process is exiting); jobs on the lanes finish later and still count.
	 */
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		drm_sched_entity_destroy(&sfile->entity[e]);
		mutex_destroy(&sfile->submit_lock[e]);
	}
	simgpu_queues_fini(to_simgpu(drm), sfile);
	simgpu_client_close(sfile->client);
	kfree(sfile);
	file->driver_priv = NULL;
}

/* The rule of the DRM usage-stats spec and drm_show_memory_stats() (6.5+). */
static bool simgpu_bo_is_shared(struct drm_gem_object *obj)
{
	return obj->handle_count > 1 || obj->dma_buf;
}

static bool simgpu_bo_is_resident(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);

	return simgpu_bo_has_pages(obj) && (shmem->pages || shmem->sgt);
}

/* Memory of the objects @file holds a handle to, counted per handle as fdinfo does. */
void simgpu_client_mem_stats(struct drm_file *file, struct simgpu_mem_stats *st)
{
	struct drm_gem_object *obj;
	int id;

	memset(st, 0, sizeof(*st));
	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		if (!obj)
			continue;
		st->total += obj->size;
		if (simgpu_bo_is_shared(obj))
			st->shared += obj->size;
		if (simgpu_bo_is_resident(obj))
			st->resident += obj->size;
		if (!dma_resv_test_signaled(obj->resv, dma_resv_usage_rw(true)))
			st->active += obj->size;
	}
	spin_unlock(&file->table_lock);
}

void simgpu_client_engine_snapshot(struct simgpu_client *client, enum simgpu_engine e,
				   ktime_t now, struct simgpu_engine_stats *out)
{
	struct simgpu_hw_engine *eng = &client->sdev->engines[e];
	unsigned long flags;

	spin_lock_irqsave(&eng->lock, flags);
	*out = client->eng[e];
	out->busy_ns = simgpu_engine_busy_locked(eng, client, now);
	spin_unlock_irqrestore(&eng->lock, flags);
}

int simgpu_ioctl_client_id(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_simgpu_client_id *args = data;

	args->client_id = ((struct simgpu_file *)file->driver_priv)->client->id;
	return 0;
}
