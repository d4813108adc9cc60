// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-ioctl: one cheap DRM ioctl on the render node in a tight loop for -t seconds; prints
 * ns per ioctl. -k version: DRM_IOCTL_VERSION with empty buffers (drm_version copies nothing);
 * -k getcap: DRM_IOCTL_GET_CAP(DRM_CAP_PRIME). Both are DRM_RENDER_ALLOW core ioctls: the path
 * is drm_ioctl() and nothing of the driver, i.e. exactly what drmtop's drm_ioctl hooks add to.
 *   bench-ioctl [-D /dev/dri/renderDN] [-t SECS] [-k version|getcap]
 */
#include "bench-common.h"

int main(int argc, char **argv)
{
	const char *node = NULL, *kind = "version";
	double secs = 2;
	uint64_t ops = 0, t0, t1;
	int opt, fd;

	while ((opt = getopt(argc, argv, "D:t:k:")) != -1) {
		switch (opt) {
		case 'D': node = optarg; break;
		case 't': secs = bench_parse_secs(optarg); break;
		case 'k': kind = optarg; break;
		default: fprintf(stderr, "usage: bench-ioctl [-D NODE] [-t SECS] [-k version|getcap]\n");
			return 2;
		}
	}
	if (strcmp(kind, "version") && strcmp(kind, "getcap")) {
		fprintf(stderr, "bench-ioctl: -k version or getcap\n");
		return 2;
	}
	fd = bench_open_node(node, "bench-ioctl");
	if (fd < 0)
		return 1;
	t0 = bench_now_ns();
	t1 = t0 + (uint64_t)(secs * 1e9);
	for (;;) {
		int i;

		for (i = 0; i < 64; i++) {
			int r;

			if (kind[0] == 'v') {
				struct drm_version v;

				memset(&v, 0, sizeof(v));
				r = ioctl(fd, DRM_IOCTL_VERSION, &v);
			} else {
				struct drm_get_cap c = { .capability = DRM_CAP_PRIME };

				r = ioctl(fd, DRM_IOCTL_GET_CAP, &c);
			}
			if (r) {
				perror("ioctl");
				return 1;
			}
		}
		ops += 64;
		if (bench_now_ns() >= t1)
			break;
	}
	bench_result(kind[0] == 'v' ? "ioctl_version" : "ioctl_getcap", ops, bench_now_ns() - t0);
	close(fd);
	return 0;
}
