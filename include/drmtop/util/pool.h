/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An arena: everything one model refresh allocates, released at once. Allocations are zeroed;
 * NULL means out of memory.
 */
#ifndef DRMTOP_UTIL_POOL_H
#define DRMTOP_UTIL_POOL_H

#include <stddef.h>

struct drmtop_model_pool;

struct drmtop_model_pool *pool_new(void);
void *pool_alloc(struct drmtop_model_pool *p, size_t size);
void *pool_array(struct drmtop_model_pool *p, size_t n, size_t size);
/* Copies of strings; NULL in gives NULL out (not an error). */
const char *pool_strdup(struct drmtop_model_pool *p, const char *s);
const char *pool_strndup(struct drmtop_model_pool *p, const char *s, size_t max);
void pool_free(struct drmtop_model_pool *p);

#endif /* DRMTOP_UTIL_POOL_H */
