/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simgpu: a simulated GPU whose jobs go through the real drm_sched, so drm_sched's tracepoints,
 * fdinfo and GEM paths behave as on a real drm_sched driver. Internal declarations.
 *
 * Built and run on Debian 12 kernels 6.1.0-56-amd64 (6.1.192) and 6.12.117+deb12-amd64, and on
 * Debian unstable's 7.2.13+deb14-amd64.
 */
#ifndef SIMGPU_DRV_H
#define SIMGPU_DRV_H

#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/gpu_scheduler.h>

#include "simgpu_drm.h"
#include "simgpu_compat.h"

#define SIMGPU_MAX_CAPACITY	8
#define SIMGPU_MAX_QUEUE_DEPTH	64
#define SIMGPU_MAX_BOS_PER_JOB	256
#define SIMGPU_MAX_DURATION_NS	(60ULL * NSEC_PER_SEC)
/* Driver-internal work carries this client id, in debugfs and in drm_sched_fence.drm_client_id. */
#define SIMGPU_KERNEL_CLIENT_ID	0

/* Module parameters (simgpu_drv.c). */
extern unsigned int simgpu_queue_depth[SIMGPU_ENGINE_COUNT];
extern unsigned int simgpu_engine_capacity[SIMGPU_ENGINE_COUNT];
extern unsigned int simgpu_fdinfo_scale_pct;
extern bool simgpu_clear_jobs;
extern bool simgpu_own_free;
extern unsigned int simgpu_clear_ns_per_mib;
extern unsigned int simgpu_max_bo_mib;
extern unsigned int simgpu_keep_closed;
extern unsigned int simgpu_job_timeout_ms;
extern unsigned int simgpu_free_delay_ms;
void simgpu_free_work(struct work_struct *work);

extern unsigned int simgpu_profiling;

extern const char *const simgpu_engine_names[SIMGPU_ENGINE_COUNT];

/* What a personality's fdinfo prints (simgpu_fdinfo.c). */
enum simgpu_fdinfo {
	SIMGPU_FDINFO_ENGINES,		/* drm-engine-<e> (or cycles) and memory: most drivers */
	SIMGPU_FDINFO_MEMORY,		/* memory keys only (etnaviv 7.x) */
	SIMGPU_FDINFO_NONE,		/* no show_fdinfo at all (lima, nouveau, powervr, rocket) */
	/*
	 * panthor 7.x: drm-maxfreq-/drm-curfreq- always; drm-engine- and drm-cycles- of all
	 * queues together, each only while its profiling bit is set (profiling=, as panthor's
	 * sysfs "profiling": 1 cycles, 2 timestamps).
	 */
	SIMGPU_FDINFO_PROFILED,
};

/* How a personality names its per-file queue schedulers (simgpu_queue.c). */
enum simgpu_queue_naming {
	SIMGPU_QUEUE_NAME_ID,		/* name + device-wide number (xe: "rcs<GuC id>") */
	SIMGPU_QUEUE_NAME_PLAIN,	/* the name alone (nouveau, powervr, panthor 6.12) */
	SIMGPU_QUEUE_NAME_CLIENT,	/* "<name>-<client id>-<group>-<queue>" (panthor 7.x) */
};

/*
 * What simgpu looks like to a tool that does not read its debugfs (module parameter
 * personality=, simgpu_drv.c): the DRM driver name (fdinfo drm-driver, DRM_IOCTL_VERSION, the
 * platform driver bound to the device), each engine's scheduler name (drm_sched tracepoints'
 * ring=) and fdinfo engine name, and the client id the driver's own jobs carry in their fence.
 * The hardware model, the uAPI and debugfs (gfx, compute, copy) stay the same.
 */
struct simgpu_personality {
	const char *name;			/* the parameter's value */
	const char *driver_name;
	const char *ring_names[SIMGPU_ENGINE_COUNT];
	const char *fdinfo_names[SIMGPU_ENGINE_COUNT];
	unsigned int credit_limit;		/* forced on every engine; 0: queue_depth= */
	bool fdinfo_skip_unused;		/* no drm-engine-<e> line while its time is 0 */
	u64 kernel_job_id;			/* drm_sched_fence.drm_client_id of kernel jobs */
	bool bind_driver;			/* bind a platform driver named driver_name */
	/*
	 * Firmware scheduling (simgpu_queue.c): each file gets one scheduler per engine, named
	 * queue_names[e] and a device-wide queue number; ring_names then name the schedulers
	 * of the driver's own jobs. NULL: one shared scheduler per engine.
	 */
	const char *queue_names[SIMGPU_ENGINE_COUNT];
	enum simgpu_queue_naming queue_naming;
	/* One more scheduler per file that runs no job here (VM_BIND's: nouveau, panthor). */
	const char *bind_name;
	bool fdinfo_cycles;			/* drm-cycles-/drm-total-cycles- (xe), no ns */
	enum simgpu_fdinfo fdinfo;
	/*
	 * A compute accelerator: an accel node (/dev/accel/accelN, DRIVER_COMPUTE_ACCEL) and no
	 * render or primary node, on kernels that have accel (6.2+); a render node before.
	 */
	bool accel;
};

