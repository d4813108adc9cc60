/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model: one refresh of drmtop, source-neutral. Sources (the fdinfo scan, the BPF tracer)
 * fill it through drmtop_model_build(); every view (text, TUI, JSON, record, ...) reads only
 * this. Filtering (-p), derived figures (memory "total, else resident", per-device sums, sort
 * keys) and the cross-check of the two sources are done here, once.
 *
 * Strings and arrays belong to the model and stay valid until the next build or
 * drmtop_model_fini(). A figure a source did not report is marked absent (a flag or a
 * has_* field), never stored as 0.
 */
#ifndef DRMTOP_MODEL_H
#define DRMTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DRMTOP_MODEL_LAT_BUCKETS	32	/* log2(ns): bucket b holds [2^b, 2^(b+1)) ns */

enum drmtop_status {
	DRMTOP_STATUS_OK,		/* at least one client */
	DRMTOP_STATUS_NO_CLIENT,	/* devices, but nobody has one open */
	DRMTOP_STATUS_NO_DEVICE,	/* no DRM or accel device node at all */
};

/* drmtop_model_engine.fd: what the driver printed of this engine, and what could be derived. */
#define DRMTOP_FD_BUSY		(1u << 0)	/* drm-engine-<e> (ns) printed */
#define DRMTOP_FD_CYCLES	(1u << 1)
#define DRMTOP_FD_TOTAL_CYCLES	(1u << 2)
#define DRMTOP_FD_MAXFREQ	(1u << 3)
#define DRMTOP_FD_BUSY_RATE	(1u << 4)	/* busy_delta_ns and a ns-based figure valid */
#define DRMTOP_FD_CYCLES_RATE	(1u << 5)	/* cycles_pct valid */
#define DRMTOP_FD_RATE		(1u << 6)	/* pct holds the figure to show */
#define DRMTOP_FD_OVER		(1u << 7)	/* that figure exceeds 100 % */
#define DRMTOP_FD_BACKWARDS	(1u << 8)	/* a counter read lower than before (spec rule) */
/*
 * pct is a share of time, the figure the tracer's is compared with: busy ns, or cycles against
 * total cycles (xe's are GPU timestamp ticks); not cycles against a frequency.
 */
#define DRMTOP_FD_TIME_RATE	(1u << 9)

struct drmtop_fd_engine {
	unsigned int flags;		/* DRMTOP_FD_* */
	uint64_t busy_ns;		/* as printed */
	uint64_t capacity;		/* 1 when not printed */
	uint64_t cycles;
	uint64_t total_cycles;
	uint64_t maxfreq_hz;
	uint64_t busy_effective_ns;	/* monotonic busy counter (the spec's backwards rule) */
	uint64_t busy_delta_ns;		/* over the client's interval, with DRMTOP_FD_BUSY_RATE */
	double cycles_pct;
	double pct;			/* the figure shown, with DRMTOP_FD_RATE */
};

struct drmtop_bpf_figures {
	uint64_t busy_ns;	/* since attach, all the engine's rings, running job too */
	uint64_t jobs;
	/*
	 * Of busy_ns, the time between jobs' run events and their scheduled fences on an idle
	 * ring: the driver started each job somewhere in there (drmtop_bpf.h).
	 */
	uint64_t start_slack_ns;
	bool has_rate;
	uint64_t busy_delta_ns;		/* over the tracer's interval, with has_rate */
	uint64_t jobs_delta;
	double pct;
	/* of pct, points that may precede the driver's start: the figure is in [pct - this, pct] */
	double start_slack_pct;
	/*
	 * Running estimates (drmtop_engine_view): the true figure may be this much lower (a job
	 * counted running had ended) or higher (time an earlier estimate is handing back).
	 */
	double inflight_low_pct, inflight_high_pct;
	/*
	 * Queue-to-run latency since attach, DRMTOP_MODEL_LAT_BUCKETS counts; NULL while no job
	 * has any (most clients: 256 bytes an engine were a tenth of the model at 5,000 clients).
	 */
	const uint64_t *lat_hist;
};

