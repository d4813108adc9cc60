/* SPDX-License-Identifier: GPL-2.0-only */
/* The clocks drmtop reads: CLOCK_MONOTONIC (the BPF maps' bpf_ktime_get_ns clock) and wall time. */
#ifndef DRMTOP_UTIL_CLOCK_H
#define DRMTOP_UTIL_CLOCK_H

#include <stdint.h>

uint64_t drmtop_mono_ns(void);
uint64_t drmtop_real_ns(void);
/*
 * The sampling tick after @deadline, @step_ns on; one that a slow sample (a stall, the tracer
 * attaching) already passed at @now is skipped, the next is @step_ns from @now: frames never come
 * in a burst over intervals of milliseconds, whose rates are noise.
 */
uint64_t drmtop_next_tick(uint64_t deadline, uint64_t step_ns, uint64_t now);

#endif /* DRMTOP_UTIL_CLOCK_H */
