// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_walk.c: reading every entry of one of the tracer's maps while its programs insert and
 * delete entries (bpf_internal.h, drmtop_bpf_map_walk).
 *
 * bpf_map_get_next_key() alone cannot do it: when the key passed in was deleted meanwhile, the
 * hash map starts again from its first bucket (htab_map_get_next_key, 6.1 to 7.x), so a walk
 * returns the entries before that point again. Two walks here are correct at any churn: each
 * entry comes back at most once, and every entry in the map for the whole walk comes back.
 *
 * The key walk (the reader's): get_next_key, dropping keys it already returned.
 *
 * Batch reads (BPF_MAP_LOOKUP_BATCH, 5.6+) carry a bucket index instead of a key. Every map
 * drmtop walks is a BPF_MAP_TYPE_HASH, which has them on 6.1 and 6.12 (htab_map_ops; checked
 * in both sources and on those kernels by tests/unit/test_bpf_reader.c in the VM guests). The
 * reader reads the handles and objects maps in batches (bpf_reader.c, compute_shared): read at
 * every refresh, a call per entry cost ~3 bpf() calls a handle, 125 ms with the default map full
 * (and 69 ms against 10 ms batched on a native 6.12 host). Its other maps are walked by key:
 * one batch call scans every empty bucket up to the next entries with the RCU read lock held
 * and migration disabled; with maps of 262144 buckets, mostly empty, read every 100 ms
 * (bpfdump), VM case 41 in the 6.12 suite under TCG measured compute busy time 1-2.6 % above
 * simgpu's in 3 runs of 4 (the key walk: 2 of 2 passed): the long calls delayed the
 * scheduler's work between its run tracepoint and the driver's run_job. The handles and
 * objects maps have 32768 buckets by default. Where a kernel or map refuses batch reads
 * (EINVAL, ENOTSUPP, EOPNOTSUPP) a batch walk falls back to the key walk.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpf_internal.h"
#include "drmtop/util/vec.h"

#define WALK_BATCH	256		/* entries per batch read */

unsigned long drmtop_bpf_batch_refused;

/* Keys already returned by a key walk: open addressing on a hash of the key's bytes. */
struct key_set {
	unsigned char *keys;
	bool *used;
	size_t cap, n, ksz;
};

static size_t key_hash(const unsigned char *k, size_t len)
{
	size_t h = 14695981039346656037ull, i;

	for (i = 0; i < len; i++)
		h = (h ^ k[i]) * 1099511628211ull;
	return h;
}

static int set_grow(struct key_set *s);

/* Adds @key; 1 if it was new, 0 if it was there, negative errno. */
static int set_add(struct key_set *s, const void *key)
{
	size_t i;
	int err;

	if (2 * (s->n + 1) > s->cap) {
		err = set_grow(s);
		if (err)
			return err;
	}
	for (i = key_hash(key, s->ksz) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (!memcmp(s->keys + i * s->ksz, key, s->ksz))
			return 0;
	s->used[i] = true;
	memcpy(s->keys + i * s->ksz, key, s->ksz);
	s->n++;
	return 1;
}

static int set_grow(struct key_set *s)
{
	struct key_set n = { .ksz = s->ksz, .cap = s->cap ? 2 * s->cap : 256 };
	size_t i;

	n.keys = malloc(n.cap * n.ksz);
	n.used = calloc(n.cap, sizeof(*n.used));
	if (!n.keys || !n.used) {
		free(n.keys);
		free(n.used);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++)
		if (s->used[i])
			set_add(&n, s->keys + i * s->ksz);
	free(s->keys);
	free(s->used);
	*s = n;
	return 0;
}

/*
 * The fallback. A deleted previous key makes the kernel start over, so the walk may see keys
 * again; they are skipped. Each restart needs the delete of the very key the walk stands on, so
 * the walk ends; a restart costs a pass over what was returned already, hence the quadratic
 * bound on steps: a guard against a map that never stops changing, not part of the normal path.
 */
static int key_walk(const struct drmtop_walk *w, const struct bpf_map_info *info)
{
	struct key_set seen = { .ksz = info->key_size };
	void *key, *next, *value, *prev = NULL;
	size_t steps = 0;
	int err = 0, fresh;

	key = calloc(1, info->key_size);
	next = calloc(1, info->key_size);
	value = calloc(1, info->value_size);
	if (!key || !next || !value) {
		err = -ENOMEM;
		goto out;
	}
	while (!bpf_map_get_next_key(w->fd, prev, next)) {
		if (++steps > (seen.n + 1024) * (seen.n + 1024)) {
			err = -EBUSY;
			break;
		}
		memcpy(key, next, info->key_size);
		prev = key;
		fresh = set_add(&seen, key);
		if (fresh < 0) {
			err = fresh;
			break;
		}
		if (!fresh || bpf_map_lookup_elem(w->fd, key, value))
			continue;	/* returned before the kernel started over, or deleted */
		err = w->each(key, value, w->ctx);
		if (err)
			break;
		if (w->hook)
			w->hook(w->hook_ctx, w->fd, key, 1);
	}
out:
	free(seen.keys);
	free(seen.used);
	free(key);
	free(next);
	free(value);
	return err;
}

/*
 * Batch reads of up to @chunk entries. The kernel answers ENOSPC when one bucket holds more
 * entries than asked for: ask for more. ENOENT ends the walk, with the last entries in hand.
 * Returns 1 when this map or kernel has no batch reads and nothing was read yet.
 */
static int batch_walk(const struct drmtop_walk *w, const struct bpf_map_info *info)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 chunk = w->batch ? w->batch : WALK_BATCH, count, i;
	unsigned char *keys = NULL, *values = NULL;
	size_t keys_cap = 0, values_cap = 0;
	__u64 token_in[4] = {}, token_out[4] = {};	/* a bucket index for hash maps */
	bool first = true, last = false;
	int err = 0, ret;

	if (info->key_size > sizeof(token_in))
		return 1;
	while (!last) {
		if (vec_room((void **)&keys, &keys_cap, chunk, info->key_size) ||
		    vec_room((void **)&values, &values_cap, chunk, info->value_size)) {
			err = -ENOMEM;
			break;
		}
		count = chunk;
		ret = bpf_map_lookup_batch(w->fd, first ? NULL : token_in, token_out, keys,
					   values, &count, &opts);
		if (ret < 0 && errno == ENOSPC && chunk < (1u << 24)) {
			chunk *= 2;
			continue;
		}
		if (ret < 0 && errno != ENOENT) {
			if (first && (errno == EINVAL || errno == ENOTSUPP || errno == EOPNOTSUPP))
				err = 1;
			else
				err = -errno;
			break;
		}
		last = ret < 0;
		first = false;
		memcpy(token_in, token_out, sizeof(token_in));
		for (i = 0; i < count && !err; i++)
			err = w->each(keys + (size_t)i * info->key_size,
				      values + (size_t)i * info->value_size, w->ctx);
		if (err)
			break;
		if (w->hook && count && !last)
			w->hook(w->hook_ctx, w->fd, keys + (size_t)(count - 1) * info->key_size,
				count);
	}
	free(keys);
	free(values);
	return err;
}

int drmtop_bpf_map_walk(const struct drmtop_walk *w)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int err;

	if (bpf_obj_get_info_by_fd(w->fd, &info, &len))
		return -errno;
	if (!info.key_size || !info.value_size)
		return -EINVAL;
	if (!w->no_batch) {
		err = batch_walk(w, &info);
		if (err <= 0)
			return err;
		drmtop_bpf_batch_refused++;
	}
	return key_walk(w, &info);
}
