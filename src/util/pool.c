// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/pool.h"

#define CHUNK_BYTES (64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct drmtop_model_pool {
	struct chunk *head;
};

struct drmtop_model_pool *pool_new(void)
{
	return calloc(1, sizeof(struct drmtop_model_pool));
}

void *pool_alloc(struct drmtop_model_pool *p, size_t size)
{
	const size_t align = sizeof(max_align_t);
	struct chunk *c = p->head;
	size_t want = (size + align - 1) / align * align;
	void *r;

	if (!want)
		want = align;
	if (want < size)
		return NULL;
	if (!c || c->size - c->used < want) {
		size_t sz = want > CHUNK_BYTES ? want : CHUNK_BYTES;

		c = malloc(sizeof(*c) + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		c->next = p->head;
		p->head = c;
	}
	r = (char *)c->data + c->used;
	c->used += want;
	memset(r, 0, want);
	return r;
}

void *pool_array(struct drmtop_model_pool *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return pool_alloc(p, n * size);
}

const char *pool_strndup(struct drmtop_model_pool *p, const char *s, size_t max)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strnlen(s, max);
	d = pool_alloc(p, n + 1);
	if (d)
		memcpy(d, s, n);
	return d;
}

const char *pool_strdup(struct drmtop_model_pool *p, const char *s)
{
	return pool_strndup(p, s, SIZE_MAX);
}

void pool_free(struct drmtop_model_pool *p)
{
	struct chunk *c, *n;

	if (!p)
		return;
	for (c = p->head; c; c = n) {
		n = c->next;
		free(c);
	}
	free(p);
}
