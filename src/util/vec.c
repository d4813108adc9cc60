// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/vec.h"

void *vec_grow(void **arr, size_t *n, size_t *cap, size_t size)
{
	char *p;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;

		if (nc > SIZE_MAX / size)
			return NULL;
		p = realloc(*arr, nc * size);
		if (!p)
			return NULL;
		*arr = p;
		*cap = nc;
	}
	p = (char *)*arr + *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}
