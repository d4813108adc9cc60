/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's tick rate (CONFIG_HZ), the unit drm_sched counts a job's timeout in. No interface
 * says it (sysconf's CLK_TCK is USER_HZ, 100 everywhere): it is measured from the jiffies stamp
 * of /proc/schedstat (or timer_list) against CLOCK_MONOTONIC and taken as the nearest rate
 * Kconfig offers.
 */
#ifndef DRMTOP_KERNEL_HZ_H
#define DRMTOP_KERNEL_HZ_H

#include <stdbool.h>
#include <stdint.h>

struct drmtop_kernel_hz {
	uint64_t jiffies0, ns0;		/* the first stamp and when it was read (ns0 0: none) */
	unsigned int hz;		/* 0 until measured */
	bool unreadable;		/* no stamp to read (CONFIG_SCHEDSTATS off): stays 0 */
};

/*
 * Reads the jiffies stamp under @proc ("/proc") at monotonic @now_ns, until one a second or more
 * after the first sets @h->hz.
 */
void drmtop_kernel_hz_sample(struct drmtop_kernel_hz *h, const char *proc, uint64_t now_ns);
/* The Kconfig rate nearest @jiffies ticks in @ns, 0 if none is within 5 %. */
unsigned int drmtop_kernel_hz_from(uint64_t jiffies, uint64_t ns);
/*
 * @jiffies as ns at @hz; while @hz is 0 (unknown) at the lowest rate Kconfig offers, so the
 * longest it can be. UINT64_MAX if it does not fit.
 */
uint64_t drmtop_jiffies_ns(uint64_t jiffies, unsigned int hz);

#endif /* DRMTOP_KERNEL_HZ_H */
