// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu: the simulated GPU of drmtop's tests. A render node on a platform device whose engines
 * (gfx, compute, copy) are real drm_gpu_schedulers; jobs "execute" on hrtimers. See README.md.
 *
 * Built and run (under QEMU TCG) on Debian 12 kernels 6.1.0-56-amd64 and 6.12.117+deb12-amd64;
 * the personalities (and the platform driver they bind) also on Debian's 7.2.13+deb14-amd64
 * (VM case 80 on all three).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/version.h>
#if SIMGPU_HAVE_ACCEL
#include <drm/drm_accel.h>
#endif
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"

const char *const simgpu_engine_names[SIMGPU_ENGINE_COUNT] = SIMGPU_ENGINE_NAMES;

unsigned int simgpu_queue_depth[SIMGPU_ENGINE_COUNT] = { 2, 1, 1 };
module_param_array_named(queue_depth, simgpu_queue_depth, uint, NULL, 0444);
MODULE_PARM_DESC(queue_depth,
		 "jobs drm_sched keeps on each engine's hardware ring: gfx,compute,copy (1..64, default 2,1,1)");

unsigned int simgpu_engine_capacity[SIMGPU_ENGINE_COUNT] = { 1, 1, 1 };
module_param_array_named(engine_capacity, simgpu_engine_capacity, uint, NULL, 0444);
MODULE_PARM_DESC(engine_capacity,
		 "parallel execution units per engine: gfx,compute,copy (1..8, default 1,1,1); fdinfo prints drm-engine-capacity-<e> where > 1");

unsigned int simgpu_fdinfo_scale_pct = 100;
module_param_named(fdinfo_scale_pct, simgpu_fdinfo_scale_pct, uint, 0644);
MODULE_PARM_DESC(fdinfo_scale_pct,
		 "fdinfo reports engine ns times this / 100 (default 100); debugfs stays exact");

bool simgpu_clear_jobs;
module_param_named(clear_jobs, simgpu_clear_jobs, bool, 0644);
MODULE_PARM_DESC(clear_jobs, "clear each new BO with a driver-internal copy-engine job (default 0)");

bool simgpu_own_free;
module_param_named(own_free, simgpu_own_free, bool, 0644);
MODULE_PARM_DESC(own_free,
		 "BO_CREATE makes objects freed as i915 frees its own, without drm_gem_object_release (default 0)");

unsigned int simgpu_clear_ns_per_mib = 100000;
module_param_named(clear_ns_per_mib, simgpu_clear_ns_per_mib, uint, 0644);
MODULE_PARM_DESC(clear_ns_per_mib,
		 "clear job duration per MiB of BO, rounded up to whole ns (default 100000)");

unsigned int simgpu_max_bo_mib = 256;
module_param_named(max_bo_mib, simgpu_max_bo_mib, uint, 0644);
MODULE_PARM_DESC(max_bo_mib, "largest BO_CREATE size in MiB (default 256)");

unsigned int simgpu_job_timeout_ms;
module_param_named(job_timeout_ms, simgpu_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "drm_sched job timeout of every scheduler, for drmtop's aging of jobs it lost; jobs never hang, so it must outlast any job's wait on its ring (default 0: none, MAX_SCHEDULE_TIMEOUT)");

unsigned int simgpu_free_delay_ms;
module_param_named(free_delay_ms, simgpu_free_delay_ms, uint, 0644);
MODULE_PARM_DESC(free_delay_ms,
		 "the engines' jobs are freed (drm_sched_job_cleanup) this long after drm_sched hands them back, in that order, as by a free worker running late: later jobs end before a job is freed (default 0)");

unsigned int simgpu_profiling;
module_param_named(profiling, simgpu_profiling, uint, 0644);
MODULE_PARM_DESC(profiling,
		 "panthor personality on 7.x: fdinfo's drm-cycles- (1), drm-engine- (2) or both (3), as panthor's sysfs profiling (default 0)");

