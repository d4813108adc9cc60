/* SPDX-License-Identifier: GPL-2.0-only */
/* Hand-built fdinfo clients and BPF snapshots for the reconcile and record tests. */
#ifndef DRMTOP_TEST_FAKE_CLIENTS_H
#define DRMTOP_TEST_FAKE_CLIENTS_H

#include "drmtop/bpf_reader.h"
#include "drmtop/proc_scan.h"

/* One fdinfo client with one engine whose interval rate is a given figure. */
struct fake_fdinfo {
	struct drm_client c;
	struct drm_fdinfo_engine eng[2];
	struct drm_engine_usage usage[2];
	struct drm_fdinfo_region reg;
	struct drm_client_holder holder;
};

/* @pct is the engine's rate over the interval; its counter (eng[0].busy_ns) starts at 0. */
void fake_fdinfo_init(struct fake_fdinfo *f, uint64_t client_id, const char *engine, double pct,
		      uint64_t total, pid_t pid, int fd);

/* The node the fake clients are on, as a task_file record's fields. */
#define FAKE_NODE .rdev_major = 226, .rdev_minor = 128

/* A BPF client with up to four rings. */
struct fake_bpf {
	struct drmtop_bpf_client bc;
	struct drmtop_bpf_engine eng[4];
};

void fake_bpf_init(struct fake_bpf *b, uint64_t uid, uint64_t file, uint64_t client_id,
		   uint64_t mem_total);
void fake_ring(struct fake_bpf *b, uint64_t ring, const char *name, uint64_t busy_ns,
	       uint64_t jobs);
void fake_snap(struct drmtop_bpf_snapshot *s, struct drmtop_bpf_client *clients, size_t n,
	       uint64_t taken_ns);

#endif /* DRMTOP_TEST_FAKE_CLIENTS_H */
