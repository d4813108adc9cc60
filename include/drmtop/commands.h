/* SPDX-License-Identifier: GPL-2.0-only */
/* drmtop's subcommands: each takes the process's signal flag and returns its exit status. */
#ifndef DRMTOP_COMMANDS_H
#define DRMTOP_COMMANDS_H

#include <signal.h>

#include "drmtop/sampler.h"

/* Runs a record session with the sampler's options; the exit status. */
int drmtop_record_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop);
/* The live view; 0, or -errno with the reason in drmtop_sampler_error() or on stderr. */
int drmtop_tui_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop);

#endif /* DRMTOP_COMMANDS_H */
