// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel_hz.c: the kernel's tick rate, measured (kernel_hz.h says why). Checked on Debian 6.1,
 * 6.12 and 7.2, whose kernels stamp /proc/schedstat with "timestamp <jiffies>"
 * (CONFIG_SCHEDSTATS), and on a 6.18 without schedstats, whose /proc/timer_list has "jiffies: N".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "drmtop/kernel_hz.h"

/* CONFIG_HZ_100, _250, _300, _1000: the rates x86 and arm64 Kconfig offer */
static const unsigned int hz_choices[] = { 100, 250, 300, 1000 };

#define MEASURE_NS	1000000000ull	/* +-1 jiffy in a second: 1 % at 100 Hz */

unsigned int drmtop_kernel_hz_from(uint64_t jiffies, uint64_t ns)
{
	double rate = ns ? (double)jiffies * 1e9 / (double)ns : 0;
	size_t i;

	for (i = 0; i < sizeof(hz_choices) / sizeof(hz_choices[0]); i++)
		if (rate > hz_choices[i] * 0.95 && rate < hz_choices[i] * 1.05)
			return hz_choices[i];
	return 0;
}

uint64_t drmtop_jiffies_ns(uint64_t jiffies, unsigned int hz)
{
	if (!hz)
		hz = hz_choices[0];
	if (jiffies > UINT64_MAX / 1000000000ull)
		return UINT64_MAX;
	return jiffies * 1000000000ull / hz;
}

/* The jiffies stamp of <@proc>/schedstat, or of timer_list where schedstats are off (root). */
static int read_stamp(const char *proc, uint64_t *jiffies)
{
	static const char *const files[] = { "schedstat", "timer_list" };
	char path[4096], line[256];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;
		int err = -1;

		snprintf(path, sizeof(path), "%s/%s", proc, files[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (err && fgets(line, sizeof(line), f))
			if (sscanf(line, "timestamp %" SCNu64, jiffies) == 1 ||
			    sscanf(line, "jiffies: %" SCNu64, jiffies) == 1)
				err = 0;
		fclose(f);
		if (!err)
			return 0;
	}
	return -1;
}

void drmtop_kernel_hz_sample(struct drmtop_kernel_hz *h, const char *proc, uint64_t now_ns)
{
	uint64_t j;

	if (h->hz || h->unreadable)
		return;
	if (read_stamp(proc, &j)) {
		h->unreadable = true;
		return;
	}
	if (!h->ns0) {
		h->jiffies0 = j;
		h->ns0 = now_ns;
	} else if (now_ns - h->ns0 >= MEASURE_NS) {
		h->hz = drmtop_kernel_hz_from(j - h->jiffies0, now_ns - h->ns0);
		if (!h->hz) {
			/* a clock step or a stalled stamp: measure again from here */
			h->jiffies0 = j;
			h->ns0 = now_ns;
		}
	}
}
