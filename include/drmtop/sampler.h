/* SPDX-License-Identifier: GPL-2.0-only */
/* Takes samples from drmtop's sources and turns each into a frame for the outputs. */
#ifndef DRMTOP_SAMPLER_H
#define DRMTOP_SAMPLER_H

#include "drmtop/frame.h"
#include "drmtop/options.h"

struct drmtop_sampler {
	const struct drmtop_options *opts;
	struct drm_scan *scan;
	struct drmtop_bpf *bpf;		/* NULL when the tracer could not be opened */
	struct drmtop_bpf_snapshot snap;
	bool have_snap;
	struct drmtop_reconciler *rec;
	const char *dev_root;
	uint64_t prev_ns;		/* monotonic time of the previous sample, 0 at first */
	unsigned long iteration;
	bool bpf_active;
	char bpf_reason[256];
};

/* 0, or -errno with a message on stderr (also when --source bpf and the tracer cannot open). */
int drmtop_sampler_init(struct drmtop_sampler *s, const struct drmtop_options *opts,
			const char *dev_root);
/* Samples every source and fills @f (valid until the next call). 0 or -errno. */
int drmtop_sampler_next(struct drmtop_sampler *s, struct drmtop_frame *f);
void drmtop_sampler_fini(struct drmtop_sampler *s);

/* CLOCK_MONOTONIC / CLOCK_REALTIME in ns. */
uint64_t drmtop_mono_ns(void);
uint64_t drmtop_real_ns(void);

#endif /* DRMTOP_SAMPLER_H */
