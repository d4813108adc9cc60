/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growable array: one implementation for every list drmtop builds. Declare the storage as
 * `T *v; size_t n, cap;` (or with other names) and append with vec_push(), which returns a
 * zeroed new element or NULL when memory runs out (the array is then unchanged).
 */
#ifndef DRMTOP_UTIL_VEC_H
#define DRMTOP_UTIL_VEC_H

#include <stddef.h>

/* Appends one zeroed element of @size bytes to *@arr (holding *@n of *@cap). */
void *vec_grow(void **arr, size_t *n, size_t *cap, size_t size);

#define vec_push(arr, n, cap) \
	((__typeof__(arr))vec_grow((void **)&(arr), &(n), &(cap), sizeof(*(arr))))

#endif /* DRMTOP_UTIL_VEC_H */
