/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drmtop_account.bpf.h: the accounting arithmetic of the tracer, free of kernel types so the
 * same code runs in the real programs (drmtop_sched.bpf.c, drmtop_drm.bpf.c) and in the test
 * object (drmtop_test.bpf.c) that tests/unit/test_bpf_account.c drives with BPF_PROG_TEST_RUN.
 */
#ifndef DRMTOP_ACCOUNT_BPF_H
#define DRMTOP_ACCOUNT_BPF_H

#include "drmtop_bpf.h"

/*
 * Busy time of a job that ran from @run_ns to @done_ns on a ring whose previous job finished at
 * *@last_done_ns. A ring with a hardware queue deeper than one has several jobs "running" at
 * once, but jobs on one ring finish in order, so the job only adds the time after the previous
 * job finished: the union of the intervals, as drm_sched itself computes a job's start
 * (drm_sched_get_finished_job). *@last_done_ns advances to @done_ns.
 */
static __always_inline __u64 drmtop_busy_ns(__u64 run_ns, __u64 done_ns, __u64 *last_done_ns)
{
	__u64 start = run_ns > *last_done_ns ? run_ns : *last_done_ns;

	if (done_ns > *last_done_ns)
		*last_done_ns = done_ns;
	return done_ns > start ? done_ns - start : 0;
}

/* log2 bucket of a latency in ns: 0 and 1 ns land in bucket 0, the last bucket is open-ended. */
static __always_inline __u32 drmtop_lat_bucket(__u64 ns)
{
	__u32 b = 0;

	if (ns >> 32) {
		ns >>= 32;
		b += 32;
	}
	if (ns >> 16) {
		ns >>= 16;
		b += 16;
	}
	if (ns >> 8) {
		ns >>= 8;
		b += 8;
	}
	if (ns >> 4) {
		ns >>= 4;
		b += 4;
	}
	if (ns >> 2) {
		ns >>= 2;
		b += 2;
	}
	if (ns >> 1)
		b += 1;
	return b < DRMTOP_LAT_BUCKETS ? b : DRMTOP_LAT_BUCKETS - 1;
}

/*
 * Memory counters never wrap, because both directions are single atomic operations and every
 * subtract follows its add: the programs add a handle's or object's bytes before they publish
 * the map entry a release looks up. The former check of the value followed by a subtract (or
 * a plain store of 0) was not atomic: two releases could both pass the check and wrap the
 * counter, a store of 0 lost adds racing with it, and a release that ran before its add was
 * clamped and its bytes then counted for ever. drmtop_mem_sub returns false when it took more
 * than the counter held (bytes never added: a missed event), for the caller to count.
 */
static __always_inline void drmtop_mem_add(__u64 *v, __u64 bytes)
{
	__sync_fetch_and_add(v, bytes);
}

static __always_inline bool drmtop_mem_sub(__u64 *v, __u64 bytes)
{
	return __sync_fetch_and_sub(v, bytes) >= bytes;
}

#endif /* DRMTOP_ACCOUNT_BPF_H */
