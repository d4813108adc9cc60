/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growable array: one implementation for every list drmtop builds. Declare the storage as
 * `T *v; size_t n, cap;` (or with other names) and append with vec_push(), which returns a
 * zeroed new element or NULL when memory runs out (the array is then unchanged). A buffer
 * that is filled in bulk (a read, a batch of map entries) asks for room with vec_reserve()
 * instead. Storage is released with free(). Where the element size is known only at run
 * time (records of a size the caller gives), call the functions themselves.
 */
#ifndef DRMTOP_UTIL_VEC_H
#define DRMTOP_UTIL_VEC_H

#include <stddef.h>

/* Appends one zeroed element of @size bytes to *@arr (holding *@n of *@cap). */
void *vec_grow(void **arr, size_t *n, size_t *cap, size_t size);

/*
 * Makes *@cap at least @need elements of @size bytes, doubling at least so that repeated
 * calls stay linear: 0, or -ENOMEM with *@arr and *@cap unchanged. What lies past the
 * elements in use is not zeroed.
 */
int vec_room(void **arr, size_t *cap, size_t need, size_t size);

#define vec_push(arr, n, cap) \
	((__typeof__(arr))vec_grow((void **)&(arr), &(n), &(cap), sizeof(*(arr))))

#define vec_reserve(arr, cap, need) vec_room((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif /* DRMTOP_UTIL_VEC_H */
