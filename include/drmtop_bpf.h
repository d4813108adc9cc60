/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drmtop_bpf.h: the records and constants the BPF programs (bpf/) and their userspace reader
 * (src/bpf_*.c) share. Plain fixed-width types only: this file is compiled by clang -target bpf
 * against vmlinux.h and by gcc against the uAPI headers.
 *
 * Keys. A client is a struct drm_file, keyed in BPF by the drm_file's kernel address, and given
 * a "uid" (a per-load sequence number, never reused) so per-engine figures of a client that
 * closed cannot merge with those of a new client that got the same drm_file address. Jobs the
 * driver submits itself are charged to a per-device "kernel" client (DRMTOP_CLIENT_KERNEL)
 * keyed by the address of the GPU's struct device (drm_gpu_scheduler.dev == drm_device.dev).
 */
#ifndef DRMTOP_BPF_H
#define DRMTOP_BPF_H

#ifndef __VMLINUX_H__
#include <stdbool.h>
#include <linux/types.h>
#endif

#define DRMTOP_COMM_LEN		16
#define DRMTOP_NAME_LEN		32
#define DRMTOP_LAT_BUCKETS	32	/* log2(ns) buckets: bucket b holds [2^b, 2^(b+1)) ns */

/*
 * Default map sizes (entries), changed at load with drmtop --bpf-map NAME=N. Every insert that
 * fails (a full map) bumps a DRMTOP_CNT_*_FULL counter. The hash maps are preallocated: an
 * insert on a hot path (every job, every buffer) never allocates, so it costs no allocator
 * call and never fails for want of memory in atomic context. With these sizes they hold about
 * 14.6 MiB of kernel memory (src/sources/bpf_limits.c), under the 16 MiB drmtop promises.
 */
#define DRMTOP_MAX_CLIENTS	4096
#define DRMTOP_MAX_ENGINES	8192	/* (client, ring) pairs */
/*
 * GPU schedulers alive: firmware-scheduled drivers (xe, panthor, pvr, amdxdna) make one per user
 * queue, and an 8-GPU node has over a thousand at boot; entries go at drm_sched_fini.
 */
#define DRMTOP_MAX_RINGS	4096
#define DRMTOP_MAX_JOBS		16384	/* jobs queued and not yet done */
#define DRMTOP_MAX_HANDLES	32768	/* (drm_file, GEM handle) pairs */
#define DRMTOP_MAX_OBJECTS	32768	/* live GEM objects */
#define DRMTOP_MAX_DEVICES	64
#define DRMTOP_MAX_ENTITIES	8192	/* drm_sched entities alive */
#define DRMTOP_MAX_TIMELINES	1024	/* hardware fence contexts (execution units) */
#define DRMTOP_RINGBUF_BYTES	(256 * 1024)
/*
 * A close record wakes the reader's drain thread at most once in this many ms, or when the ring
 * buffer holds a quarter of its bytes (drmtop_close_wakeup); the drain thread takes what came
 * without a wake-up this long after it last found records (bpf_drain.c).
 */
#define DRMTOP_DRAIN_WAKE_MS	25
/*
 * (GPU, process) totals of the gpu_mem/gpu_mem_total tracepoint: fixed, not preallocated (the
 * tracepoint fires on a change of a process's total, never per job; Debian's x86 kernels do
 * not have it, and then the map stays empty).
 */
#define DRMTOP_MAX_GPU_MEM	1024
/*
 * Entities a driver's open callback may make that the fexit of drm_file_alloc claims by key
 * (v3d makes one per queue: 5); more fall back to a walk of the entities map.
 */
#define DRMTOP_OPEN_ENTITIES	8
/*
 * Processes whose idle closes (no job run, nothing held) one refresh interval can count in the
 * idle_closed map, where the live views ask for that; a close beyond it is sent as a record.
 */
#define DRMTOP_MAX_IDLE		1024
/*
 * Slots of the client id array (a power of two): drm_file.client_id counts files system-wide,
 * so a slot is taken only by a client still open this many opens after its own; such an id
 * goes to the client_ids hash instead (drmtop_id_add).
 */
#define DRMTOP_CLIENT_SLOTS	4096

/* One slot of the client id array: the id a client holds it with (0: free), and its file. */
struct drmtop_client_slot {
	__u64 id;
	__u64 file;
};

