/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One refresh of drmtop: everything an output (TUI, batch text, JSON) shows, gathered in one
 * place so every output reads the same figures.
 */
#ifndef DRMTOP_FRAME_H
#define DRMTOP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drmtop/bpf_reader.h"
#include "drmtop/options.h"
#include "drmtop/proc_scan.h"
#include "drmtop/reconcile.h"

enum drmtop_status {
	DRMTOP_STATUS_OK,		/* at least one client */
	DRMTOP_STATUS_NO_CLIENT,	/* devices, but nobody has one open */
	DRMTOP_STATUS_NO_DEVICE,	/* no DRM or accel device node at all */
};

struct drmtop_frame {
	unsigned long iteration;	/* 1 for the first frame shown */
	uint64_t realtime_ns;		/* CLOCK_REALTIME when the sample was taken */
	uint64_t interval_ns;		/* measured since the previous sample, 0 for the first */
	enum drmtop_status status;
	unsigned int device_nodes;	/* DRM and accel nodes found under /dev */

	const struct drm_client *clients;
	size_t nr_clients;
	const struct drm_client *gone;	/* clients that closed since the previous sample */
	size_t nr_gone;
	const struct drm_device *devices;
	size_t nr_devices;
	const struct drm_scan_stats *stats;

	/*
	 * Where the figures come from. bpf_reason says why BPF is not among them when it is not,
	 * and what is attached or missing when it is.
	 */
	bool bpf_active;
	const char *bpf_reason;
	/* With bpf_active: the tracer's snapshot and its reconciliation with the clients above. */
	const struct drmtop_bpf_snapshot *bpf;
	const struct drmtop_reconciler *rec;

	const struct drmtop_options *opts;
};

/* Whether the -p filter lets this client through: any of its holders is a wanted pid. */
bool drmtop_frame_shows(const struct drmtop_frame *f, const struct drm_client *c);

/* Plain words for the status, e.g. "no DRM or accelerator device found". */
const char *drmtop_status_message(enum drmtop_status status);
const char *drmtop_status_name(enum drmtop_status status);

/* Counts DRM (/dev/dri) and accel (/dev/accel) character devices below dev_root. */
unsigned int drmtop_count_device_nodes(const char *dev_root);

#endif /* DRMTOP_FRAME_H */