/* One engine of one client, from either source or both. */
struct drmtop_model_engine {
	const char *name;
	bool in_fdinfo;			/* the driver prints this engine for the client */
	struct drmtop_fd_engine fd;	/* valid with in_fdinfo */
	bool in_bpf;			/* the tracer has figures (a matched client has all) */
	struct drmtop_bpf_figures bpf;	/* valid with in_bpf */
	/*
	 * The tracer's run -> done includes time the job did not execute (firmware-scheduled
	 * queues, preemptible rings): its figure is at least fdinfo's, never a lie when higher.
	 */
	bool occupancy;
	bool unmapped;			/* fed by rings the driver table does not map */
	bool diverged;			/* both rates known and too far apart */
	bool inconclusive;		/* as far apart, but the tracer missed events meanwhile */
};

/* drmtop_model_region.present */
#define DRMTOP_MEM_TOTAL	(1u << 0)
#define DRMTOP_MEM_SHARED	(1u << 1)
#define DRMTOP_MEM_RESIDENT	(1u << 2)
#define DRMTOP_MEM_PURGEABLE	(1u << 3)
#define DRMTOP_MEM_ACTIVE	(1u << 4)

struct drmtop_model_region {
	const char *name;		/* "vram", "system0", "memory" (= system memory), ... */
	unsigned int present;		/* DRMTOP_MEM_*: keys printed; others are unknown */
	uint64_t total, shared, resident, purgeable, active;
};

struct drmtop_model_holder {
	pid_t pid;
	int fd;
};

struct drmtop_model_extra {
	const char *key, *value;
};

/* How the tracer's drm_file was tied to the client the driver reports. */
enum drmtop_model_match {
	DRMTOP_MODEL_MATCH_NONE,	/* the tracer alone sees it */
	DRMTOP_MODEL_MATCH_CLIENT_ID,
	DRMTOP_MODEL_MATCH_FD,
};

/* The tracer's side of a client. */
struct drmtop_model_bpf {
	uint64_t uid;			/* the tracer's id of the drm_file, never reused */
	bool kernel;			/* jobs the driver submitted itself */
	bool opened_before_trace;	/* engine figures start at attach */
	uint32_t tgid;
	const char *comm;
	const char *driver;
	bool has_client_id;
	uint64_t client_id;
	int minor;			/* drm_minor.index, -1 unknown */
	enum drmtop_model_match match;
	uint64_t mem_total;		/* GEM bytes of the client's handles */
	uint64_t mem_shared;
	uint64_t mem_imported;
	uint64_t handles;
	bool mem_compared;		/* fdinfo memory known and comparable */
	bool mem_diverged;
	bool mem_inconclusive;		/* they differ, but the tracer lost memory events */
	uint64_t fdinfo_total_bytes;
	/*
	 * Its buffers and jobs full maps refused, and its ended jobs whose cleanup (where they
	 * are counted) is over a second late: totals short
	 */
	uint64_t missed;
};

struct drmtop_model_device;

/*
 * The cgroup of a client's primary holder and the workload its name says it belongs to
 * (cgroup_name.h): from /proc/<pid>/cgroup, else (a client only the tracer saw, one closed)
 * the cgroup its opener was in at open, named from the tracer's cgroup id (cgroup_ids.h).
 * path NULL: not known (no cgroup file, or that cgroup was gone before it could be named).
 */
struct drmtop_model_cgroup {
	const char *path;
	const char *workload;		/* to group by: pod, container, unit, slice, path */
	const char *unit, *slice;	/* innermost systemd service or scope, and slice */
	const char *runtime;		/* "docker", "podman", "containerd", "cri-o", "cri" */
	const char *container;		/* its id, 64 hex digits */
	const char *pod, *qos;		/* Kubernetes pod UID and QoS class */
};

/* One gpu_mem_total report (pid 0: the GPU's global total). */
struct drmtop_model_gpu_mem {
	uint32_t gpu_id;
	pid_t pid;
	uint64_t bytes;
};