/* drmtop_client.flags */
#define DRMTOP_CLIENT_KERNEL	(1u << 0)	/* jobs the driver submitted itself */
#define DRMTOP_CLIENT_LATE	(1u << 1)	/* opened before attach: first seen at an ioctl */
#define DRMTOP_CLIENT_CLOSED	(1u << 2)	/* record came from the ring buffer */
#define DRMTOP_CLIENT_ORPHAN	(1u << 3)	/* closed, its record lost: made by the reader */
#define DRMTOP_CLIENT_CLOSING	(1u << 4)	/* inside drm_gem_release: handles going */

/*
 * One DRM client (struct drm_file), value of the "clients" map and payload of the ring buffer
 * record sent when the client closes. Memory figures are running sums of the client's GEM
 * handles; at close they are taken just before the handles are released, so a closed client
 * reports what it held when it closed.
 */
struct drmtop_client {
	__u64 uid;		/* sequence number, unique for the life of the loaded programs */
	__u64 file;		/* drm_file address (kernel client: struct device address) */
	__u64 client_id;	/* drm_file.client_id, 0 where the kernel has none (6.1) */
	__u64 drm_dev;		/* struct drm_device address, 0 for kernel clients */
	__u64 parent_dev;	/* struct device of the GPU: joins kernel clients and rings */
	__u64 open_ns;		/* bpf_ktime_get_ns() at drm_file_alloc (or first sight) */
	__u64 close_ns;		/* at close, 0 while open */
	__u64 mem_total;	/* bytes of all handles (an object counts per handle, as fdinfo) */
	__u64 mem_shared;	/* only filled at close; live value comes from the handles map */
	__u64 mem_imported;	/* bytes of handles made by PRIME fd-to-handle */
	__u64 handles;		/* GEM handles held */
	/*
	 * Process that opened it (first ioctl user for LATE clients), in drmtop's pid namespace:
	 * 0 for a process outside it (bpf/drmtop_pidns.bpf.h).
	 */
	__u32 tgid;
	__u32 pid;		/* thread that opened it (the kernel's id, never shown) */
	__u32 dev_major;	/* char device of the minor opened, 0:0 if unknown */
	__u32 dev_minor;
	__s32 minor_index;	/* drm_minor.index, -1 if unknown */
	__u32 flags;		/* DRMTOP_CLIENT_* */
	char comm[DRMTOP_COMM_LEN];
	char driver[DRMTOP_NAME_LEN];
	/*
	 * This client's buffers and jobs a full map could not hold (also in the *_FULL
	 * counters): its totals are short for as long as the client lives.
	 */
	__u64 missed;
	/*
	 * cgroup v2 id (the cgroup directory's inode number) of the task that made the entry, as
	 * at that moment: the opener's, a LATE client's first ioctl user's; 0 for kernel clients
	 * and those the adoption walk made (their processes' /proc says theirs).
	 */
	__u64 cgroup_id;
	/* when the tracer first charged it a job (0: none): one with none may close idle */
	__u64 first_job_ns;
};

/*
 * A client parked at its open (bpf/drmtop_account.bpf.h, drmtop_park): slot hash(file) of the
 * "parked" array holds it until its first buffer, job or ioctl moves it into the clients map,
 * so an open and close that do nothing else touch no hash. @claim is its file while it is open
 * (0: free), @seq odd while the slot is written, @promoted set once it is in the clients map
 * (the slot stays claimed until the close), @closed the uid its close took. The reader mmaps
 * the array and lists a parked client as it lists the map's (src/sources/bpf_parked.c).
 */
struct drmtop_parked {
	__u64 claim;
	__u64 seq;
	__u64 promoted;
	__u64 closed;
	struct drmtop_client c;
};

/* Slots of the parked array (a power of two): an open whose slot is taken inserts at once. */
#define DRMTOP_PARKED_BITS	10
#define DRMTOP_PARKED_SLOTS	(1u << DRMTOP_PARKED_BITS)

/*
 * Whether client @c, as it closed, ran no job and held nothing, nothing of it missed, and is
 * neither a kernel client nor one opened before attach (which may have run jobs before): an
 * idle close, counted per process rather than listed. The one rule of the programs
 * (drmtop_drm.bpf.c, counted in the kernel) and of the model (close records it gets).
 */
