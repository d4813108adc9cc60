// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop_sched.bpf.c: engine time per (client, ring) from the gpu_sched tracepoints.
 *
 * Tracepoints (module gpu_sched), one set per kernel, chosen by the loader from the
 * btf_trace_<name> typedefs in /sys/kernel/btf/gpu_sched:
 *   role     6.1 .. 6.16             6.17+                 arguments
 *   queue    drm_sched_job           drm_sched_job_queue   (job, entity), in the submitting task
 *   run      drm_run_job             drm_sched_job_run     (job, entity), scheduler thread/wq
 *   done     drm_sched_process_job   drm_sched_job_done    (struct drm_sched_fence *), fence cb
 * Each is built twice: tp_btf (typed, cheapest) and raw_tp (for kernels where tp_btf cannot
 * attach); the loader autoloads one of the six per role. Prototypes checked in the gpu-sched.ko
 * BTF of Debian 6.1.0-56 and 6.12.117+deb12 and in the 6.17 source (gpu_scheduler_trace.h); the
 * 6.17+ set loaded and checked against simgpu on Debian 7.2.13+deb14.
 *
 * Any one event may be missing (7.x skips a preempted program's other runs on that CPU, see
 * job_from_run): a job whose queue event was skipped is made from its run event, one whose run
 * event was skipped starts between its queue time and its scheduled fence's time (the bracket,
 * drmtop_job_start), one that lost both is made from its done event (job_from_done); each is
 * counted (job_from_run, start_from_fence, job_from_done), and what cannot be made up for is
 * counted as before.
 *
 * A job's life ends for sure in drm_sched_job_cleanup(job) (BTF function in 6.1, 6.12, 6.17):
 * after a GPU reset jobs are re-run without the run tracepoint and may be freed without done,
 * and an entity killed with jobs queued frees them without done.
 *
 * Busy time: a job runs from its run event (or the end of the job before it on the same
 * execution unit, if later) to its hardware fence's timestamp; execution units are told apart
 * by the hardware fence's dma_fence.context (drmtop_timeline_busy_ns), so a ring feeding several
 * units (drm-engine-capacity > 1) counts the sum over its units, as fdinfo's drm-engine-<e>
 * does. amdgpu (adev->fence_context + ring->idx) and panfrost (one per job slot) make one
 * context per scheduler, read in their sources: for them this is the one-lane-per-ring rule.
 * Exact against simgpu with engine_capacity 1 to 3 on Debian 6.1.0-56 and 6.12.117+deb12 (VM
 * cases 41 and 50), 1 to 8 in the unit test's model of it.
 *
 * Attribution (checked on the same kernels): drm_sched_fence.drm_client_id where it exists
 * (6.12.10x+ stable, 6.17+; 0 or ids >= 2^63 are the driver's own jobs); else the owner of the
 * job's entity, learnt when the entity was created (drm_sched_entity_init in a client's open
 * or ioctl: that client; anywhere else: the driver); for entities created before attach, the
 * drm_file of the DRM ioctl the submitting task is in; else the device's kernel client.
 */
#include "drmtop_common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Client ids at or above this are reserved by drivers for their own jobs (amdgpu). */
#define KERNEL_CLIENT_ID_MIN	(1ull << 63)


/* The per-device client charged with jobs no user client submitted. */
static __always_inline struct drmtop_client *kernel_client(__u64 parent_dev)
{
	struct drmtop_client c = {}, *cp;

	cp = bpf_map_lookup_elem(&clients, &parent_dev);
	if (cp)
		return cp;
	c.uid = drmtop_next_uid();
	c.file = parent_dev;
	c.parent_dev = parent_dev;
	c.open_ns = bpf_ktime_get_ns();
	c.minor_index = -1;
	c.flags = DRMTOP_CLIENT_KERNEL;
	__builtin_memcpy(c.comm, "[kernel]", 9);
	if (bpf_map_update_elem(&clients, &parent_dev, &c, BPF_NOEXIST)) {
		cp = bpf_map_lookup_elem(&clients, &parent_dev);
		if (!cp)
			drmtop_count(DRMTOP_CNT_CLIENTS_FULL);
		return cp;
	}
	return bpf_map_lookup_elem(&clients, &parent_dev);
}

/*
 * An entity created before attach (drivers create their own at probe time, so these are
 * common), or in an open whose exit the kernel skipped (still pending, replaced here): an
 * entity of kernel priority is the driver's (simgpu, amdgpu's buffer moves);
 * otherwise its owner is guessed to be the client whose ioctl queues its first job seen, and
 * the guess turns into "driver's" if another client's ioctl uses it; no ioctl: the driver's.
 * DRM_SCHED_PRIORITY_KERNEL is 3 in 6.1 and 0 from 6.8 on: CO-RE gives this kernel's value.
 */
