/* SPDX-License-Identifier: GPL-2.0-only */
/* The live full-screen view (ncurses). */
#ifndef DRMTOP_TUI_H
#define DRMTOP_TUI_H

#include <signal.h>

#include "drmtop/sampler.h"

/*
 * Runs until q, @stop becomes non-zero (SIGINT/SIGTERM), or opts->iterations refreshes.
 * Returns 0, or -errno when sampling failed.
 */
int drmtop_tui_run(struct drmtop_sampler *s, const volatile sig_atomic_t *stop);

#endif /* DRMTOP_TUI_H */
