// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgem-share: sets up GEM memory whose per-client figures are known exactly, for the BPF guest
 * case 45: three vgem dumb buffers in client A (vgem), the first one exported as a dma-buf and
 * imported by a second vgem client B (same device: the same object, handle_count 2) and by a
 * simgpu client C (another device: a new object with an import attachment), then a fourth
 * buffer in B, made by the thread whose last import was B's: none of it imported, whatever an
 * import left behind (a skipped exit of the import, which case 45 forces). It writes what
 * each client must show by the rule of drm_show_memory_stats (total: every handle's object
 * size; shared: handle_count > 1 or a dma-buf attached; imported: made by PRIME fd-to-handle)
 * to FILE as JSON, then holds everything until SIGTERM/SIGINT.
 *
 * Usage: vgem-share SIMGPU_RENDER_NODE OUT.json
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>

static int die(const char *what)
{
	fprintf(stderr, "vgem-share: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The first /dev/dri/card* whose driver is vgem, opened. */
static int open_vgem(void)
{
	char path[32], name[32];
	int i, fd;

	for (i = 0; i < 64; i++) {
		struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	errno = ENOENT;
	return die("no vgem card in /dev/dri");
}

static uint64_t create_dumb(int fd, uint32_t w, uint32_t h, uint32_t *handle)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = 32 };

	if (ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		die("DRM_IOCTL_MODE_CREATE_DUMB");
	*handle = c.handle;
	return c.size;
}

static int export_fd(int fd, uint32_t handle)
{
	struct drm_prime_handle p = { .handle = handle, .flags = DRM_CLOEXEC };

	if (ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p))
		die("DRM_IOCTL_PRIME_HANDLE_TO_FD");
	return p.fd;
}

static uint32_t import_fd(int fd, int dmabuf)
{
	struct drm_prime_handle p = { .fd = dmabuf };

	if (ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p))
		die("DRM_IOCTL_PRIME_FD_TO_HANDLE");
	return p.handle;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	uint32_t h[3], hb, hc, hd;
	uint64_t s[4];
	int a, b, c, dmabuf;
	FILE *out;

	if (argc != 3) {
		fprintf(stderr, "usage: vgem-share SIMGPU_RENDER_NODE OUT.json\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	a = open_vgem();
	b = open_vgem();
	c = open(argv[1], O_RDWR | O_CLOEXEC);
	if (c < 0)
		die(argv[1]);
	s[0] = create_dumb(a, 256, 256, &h[0]);
	s[1] = create_dumb(a, 640, 480, &h[1]);
	s[2] = create_dumb(a, 100, 37, &h[2]);	/* not page-sized: the kernel rounds */
	dmabuf = export_fd(a, h[0]);
	hc = import_fd(c, dmabuf);
	hb = import_fd(b, dmabuf);
	close(dmabuf);	/* the exported object keeps its dma-buf while it has handles */
	s[3] = create_dumb(b, 64, 64, &hd);

	out = fopen(argv[2], "w");
	if (!out)
		die(argv[2]);
	fprintf(out, "{\"pid\":%d,\"vgem_objects\":4,\"vgem_bytes\":%llu,\"files\":["
		"{\"fd\":%d,\"total\":%llu,\"shared\":%llu,\"imported\":0},"
		"{\"fd\":%d,\"total\":%llu,\"shared\":%llu,\"imported\":%llu},"
		"{\"fd\":%d,\"total\":%llu,\"shared\":%llu,\"imported\":%llu}],"
		"\"handles\":[%u,%u,%u,%u,%u,%u]}\n",
		getpid(), (unsigned long long)(s[0] + s[1] + s[2] + s[3]),
		a, (unsigned long long)(s[0] + s[1] + s[2]), (unsigned long long)s[0],
		b, (unsigned long long)(s[0] + s[3]), (unsigned long long)s[0],
		(unsigned long long)s[0],
		c, (unsigned long long)s[0], (unsigned long long)s[0], (unsigned long long)s[0],
		h[0], h[1], h[2], hb, hc, hd);
	if (fclose(out))
		die(argv[2]);
	while (!stop)
		pause();
	return 0;
}
