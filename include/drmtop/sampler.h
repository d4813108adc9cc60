/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampler: takes one sample of every source (the fdinfo scan, the BPF tracer), reconciles
 * them and builds the model (model.h) the views read. It prints nothing once set up: what it
 * has to say goes into the model's notes, and a fatal error into drmtop_sampler_error().
 */
#ifndef DRMTOP_SAMPLER_H
#define DRMTOP_SAMPLER_H

#include <stdbool.h>

#include "drmtop/model.h"
#include "drmtop/options.h"

struct drmtop_sampler;

/* 0, or -errno with a message on stderr (also when --source bpf and the tracer cannot open). */
int drmtop_sampler_new(struct drmtop_sampler **out, const struct drmtop_options *opts,
		       const char *dev_root);
/*
 * Samples every source and rebuilds @m (valid until the next call). 0, or -errno with the
 * reason in drmtop_sampler_error(): the caller prints it (after restoring the terminal).
 */
int drmtop_sampler_next(struct drmtop_sampler *s, struct drmtop_model *m);
const char *drmtop_sampler_error(const struct drmtop_sampler *s);
const struct drmtop_options *drmtop_sampler_opts(const struct drmtop_sampler *s);
void drmtop_sampler_free(struct drmtop_sampler *s);

#endif /* DRMTOP_SAMPLER_H */
