// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_walk.c: reading every entry of one of the tracer's maps while its programs insert and
 * delete entries (bpf_internal.h, drmtop_bpf_map_walk).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpf_internal.h"

int drmtop_bpf_map_walk(const struct drmtop_walk *w)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	void *key, *next, *value, *prev = NULL;
	int err = 0;

	if (bpf_obj_get_info_by_fd(w->fd, &info, &len))
		return -errno;
	key = calloc(1, info.key_size);
	next = calloc(1, info.key_size);
	value = calloc(1, info.value_size);
	if (!key || !next || !value) {
		err = -ENOMEM;
		goto out;
	}
	while (!bpf_map_get_next_key(w->fd, prev, next)) {
		memcpy(key, next, info.key_size);
		prev = key;
		if (bpf_map_lookup_elem(w->fd, key, value))
			continue;	/* deleted meanwhile */
		err = w->each(key, value, w->ctx);
		if (err)
			break;
		if (w->hook)
			w->hook(w->hook_ctx, w->fd, key);
	}
out:
	free(key);
	free(next);
	free(value);
	return err;
}
