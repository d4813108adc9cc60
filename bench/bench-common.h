/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-common.h: what the bench/ loop programs share: the clock, finding simgpu's render
 * node, and the one-line result they print ("<name> ops=N secs=S ns_per_op=X ops_per_s=Y").
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The render node whose DRM_IOCTL_VERSION name is "simgpu", or NULL. */
static inline const char *bench_find_simgpu(void)
{
	static char path[64];
	int minor;

	for (minor = 128; minor < 192; minor++) {
		struct drm_version v;
		char name[32] = "";
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&v, 0, sizeof(v));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && strcmp(name, "simgpu") == 0) {
			close(fd);
			return path;
		}
		close(fd);
	}
	return NULL;
}

/* @node, or simgpu's render node when NULL, opened read-write; -1 (said on stderr) if not. */
static inline int bench_open_node(const char *node, const char *prog)
{
	int fd;

	if (!node && !(node = bench_find_simgpu())) {
		fprintf(stderr, "%s: no simgpu render node\n", prog);
		return -1;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		perror(node);
	return fd;
}

static inline double bench_parse_secs(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v <= 0) {
		fprintf(stderr, "bad duration '%s' (seconds)\n", s);
		exit(2);
	}
	return v;
}

static inline void bench_result(const char *name, uint64_t ops, uint64_t ns)
{
	printf("%s ops=%llu secs=%.3f ns_per_op=%.1f ops_per_s=%.1f\n", name,
	       (unsigned long long)ops, ns / 1e9, ops ? (double)ns / ops : 0.0,
	       ns ? ops * 1e9 / ns : 0.0);
}

#endif /* BENCH_COMMON_H */