static inline __attribute__((always_inline)) bool drmtop_client_idle(const struct drmtop_client *c)
{
	return !c->first_job_ns && !c->mem_total && !c->mem_shared && !c->mem_imported &&
	       !c->handles && !c->missed &&
	       !(c->flags & (DRMTOP_CLIENT_KERNEL | DRMTOP_CLIENT_LATE));
}

/*
 * Key of the "idle_closed" map (bpf/drmtop_drm.bpf.c): the process, cgroup and node whose idle
 * closes an entry counts, and the reader's epoch (drmtop_idle_sync) it counts them in.
 */
struct drmtop_idle_key {
	__u64 cgroup_id;
	__u32 tgid;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 epoch;		/* the low 32 bits of drmtop_idle_sync.epoch */
	char comm[DRMTOP_COMM_LEN];
};

struct drmtop_idle {
	__u64 clients;		/* idle closes counted */
	__u64 first_open_ns;	/* the earliest open of them */
	__u64 last_close_ns;	/* the latest close */
	__s32 minor_index;
	__u32 pad;
	char driver[DRMTOP_NAME_LEN];
};

/*
 * The handover of idle_closed between the programs and the reader, in the drm part's .bss: the
 * programs add to the epoch's entries, inflight[epoch & 1] counting those doing so; the reader
 * moves the epoch on and takes the old epoch's entries once that count is back to 0.
 */
struct drmtop_idle_sync {
	__u64 epoch;
	__u64 inflight[2];
};

/* Value of the "entities" map: who owns a scheduler entity (bpf/drmtop_common.bpf.h). */
#define DRMTOP_ENTITY_USER	1	/* owner is the drm_file in .file */
#define DRMTOP_ENTITY_PENDING	2	/* made in drm_file_alloc by thread .tid, file unknown */
#define DRMTOP_ENTITY_KERNEL	3	/* created outside any client's open or ioctl */

struct drmtop_entity {
	__u64 file;
	__u32 tid;
	__u16 kind;
	__u16 learnt;		/* owner guessed from the first job (entity made before attach) */
};

/* Value of the "opening" map: a thread inside drm_file_alloc (bpf/drmtop_common.bpf.h). */
struct drmtop_opening {
	__u64 entity[DRMTOP_OPEN_ENTITIES];
	__u32 n;
	__u32 overflow;		/* more than DRMTOP_OPEN_ENTITIES: the fexit walks the map */
	__u32 active;		/* inside drm_file_alloc (task storage outlives the open) */
	__u32 pad;
};

/*
 * Value of the "timelines" map (key: a hardware fence's dma_fence.context): when that timeline's
 * latest job finished.
 */
struct drmtop_timeline {
	__u64 last_done_ns;
	/*
	 * The hardware fence seqno of the latest job accounted on it (0: none yet): a job ending
	 * past the next one waits for its predecessor's made-up end (drmtop_timeline_busy_ns).
	 */
	__u64 last_seqno;
};

/* Per (client, ring) engine figures: key and value of the "engines" map. */
struct drmtop_engine_key {
	__u64 uid;		/* drmtop_client.uid */
	__u64 ring;		/* struct drm_gpu_scheduler address */
	/*
	 * drmtop_ring.seq of the scheduler at that address (0: its rings entry refused): a client
	 * whose queue is destroyed and made again at the same address under another name (xe
	 * exec queues, panthor groups, while the file stays open) has figures apart for each.
	 */
	__u64 ring_seq;
};

struct drmtop_engine {
	__u64 busy_ns;		/* its jobs' run..done, per execution unit without overlap */
	__u64 jobs;		/* jobs done */
	/*
	 * Of busy_ns, the time from a job's run event to its scheduled fence, for jobs that
	 * started on an idle ring: the driver started the job somewhere in between (run_job runs
	 * after the run event, the fence is signalled after run_job returns), so busy_ns is exact
	 * to within this much, over (a preempted scheduler thread, 7.x) rather than under.
	 */
	__u64 start_slack_ns;
	__u64 lat_hist[DRMTOP_LAT_BUCKETS];	/* queue-to-run latency, log2 buckets */
	/*
	 * The ring's name when this entry was made: the rings entry goes with its scheduler
	 * (drm_sched_fini) while the client's figures wait to be read, and its address may be
	 * another scheduler's by then.
	 */
	char ring_name[DRMTOP_NAME_LEN];
};

