// SPDX-License-Identifier: GPL-2.0-only
/* --bpf-map: parsing, defaults, and the kernel memory the limits allow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drmtop_bpf.h"
#include "drmtop/bpf_limits.h"
#include "drmtop/options.h"

#define ARGV(...) ((char *[]){ "drmtop", __VA_ARGS__, NULL })

static int parse_one(struct drmtop_bpf_limits *l, const char *arg, char *err)
{
	return drmtop_bpf_limit_parse(l, arg, err, 192);
}

static void test_defaults_and_sets(void **state)
{
	struct drmtop_bpf_limits l = { 0 };
	char err[192] = "";

	(void)state;
	assert_int_equal(drmtop_bpf_limit(NULL, DRMTOP_LIMIT_HANDLES), DRMTOP_MAX_HANDLES);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_JOBS), DRMTOP_MAX_JOBS);
	assert_int_equal(parse_one(&l, "handles=100", err), 0);
	assert_int_equal(parse_one(&l, "ringbuf=8K", err), 0);
	assert_int_equal(parse_one(&l, "clients=1", err), 0);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_HANDLES), 100);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_RINGBUF), 8192);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_CLIENTS), 1);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_OBJECTS), DRMTOP_MAX_OBJECTS);
	assert_int_equal(parse_one(&l, "ringbuf=2M", err), 0);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_RINGBUF), 2u << 20);
}

static void test_bad_values_rejected(void **state)
{
	static const char *const bad[] = {
		"handles", "handles=", "handles=0", "handles=-1", "handles=12x", "handles=1K",
		"nosuch=5", "=5", "ringbuf=1000", "ringbuf=2048", "ringbuf=3K", "ringbuf=2G",
		"jobs=99999999999", "handles=16777217",
	};
	struct drmtop_bpf_limits l = { 0 };
	char err[192];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse_one(&l, bad[i], err), -1);
		assert_non_null(strstr(err, "invalid --bpf-map"));
	}
	/* nothing was set by the rejected values */
	for (i = 0; i < DRMTOP_LIMIT_COUNT; i++)
		assert_int_equal(l.n[i], 0);
}

/* The default sizes keep drmtop under 16 MiB of kernel memory even with every map full. */
static void test_default_memory_under_16mib(void **state)
{
	struct drmtop_bpf_limits l = { 0 };
	uint64_t def = drmtop_bpf_limits_bytes(NULL);
	char err[192];

	(void)state;
	assert_true(def <= 15ull << 20);	/* some margin below 16 MiB: see drmtop_bpf.h */
	assert_true(def > 8ull << 20);	/* the estimate counts the big maps at all */
	/* each handle costs its key, value and the kernel's element overhead */
	assert_int_equal(parse_one(&l, "handles=1000", err), 0);
	def = drmtop_bpf_limits_bytes(&l);
	assert_int_equal(parse_one(&l, "handles=1001", err), 0);
	assert_int_equal(drmtop_bpf_limits_bytes(&l) - def,
			 48 + sizeof(struct drmtop_handle_key) + sizeof(struct drmtop_handle));
	/* and a power of two of 16-byte buckets: 1024 up to 1024 entries, then 2048 */
	assert_int_equal(parse_one(&l, "handles=1024", err), 0);
	def = drmtop_bpf_limits_bytes(&l);
	assert_int_equal(parse_one(&l, "handles=1025", err), 0);
	assert_int_equal(drmtop_bpf_limits_bytes(&l) - def,
			 48 + sizeof(struct drmtop_handle_key) + sizeof(struct drmtop_handle) +
			 1024 * 16);
	/* the timelines map is sized and counted like the others */
	assert_int_equal(parse_one(&l, "timelines=100", err), 0);
	assert_int_equal(drmtop_bpf_limit(&l, DRMTOP_LIMIT_TIMELINES), 100);
	def = drmtop_bpf_limits_bytes(&l);
	assert_int_equal(parse_one(&l, "timelines=101", err), 0);
	assert_int_equal(drmtop_bpf_limits_bytes(&l) - def,
			 48 + 8 + sizeof(struct drmtop_timeline));
}

static void test_option_repeatable(void **state)
{
	struct drmtop_options o;
	char *e = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&e, &len);
	char **argv = ARGV("--bpf-map", "jobs=64", "--bpf-map", "ringbuf=4096", "-n", "1");

	(void)state;
	assert_int_equal(drmtop_options_parse(&o, DRMTOP_CMD_TOP, 7, argv, err), 0);
	assert_int_equal(drmtop_bpf_limit(&o.bpf_limits, DRMTOP_LIMIT_JOBS), 64);
	assert_int_equal(drmtop_bpf_limit(&o.bpf_limits, DRMTOP_LIMIT_RINGBUF), 4096);
	drmtop_options_free(&o);
	argv = ARGV("--bpf-map", "jobs=none");
	assert_int_equal(drmtop_options_parse(&o, DRMTOP_CMD_TOP, 3, argv, err), -1);
	fclose(err);
	assert_non_null(strstr(e, "drmtop: invalid --bpf-map 'jobs=none'"));
	free(e);
	drmtop_options_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_sets),
		cmocka_unit_test(test_bad_values_rejected),
		cmocka_unit_test(test_default_memory_under_16mib),
		cmocka_unit_test(test_option_repeatable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
