/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drm_sched / DRM core API differences between the kernels simgpu builds against. Kbuild probes
 * the target kernel's headers (see Kbuild) rather than trusting version numbers, because Debian's
 * 6.1.192 carries backports (struct drm_sched_init_args) that upstream 6.1 lacks.
 *
 * Checked on: 6.1.0-56-amd64 (6.1.192: init_args, job_init(job, entity, owner), no client_id,
 * no drm_show_fdinfo) and 6.12.117+deb12-amd64 (init_args with num_rqs/submit_wq,
 * job_init(job, entity, credits, owner, drm_client_id), drm_file.client_id, drm_show_fdinfo)
 * and 7.2.13+deb14-amd64 (no drm_driver.date, DRM_GPU_SCHED_STAT_RESET, hrtimer_setup(),
 * MODULE_IMPORT_NS("string"), drm_print.h no longer pulled in by the other DRM headers).
 */
#ifndef SIMGPU_COMPAT_H
#define SIMGPU_COMPAT_H

#include <linux/hrtimer.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/gpu_scheduler.h>

#ifndef SIMGPU_SCHED_INIT_ARGS
#error "simgpu needs drm_sched_init(sched, const struct drm_sched_init_args *) (Kbuild probe)"
#endif

#if !SIMGPU_SCHED_INIT_ARGS
#error "this kernel's drm_sched_init() takes positional arguments; simgpu supports only init_args"
#endif

static inline int simgpu_sched_job_init(struct drm_sched_job *job, struct drm_sched_entity *entity,
					void *owner, u64 client_id)
{
#if SIMGPU_SCHED_JOB_INIT_CLIENT_ID
	return drm_sched_job_init(job, entity, 1, owner, client_id);
#elif SIMGPU_SCHED_JOB_INIT_CREDITS
	return drm_sched_job_init(job, entity, 1, owner);
#else
	return drm_sched_job_init(job, entity, owner);
#endif
}

/*
 * What timedout_job returns for a timeout it handled: NOMINAL until 6.16, RESET after it (the
 * enum was redone, NOMINAL is gone).
 */
#if SIMGPU_SCHED_STAT_NOMINAL
#define SIMGPU_SCHED_STAT_HANDLED DRM_GPU_SCHED_STAT_NOMINAL
#else
#define SIMGPU_SCHED_STAT_HANDLED DRM_GPU_SCHED_STAT_RESET
#endif

/* hrtimer_init() + .function became hrtimer_setup() in 6.13; hrtimer_init() is gone in 7.x. */
static inline void simgpu_hrtimer_setup(struct hrtimer *timer,
					enum hrtimer_restart (*fn)(struct hrtimer *),
					clockid_t clock, enum hrtimer_mode mode)
{
#if SIMGPU_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/* The id fdinfo prints as drm-client-id. */
static inline u64 simgpu_file_client_id(struct drm_file *file, atomic64_t *driver_counter)
{
#if SIMGPU_HAVE_DRM_SHOW_FDINFO
	return file->client_id;
#else
	/* No drm_file.client_id before ~6.5: as amdgpu/i915 on 6.1, the driver numbers clients. */
	return atomic64_inc_return(driver_counter);
#endif
}

#endif /* SIMGPU_COMPAT_H */
