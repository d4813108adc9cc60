/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * simgpu uAPI: the ioctls of drmtop's simulated GPU (tests/kmod/simgpu).
 * Shared by the kernel module and the userspace workload generator.
 *
 * Buffers are shared with the DRM core's own ioctls: DRM_IOCTL_GEM_CLOSE,
 * DRM_IOCTL_PRIME_HANDLE_TO_FD and DRM_IOCTL_PRIME_FD_TO_HANDLE.
 */
#ifndef SIMGPU_DRM_H
#define SIMGPU_DRM_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <drm/drm.h>
#else
/* libdrm-dev (pkg-config libdrm): Debian's linux-libc-dev ships no DRM uAPI headers. */
#include <drm.h>
#endif

#define SIMGPU_DRIVER_NAME	"simgpu"

enum simgpu_engine {
	SIMGPU_ENGINE_GFX = 0,		/* hardware queue depth >= 2: jobs overlap on the ring */
	SIMGPU_ENGINE_COMPUTE = 1,
	SIMGPU_ENGINE_COPY = 2,
	SIMGPU_ENGINE_COUNT = 3,
};

/* Engine names as printed in fdinfo (drm-engine-<name>) and debugfs. */
#define SIMGPU_ENGINE_NAMES	{ "gfx", "compute", "copy" }

struct drm_simgpu_bo_create {
	__u64 size;		/* in: bytes, rounded up to PAGE_SIZE by the driver */
	__u32 handle;		/* out */
	__u32 flags;		/* in: must be 0 */
};

struct drm_simgpu_submit {
	__u32 engine;		/* in: enum simgpu_engine */
	__u32 nr_bos;		/* in: number of entries in bo_handles */
	__u64 duration_ns;	/* in: how long the "hardware" executes the job */
	__u64 bo_handles;	/* in: user pointer to __u32[nr_bos] */
	__u64 seqno;		/* out: per-engine sequence number of this job */
};

struct drm_simgpu_wait {
	__u32 engine;		/* in */
	__u32 pad;		/* in: must be 0 */
	__u64 seqno;		/* in: wait until this job of this client finished */
	__s64 timeout_ns;	/* in: relative; < 0 waits forever */
};

/*
 * The file's client id, as debugfs and fdinfo's drm-client-id number it: for personalities whose
 * driver prints no fdinfo, the workload learns it here.
 */
struct drm_simgpu_client_id {
	__u64 client_id;	/* out */
};

#define DRM_SIMGPU_BO_CREATE	0x00
#define DRM_SIMGPU_SUBMIT	0x01
#define DRM_SIMGPU_WAIT		0x02
#define DRM_SIMGPU_CLIENT_ID	0x03

#define DRM_IOCTL_SIMGPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_BO_CREATE, struct drm_simgpu_bo_create)
#define DRM_IOCTL_SIMGPU_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_SUBMIT, struct drm_simgpu_submit)
#define DRM_IOCTL_SIMGPU_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_WAIT, struct drm_simgpu_wait)
#define DRM_IOCTL_SIMGPU_CLIENT_ID \
	DRM_IOR(DRM_COMMAND_BASE + DRM_SIMGPU_CLIENT_ID, struct drm_simgpu_client_id)

#endif /* SIMGPU_DRM_H */
