// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-open: open() + close() of the render node in a tight loop for -t seconds; prints ns per
 * open+close pair. Each pair is a whole DRM client: drm_file_alloc (the driver's open callback:
 * simgpu makes one drm_sched entity per engine) and, at close, drm_file_free -> drm_gem_release
 * and the entities' destruction: the hooks drmtop adds to a client's life.
 *   bench-open [-D /dev/dri/renderDN] [-t SECS]
 */
#include "bench-common.h"

int main(int argc, char **argv)
{
	const char *node = NULL;
	double secs = 2;
	uint64_t ops = 0, t0, t1;
	int opt;

	while ((opt = getopt(argc, argv, "D:t:")) != -1) {
		switch (opt) {
		case 'D': node = optarg; break;
		case 't': secs = bench_parse_secs(optarg); break;
		default: fprintf(stderr, "usage: bench-open [-D NODE] [-t SECS]\n");
			return 2;
		}
	}
	if (!node && !(node = bench_find_simgpu())) {
		fprintf(stderr, "bench-open: no simgpu render node\n");
		return 1;
	}
	t0 = bench_now_ns();
	t1 = t0 + (uint64_t)(secs * 1e9);
	do {
		int fd = open(node, O_RDWR | O_CLOEXEC);

		if (fd < 0) {
			perror(node);
			return 1;
		}
		close(fd);
		ops++;
	} while (bench_now_ns() < t1);
	bench_result("open_close", ops, bench_now_ns() - t0);
	return 0;
}
