/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Samples simgpu's own per-client engine time (debugfs ground truth) at a fixed period, so a
 * test can know exactly how busy each client was in whatever window an observer such as drmtop
 * happened to measure. The driver's figures, not the workload's: jobs of one client queue
 * behind others' and wait for the scheduler, which only the driver sees.
 */
#ifndef WL_TRUTH_SAMPLER_H
#define WL_TRUTH_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "json_out.h"

#define SIMGPU_DEBUGFS_CLIENTS "/sys/kernel/debug/simgpu/clients"

struct truth_sample {
	int64_t t_ns;		/* CLOCK_MONOTONIC right after the read */
	uint64_t client_id;
	uint64_t busy_ns[3];	/* gfx, compute, copy */
};

struct truth_sampler {
	const char *path;
	int64_t period_ns;
	int64_t next_ns;
	bool lost;		/* a read failed or the buffer was full */
	unsigned int nr, cap;
	struct truth_sample *s;
};

/* Checks that path is readable now. 0 or -1 with a message. */
int truth_sampler_init(struct truth_sampler *ts, const char *path, uint64_t period_ns);
/* Takes a sample if one is due at now; returns the time the next one is due. */
int64_t truth_sampler_tick(struct truth_sampler *ts, int64_t now);
void truth_sampler_write(struct truth_sampler *ts, struct json_out *j);
void truth_sampler_free(struct truth_sampler *ts);

#endif