struct drmtop_model_client {
	const char *key;		/* stable across refreshes: "<dev>#<client id>", "bpf:<uid>" */
	struct drmtop_model_device *device;
	const char *dev_key;		/* proc_scan.h's; a tracer-only client's from its node */
	const char *driver;		/* NULL when nobody said */
	const char *pdev;
	const char *node;		/* "dri/renderD128" */
	dev_t rdev;
	bool accel;
	pid_t pid;			/* primary holder (lowest pid), or the tracer's tgid */
	int fd;				/* -1 when unknown (tracer only) */
	bool has_uid;			/* owner of <proc root>/<pid> was readable */
	uid_t uid;
	const char *comm;
	const char *cmdline;		/* NULL unless read */
	struct drmtop_model_cgroup cgroup;
	bool has_client_id;
	uint64_t client_id;
	const char *client_name;
	struct drmtop_model_holder *holders;
	size_t nr_holders;

	bool in_fdinfo;			/* the driver reports this client */
	const char *fdinfo_format;	/* "drm", "none", "amdgpu pre-5.19" */
	bool unsupported_format;
	bool is_new;			/* first seen in this refresh: no rates yet */
	uint64_t dt_ns;			/* between this client's two fdinfo reads, 0 if new */
	uint64_t dt_slack_ns;		/* its driver's interval may be this much longer */
	uint64_t sample_ns;		/* monotonic end of that interval */
	unsigned int malformed_lines;
	struct drmtop_model_extra *extras;
	size_t nr_extras;

	/* fdinfo's engines in its order, then those only the tracer has */
	struct drmtop_model_engine *engines;
	size_t nr_engines;
	struct drmtop_model_region *regions;
	size_t nr_regions;

	/*
	 * Derived once: memory over all regions ("total, else resident"), sort keys. A figure no
	 * region printed is absent (has_* false), never 0: 7.x prints drm-resident-* only once some
	 * buffer reports that status.
	 */
	bool has_mem;
	uint64_t mem_total;
	bool has_resident;
	uint64_t mem_resident;
	bool has_shared;
	uint64_t mem_shared;
	/*
	 * The driver's gpu_mem_total for the client's process, summed over its GPUs (a process
	 * figure: every client of the process shows it). Absent where the kernel has no such
	 * tracepoint or the driver reported nothing for the process since the tracer attached.
	 */
	bool has_gpu_mem;
	uint64_t gpu_mem_bytes;
	double busy_sum_pct;		/* sum of the shown engine figures */
	bool over;			/* some engine figure over 100 % */

	struct drmtop_model_bpf *bpf;	/* NULL without the tracer or no matching drm_file */
	bool diverged;			/* an engine or the memory figures disagree */
	/*
	 * The tracer missed events in the interval, or missed some of this client's buffers or
	 * jobs (bpf->missed): its figures may be short (a lower bound) and a disagreement with
	 * fdinfo is no finding (diverged stays false, inconclusive is set).
	 */
	bool lower_bound;
	bool inconclusive;
};

struct drmtop_model_device_engine {
	const char *name;
	bool valid;			/* some client had a figure */
	double pct;			/* sum over the device's shown clients */
	/*
	 * A client's figure is over 100 %, or the clients' busy time is more than the engine could
	 * have run in all their intervals together (only when every figure is time-based: else the
	 * sum over 100 %). The sum of figures of slightly different intervals may exceed 100 %.
	 */
	bool over;
	size_t nr_clients;		/* clients that contributed a figure */
	/* private to the build: busy ns over capacity, and the span the intervals cover */
	bool untimed;			/* some figure is not busy ns over an interval */
	double busy_ns;
	uint64_t window_start_ns, window_end_ns;
};

struct drmtop_model_device {
	const char *key;
	const char *driver;
	const char *pdev;
	const char *node;
	dev_t rdev;
	size_t nr_clients;		/* shown clients of the device */
	struct drmtop_model_device_engine *engines;
	size_t nr_engines;
	struct drmtop_model_region *regions;	/* sums over the shown clients */
	size_t nr_regions;
	uint64_t mem_total;		/* "total, else resident" over regions */
	/*
	 * Its engine columns, for every view: engines[] by name, then rings only the tracer times
	 * that ran a job for one of its shown clients (a ring that never ran one has no column).
	 */
	const char **columns;
	size_t nr_columns;
};

