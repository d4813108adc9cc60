// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's tick rate, which drm_sched's job timeouts are counted in: taken from two jiffies
 * stamps a second apart (schedstat's "timestamp", or timer_list's "jiffies:" where schedstats
 * are off), as the nearest rate Kconfig offers; unknown, timeouts are read at the lowest rate
 * (the longest they can be), never shorter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "drmtop/kernel_hz.h"

#define SEC	1000000000ull

static void rates(void **state)
{
	(void)state;
	assert_int_equal(drmtop_kernel_hz_from(250, SEC), 250);
	assert_int_equal(drmtop_kernel_hz_from(251, SEC), 250);	/* a tick either side */
	assert_int_equal(drmtop_kernel_hz_from(1001, SEC), 1000);
	assert_int_equal(drmtop_kernel_hz_from(300, SEC), 300);
	assert_int_equal(drmtop_kernel_hz_from(101, SEC), 100);
	assert_int_equal(drmtop_kernel_hz_from(180, SEC), 0);	/* no Kconfig rate */
	assert_int_equal(drmtop_kernel_hz_from(0, SEC), 0);	/* a stalled stamp */
	assert_int_equal(drmtop_kernel_hz_from(250, 0), 0);
}

static void jiffies_as_ns(void **state)
{
	(void)state;
	assert_true(drmtop_jiffies_ns(2500, 250) == 10 * SEC);
	assert_true(drmtop_jiffies_ns(2500, 0) == 25 * SEC);	/* unknown: 100 Hz, the longest */
	assert_true(drmtop_jiffies_ns(INT64_MAX, 1000) == UINT64_MAX);
}

/* A /proc with @file holding @text. */
static void write_proc(const char *dir, const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void measured(void **state)
{
	char dir[] = "/tmp/drmtop-hz-XXXXXX", path[64];
	struct drmtop_kernel_hz h = {}, t = {}, none = {};

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_proc(dir, "schedstat", "version 15\ntimestamp 4295000000\ncpu0 0 0 0\n");
	drmtop_kernel_hz_sample(&h, dir, 7 * SEC);
	write_proc(dir, "schedstat", "version 15\ntimestamp 4295000125\ncpu0 0 0 0\n");
	drmtop_kernel_hz_sample(&h, dir, 7 * SEC + SEC / 2);
	assert_int_equal(h.hz, 0);				/* half a second: not yet */
	write_proc(dir, "schedstat", "version 15\ntimestamp 4295000250\ncpu0 0 0 0\n");
	drmtop_kernel_hz_sample(&h, dir, 8 * SEC);
	assert_int_equal(h.hz, 250);

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	unlink(path);
	write_proc(dir, "timer_list", "now at 5 nsecs\n  .last_jiffies   : 9\njiffies: 1000\n");
	drmtop_kernel_hz_sample(&t, dir, SEC);
	write_proc(dir, "timer_list", "now at 6 nsecs\n  .last_jiffies   : 9\njiffies: 3000\n");
	drmtop_kernel_hz_sample(&t, dir, 3 * SEC);
	assert_int_equal(t.hz, 1000);

	snprintf(path, sizeof(path), "%s/timer_list", dir);
	unlink(path);
	drmtop_kernel_hz_sample(&none, dir, SEC);
	assert_true(none.unreadable);
	assert_int_equal(none.hz, 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rates),
		cmocka_unit_test(jiffies_as_ns),
		cmocka_unit_test(measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