/* A hardware ring (struct drm_gpu_scheduler): value of the "rings" map, keyed by address. */
struct drmtop_ring {
	__u64 parent_dev;	/* drm_gpu_scheduler.dev */
	__u64 last_done_ns;	/* end of the ring's latest job, whatever unit it ran on */
	char name[DRMTOP_NAME_LEN];	/* drm_gpu_scheduler.name, e.g. "gfx" */
	/*
	 * The latest run event of a job that finished: on a ring of one unit (one hardware fence
	 * context, @lanes 1), jobs finish in the order they ran, so a job that ran before it and
	 * is still in the jobs map lost its done and its cleanup (a GPU reset on 7.x): the reader
	 * ages it out (jobs_aged_out) rather than count it running for ever.
	 */
	__u64 done_run_ns;
	__u32 lanes;		/* hardware fence contexts seen feeding it (LRU re-entries count) */
	__u32 pad;
	/*
	 * Given when the entry is made (the scheduler's first job since its drm_sched_init), from
	 * the client uid sequence: never reused while the programs are loaded, unlike the address.
	 */
	__u64 seq;
	/*
	 * drm_gpu_scheduler.timeout in jiffies (LONG_MAX: MAX_SCHEDULE_TIMEOUT, none): a job still
	 * not done that long after the ring's previous end has been through the driver's timeout
	 * handler, so one the tracer still counts running after twice that lost its done and
	 * cleanup, on a ring of any number of units (bpf_job_aging.c).
	 */
	__u64 timeout;
};

/*
 * In drmtop_job.uid: a job made from its done event alone, ended (run_ns holds its end too,
 * queue_ns its unit's previous end), counted when it is freed, where its queue time can be read.
 */
#define DRMTOP_JOB_ENDED	(1ull << 63)
/*
 * With DRMTOP_JOB_ENDED: a job whose done event came while an earlier job on its execution unit
 * was still unaccounted (that job's done skipped): counted at its own cleanup, after that job's.
 */
#define DRMTOP_JOB_HELD		(1ull << 62)

/* A job between the queue tracepoint and its end: "jobs" map, keyed by drm_sched_fence address. */
struct drmtop_job {
	__u64 uid;		/* client charged (0: unknown, counted); | DRMTOP_JOB_ENDED, ... */
	__u64 ring;		/* scheduler, known from run (or from queue's entity where cheap) */
	__u64 queue_ns;
	__u64 run_ns;		/* 0 until the run tracepoint */
	/*
	 * With DRMTOP_JOB_ENDED, its end: the reader drops one whose cleanup has not come a while
	 * after it (bpf_job_aging.c), however long it ran.
	 */
	__u64 end_ns;
};

/* GEM: "handles" map (key: file + handle) and "objects" map (key: drm_gem_object address). */
struct drmtop_handle_key {
	__u64 file;
	__u32 handle;
	__u32 pad;
};

struct drmtop_handle {
	__u64 obj;
	__u64 size;
	__u64 uid;		/* client holding the handle */
	__u32 imported;		/* made by PRIME fd-to-handle */
	__u32 pad;
};

#define DRMTOP_OBJ_DMABUF	(1u << 0)	/* drm_gem_object.dma_buf was set when last seen */
#define DRMTOP_OBJ_FOREIGN	(1u << 1)	/* import_attach set: memory of another device */
#define DRMTOP_OBJ_SEEN_INIT	(1u << 2)	/* counted in its device's totals */
#define DRMTOP_OBJ_END_DROPPED	(1u << 3)	/* test: its end dropped (bpfdump --drop-object) */

struct drmtop_object {
	__u64 size;
	__u64 drm_dev;
	/* one aligned 64-bit word, flags its upper half: drmtop_flags_update() swaps it whole */
	__u32 handle_count;	/* drm_gem_object.handle_count as of the last handle event */
	__u32 flags;		/* DRMTOP_OBJ_* */
	__u64 uid;		/* client of its first handle, 0 if none had one */
};