/* A client that closed since the previous refresh. */
struct drmtop_model_closed_engine {
	const char *name;		/* the ring (scheduler) the tracer counted it on */
	/*
	 * The engine the driver's table maps the ring to, as live clients show it ("rcs" for xe's
	 * "rcs<GuC id>"): bounded where ring names are not (a scheduler per user queue); else name.
	 */
	const char *engine;
	uint64_t busy_ns;
	uint64_t jobs;
};

struct drmtop_model_closed {
	bool from_bpf;			/* the tracer's close record (else fdinfo saw it go) */
	bool orphan;			/* close record lost: figures settled by the reader */
	const char *key;		/* fdinfo key of a client fdinfo saw go */
	const char *dev_key;		/* its device, as a live client's (NULL unknown) */
	pid_t pid;
	const char *comm;
	const char *driver;
	bool has_client_id;
	uint64_t client_id;
	struct drmtop_model_bpf bpf;	/* with from_bpf: identity, memory at close */
	struct drmtop_model_cgroup cgroup;	/* the opener's (from_bpf), else the holder's */
	uint64_t open_ns, close_ns;
	struct drmtop_model_closed_engine *engines;
	size_t nr_engines;
	/* from_bpf, no job, held nothing at close, nothing missed: also in idle_closed */
	bool idle;
};

/*
 * Clients the tracer saw close since the previous refresh that ran no job and held no buffer
 * at close, one entry per process, device and cgroup: a process opening and closing a node
 * thousands of times a second (device probing) is one line, not thousands.
 */
struct drmtop_model_idle_closed {
	pid_t pid;
	const char *comm;
	const char *driver;
	const char *dev_key;		/* as a live client's (NULL unknown) */
	int minor;			/* drm_minor.index, -1 unknown */
	struct drmtop_model_cgroup cgroup;	/* the opener's */
	uint64_t clients;
	uint64_t first_open_ns, last_close_ns;
};

/* What the tracer counted of its own: losses and notes. */
enum drmtop_counter_kind {
	DRMTOP_COUNTER_LOSS,		/* something was dropped or could not be attributed */
	DRMTOP_COUNTER_NOTE,		/* informative (clients opened before attach, ...) */
	DRMTOP_COUNTER_TOTAL,		/* totals, for cross-checks */
};

struct drmtop_model_counter {
	const char *name;
	enum drmtop_counter_kind kind;
	uint64_t value;			/* since the tracer attached */
	uint64_t delta;			/* in the last interval (0 at the first refresh) */
};

/* One of the tracer's programs, as the kernel counts it (bpf_prog_info). */
struct drmtop_model_prog {
	const char *name;
	uint64_t recursion_misses;	/* runs the kernel skipped: events never seen */
	uint64_t misses_delta;		/* in the last interval */
	uint64_t run_cnt, run_time_ns;	/* with sysctl kernel.bpf_stats_enabled only */
	uint32_t verified_insns;	/* instructions the verifier walked to load it */
};

/*
 * Everything the tracer missed: loss counters plus skipped program runs that may have cost the
 * figures an event (not those the tracer made up for or that feed nothing it uses here).
 */
struct drmtop_model_missed {
	uint64_t since_start;
	uint64_t interval;
	uint64_t skipped_runs;		/* every recursion miss, since start */
	uint64_t skipped_runs_interval;
	uint64_t skipped_runs_covered;	/* of skipped_runs, made up for or harmless: not missed */
	/*
	 * Of since_start, what may leave a client's memory figure wrong until it closes (memory
	 * is a running sum: a skipped GEM hook run, a full handles or objects map, ...): while
	 * not 0, a memory difference is never called the driver's.
	 */
	uint64_t memory_since_start;
};

struct drmtop_model_bpf_device {
	const char *driver;
	int minor;
	uint64_t gem_objects, gem_bytes;
};

struct drmtop_model_scan {
	unsigned int processes, fds, drm_fds, vanished, denied, errors, malformed_lines,
		unsupported_format, no_client_id, kcmp_failed, new_clients, gone_clients,
		cmdline_blocked;
	bool from_tracer;	/* only the fds the tracer's iterator listed were read */
};