static __always_inline struct drmtop_client *unknown_entity_client(__u64 entity, __u64 file,
								    __u64 parent_dev)
{
	struct drm_sched_entity *ent = (struct drm_sched_entity *)entity;
	struct drmtop_entity n = { .kind = DRMTOP_ENTITY_KERNEL };
	int kprio = bpf_core_enum_value(enum drm_sched_priority, DRM_SCHED_PRIORITY_KERNEL);
	struct drmtop_client *c = NULL;

	drmtop_count(DRMTOP_CNT_ENTITY_GUESSED);
	if (file && (int)BPF_CORE_READ(ent, priority) != kprio) {
		c = drmtop_client_find(file);
		/* a job the driver queues for another device in this ioctl is not this client's */
		if (c && c->parent_dev != parent_dev)
			c = NULL;
		if (c) {
			n.kind = DRMTOP_ENTITY_USER;
			n.file = file;
			n.learnt = 1;
		}
	}
	if (drmtop_insert_lost(bpf_map_update_elem(&entities, &entity, &n, BPF_ANY)))
		drmtop_count(DRMTOP_CNT_ENTITIES_FULL);
	return c;
}

/*
 * 1 once a job was attributed through its fence's drm_client_id: the ioctl and entity hooks
 * then feed nothing the job figures use, so their skipped runs cost nothing (bpf_stats.c).
 */
__u32 drmtop_by_client_id;

/*
 * Set by the loader once drmtop_job_cleanup is attached: only then may a done event hold a job
 * for its cleanup to count (DRMTOP_LANE_MAY_HOLD). Without it (no BPF trampolines: Debian's
 * arm64 6.1) a held job would never be counted, and nothing there makes up a skipped done.
 */
__u32 drmtop_cleanup_hooked;

/*
 * The client of a job being queued; NULL for the driver's own jobs. *@unknown is set for a
 * user client's job whose client the tracer does not know (its open event missed, or opened
 * before attach and not used since): such a job is not charged to anyone here, never to
 * another client. With drm_client_id its run event tries again (the client may be known by
 * then), else it is counted lost (job_client_unknown).
 */
static __always_inline struct drmtop_client *job_client(struct drm_sched_job *job,
							 __u64 entity, __u64 parent_dev,
							 bool *unknown, bool btf)
{
	struct drm_sched_fence *fence = DRMTOP_READ(btf, job, s_fence);
	struct drmtop_entity *e;
	struct drmtop_client *c;
	__u64 *file, id;

	*unknown = false;
	if (bpf_core_field_exists(fence->drm_client_id)) {
		drmtop_by_client_id = 1;
		id = DRMTOP_READ(btf, fence, drm_client_id);
		if (!id || id >= KERNEL_CLIENT_ID_MIN)
			return NULL;
		c = drmtop_client_of_id(id);
		*unknown = !c;
		return c;
	}
	file = bpf_task_storage_get(&ioctl_files, bpf_get_current_task_btf(), NULL, 0);
	if (file && !*file)
		file = NULL;
	e = bpf_map_lookup_elem(&entities, &entity);
	if (e && e->kind == DRMTOP_ENTITY_KERNEL)
		return NULL;
	if (e && e->kind == DRMTOP_ENTITY_USER) {
		/* a guessed owner (below) whose entity serves another client's ioctl: shared */
		if (e->learnt && file && *file != e->file) {
			e->kind = DRMTOP_ENTITY_KERNEL;
			return NULL;
		}
		c = drmtop_client_find(e->file);
		if (!c) {
			drmtop_count(DRMTOP_CNT_JOB_CLIENT_UNKNOWN);
			*unknown = true;
		}
		return c;
	}
	return unknown_entity_client(entity, file ? *file : 0, parent_dev);
}

static __always_inline struct drmtop_ring *ring_get(struct drm_gpu_scheduler *sched)
{
	__u64 key = (__u64)sched;
	struct drmtop_ring r = {}, *rp;
	const char *name;
	bool lost;

	rp = bpf_map_lookup_elem(&rings, &key);
	if (rp || !sched)
		return rp;
	r.parent_dev = (__u64)BPF_CORE_READ(sched, dev);
	r.seq = drmtop_next_uid();
	r.timeout = BPF_CORE_READ(sched, timeout);
	name = BPF_CORE_READ(sched, name);
	if (name)
		bpf_probe_read_kernel_str(r.name, sizeof(r.name), name);
	rp = drmtop_ring_get(&rings, key, &r, &lost);
	if (lost)
		drmtop_count(DRMTOP_CNT_RINGS_FULL);
	return rp;
}

static __always_inline struct drmtop_engine *engine_get(__u64 uid, __u64 ring,
							 const struct drmtop_ring *r)
{
	struct drmtop_engine *e;
	bool lost;

	e = drmtop_engine_get(&engines, uid, ring, r, &lost);
	if (lost)
		drmtop_count(DRMTOP_CNT_ENGINES_FULL);
	return e;
}