/* Per device ("devices" map, keyed by struct drm_device address). */
struct drmtop_device {
	__u64 parent_dev;
	__u64 gem_objects;	/* live objects made since attach (held by a client or not) */
	__u64 gem_bytes;
	__s32 primary_index;	/* a minor index of the device as seen by a client, -1 unknown */
	__u32 pad;
	char driver[DRMTOP_NAME_LEN];
};

/* Per-(pid, fd) mapping produced by the task_file iterator. */
struct drmtop_fd_rec {
	__u64 file;		/* drm_file address */
	__u64 client_id;	/* 0 where drm_file has no client_id */
	__u64 uid;		/* the tracer's client of @file when iterated, 0 none yet */
	__u32 tgid;		/* in drmtop's pid namespace, as the tracer's clients */
	__u32 fd;
	__u32 rdev_major;
	__u32 rdev_minor;
};

/*
 * The "counters" array map: every event the tracer dropped, could not attribute, or merely
 * notes. One table gives each counter its enum, its name (JSON, exporter) and its kind, so a
 * name can never drift from its index. Kinds: LOSS, an event dropped or possibly charged to the
 * wrong client, counted where it happened; NOTE, what the tracer found at attach or the
 * consequence of a loss already counted; TOTAL, totals for cross-checks.
 */
