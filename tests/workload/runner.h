/* SPDX-License-Identifier: GPL-2.0-only */
/* Runs one process of a scenario: its script's steps, then holding, closing and exiting. */
#ifndef WL_RUNNER_H
#define WL_RUNNER_H

#include <stdbool.h>

#include "scenario.h"

struct wl_run_opts {
	const struct wl_scenario *sc;
	const char *device;
	bool hold;		/* park at the end of every script (not after "exit") until stopped */
	bool verbose;
};

/*
 * In a freshly forked process: becomes process slot proc running declaration decl. Its exit
 * status is 0 only if every step succeeded.
 */
_Noreturn void wl_run_process(const struct wl_run_opts *o, int decl, int proc);

/* Forks a process for declaration decl; its slot is made by the caller. Returns its pid or -1. */
int wl_spawn(const struct wl_run_opts *o, int decl, int proc);

#endif
