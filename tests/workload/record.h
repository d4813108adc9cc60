/* SPDX-License-Identifier: GPL-2.0-only */
/* Writes what a run did (the shared record) as JSON; format in tests/workload/README.md. */
#ifndef WL_RECORD_H
#define WL_RECORD_H

#include "scenario.h"
#include "truth_sampler.h"

struct wl_record_info {
	const char *scenario;
	const char *device;
	unsigned int page_size;
	const struct wl_scenario *sc;
	struct truth_sampler *truth;	/* NULL: none taken */
};

/* Both write to path.tmp and rename, so a reader never sees half a file. 0 or -1. */
int wl_write_record(const char *path, const struct wl_record_info *info);
/* The clients open right now, with the pid and fd of every descriptor held. */
int wl_write_ready(const char *path, const char *device);

#endif
