// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdinfo (Documentation/gpu/drm-usage-stats.rst). From the kernel's own figures, scaled by
 * fdinfo_scale_pct so tests can make the driver lie and prove drmtop's cross-check notices;
 * debugfs always shows the true figures.
 *
 * 6.12.117: drm_show_fdinfo() prints drm-driver and drm-client-id (drm_file.client_id) and calls
 * drm_driver.show_fdinfo, which prints the engines and drm_show_memory_stats(), as v3d and
 * panfrost do. 6.1.192 has neither helper nor drm_file.client_id: the driver prints everything
 * itself with its own client ids, like amdgpu, i915 and msm there.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"

static void simgpu_print_engines(struct drm_printer *p, struct simgpu_client *client)
{
	unsigned int pct = READ_ONCE(simgpu_fdinfo_scale_pct);
	ktime_t now = ktime_get();
	enum simgpu_engine e;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		const char *name = simgpu_pers->fdinfo_names[e];
		struct simgpu_engine_stats st;
		u64 busy;

		simgpu_client_engine_snapshot(client, e, now, &st);
		if (simgpu_pers->fdinfo_skip_unused && !st.busy_ns)
			continue;
		busy = mul_u64_u32_div(st.busy_ns, pct, 100);
		if (simgpu_pers->fdinfo_cycles) {
			/*
			 * xe (xe_drm_client.c show_run_ticks): GPU timestamp ticks the client's
			 * queues executed, and the GPU timestamp now, per engine class. The
			 * ticks are 19.2 MHz ones (12 per 625 ns), as on many Intel GPUs.
			 */
			drm_printf(p, "drm-cycles-%s:\t%llu\n", name,
				   mul_u64_u32_div(busy, 12, 625));
			drm_printf(p, "drm-total-cycles-%s:\t%llu\n", name,
				   mul_u64_u32_div(ktime_to_ns(now), 12, 625));
		} else {
			drm_printf(p, "drm-engine-%s:\t%llu ns\n", name, busy);
		}
		if (client->sdev->engines[e].capacity > 1)
			drm_printf(p, "drm-engine-capacity-%s:\t%u\n", name,
				   client->sdev->engines[e].capacity);
	}
}

/*
 * panthor 7.x (panthor_drv.c panthor_gpu_show_fdinfo): the GPU's frequencies always, and the
 * time and cycles of all the file's queues together, each only while its profiling bit is on
 * (sysfs "profiling"; here the profiling= parameter). simgpu's GPU runs at 800 MHz.
 */
#define SIMGPU_FREQ_HZ	800000000ULL

static void simgpu_print_profiled(struct drm_printer *p, struct simgpu_client *client)
{
	unsigned int pct = READ_ONCE(simgpu_fdinfo_scale_pct), prof = READ_ONCE(simgpu_profiling);
	const char *name = simgpu_pers->fdinfo_names[0];
	ktime_t now = ktime_get();
	enum simgpu_engine e;
	u64 busy = 0;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_engine_stats st;

		simgpu_client_engine_snapshot(client, e, now, &st);
		busy += st.busy_ns;
	}
	busy = mul_u64_u32_div(busy, pct, 100);
	if (prof & 2)
		drm_printf(p, "drm-engine-%s:\t%llu ns\n", name, busy);
	if (prof & 1)
		drm_printf(p, "drm-cycles-%s:\t%llu\n", name,
			   mul_u64_u32_div(busy, SIMGPU_FREQ_HZ / 1000000, 1000));
	drm_printf(p, "drm-maxfreq-%s:\t%llu Hz\n", name, SIMGPU_FREQ_HZ);
	drm_printf(p, "drm-curfreq-%s:\t%llu Hz\n", name, SIMGPU_FREQ_HZ);
}

/* What the personality prints of its engines: nothing for the memory-only ones. */
static void simgpu_print_usage(struct drm_printer *p, struct simgpu_client *client)
{
	if (simgpu_pers->fdinfo == SIMGPU_FDINFO_ENGINES)
		simgpu_print_engines(p, client);
	else if (simgpu_pers->fdinfo == SIMGPU_FDINFO_PROFILED)
		simgpu_print_profiled(p, client);
}

#if SIMGPU_HAVE_DRM_SHOW_FDINFO

void simgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct simgpu_file *sfile = file->driver_priv;

	simgpu_print_usage(p, sfile->client);
	drm_show_memory_stats(p, file);
}

#else

/* The format of the 6.5+ drm_print_memory_stats(): KiB / MiB only when exact. */
static void simgpu_print_size(struct drm_printer *p, const char *stat, u64 sz)
{
	static const char *const units[] = { "", " KiB", " MiB" };
	unsigned int u;

	for (u = 0; u < ARRAY_SIZE(units) - 1; u++) {
		if (sz == 0 || !IS_ALIGNED(sz, SZ_1K))
			break;
		sz = div_u64(sz, SZ_1K);
	}
	drm_printf(p, "drm-%s-memory:\t%llu%s\n", stat, sz, units[u]);
}

void simgpu_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct simgpu_file *sfile = file->driver_priv;
	struct drm_printer p = drm_seq_file_printer(m);
	struct simgpu_mem_stats mem;

	drm_printf(&p, "drm-driver:\t%s\n", file->minor->dev->driver->name);
	drm_printf(&p, "drm-client-id:\t%llu\n", sfile->client->id);
	simgpu_print_usage(&p, sfile->client);
	simgpu_client_mem_stats(file, &mem);
	simgpu_print_size(&p, "total", mem.total);
	simgpu_print_size(&p, "shared", mem.shared);
	simgpu_print_size(&p, "active", mem.active);
	simgpu_print_size(&p, "resident", mem.resident);
	simgpu_print_size(&p, "purgeable", 0);	/* no madvise: nothing is ever purgeable */
}

#endif
