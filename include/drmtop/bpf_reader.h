/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_reader.h: what the BPF tracer (bpf_tracer.h) has accounted, as plain snapshots.
 *
 * Clients are struct drm_file, identified by drmtop_client.uid (unique while the tracer runs;
 * a closed client's drm_file address may be reused, its uid is not). Kernel clients
 * (DRMTOP_CLIENT_KERNEL) carry the jobs drivers submit themselves, one per GPU.
 *
 * Closed clients: every client that closed since the previous snapshot appears once in
 * .closed with its engine figures and the memory it held at close, so a client living between
 * two snapshots is never lost. Jobs of a closed client that were still running at close are
 * reported in a later snapshot as another .closed entry with the same uid (engine figures only,
 * memory zero): consumers add .closed entries up per uid. A client whose close record was lost
 * is reported in .orphans instead (see there).
 */
#ifndef DRMTOP_BPF_READER_H
#define DRMTOP_BPF_READER_H

#include <stddef.h>
#include <linux/types.h>

#include "drmtop_bpf.h"
#include "drmtop/bpf_tracer.h"

struct drmtop_bpf_engine {
	__u64 ring;			/* struct drm_gpu_scheduler address */
	__u64 ring_seq;			/* which scheduler at that address (drmtop_ring.seq) */
	char name[DRMTOP_NAME_LEN];	/* scheduler name, e.g. "gfx"; "" if unknown */
	__u64 busy_ns;			/* overlap-free busy time of the client on this ring */
	__u64 jobs;			/* jobs done */
	__u64 start_slack_ns;		/* of busy_ns, may precede the driver's start */
	__u64 lat_hist[DRMTOP_LAT_BUCKETS];	/* queue-to-run latency, b: [2^b, 2^(b+1)) ns */
	/*
	 * Time the ring's oldest running job of this client has run up to the snapshot's
	 * taken_ns (live clients only): busy_ns grows only when a job ends, so rates over short
	 * intervals add this (busy_ns + running_ns may then step back a little when the job's
	 * hardware end turns out earlier than the snapshot: keep the larger value, as for fdinfo).
	 */
	__u64 running_ns;
};

struct drmtop_bpf_client {
	/*
	 * Identity and memory. For live clients mem_shared is computed at snapshot time with the
	 * rule of drm_show_memory_stats (handle_count > 1 or a dma-buf attached); for closed
	 * clients all memory figures are as of close.
	 */
	struct drmtop_client c;
	size_t n_engines, cap_engines;	/* cap_engines private: allocation size */
	struct drmtop_bpf_engine *engines;
};

struct drmtop_bpf_device {
	__u64 drm_dev;			/* struct drm_device address */
	struct drmtop_device d;		/* driver, live GEM objects/bytes since attach */
};

/*
 * Idle closes of one process, cgroup and node: in .c its tgid, comm, cgroup_id, dev_major,
 * dev_minor, minor_index and driver, open_ns the earliest open, close_ns the latest close, flags
 * DRMTOP_CLIENT_CLOSED; the rest 0.
 */
struct drmtop_bpf_idle {
	struct drmtop_client c;
	__u64 clients;
};

/* One gpu_mem_total figure: the driver's last report for a GPU and a process (0: the GPU). */
struct drmtop_bpf_gpu_mem {
	__u32 gpu_id;
	__u32 pid;
	__u64 bytes;
};

struct drmtop_bpf_snapshot {
	/*
	 * CLOCK_MONOTONIC (the clock of all *_ns fields): the one instant the engine figures
	 * stand for, read after the engine totals and before the running jobs. busy_ns holds no
	 * time after it, running_ns runs exactly up to it.
	 */
	__u64 taken_ns;
	__u64 read_ns;		/* how long reading it took: the refresh's cost in the maps */
	/* cap_*: private, allocation sizes */
	size_t n_clients, cap_clients;
	struct drmtop_bpf_client *clients;
	size_t n_closed, cap_closed;
	struct drmtop_bpf_client *closed;
	size_t n_devices, cap_devices;
	struct drmtop_bpf_device *devices;
	__u64 counters[DRMTOP_CNT_MAX];	/* enum drmtop_counter; names: drmtop_bpf_counter_name() */
	/*
	 * Engine figures of clients whose close record never reached the reader (the ring buffer
	 * was full: counter ringbuf_full), found in the map with no live or closed client for
	 * their uid over a grace period (seconds), then reported here once and deleted from the
	 * map (counter orphan_engines). Flags DRMTOP_CLIENT_CLOSED | DRMTOP_CLIENT_ORPHAN; the
	 * identity (tgid, comm, ...) is the one the previous snapshot saw live, or only the uid
	 * if none did; memory figures are 0 (what it held at close is unknown). Like .closed,
	 * later jobs of the same uid come as further entries: add them up per uid.
	 */
	size_t n_orphans, cap_orphans;
	struct drmtop_bpf_client *orphans;
	/*
	 * gpu_mem/gpu_mem_total where the kernel has it and the tracer attached to it: every
	 * (GPU, process) whose last report since attach was not 0.
	 */
	bool gpu_mem_traced;
	/*
	 * The reports' pids are the kernel's (initial namespace) while drmtop runs in a pid
	 * namespace of its own: they name no process drmtop can see.
	 */
	bool gpu_mem_foreign_pids;
	size_t n_gpu_mem, cap_gpu_mem;
	struct drmtop_bpf_gpu_mem *gpu_mem;
	/*
	 * Clients that closed since the previous snapshot having run no job and held nothing,
	 * counted per process by the programs where the tracer counts them
	 * (drmtop_bpf_open's count_idle; such closes are not in .closed then).
	 */
	size_t n_idle, cap_idle;
	struct drmtop_bpf_idle *idle;
};

/* What a run of a program the kernel skipped costs the tracer's figures (bpf_stats.c). */
enum drmtop_bpf_skip_cost {
	DRMTOP_SKIP_LOST,		/* an event the figures may lack */
	DRMTOP_SKIP_MADE_UP,		/* the tracer makes up for it: counter .made_up_by */
	DRMTOP_SKIP_HARMLESS,		/* it feeds nothing the figures use on this kernel */
};

/* The kernel's own figures of one loaded program (struct bpf_prog_info). */
struct drmtop_bpf_prog_stat {
	char name[48];
	__u64 run_cnt;			/* runs; with BPF stats enabled only */
	__u64 run_time_ns;
	__u64 recursion_misses;		/* runs the kernel skipped: events the tracer missed */
	__u32 verified_insns;		/* the verifier's walk at load (5.16+): its start's cost */
	enum drmtop_bpf_skip_cost skip_cost;
	unsigned int made_up_by;	/* enum drmtop_counter, for DRMTOP_SKIP_MADE_UP */
	unsigned int made_up_also;	/* a second such counter, or DRMTOP_CNT_MAX */
	bool memory;			/* a skipped run may leave memory figures wrong for good */
};

#define DRMTOP_BPF_MAX_PROGS	48

/* Fills @out with up to @max loaded programs of both parts; returns how many. */
size_t drmtop_bpf_prog_stats(const struct drmtop_bpf *b, struct drmtop_bpf_prog_stat *out,
			     size_t max);

/*
 * Fills @s (free it with drmtop_bpf_snapshot_free). Returns 0 or a negative errno; a snapshot
 * that fails loses nothing: what it read of closed clients comes with the next one.
 */
int drmtop_bpf_snapshot(struct drmtop_bpf *b, struct drmtop_bpf_snapshot *s);
void drmtop_bpf_snapshot_free(struct drmtop_bpf_snapshot *s);

/* "clients_full", ... for enum drmtop_counter; NULL if out of range. */
const char *drmtop_bpf_counter_name(unsigned int counter);

/*
 * Every open DRM / accel file of every process, from a task_file iterator: (tgid, fd) ->
 * drm_file address (= drmtop_client.file) and drm_file.client_id where the kernel has it.
 * For reconciling with fdinfo on kernels whose fdinfo client ids are driver-private (6.1).
 * Returns 0 and a malloc'ed array in *recs (count in *n), or a negative errno (-ENOENT if the
 * drm part is not loaded).
 */
int drmtop_bpf_fds(struct drmtop_bpf *b, struct drmtop_fd_rec **recs, size_t *n);

#endif /* DRMTOP_BPF_READER_H */
