// SPDX-License-Identifier: GPL-2.0-only
#include <time.h>

#include "drmtop/util/clock.h"

static uint64_t read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t drmtop_mono_ns(void)
{
	return read_ns(CLOCK_MONOTONIC);
}

uint64_t drmtop_real_ns(void)
{
	return read_ns(CLOCK_REALTIME);
}

uint64_t drmtop_next_tick(uint64_t deadline, uint64_t step_ns, uint64_t now)
{
	deadline += step_ns;
	return deadline < now ? now + step_ns : deadline;
}