#define DRMTOP_COUNTERS(X)							\
	X(CLIENTS_FULL, clients_full, LOSS)	/* clients map full: not tracked */	\
	X(ENGINES_FULL, engines_full, LOSS)	/* a job's busy time dropped */	\
	X(RINGS_FULL, rings_full, LOSS)						\
	X(JOBS_FULL, jobs_full, LOSS)		/* a queued job not tracked */	\
	X(HANDLES_FULL, handles_full, LOSS)					\
	X(OBJECTS_FULL, objects_full, LOSS)					\
	X(DEVICES_FULL, devices_full, LOSS)					\
	X(TASKS_FULL, tasks_full, LOSS)	/* per-thread task storage refused */	\
	X(RINGBUF_FULL, ringbuf_full, LOSS)	/* a close record lost */	\
	/* run/done of a job never seen queued (queued before attach, or its queue run	\
	 * was skipped: then counted in that program's recursion misses) that the event	\
	 * alone could not attribute (no drm_client_id, or no open client has that id) */	\
	X(RUN_UNKNOWN, run_unknown, NOTE)					\
	X(DONE_UNKNOWN, done_unknown, NOTE)					\
	X(DONE_WITHOUT_RUN, done_without_run, LOSS)	/* no busy time */	\
	/* inferred, not lost: a job first seen at its run event, its client from the	\
	 * fence's drm_client_id; a done without run, its start bracketed by its queue	\
	 * time and its scheduled fence */	\
	X(JOB_FROM_RUN, job_from_run, NOTE)					\
	X(START_FROM_FENCE, start_from_fence, NOTE)				\
	/* a job whose queue and run events were both lost, made from its done event	\
	 * (drm_client_id), from its unit's previous end to its end */			\
	X(JOB_FROM_DONE, job_from_done, NOTE)					\
	X(ENDED_WITHOUT_DONE, ended_without_done, LOSS)	/* cleanup while in flight */	\
	/* a finished job whose done event the kernel skipped, accounted when freed */	\
	X(DONE_AT_CLEANUP, done_at_cleanup, NOTE)				\
	/* a job that ended before an earlier job on its unit was made up: counted at	\
	 * its cleanup, from that job's end (DRMTOP_JOB_HELD) */			\
	X(DONE_HELD, done_held, NOTE)						\
	/* counted by the reader: jobs that lost their done and their cleanup (overtaken on a	\
	 * ring of one unit, or made from their done and never freed), deleted */	\
	X(JOBS_AGED_OUT, jobs_aged_out, LOSS)					\
	/* a user client's job whose client is unknown (its open missed): not accounted */	\
	X(JOB_CLIENT_UNKNOWN, job_client_unknown, LOSS)				\
	X(HANDLE_UNKNOWN, handle_unknown, NOTE)	/* released, made before attach */	\
	X(OBJECT_UNKNOWN, object_unknown, NOTE)					\
	X(CLIENT_LATE, client_late, NOTE)	/* first seen after it opened */	\
	X(ENTITIES_FULL, entities_full, LOSS)					\
	X(ENTITY_GUESSED, entity_guessed, LOSS)	/* pre-attach entity: owner guessed */	\
	X(DONE_NO_HW_TIME, done_no_hw_time, NOTE)	/* end taken at the tracepoint */	\
	X(ADOPT_TRUNCATED, adopt_truncated, LOSS)	/* adoption walk stopped early */	\
	X(ADOPTED, adopted, NOTE)		/* handles that existed at attach */	\
	/* a client whose close hooks were skipped, settled when drm_file_alloc	\
	 * handed its address out again */						\
	X(CLOSE_INFERRED, close_inferred, NOTE)					\
	/* a client whose drm_gem_release exit was skipped, settled in drm_file_free */	\
	X(CLOSE_AT_FREE, close_at_free, NOTE)					\
	X(MEM_UNDERFLOW, mem_underflow, LOSS)	/* a release took more than was held */	\
	/* GEM objects whose end no hook saw (a skipped run, a free path not hooked),	\
	 * settled when drm_gem_private_object_init handed their address out again, or	\
	 * pruned by the reader: device GEM totals were high by them until then */	\
	X(OBJECTS_STALE, objects_stale, LOSS)					\
	/* objects ended at dma_resv_fini of their own reservation object, not at	\
	 * drm_gem_object_release (i915's free path, or a skipped release run) */	\
	X(OBJECT_END_AT_RESV, object_end_at_resv, NOTE)				\
	X(GPU_MEM_FULL, gpu_mem_full, LOSS)	/* a gpu_mem_total report dropped */	\
	/* counted by the reader: engine entries of a client neither live nor known	\
	 * closed (its close record was lost), reported as orphans and deleted */	\
	X(ORPHAN_ENGINES, orphan_engines, LOSS)					\
	/* counted by the reader: idle closes it took while a program still added to	\
	 * them after a second's wait (a count may be short by as many) */		\
	X(IDLE_UNSETTLED, idle_unsettled, LOSS)					\
	/* counted by the reader: idle closes the programs counted per process, no	\
	 * record sent (drmtop_bpf_open's count_idle) */					\
	X(IDLE_COUNTED, idle_counted, TOTAL)					\
	/* hardware timelines (execution units) first seen, and counted by the reader:	\
	 * those the LRU timelines map dropped to make room (a busy one's next job	\
	 * counts from its run event) */						\
	X(TIMELINES, timelines, TOTAL)						\
	X(TIMELINES_EVICTED, timelines_evicted, NOTE)				\
	/* handle entries of closed clients that a skipped handle release left	\
	 * behind: deleted by the reader, or replaced by a new client's handle */	\
	X(HANDLES_PRUNED, handles_pruned, NOTE)					\
	X(JOBS_QUEUED, jobs_queued, TOTAL)	/* tracked from their queue event */	\
	X(JOBS_DONE, jobs_done, TOTAL)						\
	X(KERNEL_JOBS, kernel_jobs, TOTAL)	/* jobs charged to a kernel client */	\
	/* handle events and exports of GEM objects shared before or after them: the	\
	 * reader recounts clients' shared bytes only after this moved */		\
	X(SHARED_EVENTS, shared_events, TOTAL)					\
	/* compare-and-swap loops that gave up after their tries (DRMTOP_CAS_TRIES, GEM	\
	 * flags DRMTOP_FLAGS_CAS_TRIES), other CPUs moving the word on at every one: a	\
	 * unit's end or an object's flags not stored */					\
	X(CAS_GAVE_UP, cas_gave_up, LOSS)

/*
 * gpu_mem/gpu_mem_total (include/trace/events/gpu_mem.h, CONFIG_TRACE_GPU_MEM): the last total a
 * driver reported for a GPU and a process; pid 0 is the GPU's global total. gpu_id is the
 * driver's own GPU number, not a DRM minor.
 */
struct drmtop_gpu_mem_key {
	__u32 gpu_id;
	__u32 pid;
};

enum drmtop_counter {
#define DRMTOP_COUNTER_ENUM(id, name, kind) DRMTOP_CNT_##id,
	DRMTOP_COUNTERS(DRMTOP_COUNTER_ENUM)
#undef DRMTOP_COUNTER_ENUM
	DRMTOP_CNT_MAX
};

#endif /* DRMTOP_BPF_H */