unsigned int simgpu_keep_closed = 1024;
module_param_named(keep_closed, simgpu_keep_closed, uint, 0644);
MODULE_PARM_DESC(keep_closed, "closed clients debugfs keeps, oldest dropped first (default 1024)");

/*
 * Personalities: simgpu named and numbered as a real driver names and numbers its rings,
 * fdinfo engines and kernel jobs, so drmtop's driver table (src/model/drivers.c) is exercised on
 * a real kernel. Each fact was read in that driver's sources of 6.1, 6.12 and 7.2 (torvalds/linux,
 * Debian's linux-source of the same versions); the engines are mapped by what they do.
 * Where the driver changed between 6.12 and 7.x, simgpu acts the one of the kernel it runs on.
 */
#define SIMGPU_KERNEL_7 (LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0))

static const struct simgpu_personality simgpu_personalities[] = {
	{
		.name = "simgpu",
		.driver_name = SIMGPU_DRIVER_NAME,
		.ring_names = SIMGPU_ENGINE_NAMES,
		.fdinfo_names = SIMGPU_ENGINE_NAMES,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
	},
	/*
	 * v3d (v3d_sched.c v3d_sched_init, v3d_queue_sched_init in 6.12+): one scheduler per queue,
	 * "v3d_bin", "v3d_render", "v3d_tfu", "v3d_csd", "v3d_cache_clean" (+ "v3d_cpu" 6.12+), each
	 * with hw_jobs_limit 1. fdinfo (6.12+, v3d_drv.c v3d_show_fdinfo) prints
	 * drm-engine-<v3d_queue_to_string()>: bin, render, tfu, csd, cache_clean, cpu. gfx is the
	 * render queue, compute the compute shader dispatch (csd), copy the texture formatting unit
	 * (tfu). 6.1's v3d has no fdinfo: simgpu still prints it there (drmtop's cross-check needs
	 * a figure). v3d has no jobs of its own; clear_jobs keeps id 0.
	 */
	{
		.name = "v3d",
		.driver_name = "v3d",
		.ring_names = { "v3d_render", "v3d_csd", "v3d_tfu" },
		.fdinfo_names = { "render", "csd", "tfu" },
		.credit_limit = 1,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
	},
	/*
	 * amdgpu: drm_sched_init(.name = ring->name) per ring (amdgpu_device.c); gfx_v10+ names the
	 * first gfx ring "gfx_%d.%d.%d" (me.pipe.queue: "gfx_0.0.0"), every gfx_v* the first compute
	 * ring "comp_%d.%d.%d" with me = mec + 1 ("comp_1.0.0"), sdma_v* "sdma%d" ("sdma0").
	 * fdinfo (amdgpu_fdinfo.c amdgpu_ip_name[]) prints drm-engine-gfx, -compute, -dma, and only
	 * for IPs whose usage is not 0 (amdgpu_show_fdinfo: "if (!usage[hw_ip]) continue"). The
	 * driver's buffer clears (amdgpu_object.c amdgpu_bo_create, VRAM_CLEARED) run on an SDMA
	 * ring with AMDGPU_KERNEL_JOB_ID_TTM_CLEAR_BUFFER (amdgpu_job.h, 6.12.117 and 7.2:
	 * 2^64 - 10) as drm_client_id, where drm_sched_job_init() takes one.
	 */
	{
		.name = "amdgpu",
		.driver_name = "amdgpu",
		.ring_names = { "gfx_0.0.0", "comp_1.0.0", "sdma0" },
		.fdinfo_names = { "gfx", "compute", "dma" },
		.fdinfo_skip_unused = true,
		.kernel_job_id = 18446744073709551606ULL,
		.bind_driver = true,
	},
	/*
	 * fw: a firmware-scheduled GPU, named as xe names its own. One scheduler per exec queue
	 * (simgpu_queue.c), "rcs<GuC id>", "ccs<GuC id>", "bcs<GuC id>" (xe_exec_queue.c
	 * xe_exec_queue_assign_name, 6.12 and 7.2); gfx is the render class, compute the compute
	 * class, copy the blitter. fdinfo (xe_drm_client.c, 6.12+) prints only drm-cycles-<class>
	 * and drm-total-cycles-<class> for rcs, bcs, vcs, vecs and ccs, never drm-engine-. xe's
	 * kernel queues (migration on bcs) carry client id 0. 6.1 has no xe: simgpu acts it there
	 * all the same (the shape of the driver is what drmtop's table is tested against).
	 */
	{
		.name = "fw",
		.driver_name = "xe",
		.ring_names = { "rcs0", "ccs0", "bcs0" },
		.queue_names = { "rcs", "ccs", "bcs" },
		.fdinfo_names = { "rcs", "ccs", "bcs" },
		.fdinfo_cycles = true,
		.kernel_job_id = 0,
		.bind_driver = true,
	},
	/*
	 * The drivers that print no engine time: there the tracer's figure is the only one.
	 * lima (lima_device.c lima_init_gp_pipe/lima_init_pp_pipe, lima_sched_pipe_init): two
	 * schedulers, "gp" (geometry) and "pp" (pixel), credit limit 1; no show_fdinfo (6.1, 6.12,
	 * 7.2). gfx is pp, compute gp. lima has no third pipe: simgpu's copy engine gets a name no
	 * lima ring has, and case 80 runs no job there.
	 */
	{
		.name = "lima",
		.driver_name = "lima",
		.ring_names = { "pp", "gp", "simgpu-copy" },
		.fdinfo_names = SIMGPU_ENGINE_NAMES,
		.credit_limit = 1,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
		.fdinfo = SIMGPU_FDINFO_NONE,
	},
	/*
	 * etnaviv (etnaviv_sched.c etnaviv_sched_init): one scheduler per GPU core, named after the
	 * core's platform device, as on i.MX6Q: the 3D core "130000.gpu" (gfx), the 2D core
	 * "134000.gpu" (copy), the VG core "2204000.gpu" (compute). fdinfo: none in 6.1 and 6.12,
	 * memory keys only in 7.x (etnaviv_drv.c).
	 */
	{
		.name = "etnaviv",
		.driver_name = "etnaviv",
		.ring_names = { "130000.gpu", "2204000.gpu", "134000.gpu" },
		.fdinfo_names = SIMGPU_ENGINE_NAMES,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
		.fdinfo = SIMGPU_KERNEL_7 ? SIMGPU_FDINFO_MEMORY : SIMGPU_FDINFO_NONE,
	},
	/*
	 * nouveau (6.12+; nouveau_sched.c nouveau_sched_init): every scheduler is "nouveau_sched",
	 * one per channel (made with it, run by the GPU's own scheduler) and one per client for
	 * VM_BIND (made at open; no job of simgpu's runs there). No show_fdinfo. 6.1's nouveau has
	 * no drm_sched: simgpu acts the 6.12 one there.
	 */
	{
		.name = "nouveau",
		.driver_name = "nouveau",
		.ring_names = { "nouveau_sched", "nouveau_sched", "nouveau_sched" },
		.queue_names = { "nouveau_sched", "nouveau_sched", "nouveau_sched" },
		.queue_naming = SIMGPU_QUEUE_NAME_PLAIN,
		.bind_name = "nouveau_sched",
		.fdinfo_names = SIMGPU_ENGINE_NAMES,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
		.fdinfo = SIMGPU_FDINFO_NONE,
	},
	/*
	 * powervr (6.12+; pvr_queue.c pvr_queue_create): every queue of a context is "pvr-queue",
	 * made by the context-create ioctl, run by the firmware; drm-driver "powervr"
	 * (PVR_DRIVER_NAME). No show_fdinfo.
	 */
	{
		.name = "powervr",
		.driver_name = "powervr",
		.ring_names = { "pvr-queue", "pvr-queue", "pvr-queue" },
		.queue_names = { "pvr-queue", "pvr-queue", "pvr-queue" },
		.queue_naming = SIMGPU_QUEUE_NAME_PLAIN,
		.fdinfo_names = SIMGPU_ENGINE_NAMES,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
		.fdinfo = SIMGPU_FDINFO_NONE,
	},
	/*
	 * panthor (6.12+; panthor_sched.c group_create_queue, panthor_mmu.c): a scheduler per CSF
	 * queue, "panthor-queue" (6.12) or "panthor-queue-<client id>-<group>-<queue>" (7.x), and
	 * one per VM, "panthor-vm-bind". fdinfo: none in 6.12; in 7.x the frequencies, and the
	 * queues' time and cycles together while profiling is on (profiling=).
	 */
	{
		.name = "panthor",
		.driver_name = "panthor",
		.ring_names = { "panthor-vm-bind", "panthor-vm-bind", "panthor-vm-bind" },
		.queue_names = { "panthor-queue", "panthor-queue", "panthor-queue" },
		.queue_naming = SIMGPU_KERNEL_7 ? SIMGPU_QUEUE_NAME_CLIENT
						: SIMGPU_QUEUE_NAME_PLAIN,
		.bind_name = "panthor-vm-bind",
		.fdinfo_names = { "panthor", "panthor", "panthor" },
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
		.fdinfo = SIMGPU_KERNEL_7 ? SIMGPU_FDINFO_PROFILED : SIMGPU_FDINFO_NONE,
	},
	/*
	 * rocket (7.x; rocket_drv.c, rocket_job.c rocket_job_init): a compute accelerator (accel
	 * node only), one scheduler per NPU core named after the core's device, as on the RK3588's
	 * three: "fdab0000.npu", "fdac0000.npu", "fdad0000.npu", credit limit 1; no show_fdinfo.
	 * On 6.1, which has no accel, a render node.
	 */
	{
		.name = "rocket",
		.driver_name = "rocket",
		.ring_names = { "fdab0000.npu", "fdac0000.npu", "fdad0000.npu" },
		.fdinfo_names = SIMGPU_ENGINE_NAMES,
		.credit_limit = 1,
		.kernel_job_id = SIMGPU_KERNEL_CLIENT_ID,
		.bind_driver = true,
		.fdinfo = SIMGPU_FDINFO_NONE,
		.accel = true,
	},
};