/*
 * Test only, zero (off) unless a test writes them: bpfdump --drop-queue/--drop-run/--drop-done,
 * through this object's mmapped .bss. Every Nth queue, run or done event is dropped as if the
 * kernel had skipped the program (a recursion miss), so the recovery below is proven on every
 * kernel, not only when 7.x happens to skip (a job that loses both, or its queue event, only
 * where fences carry drm_client_id); drops are counted per role here. [0] queue, [1] run,
 * [2] done, of a job the tracer knows (made up where the job is freed, drmtop_job_cleanup).
 */
__u32 drmtop_test_drop_every[3];
__u64 drmtop_test_seen[3];
__u64 drmtop_test_dropped[3];
/*
 * bpfdump --leak: the job whose done event was dropped last is not made up at its cleanup
 * either, as if a GPU reset had lost both: left in the jobs map for the reader to age out.
 */
__u32 drmtop_test_leak;
__u64 drmtop_test_leak_fence;

static __always_inline bool test_drop(int role)
{
	return drmtop_test_drop(drmtop_test_drop_every[role], &drmtop_test_seen[role],
				&drmtop_test_dropped[role]);
}

/*
 * Test only: whether a done event of @s_fence may be dropped. Not the first job seen on its
 * execution unit: no seqno before it tells a later job to wait for its make-up (a documented
 * limit, drmtop_timeline_busy_ns), the likely cause of case 50 once failing on 6.1 (a 70 ms job
 * counted nothing, the next on its unit took its time).
 */
static __always_inline bool test_drop_done(struct drm_sched_fence *s_fence, bool btf)
{
	struct drmtop_timeline *t;
	struct dma_fence *hw;
	__u64 ctx;

	/* one .bss load where no test asked for drops: every done event passes here */
	if (!drmtop_test_drop_every[2])
		return false;
	hw = DRMTOP_READ(btf, s_fence, parent);
	if (!hw)
		return false;
	ctx = DRMTOP_READ(btf, hw, context);
	t = bpf_map_lookup_elem(&timelines, &ctx);
	return t && t->last_seqno && test_drop(2);
}

/* @c owns job @j: its first job marks it as one that cannot close idle (drmtop_drm.bpf.c). */
static __always_inline void job_owner(struct drmtop_job *j, struct drmtop_client *c)
{
	j->uid = c->uid;
	if (!c->first_job_ns)
		c->first_job_ns = bpf_ktime_get_ns();
}

static __always_inline void on_queue(struct drm_sched_job *job, struct drm_sched_entity *entity,
				     bool btf)
{
	struct drm_gpu_scheduler *sched = DRMTOP_READ(btf, job, sched);
	__u64 fence = (__u64)DRMTOP_READ(btf, job, s_fence);
	__u64 parent = (__u64)DRMTOP_READ(btf, sched, dev);
	struct drmtop_job j = { .ring = (__u64)sched, .queue_ns = bpf_ktime_get_ns() };
	struct drmtop_client *c;
	bool unknown;

	if (!fence || test_drop(0))
		return;
	ring_get(sched);
	c = job_client(job, (__u64)entity, parent, &unknown, btf);
	if (unknown)
		return;
	if (!c) {
		c = kernel_client(parent);
		drmtop_count(DRMTOP_CNT_KERNEL_JOBS);
	}
	if (!c)
		return;
	drmtop_count(DRMTOP_CNT_JOBS_QUEUED);
	job_owner(&j, c);
	if (bpf_map_update_elem(&jobs, &fence, &j, BPF_ANY)) {
		drmtop_count(DRMTOP_CNT_JOBS_FULL);
		__sync_fetch_and_add(&c->missed, 1);
	}
}

/*
 * A job whose queue event the tracer did not see: on 7.x (PREEMPT_LAZY) tracing programs are
 * preemptible, and the kernel skips a program on a CPU while another task there is inside it
 * (counted only in that program's recursion_misses); or the job was queued before attach. Its
 * run event still names everything the queue event would have: the client through
 * drm_sched_fence.drm_client_id (6.12.10x+ stable, 6.17+: what the run tracepoint itself prints
 * as client_id) and the ring through job->sched; the queue time is job->submit_ts, which
 * drm_sched_entity_push_job() stamps when it queues the job (6.6+). Without drm_client_id the
 * owner was learnt in the submitter's context, which the run event does not have: the job is
 * left unaccounted (run_unknown) rather than charged to a guessed client. So is a client id no
 * open client has (its open event missed; job_client_unknown): never another client's time.
 * A job whose client was unknown at its queue event comes here too (job_client).
 * Checked on Debian 6.1.0-56, 6.12.117+deb12 and 7.2.13+deb14 (gpu_sched BTF, and the
 * drm_sched_job_run event of 7.2's gpu_scheduler_trace.h: client_id = s_fence->drm_client_id).
 */
/*
 * The client a job's fence names through drm_sched_fence.drm_client_id (the device's kernel
 * client for the driver's own ids); NULL if the kernel has no such field or no open client has
 * the id (counted job_client_unknown). *@kernel says which.
 */
