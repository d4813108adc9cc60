// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-gem: GEM buffer create + close on one open render node in a tight loop for -t seconds;
 * prints ns per pair. Each pair is DRM_IOCTL_SIMGPU_BO_CREATE (-s bytes, default 4 KiB: the
 * object's init and its first handle) and DRM_IOCTL_GEM_CLOSE (the handle's release, the
 * object's free): the GEM hooks drmtop adds to every buffer's life (issue 19's "GEM create +
 * close" path). With -H N it creates N buffers instead, prints "ready N" and holds them until
 * SIGINT or SIGTERM: the bench's full handles map.
 *   bench-gem [-D /dev/dri/renderDN] [-t SECS] [-s BYTES] [-H N]
 */
#include <signal.h>

#include "bench-common.h"
#include "../tests/kmod/simgpu/simgpu_drm.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* -H: @n buffers of @size bytes held on @fd until a signal. */
static int hold(int fd, unsigned long n, unsigned long long size)
{
	unsigned long i;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 0; i < n && !stop; i++) {
		struct drm_simgpu_bo_create c = { .size = size };

		if (ioctl(fd, DRM_IOCTL_SIMGPU_BO_CREATE, &c)) {
			fprintf(stderr, "bench-gem: buffer %lu: DRM_IOCTL_SIMGPU_BO_CREATE: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	printf("ready %lu\n", i);
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	const char *node = NULL;
	double secs = 2;
	unsigned long long size = 4096;
	unsigned long held = 0;
	uint64_t ops = 0, t0, t1;
	int opt, fd;

	while ((opt = getopt(argc, argv, "D:t:s:H:")) != -1) {
		switch (opt) {
		case 'D': node = optarg; break;
		case 't': secs = bench_parse_secs(optarg); break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'H': held = strtoul(optarg, NULL, 0); break;
		default: fprintf(stderr, "usage: bench-gem [-D NODE] [-t SECS] [-s BYTES] [-H N]\n");
			return 2;
		}
	}
	if (!size) {
		fprintf(stderr, "bench-gem: -s must be > 0\n");
		return 2;
	}
	fd = bench_open_node(node, "bench-gem");
	if (fd < 0)
		return 1;
	if (held)
		return hold(fd, held, size);
	t0 = bench_now_ns();
	t1 = t0 + (uint64_t)(secs * 1e9);
	do {
		struct drm_simgpu_bo_create c = { .size = size };
		struct drm_gem_close g;

		if (ioctl(fd, DRM_IOCTL_SIMGPU_BO_CREATE, &c)) {
			perror("DRM_IOCTL_SIMGPU_BO_CREATE");
			return 1;
		}
		memset(&g, 0, sizeof(g));
		g.handle = c.handle;
		if (ioctl(fd, DRM_IOCTL_GEM_CLOSE, &g)) {
			perror("DRM_IOCTL_GEM_CLOSE");
			return 1;
		}
		ops++;
	} while (bench_now_ns() < t1);
	bench_result("gem_create_close", ops, bench_now_ns() - t0);
	close(fd);
	return 0;
}
