// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buffer objects: drm_gem_shmem objects with simgpu's own object funcs, so the driver counts, per
 * client, the handles it holds (GEM open/close callbacks) independently of the core's handle idr
 * that fdinfo walks. With clear_jobs=1 every new BO is cleared by a driver-internal job on the
 * copy engine (the "kernel" client); user jobs using the BO wait for it through its dma_resv.
 *
 * Checked on 6.1.0-56-amd64 and 6.12.117+deb12-amd64.
 */
#include <linux/dma-resv.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"

static int simgpu_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct simgpu_client *client = ((struct simgpu_file *)file->driver_priv)->client;

	atomic64_inc(&client->bo_count);
	atomic64_add(obj->size, &client->bo_bytes);
	return 0;
}

static void simgpu_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct simgpu_client *client = ((struct simgpu_file *)file->driver_priv)->client;

	atomic64_dec(&client->bo_count);
	atomic64_sub(obj->size, &client->bo_bytes);
}

static void simgpu_gem_free(struct drm_gem_object *obj)
{
	struct simgpu_device *sdev = to_simgpu(obj->dev);

	atomic64_dec(&sdev->bo_alive);
	atomic64_sub(obj->size, &sdev->bo_alive_bytes);
	drm_gem_shmem_object_free(obj);
}

#if SIMGPU_HAVE_DRM_SHOW_FDINFO
/* Lets drm_show_memory_stats() print drm-resident-memory, as panfrost does. */
static enum drm_gem_object_status simgpu_gem_status(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);

	return (shmem->pages || shmem->sgt) ? DRM_GEM_OBJECT_RESIDENT : 0;
}
#endif

static const struct drm_gem_object_funcs simgpu_gem_funcs = {
	.free = simgpu_gem_free,
	.open = simgpu_gem_open,
	.close = simgpu_gem_close,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
#if SIMGPU_HAVE_DRM_SHOW_FDINFO
	.status = simgpu_gem_status,
#endif
};

/* drm_driver.gem_create_object: every shmem object of this device, imports included. */
struct drm_gem_object *simgpu_gem_create_object(struct drm_device *drm, size_t size)
{
	struct simgpu_device *sdev = to_simgpu(drm);
	struct simgpu_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.base.funcs = &simgpu_gem_funcs;
	atomic64_inc(&sdev->bo_alive);
	atomic64_add(size, &sdev->bo_alive_bytes);
	return &bo->base.base;
}

/*
 * own_free=1: BO_CREATE makes objects with no backing store that end the way i915's do: the
 * free callback tears the object down itself (mmap offset, dma_resv_fini of its own _resv, then
 * the memory) and never calls drm_gem_object_release (nor drm_gem_private_object_fini): checked
 * in the undefined symbols of i915.ko of Debian 6.1.0-56, 6.12.117 and 7.2.13, which import
 * neither. Jobs may use them (they need no pages); they cannot be mmapped or exported.
 */
static void simgpu_own_free_object(struct drm_gem_object *obj)
{
	struct simgpu_device *sdev = to_simgpu(obj->dev);

	atomic64_dec(&sdev->bo_alive);
	atomic64_sub(obj->size, &sdev->bo_alive_bytes);
	drm_gem_free_mmap_offset(obj);
	dma_resv_fini(&obj->_resv);
	kfree(obj);
}

static const struct drm_gem_object_funcs simgpu_own_free_funcs = {
	.free = simgpu_own_free_object,
	.open = simgpu_gem_open,
	.close = simgpu_gem_close,
};

bool simgpu_bo_has_pages(struct drm_gem_object *obj)
{
	return obj->funcs != &simgpu_own_free_funcs;
}

static struct drm_gem_object *simgpu_own_free_create(struct drm_device *drm, size_t size)
{
	struct simgpu_device *sdev = to_simgpu(drm);
	struct drm_gem_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->funcs = &simgpu_own_free_funcs;
	drm_gem_private_object_init(drm, obj, size);
	atomic64_inc(&sdev->bo_alive);
	atomic64_add(size, &sdev->bo_alive_bytes);
	return obj;
}

/* Backs @obj with pages (idempotent; they stay until the object is freed). */
int simgpu_bo_make_resident(struct drm_gem_object *obj)
{
	struct sg_table *sgt;

	if (obj->import_attach || !simgpu_bo_has_pages(obj))	/* the exporter owns the pages */
		return 0;
	sgt = drm_gem_shmem_get_pages_sgt(to_drm_gem_shmem_obj(obj));
	return PTR_ERR_OR_ZERO(sgt);
}

/*
 * Queues the driver-internal clear of @obj: a job of the kernel client on the copy engine whose
 * finished fence becomes a KERNEL fence of the BO, so every user job using the BO waits for it.
 */
static int simgpu_bo_clear(struct simgpu_device *sdev, struct drm_gem_object *obj)
{
	u64 duration = div_u64((u64)obj->size * simgpu_clear_ns_per_mib + SZ_1M - 1, SZ_1M);
	struct dma_fence *finished;
	struct simgpu_job *job;
	u64 seqno;
	int ret;

	ret = simgpu_bo_make_resident(obj);
	if (ret)
		return ret;
	job = simgpu_job_alloc(sdev->kclient, SIMGPU_ENGINE_COPY, duration);
	if (!job)
		return -ENOMEM;
	job->bos = kvmalloc_array(1, sizeof(*job->bos), GFP_KERNEL);
	if (!job->bos) {
		simgpu_job_free_unpushed(job);
		return -ENOMEM;
	}
	drm_gem_object_get(obj);
	job->bos[0] = obj;
	job->nr_bos = 1;

	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret) {
		simgpu_job_free_unpushed(job);
		return ret;
	}
	ret = dma_resv_reserve_fences(obj->resv, 1);
	if (ret) {
		dma_resv_unlock(obj->resv);
		simgpu_job_free_unpushed(job);
		return ret;
	}
	ret = simgpu_job_push(job, &sdev->kentity, &sdev->ksubmit_lock, &seqno, &finished);
	if (!ret) {
		dma_resv_add_fence(obj->resv, finished, DMA_RESV_USAGE_KERNEL);
		dma_fence_put(finished);
	}
	dma_resv_unlock(obj->resv);
	return ret;
}

int simgpu_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu(drm);
	struct drm_simgpu_bo_create *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "bo_create: flags %#x\n", args->flags);
		return -EINVAL;
	}
	if (!args->size || args->size > (u64)simgpu_max_bo_mib * SZ_1M) {
		drm_dbg(drm, "bo_create: size %llu outside 1..%u MiB\n", args->size,
			simgpu_max_bo_mib);
		return -EINVAL;
	}
	if (READ_ONCE(simgpu_own_free)) {
		obj = simgpu_own_free_create(drm, PAGE_ALIGN(args->size));
	} else {
		struct drm_gem_shmem_object *shmem = drm_gem_shmem_create(drm, args->size);

		obj = IS_ERR(shmem) ? ERR_CAST(shmem) : &shmem->base;
	}
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (READ_ONCE(simgpu_clear_jobs)) {
		ret = simgpu_bo_clear(sdev, obj);
		if (ret) {
			drm_gem_object_put(obj);
			return ret;
		}
	}
	ret = drm_gem_handle_create(file, obj, &args->handle);
	drm_gem_object_put(obj);	/* the handle holds it now */
	return ret;
}