extern const struct simgpu_personality *simgpu_pers;

struct simgpu_engine_stats {
	u64 submitted;		/* jobs pushed to drm_sched */
	u64 completed;		/* jobs whose execution ended (hardware fence signalled) */
	u64 cancelled;		/* jobs freed without being executed (entity killed, errors) */
	u64 busy_ns;		/* sum of the execution intervals of completed jobs */
	u64 done_seqno;		/* newest seqno that completed or was cancelled */
};

/*
 * One per drm_file, plus the driver's own "kernel" client. Outlives its drm_file: jobs still on
 * the ring hold a reference, and closed clients stay listed in debugfs with their final figures.
 */
struct simgpu_client {
	struct kref ref;
	struct list_head node;		/* sdev->clients or sdev->closed_clients */
	struct simgpu_device *sdev;
	u64 id;
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	bool kernel;
	bool closed;			/* under sdev->clients_lock */
	struct drm_file *file;		/* NULL once closing; under sdev->clients_lock */
	/* Engine e's stats are under sdev->engines[e].lock. */
	struct simgpu_engine_stats eng[SIMGPU_ENGINE_COUNT];
	/* Handles this client holds, counted by the GEM open/close callbacks. */
	atomic64_t bo_count;
	atomic64_t bo_bytes;
	wait_queue_head_t wq;		/* WAIT ioctl sleepers */
};

/*
 * A user queue of a firmware-scheduled GPU: drm_sched only feeds the firmware, so each queue has
 * a scheduler (and a hardware fence timeline) of its own, and run_job hands the job to the
 * engine's lane at once however busy the lane is: the job then waits there, in "firmware",
 * behind the other queues' jobs. run -> done is occupancy; fdinfo counts execution.
 */
struct simgpu_queue {
	struct drm_gpu_scheduler sched;
	struct drm_gpu_scheduler *sched_list[1];
	char name[32];			/* the scheduler's (ring=): must outlive it */
	unsigned int lane;		/* one lane per queue: its fences signal in order */
	u64 fence_context;
	u64 fence_seqno;		/* under the engine's lock */
	bool ready;
};

/* drm_file.driver_priv */
struct simgpu_file {
	struct simgpu_client *client;
	struct simgpu_queue queue[SIMGPU_ENGINE_COUNT];	/* personalities with queue_names */
	struct simgpu_queue bind;			/* personalities with bind_name */
	struct drm_sched_entity entity[SIMGPU_ENGINE_COUNT];
	struct mutex submit_lock[SIMGPU_ENGINE_COUNT];	/* job arm + push order = seqno order */
};

/*
 * One execution unit of an engine: a FIFO of jobs. Job k executes from max(run_job time,
 * end of job k-1) for its duration; the hrtimer is the completion interrupt of the head job.
 */
struct simgpu_lane {
	struct simgpu_hw_engine *engine;
	unsigned int index;
	/* Handed to the hardware, not completed; under engine->lock. */
	struct list_head jobs;
	ktime_t busy_until;		/* end of the last job queued on this lane */
	u64 fence_context;
	u64 fence_seqno;
	struct hrtimer timer;
};

struct simgpu_hw_engine {
	struct simgpu_device *sdev;
	enum simgpu_engine id;
	const char *name;
	unsigned int queue_depth;
	unsigned int capacity;
	struct drm_gpu_scheduler sched;
	struct drm_gpu_scheduler *sched_list[1];	/* for drm_sched_entity_init() */
	bool sched_ready;
	spinlock_t lock;		/* lanes, hardware fences, all clients' eng[id] stats */
	struct simgpu_lane lanes[SIMGPU_MAX_CAPACITY];
	struct simgpu_engine_stats total;
	u64 total_submitted_kernel;
	/* How late the completion hrtimer signalled jobs after their modelled end. */
	u64 irq_lag_total_ns;
	u64 irq_lag_max_ns;
};

struct simgpu_device {
	struct drm_device drm;
	struct platform_device *pdev;
	unsigned int index;		/* devices= order: debugfs simgpu/, simgpu1/, ... */
	struct simgpu_hw_engine engines[SIMGPU_ENGINE_COUNT];

	struct mutex clients_lock;
	struct list_head clients;
	struct list_head closed_clients;
	unsigned int nr_closed;
	u64 closed_dropped;		/* closed clients evicted from the list (keep_closed) */
	atomic64_t next_client_id;	/* kernels whose drm_file has no client_id */

	/* Driver-internal work (BO clears) goes through this entity on the copy engine. */
	struct simgpu_client *kclient;
	struct drm_sched_entity kentity;
	bool kentity_ready;
	struct mutex ksubmit_lock;

