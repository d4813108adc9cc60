// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_fds.c: (tgid, fd) -> drm_file from the task_file iterator of bpf/drmtop_drm.bpf.c
 * (include/drmtop/bpf_reader.h). bpf_iter task_file exists since 5.8; checked on 6.1 and 6.12.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "drmtop/bpf_reader.h"
#include "drmtop_drm.skel.h"

int drmtop_bpf_fds(struct drmtop_bpf *b, struct drmtop_fd_rec **recs, size_t *n)
{
	struct drmtop_fd_rec *arr = NULL, *p;
	size_t cap = 0, cnt = 0, got = 0;
	struct bpf_link *link;
	char buf[sizeof(struct drmtop_fd_rec) * 64];
	ssize_t r;
	int fd, err = 0;

	*recs = NULL;
	*n = 0;
	if (!b->drm || !bpf_program__autoload(b->drm->progs.drmtop_fds))
		return -ENOENT;
	link = bpf_program__attach_iter(b->drm->progs.drmtop_fds, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto out_link;
	}
	/* records are fixed-size; a read may end mid-record, so carry the remainder over */
	for (;;) {
		r = read(fd, buf + got, sizeof(buf) - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		got += r;
		while (got >= sizeof(struct drmtop_fd_rec)) {
			if (cnt == cap) {
				cap = cap ? 2 * cap : 64;
				p = realloc(arr, cap * sizeof(*p));
				if (!p) {
					err = -ENOMEM;
					goto out_fd;
				}
				arr = p;
			}
			memcpy(&arr[cnt++], buf, sizeof(struct drmtop_fd_rec));
			got -= sizeof(struct drmtop_fd_rec);
			memmove(buf, buf + sizeof(struct drmtop_fd_rec), got);
		}
	}
out_fd:
	close(fd);
out_link:
	bpf_link__destroy(link);
	if (err) {
		free(arr);
		return err;
	}
	*recs = arr;
	*n = cnt;
	return 0;
}
