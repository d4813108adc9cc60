/* SPDX-License-Identifier: GPL-2.0-only */
/* The simgpu render node: finding it, its ioctls, and a client's drm-client-id. */
#ifndef WL_SIMGPU_DEV_H
#define WL_SIMGPU_DEV_H

#include <stddef.h>
#include <stdint.h>

/*
 * Finds the render node whose DRM_IOCTL_VERSION name is "simgpu" (vgem is loaded too) and
 * writes its path to path. Each node tried is opened, so each is a DRM client for a moment:
 * the simgpu one's client id goes to *probe_client_id so the record can list it.
 * Returns 0, or -1 with the reason on stderr.
 */
int simgpu_find_node(char *path, size_t len, uint64_t *probe_client_id);
int simgpu_open(const char *path);

/* drm-client-id from /proc/self/fdinfo/<fd>; -1 if the fd shows none. */
int simgpu_client_id(int fd, uint64_t *id);

/* Each returns 0 or -errno. */
int simgpu_bo_create(int fd, uint64_t size, uint32_t *handle);
int simgpu_gem_close(int fd, uint32_t handle);
int simgpu_submit(int fd, int engine, uint64_t duration_ns, const uint32_t *handles,
		  unsigned int nr_handles, uint64_t *seqno);
int simgpu_wait(int fd, int engine, uint64_t seqno, int64_t timeout_ns);
int simgpu_export(int fd, uint32_t handle, int *dmabuf_fd);
int simgpu_import(int fd, int dmabuf_fd, uint32_t *handle);

#endif
