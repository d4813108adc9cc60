// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whole-file reads of proc files: st_size is 0 there, so read to EOF into a growing buffer.
 * DRM_READ_ONE_RECORD relies on seq_read_iter() copying a single_open file's one record whole
 * when the reader has room (fs/seq_file.c of 6.1, 6.12 and 7.2; the files' single_open in
 * fs/proc/base.c and fs/proc/fd.c), no signal or page boundary cutting it short.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drmtop/proc_read.h"
#include "drmtop/util/vec.h"

int drm_read_file_flags(const char *path, unsigned int flags, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a page first: most proc files then take one read and the one that finds EOF */
	if (vec_reserve(b, cap, 4096)) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		size_t room;
		ssize_t r;

		/* room for at least one byte and the terminating NUL */
		if (vec_reserve(b, cap, n + 2)) {
			err = -ENOMEM;
			break;
		}
		room = cap - n - 1;
		r = read(fd, b + n, room);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		/* half the reads of a client's proc files found only the end */
		if ((flags & DRM_READ_ONE_RECORD) && (size_t)r < room)
			break;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int drm_read_file(const char *path, char **buf, size_t *len)
{
	return drm_read_file_flags(path, 0, buf, len);
}

int drm_read_comm(const char *path, unsigned int flags, char *comm, size_t size)
{
	size_t len;
	char *buf;
	int err;

	if (!size)
		return -EINVAL;
	err = drm_read_file_flags(path, flags, &buf, &len);
	if (err)
		return err;
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len >= size)
		len = size - 1;
	memcpy(comm, buf, len);
	comm[len] = '\0';
	free(buf);
	return 0;
}

int drm_read_cmdline(const char *path, char **cmdline)
{
	size_t len, i;
	char *buf;
	int err;

	err = drm_read_file(path, &buf, &len);
	if (err)
		return err;
	for (i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
	if (!len) {
		free(buf);
		buf = NULL;
	} else {
		/* kept for the client's life: not the page it was read into (20 MiB at 5,000) */
		char *fit = realloc(buf, len + 1);

		if (fit)
			buf = fit;
	}
	*cmdline = buf;
	return 0;
}

/*
 * The path of a "<id>:<controllers>:<path>" line of /proc/<pid>/cgroup: the unified hierarchy's
 * ("0::"), else systemd's named v1 hierarchy, else the first line's (cgroup v1 only).
 */
static const char *cgroup_line_path(const char *buf, const char *want)
{
	const char *line = buf, *end, *p;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		p = strchr(line, ':');
		if (p && p < end && (!want || !strncmp(p + 1, want, strlen(want)))) {
			p = strchr(p + 1, ':');
			if (p && p < end)
				return p + 1;
		}
		if (!*end)
			break;
	}
	return NULL;
}

int drm_read_cgroup(const char *path, unsigned int flags, char **cgroup)
{
	const char *p;
	size_t len;
	char *buf;
	int err;

	*cgroup = NULL;
	err = drm_read_file_flags(path, flags, &buf, &len);
	if (err)
		return err;
	p = cgroup_line_path(buf, ":");
	if (!p)
		p = cgroup_line_path(buf, "name=systemd:");
	if (!p)
		p = cgroup_line_path(buf, NULL);
	if (p) {
		len = strcspn(p, "\n");
		*cgroup = strndup(p, len);
	}
	free(buf);
	return p && !*cgroup ? -ENOMEM : 0;
}