	atomic_t next_queue_id;		/* queue numbers, as xe's GuC ids (simgpu_queue.c) */
	atomic_t jobs_alive;		/* allocated, not yet freed: module exit waits for 0 */
	/* free_delay_ms: jobs drm_sched handed back, freed by free_work in that order */
	spinlock_t free_lock;
	struct list_head free_list;
	struct delayed_work free_work;
	atomic64_t bo_alive;		/* GEM objects of this device not yet freed */
	atomic64_t bo_alive_bytes;

	struct dentry *debugfs;
};

struct simgpu_job {
	struct dma_fence hw_fence;	/* first: dma_fence_free() frees the whole job */
	struct drm_sched_job base;
	struct simgpu_client *client;
	enum simgpu_engine engine;
	struct simgpu_queue *queue;	/* NULL: the engine's shared scheduler */
	u64 seqno;
	u64 duration_ns;
	bool ran;			/* run_job handed it to a lane */
	struct simgpu_lane *lane;
	struct list_head lane_node;
	ktime_t start;
	ktime_t end;
	struct drm_gem_object **bos;
	u32 nr_bos;
	struct list_head free_node;	/* on the device's free_list (free_delay_ms) */
	unsigned long free_at;		/* jiffies */
};

struct simgpu_bo {
	struct drm_gem_shmem_object base;
};

static inline struct simgpu_device *to_simgpu(struct drm_device *drm)
{
	return container_of(drm, struct simgpu_device, drm);
}

static inline struct simgpu_job *to_simgpu_job(struct drm_sched_job *job)
{
	return container_of(job, struct simgpu_job, base);
}

/* simgpu_ring.c: engines, lanes, hardware fences, execution accounting. */
int simgpu_sched_init(struct simgpu_device *sdev, struct drm_gpu_scheduler *sched,
		      const char *name, unsigned int credit_limit);
int simgpu_engines_init(struct simgpu_device *sdev);
void simgpu_engines_fini(struct simgpu_device *sdev);
struct dma_fence *simgpu_ring_run(struct simgpu_job *job);
u64 simgpu_engine_busy_locked(struct simgpu_hw_engine *eng, struct simgpu_client *client,
			      ktime_t now);

/* simgpu_queue.c: per-file schedulers of firmware-scheduled personalities. */
int simgpu_queues_init(struct simgpu_device *sdev, struct simgpu_file *sfile,
		       struct drm_file *file);
void simgpu_queues_fini(struct simgpu_device *sdev, struct simgpu_file *sfile);

/* simgpu_job.c: drm_sched backend, job creation, SUBMIT/WAIT. */
extern const struct drm_sched_backend_ops simgpu_sched_ops;
struct simgpu_job *simgpu_job_alloc(struct simgpu_client *client, enum simgpu_engine engine,
				    u64 duration_ns);
void simgpu_job_free_unpushed(struct simgpu_job *job);
int simgpu_job_push(struct simgpu_job *job, struct drm_sched_entity *entity,
		    struct mutex *submit_lock, u64 *seqno, struct dma_fence **finished);
int simgpu_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file);
int simgpu_ioctl_wait(struct drm_device *drm, void *data, struct drm_file *file);
int simgpu_ioctl_client_id(struct drm_device *drm, void *data, struct drm_file *file);

/* simgpu_gem.c: shmem BOs, clears. */
struct drm_gem_object *simgpu_gem_create_object(struct drm_device *drm, size_t size);
int simgpu_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file);
int simgpu_bo_make_resident(struct drm_gem_object *obj);
bool simgpu_bo_has_pages(struct drm_gem_object *obj);	/* false: an own_free object */

/* simgpu_client.c: client lifetime and figures. */
struct simgpu_client *simgpu_client_create(struct simgpu_device *sdev, struct drm_file *file);
void simgpu_client_close(struct simgpu_client *client);
void simgpu_client_put(struct simgpu_client *client);
int simgpu_open(struct drm_device *drm, struct drm_file *file);
void simgpu_postclose(struct drm_device *drm, struct drm_file *file);

struct simgpu_mem_stats {
	u64 total;
	u64 shared;
	u64 resident;
	u64 active;
};

void simgpu_client_mem_stats(struct drm_file *file, struct simgpu_mem_stats *st);
void simgpu_client_engine_snapshot(struct simgpu_client *client, enum simgpu_engine e,
				   ktime_t now, struct simgpu_engine_stats *out);

/* simgpu_fdinfo.c */
#if SIMGPU_HAVE_DRM_SHOW_FDINFO
void simgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file);
#else
void simgpu_show_fdinfo(struct seq_file *m, struct file *f);
#endif

/* simgpu_debugfs.c */
void simgpu_debugfs_init(struct simgpu_device *sdev);
void simgpu_debugfs_fini(struct simgpu_device *sdev);

#endif /* SIMGPU_DRV_H */