const struct simgpu_personality *simgpu_pers = &simgpu_personalities[0];

static char simgpu_personality_name[16] = "simgpu";
module_param_string(personality, simgpu_personality_name, sizeof(simgpu_personality_name), 0444);
MODULE_PARM_DESC(personality,
		 "look like another driver to fdinfo, DRM_IOCTL_VERSION and the scheduler: simgpu (default), v3d, amdgpu, fw (xe), lima, etnaviv, nouveau, powervr, panthor, rocket (accel)");

/*
 * Several GPUs in one machine (drmtop keeps each device's clients, kernel client included,
 * apart): devices=N makes N identical devices, the first as "simgpu" (debugfs simgpu/), the
 * others as "simgpu.<i>" (debugfs simgpu<i>/).
 */
#define SIMGPU_MAX_DEVICES 4
static unsigned int simgpu_nr_devices = 1;
module_param_named(devices, simgpu_nr_devices, uint, 0444);
MODULE_PARM_DESC(devices, "simulated GPUs to create (1..4, default 1)");

static struct simgpu_device *simgpu_devs[SIMGPU_MAX_DEVICES];

static const struct drm_ioctl_desc simgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(SIMGPU_BO_CREATE, simgpu_ioctl_bo_create, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_SUBMIT, simgpu_ioctl_submit, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_WAIT, simgpu_ioctl_wait, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_CLIENT_ID, simgpu_ioctl_client_id, DRM_RENDER_ALLOW),
};