static __always_inline struct drmtop_client *fence_client(struct drm_sched_fence *s_fence,
							   __u64 parent, bool *kernel, bool btf)
{
	struct drmtop_client *c;
	__u64 id;

	*kernel = false;
	if (!bpf_core_field_exists(s_fence->drm_client_id))
		return NULL;
	id = DRMTOP_READ(btf, s_fence, drm_client_id);
	*kernel = !id || id >= KERNEL_CLIENT_ID_MIN;
	if (*kernel)
		return kernel_client(parent);
	c = drmtop_client_of_id(id);
	if (!c)
		drmtop_count(DRMTOP_CNT_JOB_CLIENT_UNKNOWN);
	return c;
}

static __always_inline struct drmtop_job *job_from_run(struct drm_sched_job *job,
						       struct drm_sched_fence *s_fence, bool btf)
{
	struct drm_gpu_scheduler *sched = DRMTOP_READ(btf, job, sched);
	__u64 parent = (__u64)DRMTOP_READ(btf, sched, dev), fence = (__u64)s_fence;
	struct drmtop_job j = { .ring = (__u64)sched };
	struct drmtop_client *c;
	bool kernel;

	c = fence_client(s_fence, parent, &kernel, btf);
	if (!c) {
		/*
		 * A client id no open client has, counted once here: the job's entry says so
		 * (uid 0) to its done event, which would otherwise count it again.
		 */
		if (bpf_core_field_exists(s_fence->drm_client_id))
			bpf_map_update_elem(&jobs, &fence, &j, BPF_NOEXIST);
		return NULL;
	}
	ring_get(sched);
	job_owner(&j, c);
	if (bpf_core_field_exists(job->submit_ts))
		j.queue_ns = DRMTOP_READ(btf, job, submit_ts);
	if (drmtop_insert_lost(bpf_map_update_elem(&jobs, &fence, &j, BPF_NOEXIST))) {
		drmtop_count(DRMTOP_CNT_JOBS_FULL);
		__sync_fetch_and_add(&c->missed, 1);
		return NULL;
	}
	drmtop_count(DRMTOP_CNT_JOB_FROM_RUN);
	if (kernel)
		drmtop_count(DRMTOP_CNT_KERNEL_JOBS);
	return bpf_map_lookup_elem(&jobs, &fence);
}

/*
 * The run event records when the job started and nothing else: its latency sample and its
 * engine entry wait for its end (on_done), which looks both up anyway: one lookup here, not
 * three (make bench, Debian 6.12 under TCG: 8.4 to 4.2 us a job).
 */
static __always_inline void on_run(struct drm_sched_job *job, bool btf)
{
	struct drm_sched_fence *s_fence = DRMTOP_READ(btf, job, s_fence);
	__u64 fence = (__u64)s_fence;
	struct drmtop_job *j = bpf_map_lookup_elem(&jobs, &fence);

	/* a job that lost both its queue and run events is made from its done event */
	if (test_drop(1))
		return;
	if (!j && fence)
		j = job_from_run(job, s_fence, btf);
	if (!j) {
		drmtop_count(DRMTOP_CNT_RUN_UNKNOWN);
		return;
	}
	/*
	 * The driver's run_job callback, where the hardware starts the job, comes right after
	 * this tracepoint: the clock is read last, so this program's own map work is not counted.
	 * On a preemptible kernel (7.x) the scheduler thread may still be preempted between here
	 * and run_job: a job that starts on an idle ring then counts from this event, up to a
	 * time slice early (seen under QEMU TCG on 7.2: 10-30 ms over a client's 1 s, now and
	 * then). The scheduled fence, signalled after run_job returns, bounds the start from
	 * the other side: on_done counts the bracket as start_slack_ns.
	 */
	j->run_ns = bpf_ktime_get_ns();
}

/*
 * When the job finished on the hardware: the timestamp of its hardware fence
 * (drm_sched_fence.parent), which the driver signalled just before this callback chain ran
 * (dma_fence_signal_timestamp_locked sets it, then calls the callbacks, drm_sched_job_done_cb
 * among them). The done tracepoint itself may run much later than the completion interrupt:
 * the fence's time is what drm_sched and fdinfo-printing drivers use. Now, if it has none.
 * Checked on 6.1, 6.12 and 6.17 (dma_fence.timestamp, DMA_FENCE_FLAG_TIMESTAMP_BIT).
 */
static __always_inline __u64 done_time(struct drm_sched_fence *s_fence, __u64 now, bool btf)
{
	struct dma_fence *hw = DRMTOP_READ(btf, s_fence, parent);
	__u64 bit = bpf_core_enum_value(enum dma_fence_flag_bits, DMA_FENCE_FLAG_TIMESTAMP_BIT);
	__u64 ts;

	if (!hw || !(DRMTOP_READ(btf, hw, flags) & (1ull << bit))) {
		drmtop_count(DRMTOP_CNT_DONE_NO_HW_TIME);
		return now;
	}
	/*
	 * A probe read even from a BTF pointer: timestamp shares a union with cb_list, and a plain
	 * load of it is typed as that list's pointer, on which no arithmetic is allowed.
	 */
	ts = BPF_CORE_READ(hw, timestamp);
	if (!ts || ts > now) {
		drmtop_count(DRMTOP_CNT_DONE_NO_HW_TIME);
		return now;
	}
	return ts;
}

