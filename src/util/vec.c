// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/vec.h"

int vec_room(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t max = SIZE_MAX / size, nc;
	void *p;

	if (need <= *cap)
		return 0;
	if (need > max)
		return -ENOMEM;
	/* a reservation gets what it asks for: thousands of clients hold a few small arrays each */
	nc = !*cap ? (need > 1 ? need : 4) : *cap > max / 2 ? max : *cap * 2;
	if (nc < need)
		nc = need;
	p = realloc(*arr, nc * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

void *vec_grow(void **arr, size_t *n, size_t *cap, size_t size)
{
	char *p;

	if (*n == SIZE_MAX || vec_room(arr, cap, *n + 1, size))
		return NULL;
	p = (char *)*arr + *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}