/*
 * From here on the core tears the file down (drm_gem_release() walks and destroys the handle
 * idr without its lock): debugfs must stop walking this client's handles first.
 */
static int simgpu_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;
	struct simgpu_device *sdev = to_simgpu(file->minor->dev);
	struct simgpu_file *sfile = file->driver_priv;

	mutex_lock(&sdev->clients_lock);
	sfile->client->file = NULL;
	mutex_unlock(&sdev->clients_lock);
	return drm_release(inode, filp);
}

/* DRM_GEM_FOPS with our release. Not const: a driver without fdinfo has no show_fdinfo. */
static struct file_operations simgpu_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = simgpu_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
#ifdef FOP_UNSIGNED_OFFSET
	.fop_flags = FOP_UNSIGNED_OFFSET,
#endif
#if SIMGPU_HAVE_DRM_SHOW_FDINFO
	.show_fdinfo = drm_show_fdinfo,
#else
	.show_fdinfo = simgpu_show_fdinfo,
#endif
};

/* Not const: personality= sets .name (and an accelerator's features) before the device is made. */
static struct drm_driver simgpu_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER,
	.open = simgpu_open,
	.postclose = simgpu_postclose,
	.gem_create_object = simgpu_gem_create_object,
	DRM_GEM_SHMEM_DRIVER_OPS,