/*
 * The latest a job can have started: the timestamp of its scheduled fence, which drm_sched
 * signals right after the driver's run_job callback took the job (drm_sched_fence_scheduled();
 * drm_sched may later move it to the end of the ring's previous job, see drmtop_job_start). 0 if
 * the fence has no time yet, or one after the job's end (no start can be trusted then). Checked
 * on 6.1, 6.12 and 7.2.
 */
static __always_inline __u64 scheduled_time(struct drm_sched_fence *s_fence, __u64 now,
					    bool btf)
{
	__u64 bit = bpf_core_enum_value(enum dma_fence_flag_bits, DMA_FENCE_FLAG_TIMESTAMP_BIT);
	__u64 ts;

	if (!(DRMTOP_READ(btf, s_fence, scheduled.flags) & (1ull << bit)))
		return 0;
	ts = BPF_CORE_READ(s_fence, scheduled.timestamp);	/* a union member: see done_time */
	return ts <= now ? ts : 0;
}

/*
 * Busy time of a job that ran from @start to @now (0: start unknown, no busy time; the job
 * still ends its timeline's previous one, so the next starts no earlier than @now): against the
 * previous completion on its hardware fence's timeline (drmtop_timeline_busy_ns), or, for a job
 * without a hardware fence (run_job gave none), on its ring as a whole.
 * s_fence->parent is set before drm_sched adds the callback the done event runs in
 * (drm_sched_fence_set_parent() in 6.1, drm_sched_fence_scheduled(s_fence, fence) since the
 * two were merged; read in upstream sched_main.c's history, and the done events of Debian
 * 6.1.0-56 and 6.12.117+deb12 all found it set in VM case 50: none counted done_no_hw_time).
 * The ring's latest completion is kept either way: the reader starts the running part of a
 * ring's oldest unfinished job there (bpf_reader.c, add_running). With @may_hold, *@held says
 * the job was held instead (an earlier one on its timeline unaccounted): nothing changed.
 */
static __always_inline __u64 job_busy(struct drm_sched_fence *s_fence, struct drmtop_ring *r,
				      __u64 start, __u64 now, bool may_hold, bool *held, bool btf)
{
	struct dma_fence *hw = DRMTOP_READ(btf, s_fence, parent);
	unsigned int lane = may_hold ? DRMTOP_LANE_MAY_HOLD : 0;
	__u64 last = r ? r->last_done_ns : 0, busy;

	if (!start)
		start = now;
	if (hw) {
		busy = drmtop_timeline_busy_ns(&timelines, DRMTOP_READ(btf, hw, context),
					       DRMTOP_READ(btf, hw, seqno), start, now, &lane);
		if (lane & DRMTOP_LANE_HELD) {
			*held = true;
			return 0;
		}
		if (lane & DRMTOP_LANE_MADE) {
			drmtop_count(DRMTOP_CNT_TIMELINES);
			if (r)
				__sync_fetch_and_add(&r->lanes, 1);
		}
	} else {
		busy = drmtop_busy_ns(start, now, &last);
	}
	if (r)
		drmtop_raise(&r->last_done_ns, now);
	return r || hw ? busy : 0;
}

/* A job's end that no job of the tracer's is charged with: it still ends its timeline's last. */
static __always_inline void end_only(struct drm_sched_fence *s_fence, struct drmtop_ring *r,
				     __u64 now, bool btf)
{
	bool held = false;

	job_busy(s_fence, r, 0, now, false, &held, btf);
}

/*
 * A job whose queue and run events were both lost (7.x skips each now and then, and a job
 * queued before attach): where fences carry drm_client_id its done event still names the
 * client, and the ring is s_fence->sched. Filled into @j: its client, its ring, and in queue_ns
 * its execution unit's previous end, the earliest it can have started (0: unknown); on_done
 * keeps it until it is freed (done_only). The fence has no link back to the job: no latency
 * sample. False if the client is not known.
 */
static __always_inline bool job_from_done(struct drm_sched_fence *s_fence, struct drmtop_job *j,
					  bool btf)
{
	struct drm_gpu_scheduler *sched = DRMTOP_READ(btf, s_fence, sched);
	struct dma_fence *hw = DRMTOP_READ(btf, s_fence, parent);
	struct drmtop_client *c;
	bool kernel;

	c = fence_client(s_fence, (__u64)DRMTOP_READ(btf, sched, dev), &kernel, btf);
	if (!c)
		return false;
	if (kernel)
		drmtop_count(DRMTOP_CNT_KERNEL_JOBS);
	job_owner(j, c);
	j->ring = (__u64)sched;
	j->queue_ns = hw ? drmtop_timeline_last(&timelines, DRMTOP_READ(btf, hw, context)) : 0;
	return true;
}

