/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the sources fill the model (include/drmtop/model.h). Only the sampler and tests include
 * this: views never see the sources' own records.
 */
#ifndef DRMTOP_MODEL_BUILD_H
#define DRMTOP_MODEL_BUILD_H

#include "drmtop/bpf_reader.h"
#include "drmtop/cgroup_ids.h"
#include "drmtop/model.h"
#include "drmtop/proc_scan.h"
#include "drmtop/reconcile.h"

struct drmtop_model_input {
	uint64_t realtime_ns, mono_ns, interval_ns;
	unsigned int device_nodes;

	/* fdinfo scan: clients of this sample, those gone since the previous one, its counts */
	const struct drm_client *clients;
	size_t nr_clients;
	const struct drm_client *gone;
	size_t nr_gone;
	const struct drm_scan_stats *stats;	/* NULL: no scan */

	/* The tracer: NULL snap/rec when it is not active. */
	bool bpf_active;
	const char *bpf_reason;
	unsigned int bpf_hooks_attached, bpf_hooks;
	const struct drmtop_bpf_snapshot *snap;
	const struct drmtop_reconciler *rec;
	/* The tracer's counters at the previous refresh (NULL at the first): interval figures */
	const __u64 *prev_counters;
	const struct drmtop_bpf_prog_stat *progs;
	size_t nr_progs;
	const struct drmtop_bpf_prog_stat *prev_progs;	/* matched by name */
	size_t nr_prev_progs;

	/*
	 * closed[] has every closed client, the idle ones (idle_closed) too: for consumers that
	 * follow each client (record, the exporter); else those are only counted.
	 */
	bool each_closed;

	/* -p: only clients held by these processes (none: all) */
	const pid_t *pids;
	size_t nr_pids;
	double diverge_pct;		/* --diverge-threshold */

	const char *const *notes;
	size_t nr_notes;

	const char *proc_root;		/* where a client's owner is read; NULL: not read */
	/*
	 * The device key of a node a tracer-only or closed client is on, as the scan names its
	 * clients' (drm_scan_node_key): copied at once. NULL, or NULL returned: not named.
	 */
	const char *(*node_key)(void *ctx, dev_t rdev);
	void *node_key_ctx;
	/*
	 * Names the tracer's cgroup ids (its opener's, drmtop_client.cgroup_id) for the clients
	 * whose process's /proc gave none: tracer-only and closed clients. NULL: not named.
	 */
	struct drmtop_cgroup_ids *cgroup_ids;
};

/* Replaces @m's contents with the refresh described by @in. 0 or -ENOMEM (@m is then empty). */
int drmtop_model_build(struct drmtop_model *m, const struct drmtop_model_input *in);

/*
 * Whether two rates over windows [fd_start, fd_end] and [bpf_start, bpf_end] (ns) disagree:
 * the part of either window the other does not cover can hold at most its length of busy time,
 * so that much difference is explained by the windows alone; beyond it plus @threshold_pct
 * points, the sources disagree.
 */
bool drmtop_rates_diverge(double fd_pct, uint64_t fd_start, uint64_t fd_end, double bpf_pct,
			  uint64_t bpf_start, uint64_t bpf_end, double threshold_pct);

#endif /* DRMTOP_MODEL_BUILD_H */
