/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reconciliation of the two sources: each BPF client (a struct drm_file the tracer accounted)
 * is matched to the fdinfo client the driver reports for the same open file, and their figures
 * over the same interval are compared.
 *
 * Matching: by drm-client-id where the kernel's drm_file has client_id (6.5+) and the fdinfo
 * client prints one, on the same device node; otherwise (6.1, where fdinfo ids are
 * driver-private) through the task_file iterator's (pid, fd) -> drm_file map, using any holder
 * of the fdinfo client.
 *
 * Engines: BPF accounts per hardware ring (drm_gpu_scheduler), fdinfo per engine class. The
 * driver table (drivers.h) says which engine each ring feeds and whether its run -> done is
 * execution or occupancy; a driver it does not know keeps the prefix rule ("gfx_0.0.0" ->
 * "gfx"). Several rings of one engine add up. A ring no rule maps stays an engine of its own,
 * under the ring's name, marked unmapped.
 *
 * Whether the two sources agree is decided in the model (drmtop_model_build), which has both
 * intervals: this only matches clients and groups their rings into engines with rates.
 */
#ifndef DRMTOP_RECONCILE_H
#define DRMTOP_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drmtop/bpf_reader.h"
#include "drmtop/drivers.h"
#include "drmtop/proc_scan.h"

struct drmtop_engine_view {
	char name[DRMTOP_NAME_LEN];	/* fdinfo engine name, or the ring's name if unmapped */
	bool in_fdinfo;			/* the fdinfo client prints this engine */
	bool unmapped;			/* a ring no rule of the driver table maps */
	enum drmtop_timing timing;	/* occupancy when any of its rings is */
	uint64_t busy_ns;		/* BPF, since attach, all rings of the engine */
	uint64_t jobs;
	uint64_t start_slack_ns;	/* of busy_ns, may precede the driver's start */
	uint64_t busy_delta_ns;		/* over the interval; valid with has_rate */
	uint64_t jobs_delta;
	uint64_t start_slack_delta_ns;	/* of busy_delta_ns, may precede the driver's start */
	bool has_rate;
	double bpf_pct;			/* 100 * busy_delta_ns / interval */
	double start_slack_pct;		/* 100 * start_slack_delta_ns / interval */
	/*
	 * Running estimates make busy_delta_ns uncertain: the true figure lies in
	 * [busy_delta_ns - inflight_low_delta_ns, busy_delta_ns + inflight_high_delta_ns]
	 * (a job counted as running had ended; the previous estimate was handed back).
	 */
	uint64_t inflight_low_delta_ns, inflight_high_delta_ns;
	double inflight_low_pct, inflight_high_pct;	/* the same, 100 * ns / interval */
	/*
	 * Queue-to-run latency since attach, DRMTOP_LAT_BUCKETS counts; NULL until a ring of it
	 * has one (inline, 256 bytes an engine were 4.9 MB of views at 5,000 idle clients).
	 */
	__u64 *lat_hist;
};

/* How a BPF client was tied to its fdinfo client. */
enum drmtop_match {
	DRMTOP_MATCH_NONE,
	DRMTOP_MATCH_CLIENT_ID,
	DRMTOP_MATCH_FD,
};

struct drmtop_client_view {
	enum drmtop_match match;
	size_t fdinfo_index;		/* index in the scan's clients, valid unless MATCH_NONE */
	struct drmtop_client c;		/* BPF identity and memory */
	uint64_t mem_shared;		/* drm_show_memory_stats rule, at snapshot time */
	struct drmtop_engine_view *engines;
	size_t nr_engines;
};

struct drmtop_reconciler;

struct drmtop_reconciler *drmtop_reconciler_new(void);
void drmtop_reconciler_free(struct drmtop_reconciler *r);

/*
 * Computes the rates of @snap's live clients against the previous call and matches them to
 * @clients by client id. Results stay valid until the next call. 0 or -ENOMEM.
 */
int drmtop_reconcile(struct drmtop_reconciler *r, const struct drmtop_bpf_snapshot *snap,
		     const struct drm_client *clients, size_t nr_clients);
/*
 * Second pass when drmtop_reconcile_wants_fds(): matches the fdinfo clients still unmatched
 * through the task_file map. 0 or -ENOMEM.
 */
int drmtop_reconcile_fds(struct drmtop_reconciler *r, const struct drm_client *clients,
			 size_t nr_clients, const struct drmtop_fd_rec *fds, size_t nr_fds);

/* Every live BPF client with its view, matched or not. */
const struct drmtop_client_view *drmtop_reconciled(const struct drmtop_reconciler *r, size_t *nr);
/* The view matched to fdinfo client @fdinfo_index, or NULL. */
const struct drmtop_client_view *drmtop_reconciled_for(const struct drmtop_reconciler *r,
						       size_t fdinfo_index);
/* The tracer's interval behind the rates of the latest call: [*start, *end], CLOCK_MONOTONIC. */
void drmtop_reconcile_window(const struct drmtop_reconciler *r, __u64 *start, __u64 *end);

/* True when some fdinfo client is still unmatched while unmatched BPF clients exist. */
bool drmtop_reconcile_wants_fds(const struct drmtop_reconciler *r);

#endif /* DRMTOP_RECONCILE_H */
