/* SPDX-License-Identifier: GPL-2.0-only */
/* Durations, sizes and the clock the workload records its timestamps with. */
#ifndef WL_UNITS_H
#define WL_UNITS_H

#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in ns: the clock simgpu's ktime_get() ground truth uses too. */
int64_t wl_now_ns(void);
int64_t wl_realtime_ns(void);

/* "250us", "10ms", "2s", "1500ns", "1m" (minutes). A bare number is rejected: no default unit. */
bool wl_parse_duration(const char *s, uint64_t *ns);
/* "4096", "64K", "1M", "2G" (binary multiples; "KiB"/"MiB"/"GiB" accepted too). */
bool wl_parse_size(const char *s, uint64_t *bytes);
bool wl_parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out);

#endif