#if SIMGPU_HAVE_DRM_SHOW_FDINFO
	.show_fdinfo = simgpu_show_fdinfo,
#endif
	.ioctls = simgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(simgpu_ioctls),
	.fops = &simgpu_fops,
	.name = SIMGPU_DRIVER_NAME,
	.desc = "drmtop simulated GPU",
#if SIMGPU_DRM_DRIVER_DATE
	.date = "20260101",
#endif
	.major = 1,
	.minor = 0,
};

static int simgpu_pick_personality(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(simgpu_personalities); i++) {
		if (!strcmp(simgpu_personality_name, simgpu_personalities[i].name)) {
			simgpu_pers = &simgpu_personalities[i];
			/* char * in 6.1 and 6.12; never written through */
			simgpu_driver.name = (char *)simgpu_pers->driver_name;
			if (simgpu_pers->fdinfo == SIMGPU_FDINFO_NONE)
				simgpu_fops.show_fdinfo = NULL;
			/* accel_open is built only with DRM_ACCEL (unset on Debian's arm64 6.12) */
#if SIMGPU_HAVE_ACCEL && IS_ENABLED(CONFIG_DRM_ACCEL)
			if (simgpu_pers->accel) {
				simgpu_driver.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL;
				simgpu_fops.open = accel_open;
			}
#endif
			return 0;
		}
	}
	pr_err("simgpu: unknown personality '%s'\n", simgpu_personality_name);
	return -EINVAL;
}

