// SPDX-License-Identifier: GPL-2.0-only
/* Raw ioctls on the simgpu render node: no libdrm library, only its uAPI headers. */
#include "simgpu_dev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../kmod/simgpu/simgpu_drm.h"

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

int simgpu_open(const char *path)
{
	return open(path, O_RDWR | O_CLOEXEC);
}

static int driver_name(int fd, char *name, size_t len)
{
	struct drm_version v = { .name = name, .name_len = len - 1 };
	int ret;

	memset(name, 0, len);
	ret = xioctl(fd, DRM_IOCTL_VERSION, &v);
	if (ret)
		return ret;
	name[len - 1] = '\0';
	if (v.name_len < len)
		name[v.name_len] = '\0';
	return 0;
}

/*
 * The DRM driver name simgpu goes by: "simgpu", or the real driver its personality= imitates,
 * which its debugfs (the ground truth, always under simgpu/) states as driver=.
 */
static void simgpu_driver_name(char *name, size_t len)
{
	const char *dbg = getenv("SIMGPU_DEBUGFS");
	char p[300], line[512], *k;
	FILE *f;

	snprintf(name, len, "%s", SIMGPU_DRIVER_NAME);
	snprintf(p, sizeof(p), "%s/device", dbg && *dbg ? dbg : "/sys/kernel/debug/simgpu");
	f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "device ", 7))
			continue;
		k = strstr(line, " driver=");
		if (k) {
			k += 8;
			k[strcspn(k, " \n")] = '\0';
			if (*k)
				snprintf(name, len, "%s", k);
		}
	}
	fclose(f);
}

/*
 * The first node named PREFIX* in DIR whose driver is @want: 1 (its path in @path), 0 none, -1
 * when it has no client id.
 */
static int find_in(const char *dir, const char *prefix, const char *want, char *path, size_t len,
		   uint64_t *probe_client_id)
{
	struct dirent **ents;
	int n, found = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char p[300], name[64];
		int fd;

		if (!found && !strncmp(ents[i]->d_name, prefix, strlen(prefix))) {
			snprintf(p, sizeof(p), "%s/%s", dir, ents[i]->d_name);
			fd = simgpu_open(p);
			if (fd >= 0) {
				if (!driver_name(fd, name, sizeof(name)) && !strcmp(name, want)) {
					found = 1;
					if (simgpu_client_id(fd, probe_client_id)) {
						fprintf(stderr, "simgpu-workload: %s: no client id "
							"(fdinfo, CLIENT_ID)\n", p);
						found = -1;
					}
					snprintf(path, len, "%s", p);
				}
				close(fd);
			}
		}
		free(ents[i]);
	}
	free(ents);
	return found;
}

/* simgpu's render node, or its accel node as an accelerator (personality rocket). */
int simgpu_find_node(char *path, size_t len, uint64_t *probe_client_id)
{
	char want[64];
	int found;

	simgpu_driver_name(want, sizeof(want));
	found = find_in("/dev/dri", "renderD", want, path, len, probe_client_id);
	if (!found)
		found = find_in("/dev/accel", "accel", want, path, len, probe_client_id);
	if (!found)
		fprintf(stderr, "simgpu-workload: no render or accel node of driver '%s' in /dev/dri "
			"or /dev/accel (is simgpu loaded?)\n", want);
	return found > 0 ? 0 : -1;
}

/*
 * fdinfo's drm-client-id; where the personality's driver prints none (lima, nouveau, ...),
 * simgpu's own answer, the same number.
 */
int simgpu_client_id(int fd, uint64_t *id)
{
	struct drm_simgpu_client_id a = { 0 };
	char p[64], line[256];
	int ret = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %" SCNu64, id) == 1) {
			ret = 0;
			break;
		}
	fclose(f);
	if (ret && !xioctl(fd, DRM_IOCTL_SIMGPU_CLIENT_ID, &a)) {
		*id = a.client_id;
		ret = 0;
	}
	return ret;
}

int simgpu_bo_create(int fd, uint64_t size, uint32_t *handle)
{
	struct drm_simgpu_bo_create a = { .size = size };
	int ret = xioctl(fd, DRM_IOCTL_SIMGPU_BO_CREATE, &a);

	if (!ret)
		*handle = a.handle;
	return ret;
}

int simgpu_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &a);
}

int simgpu_submit(int fd, int engine, uint64_t duration_ns, const uint32_t *handles,
		  unsigned int nr_handles, uint64_t *seqno)
{
	struct drm_simgpu_submit a = {
		.engine = (uint32_t)engine,
		.nr_bos = nr_handles,
		.duration_ns = duration_ns,
		.bo_handles = (uint64_t)(uintptr_t)handles,
	};
	int ret = xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &a);

	if (!ret)
		*seqno = a.seqno;
	return ret;
}

int simgpu_wait(int fd, int engine, uint64_t seqno, int64_t timeout_ns)
{
	struct drm_simgpu_wait a = { .engine = (uint32_t)engine, .seqno = seqno,
				     .timeout_ns = timeout_ns };

	return xioctl(fd, DRM_IOCTL_SIMGPU_WAIT, &a);
}

int simgpu_export(int fd, uint32_t handle, int *dmabuf_fd)
{
	struct drm_prime_handle a = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int ret = xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &a);

	if (!ret)
		*dmabuf_fd = a.fd;
	return ret;
}

int simgpu_import(int fd, int dmabuf_fd, uint32_t *handle)
{
	struct drm_prime_handle a = { .fd = dmabuf_fd };
	int ret = xioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a);

	if (!ret)
		*handle = a.handle;
	return ret;
}
