#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints the -D flags describing the drm_sched / DRM core API of the kernel whose source (or
# headers) tree is $1. Kbuild calls it; see simgpu_compat.h for what each flag selects.
set -eu
inc=${1:?usage: simgpu-probe.sh KERNEL_SRCTREE}/include
[ -r "$inc/drm/gpu_scheduler.h" ] || { echo "simgpu-probe: no $inc/drm/gpu_scheduler.h" >&2; exit 1; }

probe() {
	if grep -Eq -- "$3" "$inc/$2"; then echo "-D$1=1"; else echo "-D$1=0"; fi
}

probe SIMGPU_SCHED_INIT_ARGS drm/gpu_scheduler.h '^struct drm_sched_init_args \{'
probe SIMGPU_SCHED_JOB_INIT_CREDITS drm/gpu_scheduler.h 'u32 credits, void \*owner'
probe SIMGPU_SCHED_JOB_INIT_CLIENT_ID drm/gpu_scheduler.h '^[[:space:]]+u64 drm_client_id\);'
probe SIMGPU_SCHED_INIT_NUM_RQS drm/gpu_scheduler.h '^[[:space:]]+u32 num_rqs;'
probe SIMGPU_HAVE_DRM_SHOW_FDINFO drm/drm_file.h 'void drm_show_fdinfo\('
# Compute accelerators (/dev/accel/accelN), 6.2+: personality rocket.
probe SIMGPU_HAVE_ACCEL drm/drm_drv.h 'DRIVER_COMPUTE_ACCEL'
# Gone or renamed by 7.x (checked on 7.2.13): drm_driver.date, the NOMINAL timeout status,
# hrtimer_init() (hrtimer_setup() arrived in 6.13), MODULE_IMPORT_NS(ident) (a string since 6.13).
probe SIMGPU_DRM_DRIVER_DATE drm/drm_drv.h '^[[:space:]]+char \*date;'
probe SIMGPU_SCHED_STAT_NOMINAL drm/gpu_scheduler.h 'DRM_GPU_SCHED_STAT_NOMINAL,'
probe SIMGPU_HAVE_HRTIMER_SETUP linux/hrtimer.h 'void hrtimer_setup\('
probe SIMGPU_IMPORT_NS_STRING linux/module.h 'define MODULE_IMPORT_NS\(ns\)[[:space:]]+MODULE_INFO\(import_ns, ns\)'
# DRM_GEM_SHMEM_DRIVER_OPS imports a dma-buf without mapping its sg table (checked on 7.2.13;
# 6.1 and 6.12 map it at import, so an import is resident from the start there).
probe SIMGPU_SHMEM_IMPORT_NO_MAP drm/drm_gem_shmem_helper.h \
	'\.gem_prime_import[[:space:]]*=[[:space:]]*drm_gem_shmem_prime_import_no_map'
