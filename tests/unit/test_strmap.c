// SPDX-License-Identifier: GPL-2.0-only
/* util/strmap: the one lookup structure of src/, and the number keys the reader makes for it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "drmtop/util/strmap.h"

/* The key of a number is what "%llx" writes, so keys made either way meet in one map. */
static void test_key_u64_is_printf_hex(void **state)
{
	static const uint64_t fixed[] = { 0, 1, 9, 10, 15, 16, 255, 256, 0xdeadbeef,
					  0x8000000000000000ull, UINT64_MAX };
	char key[STRMAP_U64_KEY], want[32];
	uint64_t v = 0x9e3779b97f4a7c15ull;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		snprintf(want, sizeof(want), "%llx", (unsigned long long)fixed[i]);
		assert_ptr_equal(strmap_key_u64(key, fixed[i]), key);
		assert_string_equal(key, want);
	}
	for (i = 0; i < 10000; i++) {
		v ^= v << 13;
		v ^= v >> 7;
		v ^= v << 17;
		snprintf(want, sizeof(want), "%llx", (unsigned long long)(v >> (i % 64)));
		assert_string_equal(strmap_key_u64(key, v >> (i % 64)), want);
	}
}

/* Thousands of number keys through the map's growth: each found, then each removed. */
static void test_put_get_del_across_growth(void **state)
{
	char key[STRMAP_U64_KEY];
	struct strmap m;
	uintptr_t i;

	(void)state;
	strmap_init(&m);
	for (i = 1; i <= 5000; i++)
		assert_int_equal(strmap_put(&m, strmap_key_u64(key, i * 4096), (void *)i), 0);
	assert_int_equal(m.count, 5000);
	for (i = 1; i <= 5000; i++)
		assert_ptr_equal(strmap_get(&m, strmap_key_u64(key, i * 4096)), (void *)i);
	assert_null(strmap_get(&m, strmap_key_u64(key, 4095)));
	for (i = 1; i <= 5000; i += 2)
		strmap_del(&m, strmap_key_u64(key, i * 4096));
	assert_int_equal(m.count, 2500);
	for (i = 1; i <= 5000; i++)
		assert_ptr_equal(strmap_get(&m, strmap_key_u64(key, i * 4096)),
				 i % 2 ? NULL : (void *)i);
	strmap_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_u64_is_printf_hex),
		cmocka_unit_test(test_put_get_del_across_growth),
	};

	return cmocka_run_group_tests_name("strmap", tests, NULL, NULL);
}
