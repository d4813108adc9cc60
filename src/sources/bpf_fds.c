// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_fds.c: running the task_file iterators of bpf/drmtop_drm.bpf.c: (tgid, fd) -> drm_file
 * records (include/drmtop/bpf_reader.h) and the adoption of handles that existed at attach.
 * bpf_iter task_file exists since 5.8; checked on 6.1 and 6.12.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "drmtop/bpf_reader.h"
#include "drmtop/util/vec.h"
#include "drmtop_drm.skel.h"

int drmtop_bpf_run_iter(struct bpf_program *prog, size_t rec_size, void **out, size_t *n)
{
	char buf[4096];
	char *arr = NULL, *p;
	size_t cap = 0, cnt = 0, got = 0;
	struct bpf_link *link;
	ssize_t r;
	int fd, err = 0;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (rec_size > sizeof(buf))
		return -EINVAL;
	link = bpf_program__attach_iter(prog, NULL);
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
		while (out && got >= rec_size) {
			p = vec_grow((void **)&arr, &cnt, &cap, rec_size);
			if (!p) {
				err = -ENOMEM;
				goto out_fd;
			}
			memcpy(p, buf, rec_size);
			got -= rec_size;
			memmove(buf, buf + rec_size, got);
		}
		if (!out)
			got = 0;
	}
out_fd:
	close(fd);
out_link:
	bpf_link__destroy(link);
	if (err) {
		free(arr);
		return err;
	}
	if (out) {
		*out = arr;
		*n = cnt;
	}
	return 0;
}

int drmtop_bpf_fds(struct drmtop_bpf *b, struct drmtop_fd_rec **recs, size_t *n)
{
	*recs = NULL;
	*n = 0;
	if (!b->drm || !bpf_program__autoload(b->drm->progs.drmtop_fds))
		return -ENOENT;
	return drmtop_bpf_run_iter(b->drm->progs.drmtop_fds, sizeof(**recs), (void **)recs, n);
}