/* Where on_done() accounts a job's end */
enum end_at {
	END_AT_DONE,		/* its done event: held if one before it on its unit is not ended */
	END_MADE_UP,		/* its cleanup, the kernel having skipped its done event */
	END_HELD,		/* its cleanup, held at its done event */
};

static __always_inline void on_done(struct drm_sched_fence *s_fence, enum end_at at, bool btf)
{
	__u64 fence = (__u64)s_fence;
	__u64 now = done_time(s_fence, bpf_ktime_get_ns(), btf);
	struct drm_gpu_scheduler *sched = DRMTOP_READ(btf, s_fence, sched);
	struct drmtop_job *jm = bpf_map_lookup_elem(&jobs, &fence);
	struct drmtop_ring *r = ring_get(sched);
	__u64 busy, slack, start, fence_ns, latest, began;
	struct drmtop_engine *e;
	struct drmtop_job j = {};
	bool held = false;
	__u32 b;

	/*
	 * Only a job the tracer knows: one whose queue and run events the kernel skipped has its
	 * done event alone (job_from_done), and dropping that would lose the job, not test the
	 * make-up at cleanup (case 50 saw 7.2 skip both for 4 jobs of 372).
	 */
	if (at == END_AT_DONE && jm && test_drop_done(s_fence, btf)) {
		drmtop_test_leak_fence = fence;
		return;
	}
	if (at != END_HELD)
		drmtop_count(at == END_MADE_UP ? DRMTOP_CNT_DONE_AT_CLEANUP :
						 DRMTOP_CNT_JOBS_DONE);
	/* a copy: a pointer to either the map or the stack is more than the verifier takes */
	if (jm && !jm->uid) {
		/* its client unknown at its run event, counted there (job_from_run) */
		end_only(s_fence, r, now, btf);
		bpf_map_delete_elem(&jobs, &fence);
		drmtop_count(DRMTOP_CNT_DONE_UNKNOWN);
		return;
	} else if (jm) {
		j = *jm;
		j.uid &= ~(DRMTOP_JOB_ENDED | DRMTOP_JOB_HELD);
	} else if (at != END_AT_DONE) {
		return;		/* its done event came after all, and accounted it */
	} else if (job_from_done(s_fence, &j, btf)) {
		/*
		 * Counted when it is freed (done_only), where its queue time bounds its start;
		 * its end ends its unit's previous job now, for the jobs after it.
		 */
		drmtop_count(DRMTOP_CNT_JOB_FROM_DONE);
		end_only(s_fence, r, now, btf);
		j.run_ns = now;
		j.end_ns = now;
		j.uid |= DRMTOP_JOB_ENDED;
		if (drmtop_insert_lost(bpf_map_update_elem(&jobs, &fence, &j, BPF_NOEXIST)))
			drmtop_count(DRMTOP_CNT_JOBS_FULL);
		return;
	} else {
		end_only(s_fence, r, now, btf);
		drmtop_count(DRMTOP_CNT_DONE_UNKNOWN);
		return;
	}
	/*
	 * A job that started at its run event (its unit idle then: busy is all of run -> done) may
	 * have started on the hardware as late as its scheduled fence (on_run); one whose run event
	 * was lost counts from the earliest it can have started, its fence's time bounding it from
	 * the other side: the bracket, start_slack_ns.
	 */
	fence_ns = scheduled_time(s_fence, now, btf);
	start = drmtop_job_start(j.run_ns, j.queue_ns, fence_ns);
	busy = job_busy(s_fence, r, start, now, at == END_AT_DONE && drmtop_cleanup_hooked, &held,
			btf);
	if (held) {
		/* the map's entry, for the cleanup, which reads the end from the fence again */
		jm->end_ns = now;
		jm->uid |= DRMTOP_JOB_ENDED | DRMTOP_JOB_HELD;
		drmtop_count(DRMTOP_CNT_DONE_HELD);
		return;
	}
	if (!j.run_ns)
		drmtop_count(start ? DRMTOP_CNT_START_FROM_FENCE : DRMTOP_CNT_DONE_WITHOUT_RUN);
	if (r && j.run_ns)
		drmtop_raise(&r->done_run_ns, j.run_ns);
	latest = drmtop_latest_start(j.run_ns, fence_ns, now);
	slack = drmtop_start_slack(j.run_ns, start, latest, busy, now);
	e = engine_get(j.uid, (__u64)sched, r);
	if (e) {
		__sync_fetch_and_add(&e->busy_ns, busy);
		__sync_fetch_and_add(&e->jobs, 1);
		if (slack)
			__sync_fetch_and_add(&e->start_slack_ns, slack);
		/* queue to run; a job whose run event was skipped: to its scheduled fence */
		began = j.run_ns ? j.run_ns : start && fence_ns ? fence_ns : start;
		if (began && j.queue_ns) {
			b = drmtop_lat_bucket(began > j.queue_ns ? began - j.queue_ns : 0);
			if (b < DRMTOP_LAT_BUCKETS)
				__sync_fetch_and_add(&e->lat_hist[b], 1);
		}
	}
	if (jm)
		bpf_map_delete_elem(&jobs, &fence);
}

