/* SPDX-License-Identifier: GPL-2.0-only */
/* The clocks drmtop reads: CLOCK_MONOTONIC (the BPF maps' bpf_ktime_get_ns clock) and wall time. */
#ifndef DRMTOP_UTIL_CLOCK_H
#define DRMTOP_UTIL_CLOCK_H

#include <stdint.h>

uint64_t drmtop_mono_ns(void);
uint64_t drmtop_real_ns(void);

#endif /* DRMTOP_UTIL_CLOCK_H */