struct drmtop_model {
	unsigned long iteration;	/* frames shown, from 1 */
	uint64_t realtime_ns;		/* CLOCK_REALTIME of the sample */
	uint64_t mono_ns;		/* CLOCK_MONOTONIC of the sample */
	uint64_t interval_ns;		/* since the previous sample, 0 at first */
	enum drmtop_status status;
	unsigned int device_nodes;
	bool filtered;			/* -p given: clients, devices, closed are the wanted ones */

	struct drmtop_model_device *devices;
	size_t nr_devices;
	/* Clients the driver reports (in_fdinfo), sorted by pid then fd, then tracer-only ones. */
	struct drmtop_model_client *clients;
	size_t nr_clients;
	size_t nr_fdinfo_clients;	/* the first nr_fdinfo_clients have in_fdinfo */
	/* One table's engine columns: every device's, then the tracer-only clients' rings. */
	const char **columns;
	size_t nr_columns;
	struct drmtop_model_closed *closed;
	size_t nr_closed;
	/*
	 * Closed clients that ran no job and held nothing, counted per process: closed[] lists
	 * them too only where the model was built for a consumer that follows each client.
	 */
	struct drmtop_model_idle_closed *idle_closed;
	size_t nr_idle_closed;

	bool bpf_active;
	const char *bpf_reason;		/* why not, or what is attached */
	unsigned int bpf_hooks_attached;	/* the tracer's programs attached, of bpf_hooks */
	unsigned int bpf_hooks;
	struct drmtop_model_counter *counters;
	size_t nr_counters;
	struct drmtop_model_prog *progs;
	size_t nr_progs;
	struct drmtop_model_missed missed;	/* with bpf_active */
	/* The tracer's interval behind its rates, CLOCK_MONOTONIC ns (0, 0 without rates) */
	uint64_t bpf_window_start_ns, bpf_window_end_ns;
	uint64_t bpf_snapshot_ns;	/* the time this refresh spent reading the tracer's maps */
	struct drmtop_model_bpf_device *bpf_devices;
	size_t nr_bpf_devices;
	/* gpu_mem/gpu_mem_total: traced where the kernel has it; the reports, -p applied */
	bool gpu_mem_traced;
	struct drmtop_model_gpu_mem *gpu_mem;
	size_t nr_gpu_mem;

	bool has_scan;
	struct drmtop_model_scan scan;

	/* Things the sampler had to say this refresh (a source failing, a part loading). */
	const char **notes;
	size_t nr_notes;

	/* private: storage */
	struct drmtop_model_pool *pool;
};

/* Sort keys, computed in the model so every view sorts alike. */
enum drmtop_sort {
	DRMTOP_SORT_BUSY,	/* highest summed engine busy first */
	DRMTOP_SORT_MEMORY,	/* largest total memory first */
	DRMTOP_SORT_PID,
	DRMTOP_SORT_NAME,	/* command name */
	DRMTOP_SORT_COUNT,
};

const char *drmtop_sort_name(enum drmtop_sort sort);
/* What a row is sorted by, a client's or a group's (groups.h). */
struct drmtop_sort_key {
	double busy_pct;
	uint64_t mem;
	const char *name;
	pid_t pid;
};
/* By @sort, ties by pid; 0 if still tied. */
int drmtop_sort_key_cmp(const struct drmtop_sort_key *a, const struct drmtop_sort_key *b,
			enum drmtop_sort sort);
/* qsort comparator over struct drmtop_model_client pointers; ties by pid, then fd. */
int drmtop_model_cmp(const struct drmtop_model_client *a, const struct drmtop_model_client *b,
		     enum drmtop_sort sort, bool reverse);

void drmtop_model_fini(struct drmtop_model *m);

/* Plain words for the status, e.g. "no DRM or accelerator device found". */
const char *drmtop_status_message(enum drmtop_status status);
const char *drmtop_status_name(enum drmtop_status status);

/* The engine of @c called @name, or NULL. */
const struct drmtop_model_engine *drmtop_model_engine(const struct drmtop_model_client *c,
						      const char *name);
/* The figure a client's engine shows: fdinfo's rate, else the tracer's. false: none yet. */
bool drmtop_model_engine_pct(const struct drmtop_model_engine *e, double *pct);

#endif /* DRMTOP_MODEL_H */