/*
 * The NULL checks are for the verifier: from 6.12 on it types tp_btf arguments as
 * trusted_ptr_or_null and refuses pointer arithmetic (BPF_CORE_READ) on them before a check.
 */

/* Names as of 6.1 .. 6.16 */
SEC("tp_btf/drm_sched_job")
int BPF_PROG(drmtop_queue_btf, struct drm_sched_job *job, struct drm_sched_entity *entity)
{
	if (!job)
		return 0;
	on_queue(job, entity, true);
	return 0;
}

SEC("tp_btf/drm_run_job")
int BPF_PROG(drmtop_run_btf, struct drm_sched_job *job)
{
	if (!job)
		return 0;
	on_run(job, true);
	return 0;
}

SEC("tp_btf/drm_sched_process_job")
int BPF_PROG(drmtop_done_btf, struct drm_sched_fence *fence)
{
	if (!fence)
		return 0;
	on_done(fence, END_AT_DONE, true);
	return 0;
}

SEC("raw_tp/drm_sched_job")
int BPF_PROG(drmtop_queue_raw, struct drm_sched_job *job, struct drm_sched_entity *entity)
{
	if (!job)
		return 0;
	on_queue(job, entity, false);
	return 0;
}

SEC("raw_tp/drm_run_job")
int BPF_PROG(drmtop_run_raw, struct drm_sched_job *job)
{
	if (!job)
		return 0;
	on_run(job, false);
	return 0;
}

SEC("raw_tp/drm_sched_process_job")
int BPF_PROG(drmtop_done_raw, struct drm_sched_fence *fence)
{
	if (!fence)
		return 0;
	on_done(fence, END_AT_DONE, false);
	return 0;
}

/* Names from 6.17 on (stable uAPI) */
SEC("tp_btf/drm_sched_job_queue")
int BPF_PROG(drmtop_queue_btf_617, struct drm_sched_job *job, struct drm_sched_entity *entity)
{
	if (!job)
		return 0;
	on_queue(job, entity, true);
	return 0;
}

SEC("tp_btf/drm_sched_job_run")
int BPF_PROG(drmtop_run_btf_617, struct drm_sched_job *job)
{
	if (!job)
		return 0;
	on_run(job, true);
	return 0;
}

SEC("tp_btf/drm_sched_job_done")
int BPF_PROG(drmtop_done_btf_617, struct drm_sched_fence *fence)
{
	if (!fence)
		return 0;
	on_done(fence, END_AT_DONE, true);
	return 0;
}

SEC("raw_tp/drm_sched_job_queue")
int BPF_PROG(drmtop_queue_raw_617, struct drm_sched_job *job, struct drm_sched_entity *entity)
{
	if (!job)
		return 0;
	on_queue(job, entity, false);
	return 0;
}

SEC("raw_tp/drm_sched_job_run")
int BPF_PROG(drmtop_run_raw_617, struct drm_sched_job *job)
{
	if (!job)
		return 0;
	on_run(job, false);
	return 0;
}

SEC("raw_tp/drm_sched_job_done")
int BPF_PROG(drmtop_done_raw_617, struct drm_sched_fence *fence)
{
	if (!fence)
		return 0;
	on_done(fence, END_AT_DONE, false);
	return 0;
}

/*
 * A job made from its done event alone (on_done), counted now that it is freed: its queue time
 * (drm_sched_job.submit_ts, 6.6+; every kernel with drm_client_id has it) bounds its start
 * together with its unit's previous end (drmtop_done_only_busy), its scheduled fence the bracket.
 */
static __always_inline void done_only(struct drm_sched_job *job, struct drm_sched_fence *s_fence,
				      const struct drmtop_job *j, bool btf)
{
	__u64 uid = j->uid & ~DRMTOP_JOB_ENDED, queue_ns = 0, busy, slack;
	struct drmtop_engine *e;

	if (bpf_core_field_exists(job->submit_ts))
		queue_ns = DRMTOP_READ(btf, job, submit_ts);
	busy = drmtop_done_only_busy(j->queue_ns, queue_ns, scheduled_time(s_fence, j->run_ns, btf),
				     j->run_ns, &slack);
	e = engine_get(uid, j->ring, ring_get((struct drm_gpu_scheduler *)j->ring));
	if (!e)
		return;
	__sync_fetch_and_add(&e->busy_ns, busy);
	__sync_fetch_and_add(&e->jobs, 1);
	if (slack)
		__sync_fetch_and_add(&e->start_slack_ns, slack);
}

/*
 * A job still in the jobs map when it is freed had no done event: either the kernel skipped it
 * (7.x: the done runs in a kworker on the fence-already-signalled path, and another completion on
 * that CPU was inside the program), then its finished fence is signalled and its hardware
 * fence still holds its end (the job holds its fences until here): accounted now, as the done
 * event would have (done_at_cleanup); or it never finished (a GPU reset, an entity killed with
 * jobs queued): ended_without_done. An entry of a job whose client was unknown (uid 0) was
 * counted at its run event; one made from its done event is counted here (done_only), and so is
 * one held at its done event (DRMTOP_JOB_HELD): drm_sched frees a scheduler's jobs in the order
 * they ran (drm_sched_get_finished_job takes the pending list's head, 6.1 to 7.2), so the job
 * before it on its unit, whose made-up end it waited for, was accounted here first.
 */