static int simgpu_check_params(void)
{
	enum simgpu_engine e;
	int ret;

	ret = simgpu_pick_personality();
	if (ret)
		return ret;
	if (simgpu_nr_devices < 1 || simgpu_nr_devices > SIMGPU_MAX_DEVICES) {
		pr_err("simgpu: devices must be 1..%d, not %u\n", SIMGPU_MAX_DEVICES,
		       simgpu_nr_devices);
		return -EINVAL;
	}
	/* The driver's ring depth; queue_depth (and its sysfs copy) then says what simgpu uses. */
	if (simgpu_pers->credit_limit)
		for (e = 0; e < SIMGPU_ENGINE_COUNT; e++)
			simgpu_queue_depth[e] = simgpu_pers->credit_limit;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		unsigned int depth = simgpu_queue_depth[e], cap = simgpu_engine_capacity[e];

		if (depth < 1 || depth > SIMGPU_MAX_QUEUE_DEPTH) {
			pr_err("simgpu: queue_depth of %s must be 1..%d, not %u\n",
			       simgpu_engine_names[e], SIMGPU_MAX_QUEUE_DEPTH, depth);
			return -EINVAL;
		}
		if (cap < 1 || cap > SIMGPU_MAX_CAPACITY) {
			pr_err("simgpu: engine_capacity of %s must be 1..%d, not %u\n",
			       simgpu_engine_names[e], SIMGPU_MAX_CAPACITY,
			       cap);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Tools read the driver of a DRM device from sysfs too (device/driver: drmtop probe). simgpu's
 * platform device has no driver unless a personality binds one named as the real driver; it
 * does nothing, the module manages the device. It binds before the device holds any devres
 * (the driver core refuses a device with resources) and unbinds after they are released
 * (unbinding releases them all).
 */
static int simgpu_pdrv_probe(struct platform_device *pdev)
{
	return 0;
}

static const struct platform_device_id simgpu_pdrv_ids[] = {
	{ .name = SIMGPU_DRIVER_NAME },
	{ }
};

static struct platform_driver simgpu_pdrv = {
	.probe = simgpu_pdrv_probe,
	.id_table = simgpu_pdrv_ids,
};

static bool simgpu_pdrv_registered;

static void simgpu_pdrv_unregister(void)
{
	if (simgpu_pdrv_registered)
		platform_driver_unregister(&simgpu_pdrv);
	simgpu_pdrv_registered = false;
}

/* Every job must be freed before its scheduler goes: wait out the longest possible queue. */
static void simgpu_wait_jobs_freed(struct simgpu_device *sdev)
{
	unsigned int waited_ms = 0;

	while (atomic_read(&sdev->jobs_alive) > 0) {
		if (waited_ms % 10000 == 0 && waited_ms)
			pr_info("simgpu: unload waits for %d jobs\n", atomic_read(&sdev->jobs_alive));
		msleep(20);
		waited_ms += 20;
	}
}

static void simgpu_kernel_fini(struct simgpu_device *sdev)
{
	struct simgpu_client *client, *tmp;

	if (sdev->kentity_ready)
		drm_sched_entity_destroy(&sdev->kentity);
	sdev->kentity_ready = false;
	simgpu_wait_jobs_freed(sdev);
	/* the free worker may still be past its last job's free */
	cancel_delayed_work_sync(&sdev->free_work);
	simgpu_engines_fini(sdev);
	list_for_each_entry_safe(client, tmp, &sdev->closed_clients, node) {
		list_del_init(&client->node);
		simgpu_client_put(client);
	}
	if (sdev->kclient)
		simgpu_client_put(sdev->kclient);
	sdev->kclient = NULL;
}

static int simgpu_kernel_init(struct simgpu_device *sdev)
{
	int ret;

	mutex_init(&sdev->clients_lock);
	mutex_init(&sdev->ksubmit_lock);
	INIT_LIST_HEAD(&sdev->clients);
	INIT_LIST_HEAD(&sdev->closed_clients);
	atomic64_set(&sdev->next_client_id, 0);
	atomic_set(&sdev->jobs_alive, 0);
	spin_lock_init(&sdev->free_lock);
	INIT_LIST_HEAD(&sdev->free_list);
	INIT_DELAYED_WORK(&sdev->free_work, simgpu_free_work);
	atomic64_set(&sdev->bo_alive, 0);
	atomic64_set(&sdev->bo_alive_bytes, 0);

	ret = simgpu_engines_init(sdev);
	if (ret)
		return ret;
	sdev->kclient = simgpu_client_create(sdev, NULL);
	if (!sdev->kclient) {
		ret = -ENOMEM;
		goto err;
	}
	ret = drm_sched_entity_init(&sdev->kentity, DRM_SCHED_PRIORITY_KERNEL,
				    sdev->engines[SIMGPU_ENGINE_COPY].sched_list, 1, NULL);
	if (ret)
		goto err;
	sdev->kentity_ready = true;
	return 0;
err:
	simgpu_kernel_fini(sdev);
	return ret;
}

static void simgpu_device_destroy(struct simgpu_device *sdev)
{
	struct platform_device *pdev = sdev->pdev;

	simgpu_debugfs_fini(sdev);
	drm_dev_unregister(&sdev->drm);
	simgpu_kernel_fini(sdev);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

/* The platform driver of a personality binds each device as it is registered. */
static struct simgpu_device *simgpu_device_create(unsigned int index)
{
	struct platform_device *pdev;
	struct simgpu_device *sdev;
	int ret;

	pdev = platform_device_register_simple(SIMGPU_DRIVER_NAME, index ? (int)index : -1,
					       NULL, 0);
	if (IS_ERR(pdev))
		return ERR_CAST(pdev);
	if (simgpu_pdrv_registered && !pdev->dev.driver)
		pr_warn("simgpu: platform driver %s did not bind\n", simgpu_pers->driver_name);
	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}
	/* The shmem helper DMA-maps BO pages for the "GPU" (drm_gem_shmem_get_pages_sgt). */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_devres;
	sdev = devm_drm_dev_alloc(&pdev->dev, &simgpu_driver, struct simgpu_device, drm);
	if (IS_ERR(sdev)) {
		ret = PTR_ERR(sdev);
		goto err_devres;
	}
	sdev->pdev = pdev;
	sdev->index = index;
	ret = simgpu_kernel_init(sdev);
	if (ret)
		goto err_devres;
	ret = drm_dev_register(&sdev->drm, 0);
	if (ret)
		goto err_kernel;
	simgpu_debugfs_init(sdev);
	drm_info(&sdev->drm,
		 "simgpu: device %u, personality %s, render minor %d, queue depth %u/%u/%u, capacity %u/%u/%u\n",
		 index, simgpu_pers->name, sdev->drm.render ? sdev->drm.render->index : -1,
		 simgpu_queue_depth[0], simgpu_queue_depth[1], simgpu_queue_depth[2],
		 simgpu_engine_capacity[0], simgpu_engine_capacity[1], simgpu_engine_capacity[2]);
	return sdev;

err_kernel:
	simgpu_kernel_fini(sdev);
err_devres:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ERR_PTR(ret);
}

static void simgpu_destroy_all(void)
{
	unsigned int i = SIMGPU_MAX_DEVICES;

	while (i--) {
		if (simgpu_devs[i])
			simgpu_device_destroy(simgpu_devs[i]);
		simgpu_devs[i] = NULL;
	}
	simgpu_pdrv_unregister();
}

static int __init simgpu_init(void)
{
	struct simgpu_device *sdev;
	unsigned int i;
	int ret;

	ret = simgpu_check_params();
	if (ret)
		return ret;
	if (simgpu_pers->bind_driver) {
		simgpu_pdrv.driver.name = simgpu_pers->driver_name;
		ret = platform_driver_register(&simgpu_pdrv);
		if (ret)
			return ret;
		simgpu_pdrv_registered = true;
	}
	for (i = 0; i < simgpu_nr_devices; i++) {
		sdev = simgpu_device_create(i);
		if (IS_ERR(sdev)) {
			simgpu_destroy_all();
			return PTR_ERR(sdev);
		}
		simgpu_devs[i] = sdev;
	}
	return 0;
}

static void __exit simgpu_exit(void)
{
	simgpu_destroy_all();
}

module_init(simgpu_init);
module_exit(simgpu_exit);

MODULE_DESCRIPTION("drmtop test rig: simulated GPU on drm_sched");
MODULE_AUTHOR("drmtop developers");
MODULE_LICENSE("GPL");
#if SIMGPU_IMPORT_NS_STRING
MODULE_IMPORT_NS("DMA_BUF");
#else
MODULE_IMPORT_NS(DMA_BUF);
#endif
