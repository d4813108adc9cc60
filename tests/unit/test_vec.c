// SPDX-License-Identifier: GPL-2.0-only
/* util/vec: the growable array every list and buffer in src/ is built on. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/util/vec.h"

struct item {
	int a;
	char name[13];
};

static void test_push_zeroes_and_keeps(void **state)
{
	struct item *v = NULL, *it;
	size_t n = 0, cap = 0, i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		it = vec_push(v, n, cap);
		assert_non_null(it);
		assert_ptr_equal(it, &v[i]);
		assert_int_equal(it->a, 0);
		assert_int_equal(it->name[0], 0);
		it->a = (int)i;
		memset(it->name, 'x', sizeof(it->name));
	}
	assert_int_equal(n, 1000);
	assert_true(cap >= n && cap <= 2 * n);
	for (i = 0; i < n; i++)
		assert_int_equal(v[i].a, (int)i);
	free(v);
}

/* Records whose size is known only at run time, as the BPF iterator's. */
static void test_grow_runtime_size(void **state)
{
	unsigned char *v = NULL, *p;
	size_t n = 0, cap = 0, i;

	(void)state;
	for (i = 0; i < 20; i++) {
		p = vec_grow((void **)&v, &n, &cap, 3);
		assert_non_null(p);
		assert_ptr_equal(p, v + 3 * i);
		assert_memory_equal(p, "\0\0\0", 3);
		memset(p, (int)i, 3);
	}
	for (i = 0; i < 20 * 3; i++)
		assert_int_equal(v[i], i / 3);
	free(v);
}

/* An index that cannot grow further fails without touching the array. */
static void test_push_at_the_limit(void **state)
{
	struct item *v = NULL;
	size_t n = SIZE_MAX, cap = SIZE_MAX;

	(void)state;
	assert_null(vec_push(v, n, cap));
	assert_null(v);
	assert_true(n == SIZE_MAX && cap == SIZE_MAX);
}

static void test_reserve(void **state)
{
	char *b = NULL, *before;
	size_t cap = 0;

	(void)state;
	assert_int_equal(vec_reserve(b, cap, 4096), 0);
	assert_non_null(b);
	assert_int_equal(cap, 4096);
	memset(b, 'a', cap);
	/* enough room already: nothing moves */
	before = b;
	assert_int_equal(vec_reserve(b, cap, 4096), 0);
	assert_int_equal(vec_reserve(b, cap, 0), 0);
	assert_ptr_equal(b, before);
	assert_int_equal(cap, 4096);
	/* a little more doubles (repeated small steps stay linear); much more is had at once */
	assert_int_equal(vec_reserve(b, cap, 4097), 0);
	assert_int_equal(cap, 8192);
	assert_int_equal(vec_reserve(b, cap, 100000), 0);
	assert_int_equal(cap, 100000);
	assert_int_equal(b[0], 'a');
	assert_int_equal(b[4095], 'a');
	free(b);
}

/* A size that overflows is out of memory, and the array stays as it was. */
static void test_reserve_overflow(void **state)
{
	struct item *v = NULL, *before;
	size_t n = 0, cap = 0;

	(void)state;
	assert_non_null(vec_push(v, n, cap));
	v[0].a = 42;
	before = v;
	assert_int_equal(vec_reserve(v, cap, SIZE_MAX / sizeof(*v) + 1), -ENOMEM);
	assert_int_equal(vec_reserve(v, cap, SIZE_MAX), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 4);
	assert_int_equal(v[0].a, 42);
	free(v);
}

/* An empty array reserved for n gets room for n, no more: small per-client arrays stay small. */
static void test_reserve_exact_when_empty(void **state)
{
	struct item *v = NULL;
	size_t n = 0, cap = 0;

	(void)state;
	assert_int_equal(vec_reserve(v, cap, 3), 0);
	assert_int_equal(cap, 3);
	assert_non_null(vec_push(v, n, cap));
	assert_non_null(vec_push(v, n, cap));
	assert_non_null(vec_push(v, n, cap));
	assert_int_equal(cap, 3);
	assert_non_null(vec_push(v, n, cap));
	assert_int_equal(cap, 6);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_zeroes_and_keeps),
		cmocka_unit_test(test_reserve_exact_when_empty),
		cmocka_unit_test(test_grow_runtime_size),
		cmocka_unit_test(test_push_at_the_limit),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_reserve_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