SEC("fentry/drm_sched_job_cleanup")
int BPF_PROG(drmtop_job_cleanup, struct drm_sched_job *job)
{
	struct drm_sched_fence *s_fence = job->s_fence;
	__u64 fence = (__u64)s_fence;
	__u64 bit = bpf_core_enum_value(enum dma_fence_flag_bits, DMA_FENCE_FLAG_SIGNALED_BIT);
	struct drmtop_job *j, ended;

	/* done deleted nearly every job already: a lockless lookup first, the rest seldom */
	j = fence ? bpf_map_lookup_elem(&jobs, &fence) : NULL;
	if (!j || (drmtop_test_leak && fence == drmtop_test_leak_fence))
		return 0;
	if (j->uid & DRMTOP_JOB_HELD) {
		on_done(s_fence, END_HELD, true);
		return 0;
	}
	if (j->uid & DRMTOP_JOB_ENDED) {
		/* deleted first: a cleanup racing with this one counts it once */
		ended = *j;
		if (!bpf_map_delete_elem(&jobs, &fence))
			done_only(job, s_fence, &ended, true);
		return 0;
	}
	if (j->uid && (s_fence->finished.flags & (1ull << bit))) {
		on_done(s_fence, END_MADE_UP, true);
		return 0;
	}
	if (!bpf_map_delete_elem(&jobs, &fence) && j->uid)
		drmtop_count(DRMTOP_CNT_ENDED_WITHOUT_DONE);
	return 0;
}

/*
 * A scheduler's rings entry lives as long as the scheduler: made at its first job, deleted when
 * it is torn down, and when a scheduler is made at an address (a new one where an old one was
 * freed, its fini hook skipped: its name is read again at its first job). Both are exported
 * functions of gpu_sched with BTF on Debian 6.1, 6.12 and 7.2 (drm_sched_init's arguments
 * changed in 6.15 to an args struct: only the first, the scheduler, is read here).
 */
SEC("fentry/drm_sched_init")
int BPF_PROG(drmtop_sched_init, struct drm_gpu_scheduler *sched)
{
	drmtop_ring_end(&rings, (__u64)sched);
	return 0;
}

/*
 * At its exit: 7.2's drm_sched_fini cancels the pending jobs (cancel_job) and their ends still
 * need the scheduler's entry, which deleting at its entry would make again, to stay.
 */
SEC("fexit/drm_sched_fini")
int BPF_PROG(drmtop_sched_fini, struct drm_gpu_scheduler *sched)
{
	drmtop_ring_end(&rings, (__u64)sched);
	return 0;
}

/* Entity ownership, for kernels without drm_client_id (see drmtop_common.bpf.h). */
SEC("fexit/drm_sched_entity_init")
int BPF_PROG(drmtop_entity_init, struct drm_sched_entity *entity, int priority, void *sched_list,
	     unsigned int num_sched_list, atomic_t *guilty, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), n;
	struct drmtop_entity e = { .tid = tid, .kind = DRMTOP_ENTITY_KERNEL };
	__u64 key = (__u64)entity, *file;
	struct drmtop_opening *op;

	if (ret)
		return 0;
	/* open first: the thread's latest ioctl file (below) is stale during an open */
	op = bpf_task_storage_get(&opening, bpf_get_current_task_btf(), NULL, 0);
	if (op && op->active) {
		e.kind = DRMTOP_ENTITY_PENDING;
		n = op->n;
		if (n < DRMTOP_OPEN_ENTITIES) {
			op->entity[n] = key;
			op->n = n + 1;
		} else {
			op->overflow = 1;
		}
	} else {
		file = bpf_task_storage_get(&ioctl_files, bpf_get_current_task_btf(), NULL, 0);
		if (file && *file) {
			e.file = *file;
			e.kind = DRMTOP_ENTITY_USER;
		}
	}
	if (bpf_map_update_elem(&entities, &key, &e, BPF_ANY))
		drmtop_count(DRMTOP_CNT_ENTITIES_FULL);
	return 0;
}

/* drm_sched_entity_destroy ends in drm_sched_entity_fini (a tail call: hook both). */
SEC("fentry/drm_sched_entity_fini")
int BPF_PROG(drmtop_entity_fini, struct drm_sched_entity *entity)
{
	__u64 key = (__u64)entity;

	bpf_map_delete_elem(&entities, &key);
	return 0;
}

SEC("fentry/drm_sched_entity_destroy")
int BPF_PROG(drmtop_entity_destroy, struct drm_sched_entity *entity)
{
	__u64 key = (__u64)entity;

	bpf_map_delete_elem(&entities, &key);
	return 0;
}
